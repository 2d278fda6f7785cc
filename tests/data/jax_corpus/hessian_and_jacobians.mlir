module @jit_hessian_and_jacobians attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<2x4xf32> {jax.result_info = "result[1]"}, tensor<2x4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %6 = stablehlo.slice %5 [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %7 = stablehlo.convert %6 : tensor<4x4xf32>
    %8 = stablehlo.sine %arg0 : tensor<4xf32>
    %9 = stablehlo.cosine %arg0 : tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %12 = stablehlo.multiply %7, %11 : tensor<4x4xf32>
    %13 = stablehlo.cosine %arg0 : tensor<4xf32>
    %14 = stablehlo.sine %arg0 : tensor<4xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %17 = stablehlo.multiply %7, %16 : tensor<4x4xf32>
    %18 = stablehlo.negate %17 : tensor<4x4xf32>
    %19 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %21 = stablehlo.multiply %20, %arg0 : tensor<4xf32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %24 = stablehlo.multiply %7, %23 : tensor<4x4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %26 = stablehlo.multiply %25, %arg0 : tensor<4xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %28 = stablehlo.multiply %27, %7 : tensor<4x4xf32>
    %29 = stablehlo.multiply %8, %19 : tensor<4xf32>
    %30 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %32 = stablehlo.multiply %12, %31 : tensor<4x4xf32>
    %33 = stablehlo.broadcast_in_dim %8, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %35 = stablehlo.multiply %34, %24 : tensor<4x4xf32>
    %36 = stablehlo.add %32, %35 : tensor<4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%29 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %38 = stablehlo.reduce(%36 init: %cst_3) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %39 = stablehlo.slice %arg0 [0:2] : (tensor<4xf32>) -> tensor<2xf32>
    %40 = stablehlo.slice %7 [0:4, 0:2] : (tensor<4x4xf32>) -> tensor<4x2xf32>
    %41 = stablehlo.slice %arg0 [2:4] : (tensor<4xf32>) -> tensor<2xf32>
    %42 = stablehlo.slice %7 [0:4, 2:4] : (tensor<4x4xf32>) -> tensor<4x2xf32>
    %43 = stablehlo.multiply %39, %41 : tensor<2xf32>
    %44 = stablehlo.broadcast_in_dim %41, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %45 = stablehlo.broadcast_in_dim %44, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<4x2xf32>
    %46 = stablehlo.multiply %40, %45 : tensor<4x2xf32>
    %47 = stablehlo.broadcast_in_dim %39, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1] : (tensor<1x2xf32>) -> tensor<4x2xf32>
    %49 = stablehlo.multiply %48, %42 : tensor<4x2xf32>
    %50 = stablehlo.add %46, %49 : tensor<4x2xf32>
    %51 = stablehlo.slice %43 [0:1] : (tensor<2xf32>) -> tensor<1xf32>
    %52 = stablehlo.slice %50 [0:4, 0:1] : (tensor<4x2xf32>) -> tensor<4x1xf32>
    %53 = stablehlo.slice %43 [1:2] : (tensor<2xf32>) -> tensor<1xf32>
    %54 = stablehlo.slice %50 [0:4, 1:2] : (tensor<4x2xf32>) -> tensor<4x1xf32>
    %55 = stablehlo.multiply %51, %53 : tensor<1xf32>
    %56 = stablehlo.broadcast_in_dim %53, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %57 = stablehlo.broadcast_in_dim %56, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x1xf32>
    %58 = stablehlo.multiply %52, %57 : tensor<4x1xf32>
    %59 = stablehlo.broadcast_in_dim %51, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %60 = stablehlo.broadcast_in_dim %59, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x1xf32>
    %61 = stablehlo.multiply %60, %54 : tensor<4x1xf32>
    %62 = stablehlo.add %58, %61 : tensor<4x1xf32>
    %63 = stablehlo.reshape %55 : (tensor<1xf32>) -> tensor<f32>
    %64 = stablehlo.reshape %62 : (tensor<4x1xf32>) -> tensor<4xf32>
    %65 = stablehlo.add %37, %63 : tensor<f32>
    %66 = stablehlo.add %38, %64 : tensor<4xf32>
    %67 = stablehlo.iota dim = 0 : tensor<1x1xi32>
    %68 = stablehlo.iota dim = 1 : tensor<1x1xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %69 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<1x1xi32>
    %70 = stablehlo.add %67, %69 : tensor<1x1xi32>
    %71 = stablehlo.compare EQ, %70, %68, SIGNED : (tensor<1x1xi32>, tensor<1x1xi32>) -> tensor<1x1xi1>
    %72 = stablehlo.convert %71 : (tensor<1x1xi1>) -> tensor<1x1xf32>
    %73 = stablehlo.slice %72 [0:1, 0:1] : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %74 = stablehlo.reshape %73 : (tensor<1x1xf32>) -> tensor<1xf32>
    %75 = stablehlo.convert %74 : tensor<1xf32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<1xf32>) -> tensor<1x1xf32>
    %77 = stablehlo.broadcast_in_dim %51, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %78 = stablehlo.broadcast_in_dim %52, dims = [0, 2] : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
    %79 = stablehlo.multiply %77, %76 : tensor<1x1xf32>
    %80 = stablehlo.broadcast_in_dim %76, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %81 = stablehlo.broadcast_in_dim %80, dims = [0, 1, 2] : (tensor<1x1x1xf32>) -> tensor<4x1x1xf32>
    %82 = stablehlo.multiply %78, %81 : tensor<4x1x1xf32>
    %83 = stablehlo.broadcast_in_dim %53, dims = [1] : (tensor<1xf32>) -> tensor<1x1xf32>
    %84 = stablehlo.broadcast_in_dim %54, dims = [0, 2] : (tensor<4x1xf32>) -> tensor<4x1x1xf32>
    %85 = stablehlo.multiply %76, %83 : tensor<1x1xf32>
    %86 = stablehlo.broadcast_in_dim %76, dims = [1, 2] : (tensor<1x1xf32>) -> tensor<1x1x1xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1, 2] : (tensor<1x1x1xf32>) -> tensor<4x1x1xf32>
    %88 = stablehlo.multiply %87, %84 : tensor<4x1x1xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %89 = stablehlo.pad %79, %cst_5, low = [0, 1], high = [0, 0], interior = [0, 0] : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x2xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %90 = stablehlo.pad %82, %cst_6, low = [0, 0, 1], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4x1x2xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %91 = stablehlo.pad %85, %cst_7, low = [0, 0], high = [0, 1], interior = [0, 0] : (tensor<1x1xf32>, tensor<f32>) -> tensor<1x2xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %92 = stablehlo.pad %88, %cst_8, low = [0, 0, 0], high = [0, 0, 1], interior = [0, 0, 0] : (tensor<4x1x1xf32>, tensor<f32>) -> tensor<4x1x2xf32>
    %93 = stablehlo.add %89, %91 : tensor<1x2xf32>
    %94 = stablehlo.add %90, %92 : tensor<4x1x2xf32>
    %95 = stablehlo.broadcast_in_dim %39, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %96 = stablehlo.broadcast_in_dim %40, dims = [0, 2] : (tensor<4x2xf32>) -> tensor<4x1x2xf32>
    %97 = stablehlo.multiply %95, %93 : tensor<1x2xf32>
    %98 = stablehlo.broadcast_in_dim %93, dims = [1, 2] : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
    %99 = stablehlo.broadcast_in_dim %98, dims = [0, 1, 2] : (tensor<1x1x2xf32>) -> tensor<4x1x2xf32>
    %100 = stablehlo.multiply %96, %99 : tensor<4x1x2xf32>
    %101 = stablehlo.broadcast_in_dim %95, dims = [1, 2] : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2] : (tensor<1x1x2xf32>) -> tensor<4x1x2xf32>
    %103 = stablehlo.multiply %102, %94 : tensor<4x1x2xf32>
    %104 = stablehlo.add %100, %103 : tensor<4x1x2xf32>
    %105 = stablehlo.broadcast_in_dim %41, dims = [1] : (tensor<2xf32>) -> tensor<1x2xf32>
    %106 = stablehlo.broadcast_in_dim %42, dims = [0, 2] : (tensor<4x2xf32>) -> tensor<4x1x2xf32>
    %107 = stablehlo.multiply %93, %105 : tensor<1x2xf32>
    %108 = stablehlo.broadcast_in_dim %105, dims = [1, 2] : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
    %109 = stablehlo.broadcast_in_dim %108, dims = [0, 1, 2] : (tensor<1x1x2xf32>) -> tensor<4x1x2xf32>
    %110 = stablehlo.multiply %94, %109 : tensor<4x1x2xf32>
    %111 = stablehlo.broadcast_in_dim %93, dims = [1, 2] : (tensor<1x2xf32>) -> tensor<1x1x2xf32>
    %112 = stablehlo.broadcast_in_dim %111, dims = [0, 1, 2] : (tensor<1x1x2xf32>) -> tensor<4x1x2xf32>
    %113 = stablehlo.multiply %112, %106 : tensor<4x1x2xf32>
    %114 = stablehlo.add %110, %113 : tensor<4x1x2xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %115 = stablehlo.pad %97, %cst_9, low = [0, 2], high = [0, 0], interior = [0, 0] : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x4xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %116 = stablehlo.pad %104, %cst_10, low = [0, 0, 2], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<4x1x2xf32>, tensor<f32>) -> tensor<4x1x4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.pad %107, %cst_11, low = [0, 0], high = [0, 2], interior = [0, 0] : (tensor<1x2xf32>, tensor<f32>) -> tensor<1x4xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %118 = stablehlo.pad %114, %cst_12, low = [0, 0, 0], high = [0, 0, 2], interior = [0, 0, 0] : (tensor<4x1x2xf32>, tensor<f32>) -> tensor<4x1x4xf32>
    %119 = stablehlo.add %115, %117 : tensor<1x4xf32>
    %120 = stablehlo.add %116, %118 : tensor<4x1x4xf32>
    %121 = stablehlo.broadcast_in_dim %75, dims = [0] : (tensor<1xf32>) -> tensor<1x4xf32>
    %122 = stablehlo.broadcast_in_dim %8, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %123 = stablehlo.broadcast_in_dim %12, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %124 = stablehlo.multiply %122, %121 : tensor<1x4xf32>
    %125 = stablehlo.broadcast_in_dim %121, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %126 = stablehlo.broadcast_in_dim %125, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %127 = stablehlo.multiply %123, %126 : tensor<4x1x4xf32>
    %128 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %129 = stablehlo.broadcast_in_dim %24, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %130 = stablehlo.multiply %121, %128 : tensor<1x4xf32>
    %131 = stablehlo.broadcast_in_dim %121, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %132 = stablehlo.broadcast_in_dim %131, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %133 = stablehlo.multiply %132, %129 : tensor<4x1x4xf32>
    %134 = stablehlo.broadcast_in_dim %26, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %135 = stablehlo.broadcast_in_dim %28, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %136 = stablehlo.multiply %124, %134 : tensor<1x4xf32>
    %137 = stablehlo.broadcast_in_dim %134, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %138 = stablehlo.broadcast_in_dim %137, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %139 = stablehlo.multiply %127, %138 : tensor<4x1x4xf32>
    %140 = stablehlo.broadcast_in_dim %124, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %141 = stablehlo.broadcast_in_dim %140, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %142 = stablehlo.multiply %141, %135 : tensor<4x1x4xf32>
    %143 = stablehlo.add %139, %142 : tensor<4x1x4xf32>
    %144 = stablehlo.add %119, %136 : tensor<1x4xf32>
    %145 = stablehlo.add %120, %143 : tensor<4x1x4xf32>
    %146 = stablehlo.broadcast_in_dim %13, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %147 = stablehlo.broadcast_in_dim %18, dims = [0, 2] : (tensor<4x4xf32>) -> tensor<4x1x4xf32>
    %148 = stablehlo.multiply %130, %146 : tensor<1x4xf32>
    %149 = stablehlo.broadcast_in_dim %146, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %150 = stablehlo.broadcast_in_dim %149, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %151 = stablehlo.multiply %133, %150 : tensor<4x1x4xf32>
    %152 = stablehlo.broadcast_in_dim %130, dims = [1, 2] : (tensor<1x4xf32>) -> tensor<1x1x4xf32>
    %153 = stablehlo.broadcast_in_dim %152, dims = [0, 1, 2] : (tensor<1x1x4xf32>) -> tensor<4x1x4xf32>
    %154 = stablehlo.multiply %153, %147 : tensor<4x1x4xf32>
    %155 = stablehlo.add %151, %154 : tensor<4x1x4xf32>
    %156 = stablehlo.add %144, %148 : tensor<1x4xf32>
    %157 = stablehlo.add %145, %155 : tensor<4x1x4xf32>
    %158 = stablehlo.slice %156 [0:1, 0:4] : (tensor<1x4xf32>) -> tensor<1x4xf32>
    %159 = stablehlo.slice %157 [0:4, 0:1, 0:4] : (tensor<4x1x4xf32>) -> tensor<4x1x4xf32>
    %160 = stablehlo.reshape %158 : (tensor<1x4xf32>) -> tensor<4xf32>
    %161 = stablehlo.reshape %159 : (tensor<4x1x4xf32>) -> tensor<4x4xf32>
    %162 = stablehlo.transpose %161, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %163 = stablehlo.slice %162 [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %164 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %165 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %166 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %167 = stablehlo.add %164, %166 : tensor<4x4xi32>
    %168 = stablehlo.compare EQ, %167, %165, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %169 = stablehlo.convert %168 : (tensor<4x4xi1>) -> tensor<4x4xf32>
    %170 = stablehlo.slice %169 [0:4, 0:4] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %171 = stablehlo.convert %170 : tensor<4x4xf32>
    %172 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %173 = stablehlo.multiply %172, %arg0 : tensor<4xf32>
    %174 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %cst_14 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %175 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %176 = stablehlo.multiply %175, %174 : tensor<4xf32>
    %177 = stablehlo.broadcast_in_dim %176, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %179 = stablehlo.multiply %171, %178 : tensor<4x4xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %180 = stablehlo.reduce(%173 init: %cst_15) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %181 = stablehlo.reduce(%179 init: %cst_16) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %182 = stablehlo.cosine %arg0 : tensor<4xf32>
    %183 = stablehlo.sine %arg0 : tensor<4xf32>
    %184 = stablehlo.broadcast_in_dim %183, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %185 = stablehlo.broadcast_in_dim %184, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<4x4xf32>
    %186 = stablehlo.multiply %171, %185 : tensor<4x4xf32>
    %187 = stablehlo.negate %186 : tensor<4x4xf32>
    %188 = stablehlo.dot_general %arg0, %182, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %189 = stablehlo.dot_general %171, %182, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %190 = stablehlo.dot_general %arg0, %187, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
    %191 = stablehlo.add %189, %190 : tensor<4xf32>
    %192 = stablehlo.broadcast_in_dim %180, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %193 = stablehlo.broadcast_in_dim %188, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %194 = stablehlo.concatenate %192, %193, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    %195 = stablehlo.broadcast_in_dim %181, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %196 = stablehlo.broadcast_in_dim %191, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %197 = stablehlo.concatenate %195, %196, dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    %198 = stablehlo.slice %197 [0:2, 0:4] : (tensor<2x4xf32>) -> tensor<2x4xf32>
    %199 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %200 = stablehlo.multiply %199, %arg0 : tensor<4xf32>
    %201 = stablehlo.multiply %arg0, %arg0 : tensor<4xf32>
    %cst_17 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %202 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %203 = stablehlo.multiply %202, %201 : tensor<4xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %204 = stablehlo.reduce(%200 init: %cst_18) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %205 = stablehlo.cosine %arg0 : tensor<4xf32>
    %206 = stablehlo.sine %arg0 : tensor<4xf32>
    %207 = stablehlo.dot_general %arg0, %205, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
    %208 = stablehlo.broadcast_in_dim %204, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %209 = stablehlo.broadcast_in_dim %207, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %210 = stablehlo.concatenate %208, %209, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    %211 = stablehlo.iota dim = 0 : tensor<2x2xi32>
    %212 = stablehlo.iota dim = 1 : tensor<2x2xi32>
    %c_19 = stablehlo.constant dense<0> : tensor<i32>
    %213 = stablehlo.broadcast_in_dim %c_19, dims = [] : (tensor<i32>) -> tensor<2x2xi32>
    %214 = stablehlo.add %211, %213 : tensor<2x2xi32>
    %215 = stablehlo.compare EQ, %214, %212, SIGNED : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi1>
    %216 = stablehlo.convert %215 : (tensor<2x2xi1>) -> tensor<2x2xf32>
    %217 = stablehlo.slice %216 [0:2, 0:2] : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %218 = stablehlo.convert %217 : tensor<2x2xf32>
    %219 = stablehlo.slice %218 [0:2, 0:1] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %220 = stablehlo.reshape %219 : (tensor<2x1xf32>) -> tensor<2xf32>
    %221 = stablehlo.slice %218 [0:2, 1:2] : (tensor<2x2xf32>) -> tensor<2x1xf32>
    %222 = stablehlo.reshape %221 : (tensor<2x1xf32>) -> tensor<2xf32>
    %223 = stablehlo.dot_general %222, %arg0, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %224 = stablehlo.dot_general %222, %205, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<2xf32>, tensor<4xf32>) -> tensor<2x4xf32>
    %225 = stablehlo.negate %223 : tensor<2x4xf32>
    %226 = stablehlo.broadcast_in_dim %206, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %227 = stablehlo.broadcast_in_dim %226, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %228 = stablehlo.multiply %225, %227 : tensor<2x4xf32>
    %229 = stablehlo.add %224, %228 : tensor<2x4xf32>
    %230 = stablehlo.broadcast_in_dim %220, dims = [0] : (tensor<2xf32>) -> tensor<2x4xf32>
    %231 = stablehlo.broadcast_in_dim %203, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %232 = stablehlo.broadcast_in_dim %231, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %233 = stablehlo.multiply %230, %232 : tensor<2x4xf32>
    %234 = stablehlo.add %229, %233 : tensor<2x4xf32>
    %235 = stablehlo.slice %234 [0:2, 0:4] : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %163, %198, %235 : tensor<4x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  }
}
