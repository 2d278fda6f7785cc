module @jit_top_k attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x16xf32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<3x4xi32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 4) : tensor<3x16xf32> -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %0 = call @partition(%arg0) : (tensor<3x16xf32>) -> tensor<3x16xf32>
    %1 = stablehlo.slice %0 [0:3, 3:4] : (tensor<3x16xf32>) -> tensor<3x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<3x1xf32>) -> tensor<3xf32>
    return %values, %indices, %2 : tensor<3x4xf32>, tensor<3x4xi32>, tensor<3xf32>
  }
  func.func private @partition(%arg0: tensor<3x16xf32>) -> tensor<3x16xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3x16xf32>
    %values, %indices = chlo.top_k(%0, k = 4) : tensor<3x16xf32> -> (tensor<3x4xf32>, tensor<3x4xi32>)
    %1 = stablehlo.negate %values : tensor<3x4xf32>
    %values_0, %indices_1 = chlo.top_k(%arg0, k = 12) : tensor<3x16xf32> -> (tensor<3x12xf32>, tensor<3x12xi32>)
    %2 = stablehlo.concatenate %1, %values_0, dim = 1 : (tensor<3x4xf32>, tensor<3x12xf32>) -> tensor<3x16xf32>
    return %2 : tensor<3x16xf32>
  }
}
