module @jit_gather_scatter attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x4xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4x4xf32>) -> (tensor<4x4xf32> {jax.result_info = "result[0]"}, tensor<4x2xf32> {jax.result_info = "result[1]"}, tensor<5x4xf32> {jax.result_info = "result[2]"}, tensor<5x4xf32> {jax.result_info = "result[3]"}, tensor<5x4xf32> {jax.result_info = "result[4]"}, tensor<5x4xf32> {jax.result_info = "result[5]"}, tensor<3x2xf32> {jax.result_info = "result[6]"}, tensor<2x2xf32> {jax.result_info = "result[7]"}, tensor<5x4xf32> {jax.result_info = "result[8]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<4xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<4xi1>, tensor<4xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %6 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<5x4xf32>, tensor<4x1xi32>) -> tensor<4x4xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_2 = stablehlo.constant dense<5> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<4xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<4xi1>, tensor<4xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
    %14 = stablehlo.concatenate %12, %13, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %15 = "stablehlo.gather"(%arg0, %14) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 2>}> : (tensor<5x4xf32>, tensor<4x2xi32>) -> tensor<4x2xf32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %17 = stablehlo.compare LT, %arg1, %16, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_5 = stablehlo.constant dense<5> : tensor<i32>
    %18 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %19 = stablehlo.add %arg1, %18 : tensor<4xi32>
    %20 = stablehlo.select %17, %19, %arg1 : tensor<4xi1>, tensor<4xi32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %22 = "stablehlo.scatter"(%arg0, %21, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %60 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %60 : tensor<f32>
    }) : (tensor<5x4xf32>, tensor<4x1xi32>, tensor<4x4xf32>) -> tensor<5x4xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %24 = stablehlo.compare LT, %arg1, %23, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_7 = stablehlo.constant dense<5> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %26 = stablehlo.add %arg1, %25 : tensor<4xi32>
    %27 = stablehlo.select %24, %26, %arg1 : tensor<4xi1>, tensor<4xi32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %29 = "stablehlo.scatter"(%arg0, %28, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<5x4xf32>, tensor<4x1xi32>, tensor<4x4xf32>) -> tensor<5x4xf32>
    %30 = stablehlo.slice %arg2 [0:4, 0:1] : (tensor<4x4xf32>) -> tensor<4x1xf32>
    %31 = stablehlo.reshape %30 : (tensor<4x1xf32>) -> tensor<4xf32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %32 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %33 = stablehlo.compare LT, %arg1, %32, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_9 = stablehlo.constant dense<5> : tensor<i32>
    %34 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %35 = stablehlo.add %arg1, %34 : tensor<4xi32>
    %36 = stablehlo.select %33, %35, %arg1 : tensor<4xi1>, tensor<4xi32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %38 = stablehlo.convert %37 : tensor<4xi32>
    %39 = stablehlo.broadcast_in_dim %36, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %40 = stablehlo.broadcast_in_dim %38, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %41 = stablehlo.concatenate %39, %40, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %42 = "stablehlo.scatter"(%arg0, %41, %31) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %60 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %60 : tensor<f32>
    }) : (tensor<5x4xf32>, tensor<4x2xi32>, tensor<4xf32>) -> tensor<5x4xf32>
    %43 = call @argsort(%arg0) : (tensor<5x4xf32>) -> tensor<5x4xi32>
    %44 = call @take_along_axis(%arg0, %43) : (tensor<5x4xf32>, tensor<5x4xi32>) -> tensor<5x4xf32>
    %45 = stablehlo.slice %arg0 [0:5:2, 0:4:3] : (tensor<5x4xf32>) -> tensor<3x2xf32>
    %46 = stablehlo.reverse %45, dims = [0] : tensor<3x2xf32>
    %47 = stablehlo.slice %arg1 [0:1] : (tensor<4xi32>) -> tensor<1xi32>
    %48 = stablehlo.reshape %47 : (tensor<1xi32>) -> tensor<i32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %49 = stablehlo.compare LT, %48, %c_11, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_12 = stablehlo.constant dense<5> : tensor<i32>
    %50 = stablehlo.add %48, %c_12 : tensor<i32>
    %51 = stablehlo.select %49, %50, %48 : tensor<i1>, tensor<i32>
    %c_13 = stablehlo.constant dense<1> : tensor<i32>
    %52 = stablehlo.dynamic_slice %arg0, %51, %c_13, sizes = [2, 2] : (tensor<5x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    %53 = stablehlo.slice %arg2 [0:2, 0:4] : (tensor<4x4xf32>) -> tensor<2x4xf32>
    %54 = stablehlo.slice %arg1 [1:2] : (tensor<4xi32>) -> tensor<1xi32>
    %55 = stablehlo.reshape %54 : (tensor<1xi32>) -> tensor<i32>
    %c_14 = stablehlo.constant dense<0> : tensor<i32>
    %56 = stablehlo.compare LT, %55, %c_14, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_15 = stablehlo.constant dense<5> : tensor<i32>
    %57 = stablehlo.add %55, %c_15 : tensor<i32>
    %58 = stablehlo.select %56, %57, %55 : tensor<i1>, tensor<i32>
    %c_16 = stablehlo.constant dense<0> : tensor<i32>
    %59 = stablehlo.dynamic_update_slice %arg0, %53, %58, %c_16 : (tensor<5x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<5x4xf32>
    return %6, %15, %22, %29, %42, %44, %46, %52, %59 : tensor<4x4xf32>, tensor<4x2xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<5x4xf32>, tensor<3x2xf32>, tensor<2x2xf32>, tensor<5x4xf32>
  }
  func.func private @argsort(%arg0: tensor<5x4xf32>) -> tensor<5x4xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<5x4xi32>
    %1:2 = "stablehlo.sort"(%arg0, %0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
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
    }) : (tensor<5x4xf32>, tensor<5x4xi32>) -> (tensor<5x4xf32>, tensor<5x4xi32>)
    return %1#1 : tensor<5x4xi32>
  }
  func.func private @take_along_axis(%arg0: tensor<5x4xf32>, %arg1: tensor<5x4xi32>) -> tensor<5x4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x4xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<5x4xi32>, tensor<5x4xi32>) -> tensor<5x4xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5x4xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<5x4xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<5x4xi1>, tensor<5x4xi32>
    %5 = stablehlo.reshape %4 : (tensor<5x4xi32>) -> tensor<5x4x1xi32>
    %c_1 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<5x4x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<5x4x1xi32>, tensor<5x4x1xi32>) -> tensor<5x4x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<5x4x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<5x4x1xi32>, tensor<5x4x1xi32>) -> tensor<5x4x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<5x4x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<5x4x1xi1>, tensor<i1>) -> tensor<5x4xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], operand_batching_dims = [1], start_indices_batching_dims = [1], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<5x4xf32>, tensor<5x4x1xi32>) -> tensor<5x4xf32>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x4xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<5x4xi1>, tensor<5x4xf32>
    return %15 : tensor<5x4xf32>
  }
}
