module @jit_transformer_block_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<8x32xf32>, %arg3: tensor<32x8xf32>, %arg4: tensor<8x8xf32>, %arg5: tensor<8x8xf32>, %arg6: tensor<8x8xf32>, %arg7: tensor<8x8xf32>, %arg8: tensor<2x6x8xf32>) -> (tensor<8xf32> {jax.result_info = "result['g1']"}, tensor<8xf32> {jax.result_info = "result['g2']"}, tensor<8x32xf32> {jax.result_info = "result['w1']"}, tensor<32x8xf32> {jax.result_info = "result['w2']"}, tensor<8x8xf32> {jax.result_info = "result['wk']"}, tensor<8x8xf32> {jax.result_info = "result['wo']"}, tensor<8x8xf32> {jax.result_info = "result['wq']"}, tensor<8x8xf32> {jax.result_info = "result['wv']"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg8 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = call @_var(%arg8, %c) : (tensor<2x6x8xf32>, tensor<i32>) -> tensor<2x6x1xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %6 = stablehlo.subtract %arg8, %5 : tensor<2x6x8xf32>
    %cst_1 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %8 = stablehlo.add %4, %7 : tensor<2x6x1xf32>
    %9 = stablehlo.rsqrt %8 : tensor<2x6x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %11 = stablehlo.multiply %6, %10 : tensor<2x6x8xf32>
    %12 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %14 = stablehlo.multiply %11, %13 : tensor<2x6x8xf32>
    %15 = stablehlo.dot_general %14, %arg6, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %16 = stablehlo.reshape %15 : (tensor<2x6x8xf32>) -> tensor<2x6x2x4xf32>
    %17 = stablehlo.transpose %16, dims = [0, 2, 1, 3] : (tensor<2x6x2x4xf32>) -> tensor<2x2x6x4xf32>
    %18 = stablehlo.dot_general %14, %arg4, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %19 = stablehlo.reshape %18 : (tensor<2x6x8xf32>) -> tensor<2x6x2x4xf32>
    %20 = stablehlo.transpose %19, dims = [0, 2, 1, 3] : (tensor<2x6x2x4xf32>) -> tensor<2x2x6x4xf32>
    %21 = stablehlo.dot_general %14, %arg7, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %22 = stablehlo.reshape %21 : (tensor<2x6x8xf32>) -> tensor<2x6x2x4xf32>
    %23 = stablehlo.transpose %22, dims = [0, 2, 1, 3] : (tensor<2x6x2x4xf32>) -> tensor<2x2x6x4xf32>
    %24 = stablehlo.dot_general %17, %20, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x6xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %26 = stablehlo.divide %24, %25 : tensor<2x2x6x6xf32>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %27 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %28 = call @tril(%27) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %cst_4 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %29:3 = call @_where_0(%28, %26, %cst_4) : (tensor<6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>) -> (tensor<2x2x6x6xf32>, tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>)
    %cst_5 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.reduce(%29#0 init: %cst_5) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %31 = stablehlo.reshape %30 : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %33 = stablehlo.compare EQ, %29#0, %32, FLOAT : (tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>) -> tensor<2x2x6x6xi1>
    %34 = stablehlo.convert %33 : (tensor<2x2x6x6xi1>) -> tensor<2x2x6x6xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_6) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %37 = stablehlo.maximum %36, %30 : tensor<2x2x6xf32>
    %38 = stablehlo.compare EQ, %30, %37, FLOAT : (tensor<2x2x6xf32>, tensor<2x2x6xf32>) -> tensor<2x2x6xi1>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %41 = stablehlo.select %38, %39, %40 : tensor<2x2x6xi1>, tensor<2x2x6xf32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %43 = stablehlo.compare EQ, %42, %37, FLOAT : (tensor<2x2x6xf32>, tensor<2x2x6xf32>) -> tensor<2x2x6xi1>
    %cst_11 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %45 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %46 = stablehlo.select %43, %44, %45 : tensor<2x2x6xi1>, tensor<2x2x6xf32>
    %47 = stablehlo.divide %41, %46 : tensor<2x2x6xf32>
    %48 = stablehlo.broadcast_in_dim %37, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %49 = stablehlo.broadcast_in_dim %48, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %50 = stablehlo.subtract %29#0, %49 : tensor<2x2x6x6xf32>
    %51 = stablehlo.exponential %50 : tensor<2x2x6x6xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_13) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %55 = stablehlo.divide %51, %54 : tensor<2x2x6x6xf32>
    %56 = stablehlo.multiply %53, %53 : tensor<2x2x6x1xf32>
    %cst_14 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x2x6x1xf32>
    %58 = stablehlo.divide %57, %56 : tensor<2x2x6x1xf32>
    %59 = stablehlo.dot_general %55, %23, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x6xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x4xf32>
    %60 = stablehlo.transpose %59, dims = [0, 2, 1, 3] : (tensor<2x2x6x4xf32>) -> tensor<2x6x2x4xf32>
    %61 = stablehlo.reshape %60 : (tensor<2x6x2x4xf32>) -> tensor<2x6x8xf32>
    %62 = stablehlo.dot_general %61, %arg5, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %63 = stablehlo.add %arg8, %62 : tensor<2x6x8xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %64 = stablehlo.reduce(%63 init: %cst_15) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_16 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %67 = stablehlo.divide %65, %66 : tensor<2x6x1xf32>
    %c_17 = stablehlo.constant dense<0> : tensor<i32>
    %68:5 = call @_var_1(%63, %c_17) : (tensor<2x6x8xf32>, tensor<i32>) -> (tensor<2x6x1xf32>, tensor<2x6x8xf32>, tensor<f32>, tensor<i1>, tensor<2x6x1xf32>)
    %69 = stablehlo.broadcast_in_dim %67, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %70 = stablehlo.subtract %63, %69 : tensor<2x6x8xf32>
    %cst_18 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %72 = stablehlo.add %68#0, %71 : tensor<2x6x1xf32>
    %73 = stablehlo.rsqrt %72 : tensor<2x6x1xf32>
    %74 = stablehlo.divide %73, %72 : tensor<2x6x1xf32>
    %cst_19 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %76 = stablehlo.multiply %75, %74 : tensor<2x6x1xf32>
    %77 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %78 = stablehlo.multiply %70, %77 : tensor<2x6x8xf32>
    %79 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %80 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %81 = stablehlo.multiply %78, %80 : tensor<2x6x8xf32>
    %82 = stablehlo.dot_general %81, %arg2, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x32xf32>) -> tensor<2x6x32xf32>
    %83 = stablehlo.multiply %82, %82 : tensor<2x6x32xf32>
    %84 = stablehlo.multiply %83, %82 : tensor<2x6x32xf32>
    %85 = stablehlo.multiply %82, %82 : tensor<2x6x32xf32>
    %cst_20 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %86 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %87 = stablehlo.multiply %86, %85 : tensor<2x6x32xf32>
    %cst_21 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %89 = stablehlo.multiply %88, %84 : tensor<2x6x32xf32>
    %90 = stablehlo.add %82, %89 : tensor<2x6x32xf32>
    %cst_22 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %92 = stablehlo.multiply %91, %90 : tensor<2x6x32xf32>
    %93 = stablehlo.tanh %92 : tensor<2x6x32xf32>
    %cst_23 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %95 = stablehlo.subtract %94, %93 : tensor<2x6x32xf32>
    %cst_24 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %97 = stablehlo.add %96, %93 : tensor<2x6x32xf32>
    %cst_25 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %99 = stablehlo.multiply %98, %97 : tensor<2x6x32xf32>
    %100 = stablehlo.multiply %82, %99 : tensor<2x6x32xf32>
    %101 = stablehlo.dot_general %100, %arg3, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x32xf32>, tensor<32x8xf32>) -> tensor<2x6x8xf32>
    %102 = stablehlo.add %63, %101 : tensor<2x6x8xf32>
    %103 = stablehlo.multiply %102, %102 : tensor<2x6x8xf32>
    %cst_26 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x6x8xf32>
    %105 = stablehlo.multiply %104, %102 : tensor<2x6x8xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %106 = stablehlo.reduce(%103 init: %cst_27) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %107 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<2x6x8xf32>
    %108 = stablehlo.multiply %107, %105 : tensor<2x6x8xf32>
    %109 = stablehlo.dot_general %108, %100, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x32xf32>) -> tensor<8x32xf32>
    %110 = stablehlo.transpose %109, dims = [1, 0] : (tensor<8x32xf32>) -> tensor<32x8xf32>
    %111 = stablehlo.dot_general %108, %arg3, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<32x8xf32>) -> tensor<2x6x32xf32>
    %112 = stablehlo.multiply %82, %111 : tensor<2x6x32xf32>
    %113 = stablehlo.multiply %111, %99 : tensor<2x6x32xf32>
    %cst_29 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %114 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %115 = stablehlo.multiply %114, %112 : tensor<2x6x32xf32>
    %116 = stablehlo.multiply %115, %95 : tensor<2x6x32xf32>
    %117 = stablehlo.multiply %116, %93 : tensor<2x6x32xf32>
    %118 = stablehlo.add %116, %117 : tensor<2x6x32xf32>
    %cst_30 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %120 = stablehlo.multiply %119, %118 : tensor<2x6x32xf32>
    %121 = stablehlo.add %113, %120 : tensor<2x6x32xf32>
    %cst_31 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %122 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x6x32xf32>
    %123 = stablehlo.multiply %122, %120 : tensor<2x6x32xf32>
    %124 = stablehlo.multiply %123, %87 : tensor<2x6x32xf32>
    %125 = stablehlo.add %121, %124 : tensor<2x6x32xf32>
    %126 = stablehlo.dot_general %125, %81, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x32xf32>, tensor<2x6x8xf32>) -> tensor<32x8xf32>
    %127 = stablehlo.transpose %126, dims = [1, 0] : (tensor<32x8xf32>) -> tensor<8x32xf32>
    %128 = stablehlo.dot_general %125, %arg2, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x32xf32>, tensor<8x32xf32>) -> tensor<2x6x8xf32>
    %129 = stablehlo.multiply %78, %128 : tensor<2x6x8xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %130 = stablehlo.reduce(%129 init: %cst_32) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %131 = stablehlo.reshape %130 : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %132 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2] : (tensor<1x1x8xf32>) -> tensor<2x6x8xf32>
    %133 = stablehlo.multiply %128, %132 : tensor<2x6x8xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %134 = stablehlo.reduce(%131 init: %cst_33) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    %135 = stablehlo.multiply %70, %133 : tensor<2x6x8xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %136 = stablehlo.reduce(%135 init: %cst_34) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %137 = stablehlo.reshape %136 : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %138 = stablehlo.broadcast_in_dim %73, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %139 = stablehlo.multiply %133, %138 : tensor<2x6x8xf32>
    %140 = stablehlo.multiply %137, %76 : tensor<2x6x1xf32>
    %141 = stablehlo.negate %139 : tensor<2x6x8xf32>
    %cst_35 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %142 = stablehlo.reduce(%141 init: %cst_35) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %143 = stablehlo.reshape %142 : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %144 = stablehlo.add %108, %139 : tensor<2x6x8xf32>
    %145 = call @_var_3(%68#1, %68#2, %68#3, %68#4, %140) : (tensor<2x6x8xf32>, tensor<f32>, tensor<i1>, tensor<2x6x1xf32>, tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %146 = stablehlo.add %144, %145 : tensor<2x6x8xf32>
    %cst_36 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %147 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %148 = stablehlo.divide %143, %147 : tensor<2x6x1xf32>
    %cst_37 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %149 = stablehlo.reduce(%148 init: %cst_37) applies stablehlo.add across dimensions = [2] : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x8xf32>
    %151 = stablehlo.add %146, %150 : tensor<2x6x8xf32>
    %152 = stablehlo.dot_general %151, %61, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<8x8xf32>
    %153 = stablehlo.transpose %152, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %154 = stablehlo.dot_general %151, %arg5, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %155 = stablehlo.reshape %154 : (tensor<2x6x8xf32>) -> tensor<2x6x2x4xf32>
    %156 = stablehlo.transpose %155, dims = [0, 2, 1, 3] : (tensor<2x6x2x4xf32>) -> tensor<2x2x6x4xf32>
    %157 = stablehlo.dot_general %156, %55, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x4xf32>, tensor<2x2x6x6xf32>) -> tensor<2x2x4x6xf32>
    %158 = stablehlo.transpose %157, dims = [0, 1, 3, 2] : (tensor<2x2x4x6xf32>) -> tensor<2x2x6x4xf32>
    %159 = stablehlo.dot_general %156, %23, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x4xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x6xf32>
    %160 = stablehlo.broadcast_in_dim %58, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %161 = stablehlo.multiply %159, %160 : tensor<2x2x6x6xf32>
    %162 = stablehlo.multiply %161, %51 : tensor<2x2x6x6xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %163 = stablehlo.reduce(%162 init: %cst_38) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %164 = stablehlo.reshape %163 : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %165 = stablehlo.negate %164 : tensor<2x2x6x1xf32>
    %166 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %167 = stablehlo.divide %159, %166 : tensor<2x2x6x6xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %168 = stablehlo.reduce(%165 init: %cst_39) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x1xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %169 = stablehlo.broadcast_in_dim %168, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x6xf32>
    %170 = stablehlo.add %167, %169 : tensor<2x2x6x6xf32>
    %171 = stablehlo.multiply %170, %51 : tensor<2x2x6x6xf32>
    %172 = call @_where_5(%29#1, %29#2, %171) : (tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>, tensor<2x2x6x6xf32>) -> tensor<2x2x6x6xf32>
    %cst_40 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %173 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %174 = stablehlo.divide %172, %173 : tensor<2x2x6x6xf32>
    %175 = stablehlo.dot_general %174, %17, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x6xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x4xf32>
    %176 = stablehlo.dot_general %174, %20, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<2x2x6x6xf32>, tensor<2x2x6x4xf32>) -> tensor<2x2x6x4xf32>
    %177 = stablehlo.transpose %158, dims = [0, 2, 1, 3] : (tensor<2x2x6x4xf32>) -> tensor<2x6x2x4xf32>
    %178 = stablehlo.reshape %177 : (tensor<2x6x2x4xf32>) -> tensor<2x6x8xf32>
    %179 = stablehlo.dot_general %178, %14, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<8x8xf32>
    %180 = stablehlo.transpose %179, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %181 = stablehlo.dot_general %178, %arg7, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %182 = stablehlo.transpose %175, dims = [0, 2, 1, 3] : (tensor<2x2x6x4xf32>) -> tensor<2x6x2x4xf32>
    %183 = stablehlo.reshape %182 : (tensor<2x6x2x4xf32>) -> tensor<2x6x8xf32>
    %184 = stablehlo.dot_general %183, %14, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<8x8xf32>
    %185 = stablehlo.transpose %184, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %186 = stablehlo.dot_general %183, %arg4, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %187 = stablehlo.add %181, %186 : tensor<2x6x8xf32>
    %188 = stablehlo.transpose %176, dims = [0, 2, 1, 3] : (tensor<2x2x6x4xf32>) -> tensor<2x6x2x4xf32>
    %189 = stablehlo.reshape %188 : (tensor<2x6x2x4xf32>) -> tensor<2x6x8xf32>
    %190 = stablehlo.dot_general %189, %14, contracting_dims = [0, 1] x [0, 1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<2x6x8xf32>) -> tensor<8x8xf32>
    %191 = stablehlo.transpose %190, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %192 = stablehlo.dot_general %189, %arg6, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x6x8xf32>, tensor<8x8xf32>) -> tensor<2x6x8xf32>
    %193 = stablehlo.add %187, %192 : tensor<2x6x8xf32>
    %194 = stablehlo.multiply %11, %193 : tensor<2x6x8xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %195 = stablehlo.reduce(%194 init: %cst_41) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %196 = stablehlo.reshape %195 : (tensor<8xf32>) -> tensor<1x1x8xf32>
    %cst_42 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %197 = stablehlo.reduce(%196 init: %cst_42) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x1x8xf32>, tensor<f32>) -> tensor<8xf32>
    return %197, %134, %127, %110, %185, %153, %191, %180 : tensor<8xf32>, tensor<8xf32>, tensor<8x32xf32>, tensor<32x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
  }
  func.func private @_var(%arg0: tensor<2x6x8xf32>, %arg1: tensor<i32>) -> tensor<2x6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x6x8xf32>
    %6 = chlo.square %5 : tensor<2x6x8xf32> -> tensor<2x6x8xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %11 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %12 = stablehlo.divide %10, %11 : tensor<2x6x1xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = call @_where(%13, %12, %cst_4) : (tensor<i1>, tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6x1xf32>
    return %14 : tensor<2x6x1xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<2x6x1xf32>, %arg2: tensor<f32>) -> tensor<2x6x1xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<2x6x1xf32>
    return %2 : tensor<2x6x1xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where_0(%arg0: tensor<6x6xi1>, %arg1: tensor<2x2x6x6xf32>, %arg2: tensor<f32>) -> (tensor<2x2x6x6xf32>, tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<6x6xi1>) -> tensor<2x2x6x6xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    return %3, %1, %4 : tensor<2x2x6x6xf32>, tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>
  }
  func.func private @_var_1(%arg0: tensor<2x6x8xf32>, %arg1: tensor<i32>) -> (tensor<2x6x1xf32>, tensor<2x6x8xf32>, tensor<f32>, tensor<i1>, tensor<2x6x1xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<2x6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x8xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<2x6x8xf32>
    %6 = chlo.square %5 : tensor<2x6x8xf32> -> tensor<2x6x8xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x6x8xf32>
    %8 = stablehlo.multiply %7, %5 : tensor<2x6x8xf32>
    %9 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%6 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %13 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %14 = stablehlo.divide %12, %13 : tensor<2x6x1xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.compare GT, %10, %cst_4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_5 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %16:2 = call @_where_2(%15, %14, %cst_5) : (tensor<i1>, tensor<2x6x1xf32>, tensor<f32>) -> (tensor<2x6x1xf32>, tensor<2x6x1xf32>)
    return %16#0, %8, %10, %15, %16#1 : tensor<2x6x1xf32>, tensor<2x6x8xf32>, tensor<f32>, tensor<i1>, tensor<2x6x1xf32>
  }
  func.func private @_where_2(%arg0: tensor<i1>, %arg1: tensor<2x6x1xf32>, %arg2: tensor<f32>) -> (tensor<2x6x1xf32>, tensor<2x6x1xf32>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<2x6x1xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    return %2, %3 : tensor<2x6x1xf32>, tensor<2x6x1xf32>
  }
  func.func private @_var_3(%arg0: tensor<2x6x8xf32>, %arg1: tensor<f32>, %arg2: tensor<i1>, %arg3: tensor<2x6x1xf32>, %arg4: tensor<2x6x1xf32>) -> tensor<2x6x8xf32> {
    %0 = call @_where_4(%arg2, %arg3, %arg4) : (tensor<i1>, tensor<2x6x1xf32>, tensor<2x6x1xf32>) -> tensor<2x6x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %2 = stablehlo.divide %0, %1 : tensor<2x6x1xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x8xf32>
    %5 = stablehlo.multiply %4, %arg0 : tensor<2x6x8xf32>
    %6 = stablehlo.negate %5 : tensor<2x6x8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_0) applies stablehlo.add across dimensions = [2] : (tensor<2x6x8xf32>, tensor<f32>) -> tensor<2x6xf32>
    %8 = stablehlo.reshape %7 : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x6x1xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [2] : (tensor<2x6x1xf32>, tensor<f32>) -> tensor<2x6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x8xf32>
    %13 = stablehlo.add %5, %12 : tensor<2x6x8xf32>
    return %13 : tensor<2x6x8xf32>
  }
  func.func private @_where_4(%arg0: tensor<i1>, %arg1: tensor<2x6x1xf32>, %arg2: tensor<2x6x1xf32>) -> tensor<2x6x1xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %1 = stablehlo.select %arg0, %arg2, %0 : tensor<i1>, tensor<2x6x1xf32>
    return %1 : tensor<2x6x1xf32>
  }
  func.func private @_where_5(%arg0: tensor<2x2x6x6xi1>, %arg1: tensor<2x2x6x6xf32>, %arg2: tensor<2x2x6x6xf32>) -> tensor<2x2x6x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %1 = stablehlo.select %arg0, %arg2, %0 : tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>
    return %1 : tensor<2x2x6x6xf32>
  }
}
