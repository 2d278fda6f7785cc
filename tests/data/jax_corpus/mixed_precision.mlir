module @jit_mixed_precision attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4x6xf32> {jax.result_info = "result[0]"}, tensor<4x4xf32> {jax.result_info = "result[1]"}, tensor<4x6xi8> {jax.result_info = "result[2]"}, tensor<4x6xui8> {jax.result_info = "result[3]"}, tensor<4x6xi1> {jax.result_info = "result[4]"}, tensor<4x6xf32> {jax.result_info = "result[5]"}, tensor<4x6xf32> {jax.result_info = "result[6]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x6xf32>) -> tensor<4x6xf16>
    %1 = stablehlo.convert %arg0 : (tensor<4x6xf32>) -> tensor<4x6xbf16>
    %2 = stablehlo.convert %arg0 : (tensor<4x6xf32>) -> tensor<4x6xi8>
    %3 = stablehlo.multiply %0, %0 : tensor<4x6xf16>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f16>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f16>) -> tensor<4x6xf16>
    %5 = stablehlo.add %3, %4 : tensor<4x6xf16>
    %6 = stablehlo.convert %5 : (tensor<4x6xf16>) -> tensor<4x6xf32>
    %7 = stablehlo.transpose %1, dims = [1, 0] : (tensor<4x6xbf16>) -> tensor<6x4xbf16>
    %8 = stablehlo.dot_general %1, %7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xbf16>, tensor<6x4xbf16>) -> tensor<4x4xbf16>
    %9 = stablehlo.convert %8 : (tensor<4x4xbf16>) -> tensor<4x4xf32>
    %c = stablehlo.constant dense<3> : tensor<i32>
    %10 = call @floor_divide(%2, %c) : (tensor<4x6xi8>, tensor<i32>) -> tensor<4x6xi8>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %11 = call @remainder(%10, %c_0) : (tensor<4x6xi8>, tensor<i32>) -> tensor<4x6xi8>
    %12 = call @round(%arg0) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %13 = stablehlo.convert %12 : (tensor<4x6xf32>) -> tensor<4x6xui8>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %15 = stablehlo.compare GT, %arg0, %14, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %c_2 = stablehlo.constant dense<2> : tensor<i8>
    %16 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %17 = stablehlo.compare LT, %2, %16, SIGNED : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
    %18 = stablehlo.xor %15, %17 : tensor<4x6xi1>
    %cst_3 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %20 = chlo.next_after %arg0, %19 : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
    %c_4 = stablehlo.constant dense<-1> : tensor<i32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %21 = call @clip(%arg0, %c_4, %c_5) : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<4x6xf32>
    return %6, %9, %11, %13, %18, %20, %21 : tensor<4x6xf32>, tensor<4x4xf32>, tensor<4x6xi8>, tensor<4x6xui8>, tensor<4x6xi1>, tensor<4x6xf32>, tensor<4x6xf32>
  }
  func.func private @floor_divide(%arg0: tensor<4x6xi8>, %arg1: tensor<i32>) -> tensor<4x6xi8> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<i8>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %2 = stablehlo.divide %arg0, %1 : tensor<4x6xi8>
    %3 = stablehlo.sign %arg0 : tensor<4x6xi8>
    %4 = stablehlo.sign %0 : tensor<i8>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %8 = stablehlo.remainder %arg0, %7 : tensor<4x6xi8>
    %c = stablehlo.constant dense<0> : tensor<i8>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
    %11 = stablehlo.and %6, %10 : tensor<4x6xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i8>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %13 = stablehlo.subtract %2, %12 : tensor<4x6xi8>
    %14 = call @_where(%11, %13, %2) : (tensor<4x6xi1>, tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi8>
    return %14 : tensor<4x6xi8>
  }
  func.func private @_where(%arg0: tensor<4x6xi1>, %arg1: tensor<4x6xi8>, %arg2: tensor<4x6xi8>) -> tensor<4x6xi8> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<4x6xi1>, tensor<4x6xi8>
    return %0 : tensor<4x6xi8>
  }
  func.func private @remainder(%arg0: tensor<4x6xi8>, %arg1: tensor<i32>) -> tensor<4x6xi8> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<i8>
    %c = stablehlo.constant dense<0> : tensor<i8>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i8>
    %2 = call @_where_0(%1, %c_0, %0) : (tensor<i1>, tensor<i8>, tensor<i8>) -> tensor<i8>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %4 = stablehlo.remainder %arg0, %3 : tensor<4x6xi8>
    %c_1 = stablehlo.constant dense<0> : tensor<i8>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i8>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<4x6xi8>, tensor<4x6xi8>) -> tensor<4x6xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i8>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<4x6xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<4x6xi1>, tensor<4x6xi1>) -> tensor<4x6xi1>
    %12 = stablehlo.and %11, %6 : tensor<4x6xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i8>) -> tensor<4x6xi8>
    %14 = stablehlo.add %4, %13 : tensor<4x6xi8>
    %15 = stablehlo.select %12, %14, %4 : tensor<4x6xi1>, tensor<4x6xi8>
    return %15 : tensor<4x6xi8>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i8>, %arg2: tensor<i8>) -> tensor<i8> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i8>
    return %0 : tensor<i8>
  }
  func.func private @round(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
  func.func private @clip(%arg0: tensor<4x6xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<4x6xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<4x6xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<4x6xf32>
    return %5 : tensor<4x6xf32>
  }
}
