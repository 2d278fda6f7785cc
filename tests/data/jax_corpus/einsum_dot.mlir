module @jit_einsum_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<4x5xf32>, %arg2: tensor<2x5x3xf32>) -> (tensor<2x3x5xf32> {jax.result_info = "result[0]"}, tensor<2x4x5xf32> {jax.result_info = "result[1]"}, tensor<2x3x5xf32> {jax.result_info = "result[2]"}, tensor<3x3xf32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}, tensor<5x5xf32> {jax.result_info = "result[5]"}, tensor<4x4xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    %1 = stablehlo.dot_general %arg0, %arg2, batching_dims = [0] x [0], contracting_dims = [1] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x5x3xf32>) -> tensor<2x4x5xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    %3 = stablehlo.slice %arg0 [0:1, 0:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %5 = stablehlo.slice %arg2 [0:1, 0:5, 0:3] : (tensor<2x5x3xf32>) -> tensor<1x5x3xf32>
    %6 = stablehlo.reshape %5 : (tensor<1x5x3xf32>) -> tensor<5x3xf32>
    %7 = stablehlo.dot_general %6, %arg1, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
    %8 = stablehlo.dot_general %4, %7, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x3xf32>
    %9 = stablehlo.slice %arg0 [0:1, 0:3, 0:3] : (tensor<2x3x4xf32>) -> tensor<1x3x3xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x3x3xf32>) -> tensor<3x3xf32>
    %11 = call @trace(%10) : (tensor<3x3xf32>) -> tensor<f32>
    %12 = stablehlo.slice %arg1 [0:1, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
    %13 = stablehlo.reshape %12 : (tensor<1x5xf32>) -> tensor<5xf32>
    %14 = stablehlo.slice %arg1 [1:2, 0:5] : (tensor<4x5xf32>) -> tensor<1x5xf32>
    %15 = stablehlo.reshape %14 : (tensor<1x5xf32>) -> tensor<5xf32>
    %16 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %18 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x5xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %20 = stablehlo.multiply %18, %19 : tensor<5x5xf32>
    %21 = stablehlo.slice %arg1 [0:2, 0:2] : (tensor<4x5xf32>) -> tensor<2x2xf32>
    %22 = stablehlo.slice %arg1 [2:4, 0:2] : (tensor<4x5xf32>) -> tensor<2x2xf32>
    %23 = call @kron(%21, %22) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<4x4xf32>
    return %0, %1, %2, %8, %11, %20, %23 : tensor<2x3x5xf32>, tensor<2x4x5xf32>, tensor<2x3x5xf32>, tensor<3x3xf32>, tensor<f32>, tensor<5x5xf32>, tensor<4x4xf32>
  }
  func.func private @trace(%arg0: tensor<3x3xf32>) -> tensor<f32> {
    %0 = stablehlo.iota dim = 0 : tensor<3x3xi32>
    %1 = stablehlo.iota dim = 1 : tensor<3x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x3xi32>
    %3 = stablehlo.add %0, %2 : tensor<3x3xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %6 = call @_where(%4, %arg0, %5) : (tensor<3x3xi1>, tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x3xf32>, tensor<f32>) -> tensor<f32>
    return %7 : tensor<f32>
  }
  func.func private @_where(%arg0: tensor<3x3xi1>, %arg1: tensor<3x3xf32>, %arg2: tensor<3x3xf32>) -> tensor<3x3xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x3xi1>, tensor<3x3xf32>
    return %0 : tensor<3x3xf32>
  }
  func.func private @kron(%arg0: tensor<2x2xf32>, %arg1: tensor<2x2xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<2x2xf32>) -> tensor<2x1x2x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1, 3] : (tensor<2x2xf32>) -> tensor<1x2x1x2xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<2x1x2x1xf32>) -> tensor<2x2x2x2xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x2x1x2xf32>) -> tensor<2x2x2x2xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<2x2x2x2xf32>
    %5 = stablehlo.reshape %4 : (tensor<2x2x2x2xf32>) -> tensor<4x4xf32>
    return %5 : tensor<4x4xf32>
  }
}
