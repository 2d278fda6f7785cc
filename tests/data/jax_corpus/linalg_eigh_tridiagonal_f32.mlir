module @jit__eigh_tridiagonal attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = call @eigh_tridiagonal(%arg0, %arg1) : (tensor<5xf32>, tensor<4xf32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
  func.func private @eigh_tridiagonal(%arg0: tensor<5xf32>, %arg1: tensor<4xf32>) -> tensor<5xf32> {
    %0 = stablehlo.abs %arg1 : tensor<4xf32>
    %1 = chlo.square %arg1 : tensor<4xf32> -> tensor<4xf32>
    %2 = stablehlo.slice %0 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %3 = stablehlo.slice %0 [0:3] : (tensor<4xf32>) -> tensor<3xf32>
    %4 = stablehlo.slice %0 [1:4] : (tensor<4xf32>) -> tensor<3xf32>
    %5 = stablehlo.add %3, %4 : tensor<3xf32>
    %6 = stablehlo.slice %0 [3:4] : (tensor<4xf32>) -> tensor<1xf32>
    %7 = stablehlo.concatenate %2, %5, %6, dim = 0 : (tensor<1xf32>, tensor<3xf32>, tensor<1xf32>) -> tensor<5xf32>
    %8 = stablehlo.add %arg0, %7 : tensor<5xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %10 = stablehlo.subtract %arg0, %7 : tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_0) applies stablehlo.minimum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %12 = stablehlo.abs %11 : tensor<f32>
    %13 = stablehlo.abs %9 : tensor<f32>
    %14 = stablehlo.maximum %12, %13 : tensor<f32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %15 = stablehlo.reduce(%1 init: %cst_1) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %16 = stablehlo.maximum %cst_2, %15 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.17549449E-38> : tensor<f32>
    %17 = stablehlo.multiply %cst_3, %16 : tensor<f32>
    %18 = stablehlo.slice %0 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
    %19 = stablehlo.reshape %18 : (tensor<1xf32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %20 = stablehlo.multiply %cst_4, %19 : tensor<f32>
    %21 = chlo.square %20 : tensor<f32> -> tensor<f32>
    %cst_5 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %22 = stablehlo.multiply %cst_5, %14 : tensor<f32>
    %23 = stablehlo.iota dim = 0 : tensor<5xi32>
    %cst_6 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %cst_7 = stablehlo.constant dense<2.100000e+00> : tensor<f32>
    %24 = stablehlo.multiply %cst_6, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %25 = stablehlo.multiply %24, %cst_8 : tensor<f32>
    %26 = stablehlo.multiply %25, %14 : tensor<f32>
    %27 = stablehlo.subtract %11, %26 : tensor<f32>
    %cst_9 = stablehlo.constant dense<4.200000e+00> : tensor<f32>
    %28 = stablehlo.multiply %cst_9, %17 : tensor<f32>
    %29 = stablehlo.subtract %27, %28 : tensor<f32>
    %30 = stablehlo.add %9, %26 : tensor<f32>
    %cst_10 = stablehlo.constant dense<2.100000e+00> : tensor<f32>
    %31 = stablehlo.multiply %cst_10, %17 : tensor<f32>
    %32 = stablehlo.add %30, %31 : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %29, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %35 = stablehlo.add %34, %33 : tensor<5xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %37 = stablehlo.multiply %36, %35 : tensor<5xf32>
    %38 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %39 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %40:10 = stablehlo.while(%iterArg = %22, %iterArg_12 = %arg0, %iterArg_13 = %39, %iterArg_14 = %1, %iterArg_15 = %38, %iterArg_16 = %23, %iterArg_17 = %c, %iterArg_18 = %33, %iterArg_19 = %37, %iterArg_20 = %34) : tensor<f32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xi32>, tensor<i32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
    cond {
      %c_21 = stablehlo.constant dense<24> : tensor<i32>
      %41 = stablehlo.compare LT, %iterArg_17, %c_21, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %42 = stablehlo.subtract %iterArg_20, %iterArg_18 : tensor<5xf32>
      %cst_22 = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %43 = stablehlo.reduce(%42 init: %cst_22) applies stablehlo.maximum across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
      %44 = stablehlo.compare LT, %iterArg, %43, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %c_23 = stablehlo.constant dense<false> : tensor<i1>
      %45 = stablehlo.broadcast_in_dim %c_23, dims = [] : (tensor<i1>) -> tensor<i1>
      %46 = stablehlo.compare NE, %41, %45, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %47 = stablehlo.convert %46 : tensor<i1>
      %48 = stablehlo.and %47, %44 : tensor<i1>
      stablehlo.return %48 : tensor<i1>
    } do {
      %c_21 = stablehlo.constant dense<0> : tensor<i32>
      %41 = stablehlo.broadcast_in_dim %c_21, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %c_22 = stablehlo.constant dense<1> : tensor<i32>
      %42 = stablehlo.broadcast_in_dim %c_22, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %43 = stablehlo.slice %iterArg_12 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
      %44 = stablehlo.reshape %43 : (tensor<1xf32>) -> tensor<f32>
      %45 = stablehlo.broadcast_in_dim %44, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %46 = stablehlo.subtract %45, %iterArg_19 : tensor<5xf32>
      %cst_23 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %47 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %48 = stablehlo.compare LT, %46, %47, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %49 = func.call @_where(%48, %42, %41) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %50 = stablehlo.slice %iterArg_12 [0:1] : (tensor<5xf32>) -> tensor<1xf32>
      %51 = stablehlo.reshape %50 : (tensor<1xf32>) -> tensor<f32>
      %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %53 = stablehlo.compare EQ, %52, %iterArg_19, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %54 = func.call @_where_0(%53, %iterArg_13, %46) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %55 = stablehlo.slice %iterArg_12 [1:2] : (tensor<5xf32>) -> tensor<1xf32>
      %56 = stablehlo.reshape %55 : (tensor<1xf32>) -> tensor<f32>
      %57 = stablehlo.slice %iterArg_14 [0:1] : (tensor<4xf32>) -> tensor<1xf32>
      %58 = stablehlo.reshape %57 : (tensor<1xf32>) -> tensor<f32>
      %59 = stablehlo.broadcast_in_dim %58, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %60 = stablehlo.divide %59, %54 : tensor<5xf32>
      %61 = stablehlo.broadcast_in_dim %56, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %62 = stablehlo.subtract %61, %60 : tensor<5xf32>
      %63 = stablehlo.subtract %62, %iterArg_19 : tensor<5xf32>
      %64 = stablehlo.compare LE, %63, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_24 = stablehlo.constant dense<1> : tensor<i32>
      %65 = stablehlo.broadcast_in_dim %c_24, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %66 = stablehlo.add %49, %65 : tensor<5xi32>
      %67 = func.call @_where(%64, %66, %49) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %68 = stablehlo.compare LE, %63, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %69 = stablehlo.negate %iterArg_15 : tensor<5xf32>
      %70 = stablehlo.minimum %63, %69 : tensor<5xf32>
      %71 = func.call @_where_0(%68, %70, %63) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %72 = stablehlo.slice %iterArg_12 [2:3] : (tensor<5xf32>) -> tensor<1xf32>
      %73 = stablehlo.reshape %72 : (tensor<1xf32>) -> tensor<f32>
      %74 = stablehlo.slice %iterArg_14 [1:2] : (tensor<4xf32>) -> tensor<1xf32>
      %75 = stablehlo.reshape %74 : (tensor<1xf32>) -> tensor<f32>
      %76 = stablehlo.broadcast_in_dim %75, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %77 = stablehlo.divide %76, %71 : tensor<5xf32>
      %78 = stablehlo.broadcast_in_dim %73, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %79 = stablehlo.subtract %78, %77 : tensor<5xf32>
      %80 = stablehlo.subtract %79, %iterArg_19 : tensor<5xf32>
      %81 = stablehlo.compare LE, %80, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_25 = stablehlo.constant dense<1> : tensor<i32>
      %82 = stablehlo.broadcast_in_dim %c_25, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %83 = stablehlo.add %67, %82 : tensor<5xi32>
      %84 = func.call @_where(%81, %83, %67) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %85 = stablehlo.compare LE, %80, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %86 = stablehlo.negate %iterArg_15 : tensor<5xf32>
      %87 = stablehlo.minimum %80, %86 : tensor<5xf32>
      %88 = func.call @_where_0(%85, %87, %80) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %89 = stablehlo.slice %iterArg_12 [3:4] : (tensor<5xf32>) -> tensor<1xf32>
      %90 = stablehlo.reshape %89 : (tensor<1xf32>) -> tensor<f32>
      %91 = stablehlo.slice %iterArg_14 [2:3] : (tensor<4xf32>) -> tensor<1xf32>
      %92 = stablehlo.reshape %91 : (tensor<1xf32>) -> tensor<f32>
      %93 = stablehlo.broadcast_in_dim %92, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %94 = stablehlo.divide %93, %88 : tensor<5xf32>
      %95 = stablehlo.broadcast_in_dim %90, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %96 = stablehlo.subtract %95, %94 : tensor<5xf32>
      %97 = stablehlo.subtract %96, %iterArg_19 : tensor<5xf32>
      %98 = stablehlo.compare LE, %97, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_26 = stablehlo.constant dense<1> : tensor<i32>
      %99 = stablehlo.broadcast_in_dim %c_26, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %100 = stablehlo.add %84, %99 : tensor<5xi32>
      %101 = func.call @_where(%98, %100, %84) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %102 = stablehlo.compare LE, %97, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %103 = stablehlo.negate %iterArg_15 : tensor<5xf32>
      %104 = stablehlo.minimum %97, %103 : tensor<5xf32>
      %105 = func.call @_where_0(%102, %104, %97) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %106 = stablehlo.slice %iterArg_12 [4:5] : (tensor<5xf32>) -> tensor<1xf32>
      %107 = stablehlo.reshape %106 : (tensor<1xf32>) -> tensor<f32>
      %108 = stablehlo.slice %iterArg_14 [3:4] : (tensor<4xf32>) -> tensor<1xf32>
      %109 = stablehlo.reshape %108 : (tensor<1xf32>) -> tensor<f32>
      %110 = stablehlo.broadcast_in_dim %109, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %111 = stablehlo.divide %110, %105 : tensor<5xf32>
      %112 = stablehlo.broadcast_in_dim %107, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %113 = stablehlo.subtract %112, %111 : tensor<5xf32>
      %114 = stablehlo.subtract %113, %iterArg_19 : tensor<5xf32>
      %115 = stablehlo.compare LE, %114, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %c_27 = stablehlo.constant dense<1> : tensor<i32>
      %116 = stablehlo.broadcast_in_dim %c_27, dims = [] : (tensor<i32>) -> tensor<5xi32>
      %117 = stablehlo.add %101, %116 : tensor<5xi32>
      %118 = func.call @_where(%115, %117, %101) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
      %119 = stablehlo.compare LE, %114, %iterArg_15, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
      %120 = stablehlo.negate %iterArg_15 : tensor<5xf32>
      %121 = stablehlo.minimum %114, %120 : tensor<5xf32>
      %122 = func.call @_where_0(%119, %121, %114) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %c_28 = stablehlo.constant dense<5> : tensor<i32>
      %123:7 = stablehlo.while(%iterArg_31 = %iterArg_12, %iterArg_32 = %iterArg_14, %iterArg_33 = %iterArg_19, %iterArg_34 = %iterArg_15, %iterArg_35 = %c_28, %iterArg_36 = %122, %iterArg_37 = %118) : tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<5xi32>
      cond {
        %c_38 = stablehlo.constant dense<5> : tensor<i32>
        %132 = stablehlo.compare LT, %iterArg_35, %c_38, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %132 : tensor<i1>
      } do {
        %c_38 = stablehlo.constant dense<0> : tensor<i32>
        %132 = stablehlo.add %iterArg_35, %c_38 : tensor<i32>
        %c_39 = stablehlo.constant dense<0> : tensor<i32>
        %133 = stablehlo.compare LT, %132, %c_39, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %134 = stablehlo.convert %132 : tensor<i32>
        %c_40 = stablehlo.constant dense<5> : tensor<i32>
        %135 = stablehlo.add %134, %c_40 : tensor<i32>
        %136 = stablehlo.select %133, %135, %132 : tensor<i1>, tensor<i32>
        %137 = stablehlo.dynamic_slice %iterArg_31, %136, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %138 = stablehlo.reshape %137 : (tensor<1xf32>) -> tensor<f32>
        %c_41 = stablehlo.constant dense<1> : tensor<i32>
        %139 = stablehlo.subtract %132, %c_41 : tensor<i32>
        %c_42 = stablehlo.constant dense<0> : tensor<i32>
        %140 = stablehlo.compare LT, %139, %c_42, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %141 = stablehlo.convert %139 : tensor<i32>
        %c_43 = stablehlo.constant dense<4> : tensor<i32>
        %142 = stablehlo.add %141, %c_43 : tensor<i32>
        %143 = stablehlo.select %140, %142, %139 : tensor<i1>, tensor<i32>
        %144 = stablehlo.dynamic_slice %iterArg_32, %143, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %145 = stablehlo.reshape %144 : (tensor<1xf32>) -> tensor<f32>
        %146 = stablehlo.broadcast_in_dim %145, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %147 = stablehlo.divide %146, %iterArg_36 : tensor<5xf32>
        %148 = stablehlo.broadcast_in_dim %138, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %149 = stablehlo.subtract %148, %147 : tensor<5xf32>
        %150 = stablehlo.subtract %149, %iterArg_33 : tensor<5xf32>
        %151 = stablehlo.compare LE, %150, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_44 = stablehlo.constant dense<1> : tensor<i32>
        %152 = stablehlo.broadcast_in_dim %c_44, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %153 = stablehlo.add %iterArg_37, %152 : tensor<5xi32>
        %154 = func.call @_where(%151, %153, %iterArg_37) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %155 = stablehlo.compare LE, %150, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %156 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %157 = stablehlo.minimum %150, %156 : tensor<5xf32>
        %158 = func.call @_where_0(%155, %157, %150) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_45 = stablehlo.constant dense<1> : tensor<i32>
        %159 = stablehlo.add %iterArg_35, %c_45 : tensor<i32>
        %c_46 = stablehlo.constant dense<0> : tensor<i32>
        %160 = stablehlo.compare LT, %159, %c_46, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %161 = stablehlo.convert %159 : tensor<i32>
        %c_47 = stablehlo.constant dense<5> : tensor<i32>
        %162 = stablehlo.add %161, %c_47 : tensor<i32>
        %163 = stablehlo.select %160, %162, %159 : tensor<i1>, tensor<i32>
        %164 = stablehlo.dynamic_slice %iterArg_31, %163, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %165 = stablehlo.reshape %164 : (tensor<1xf32>) -> tensor<f32>
        %c_48 = stablehlo.constant dense<1> : tensor<i32>
        %166 = stablehlo.subtract %159, %c_48 : tensor<i32>
        %c_49 = stablehlo.constant dense<0> : tensor<i32>
        %167 = stablehlo.compare LT, %166, %c_49, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %168 = stablehlo.convert %166 : tensor<i32>
        %c_50 = stablehlo.constant dense<4> : tensor<i32>
        %169 = stablehlo.add %168, %c_50 : tensor<i32>
        %170 = stablehlo.select %167, %169, %166 : tensor<i1>, tensor<i32>
        %171 = stablehlo.dynamic_slice %iterArg_32, %170, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %172 = stablehlo.reshape %171 : (tensor<1xf32>) -> tensor<f32>
        %173 = stablehlo.broadcast_in_dim %172, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %174 = stablehlo.divide %173, %158 : tensor<5xf32>
        %175 = stablehlo.broadcast_in_dim %165, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %176 = stablehlo.subtract %175, %174 : tensor<5xf32>
        %177 = stablehlo.subtract %176, %iterArg_33 : tensor<5xf32>
        %178 = stablehlo.compare LE, %177, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_51 = stablehlo.constant dense<1> : tensor<i32>
        %179 = stablehlo.broadcast_in_dim %c_51, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %180 = stablehlo.add %154, %179 : tensor<5xi32>
        %181 = func.call @_where(%178, %180, %154) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %182 = stablehlo.compare LE, %177, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %183 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %184 = stablehlo.minimum %177, %183 : tensor<5xf32>
        %185 = func.call @_where_0(%182, %184, %177) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_52 = stablehlo.constant dense<2> : tensor<i32>
        %186 = stablehlo.add %iterArg_35, %c_52 : tensor<i32>
        %c_53 = stablehlo.constant dense<0> : tensor<i32>
        %187 = stablehlo.compare LT, %186, %c_53, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %188 = stablehlo.convert %186 : tensor<i32>
        %c_54 = stablehlo.constant dense<5> : tensor<i32>
        %189 = stablehlo.add %188, %c_54 : tensor<i32>
        %190 = stablehlo.select %187, %189, %186 : tensor<i1>, tensor<i32>
        %191 = stablehlo.dynamic_slice %iterArg_31, %190, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %192 = stablehlo.reshape %191 : (tensor<1xf32>) -> tensor<f32>
        %c_55 = stablehlo.constant dense<1> : tensor<i32>
        %193 = stablehlo.subtract %186, %c_55 : tensor<i32>
        %c_56 = stablehlo.constant dense<0> : tensor<i32>
        %194 = stablehlo.compare LT, %193, %c_56, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %195 = stablehlo.convert %193 : tensor<i32>
        %c_57 = stablehlo.constant dense<4> : tensor<i32>
        %196 = stablehlo.add %195, %c_57 : tensor<i32>
        %197 = stablehlo.select %194, %196, %193 : tensor<i1>, tensor<i32>
        %198 = stablehlo.dynamic_slice %iterArg_32, %197, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %199 = stablehlo.reshape %198 : (tensor<1xf32>) -> tensor<f32>
        %200 = stablehlo.broadcast_in_dim %199, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %201 = stablehlo.divide %200, %185 : tensor<5xf32>
        %202 = stablehlo.broadcast_in_dim %192, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %203 = stablehlo.subtract %202, %201 : tensor<5xf32>
        %204 = stablehlo.subtract %203, %iterArg_33 : tensor<5xf32>
        %205 = stablehlo.compare LE, %204, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_58 = stablehlo.constant dense<1> : tensor<i32>
        %206 = stablehlo.broadcast_in_dim %c_58, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %207 = stablehlo.add %181, %206 : tensor<5xi32>
        %208 = func.call @_where(%205, %207, %181) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %209 = stablehlo.compare LE, %204, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %210 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %211 = stablehlo.minimum %204, %210 : tensor<5xf32>
        %212 = func.call @_where_0(%209, %211, %204) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_59 = stablehlo.constant dense<3> : tensor<i32>
        %213 = stablehlo.add %iterArg_35, %c_59 : tensor<i32>
        %c_60 = stablehlo.constant dense<0> : tensor<i32>
        %214 = stablehlo.compare LT, %213, %c_60, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %215 = stablehlo.convert %213 : tensor<i32>
        %c_61 = stablehlo.constant dense<5> : tensor<i32>
        %216 = stablehlo.add %215, %c_61 : tensor<i32>
        %217 = stablehlo.select %214, %216, %213 : tensor<i1>, tensor<i32>
        %218 = stablehlo.dynamic_slice %iterArg_31, %217, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %219 = stablehlo.reshape %218 : (tensor<1xf32>) -> tensor<f32>
        %c_62 = stablehlo.constant dense<1> : tensor<i32>
        %220 = stablehlo.subtract %213, %c_62 : tensor<i32>
        %c_63 = stablehlo.constant dense<0> : tensor<i32>
        %221 = stablehlo.compare LT, %220, %c_63, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %222 = stablehlo.convert %220 : tensor<i32>
        %c_64 = stablehlo.constant dense<4> : tensor<i32>
        %223 = stablehlo.add %222, %c_64 : tensor<i32>
        %224 = stablehlo.select %221, %223, %220 : tensor<i1>, tensor<i32>
        %225 = stablehlo.dynamic_slice %iterArg_32, %224, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %226 = stablehlo.reshape %225 : (tensor<1xf32>) -> tensor<f32>
        %227 = stablehlo.broadcast_in_dim %226, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %228 = stablehlo.divide %227, %212 : tensor<5xf32>
        %229 = stablehlo.broadcast_in_dim %219, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %230 = stablehlo.subtract %229, %228 : tensor<5xf32>
        %231 = stablehlo.subtract %230, %iterArg_33 : tensor<5xf32>
        %232 = stablehlo.compare LE, %231, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_65 = stablehlo.constant dense<1> : tensor<i32>
        %233 = stablehlo.broadcast_in_dim %c_65, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %234 = stablehlo.add %208, %233 : tensor<5xi32>
        %235 = func.call @_where(%232, %234, %208) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %236 = stablehlo.compare LE, %231, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %237 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %238 = stablehlo.minimum %231, %237 : tensor<5xf32>
        %239 = func.call @_where_0(%236, %238, %231) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_66 = stablehlo.constant dense<4> : tensor<i32>
        %240 = stablehlo.add %iterArg_35, %c_66 : tensor<i32>
        %c_67 = stablehlo.constant dense<0> : tensor<i32>
        %241 = stablehlo.compare LT, %240, %c_67, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %242 = stablehlo.convert %240 : tensor<i32>
        %c_68 = stablehlo.constant dense<5> : tensor<i32>
        %243 = stablehlo.add %242, %c_68 : tensor<i32>
        %244 = stablehlo.select %241, %243, %240 : tensor<i1>, tensor<i32>
        %245 = stablehlo.dynamic_slice %iterArg_31, %244, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %246 = stablehlo.reshape %245 : (tensor<1xf32>) -> tensor<f32>
        %c_69 = stablehlo.constant dense<1> : tensor<i32>
        %247 = stablehlo.subtract %240, %c_69 : tensor<i32>
        %c_70 = stablehlo.constant dense<0> : tensor<i32>
        %248 = stablehlo.compare LT, %247, %c_70, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %249 = stablehlo.convert %247 : tensor<i32>
        %c_71 = stablehlo.constant dense<4> : tensor<i32>
        %250 = stablehlo.add %249, %c_71 : tensor<i32>
        %251 = stablehlo.select %248, %250, %247 : tensor<i1>, tensor<i32>
        %252 = stablehlo.dynamic_slice %iterArg_32, %251, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %253 = stablehlo.reshape %252 : (tensor<1xf32>) -> tensor<f32>
        %254 = stablehlo.broadcast_in_dim %253, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %255 = stablehlo.divide %254, %239 : tensor<5xf32>
        %256 = stablehlo.broadcast_in_dim %246, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %257 = stablehlo.subtract %256, %255 : tensor<5xf32>
        %258 = stablehlo.subtract %257, %iterArg_33 : tensor<5xf32>
        %259 = stablehlo.compare LE, %258, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_72 = stablehlo.constant dense<1> : tensor<i32>
        %260 = stablehlo.broadcast_in_dim %c_72, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %261 = stablehlo.add %235, %260 : tensor<5xi32>
        %262 = func.call @_where(%259, %261, %235) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %263 = stablehlo.compare LE, %258, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %264 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %265 = stablehlo.minimum %258, %264 : tensor<5xf32>
        %266 = func.call @_where_0(%263, %265, %258) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_73 = stablehlo.constant dense<5> : tensor<i32>
        %267 = stablehlo.add %iterArg_35, %c_73 : tensor<i32>
        %c_74 = stablehlo.constant dense<0> : tensor<i32>
        %268 = stablehlo.compare LT, %267, %c_74, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %269 = stablehlo.convert %267 : tensor<i32>
        %c_75 = stablehlo.constant dense<5> : tensor<i32>
        %270 = stablehlo.add %269, %c_75 : tensor<i32>
        %271 = stablehlo.select %268, %270, %267 : tensor<i1>, tensor<i32>
        %272 = stablehlo.dynamic_slice %iterArg_31, %271, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %273 = stablehlo.reshape %272 : (tensor<1xf32>) -> tensor<f32>
        %c_76 = stablehlo.constant dense<1> : tensor<i32>
        %274 = stablehlo.subtract %267, %c_76 : tensor<i32>
        %c_77 = stablehlo.constant dense<0> : tensor<i32>
        %275 = stablehlo.compare LT, %274, %c_77, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %276 = stablehlo.convert %274 : tensor<i32>
        %c_78 = stablehlo.constant dense<4> : tensor<i32>
        %277 = stablehlo.add %276, %c_78 : tensor<i32>
        %278 = stablehlo.select %275, %277, %274 : tensor<i1>, tensor<i32>
        %279 = stablehlo.dynamic_slice %iterArg_32, %278, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %280 = stablehlo.reshape %279 : (tensor<1xf32>) -> tensor<f32>
        %281 = stablehlo.broadcast_in_dim %280, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %282 = stablehlo.divide %281, %266 : tensor<5xf32>
        %283 = stablehlo.broadcast_in_dim %273, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %284 = stablehlo.subtract %283, %282 : tensor<5xf32>
        %285 = stablehlo.subtract %284, %iterArg_33 : tensor<5xf32>
        %286 = stablehlo.compare LE, %285, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_79 = stablehlo.constant dense<1> : tensor<i32>
        %287 = stablehlo.broadcast_in_dim %c_79, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %288 = stablehlo.add %262, %287 : tensor<5xi32>
        %289 = func.call @_where(%286, %288, %262) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %290 = stablehlo.compare LE, %285, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %291 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %292 = stablehlo.minimum %285, %291 : tensor<5xf32>
        %293 = func.call @_where_0(%290, %292, %285) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_80 = stablehlo.constant dense<6> : tensor<i32>
        %294 = stablehlo.add %iterArg_35, %c_80 : tensor<i32>
        %c_81 = stablehlo.constant dense<0> : tensor<i32>
        %295 = stablehlo.compare LT, %294, %c_81, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %296 = stablehlo.convert %294 : tensor<i32>
        %c_82 = stablehlo.constant dense<5> : tensor<i32>
        %297 = stablehlo.add %296, %c_82 : tensor<i32>
        %298 = stablehlo.select %295, %297, %294 : tensor<i1>, tensor<i32>
        %299 = stablehlo.dynamic_slice %iterArg_31, %298, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %300 = stablehlo.reshape %299 : (tensor<1xf32>) -> tensor<f32>
        %c_83 = stablehlo.constant dense<1> : tensor<i32>
        %301 = stablehlo.subtract %294, %c_83 : tensor<i32>
        %c_84 = stablehlo.constant dense<0> : tensor<i32>
        %302 = stablehlo.compare LT, %301, %c_84, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %303 = stablehlo.convert %301 : tensor<i32>
        %c_85 = stablehlo.constant dense<4> : tensor<i32>
        %304 = stablehlo.add %303, %c_85 : tensor<i32>
        %305 = stablehlo.select %302, %304, %301 : tensor<i1>, tensor<i32>
        %306 = stablehlo.dynamic_slice %iterArg_32, %305, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %307 = stablehlo.reshape %306 : (tensor<1xf32>) -> tensor<f32>
        %308 = stablehlo.broadcast_in_dim %307, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %309 = stablehlo.divide %308, %293 : tensor<5xf32>
        %310 = stablehlo.broadcast_in_dim %300, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %311 = stablehlo.subtract %310, %309 : tensor<5xf32>
        %312 = stablehlo.subtract %311, %iterArg_33 : tensor<5xf32>
        %313 = stablehlo.compare LE, %312, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_86 = stablehlo.constant dense<1> : tensor<i32>
        %314 = stablehlo.broadcast_in_dim %c_86, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %315 = stablehlo.add %289, %314 : tensor<5xi32>
        %316 = func.call @_where(%313, %315, %289) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %317 = stablehlo.compare LE, %312, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %318 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %319 = stablehlo.minimum %312, %318 : tensor<5xf32>
        %320 = func.call @_where_0(%317, %319, %312) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_87 = stablehlo.constant dense<7> : tensor<i32>
        %321 = stablehlo.add %iterArg_35, %c_87 : tensor<i32>
        %c_88 = stablehlo.constant dense<0> : tensor<i32>
        %322 = stablehlo.compare LT, %321, %c_88, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %323 = stablehlo.convert %321 : tensor<i32>
        %c_89 = stablehlo.constant dense<5> : tensor<i32>
        %324 = stablehlo.add %323, %c_89 : tensor<i32>
        %325 = stablehlo.select %322, %324, %321 : tensor<i1>, tensor<i32>
        %326 = stablehlo.dynamic_slice %iterArg_31, %325, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %327 = stablehlo.reshape %326 : (tensor<1xf32>) -> tensor<f32>
        %c_90 = stablehlo.constant dense<1> : tensor<i32>
        %328 = stablehlo.subtract %321, %c_90 : tensor<i32>
        %c_91 = stablehlo.constant dense<0> : tensor<i32>
        %329 = stablehlo.compare LT, %328, %c_91, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %330 = stablehlo.convert %328 : tensor<i32>
        %c_92 = stablehlo.constant dense<4> : tensor<i32>
        %331 = stablehlo.add %330, %c_92 : tensor<i32>
        %332 = stablehlo.select %329, %331, %328 : tensor<i1>, tensor<i32>
        %333 = stablehlo.dynamic_slice %iterArg_32, %332, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %334 = stablehlo.reshape %333 : (tensor<1xf32>) -> tensor<f32>
        %335 = stablehlo.broadcast_in_dim %334, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %336 = stablehlo.divide %335, %320 : tensor<5xf32>
        %337 = stablehlo.broadcast_in_dim %327, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %338 = stablehlo.subtract %337, %336 : tensor<5xf32>
        %339 = stablehlo.subtract %338, %iterArg_33 : tensor<5xf32>
        %340 = stablehlo.compare LE, %339, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_93 = stablehlo.constant dense<1> : tensor<i32>
        %341 = stablehlo.broadcast_in_dim %c_93, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %342 = stablehlo.add %316, %341 : tensor<5xi32>
        %343 = func.call @_where(%340, %342, %316) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %344 = stablehlo.compare LE, %339, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %345 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %346 = stablehlo.minimum %339, %345 : tensor<5xf32>
        %347 = func.call @_where_0(%344, %346, %339) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_94 = stablehlo.constant dense<8> : tensor<i32>
        %348 = stablehlo.add %iterArg_35, %c_94 : tensor<i32>
        %c_95 = stablehlo.constant dense<0> : tensor<i32>
        %349 = stablehlo.compare LT, %348, %c_95, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %350 = stablehlo.convert %348 : tensor<i32>
        %c_96 = stablehlo.constant dense<5> : tensor<i32>
        %351 = stablehlo.add %350, %c_96 : tensor<i32>
        %352 = stablehlo.select %349, %351, %348 : tensor<i1>, tensor<i32>
        %353 = stablehlo.dynamic_slice %iterArg_31, %352, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %354 = stablehlo.reshape %353 : (tensor<1xf32>) -> tensor<f32>
        %c_97 = stablehlo.constant dense<1> : tensor<i32>
        %355 = stablehlo.subtract %348, %c_97 : tensor<i32>
        %c_98 = stablehlo.constant dense<0> : tensor<i32>
        %356 = stablehlo.compare LT, %355, %c_98, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %357 = stablehlo.convert %355 : tensor<i32>
        %c_99 = stablehlo.constant dense<4> : tensor<i32>
        %358 = stablehlo.add %357, %c_99 : tensor<i32>
        %359 = stablehlo.select %356, %358, %355 : tensor<i1>, tensor<i32>
        %360 = stablehlo.dynamic_slice %iterArg_32, %359, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %361 = stablehlo.reshape %360 : (tensor<1xf32>) -> tensor<f32>
        %362 = stablehlo.broadcast_in_dim %361, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %363 = stablehlo.divide %362, %347 : tensor<5xf32>
        %364 = stablehlo.broadcast_in_dim %354, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %365 = stablehlo.subtract %364, %363 : tensor<5xf32>
        %366 = stablehlo.subtract %365, %iterArg_33 : tensor<5xf32>
        %367 = stablehlo.compare LE, %366, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_100 = stablehlo.constant dense<1> : tensor<i32>
        %368 = stablehlo.broadcast_in_dim %c_100, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %369 = stablehlo.add %343, %368 : tensor<5xi32>
        %370 = func.call @_where(%367, %369, %343) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %371 = stablehlo.compare LE, %366, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %372 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %373 = stablehlo.minimum %366, %372 : tensor<5xf32>
        %374 = func.call @_where_0(%371, %373, %366) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_101 = stablehlo.constant dense<9> : tensor<i32>
        %375 = stablehlo.add %iterArg_35, %c_101 : tensor<i32>
        %c_102 = stablehlo.constant dense<0> : tensor<i32>
        %376 = stablehlo.compare LT, %375, %c_102, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %377 = stablehlo.convert %375 : tensor<i32>
        %c_103 = stablehlo.constant dense<5> : tensor<i32>
        %378 = stablehlo.add %377, %c_103 : tensor<i32>
        %379 = stablehlo.select %376, %378, %375 : tensor<i1>, tensor<i32>
        %380 = stablehlo.dynamic_slice %iterArg_31, %379, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %381 = stablehlo.reshape %380 : (tensor<1xf32>) -> tensor<f32>
        %c_104 = stablehlo.constant dense<1> : tensor<i32>
        %382 = stablehlo.subtract %375, %c_104 : tensor<i32>
        %c_105 = stablehlo.constant dense<0> : tensor<i32>
        %383 = stablehlo.compare LT, %382, %c_105, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %384 = stablehlo.convert %382 : tensor<i32>
        %c_106 = stablehlo.constant dense<4> : tensor<i32>
        %385 = stablehlo.add %384, %c_106 : tensor<i32>
        %386 = stablehlo.select %383, %385, %382 : tensor<i1>, tensor<i32>
        %387 = stablehlo.dynamic_slice %iterArg_32, %386, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %388 = stablehlo.reshape %387 : (tensor<1xf32>) -> tensor<f32>
        %389 = stablehlo.broadcast_in_dim %388, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %390 = stablehlo.divide %389, %374 : tensor<5xf32>
        %391 = stablehlo.broadcast_in_dim %381, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %392 = stablehlo.subtract %391, %390 : tensor<5xf32>
        %393 = stablehlo.subtract %392, %iterArg_33 : tensor<5xf32>
        %394 = stablehlo.compare LE, %393, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_107 = stablehlo.constant dense<1> : tensor<i32>
        %395 = stablehlo.broadcast_in_dim %c_107, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %396 = stablehlo.add %370, %395 : tensor<5xi32>
        %397 = func.call @_where(%394, %396, %370) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %398 = stablehlo.compare LE, %393, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %399 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %400 = stablehlo.minimum %393, %399 : tensor<5xf32>
        %401 = func.call @_where_0(%398, %400, %393) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_108 = stablehlo.constant dense<10> : tensor<i32>
        %402 = stablehlo.add %iterArg_35, %c_108 : tensor<i32>
        %c_109 = stablehlo.constant dense<0> : tensor<i32>
        %403 = stablehlo.compare LT, %402, %c_109, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %404 = stablehlo.convert %402 : tensor<i32>
        %c_110 = stablehlo.constant dense<5> : tensor<i32>
        %405 = stablehlo.add %404, %c_110 : tensor<i32>
        %406 = stablehlo.select %403, %405, %402 : tensor<i1>, tensor<i32>
        %407 = stablehlo.dynamic_slice %iterArg_31, %406, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %408 = stablehlo.reshape %407 : (tensor<1xf32>) -> tensor<f32>
        %c_111 = stablehlo.constant dense<1> : tensor<i32>
        %409 = stablehlo.subtract %402, %c_111 : tensor<i32>
        %c_112 = stablehlo.constant dense<0> : tensor<i32>
        %410 = stablehlo.compare LT, %409, %c_112, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %411 = stablehlo.convert %409 : tensor<i32>
        %c_113 = stablehlo.constant dense<4> : tensor<i32>
        %412 = stablehlo.add %411, %c_113 : tensor<i32>
        %413 = stablehlo.select %410, %412, %409 : tensor<i1>, tensor<i32>
        %414 = stablehlo.dynamic_slice %iterArg_32, %413, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %415 = stablehlo.reshape %414 : (tensor<1xf32>) -> tensor<f32>
        %416 = stablehlo.broadcast_in_dim %415, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %417 = stablehlo.divide %416, %401 : tensor<5xf32>
        %418 = stablehlo.broadcast_in_dim %408, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %419 = stablehlo.subtract %418, %417 : tensor<5xf32>
        %420 = stablehlo.subtract %419, %iterArg_33 : tensor<5xf32>
        %421 = stablehlo.compare LE, %420, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_114 = stablehlo.constant dense<1> : tensor<i32>
        %422 = stablehlo.broadcast_in_dim %c_114, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %423 = stablehlo.add %397, %422 : tensor<5xi32>
        %424 = func.call @_where(%421, %423, %397) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %425 = stablehlo.compare LE, %420, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %426 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %427 = stablehlo.minimum %420, %426 : tensor<5xf32>
        %428 = func.call @_where_0(%425, %427, %420) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_115 = stablehlo.constant dense<11> : tensor<i32>
        %429 = stablehlo.add %iterArg_35, %c_115 : tensor<i32>
        %c_116 = stablehlo.constant dense<0> : tensor<i32>
        %430 = stablehlo.compare LT, %429, %c_116, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %431 = stablehlo.convert %429 : tensor<i32>
        %c_117 = stablehlo.constant dense<5> : tensor<i32>
        %432 = stablehlo.add %431, %c_117 : tensor<i32>
        %433 = stablehlo.select %430, %432, %429 : tensor<i1>, tensor<i32>
        %434 = stablehlo.dynamic_slice %iterArg_31, %433, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %435 = stablehlo.reshape %434 : (tensor<1xf32>) -> tensor<f32>
        %c_118 = stablehlo.constant dense<1> : tensor<i32>
        %436 = stablehlo.subtract %429, %c_118 : tensor<i32>
        %c_119 = stablehlo.constant dense<0> : tensor<i32>
        %437 = stablehlo.compare LT, %436, %c_119, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %438 = stablehlo.convert %436 : tensor<i32>
        %c_120 = stablehlo.constant dense<4> : tensor<i32>
        %439 = stablehlo.add %438, %c_120 : tensor<i32>
        %440 = stablehlo.select %437, %439, %436 : tensor<i1>, tensor<i32>
        %441 = stablehlo.dynamic_slice %iterArg_32, %440, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %442 = stablehlo.reshape %441 : (tensor<1xf32>) -> tensor<f32>
        %443 = stablehlo.broadcast_in_dim %442, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %444 = stablehlo.divide %443, %428 : tensor<5xf32>
        %445 = stablehlo.broadcast_in_dim %435, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %446 = stablehlo.subtract %445, %444 : tensor<5xf32>
        %447 = stablehlo.subtract %446, %iterArg_33 : tensor<5xf32>
        %448 = stablehlo.compare LE, %447, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_121 = stablehlo.constant dense<1> : tensor<i32>
        %449 = stablehlo.broadcast_in_dim %c_121, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %450 = stablehlo.add %424, %449 : tensor<5xi32>
        %451 = func.call @_where(%448, %450, %424) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %452 = stablehlo.compare LE, %447, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %453 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %454 = stablehlo.minimum %447, %453 : tensor<5xf32>
        %455 = func.call @_where_0(%452, %454, %447) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_122 = stablehlo.constant dense<12> : tensor<i32>
        %456 = stablehlo.add %iterArg_35, %c_122 : tensor<i32>
        %c_123 = stablehlo.constant dense<0> : tensor<i32>
        %457 = stablehlo.compare LT, %456, %c_123, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %458 = stablehlo.convert %456 : tensor<i32>
        %c_124 = stablehlo.constant dense<5> : tensor<i32>
        %459 = stablehlo.add %458, %c_124 : tensor<i32>
        %460 = stablehlo.select %457, %459, %456 : tensor<i1>, tensor<i32>
        %461 = stablehlo.dynamic_slice %iterArg_31, %460, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %462 = stablehlo.reshape %461 : (tensor<1xf32>) -> tensor<f32>
        %c_125 = stablehlo.constant dense<1> : tensor<i32>
        %463 = stablehlo.subtract %456, %c_125 : tensor<i32>
        %c_126 = stablehlo.constant dense<0> : tensor<i32>
        %464 = stablehlo.compare LT, %463, %c_126, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %465 = stablehlo.convert %463 : tensor<i32>
        %c_127 = stablehlo.constant dense<4> : tensor<i32>
        %466 = stablehlo.add %465, %c_127 : tensor<i32>
        %467 = stablehlo.select %464, %466, %463 : tensor<i1>, tensor<i32>
        %468 = stablehlo.dynamic_slice %iterArg_32, %467, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %469 = stablehlo.reshape %468 : (tensor<1xf32>) -> tensor<f32>
        %470 = stablehlo.broadcast_in_dim %469, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %471 = stablehlo.divide %470, %455 : tensor<5xf32>
        %472 = stablehlo.broadcast_in_dim %462, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %473 = stablehlo.subtract %472, %471 : tensor<5xf32>
        %474 = stablehlo.subtract %473, %iterArg_33 : tensor<5xf32>
        %475 = stablehlo.compare LE, %474, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_128 = stablehlo.constant dense<1> : tensor<i32>
        %476 = stablehlo.broadcast_in_dim %c_128, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %477 = stablehlo.add %451, %476 : tensor<5xi32>
        %478 = func.call @_where(%475, %477, %451) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %479 = stablehlo.compare LE, %474, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %480 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %481 = stablehlo.minimum %474, %480 : tensor<5xf32>
        %482 = func.call @_where_0(%479, %481, %474) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_129 = stablehlo.constant dense<13> : tensor<i32>
        %483 = stablehlo.add %iterArg_35, %c_129 : tensor<i32>
        %c_130 = stablehlo.constant dense<0> : tensor<i32>
        %484 = stablehlo.compare LT, %483, %c_130, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %485 = stablehlo.convert %483 : tensor<i32>
        %c_131 = stablehlo.constant dense<5> : tensor<i32>
        %486 = stablehlo.add %485, %c_131 : tensor<i32>
        %487 = stablehlo.select %484, %486, %483 : tensor<i1>, tensor<i32>
        %488 = stablehlo.dynamic_slice %iterArg_31, %487, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %489 = stablehlo.reshape %488 : (tensor<1xf32>) -> tensor<f32>
        %c_132 = stablehlo.constant dense<1> : tensor<i32>
        %490 = stablehlo.subtract %483, %c_132 : tensor<i32>
        %c_133 = stablehlo.constant dense<0> : tensor<i32>
        %491 = stablehlo.compare LT, %490, %c_133, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %492 = stablehlo.convert %490 : tensor<i32>
        %c_134 = stablehlo.constant dense<4> : tensor<i32>
        %493 = stablehlo.add %492, %c_134 : tensor<i32>
        %494 = stablehlo.select %491, %493, %490 : tensor<i1>, tensor<i32>
        %495 = stablehlo.dynamic_slice %iterArg_32, %494, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %496 = stablehlo.reshape %495 : (tensor<1xf32>) -> tensor<f32>
        %497 = stablehlo.broadcast_in_dim %496, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %498 = stablehlo.divide %497, %482 : tensor<5xf32>
        %499 = stablehlo.broadcast_in_dim %489, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %500 = stablehlo.subtract %499, %498 : tensor<5xf32>
        %501 = stablehlo.subtract %500, %iterArg_33 : tensor<5xf32>
        %502 = stablehlo.compare LE, %501, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_135 = stablehlo.constant dense<1> : tensor<i32>
        %503 = stablehlo.broadcast_in_dim %c_135, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %504 = stablehlo.add %478, %503 : tensor<5xi32>
        %505 = func.call @_where(%502, %504, %478) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %506 = stablehlo.compare LE, %501, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %507 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %508 = stablehlo.minimum %501, %507 : tensor<5xf32>
        %509 = func.call @_where_0(%506, %508, %501) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_136 = stablehlo.constant dense<14> : tensor<i32>
        %510 = stablehlo.add %iterArg_35, %c_136 : tensor<i32>
        %c_137 = stablehlo.constant dense<0> : tensor<i32>
        %511 = stablehlo.compare LT, %510, %c_137, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %512 = stablehlo.convert %510 : tensor<i32>
        %c_138 = stablehlo.constant dense<5> : tensor<i32>
        %513 = stablehlo.add %512, %c_138 : tensor<i32>
        %514 = stablehlo.select %511, %513, %510 : tensor<i1>, tensor<i32>
        %515 = stablehlo.dynamic_slice %iterArg_31, %514, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %516 = stablehlo.reshape %515 : (tensor<1xf32>) -> tensor<f32>
        %c_139 = stablehlo.constant dense<1> : tensor<i32>
        %517 = stablehlo.subtract %510, %c_139 : tensor<i32>
        %c_140 = stablehlo.constant dense<0> : tensor<i32>
        %518 = stablehlo.compare LT, %517, %c_140, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %519 = stablehlo.convert %517 : tensor<i32>
        %c_141 = stablehlo.constant dense<4> : tensor<i32>
        %520 = stablehlo.add %519, %c_141 : tensor<i32>
        %521 = stablehlo.select %518, %520, %517 : tensor<i1>, tensor<i32>
        %522 = stablehlo.dynamic_slice %iterArg_32, %521, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %523 = stablehlo.reshape %522 : (tensor<1xf32>) -> tensor<f32>
        %524 = stablehlo.broadcast_in_dim %523, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %525 = stablehlo.divide %524, %509 : tensor<5xf32>
        %526 = stablehlo.broadcast_in_dim %516, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %527 = stablehlo.subtract %526, %525 : tensor<5xf32>
        %528 = stablehlo.subtract %527, %iterArg_33 : tensor<5xf32>
        %529 = stablehlo.compare LE, %528, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_142 = stablehlo.constant dense<1> : tensor<i32>
        %530 = stablehlo.broadcast_in_dim %c_142, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %531 = stablehlo.add %505, %530 : tensor<5xi32>
        %532 = func.call @_where(%529, %531, %505) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %533 = stablehlo.compare LE, %528, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %534 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %535 = stablehlo.minimum %528, %534 : tensor<5xf32>
        %536 = func.call @_where_0(%533, %535, %528) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_143 = stablehlo.constant dense<15> : tensor<i32>
        %537 = stablehlo.add %iterArg_35, %c_143 : tensor<i32>
        %c_144 = stablehlo.constant dense<0> : tensor<i32>
        %538 = stablehlo.compare LT, %537, %c_144, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %539 = stablehlo.convert %537 : tensor<i32>
        %c_145 = stablehlo.constant dense<5> : tensor<i32>
        %540 = stablehlo.add %539, %c_145 : tensor<i32>
        %541 = stablehlo.select %538, %540, %537 : tensor<i1>, tensor<i32>
        %542 = stablehlo.dynamic_slice %iterArg_31, %541, sizes = [1] : (tensor<5xf32>, tensor<i32>) -> tensor<1xf32>
        %543 = stablehlo.reshape %542 : (tensor<1xf32>) -> tensor<f32>
        %c_146 = stablehlo.constant dense<1> : tensor<i32>
        %544 = stablehlo.subtract %537, %c_146 : tensor<i32>
        %c_147 = stablehlo.constant dense<0> : tensor<i32>
        %545 = stablehlo.compare LT, %544, %c_147, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        %546 = stablehlo.convert %544 : tensor<i32>
        %c_148 = stablehlo.constant dense<4> : tensor<i32>
        %547 = stablehlo.add %546, %c_148 : tensor<i32>
        %548 = stablehlo.select %545, %547, %544 : tensor<i1>, tensor<i32>
        %549 = stablehlo.dynamic_slice %iterArg_32, %548, sizes = [1] : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %550 = stablehlo.reshape %549 : (tensor<1xf32>) -> tensor<f32>
        %551 = stablehlo.broadcast_in_dim %550, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %552 = stablehlo.divide %551, %536 : tensor<5xf32>
        %553 = stablehlo.broadcast_in_dim %543, dims = [] : (tensor<f32>) -> tensor<5xf32>
        %554 = stablehlo.subtract %553, %552 : tensor<5xf32>
        %555 = stablehlo.subtract %554, %iterArg_33 : tensor<5xf32>
        %556 = stablehlo.compare LE, %555, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %c_149 = stablehlo.constant dense<1> : tensor<i32>
        %557 = stablehlo.broadcast_in_dim %c_149, dims = [] : (tensor<i32>) -> tensor<5xi32>
        %558 = stablehlo.add %532, %557 : tensor<5xi32>
        %559 = func.call @_where(%556, %558, %532) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
        %560 = stablehlo.compare LE, %555, %iterArg_34, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
        %561 = stablehlo.negate %iterArg_34 : tensor<5xf32>
        %562 = stablehlo.minimum %555, %561 : tensor<5xf32>
        %563 = func.call @_where_0(%560, %562, %555) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
        %c_150 = stablehlo.constant dense<16> : tensor<i32>
        %564 = stablehlo.add %iterArg_35, %c_150 : tensor<i32>
        stablehlo.return %iterArg_31, %iterArg_32, %iterArg_33, %iterArg_34, %564, %563, %559 : tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<5xi32>
      }
      %124 = stablehlo.compare LE, %123#6, %iterArg_16, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
      %125 = func.call @_where_0(%124, %iterArg_19, %iterArg_18) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %126 = stablehlo.compare GT, %123#6, %iterArg_16, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
      %127 = func.call @_where_0(%126, %iterArg_19, %iterArg_20) : (tensor<5xi1>, tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
      %128 = stablehlo.add %125, %127 : tensor<5xf32>
      %cst_29 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %129 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %130 = stablehlo.multiply %129, %128 : tensor<5xf32>
      %c_30 = stablehlo.constant dense<1> : tensor<i32>
      %131 = stablehlo.add %iterArg_17, %c_30 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %131, %125, %130, %127 : tensor<f32>, tensor<5xf32>, tensor<5xf32>, tensor<4xf32>, tensor<5xf32>, tensor<5xi32>, tensor<i32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
    }
    return %40#8 : tensor<5xf32>
  }
  func.func private @_where(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>, %arg2: tensor<5xi32>) -> tensor<5xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xi32>
    return %0 : tensor<5xi32>
  }
  func.func private @_where_0(%arg0: tensor<5xi1>, %arg1: tensor<5xf32>, %arg2: tensor<5xf32>) -> tensor<5xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xf32>
    return %0 : tensor<5xf32>
  }
}
