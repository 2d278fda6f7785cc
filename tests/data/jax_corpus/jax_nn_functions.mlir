module @jit_jax_nn_functions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xf32>, %arg1: tensor<3xi32>) -> (tensor<3x7xf32> {jax.result_info = "result[0]"}, tensor<3x7xf32> {jax.result_info = "result[1]"}, tensor<3x7xf32> {jax.result_info = "result[2]"}, tensor<3x7xf32> {jax.result_info = "result[3]"}, tensor<3x7xf32> {jax.result_info = "result[4]"}, tensor<3x7xf32> {jax.result_info = "result[5]"}, tensor<3x7xf32> {jax.result_info = "result[6]"}, tensor<3x7xf32> {jax.result_info = "result[7]"}, tensor<3x7xf32> {jax.result_info = "result[8]"}, tensor<3x7xf32> {jax.result_info = "result[9]"}, tensor<3x7xf32> {jax.result_info = "result[10]"}, tensor<3x7xf32> {jax.result_info = "result[11]"}, tensor<3x7xf32> {jax.result_info = "result[12]"}, tensor<3x7xf32> {jax.result_info = "result[13]"}, tensor<3xf32> {jax.result_info = "result[14]"}, tensor<3x7xf32> {jax.result_info = "result[15]"}, tensor<3x7xf32> {jax.result_info = "result[16]"}, tensor<3x7xf32> {jax.result_info = "result[17]"}, tensor<3x3xf32> {jax.result_info = "result[18]"}, tensor<3x7xf32> {jax.result_info = "result[19]"}) {
    %0 = call @relu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %1 = call @relu6(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %2 = stablehlo.multiply %arg0, %arg0 : tensor<3x7xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<3x7xf32>
    %cst = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %5 = stablehlo.multiply %4, %3 : tensor<3x7xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<3x7xf32>
    %cst_0 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<3x7xf32>
    %9 = stablehlo.tanh %8 : tensor<3x7xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %11 = stablehlo.add %10, %9 : tensor<3x7xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %13 = stablehlo.multiply %12, %11 : tensor<3x7xf32>
    %14 = stablehlo.multiply %arg0, %13 : tensor<3x7xf32>
    %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %16 = stablehlo.multiply %15, %arg0 : tensor<3x7xf32>
    %17 = stablehlo.negate %arg0 : tensor<3x7xf32>
    %cst_4 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %19 = stablehlo.multiply %17, %18 : tensor<3x7xf32>
    %20 = chlo.erfc %19 : tensor<3x7xf32> -> tensor<3x7xf32>
    %21 = stablehlo.multiply %16, %20 : tensor<3x7xf32>
    %22 = call @silu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %23 = call @softplus(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %24 = stablehlo.negate %arg0 : tensor<3x7xf32>
    %25 = stablehlo.exponential %24 : tensor<3x7xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %27 = stablehlo.add %26, %25 : tensor<3x7xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %29 = stablehlo.divide %28, %27 : tensor<3x7xf32>
    %30 = call @log_sigmoid(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %31 = call @elu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %32 = call @selu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %33 = call @leaky_relu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %34 = call @hard_tanh(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %35 = stablehlo.reduce(%arg0 init: %cst_7) applies stablehlo.maximum across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %37 = stablehlo.maximum %36, %35 : tensor<3xf32>
    %38 = stablehlo.broadcast_in_dim %37, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %40 = stablehlo.subtract %arg0, %39 : tensor<3x7xf32>
    %41 = stablehlo.exponential %40 : tensor<3x7xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.reduce(%41 init: %cst_9) applies stablehlo.add across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %43 = stablehlo.broadcast_in_dim %42, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %45 = stablehlo.divide %41, %44 : tensor<3x7xf32>
    %46 = call @log_softmax(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = stablehlo.reduce(%arg0 init: %cst_10) applies stablehlo.maximum across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %49 = stablehlo.maximum %48, %47 : tensor<3xf32>
    %50 = stablehlo.is_finite %49 : (tensor<3xf32>) -> tensor<3xi1>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %52 = stablehlo.select %50, %49, %51 : tensor<3xi1>, tensor<3xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %55 = stablehlo.subtract %arg0, %54 : tensor<3x7xf32>
    %56 = stablehlo.exponential %55 : tensor<3x7xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%56 init: %cst_13) applies stablehlo.add across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %58 = stablehlo.sign %57 : tensor<3xf32>
    %59 = stablehlo.abs %57 : tensor<3xf32>
    %60 = stablehlo.log %59 : tensor<3xf32>
    %61 = stablehlo.add %60, %52 : tensor<3xf32>
    %62 = call @_one_hot(%arg1) : (tensor<3xi32>) -> tensor<3x7xf32>
    %63 = call @standardize(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %64 = call @celu(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %65 = stablehlo.slice %arg0 [0:3, 0:6] : (tensor<3x7xf32>) -> tensor<3x6xf32>
    %66 = call @glu(%65) : (tensor<3x6xf32>) -> tensor<3x3xf32>
    %67 = call @sparse_plus(%arg0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    return %0, %1, %14, %21, %22, %23, %29, %30, %31, %32, %33, %34, %45, %46, %61, %62, %63, %64, %66, %67 : tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x7xf32>, tensor<3x3xf32>, tensor<3x7xf32>
  }
  func.func private @relu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<3x7xf32>
    return %1 : tensor<3x7xf32>
  }
  func.func private @relu6(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<3x7xf32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.minimum %1, %2 : tensor<3x7xf32>
    return %3 : tensor<3x7xf32>
  }
  func.func private @silu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3x7xf32>
    %1 = stablehlo.exponential %0 : tensor<3x7xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.add %2, %1 : tensor<3x7xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %5 = stablehlo.divide %4, %3 : tensor<3x7xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<3x7xf32>
    return %6 : tensor<3x7xf32>
  }
  func.func private @softplus(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<3x7xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<3x7xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<3x7xf32>
    %7 = stablehlo.abs %3 : tensor<3x7xf32>
    %8 = stablehlo.negate %7 : tensor<3x7xf32>
    %9 = stablehlo.exponential %8 : tensor<3x7xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<3x7xf32>
    %11 = stablehlo.add %1, %10 : tensor<3x7xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<3x7xi1>, tensor<3x7xf32>
    return %12 : tensor<3x7xf32>
  }
  func.func private @log_sigmoid(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = stablehlo.negate %arg0 : tensor<3x7xf32>
    %1 = call @softplus(%0) : (tensor<3x7xf32>) -> tensor<3x7xf32>
    %2 = stablehlo.negate %1 : tensor<3x7xf32>
    return %2 : tensor<3x7xf32>
  }
  func.func private @elu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = call @_where(%3, %cst_1, %arg0) : (tensor<3x7xi1>, tensor<f32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    %5 = stablehlo.exponential_minus_one %4 : tensor<3x7xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<3x7xf32>
    %8 = call @_where_0(%1, %arg0, %7) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    return %8 : tensor<3x7xf32>
  }
  func.func private @_where(%arg0: tensor<3x7xi1>, %arg1: tensor<f32>, %arg2: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<3x7xi1>, tensor<3x7xf32>
    return %2 : tensor<3x7xf32>
  }
  func.func private @_where_0(%arg0: tensor<3x7xi1>, %arg1: tensor<3x7xf32>, %arg2: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x7xi1>, tensor<3x7xf32>
    return %0 : tensor<3x7xf32>
  }
  func.func private @selu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<1.67326319> : tensor<f32>
    %0 = call @elu_1(%arg0, %cst) : (tensor<3x7xf32>, tensor<f32>) -> tensor<3x7xf32>
    %cst_0 = stablehlo.constant dense<1.05070102> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<3x7xf32>
    return %2 : tensor<3x7xf32>
  }
  func.func private @elu_1(%arg0: tensor<3x7xf32>, %arg1: tensor<f32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.compare GT, %arg0, %2, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = call @_where(%3, %cst_1, %arg0) : (tensor<3x7xi1>, tensor<f32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    %5 = stablehlo.exponential_minus_one %4 : tensor<3x7xf32>
    %6 = stablehlo.convert %arg1 : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<3x7xf32>
    %9 = call @_where_0(%1, %arg0, %8) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    return %9 : tensor<3x7xf32>
  }
  func.func private @leaky_relu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.compare GE, %arg0, %0, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_0 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.multiply %2, %arg0 : tensor<3x7xf32>
    %4 = call @_where_0(%1, %arg0, %3) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    return %4 : tensor<3x7xf32>
  }
  func.func private @hard_tanh(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_0 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.compare LT, %arg0, %2, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %c = stablehlo.constant dense<-1> : tensor<i32>
    %4 = call @_where_2(%3, %c, %arg0) : (tensor<3x7xi1>, tensor<i32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    %c_1 = stablehlo.constant dense<1> : tensor<i32>
    %5 = call @_where_2(%1, %c_1, %4) : (tensor<3x7xi1>, tensor<i32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    return %5 : tensor<3x7xf32>
  }
  func.func private @_where_2(%arg0: tensor<3x7xi1>, %arg1: tensor<i32>, %arg2: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %2 = stablehlo.select %arg0, %1, %arg2 : tensor<3x7xi1>, tensor<3x7xf32>
    return %2 : tensor<3x7xf32>
  }
  func.func private @log_softmax(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<3xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<3x7xf32>
    %6 = stablehlo.exponential %5 : tensor<3x7xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %9 = stablehlo.log %8 : tensor<3x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<3x7xf32>
    return %11 : tensor<3x7xf32>
  }
  func.func private @_one_hot(%arg0: tensor<3xi32>) -> tensor<3x7xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x7xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<3x1xi32>) -> tensor<3x7xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x7xi32>) -> tensor<3x7xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<3x7xi32>, tensor<3x7xi32>) -> tensor<3x7xi1>
    %5 = stablehlo.convert %4 : (tensor<3x7xi1>) -> tensor<3x7xf32>
    return %5 : tensor<3x7xf32>
  }
  func.func private @standardize(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %cst_0 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<3x1xf32>
    %4 = chlo.square %arg0 : tensor<3x7xf32> -> tensor<3x7xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<3x7xf32>, tensor<f32>) -> tensor<3xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<3xf32>) -> tensor<3x1xf32>
    %cst_2 = stablehlo.constant dense<7.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %8 = stablehlo.divide %6, %7 : tensor<3x1xf32>
    %9 = chlo.square %3 : tensor<3x1xf32> -> tensor<3x1xf32>
    %10 = stablehlo.subtract %8, %9 : tensor<3x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %11 = call @clip(%10, %c) : (tensor<3x1xf32>, tensor<i32>) -> tensor<3x1xf32>
    %12 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %13 = stablehlo.subtract %arg0, %12 : tensor<3x7xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %15 = stablehlo.add %11, %14 : tensor<3x1xf32>
    %16 = stablehlo.rsqrt %15 : tensor<3x1xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<3x1xf32>) -> tensor<3x7xf32>
    %18 = stablehlo.multiply %13, %17 : tensor<3x7xf32>
    return %18 : tensor<3x7xf32>
  }
  func.func private @clip(%arg0: tensor<3x1xf32>, %arg1: tensor<i32>) -> tensor<3x1xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<3x1xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<3x1xf32>
    return %2 : tensor<3x1xf32>
  }
  func.func private @celu(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<3x7xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.minimum %arg0, %2 : tensor<3x7xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %5 = stablehlo.divide %3, %4 : tensor<3x7xf32>
    %6 = stablehlo.exponential_minus_one %5 : tensor<3x7xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %8 = stablehlo.multiply %7, %6 : tensor<3x7xf32>
    %9 = stablehlo.add %1, %8 : tensor<3x7xf32>
    return %9 : tensor<3x7xf32>
  }
  func.func private @glu(%arg0: tensor<3x6xf32>) -> tensor<3x3xf32> {
    %0 = stablehlo.slice %arg0 [0:3, 0:3] : (tensor<3x6xf32>) -> tensor<3x3xf32>
    %1 = stablehlo.slice %arg0 [0:3, 3:6] : (tensor<3x6xf32>) -> tensor<3x3xf32>
    %2 = stablehlo.negate %1 : tensor<3x3xf32>
    %3 = stablehlo.exponential %2 : tensor<3x3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %5 = stablehlo.add %4, %3 : tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %7 = stablehlo.divide %6, %5 : tensor<3x3xf32>
    %8 = stablehlo.multiply %0, %7 : tensor<3x3xf32>
    return %8 : tensor<3x3xf32>
  }
  func.func private @sparse_plus(%arg0: tensor<3x7xf32>) -> tensor<3x7xf32> {
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %1 = stablehlo.compare LE, %arg0, %0, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %3 = stablehlo.compare GE, %arg0, %2, FLOAT : (tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xi1>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %5 = stablehlo.add %arg0, %4 : tensor<3x7xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<3x7xf32>
    %cst_2 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3x7xf32>
    %8 = stablehlo.divide %6, %7 : tensor<3x7xf32>
    %9 = call @_where_0(%3, %arg0, %8) : (tensor<3x7xi1>, tensor<3x7xf32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = call @_where(%1, %cst_3, %9) : (tensor<3x7xi1>, tensor<f32>, tensor<3x7xf32>) -> tensor<3x7xf32>
    return %10 : tensor<3x7xf32>
  }
}
