module @jit_vmap_per_example_grads attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<3xf32>, %arg2: tensor<8x16xf32>, %arg3: tensor<16x3xf32>, %arg4: tensor<6x8xf32>, %arg5: tensor<6x3xf32>) -> (tensor<6x16xf32> {jax.result_info = "result['b1']"}, tensor<6x3xf32> {jax.result_info = "result['b2']"}, tensor<6x8x16xf32> {jax.result_info = "result['w1']"}, tensor<6x16x3xf32> {jax.result_info = "result['w2']"}) {
    %0 = stablehlo.broadcast_in_dim %arg4, dims = [0, 2] : (tensor<6x8xf32>) -> tensor<6x1x8xf32>
    %1 = stablehlo.broadcast_in_dim %arg5, dims = [0, 2] : (tensor<6x3xf32>) -> tensor<6x1x3xf32>
    %2 = stablehlo.dot_general %0, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x1x8xf32>, tensor<8x16xf32>) -> tensor<6x1x16xf32>
    %3 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [1, 2] : (tensor<1x16xf32>) -> tensor<1x1x16xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<6x1x16xf32>
    %6 = stablehlo.add %2, %5 : tensor<6x1x16xf32>
    %7 = call @relu(%6) : (tensor<6x1x16xf32>) -> tensor<6x1x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x1x16xf32>
    %9 = stablehlo.compare GT, %6, %8, FLOAT : (tensor<6x1x16xf32>, tensor<6x1x16xf32>) -> tensor<6x1x16xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
    %11 = stablehlo.dot_general %7, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x1x16xf32>, tensor<16x3xf32>) -> tensor<6x1x3xf32>
    %12 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<1x1x3xf32>) -> tensor<6x1x3xf32>
    %15 = stablehlo.add %11, %14 : tensor<6x1x3xf32>
    %16:3 = call @log_softmax(%15) : (tensor<6x1x3xf32>) -> (tensor<6x1x3xf32>, tensor<6x1x3xf32>, tensor<6x1x1xf32>)
    %17 = stablehlo.multiply %16#0, %1 : tensor<6x1x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<6x1x3xf32>, tensor<f32>) -> tensor<6x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %21 = stablehlo.divide %19, %20 : tensor<6xf32>
    %22 = stablehlo.negate %21 : tensor<6xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.negate %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.divide %23, %cst_5 : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<1xf32>) -> tensor<1x3xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [1, 2] : (tensor<1x3xf32>) -> tensor<1x1x3xf32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1, 2] : (tensor<1x1x3xf32>) -> tensor<6x1x3xf32>
    %29 = stablehlo.multiply %28, %1 : tensor<6x1x3xf32>
    %30 = call @log_softmax_0(%16#1, %16#2, %29) : (tensor<6x1x3xf32>, tensor<6x1x1xf32>, tensor<6x1x3xf32>) -> tensor<6x1x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_6) applies stablehlo.add across dimensions = [1] : (tensor<6x1x3xf32>, tensor<f32>) -> tensor<6x3xf32>
    %32 = stablehlo.dot_general %30, %7, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x1x3xf32>, tensor<6x1x16xf32>) -> tensor<6x3x16xf32>
    %33 = stablehlo.transpose %32, dims = [0, 2, 1] : (tensor<6x3x16xf32>) -> tensor<6x16x3xf32>
    %34 = stablehlo.dot_general %30, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x1x3xf32>, tensor<16x3xf32>) -> tensor<6x1x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1x16xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [1, 2] : (tensor<1x16xf32>) -> tensor<6x1x16xf32>
    %37 = stablehlo.select %9, %34, %36 : tensor<6x1x16xi1>, tensor<6x1x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%37 init: %cst_8) applies stablehlo.add across dimensions = [1] : (tensor<6x1x16xf32>, tensor<f32>) -> tensor<6x16xf32>
    %39 = stablehlo.dot_general %37, %0, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x1x16xf32>, tensor<6x1x8xf32>) -> tensor<6x16x8xf32>
    %40 = stablehlo.transpose %39, dims = [0, 2, 1] : (tensor<6x16x8xf32>) -> tensor<6x8x16xf32>
    return %38, %31, %40, %33 : tensor<6x16xf32>, tensor<6x3xf32>, tensor<6x8x16xf32>, tensor<6x16x3xf32>
  }
  func.func private @relu(%arg0: tensor<6x1x16xf32>) -> tensor<6x1x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x1x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<6x1x16xf32>
    return %1 : tensor<6x1x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<6x1x3xf32>) -> (tensor<6x1x3xf32>, tensor<6x1x3xf32>, tensor<6x1x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [2] : (tensor<6x1x3xf32>, tensor<f32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<6x1xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<6x1x1xf32>) -> tensor<6x1x3xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x1x3xf32>
    %6 = stablehlo.exponential %5 : tensor<6x1x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<6x1x3xf32>, tensor<f32>) -> tensor<6x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x1x1xf32>
    %9 = stablehlo.log %8 : tensor<6x1x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<6x1x1xf32>) -> tensor<6x1x3xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<6x1x3xf32>
    return %11, %6, %8 : tensor<6x1x3xf32>, tensor<6x1x3xf32>, tensor<6x1x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<6x1x3xf32>, %arg1: tensor<6x1x1xf32>, %arg2: tensor<6x1x3xf32>) -> tensor<6x1x3xf32> {
    %0 = stablehlo.negate %arg2 : tensor<6x1x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<6x1x3xf32>, tensor<f32>) -> tensor<6x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<6x1xf32>) -> tensor<6x1x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<6x1x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1, 2] : (tensor<6x1x1xf32>, tensor<f32>) -> tensor<6xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x1x3xf32>
    %7 = stablehlo.multiply %6, %arg0 : tensor<6x1x3xf32>
    %8 = stablehlo.add %arg2, %7 : tensor<6x1x3xf32>
    return %8 : tensor<6x1x3xf32>
  }
}
