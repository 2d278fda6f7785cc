module @jit_named_sharding_jit attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["x"=1]> {stablehlo.mesh = {axes = [{name = "x", size = 1 : i64}]}}
  func.func public @main(%arg0: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}, %arg1: tensor<8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) -> (tensor<8xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"x"}]>}) {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<8xf32>
    %1 = stablehlo.tanh %arg0 : tensor<8xf32>
    %2 = stablehlo.add %0, %1 : tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}
