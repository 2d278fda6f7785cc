module @jit_fft_c128 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf64>, %arg1: tensor<4x6xcomplex<f64>>) -> (tensor<4x6xcomplex<f64>> {jax.result_info = "result[0]"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result[1]"}, tensor<4x4xcomplex<f64>> {jax.result_info = "result[2]"}, tensor<4x6xf64> {jax.result_info = "result[3]"}, tensor<4x10xf64> {jax.result_info = "result[4]"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result[5]"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result[6]"}, tensor<4x4xcomplex<f64>> {jax.result_info = "result[7]"}, tensor<4x6xcomplex<f64>> {jax.result_info = "result[8]"}, tensor<8xf64> {jax.result_info = "result[9]"}) {
    %0 = call @fft(%arg1) : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %1 = call @fft_0(%arg1) : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %2 = call @fft_1(%arg0) : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
    %3 = call @fft_1(%arg0) : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
    %4 = call @fft_2(%3) : (tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %5 = call @_pad(%arg1, %c) : (tensor<4x6xcomplex<f64>>, tensor<i64>) -> tensor<4x6xcomplex<f64>>
    %6 = call @fft_3(%5) : (tensor<4x6xcomplex<f64>>) -> tensor<4x10xf64>
    %7 = call @fft_4(%arg1) : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %8 = call @fft_5(%arg1) : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %9 = call @fft_6(%arg0) : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
    %10 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x6xcomplex<f64>>) -> tensor<6x4xcomplex<f64>>
    %11 = call @fft_7(%10) : (tensor<6x4xcomplex<f64>>) -> tensor<6x4xcomplex<f64>>
    %12 = stablehlo.transpose %11, dims = [1, 0] : (tensor<6x4xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    %13 = stablehlo.iota dim = 0 : tensor<8xf64>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %15 = stablehlo.add %13, %14 : tensor<8xf64>
    %c_0 = stablehlo.constant dense<8> : tensor<i64>
    %16 = call @remainder(%15, %c_0) : (tensor<8xf64>, tensor<i64>) -> tensor<8xf64>
    %cst_1 = stablehlo.constant dense<4.000000e+00> : tensor<f64>
    %17 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %18 = stablehlo.subtract %16, %17 : tensor<8xf64>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f64>
    %19 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %20 = stablehlo.divide %18, %19 : tensor<8xf64>
    %21 = call @_roll_static(%20) : (tensor<8xf64>) -> tensor<8xf64>
    return %0, %1, %2, %4, %6, %7, %8, %9, %12, %21 : tensor<4x6xcomplex<f64>>, tensor<4x6xcomplex<f64>>, tensor<4x4xcomplex<f64>>, tensor<4x6xf64>, tensor<4x10xf64>, tensor<4x6xcomplex<f64>>, tensor<4x6xcomplex<f64>>, tensor<4x4xcomplex<f64>>, tensor<4x6xcomplex<f64>>, tensor<8xf64>
  }
  func.func private @fft(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %0 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_0(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %0 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_1(%arg0: tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [6] : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
    return %0 : tensor<4x4xcomplex<f64>>
  }
  func.func private @fft_2(%arg0: tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [6] : (tensor<4x4xcomplex<f64>>) -> tensor<4x6xf64>
    return %0 : tensor<4x6xf64>
  }
  func.func private @_pad(%arg0: tensor<4x6xcomplex<f64>>, %arg1: tensor<i64>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<complex<f64>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xcomplex<f64>>, tensor<complex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %1 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_3(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x10xf64> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [10] : (tensor<4x6xcomplex<f64>>) -> tensor<4x10xf64>
    return %0 : tensor<4x10xf64>
  }
  func.func private @fft_4(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4, 6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %0 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_5(%arg0: tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4, 6] : (tensor<4x6xcomplex<f64>>) -> tensor<4x6xcomplex<f64>>
    return %0 : tensor<4x6xcomplex<f64>>
  }
  func.func private @fft_6(%arg0: tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4, 6] : (tensor<4x6xf64>) -> tensor<4x4xcomplex<f64>>
    return %0 : tensor<4x4xcomplex<f64>>
  }
  func.func private @fft_7(%arg0: tensor<6x4xcomplex<f64>>) -> tensor<6x4xcomplex<f64>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<6x4xcomplex<f64>>) -> tensor<6x4xcomplex<f64>>
    return %0 : tensor<6x4xcomplex<f64>>
  }
  func.func private @remainder(%arg0: tensor<8xf64>, %arg1: tensor<i64>) -> tensor<8xf64> {
    %0 = stablehlo.convert %arg1 : (tensor<i64>) -> tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %2 = stablehlo.remainder %arg0, %1 : tensor<8xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<8xf64>, tensor<8xf64>) -> tensor<8xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<8xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %10 = stablehlo.and %9, %4 : tensor<8xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<8xf64>
    %12 = stablehlo.add %2, %11 : tensor<8xf64>
    %13 = stablehlo.select %10, %12, %2 : tensor<8xi1>, tensor<8xf64>
    return %13 : tensor<8xf64>
  }
  func.func private @_roll_static(%arg0: tensor<8xf64>) -> tensor<8xf64> {
    %0 = stablehlo.slice %arg0 [4:8] : (tensor<8xf64>) -> tensor<4xf64>
    %1 = stablehlo.slice %arg0 [0:4] : (tensor<8xf64>) -> tensor<4xf64>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<4xf64>, tensor<4xf64>) -> tensor<8xf64>
    return %2 : tensor<8xf64>
  }
}
