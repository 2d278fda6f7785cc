module @jit_complex_elementwise attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<4x6xcomplex<f32>>) -> (tensor<4x6xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<4x6xf32> {jax.result_info = "result[3]"}, tensor<4x6xf32> {jax.result_info = "result[4]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<4x6xf32> {jax.result_info = "result[9]"}, tensor<4x6xcomplex<f32>> {jax.result_info = "result[10]"}, tensor<4xcomplex<f32>> {jax.result_info = "result[11]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[12]"}) {
    %0 = stablehlo.exponential %arg1 : tensor<4x6xcomplex<f32>>
    %1 = stablehlo.log %arg1 : tensor<4x6xcomplex<f32>>
    %2 = stablehlo.sqrt %arg1 : tensor<4x6xcomplex<f32>>
    %3 = stablehlo.abs %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %4 = call @angle(%arg1) : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %5 = stablehlo.real %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %6 = stablehlo.imag %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %7 = stablehlo.negate %6 : tensor<4x6xf32>
    %8 = stablehlo.complex %5, %7 : tensor<4x6xcomplex<f32>>
    %9 = stablehlo.multiply %arg1, %8 : tensor<4x6xcomplex<f32>>
    %cst = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x6xcomplex<f32>>
    %11 = stablehlo.add %arg1, %10 : tensor<4x6xcomplex<f32>>
    %12 = stablehlo.divide %arg1, %11 : tensor<4x6xcomplex<f32>>
    %13 = stablehlo.real %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %14 = stablehlo.imag %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %16 = stablehlo.compare EQ, %13, %15, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %17 = stablehlo.sine %13 : tensor<4x6xf32>
    %18 = stablehlo.cosine %13 : tensor<4x6xf32>
    %19 = stablehlo.exponential_minus_one %14 : tensor<4x6xf32>
    %20 = stablehlo.negate %14 : tensor<4x6xf32>
    %21 = stablehlo.exponential_minus_one %20 : tensor<4x6xf32>
    %22 = stablehlo.subtract %19, %21 : tensor<4x6xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %24 = stablehlo.divide %22, %23 : tensor<4x6xf32>
    %25 = stablehlo.add %19, %21 : tensor<4x6xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %27 = stablehlo.add %25, %26 : tensor<4x6xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %29 = stablehlo.divide %27, %28 : tensor<4x6xf32>
    %30 = stablehlo.multiply %17, %29 : tensor<4x6xf32>
    %31 = stablehlo.multiply %18, %24 : tensor<4x6xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %33 = stablehlo.complex %32, %31 : tensor<4x6xcomplex<f32>>
    %34 = stablehlo.complex %30, %31 : tensor<4x6xcomplex<f32>>
    %35 = stablehlo.select %16, %33, %34 : tensor<4x6xi1>, tensor<4x6xcomplex<f32>>
    %36 = stablehlo.tanh %arg1 : tensor<4x6xcomplex<f32>>
    %37 = stablehlo.real %arg1 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %38 = stablehlo.add %37, %arg0 : tensor<4x6xf32>
    %39 = stablehlo.complex %arg0, %arg0 : tensor<4x6xcomplex<f32>>
    %cst_5 = stablehlo.constant dense<(0.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %40 = stablehlo.reduce(%arg1 init: %cst_5) applies stablehlo.add across dimensions = [1] : (tensor<4x6xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4xcomplex<f32>>
    %41 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x6xcomplex<f32>>) -> tensor<6x4xcomplex<f32>>
    %42 = stablehlo.dot_general %arg1, %41, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xcomplex<f32>>, tensor<6x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %0, %1, %2, %3, %4, %9, %12, %35, %36, %38, %39, %40, %42 : tensor<4x6xcomplex<f32>>, tensor<4x6xcomplex<f32>>, tensor<4x6xcomplex<f32>>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xcomplex<f32>>, tensor<4x6xcomplex<f32>>, tensor<4x6xcomplex<f32>>, tensor<4x6xcomplex<f32>>, tensor<4x6xf32>, tensor<4x6xcomplex<f32>>, tensor<4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
  }
  func.func private @angle(%arg0: tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32> {
    %0 = stablehlo.real %arg0 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xf32>
    %2 = stablehlo.atan2 %1, %0 : tensor<4x6xf32>
    return %2 : tensor<4x6xf32>
  }
}
