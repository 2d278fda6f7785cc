module @jit_integer_ops_64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi64>, %arg1: tensor<4xui64>) -> (tensor<3x5xi64> {jax.result_info = "result[0]"}, tensor<3x5xi64> {jax.result_info = "result[1]"}, tensor<3x5xi64> {jax.result_info = "result[2]"}, tensor<3x5xi64> {jax.result_info = "result[3]"}, tensor<3x5xi64> {jax.result_info = "result[4]"}, tensor<3x5xi64> {jax.result_info = "result[5]"}, tensor<3x5xi64> {jax.result_info = "result[6]"}, tensor<4xui64> {jax.result_info = "result[7]"}, tensor<4xui64> {jax.result_info = "result[8]"}, tensor<4xui64> {jax.result_info = "result[9]"}, tensor<4xui64> {jax.result_info = "result[10]"}, tensor<4xui64> {jax.result_info = "result[11]"}, tensor<3x5xf64> {jax.result_info = "result[12]"}, tensor<3xi64> {jax.result_info = "result[13]"}, tensor<5xi64> {jax.result_info = "result[14]"}) {
    %c = stablehlo.constant dense<3> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %1 = stablehlo.multiply %arg0, %0 : tensor<3x5xi64>
    %c_0 = stablehlo.constant dense<7> : tensor<i64>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %3 = stablehlo.subtract %1, %2 : tensor<3x5xi64>
    %c_1 = stablehlo.constant dense<4> : tensor<i64>
    %4 = call @floor_divide(%arg0, %c_1) : (tensor<3x5xi64>, tensor<i64>) -> tensor<3x5xi64>
    %c_2 = stablehlo.constant dense<7> : tensor<i64>
    %5 = call @remainder(%arg0, %c_2) : (tensor<3x5xi64>, tensor<i64>) -> tensor<3x5xi64>
    %c_3 = stablehlo.constant dense<3> : tensor<i64>
    %6 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %7 = stablehlo.shift_left %arg0, %6 : tensor<3x5xi64>
    %c_4 = stablehlo.constant dense<2> : tensor<i64>
    %8 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %9 = stablehlo.shift_right_arithmetic %arg0, %8 : tensor<3x5xi64>
    %10 = stablehlo.abs %arg0 : tensor<3x5xi64>
    %11 = stablehlo.sign %arg0 : tensor<3x5xi64>
    %c_5 = stablehlo.constant dense<5> : tensor<ui64>
    %12 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %13 = stablehlo.shift_right_logical %arg1, %12 : tensor<4xui64>
    %c_6 = stablehlo.constant dense<3> : tensor<ui64>
    %14 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %15 = stablehlo.multiply %arg1, %14 : tensor<4xui64>
    %c_7 = stablehlo.constant dense<7> : tensor<ui64>
    %16 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui64>) -> tensor<4xui64>
    %17 = stablehlo.shift_right_logical %arg1, %16 : tensor<4xui64>
    %18 = stablehlo.xor %arg1, %17 : tensor<4xui64>
    %19 = stablehlo.popcnt %arg1 : tensor<4xui64>
    %20 = stablehlo.count_leading_zeros %arg1 : tensor<4xui64>
    %21 = stablehlo.convert %arg0 : (tensor<3x5xi64>) -> tensor<3x5xf64>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f64>
    %22 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3x5xf64>
    %23 = stablehlo.divide %21, %22 : tensor<3x5xf64>
    %c_8 = stablehlo.constant dense<0> : tensor<i64>
    %24 = stablehlo.reduce(%arg0 init: %c_8) applies stablehlo.add across dimensions = [1] : (tensor<3x5xi64>, tensor<i64>) -> tensor<3xi64>
    %c_9 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %25 = stablehlo.reduce(%arg0 init: %c_9) applies stablehlo.maximum across dimensions = [0] : (tensor<3x5xi64>, tensor<i64>) -> tensor<5xi64>
    return %3, %4, %5, %7, %9, %10, %11, %13, %15, %18, %19, %20, %23, %24, %25 : tensor<3x5xi64>, tensor<3x5xi64>, tensor<3x5xi64>, tensor<3x5xi64>, tensor<3x5xi64>, tensor<3x5xi64>, tensor<3x5xi64>, tensor<4xui64>, tensor<4xui64>, tensor<4xui64>, tensor<4xui64>, tensor<4xui64>, tensor<3x5xf64>, tensor<3xi64>, tensor<5xi64>
  }
  func.func private @floor_divide(%arg0: tensor<3x5xi64>, %arg1: tensor<i64>) -> tensor<3x5xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %2 = stablehlo.divide %arg0, %1 : tensor<3x5xi64>
    %3 = stablehlo.sign %arg0 : tensor<3x5xi64>
    %4 = stablehlo.sign %0 : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %8 = stablehlo.remainder %arg0, %7 : tensor<3x5xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi1>
    %11 = stablehlo.and %6, %10 : tensor<3x5xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %13 = stablehlo.subtract %2, %12 : tensor<3x5xi64>
    %14 = call @_where(%11, %13, %2) : (tensor<3x5xi1>, tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi64>
    return %14 : tensor<3x5xi64>
  }
  func.func private @_where(%arg0: tensor<3x5xi1>, %arg1: tensor<3x5xi64>, %arg2: tensor<3x5xi64>) -> tensor<3x5xi64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x5xi1>, tensor<3x5xi64>
    return %0 : tensor<3x5xi64>
  }
  func.func private @remainder(%arg0: tensor<3x5xi64>, %arg1: tensor<i64>) -> tensor<3x5xi64> {
    %0 = stablehlo.convert %arg1 : tensor<i64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i64>
    %2 = call @_where_0(%1, %c_0, %0) : (tensor<i1>, tensor<i64>, tensor<i64>) -> tensor<i64>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %4 = stablehlo.remainder %arg0, %3 : tensor<3x5xi64>
    %c_1 = stablehlo.constant dense<0> : tensor<i64>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i64>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<3x5xi64>, tensor<3x5xi64>) -> tensor<3x5xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<3x5xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<3x5xi1>, tensor<3x5xi1>) -> tensor<3x5xi1>
    %12 = stablehlo.and %11, %6 : tensor<3x5xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i64>) -> tensor<3x5xi64>
    %14 = stablehlo.add %4, %13 : tensor<3x5xi64>
    %15 = stablehlo.select %12, %14, %4 : tensor<3x5xi1>, tensor<3x5xi64>
    return %15 : tensor<3x5xi64>
  }
  func.func private @_where_0(%arg0: tensor<i1>, %arg1: tensor<i64>, %arg2: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i64>
    return %0 : tensor<i64>
  }
}
