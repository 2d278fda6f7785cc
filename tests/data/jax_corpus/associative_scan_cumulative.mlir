module @jit_associative_scan_cumulative attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<6xf32> {jax.result_info = "result[3]"}, tensor<6xf32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.slice %arg0 [0:5:2] : (tensor<6xf32>) -> tensor<3xf32>
    %1 = stablehlo.slice %arg0 [1:6:2] : (tensor<6xf32>) -> tensor<3xf32>
    %2 = stablehlo.add %0, %1 : tensor<3xf32>
    %3 = stablehlo.slice %2 [0:2:2] : (tensor<3xf32>) -> tensor<1xf32>
    %4 = stablehlo.slice %2 [1:3:2] : (tensor<3xf32>) -> tensor<1xf32>
    %5 = stablehlo.add %3, %4 : tensor<1xf32>
    %6 = stablehlo.slice %2 [2:3:2] : (tensor<3xf32>) -> tensor<1xf32>
    %7 = stablehlo.add %5, %6 : tensor<1xf32>
    %8 = stablehlo.slice %2 [0:1] : (tensor<3xf32>) -> tensor<1xf32>
    %9 = stablehlo.concatenate %8, %7, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.pad %9, %cst, low = [0], high = [0], interior = [1] : (tensor<2xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.pad %5, %cst_0, low = [1], high = [1], interior = [1] : (tensor<1xf32>, tensor<f32>) -> tensor<3xf32>
    %12 = stablehlo.add %10, %11 : tensor<3xf32>
    %13 = stablehlo.slice %12 [0:2] : (tensor<3xf32>) -> tensor<2xf32>
    %14 = stablehlo.slice %arg0 [2:6:2] : (tensor<6xf32>) -> tensor<2xf32>
    %15 = stablehlo.add %13, %14 : tensor<2xf32>
    %16 = stablehlo.slice %arg0 [0:1] : (tensor<6xf32>) -> tensor<1xf32>
    %17 = stablehlo.concatenate %16, %15, dim = 0 : (tensor<1xf32>, tensor<2xf32>) -> tensor<3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.pad %17, %cst_1, low = [0], high = [1], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.pad %12, %cst_2, low = [1], high = [0], interior = [1] : (tensor<3xf32>, tensor<f32>) -> tensor<6xf32>
    %20 = stablehlo.add %18, %19 : tensor<6xf32>
    %21 = call @cumsum(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    %22 = call @cumprod(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    %23 = call @cummax(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    %24 = call @cumlogsumexp(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    return %20, %21, %22, %23, %24 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
  }
  func.func private @cumsum(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = call @cumsum_0(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @cumsum_0(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[5, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 6>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @cumprod(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %0 = call @cumprod_1(%arg0) : (tensor<6xf32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @cumprod_1(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<[[5, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 6>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
  func.func private @cummax(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[5, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 6>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @cumlogsumexp(%arg0: tensor<6xf32>) -> tensor<6xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1>, padding = dense<[[5, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 6>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      %2 = stablehlo.subtract %arg1, %arg2 : tensor<f32>
      %3 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.add %arg1, %arg2 : tensor<f32>
      %5 = stablehlo.abs %2 : tensor<f32>
      %6 = stablehlo.negate %5 : tensor<f32>
      %7 = stablehlo.exponential %6 : tensor<f32>
      %8 = stablehlo.log_plus_one %7 : tensor<f32>
      %9 = stablehlo.add %1, %8 : tensor<f32>
      %10 = stablehlo.select %3, %4, %9 : tensor<i1>, tensor<f32>
      stablehlo.return %10 : tensor<f32>
    }) : (tensor<6xf32>, tensor<f32>) -> tensor<6xf32>
    return %0 : tensor<6xf32>
  }
}
