module @jit_cnn_forward_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3x2x4xf32>, %arg1: tensor<3x3x4x4xf32>, %arg2: tensor<4x5xf32>, %arg3: tensor<2x8x8x2xf32>, %arg4: tensor<2x5xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x2x4xf32> {jax.result_info = "result[1]['k1']"}, tensor<3x3x4x4xf32> {jax.result_info = "result[1]['k2']"}, tensor<4x5xf32> {jax.result_info = "result[1]['w']"}) {
    %0 = stablehlo.convolution(%arg3, %arg0) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<2x8x8x4xf32>
    %1 = call @relu(%0) : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x8x8x4xf32>, tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%1, %5) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %71 = stablehlo.maximum %arg5, %arg6 : tensor<f32>
      stablehlo.return %71 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x4x4x4xf32>
    %7 = stablehlo.convolution(%6, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x2x2x4xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<2x2x2x4xf32>
    %9 = stablehlo.multiply %8, %7 : tensor<2x2x2x4xf32>
    %10 = stablehlo.multiply %7, %7 : tensor<2x2x2x4xf32>
    %cst_2 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %12 = stablehlo.multiply %11, %10 : tensor<2x2x2x4xf32>
    %cst_3 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %14 = stablehlo.multiply %13, %9 : tensor<2x2x2x4xf32>
    %15 = stablehlo.add %7, %14 : tensor<2x2x2x4xf32>
    %cst_4 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %17 = stablehlo.multiply %16, %15 : tensor<2x2x2x4xf32>
    %18 = stablehlo.tanh %17 : tensor<2x2x2x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %20 = stablehlo.subtract %19, %18 : tensor<2x2x2x4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %22 = stablehlo.add %21, %18 : tensor<2x2x2x4xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %24 = stablehlo.multiply %23, %22 : tensor<2x2x2x4xf32>
    %25 = stablehlo.multiply %7, %24 : tensor<2x2x2x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_8) applies stablehlo.add across dimensions = [1, 2] : (tensor<2x2x2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
    %cst_9 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %28 = stablehlo.divide %26, %27 : tensor<2x4xf32>
    %29 = stablehlo.dot_general %28, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
    %30:3 = call @log_softmax(%29) : (tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x1xf32>)
    %31 = stablehlo.multiply %30#0, %arg4 : tensor<2x5xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_10) applies stablehlo.add across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_11) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
    %cst_12 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %34 = stablehlo.divide %33, %cst_12 : tensor<f32>
    %35 = stablehlo.negate %34 : tensor<f32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %36 = stablehlo.negate %cst_13 : tensor<f32>
    %cst_14 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %37 = stablehlo.divide %36, %cst_14 : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0] : (tensor<2xf32>) -> tensor<2x5xf32>
    %40 = stablehlo.multiply %39, %arg4 : tensor<2x5xf32>
    %41 = call @log_softmax_0(%30#1, %30#2, %40) : (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x5xf32>) -> tensor<2x5xf32>
    %42 = stablehlo.dot_general %41, %28, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x5xf32>, tensor<2x4xf32>) -> tensor<5x4xf32>
    %43 = stablehlo.transpose %42, dims = [1, 0] : (tensor<5x4xf32>) -> tensor<4x5xf32>
    %44 = stablehlo.dot_general %41, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x5xf32>, tensor<4x5xf32>) -> tensor<2x4xf32>
    %cst_15 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %46 = stablehlo.divide %44, %45 : tensor<2x4xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 3] : (tensor<2x4xf32>) -> tensor<2x2x2x4xf32>
    %48 = stablehlo.multiply %7, %47 : tensor<2x2x2x4xf32>
    %49 = stablehlo.multiply %47, %24 : tensor<2x2x2x4xf32>
    %cst_16 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %50 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %51 = stablehlo.multiply %50, %48 : tensor<2x2x2x4xf32>
    %52 = stablehlo.multiply %51, %20 : tensor<2x2x2x4xf32>
    %53 = stablehlo.multiply %52, %18 : tensor<2x2x2x4xf32>
    %54 = stablehlo.add %52, %53 : tensor<2x2x2x4xf32>
    %cst_17 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %56 = stablehlo.multiply %55, %54 : tensor<2x2x2x4xf32>
    %57 = stablehlo.add %49, %56 : tensor<2x2x2x4xf32>
    %cst_18 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x2x2x4xf32>
    %59 = stablehlo.multiply %58, %56 : tensor<2x2x2x4xf32>
    %60 = stablehlo.multiply %59, %12 : tensor<2x2x2x4xf32>
    %61 = stablehlo.add %57, %60 : tensor<2x2x2x4xf32>
    %62 = stablehlo.convolution(%6, %61) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 0], [1, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x4x4x4xf32>, tensor<2x2x2x4xf32>) -> tensor<3x3x4x4xf32>
    %63 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x4x4xf32>
    %64 = stablehlo.convolution(%61, %63) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 2], [1, 2]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x2x2x4xf32>, tensor<3x3x4x4xf32>) -> tensor<2x4x4x4xf32>
    %cst_19 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %65 = stablehlo.pad %1, %cst_19, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = "stablehlo.select_and_scatter"(%65, %64, %cst_20) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %71 = stablehlo.compare GE, %arg5, %arg6, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %71 : tensor<i1>
    }, {
    ^bb0(%arg5: tensor<f32>, %arg6: tensor<f32>):
      %71 = stablehlo.add %arg5, %arg6 : tensor<f32>
      stablehlo.return %71 : tensor<f32>
    }) : (tensor<2x8x8x4xf32>, tensor<2x4x4x4xf32>, tensor<f32>) -> tensor<2x8x8x4xf32>
    %67 = stablehlo.slice %66 [0:2, 0:8, 0:8, 0:4] : (tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32>
    %cst_21 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %69 = stablehlo.select %3, %67, %68 : tensor<2x8x8x4xi1>, tensor<2x8x8x4xf32>
    %70 = stablehlo.convolution(%arg3, %69) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<2x8x8x4xf32>) -> tensor<3x3x2x4xf32>
    return %35, %70, %62, %43 : tensor<f32>, tensor<3x3x2x4xf32>, tensor<3x3x4x4xf32>, tensor<4x5xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x4xf32>) -> tensor<2x8x8x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x4xf32>
    return %1 : tensor<2x8x8x4xf32>
  }
  func.func private @log_softmax(%arg0: tensor<2x5xf32>) -> (tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<2xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x5xf32>
    %6 = stablehlo.exponential %5 : tensor<2x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<2xf32>) -> tensor<2x1xf32>
    %9 = stablehlo.log %8 : tensor<2x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x1xf32>) -> tensor<2x5xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<2x5xf32>
    return %11, %6, %8 : tensor<2x5xf32>, tensor<2x5xf32>, tensor<2x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<2x5xf32>, %arg1: tensor<2x1xf32>, %arg2: tensor<2x5xf32>) -> tensor<2x5xf32> {
    %0 = stablehlo.negate %arg2 : tensor<2x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x5xf32>, tensor<f32>) -> tensor<2xf32>
    %2 = stablehlo.reshape %1 : (tensor<2xf32>) -> tensor<2x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<2x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<2x1xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<2xf32>) -> tensor<2x5xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<2x5xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<2x5xf32>
    return %7 : tensor<2x5xf32>
  }
}
