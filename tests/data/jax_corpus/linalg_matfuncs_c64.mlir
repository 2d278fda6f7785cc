module @jit__matfuncs attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>> {jax.result_info = "result[0]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}, tensor<f32> {jax.result_info = "result[5]"}, tensor<f32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}) {
    %0 = call @expm(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = call @matrix_power(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %2 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %3 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %5 = stablehlo.add %2, %4 : tensor<4x4xi32>
    %6 = stablehlo.compare EQ, %5, %3, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %7 = stablehlo.convert %6 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
    %cst = stablehlo.constant dense<(3.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %9 = stablehlo.multiply %8, %7 : tensor<4x4xcomplex<f32>>
    %10 = stablehlo.add %arg0, %9 : tensor<4x4xcomplex<f32>>
    %11 = call @matrix_power_2(%10) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %12 = call @norm_3(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<f32>
    %13 = call @norm(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<f32>
    %14 = call @norm_4(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<f32>
    %15 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<1x4xcomplex<f32>>
    %16 = stablehlo.reshape %15 : (tensor<1x4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %17 = call @norm_5(%16) : (tensor<4xcomplex<f32>>) -> tensor<f32>
    %18 = stablehlo.slice %arg0 [0:1, 0:4] : (tensor<4x4xcomplex<f32>>) -> tensor<1x4xcomplex<f32>>
    %19 = stablehlo.reshape %18 : (tensor<1x4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %20 = call @norm_6(%19) : (tensor<4xcomplex<f32>>) -> tensor<f32>
    return %0, %1, %11, %12, %13, %14, %17, %20 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  }
  func.func private @expm(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0:3 = call @_calc_P_Q(%arg0) : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<f32>)
    %cst = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %1 = stablehlo.compare GT, %0#2, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = stablehlo.convert %1 : (tensor<i1>) -> tensor<i32>
    %3 = "stablehlo.case"(%2) ({
      %4 = func.call @solve(%0#1, %0#0) : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %5 = func.call @_squaring(%4, %0#2) : (tensor<4x4xcomplex<f32>>, tensor<f32>) -> tensor<4x4xcomplex<f32>>
      stablehlo.return %5 : tensor<4x4xcomplex<f32>>
    }, {
      %cst_0 = stablehlo.constant dense<(0x7FC00000,0.000000e+00)> : tensor<complex<f32>>
      %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      stablehlo.return %4 : tensor<4x4xcomplex<f32>>
    }) : (tensor<i32>) -> tensor<4x4xcomplex<f32>>
    return %3 : tensor<4x4xcomplex<f32>>
  }
  func.func private @_calc_P_Q(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<f32>) {
    %cst = stablehlo.constant dense<[4.258730e-01, 1.8801527]> : tensor<2xf32>
    %0 = call @norm(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<3.92572474> : tensor<f32>
    %1 = stablehlo.divide %0, %cst_0 : tensor<f32>
    %2 = stablehlo.log %1 : tensor<f32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %3 = stablehlo.log %cst_1 : tensor<f32>
    %4 = stablehlo.divide %2, %3 : tensor<f32>
    %5 = stablehlo.floor %4 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.maximum %cst_2, %5 : tensor<f32>
    %7 = stablehlo.convert %6 : (tensor<f32>) -> tensor<complex<f32>>
    %cst_3 = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %8 = stablehlo.power %cst_3, %7 : tensor<complex<f32>>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %10 = stablehlo.divide %arg0, %9 : tensor<4x4xcomplex<f32>>
    %11 = call @digitize(%0, %cst) : (tensor<f32>, tensor<2xf32>) -> tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_4 = stablehlo.constant dense<2> : tensor<i32>
    %12 = stablehlo.clamp %c, %11, %c_4 : tensor<i32>
    %13:2 = "stablehlo.case"(%12) ({
      %17 = stablehlo.iota dim = 0 : tensor<4x4xi32>
      %18 = stablehlo.iota dim = 1 : tensor<4x4xi32>
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %19 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
      %20 = stablehlo.add %17, %19 : tensor<4x4xi32>
      %21 = stablehlo.compare EQ, %20, %18, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
      %22 = stablehlo.convert %21 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
      %23 = stablehlo.dot_general %10, %10, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_6 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
      %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %25 = stablehlo.multiply %24, %23 : tensor<4x4xcomplex<f32>>
      %cst_7 = stablehlo.constant dense<(6.000000e+01,0.000000e+00)> : tensor<complex<f32>>
      %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %27 = stablehlo.multiply %26, %22 : tensor<4x4xcomplex<f32>>
      %28 = stablehlo.add %25, %27 : tensor<4x4xcomplex<f32>>
      %29 = stablehlo.dot_general %10, %28, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_8 = stablehlo.constant dense<(1.200000e+01,0.000000e+00)> : tensor<complex<f32>>
      %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %31 = stablehlo.multiply %30, %23 : tensor<4x4xcomplex<f32>>
      %cst_9 = stablehlo.constant dense<(1.200000e+02,0.000000e+00)> : tensor<complex<f32>>
      %32 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %33 = stablehlo.multiply %32, %22 : tensor<4x4xcomplex<f32>>
      %34 = stablehlo.add %31, %33 : tensor<4x4xcomplex<f32>>
      stablehlo.return %29, %34 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
    }, {
      %17 = stablehlo.iota dim = 0 : tensor<4x4xi32>
      %18 = stablehlo.iota dim = 1 : tensor<4x4xi32>
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %19 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
      %20 = stablehlo.add %17, %19 : tensor<4x4xi32>
      %21 = stablehlo.compare EQ, %20, %18, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
      %22 = stablehlo.convert %21 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
      %23 = stablehlo.dot_general %10, %10, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %24 = stablehlo.dot_general %23, %23, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_6 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
      %25 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %26 = stablehlo.multiply %25, %24 : tensor<4x4xcomplex<f32>>
      %cst_7 = stablehlo.constant dense<(4.200000e+02,0.000000e+00)> : tensor<complex<f32>>
      %27 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %28 = stablehlo.multiply %27, %23 : tensor<4x4xcomplex<f32>>
      %29 = stablehlo.add %26, %28 : tensor<4x4xcomplex<f32>>
      %cst_8 = stablehlo.constant dense<(1.512000e+04,0.000000e+00)> : tensor<complex<f32>>
      %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %31 = stablehlo.multiply %30, %22 : tensor<4x4xcomplex<f32>>
      %32 = stablehlo.add %29, %31 : tensor<4x4xcomplex<f32>>
      %33 = stablehlo.dot_general %10, %32, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_9 = stablehlo.constant dense<(3.000000e+01,0.000000e+00)> : tensor<complex<f32>>
      %34 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %35 = stablehlo.multiply %34, %24 : tensor<4x4xcomplex<f32>>
      %cst_10 = stablehlo.constant dense<(3.360000e+03,0.000000e+00)> : tensor<complex<f32>>
      %36 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %37 = stablehlo.multiply %36, %23 : tensor<4x4xcomplex<f32>>
      %38 = stablehlo.add %35, %37 : tensor<4x4xcomplex<f32>>
      %cst_11 = stablehlo.constant dense<(3.024000e+04,0.000000e+00)> : tensor<complex<f32>>
      %39 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %40 = stablehlo.multiply %39, %22 : tensor<4x4xcomplex<f32>>
      %41 = stablehlo.add %38, %40 : tensor<4x4xcomplex<f32>>
      stablehlo.return %33, %41 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
    }, {
      %17 = stablehlo.iota dim = 0 : tensor<4x4xi32>
      %18 = stablehlo.iota dim = 1 : tensor<4x4xi32>
      %c_5 = stablehlo.constant dense<0> : tensor<i32>
      %19 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
      %20 = stablehlo.add %17, %19 : tensor<4x4xi32>
      %21 = stablehlo.compare EQ, %20, %18, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
      %22 = stablehlo.convert %21 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
      %23 = stablehlo.dot_general %10, %10, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %24 = stablehlo.dot_general %23, %23, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %25 = stablehlo.dot_general %24, %23, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_6 = stablehlo.constant dense<(1.000000e+00,0.000000e+00)> : tensor<complex<f32>>
      %26 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %27 = stablehlo.multiply %26, %25 : tensor<4x4xcomplex<f32>>
      %cst_7 = stablehlo.constant dense<(1.512000e+03,0.000000e+00)> : tensor<complex<f32>>
      %28 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %29 = stablehlo.multiply %28, %24 : tensor<4x4xcomplex<f32>>
      %30 = stablehlo.add %27, %29 : tensor<4x4xcomplex<f32>>
      %cst_8 = stablehlo.constant dense<(2.772000e+05,0.000000e+00)> : tensor<complex<f32>>
      %31 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %32 = stablehlo.multiply %31, %23 : tensor<4x4xcomplex<f32>>
      %33 = stablehlo.add %30, %32 : tensor<4x4xcomplex<f32>>
      %cst_9 = stablehlo.constant dense<(8.648640e+06,0.000000e+00)> : tensor<complex<f32>>
      %34 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %35 = stablehlo.multiply %34, %22 : tensor<4x4xcomplex<f32>>
      %36 = stablehlo.add %33, %35 : tensor<4x4xcomplex<f32>>
      %37 = stablehlo.dot_general %10, %36, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      %cst_10 = stablehlo.constant dense<(5.600000e+01,0.000000e+00)> : tensor<complex<f32>>
      %38 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %39 = stablehlo.multiply %38, %25 : tensor<4x4xcomplex<f32>>
      %cst_11 = stablehlo.constant dense<(2.520000e+04,0.000000e+00)> : tensor<complex<f32>>
      %40 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %41 = stablehlo.multiply %40, %24 : tensor<4x4xcomplex<f32>>
      %42 = stablehlo.add %39, %41 : tensor<4x4xcomplex<f32>>
      %cst_12 = stablehlo.constant dense<(1.995840e+06,0.000000e+00)> : tensor<complex<f32>>
      %43 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %44 = stablehlo.multiply %43, %23 : tensor<4x4xcomplex<f32>>
      %45 = stablehlo.add %42, %44 : tensor<4x4xcomplex<f32>>
      %cst_13 = stablehlo.constant dense<(0x4B83F7C0,0.000000e+00)> : tensor<complex<f32>>
      %46 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
      %47 = stablehlo.multiply %46, %22 : tensor<4x4xcomplex<f32>>
      %48 = stablehlo.add %45, %47 : tensor<4x4xcomplex<f32>>
      stablehlo.return %37, %48 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>
    }) : (tensor<i32>) -> (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>)
    %14 = stablehlo.add %13#0, %13#1 : tensor<4x4xcomplex<f32>>
    %15 = stablehlo.negate %13#0 : tensor<4x4xcomplex<f32>>
    %16 = stablehlo.add %15, %13#1 : tensor<4x4xcomplex<f32>>
    return %14, %16, %6 : tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>, tensor<f32>
  }
  func.func private @norm(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.maximum %cst_1, %2 : tensor<f32>
    return %3 : tensor<f32>
  }
  func.func private @digitize(%arg0: tensor<f32>, %arg1: tensor<2xf32>) -> tensor<i32> {
    %0 = stablehlo.slice %arg1 [1:2] : (tensor<2xf32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    %2 = stablehlo.slice %arg1 [0:1] : (tensor<2xf32>) -> tensor<1xf32>
    %3 = stablehlo.reshape %2 : (tensor<1xf32>) -> tensor<f32>
    %4 = stablehlo.compare GE, %1, %3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %5 = call @searchsorted(%arg1, %arg0) : (tensor<2xf32>, tensor<f32>) -> tensor<i32>
    %6 = stablehlo.reverse %arg1, dims = [0] : tensor<2xf32>
    %7 = call @searchsorted(%6, %arg0) : (tensor<2xf32>, tensor<f32>) -> tensor<i32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %8 = stablehlo.subtract %c, %7 : tensor<i32>
    %9 = call @_where(%4, %5, %8) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    return %9 : tensor<i32>
  }
  func.func private @searchsorted(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> tensor<i32> {
    %0 = call @_searchsorted_scan_impl(%arg0, %arg1) : (tensor<2xf32>, tensor<f32>) -> tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_searchsorted_scan_impl(%arg0: tensor<2xf32>, %arg1: tensor<f32>) -> tensor<i32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %c_0 = stablehlo.constant dense<2> : tensor<ui32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %0:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c_1, %iterArg_4 = %c, %iterArg_5 = %c_0) : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<ui32>, tensor<ui32>
    cond {
      %c_6 = stablehlo.constant dense<2> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2:2 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4, %iterArg_5) : (tensor<2xf32>, tensor<f32>, tensor<ui32>, tensor<ui32>) -> (tensor<ui32>, tensor<ui32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %3, %2#0, %2#1 : tensor<2xf32>, tensor<f32>, tensor<i32>, tensor<ui32>, tensor<ui32>
    }
    %1 = stablehlo.convert %0#4 : (tensor<ui32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @closed_call(%arg0: tensor<2xf32>, %arg1: tensor<f32>, %arg2: tensor<ui32>, %arg3: tensor<ui32>) -> (tensor<ui32>, tensor<ui32>) {
    %0 = stablehlo.subtract %arg3, %arg2 : tensor<ui32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %1 = call @floor_divide(%0, %c) : (tensor<ui32>, tensor<i32>) -> tensor<ui32>
    %2 = stablehlo.add %arg2, %1 : tensor<ui32>
    %3 = stablehlo.dynamic_slice %arg0, %2, sizes = [1] : (tensor<2xf32>, tensor<ui32>) -> tensor<1xf32>
    %4 = stablehlo.reshape %3 : (tensor<1xf32>) -> tensor<f32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.select %5, %cst_0, %arg1 : tensor<i1>, tensor<f32>
    %7 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.select %7, %cst_1, %6 : tensor<i1>, tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.compare EQ, %4, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.select %9, %cst_3, %4 : tensor<i1>, tensor<f32>
    %11 = stablehlo.compare NE, %4, %4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.select %11, %cst_4, %10 : tensor<i1>, tensor<f32>
    %13 = stablehlo.compare LT, %8, %12, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %14 = stablehlo.select %13, %arg2, %2 : tensor<i1>, tensor<ui32>
    %15 = stablehlo.select %13, %2, %arg3 : tensor<i1>, tensor<ui32>
    return %14, %15 : tensor<ui32>, tensor<ui32>
  }
  func.func private @floor_divide(%arg0: tensor<ui32>, %arg1: tensor<i32>) -> tensor<ui32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<ui32>
    %1 = stablehlo.divide %arg0, %0 : tensor<ui32>
    return %1 : tensor<ui32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @solve(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0:3 = stablehlo.custom_call @lapack_cgetrf_ffi(%arg0) {backend_config = "", mhlo.backend_config = {}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=4, j=4, k=4, l=4, m=4}, custom>} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<i32>)
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.subtract %0#1, %1 : tensor<4xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<i32>
    %4 = stablehlo.compare GE, %0#2, %3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %7 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %8 = stablehlo.select %7, %0#0, %6 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    %9 = stablehlo.iota dim = 0 : tensor<4xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %10:4 = stablehlo.while(%iterArg = %2, %iterArg_3 = %c_2, %iterArg_4 = %c_1, %iterArg_5 = %9) : tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<4xi32>
    cond {
      %c_6 = stablehlo.constant dense<4> : tensor<i32>
      %14 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %14 : tensor<i1>
    } do {
      %14:2 = func.call @closed_call_0(%iterArg, %iterArg_4, %iterArg_5) : (tensor<4xi32>, tensor<i32>, tensor<4xi32>) -> (tensor<i32>, tensor<4xi32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %15 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %15, %14#0, %14#1 : tensor<4xi32>, tensor<i32>, tensor<i32>, tensor<4xi32>
    }
    %11 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %12 = call @_lu_solve(%8, %10#3, %11) : (tensor<4x4xcomplex<f32>>, tensor<4xi32>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %13 : tensor<4x4xcomplex<f32>>
  }
  func.func private @closed_call_0(%arg0: tensor<4xi32>, %arg1: tensor<i32>, %arg2: tensor<4xi32>) -> (tensor<i32>, tensor<4xi32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare LT, %arg1, %c_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.convert %arg1 : tensor<i32>
    %c_1 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.add %2, %c_1 : tensor<i32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<i1>, tensor<i32>
    %5 = stablehlo.dynamic_slice %arg0, %4, sizes = [1] : (tensor<4xi32>, tensor<i32>) -> tensor<1xi32>
    %6 = stablehlo.reshape %5 : (tensor<1xi32>) -> tensor<i32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.compare LT, %arg1, %c_2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %8 = stablehlo.convert %arg1 : tensor<i32>
    %c_3 = stablehlo.constant dense<4> : tensor<i32>
    %9 = stablehlo.add %8, %c_3 : tensor<i32>
    %10 = stablehlo.select %7, %9, %arg1 : tensor<i1>, tensor<i32>
    %11 = stablehlo.dynamic_slice %arg2, %10, sizes = [1] : (tensor<4xi32>, tensor<i32>) -> tensor<1xi32>
    %12 = stablehlo.reshape %11 : (tensor<1xi32>) -> tensor<i32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.compare LT, %6, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_5 = stablehlo.constant dense<4> : tensor<i32>
    %14 = stablehlo.add %6, %c_5 : tensor<i32>
    %15 = stablehlo.select %13, %14, %6 : tensor<i1>, tensor<i32>
    %16 = stablehlo.dynamic_slice %arg2, %15, sizes = [1] : (tensor<4xi32>, tensor<i32>) -> tensor<1xi32>
    %17 = stablehlo.reshape %16 : (tensor<1xi32>) -> tensor<i32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %18 = stablehlo.compare LT, %arg1, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_7 = stablehlo.constant dense<4> : tensor<i32>
    %19 = stablehlo.add %arg1, %c_7 : tensor<i32>
    %20 = stablehlo.select %18, %19, %arg1 : tensor<i1>, tensor<i32>
    %21 = stablehlo.convert %20 : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %21, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %23 = "stablehlo.scatter"(%arg2, %22, %17) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.compare LT, %6, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_9 = stablehlo.constant dense<4> : tensor<i32>
    %25 = stablehlo.add %6, %c_9 : tensor<i32>
    %26 = stablehlo.select %24, %25, %6 : tensor<i1>, tensor<i32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = "stablehlo.scatter"(%23, %27, %12) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      stablehlo.return %arg4 : tensor<i32>
    }) : (tensor<4xi32>, tensor<1xi32>, tensor<i32>) -> tensor<4xi32>
    return %0, %28 : tensor<i32>, tensor<4xi32>
  }
  func.func private @_lu_solve(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<4xi32>, %arg2: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4x1xcomplex<f32>>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<4xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<4xi1>, tensor<4xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %7 = "stablehlo.gather"(%0, %6) <{dimension_numbers = #stablehlo.gather<offset_dims = [0, 2], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1, 1>}> : (tensor<4x4x1xcomplex<f32>>, tensor<4x1xi32>) -> tensor<4x4x1xcomplex<f32>>
    %8 = stablehlo.transpose %7, dims = [1, 2, 0] : (tensor<4x4x1xcomplex<f32>>) -> tensor<4x1x4xcomplex<f32>>
    %9 = stablehlo.reshape %8 : (tensor<4x1x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %10 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %9) {backend_config = "", mhlo.backend_config = {diag = 85 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=4, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %11 = stablehlo.reshape %10 : (tensor<4x4xcomplex<f32>>) -> tensor<4x1x4xcomplex<f32>>
    %12 = stablehlo.reshape %11 : (tensor<4x1x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %13 = stablehlo.custom_call @lapack_ctrsm_ffi(%arg0, %12) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 85 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=4, j=4, k=4, l=4, m=4, n=4}, custom>} : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %14 = stablehlo.reshape %13 : (tensor<4x4xcomplex<f32>>) -> tensor<4x1x4xcomplex<f32>>
    %15 = stablehlo.transpose %14, dims = [2, 0, 1] : (tensor<4x1x4xcomplex<f32>>) -> tensor<4x4x1xcomplex<f32>>
    %16 = stablehlo.reshape %15 : (tensor<4x4x1xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %16 : tensor<4x4xcomplex<f32>>
  }
  func.func private @_squaring(%arg0: tensor<4x4xcomplex<f32>>, %arg1: tensor<f32>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<16xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:4 = stablehlo.while(%iterArg = %0, %iterArg_0 = %arg1, %iterArg_1 = %c, %iterArg_2 = %arg0) : tensor<16xf32>, tensor<f32>, tensor<i32>, tensor<4x4xcomplex<f32>>
    cond {
      %c_3 = stablehlo.constant dense<16> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<16xf32>, tensor<i32>) -> tensor<f32>
      %3 = func.call @closed_call_1(%iterArg_0, %iterArg_2, %2) : (tensor<f32>, tensor<4x4xcomplex<f32>>, tensor<f32>) -> tensor<4x4xcomplex<f32>>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %4, %3 : tensor<16xf32>, tensor<f32>, tensor<i32>, tensor<4x4xcomplex<f32>>
    }
    return %1#3 : tensor<4x4xcomplex<f32>>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<16xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<16xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call_1(%arg0: tensor<f32>, %arg1: tensor<4x4xcomplex<f32>>, %arg2: tensor<f32>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.compare LT, %arg2, %arg0, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = stablehlo.convert %0 : (tensor<i1>) -> tensor<i32>
    %2 = "stablehlo.case"(%1) ({
      stablehlo.return %arg1 : tensor<4x4xcomplex<f32>>
    }, {
      %3 = stablehlo.dot_general %arg1, %arg1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
      stablehlo.return %3 : tensor<4x4xcomplex<f32>>
    }) : (tensor<i32>) -> tensor<4x4xcomplex<f32>>
    return %2 : tensor<4x4xcomplex<f32>>
  }
  func.func private @matrix_power(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.dot_general %arg0, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.dot_general %0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %2 = stablehlo.dot_general %arg0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %2 : tensor<4x4xcomplex<f32>>
  }
  func.func private @matrix_power_2(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = call @inv(%arg0) : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.dot_general %0, %0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %1 : tensor<4x4xcomplex<f32>>
  }
  func.func private @inv(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %1 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %3 = stablehlo.add %0, %2 : tensor<4x4xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %5 = stablehlo.convert %4 : (tensor<4x4xi1>) -> tensor<4x4xcomplex<f32>>
    %6 = call @solve(%arg0, %5) : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    return %6 : tensor<4x4xcomplex<f32>>
  }
  func.func private @norm_3(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<f32> {
    %0 = stablehlo.real %arg0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %2 = stablehlo.negate %1 : tensor<4x4xf32>
    %3 = stablehlo.complex %0, %2 : tensor<4x4xcomplex<f32>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<4x4xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<f32>
    %7 = stablehlo.sqrt %6 : tensor<f32>
    return %7 : tensor<f32>
  }
  func.func private @norm_4(%arg0: tensor<4x4xcomplex<f32>>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x4xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.minimum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @norm_5(%arg0: tensor<4xcomplex<f32>>) -> tensor<f32> {
    %0 = stablehlo.real %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %1 = stablehlo.imag %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %2 = stablehlo.negate %1 : tensor<4xf32>
    %3 = stablehlo.complex %0, %2 : tensor<4xcomplex<f32>>
    %4 = stablehlo.multiply %arg0, %3 : tensor<4xcomplex<f32>>
    %5 = stablehlo.real %4 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %7 = stablehlo.sqrt %6 : tensor<f32>
    return %7 : tensor<f32>
  }
  func.func private @norm_6(%arg0: tensor<4xcomplex<f32>>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.power %0, %1 : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.reduce(%2 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.333333343> : tensor<f32>
    %4 = stablehlo.power %3, %cst_1 : tensor<f32>
    return %4 : tensor<f32>
  }
}
