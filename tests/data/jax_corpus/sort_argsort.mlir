module @jit_sort_argsort attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x9xf32>, %arg1: tensor<4x9xi32>) -> (tensor<4x9xf32> {jax.result_info = "result[0]"}, tensor<4x9xf32> {jax.result_info = "result[1]"}, tensor<4x9xi32> {jax.result_info = "result[2]"}, tensor<4x9xi32> {jax.result_info = "result[3]"}, tensor<4x9xi32> {jax.result_info = "result[4][0]"}, tensor<4x9xf32> {jax.result_info = "result[4][1]"}, tensor<4x9xi32> {jax.result_info = "result[5]"}, tensor<4xf32> {jax.result_info = "result[6]"}, tensor<5xi32> {jax.result_info = "result[7]"}) {
    %0 = call @sort(%arg0) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %1 = call @sort_0(%arg0) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %2 = call @argsort(%arg1) : (tensor<4x9xi32>) -> tensor<4x9xi32>
    %3 = call @argsort_1(%arg0) : (tensor<4x9xf32>) -> tensor<4x9xi32>
    %4:2 = "stablehlo.sort"(%arg1, %arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<f32>):
      %37 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %37 : tensor<i1>
    }) : (tensor<4x9xi32>, tensor<4x9xf32>) -> (tensor<4x9xi32>, tensor<4x9xf32>)
    %5 = call @lexsort(%arg0, %arg1) : (tensor<4x9xf32>, tensor<4x9xi32>) -> tensor<4x9xi32>
    %6 = call @median(%arg0) : (tensor<4x9xf32>) -> tensor<4xf32>
    %7 = stablehlo.slice %arg1 [0:1, 0:9] : (tensor<4x9xi32>) -> tensor<1x9xi32>
    %8 = stablehlo.reshape %7 : (tensor<1x9xi32>) -> tensor<9xi32>
    %9:3 = call @_unique_sorted_mask(%8) : (tensor<9xi32>) -> (tensor<9xi32>, tensor<9xi1>, tensor<9xi32>)
    %10 = call @cumsum(%9#1) : (tensor<9xi1>) -> tensor<9xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %12 = call @clip(%10, %c_0) : (tensor<9xi32>, tensor<i32>) -> tensor<9xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %14 = stablehlo.compare LT, %12, %13, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %c_2 = stablehlo.constant dense<5> : tensor<i32>
    %15 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %16 = stablehlo.add %12, %15 : tensor<9xi32>
    %17 = stablehlo.select %14, %16, %12 : tensor<9xi1>, tensor<9xi32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [0] : (tensor<9xi32>) -> tensor<9x1xi32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %20 = "stablehlo.scatter"(%11, %18, %19) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %37 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %37 : tensor<i32>
    }) : (tensor<5xi32>, tensor<9x1xi32>, tensor<9xi32>) -> tensor<5xi32>
    %21 = call @cumsum_4(%20) : (tensor<5xi32>) -> tensor<5xi32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %22 = call @floor_divide(%21, %c_4) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    %c_5 = stablehlo.constant dense<9> : tensor<i32>
    %23 = call @remainder(%22, %c_5) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %25 = stablehlo.compare LT, %23, %24, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_7 = stablehlo.constant dense<9> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %27 = stablehlo.add %23, %26 : tensor<5xi32>
    %28 = stablehlo.select %25, %27, %23 : tensor<5xi1>, tensor<5xi32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %30 = "stablehlo.gather"(%9#0, %29) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<5x1xi32>) -> tensor<5xi32>
    %31 = stablehlo.iota dim = 0 : tensor<5xi32>
    %32 = stablehlo.convert %9#1 : (tensor<9xi1>) -> tensor<9xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %33 = stablehlo.reduce(%32 init: %c_8) applies stablehlo.add across dimensions = [0] : (tensor<9xi32>, tensor<i32>) -> tensor<i32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %35 = stablehlo.compare LT, %31, %34, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_9 = stablehlo.constant dense<-1> : tensor<i32>
    %36 = call @_where_8(%35, %30, %c_9) : (tensor<5xi1>, tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    return %0, %1, %2, %3, %4#0, %4#1, %5, %6, %36 : tensor<4x9xf32>, tensor<4x9xf32>, tensor<4x9xi32>, tensor<4x9xi32>, tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xi32>, tensor<4xf32>, tensor<5xi32>
  }
  func.func private @sort(%arg0: tensor<4x9xf32>) -> tensor<4x9xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %1 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.select %1, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %4 = stablehlo.select %3, %cst_1, %2 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_4, %6 : tensor<i1>, tensor<f32>
      %9 = stablehlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    }) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    return %0 : tensor<4x9xf32>
  }
  func.func private @sort_0(%arg0: tensor<4x9xf32>) -> tensor<4x9xf32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.select %2, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.select %6, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %8 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %9 = stablehlo.select %8, %cst_4, %7 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %10 : tensor<i1>
    }) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<4x9xf32>
    return %1 : tensor<4x9xf32>
  }
  func.func private @argsort(%arg0: tensor<4x9xi32>) -> tensor<4x9xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<4x9xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %2 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    }) : (tensor<4x9xi32>, tensor<4x9xi32>) -> (tensor<4x9xi32>, tensor<4x9xi32>)
    return %1#1 : tensor<4x9xi32>
  }
  func.func private @argsort_1(%arg0: tensor<4x9xf32>) -> tensor<4x9xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x9xi32>
    %1 = stablehlo.reverse %arg0, dims = [0] : tensor<4x9xf32>
    %2 = stablehlo.reverse %0, dims = [0] : tensor<4x9xi32>
    %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.select %5, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %7 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %8 = stablehlo.select %7, %cst_1, %6 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %10 = stablehlo.select %9, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %11 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %12 = stablehlo.select %11, %cst_4, %10 : tensor<i1>, tensor<f32>
      %13 = stablehlo.compare LT, %8, %12, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %13 : tensor<i1>
    }) : (tensor<4x9xf32>, tensor<4x9xi32>) -> (tensor<4x9xf32>, tensor<4x9xi32>)
    %4 = stablehlo.reverse %3#1, dims = [0] : tensor<4x9xi32>
    return %4 : tensor<4x9xi32>
  }
  func.func private @lexsort(%arg0: tensor<4x9xf32>, %arg1: tensor<4x9xi32>) -> tensor<4x9xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<4x9xi32>
    %1:3 = "stablehlo.sort"(%arg1, %arg0, %0) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<f32>, %arg5: tensor<f32>, %arg6: tensor<i32>, %arg7: tensor<i32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %2 = stablehlo.compare EQ, %arg4, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %3 = stablehlo.select %2, %cst_0, %arg4 : tensor<i1>, tensor<f32>
      %4 = stablehlo.compare NE, %arg4, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %5 = stablehlo.select %4, %cst_1, %3 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %6 = stablehlo.compare EQ, %arg5, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %7 = stablehlo.select %6, %cst_3, %arg5 : tensor<i1>, tensor<f32>
      %8 = stablehlo.compare NE, %arg5, %arg5, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %9 = stablehlo.select %8, %cst_4, %7 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare LT, %5, %9, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %11 = stablehlo.compare LT, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %12 = stablehlo.compare EQ, %arg2, %arg3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %13 = stablehlo.and %12, %10 : tensor<i1>
      %14 = stablehlo.or %11, %13 : tensor<i1>
      stablehlo.return %14 : tensor<i1>
    }) : (tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xi32>) -> (tensor<4x9xi32>, tensor<4x9xf32>, tensor<4x9xi32>)
    return %1#2 : tensor<4x9xi32>
  }
  func.func private @median(%arg0: tensor<4x9xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = call @quantile(%arg0, %cst) : (tensor<4x9xf32>, tensor<f32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @quantile(%arg0: tensor<4x9xf32>, %arg1: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x9xf32>, tensor<4x9xf32>) -> tensor<4x9xi1>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.or across dimensions = [1] : (tensor<4x9xi1>, tensor<i1>) -> tensor<4xi1>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0] : (tensor<4xi1>) -> tensor<4x1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %3 = call @_where(%2, %cst, %arg0) : (tensor<4x1xi1>, tensor<f32>, tensor<4x9xf32>) -> tensor<4x9xf32>
    %4 = "stablehlo.sort"(%3) <{dimension = 1 : i64, is_stable = true}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %24 = stablehlo.compare EQ, %arg2, %cst_10, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %25 = stablehlo.select %24, %cst_11, %arg2 : tensor<i1>, tensor<f32>
      %26 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_12 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %27 = stablehlo.select %26, %cst_12, %25 : tensor<i1>, tensor<f32>
      %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %28 = stablehlo.compare EQ, %arg3, %cst_13, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %29 = stablehlo.select %28, %cst_14, %arg3 : tensor<i1>, tensor<f32>
      %30 = stablehlo.compare NE, %arg3, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_15 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %31 = stablehlo.select %30, %cst_15, %29 : tensor<i1>, tensor<f32>
      %32 = stablehlo.compare LT, %27, %31, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %32 : tensor<i1>
    }) : (tensor<4x9xf32>) -> tensor<4x9xf32>
    %cst_0 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.subtract %cst_0, %cst_1 : tensor<f32>
    %6 = stablehlo.multiply %arg1, %5 : tensor<f32>
    %7 = stablehlo.floor %6 : tensor<f32>
    %8 = stablehlo.ceil %6 : tensor<f32>
    %9 = stablehlo.subtract %6, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.subtract %cst_2, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.subtract %cst_3, %cst_4 : tensor<f32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.clamp %cst_5, %7, %11 : tensor<f32>
    %cst_6 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.subtract %cst_6, %cst_7 : tensor<f32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.clamp %cst_8, %8, %13 : tensor<f32>
    %15 = stablehlo.convert %12 : (tensor<f32>) -> tensor<i32>
    %16 = stablehlo.convert %14 : (tensor<f32>) -> tensor<i32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %18 = "stablehlo.gather"(%4, %17) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x9xf32>, tensor<1xi32>) -> tensor<4xf32>
    %19 = stablehlo.broadcast_in_dim %16, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %20 = "stablehlo.gather"(%4, %19) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1]>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x9xf32>, tensor<1xi32>) -> tensor<4xf32>
    %21 = stablehlo.add %18, %20 : tensor<4xf32>
    %cst_9 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %23 = stablehlo.multiply %21, %22 : tensor<4xf32>
    return %23 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4x1xi1>, %arg1: tensor<f32>, %arg2: tensor<4x9xf32>) -> tensor<4x9xf32> {
    %0 = stablehlo.convert %arg1 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<4x1xi1>) -> tensor<4x9xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x9xf32>
    %3 = stablehlo.select %1, %2, %arg2 : tensor<4x9xi1>, tensor<4x9xf32>
    return %3 : tensor<4x9xf32>
  }
  func.func private @_unique_sorted_mask(%arg0: tensor<9xi32>) -> (tensor<9xi32>, tensor<9xi1>, tensor<9xi32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<9xi32>) -> tensor<9x1xi32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<9x1xi32>) -> tensor<1x9xi32>
    %2 = stablehlo.reverse %1, dims = [0] : tensor<1x9xi32>
    %3 = call @lexsort_2(%2) : (tensor<1x9xi32>) -> tensor<9xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %5 = stablehlo.compare LT, %3, %4, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %c_0 = stablehlo.constant dense<9> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %7 = stablehlo.add %3, %6 : tensor<9xi32>
    %8 = stablehlo.select %5, %7, %3 : tensor<9xi1>, tensor<9xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<9xi32>) -> tensor<9x1xi32>
    %10 = "stablehlo.gather"(%arg0, %9) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<9xi32>, tensor<9x1xi32>) -> tensor<9xi32>
    %c_1 = stablehlo.constant dense<true> : tensor<i1>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i1>) -> tensor<9xi1>
    %12 = stablehlo.slice %10 [1:9] : (tensor<9xi32>) -> tensor<8xi32>
    %13 = stablehlo.slice %10 [0:8] : (tensor<9xi32>) -> tensor<8xi32>
    %14 = stablehlo.compare NE, %12, %13, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %15 = stablehlo.reduce(%14 init: %c_2) applies stablehlo.or across dimensions = [] : (tensor<8xi1>, tensor<i1>) -> tensor<8xi1>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %17 = "stablehlo.scatter"(%11, %16, %15) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg1: tensor<i1>, %arg2: tensor<i1>):
      stablehlo.return %arg2 : tensor<i1>
    }) : (tensor<9xi1>, tensor<1xi32>, tensor<8xi1>) -> tensor<9xi1>
    return %10, %17, %3 : tensor<9xi32>, tensor<9xi1>, tensor<9xi32>
  }
  func.func private @lexsort_2(%arg0: tensor<1x9xi32>) -> tensor<9xi32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:9] : (tensor<1x9xi32>) -> tensor<1x9xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x9xi32>) -> tensor<9xi32>
    %2 = stablehlo.iota dim = 0 : tensor<9xi32>
    %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %4 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    }) : (tensor<9xi32>, tensor<9xi32>) -> (tensor<9xi32>, tensor<9xi32>)
    return %3#1 : tensor<9xi32>
  }
  func.func private @cumsum(%arg0: tensor<9xi1>) -> tensor<9xi32> {
    %0 = stablehlo.convert %arg0 : (tensor<9xi1>) -> tensor<9xi32>
    %1 = call @cumsum_3(%0) : (tensor<9xi32>) -> tensor<9xi32>
    return %1 : tensor<9xi32>
  }
  func.func private @cumsum_3(%arg0: tensor<9xi32>) -> tensor<9xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[8, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 9>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<9xi32>, tensor<i32>) -> tensor<9xi32>
    return %1 : tensor<9xi32>
  }
  func.func private @clip(%arg0: tensor<9xi32>, %arg1: tensor<i32>) -> tensor<9xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<9xi32>
    return %2 : tensor<9xi32>
  }
  func.func private @cumsum_4(%arg0: tensor<5xi32>) -> tensor<5xi32> {
    %0 = call @cumsum_5(%arg0) : (tensor<5xi32>) -> tensor<5xi32>
    return %0 : tensor<5xi32>
  }
  func.func private @cumsum_5(%arg0: tensor<5xi32>) -> tensor<5xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[4, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 5>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<5xi32>, tensor<i32>) -> tensor<5xi32>
    return %1 : tensor<5xi32>
  }
  func.func private @floor_divide(%arg0: tensor<5xi32>, %arg1: tensor<i32>) -> tensor<5xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.divide %arg0, %0 : tensor<5xi32>
    %2 = stablehlo.sign %arg0 : tensor<5xi32>
    %3 = stablehlo.sign %arg1 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %7 = stablehlo.remainder %arg0, %6 : tensor<5xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %10 = stablehlo.and %5, %9 : tensor<5xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %12 = stablehlo.subtract %1, %11 : tensor<5xi32>
    %13 = call @_where_6(%10, %12, %1) : (tensor<5xi1>, tensor<5xi32>, tensor<5xi32>) -> tensor<5xi32>
    return %13 : tensor<5xi32>
  }
  func.func private @_where_6(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>, %arg2: tensor<5xi32>) -> tensor<5xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<5xi1>, tensor<5xi32>
    return %0 : tensor<5xi32>
  }
  func.func private @remainder(%arg0: tensor<5xi32>, %arg1: tensor<i32>) -> tensor<5xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where_7(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<5xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<5xi32>, tensor<5xi32>) -> tensor<5xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<5xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<5xi1>, tensor<5xi1>) -> tensor<5xi1>
    %12 = stablehlo.and %11, %6 : tensor<5xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %14 = stablehlo.add %4, %13 : tensor<5xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<5xi1>, tensor<5xi32>
    return %15 : tensor<5xi32>
  }
  func.func private @_where_7(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_where_8(%arg0: tensor<5xi1>, %arg1: tensor<5xi32>, %arg2: tensor<i32>) -> tensor<5xi32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<5xi1>, tensor<5xi32>
    return %1 : tensor<5xi32>
  }
}
