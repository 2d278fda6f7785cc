module @jit_mlp_adam_step attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32>, %arg1: tensor<3xf32>, %arg2: tensor<8x16xf32>, %arg3: tensor<16x3xf32>, %arg4: tensor<16xf32>, %arg5: tensor<3xf32>, %arg6: tensor<8x16xf32>, %arg7: tensor<16x3xf32>, %arg8: tensor<16xf32>, %arg9: tensor<3xf32>, %arg10: tensor<8x16xf32>, %arg11: tensor<16x3xf32>, %arg12: tensor<i32>, %arg13: tensor<12x8xf32>, %arg14: tensor<12x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]['b1']"}, tensor<3xf32> {jax.result_info = "result[1]['b2']"}, tensor<8x16xf32> {jax.result_info = "result[1]['w1']"}, tensor<16x3xf32> {jax.result_info = "result[1]['w2']"}, tensor<16xf32> {jax.result_info = "result[2]['b1']"}, tensor<3xf32> {jax.result_info = "result[2]['b2']"}, tensor<8x16xf32> {jax.result_info = "result[2]['w1']"}, tensor<16x3xf32> {jax.result_info = "result[2]['w2']"}, tensor<16xf32> {jax.result_info = "result[3]['b1']"}, tensor<3xf32> {jax.result_info = "result[3]['b2']"}, tensor<8x16xf32> {jax.result_info = "result[3]['w1']"}, tensor<16x3xf32> {jax.result_info = "result[3]['w2']"}) {
    %0 = stablehlo.dot_general %arg13, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x8xf32>, tensor<8x16xf32>) -> tensor<12x16xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<12x16xf32>
    %3 = stablehlo.add %0, %2 : tensor<12x16xf32>
    %4 = call @relu(%3) : (tensor<12x16xf32>) -> tensor<12x16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12x16xf32>
    %6 = stablehlo.compare GT, %3, %5, FLOAT : (tensor<12x16xf32>, tensor<12x16xf32>) -> tensor<12x16xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12x16xf32>
    %8 = stablehlo.dot_general %4, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<16x3xf32>) -> tensor<12x3xf32>
    %9 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<12x3xf32>
    %11 = stablehlo.add %8, %10 : tensor<12x3xf32>
    %12:3 = call @log_softmax(%11) : (tensor<12x3xf32>) -> (tensor<12x3xf32>, tensor<12x3xf32>, tensor<12x1xf32>)
    %13 = stablehlo.multiply %12#0, %arg14 : tensor<12x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<12x3xf32>, tensor<f32>) -> tensor<12xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.reduce(%14 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<12xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
    %16 = stablehlo.divide %15, %cst_3 : tensor<f32>
    %17 = stablehlo.negate %16 : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %18 = stablehlo.negate %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<1.200000e+01> : tensor<f32>
    %19 = stablehlo.divide %18, %cst_5 : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<12xf32>) -> tensor<12x3xf32>
    %22 = stablehlo.multiply %21, %arg14 : tensor<12x3xf32>
    %23 = call @log_softmax_0(%12#1, %12#2, %22) : (tensor<12x3xf32>, tensor<12x1xf32>, tensor<12x3xf32>) -> tensor<12x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_6) applies stablehlo.add across dimensions = [0] : (tensor<12x3xf32>, tensor<f32>) -> tensor<3xf32>
    %25 = stablehlo.reshape %24 : (tensor<3xf32>) -> tensor<1x3xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<3xf32>
    %27 = stablehlo.dot_general %23, %4, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x3xf32>, tensor<12x16xf32>) -> tensor<3x16xf32>
    %28 = stablehlo.transpose %27, dims = [1, 0] : (tensor<3x16xf32>) -> tensor<16x3xf32>
    %29 = stablehlo.dot_general %23, %arg3, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<12x3xf32>, tensor<16x3xf32>) -> tensor<12x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<12x16xf32>
    %31 = stablehlo.select %6, %29, %30 : tensor<12x16xi1>, tensor<12x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<12x16xf32>, tensor<f32>) -> tensor<16xf32>
    %33 = stablehlo.reshape %32 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %35 = stablehlo.dot_general %31, %arg13, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<12x16xf32>, tensor<12x8xf32>) -> tensor<16x8xf32>
    %36 = stablehlo.transpose %35, dims = [1, 0] : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %cst_11 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %38 = stablehlo.multiply %37, %arg4 : tensor<16xf32>
    %cst_12 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %40 = stablehlo.multiply %39, %34 : tensor<16xf32>
    %41 = stablehlo.add %38, %40 : tensor<16xf32>
    %cst_13 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %43 = stablehlo.multiply %42, %arg5 : tensor<3xf32>
    %cst_14 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %45 = stablehlo.multiply %44, %26 : tensor<3xf32>
    %46 = stablehlo.add %43, %45 : tensor<3xf32>
    %cst_15 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %47 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %48 = stablehlo.multiply %47, %arg6 : tensor<8x16xf32>
    %cst_16 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %49 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %50 = stablehlo.multiply %49, %36 : tensor<8x16xf32>
    %51 = stablehlo.add %48, %50 : tensor<8x16xf32>
    %cst_17 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %53 = stablehlo.multiply %52, %arg7 : tensor<16x3xf32>
    %cst_18 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %54 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %55 = stablehlo.multiply %54, %28 : tensor<16x3xf32>
    %56 = stablehlo.add %53, %55 : tensor<16x3xf32>
    %cst_19 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %58 = stablehlo.multiply %57, %arg8 : tensor<16xf32>
    %cst_20 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %59 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %60 = stablehlo.multiply %59, %34 : tensor<16xf32>
    %61 = stablehlo.multiply %60, %34 : tensor<16xf32>
    %62 = stablehlo.add %58, %61 : tensor<16xf32>
    %cst_21 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %63 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %64 = stablehlo.multiply %63, %arg9 : tensor<3xf32>
    %cst_22 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %65 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %66 = stablehlo.multiply %65, %26 : tensor<3xf32>
    %67 = stablehlo.multiply %66, %26 : tensor<3xf32>
    %68 = stablehlo.add %64, %67 : tensor<3xf32>
    %cst_23 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %69 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %70 = stablehlo.multiply %69, %arg10 : tensor<8x16xf32>
    %cst_24 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %71 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %72 = stablehlo.multiply %71, %36 : tensor<8x16xf32>
    %73 = stablehlo.multiply %72, %36 : tensor<8x16xf32>
    %74 = stablehlo.add %70, %73 : tensor<8x16xf32>
    %cst_25 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %75 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %76 = stablehlo.multiply %75, %arg11 : tensor<16x3xf32>
    %cst_26 = stablehlo.constant dense<1.000000e-03> : tensor<f32>
    %77 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %78 = stablehlo.multiply %77, %28 : tensor<16x3xf32>
    %79 = stablehlo.multiply %78, %28 : tensor<16x3xf32>
    %80 = stablehlo.add %76, %79 : tensor<16x3xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %81 = stablehlo.add %arg12, %c : tensor<i32>
    %82 = stablehlo.convert %81 : (tensor<i32>) -> tensor<f32>
    %cst_27 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %83 = stablehlo.power %cst_27, %82 : tensor<f32>
    %cst_28 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %84 = stablehlo.subtract %cst_28, %83 : tensor<f32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %86 = stablehlo.divide %41, %85 : tensor<16xf32>
    %cst_29 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %87 = stablehlo.power %cst_29, %82 : tensor<f32>
    %cst_30 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %88 = stablehlo.subtract %cst_30, %87 : tensor<f32>
    %89 = stablehlo.broadcast_in_dim %88, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %90 = stablehlo.divide %62, %89 : tensor<16xf32>
    %cst_31 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %91 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %92 = stablehlo.multiply %91, %86 : tensor<16xf32>
    %93 = stablehlo.sqrt %90 : tensor<16xf32>
    %cst_32 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %94 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %95 = stablehlo.add %93, %94 : tensor<16xf32>
    %96 = stablehlo.divide %92, %95 : tensor<16xf32>
    %97 = stablehlo.subtract %arg0, %96 : tensor<16xf32>
    %cst_33 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %98 = stablehlo.power %cst_33, %82 : tensor<f32>
    %cst_34 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %99 = stablehlo.subtract %cst_34, %98 : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %99, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %101 = stablehlo.divide %46, %100 : tensor<3xf32>
    %cst_35 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %102 = stablehlo.power %cst_35, %82 : tensor<f32>
    %cst_36 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %103 = stablehlo.subtract %cst_36, %102 : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %103, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %105 = stablehlo.divide %68, %104 : tensor<3xf32>
    %cst_37 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %106 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %107 = stablehlo.multiply %106, %101 : tensor<3xf32>
    %108 = stablehlo.sqrt %105 : tensor<3xf32>
    %cst_38 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %109 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %110 = stablehlo.add %108, %109 : tensor<3xf32>
    %111 = stablehlo.divide %107, %110 : tensor<3xf32>
    %112 = stablehlo.subtract %arg1, %111 : tensor<3xf32>
    %cst_39 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %113 = stablehlo.power %cst_39, %82 : tensor<f32>
    %cst_40 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %114 = stablehlo.subtract %cst_40, %113 : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %114, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %116 = stablehlo.divide %51, %115 : tensor<8x16xf32>
    %cst_41 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %117 = stablehlo.power %cst_41, %82 : tensor<f32>
    %cst_42 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %118 = stablehlo.subtract %cst_42, %117 : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %118, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %120 = stablehlo.divide %74, %119 : tensor<8x16xf32>
    %cst_43 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %122 = stablehlo.multiply %121, %116 : tensor<8x16xf32>
    %123 = stablehlo.sqrt %120 : tensor<8x16xf32>
    %cst_44 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_44, dims = [] : (tensor<f32>) -> tensor<8x16xf32>
    %125 = stablehlo.add %123, %124 : tensor<8x16xf32>
    %126 = stablehlo.divide %122, %125 : tensor<8x16xf32>
    %127 = stablehlo.subtract %arg2, %126 : tensor<8x16xf32>
    %cst_45 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %128 = stablehlo.power %cst_45, %82 : tensor<f32>
    %cst_46 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %129 = stablehlo.subtract %cst_46, %128 : tensor<f32>
    %130 = stablehlo.broadcast_in_dim %129, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %131 = stablehlo.divide %56, %130 : tensor<16x3xf32>
    %cst_47 = stablehlo.constant dense<9.990000e-01> : tensor<f32>
    %132 = stablehlo.power %cst_47, %82 : tensor<f32>
    %cst_48 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %133 = stablehlo.subtract %cst_48, %132 : tensor<f32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %135 = stablehlo.divide %80, %134 : tensor<16x3xf32>
    %cst_49 = stablehlo.constant dense<0.00999999977> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_49, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %137 = stablehlo.multiply %136, %131 : tensor<16x3xf32>
    %138 = stablehlo.sqrt %135 : tensor<16x3xf32>
    %cst_50 = stablehlo.constant dense<9.99999993E-9> : tensor<f32>
    %139 = stablehlo.broadcast_in_dim %cst_50, dims = [] : (tensor<f32>) -> tensor<16x3xf32>
    %140 = stablehlo.add %138, %139 : tensor<16x3xf32>
    %141 = stablehlo.divide %137, %140 : tensor<16x3xf32>
    %142 = stablehlo.subtract %arg3, %141 : tensor<16x3xf32>
    return %17, %97, %112, %127, %142, %41, %46, %51, %56, %62, %68, %74, %80 : tensor<f32>, tensor<16xf32>, tensor<3xf32>, tensor<8x16xf32>, tensor<16x3xf32>, tensor<16xf32>, tensor<3xf32>, tensor<8x16xf32>, tensor<16x3xf32>, tensor<16xf32>, tensor<3xf32>, tensor<8x16xf32>, tensor<16x3xf32>
  }
  func.func private @relu(%arg0: tensor<12x16xf32>) -> tensor<12x16xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<12x16xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<12x16xf32>
    return %1 : tensor<12x16xf32>
  }
  func.func private @log_softmax(%arg0: tensor<12x3xf32>) -> (tensor<12x3xf32>, tensor<12x3xf32>, tensor<12x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<12x3xf32>, tensor<f32>) -> tensor<12xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<12xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<12xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<12xf32>) -> tensor<12x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<12x1xf32>) -> tensor<12x3xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<12x3xf32>
    %6 = stablehlo.exponential %5 : tensor<12x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<12x3xf32>, tensor<f32>) -> tensor<12xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<12xf32>) -> tensor<12x1xf32>
    %9 = stablehlo.log %8 : tensor<12x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<12x1xf32>) -> tensor<12x3xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<12x3xf32>
    return %11, %6, %8 : tensor<12x3xf32>, tensor<12x3xf32>, tensor<12x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<12x3xf32>, %arg1: tensor<12x1xf32>, %arg2: tensor<12x3xf32>) -> tensor<12x3xf32> {
    %0 = stablehlo.negate %arg2 : tensor<12x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<12x3xf32>, tensor<f32>) -> tensor<12xf32>
    %2 = stablehlo.reshape %1 : (tensor<12xf32>) -> tensor<12x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<12x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<12x1xf32>, tensor<f32>) -> tensor<12xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<12xf32>) -> tensor<12x3xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<12x3xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<12x3xf32>
    return %7 : tensor<12x3xf32>
  }
}
