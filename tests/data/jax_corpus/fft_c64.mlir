module @jit_fft_c64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xcomplex<f32>>) -> (tensor<4x8xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<4x8xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x5xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<4x8xf32> {jax.result_info = "result[3]"}, tensor<4x10xf32> {jax.result_info = "result[4]"}, tensor<4x8xcomplex<f32>> {jax.result_info = "result[5]"}, tensor<4x8xcomplex<f32>> {jax.result_info = "result[6]"}, tensor<4x5xcomplex<f32>> {jax.result_info = "result[7]"}, tensor<4x8xcomplex<f32>> {jax.result_info = "result[8]"}, tensor<8xf32> {jax.result_info = "result[9]"}) {
    %0 = call @fft(%arg1) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %1 = call @fft_0(%arg1) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %2 = call @fft_1(%arg0) : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %3 = call @fft_1(%arg0) : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %4 = call @fft_2(%3) : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
    %5 = stablehlo.slice %arg1 [0:4, 0:6] : (tensor<4x8xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6 = call @_pad(%5, %c) : (tensor<4x6xcomplex<f32>>, tensor<i32>) -> tensor<4x6xcomplex<f32>>
    %7 = call @fft_3(%6) : (tensor<4x6xcomplex<f32>>) -> tensor<4x10xf32>
    %8 = call @fft_4(%arg1) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %9 = call @fft_5(%arg1) : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %10 = call @fft_6(%arg0) : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    %11 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x8xcomplex<f32>>) -> tensor<8x4xcomplex<f32>>
    %12 = call @fft_7(%11) : (tensor<8x4xcomplex<f32>>) -> tensor<8x4xcomplex<f32>>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<8x4xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    %14 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %16 = stablehlo.add %14, %15 : tensor<8xf32>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %17 = call @remainder(%16, %c_0) : (tensor<8xf32>, tensor<i32>) -> tensor<8xf32>
    %cst_1 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %19 = stablehlo.subtract %17, %18 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %21 = stablehlo.divide %19, %20 : tensor<8xf32>
    %22 = call @_roll_static(%21) : (tensor<8xf32>) -> tensor<8xf32>
    return %0, %1, %2, %4, %7, %8, %9, %10, %13, %22 : tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<4x5xcomplex<f32>>, tensor<4x8xf32>, tensor<4x10xf32>, tensor<4x8xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<4x5xcomplex<f32>>, tensor<4x8xcomplex<f32>>, tensor<8xf32>
  }
  func.func private @fft(%arg0: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    return %0 : tensor<4x8xcomplex<f32>>
  }
  func.func private @fft_0(%arg0: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    return %0 : tensor<4x8xcomplex<f32>>
  }
  func.func private @fft_1(%arg0: tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    return %0 : tensor<4x5xcomplex<f32>>
  }
  func.func private @fft_2(%arg0: tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [8] : (tensor<4x5xcomplex<f32>>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
  func.func private @_pad(%arg0: tensor<4x6xcomplex<f32>>, %arg1: tensor<i32>) -> tensor<4x6xcomplex<f32>> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<complex<f32>>
    %1 = stablehlo.pad %arg0, %0, low = [0, 0], high = [0, 0], interior = [0, 0] : (tensor<4x6xcomplex<f32>>, tensor<complex<f32>>) -> tensor<4x6xcomplex<f32>>
    return %1 : tensor<4x6xcomplex<f32>>
  }
  func.func private @fft_3(%arg0: tensor<4x6xcomplex<f32>>) -> tensor<4x10xf32> {
    %0 = stablehlo.fft %arg0, type = IRFFT, length = [10] : (tensor<4x6xcomplex<f32>>) -> tensor<4x10xf32>
    return %0 : tensor<4x10xf32>
  }
  func.func private @fft_4(%arg0: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4, 8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    return %0 : tensor<4x8xcomplex<f32>>
  }
  func.func private @fft_5(%arg0: tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = IFFT, length = [4, 8] : (tensor<4x8xcomplex<f32>>) -> tensor<4x8xcomplex<f32>>
    return %0 : tensor<4x8xcomplex<f32>>
  }
  func.func private @fft_6(%arg0: tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [4, 8] : (tensor<4x8xf32>) -> tensor<4x5xcomplex<f32>>
    return %0 : tensor<4x5xcomplex<f32>>
  }
  func.func private @fft_7(%arg0: tensor<8x4xcomplex<f32>>) -> tensor<8x4xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = FFT, length = [4] : (tensor<8x4xcomplex<f32>>) -> tensor<8x4xcomplex<f32>>
    return %0 : tensor<8x4xcomplex<f32>>
  }
  func.func private @remainder(%arg0: tensor<8xf32>, %arg1: tensor<i32>) -> tensor<8xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.remainder %arg0, %1 : tensor<8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %4 = stablehlo.compare NE, %2, %3, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %6 = stablehlo.compare LT, %2, %5, FLOAT : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.compare LT, %0, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = stablehlo.broadcast_in_dim %7, dims = [] : (tensor<i1>) -> tensor<8xi1>
    %9 = stablehlo.compare NE, %6, %8, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %10 = stablehlo.and %9, %4 : tensor<8xi1>
    %11 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %12 = stablehlo.add %2, %11 : tensor<8xf32>
    %13 = stablehlo.select %10, %12, %2 : tensor<8xi1>, tensor<8xf32>
    return %13 : tensor<8xf32>
  }
  func.func private @_roll_static(%arg0: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.slice %arg0 [4:8] : (tensor<8xf32>) -> tensor<4xf32>
    %1 = stablehlo.slice %arg0 [0:4] : (tensor<8xf32>) -> tensor<4xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}
