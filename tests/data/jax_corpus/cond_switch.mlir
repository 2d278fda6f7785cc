module @jit_cond_switch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<i32>, %arg2: tensor<i1>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<5xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<3> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg1, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %7 = stablehlo.sine %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.cosine %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.multiply %arg0, %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.exponential %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    %2 = stablehlo.convert %arg2 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
      %7 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.multiply across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }, {
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %7 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    %c_1 = stablehlo.constant dense<5> : tensor<i32>
    %4 = stablehlo.add %arg1, %c_1 : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %c_3 = stablehlo.constant dense<3> : tensor<i32>
    %5 = stablehlo.clamp %c_2, %4, %c_3 : tensor<i32>
    %6 = "stablehlo.case"(%5) ({
      %7 = stablehlo.sine %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.cosine %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.multiply %arg0, %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }, {
      %7 = stablehlo.exponential %arg0 : tensor<5xf32>
      stablehlo.return %7 : tensor<5xf32>
    }) : (tensor<i32>) -> tensor<5xf32>
    return %1, %3, %6 : tensor<5xf32>, tensor<f32>, tensor<5xf32>
  }
}
