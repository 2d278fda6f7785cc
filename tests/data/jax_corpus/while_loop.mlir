module @jit_while_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>, %arg1: tensor<i32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %c, %iterArg_1 = %arg0) : tensor<i32>, tensor<i32>, tensor<f32>
    cond {
      %1 = stablehlo.convert %iterArg_0 : tensor<i32>
      %2 = stablehlo.compare LT, %1, %iterArg, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %c_2 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg_0, %c_2 : tensor<i32>
      %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %2 = stablehlo.compare GT, %iterArg_1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %3 = stablehlo.divide %iterArg_1, %cst_3 : tensor<f32>
      %cst_4 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %4 = stablehlo.multiply %iterArg_1, %cst_4 : tensor<f32>
      %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %5 = stablehlo.add %4, %cst_5 : tensor<f32>
      %6 = func.call @_where(%2, %3, %5) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %iterArg, %1, %6 : tensor<i32>, tensor<i32>, tensor<f32>
    }
    return %0#1, %0#2 : tensor<i32>, tensor<f32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<f32>
    return %0 : tensor<f32>
  }
}
