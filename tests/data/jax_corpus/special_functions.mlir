module @jit_special_functions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xf32>) -> (tensor<6x5xf32> {jax.result_info = "result[0]"}, tensor<6x5xf32> {jax.result_info = "result[1]"}, tensor<6x5xf32> {jax.result_info = "result[2]"}, tensor<6x5xf32> {jax.result_info = "result[3]"}, tensor<6x5xf32> {jax.result_info = "result[4]"}, tensor<6x5xf32> {jax.result_info = "result[5]"}, tensor<6x5xf32> {jax.result_info = "result[6]"}, tensor<6x5xf32> {jax.result_info = "result[7]"}, tensor<6x5xf32> {jax.result_info = "result[8]"}, tensor<6x5xf32> {jax.result_info = "result[9]"}, tensor<6x5xf32> {jax.result_info = "result[10]"}, tensor<6x5xf32> {jax.result_info = "result[11]"}, tensor<6x5xf32> {jax.result_info = "result[12]"}, tensor<6x5xf32> {jax.result_info = "result[13]"}, tensor<6x5xf32> {jax.result_info = "result[14]"}, tensor<6x5xf32> {jax.result_info = "result[15]"}) {
    %0 = stablehlo.abs %arg0 : tensor<6x5xf32>
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %2 = stablehlo.add %0, %1 : tensor<6x5xf32>
    %3 = chlo.erf %arg0 : tensor<6x5xf32> -> tensor<6x5xf32>
    %4 = chlo.erfc %arg0 : tensor<6x5xf32> -> tensor<6x5xf32>
    %5 = stablehlo.tanh %arg0 : tensor<6x5xf32>
    %6 = chlo.erf_inv %5 : tensor<6x5xf32> -> tensor<6x5xf32>
    %7 = chlo.lgamma %2 : tensor<6x5xf32> -> tensor<6x5xf32>
    %8 = chlo.digamma %2 : tensor<6x5xf32> -> tensor<6x5xf32>
    %9 = stablehlo.negate %arg0 : tensor<6x5xf32>
    %10 = stablehlo.exponential %9 : tensor<6x5xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %12 = stablehlo.add %11, %10 : tensor<6x5xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %14 = stablehlo.divide %13, %12 : tensor<6x5xf32>
    %15 = stablehlo.negate %arg0 : tensor<6x5xf32>
    %16 = stablehlo.exponential %15 : tensor<6x5xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %18 = stablehlo.add %17, %16 : tensor<6x5xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %20 = stablehlo.divide %19, %18 : tensor<6x5xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %22 = stablehlo.subtract %21, %20 : tensor<6x5xf32>
    %23 = stablehlo.divide %20, %22 : tensor<6x5xf32>
    %24 = stablehlo.log %23 : tensor<6x5xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %26 = stablehlo.compare NE, %2, %25, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %27 = stablehlo.compare NE, %2, %2, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %28 = stablehlo.or %26, %27 : tensor<6x5xi1>
    %29 = stablehlo.log %2 : tensor<6x5xf32>
    %30 = stablehlo.multiply %2, %29 : tensor<6x5xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %32 = call @_where(%28, %30, %31) : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %33 = stablehlo.abs %arg0 : tensor<6x5xf32>
    %cst_7 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %34 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_8 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_9 = stablehlo.constant dense<3.200000e+01> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %37 = stablehlo.multiply %34, %33 : tensor<6x5xf32>
    %38 = stablehlo.subtract %37, %35 : tensor<6x5xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %40 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %42 = stablehlo.multiply %38, %39 : tensor<6x5xf32>
    %43 = stablehlo.subtract %42, %40 : tensor<6x5xf32>
    %cst_13 = stablehlo.constant dense<-1.30002498E-8> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %45 = stablehlo.add %43, %44 : tensor<6x5xf32>
    %46 = stablehlo.multiply %38, %45 : tensor<6x5xf32>
    %47 = stablehlo.subtract %46, %39 : tensor<6x5xf32>
    %cst_14 = stablehlo.constant dense<6.04699508E-8> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %49 = stablehlo.add %47, %48 : tensor<6x5xf32>
    %50 = stablehlo.multiply %38, %49 : tensor<6x5xf32>
    %51 = stablehlo.subtract %50, %45 : tensor<6x5xf32>
    %cst_15 = stablehlo.constant dense<-2.67079372E-7> : tensor<f32>
    %52 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %53 = stablehlo.add %51, %52 : tensor<6x5xf32>
    %54 = stablehlo.multiply %38, %53 : tensor<6x5xf32>
    %55 = stablehlo.subtract %54, %49 : tensor<6x5xf32>
    %cst_16 = stablehlo.constant dense<1.11738757E-6> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %57 = stablehlo.add %55, %56 : tensor<6x5xf32>
    %58 = stablehlo.multiply %38, %57 : tensor<6x5xf32>
    %59 = stablehlo.subtract %58, %53 : tensor<6x5xf32>
    %cst_17 = stablehlo.constant dense<-4.41673819E-6> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %61 = stablehlo.add %59, %60 : tensor<6x5xf32>
    %62 = stablehlo.multiply %38, %61 : tensor<6x5xf32>
    %63 = stablehlo.subtract %62, %57 : tensor<6x5xf32>
    %cst_18 = stablehlo.constant dense<1.64484482E-5> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %65 = stablehlo.add %63, %64 : tensor<6x5xf32>
    %66 = stablehlo.multiply %38, %65 : tensor<6x5xf32>
    %67 = stablehlo.subtract %66, %61 : tensor<6x5xf32>
    %cst_19 = stablehlo.constant dense<-5.75419508E-5> : tensor<f32>
    %68 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %69 = stablehlo.add %67, %68 : tensor<6x5xf32>
    %70 = stablehlo.multiply %38, %69 : tensor<6x5xf32>
    %71 = stablehlo.subtract %70, %65 : tensor<6x5xf32>
    %cst_20 = stablehlo.constant dense<1.88502891E-4> : tensor<f32>
    %72 = stablehlo.broadcast_in_dim %cst_20, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %73 = stablehlo.add %71, %72 : tensor<6x5xf32>
    %74 = stablehlo.multiply %38, %73 : tensor<6x5xf32>
    %75 = stablehlo.subtract %74, %69 : tensor<6x5xf32>
    %cst_21 = stablehlo.constant dense<-5.76375576E-4> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %77 = stablehlo.add %75, %76 : tensor<6x5xf32>
    %78 = stablehlo.multiply %38, %77 : tensor<6x5xf32>
    %79 = stablehlo.subtract %78, %73 : tensor<6x5xf32>
    %cst_22 = stablehlo.constant dense<0.00163947558> : tensor<f32>
    %80 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %81 = stablehlo.add %79, %80 : tensor<6x5xf32>
    %82 = stablehlo.multiply %38, %81 : tensor<6x5xf32>
    %83 = stablehlo.subtract %82, %77 : tensor<6x5xf32>
    %cst_23 = stablehlo.constant dense<-4.324310e-03> : tensor<f32>
    %84 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %85 = stablehlo.add %83, %84 : tensor<6x5xf32>
    %86 = stablehlo.multiply %38, %85 : tensor<6x5xf32>
    %87 = stablehlo.subtract %86, %81 : tensor<6x5xf32>
    %cst_24 = stablehlo.constant dense<0.0105464607> : tensor<f32>
    %88 = stablehlo.broadcast_in_dim %cst_24, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %89 = stablehlo.add %87, %88 : tensor<6x5xf32>
    %90 = stablehlo.multiply %38, %89 : tensor<6x5xf32>
    %91 = stablehlo.subtract %90, %85 : tensor<6x5xf32>
    %cst_25 = stablehlo.constant dense<-0.0237374157> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_25, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %93 = stablehlo.add %91, %92 : tensor<6x5xf32>
    %94 = stablehlo.multiply %38, %93 : tensor<6x5xf32>
    %95 = stablehlo.subtract %94, %89 : tensor<6x5xf32>
    %cst_26 = stablehlo.constant dense<0.0493052825> : tensor<f32>
    %96 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %97 = stablehlo.add %95, %96 : tensor<6x5xf32>
    %98 = stablehlo.multiply %38, %97 : tensor<6x5xf32>
    %99 = stablehlo.subtract %98, %93 : tensor<6x5xf32>
    %cst_27 = stablehlo.constant dense<-9.490110e-02> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_27, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %101 = stablehlo.add %99, %100 : tensor<6x5xf32>
    %102 = stablehlo.multiply %38, %101 : tensor<6x5xf32>
    %103 = stablehlo.subtract %102, %97 : tensor<6x5xf32>
    %cst_28 = stablehlo.constant dense<0.171620905> : tensor<f32>
    %104 = stablehlo.broadcast_in_dim %cst_28, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %105 = stablehlo.add %103, %104 : tensor<6x5xf32>
    %106 = stablehlo.multiply %38, %105 : tensor<6x5xf32>
    %107 = stablehlo.subtract %106, %101 : tensor<6x5xf32>
    %cst_29 = stablehlo.constant dense<-0.304682672> : tensor<f32>
    %108 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %109 = stablehlo.add %107, %108 : tensor<6x5xf32>
    %110 = stablehlo.multiply %38, %109 : tensor<6x5xf32>
    %111 = stablehlo.subtract %110, %105 : tensor<6x5xf32>
    %cst_30 = stablehlo.constant dense<0.676795303> : tensor<f32>
    %112 = stablehlo.broadcast_in_dim %cst_30, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %113 = stablehlo.add %111, %112 : tensor<6x5xf32>
    %114 = stablehlo.subtract %113, %105 : tensor<6x5xf32>
    %cst_31 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %115 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %116 = stablehlo.multiply %115, %114 : tensor<6x5xf32>
    %117 = stablehlo.divide %36, %33 : tensor<6x5xf32>
    %118 = stablehlo.subtract %117, %35 : tensor<6x5xf32>
    %cst_32 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_33 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %120 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %cst_34 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %121 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %122 = stablehlo.multiply %118, %119 : tensor<6x5xf32>
    %123 = stablehlo.subtract %122, %120 : tensor<6x5xf32>
    %cst_35 = stablehlo.constant dense<3.39623196E-9> : tensor<f32>
    %124 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %125 = stablehlo.add %123, %124 : tensor<6x5xf32>
    %126 = stablehlo.multiply %118, %125 : tensor<6x5xf32>
    %127 = stablehlo.subtract %126, %119 : tensor<6x5xf32>
    %cst_36 = stablehlo.constant dense<2.26666899E-8> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %129 = stablehlo.add %127, %128 : tensor<6x5xf32>
    %130 = stablehlo.multiply %118, %129 : tensor<6x5xf32>
    %131 = stablehlo.subtract %130, %125 : tensor<6x5xf32>
    %cst_37 = stablehlo.constant dense<2.04891862E-7> : tensor<f32>
    %132 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %133 = stablehlo.add %131, %132 : tensor<6x5xf32>
    %134 = stablehlo.multiply %118, %133 : tensor<6x5xf32>
    %135 = stablehlo.subtract %134, %129 : tensor<6x5xf32>
    %cst_38 = stablehlo.constant dense<2.89137051E-6> : tensor<f32>
    %136 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %137 = stablehlo.add %135, %136 : tensor<6x5xf32>
    %138 = stablehlo.multiply %118, %137 : tensor<6x5xf32>
    %139 = stablehlo.subtract %138, %133 : tensor<6x5xf32>
    %cst_39 = stablehlo.constant dense<6.88975852E-5> : tensor<f32>
    %140 = stablehlo.broadcast_in_dim %cst_39, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %141 = stablehlo.add %139, %140 : tensor<6x5xf32>
    %142 = stablehlo.multiply %118, %141 : tensor<6x5xf32>
    %143 = stablehlo.subtract %142, %137 : tensor<6x5xf32>
    %cst_40 = stablehlo.constant dense<0.00336911646> : tensor<f32>
    %144 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %145 = stablehlo.add %143, %144 : tensor<6x5xf32>
    %146 = stablehlo.multiply %118, %145 : tensor<6x5xf32>
    %147 = stablehlo.subtract %146, %141 : tensor<6x5xf32>
    %cst_41 = stablehlo.constant dense<0.804490387> : tensor<f32>
    %148 = stablehlo.broadcast_in_dim %cst_41, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %149 = stablehlo.add %147, %148 : tensor<6x5xf32>
    %150 = stablehlo.subtract %149, %141 : tensor<6x5xf32>
    %cst_42 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %151 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %152 = stablehlo.multiply %151, %150 : tensor<6x5xf32>
    %153 = stablehlo.sqrt %33 : tensor<6x5xf32>
    %154 = stablehlo.divide %152, %153 : tensor<6x5xf32>
    %cst_43 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %155 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %156 = stablehlo.compare LE, %33, %155, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %157 = stablehlo.select %156, %116, %154 : tensor<6x5xi1>, tensor<6x5xf32>
    %158 = chlo.bessel_i1e %arg0 : tensor<6x5xf32> -> tensor<6x5xf32>
    %159 = stablehlo.atan2 %arg0, %2 : tensor<6x5xf32>
    %160 = chlo.asinh %arg0 : tensor<6x5xf32> -> tensor<6x5xf32>
    %161 = stablehlo.log_plus_one %2 : tensor<6x5xf32>
    %162 = stablehlo.exponential_minus_one %arg0 : tensor<6x5xf32>
    %163 = stablehlo.cbrt %arg0 : tensor<6x5xf32>
    %164 = call @hypot(%arg0, %2) : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    return %3, %4, %6, %7, %8, %14, %24, %32, %157, %158, %159, %160, %161, %162, %163, %164 : tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>, tensor<6x5xf32>
  }
  func.func private @_where(%arg0: tensor<6x5xi1>, %arg1: tensor<6x5xf32>, %arg2: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6x5xi1>, tensor<6x5xf32>
    return %0 : tensor<6x5xf32>
  }
  func.func private @hypot(%arg0: tensor<6x5xf32>, %arg1: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %0 = stablehlo.abs %arg0 : tensor<6x5xf32>
    %1 = stablehlo.abs %arg1 : tensor<6x5xf32>
    %cst = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %3 = stablehlo.compare EQ, %0, %2, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %5 = stablehlo.compare EQ, %1, %4, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %6 = stablehlo.or %3, %5 : tensor<6x5xi1>
    %7 = stablehlo.maximum %0, %1 : tensor<6x5xf32>
    %8 = stablehlo.minimum %0, %1 : tensor<6x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %10 = stablehlo.compare EQ, %7, %9, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %12 = stablehlo.compare EQ, %7, %11, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %14 = call @_where(%12, %13, %7) : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %15 = stablehlo.divide %8, %14 : tensor<6x5xf32>
    %16 = chlo.square %15 : tensor<6x5xf32> -> tensor<6x5xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %18 = stablehlo.add %17, %16 : tensor<6x5xf32>
    %19 = stablehlo.sqrt %18 : tensor<6x5xf32>
    %20 = stablehlo.multiply %7, %19 : tensor<6x5xf32>
    %21 = call @_where(%10, %7, %20) : (tensor<6x5xi1>, tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    %cst_5 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %22 = call @_where_0(%6, %cst_5, %21) : (tensor<6x5xi1>, tensor<f32>, tensor<6x5xf32>) -> tensor<6x5xf32>
    return %22 : tensor<6x5xf32>
  }
  func.func private @_where_0(%arg0: tensor<6x5xi1>, %arg1: tensor<f32>, %arg2: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<6x5xi1>, tensor<6x5xf32>
    return %1 : tensor<6x5xf32>
  }
}
