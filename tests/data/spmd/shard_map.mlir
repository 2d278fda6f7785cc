module @jit_body attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["model"=2]> {stablehlo.mesh = {axes = [{name = "model", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<8x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"model"}, {}]>] out_shardings=[<@mesh, [{}, {}]>] manual_axes={"model"} (%arg1: tensor<4x4xf32>) {
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
      %2 = stablehlo.multiply %arg1, %1 : tensor<4x4xf32>
      %3 = "stablehlo.all_reduce"(%2) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %4 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %4 : tensor<f32>
      }) : (tensor<4x4xf32>) -> tensor<4x4xf32>
      sdy.return %3 : tensor<4x4xf32>
    } : (tensor<8x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}
