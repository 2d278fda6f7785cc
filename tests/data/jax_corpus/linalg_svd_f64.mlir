module @jit__svd attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x3xf64>) -> (tensor<5x3xf64> {jax.result_info = "result[0]"}, tensor<3xf64> {jax.result_info = "result[1]"}, tensor<3x3xf64> {jax.result_info = "result[2]"}, tensor<5x5xf64> {jax.result_info = "result[3]"}, tensor<3xf64> {jax.result_info = "result[4]"}, tensor<3x3xf64> {jax.result_info = "result[5]"}, tensor<3xf64> {jax.result_info = "result[6]"}, tensor<3x5xf64> {jax.result_info = "result[7]"}, tensor<i64> {jax.result_info = "result[8]"}, tensor<f64> {jax.result_info = "result[9]"}, tensor<f64> {jax.result_info = "result[10]"}, tensor<f64> {jax.result_info = "result[11]"}) {
    %0:3 = call @svd(%arg0) : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
    %1:3 = call @svd_0(%arg0) : (tensor<5x3xf64>) -> (tensor<5x5xf64>, tensor<3xf64>, tensor<3x3xf64>)
    %2 = call @svd_1(%arg0) : (tensor<5x3xf64>) -> tensor<3xf64>
    %3 = call @_pinv(%arg0) : (tensor<5x3xf64>) -> tensor<3x5xf64>
    %4 = call @matrix_rank(%arg0) : (tensor<5x3xf64>) -> tensor<i64>
    %5 = call @norm(%arg0) : (tensor<5x3xf64>) -> tensor<f64>
    %6 = call @norm_4(%arg0) : (tensor<5x3xf64>) -> tensor<f64>
    %7 = call @cond(%arg0) : (tensor<5x3xf64>) -> tensor<f64>
    return %0#0, %0#1, %0#2, %1#0, %1#1, %1#2, %2, %3, %4, %5, %6, %7 : tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<5x5xf64>, tensor<3xf64>, tensor<3x3xf64>, tensor<3xf64>, tensor<3x5xf64>, tensor<i64>, tensor<f64>, tensor<f64>, tensor<f64>
  }
  func.func private @svd(%arg0: tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=3, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x3xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x3xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<5x3xi1>, tensor<5x3xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xf64>
    return %10, %6, %14 : tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>
  }
  func.func private @svd_0(%arg0: tensor<5x3xf64>) -> (tensor<5x5xf64>, tensor<3xf64>, tensor<3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=5, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x5xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x5xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<5x5xi1>, tensor<5x5xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xf64>
    return %10, %6, %14 : tensor<5x5xf64>, tensor<3xf64>, tensor<3x3xf64>
  }
  func.func private @svd_1(%arg0: tensor<5x3xf64>) -> tensor<3xf64> {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=5, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x5xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    return %6 : tensor<3xf64>
  }
  func.func private @_pinv(%arg0: tensor<5x3xf64>) -> tensor<3x5xf64> {
    %cst = stablehlo.constant dense<5.000000e+01> : tensor<f64>
    %cst_0 = stablehlo.constant dense<2.2204460492503131E-16> : tensor<f64>
    %0 = stablehlo.multiply %cst, %cst_0 : tensor<f64>
    %1:3 = call @svd_2(%arg0) : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %3 = stablehlo.slice %1#1 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %4 = stablehlo.multiply %2, %3 : tensor<1xf64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1xf64>) -> tensor<3xf64>
    %6 = stablehlo.compare GT, %1#1, %5, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %cst_1 = stablehlo.constant dense<0x7FF0000000000000> : tensor<f64>
    %7 = call @_where(%6, %1#1, %cst_1) : (tensor<3xi1>, tensor<3xf64>, tensor<f64>) -> tensor<3xf64>
    %8 = stablehlo.transpose %1#2, dims = [1, 0] : (tensor<3x3xf64>) -> tensor<3x3xf64>
    %9 = stablehlo.transpose %1#0, dims = [1, 0] : (tensor<5x3xf64>) -> tensor<3x5xf64>
    %10 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x5xf64>
    %12 = stablehlo.divide %9, %11 : tensor<3x5xf64>
    %13 = stablehlo.dot_general %8, %12, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x3xf64>, tensor<3x5xf64>) -> tensor<3x5xf64>
    return %13 : tensor<3x5xf64>
  }
  func.func private @svd_2(%arg0: tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=3, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x3xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<5x3xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<5x3xi1>, tensor<5x3xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xf64>
    return %10, %6, %14 : tensor<5x3xf64>, tensor<3xf64>, tensor<3x3xf64>
  }
  func.func private @_where(%arg0: tensor<3xi1>, %arg1: tensor<3xf64>, %arg2: tensor<f64>) -> tensor<3xf64> {
    %0 = stablehlo.convert %arg2 : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<3xi1>, tensor<3xf64>
    return %2 : tensor<3xf64>
  }
  func.func private @matrix_rank(%arg0: tensor<5x3xf64>) -> tensor<i64> {
    %0 = call @svd_3(%arg0) : (tensor<5x3xf64>) -> tensor<3xf64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<5.000000e+00> : tensor<f64>
    %2 = stablehlo.multiply %1, %cst_0 : tensor<f64>
    %cst_1 = stablehlo.constant dense<2.2204460492503131E-16> : tensor<f64>
    %3 = stablehlo.multiply %2, %cst_1 : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1xf64>) -> tensor<3xf64>
    %6 = stablehlo.compare GT, %0, %5, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %7 = stablehlo.convert %6 : (tensor<3xi1>) -> tensor<3xi32>
    %8 = stablehlo.convert %7 : (tensor<3xi32>) -> tensor<3xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %9 = stablehlo.reduce(%8 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
    return %9 : tensor<i64>
  }
  func.func private @svd_3(%arg0: tensor<5x3xf64>) -> tensor<3xf64> {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=3, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x3xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    return %6 : tensor<3xf64>
  }
  func.func private @norm(%arg0: tensor<5x3xf64>) -> tensor<f64> {
    %0 = call @svd_1(%arg0) : (tensor<5x3xf64>) -> tensor<3xf64>
    %cst = stablehlo.constant dense<0xFFF0000000000000> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %2 = stablehlo.maximum %cst_0, %1 : tensor<f64>
    return %2 : tensor<f64>
  }
  func.func private @norm_4(%arg0: tensor<5x3xf64>) -> tensor<f64> {
    %0 = call @svd_1(%arg0) : (tensor<5x3xf64>) -> tensor<3xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<3xf64>, tensor<f64>) -> tensor<f64>
    return %1 : tensor<f64>
  }
  func.func private @cond(%arg0: tensor<5x3xf64>) -> tensor<f64> {
    %0 = call @svd_5(%arg0) : (tensor<5x3xf64>) -> tensor<3xf64>
    %1 = stablehlo.slice %0 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %2 = stablehlo.reshape %1 : (tensor<1xf64>) -> tensor<f64>
    %3 = stablehlo.slice %0 [2:3] : (tensor<3xf64>) -> tensor<1xf64>
    %4 = stablehlo.reshape %3 : (tensor<1xf64>) -> tensor<f64>
    %5 = stablehlo.divide %2, %4 : tensor<f64>
    return %5 : tensor<f64>
  }
  func.func private @svd_5(%arg0: tensor<5x3xf64>) -> tensor<3xf64> {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=5, p=3, q=3}, custom>} : (tensor<5x3xf64>) -> (tensor<5x3xf64>, tensor<3xf64>, tensor<5x5xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    return %6 : tensor<3xf64>
  }
}
