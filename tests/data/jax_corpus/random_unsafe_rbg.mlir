module @jit_random_unsafe_rbg attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui32>) -> (tensor<3x4xf32> {jax.result_info = "result[0]"}, tensor<8xi1> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 4.000000e-01]> : tensor<4xf32>
    %0 = stablehlo.log %cst : tensor<4xf32>
    %1 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %2 = stablehlo.bitcast_convert %1 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %2, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<20x4xui32>)
    %3 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %4 = stablehlo.reshape %3 : (tensor<2x2xui32>) -> tensor<4xui32>
    %5 = stablehlo.slice %output [0:20:10, 0:4] : (tensor<20x4xui32>) -> tensor<2x4xui32>
    %6 = stablehlo.slice %5 [0:1, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %7 = stablehlo.reshape %6 : (tensor<1x4xui32>) -> tensor<4xui32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = call @_uniform(%7, %cst_0, %cst_1) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<3x4xf32>
    %9 = stablehlo.slice %5 [1:2, 0:4] : (tensor<2x4xui32>) -> tensor<1x4xui32>
    %10 = stablehlo.reshape %9 : (tensor<1x4xui32>) -> tensor<4xui32>
    %cst_2 = stablehlo.constant dense<3.000000e-01> : tensor<f32>
    %11 = call @_bernoulli(%10, %cst_2) : (tensor<4xui32>, tensor<f32>) -> tensor<8xi1>
    return %8, %11 : tensor<3x4xf32>, tensor<8xi1>
  }
  func.func private @_uniform(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<3x4xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1x1xf32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %5, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>)
    %6 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %7 = stablehlo.reshape %6 : (tensor<2x2xui32>) -> tensor<4xui32>
    %c = stablehlo.constant dense<9> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<3x4xui32>
    %9 = stablehlo.shift_right_logical %output, %8 : tensor<3x4xui32>
    %c_0 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<3x4xui32>
    %11 = stablehlo.or %9, %10 : tensor<3x4xui32>
    %12 = stablehlo.bitcast_convert %11 : (tensor<3x4xui32>) -> tensor<3x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %14 = stablehlo.subtract %12, %13 : tensor<3x4xf32>
    %15 = stablehlo.subtract %3, %2 : tensor<1x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x4xf32>
    %17 = stablehlo.multiply %14, %16 : tensor<3x4xf32>
    %18 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x4xf32>
    %19 = stablehlo.add %17, %18 : tensor<3x4xf32>
    %20 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<3x4xf32>
    %21 = stablehlo.maximum %20, %19 : tensor<3x4xf32>
    return %21 : tensor<3x4xf32>
  }
  func.func private @_bernoulli(%arg0: tensor<4xui32>, %arg1: tensor<f32>) -> tensor<8xi1> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = call @_uniform_0(%arg0, %cst, %cst_0) : (tensor<4xui32>, tensor<f32>, tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.compare LT, %0, %1, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    return %2 : tensor<8xi1>
  }
  func.func private @_uniform_0(%arg0: tensor<4xui32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<8xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.convert %arg2 : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %arg0 : (tensor<4xui32>) -> tensor<2x2xui32>
    %5 = stablehlo.bitcast_convert %4 : (tensor<2x2xui32>) -> tensor<2xui64>
    %output_state, %output = stablehlo.rng_bit_generator %5, algorithm = DEFAULT : (tensor<2xui64>) -> (tensor<2xui64>, tensor<8xui32>)
    %6 = stablehlo.bitcast_convert %output_state : (tensor<2xui64>) -> tensor<2x2xui32>
    %7 = stablehlo.reshape %6 : (tensor<2x2xui32>) -> tensor<4xui32>
    %c = stablehlo.constant dense<9> : tensor<ui32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %9 = stablehlo.shift_right_logical %output, %8 : tensor<8xui32>
    %c_0 = stablehlo.constant dense<1065353216> : tensor<ui32>
    %10 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<8xui32>
    %11 = stablehlo.or %9, %10 : tensor<8xui32>
    %12 = stablehlo.bitcast_convert %11 : (tensor<8xui32>) -> tensor<8xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %14 = stablehlo.subtract %12, %13 : tensor<8xf32>
    %15 = stablehlo.subtract %3, %2 : tensor<1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %17 = stablehlo.multiply %14, %16 : tensor<8xf32>
    %18 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %19 = stablehlo.add %17, %18 : tensor<8xf32>
    %20 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<1xf32>) -> tensor<8xf32>
    %21 = stablehlo.maximum %20, %19 : tensor<8xf32>
    return %21 : tensor<8xf32>
  }
}
