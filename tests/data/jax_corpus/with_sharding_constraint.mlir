module @jit_with_sharding_constraint attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<4x8xf32>) -> (tensor<4x4xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.sine %arg0 : tensor<4x8xf32>
    %1 = sdy.sharding_constraint %0 <@mesh, [{"x"}, {}]> : tensor<4x8xf32>
    %2 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    %3 = stablehlo.dot_general %1, %2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    %4 = sdy.sharding_constraint %3 <@mesh, [{}, {}]> : tensor<4x4xf32>
    return %4 : tensor<4x4xf32>
  }
}
