module @jit_scan_rnn_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5x5xf32>, %arg2: tensor<3x5xf32>, %arg3: tensor<7x3xf32>, %arg4: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result['b']"}, tensor<5x5xf32> {jax.result_info = "result['wh']"}, tensor<3x5xf32> {jax.result_info = "result['wx']"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4:10 = stablehlo.while(%iterArg = %arg3, %iterArg_12 = %arg2, %iterArg_13 = %arg1, %iterArg_14 = %arg0, %iterArg_15 = %c, %iterArg_16 = %arg4, %iterArg_17 = %0, %iterArg_18 = %1, %iterArg_19 = %2, %iterArg_20 = %3) : tensor<7x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>
    cond {
      %c_21 = stablehlo.constant dense<7> : tensor<i32>
      %17 = stablehlo.compare LT, %iterArg_15, %c_21, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %17 : tensor<i1>
    } do {
      %17 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_15) : (tensor<7x3xf32>, tensor<i32>) -> tensor<3xf32>
      %18:5 = func.call @closed_call(%iterArg_12, %iterArg_13, %iterArg_14, %iterArg_16, %17) : (tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
      %19 = func.call @dynamic_update_index_in_dim(%iterArg_17, %18#1, %iterArg_15) : (tensor<7x5xf32>, tensor<5xf32>, tensor<i32>) -> tensor<7x5xf32>
      %20 = func.call @dynamic_update_index_in_dim(%iterArg_18, %18#2, %iterArg_15) : (tensor<7x5xf32>, tensor<5xf32>, tensor<i32>) -> tensor<7x5xf32>
      %21 = func.call @dynamic_update_index_in_dim(%iterArg_19, %18#3, %iterArg_15) : (tensor<7x5xf32>, tensor<5xf32>, tensor<i32>) -> tensor<7x5xf32>
      %22 = func.call @dynamic_update_index_in_dim(%iterArg_20, %18#4, %iterArg_15) : (tensor<7x5xf32>, tensor<5xf32>, tensor<i32>) -> tensor<7x5xf32>
      %c_21 = stablehlo.constant dense<1> : tensor<i32>
      %23 = stablehlo.add %iterArg_15, %c_21 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_12, %iterArg_13, %iterArg_14, %23, %18#0, %19, %20, %21, %22 : tensor<7x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>
    }
    %5 = stablehlo.multiply %4#6, %4#6 : tensor<7x5xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %7 = stablehlo.multiply %6, %4#6 : tensor<7x5xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_4) applies stablehlo.add across dimensions = [0, 1] : (tensor<7x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %11 = stablehlo.multiply %10, %7 : tensor<7x5xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3x5xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %16:11 = stablehlo.while(%iterArg = %11, %iterArg_12 = %arg3, %iterArg_13 = %4#7, %iterArg_14 = %4#8, %iterArg_15 = %4#9, %iterArg_16 = %arg1, %iterArg_17 = %c_11, %iterArg_18 = %13, %iterArg_19 = %14, %iterArg_20 = %15, %iterArg_21 = %12) : tensor<7x5xf32>, tensor<7x3xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<5x5xf32>, tensor<i32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>
    cond {
      %c_22 = stablehlo.constant dense<7> : tensor<i32>
      %17 = stablehlo.compare LT, %iterArg_17, %c_22, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %17 : tensor<i1>
    } do {
      %c_22 = stablehlo.constant dense<7> : tensor<i32>
      %17 = stablehlo.subtract %c_22, %iterArg_17 : tensor<i32>
      %c_23 = stablehlo.constant dense<1> : tensor<i32>
      %18 = stablehlo.subtract %17, %c_23 : tensor<i32>
      %19 = func.call @dynamic_index_in_dim_0(%iterArg, %18) : (tensor<7x5xf32>, tensor<i32>) -> tensor<5xf32>
      %20 = func.call @dynamic_index_in_dim(%iterArg_12, %18) : (tensor<7x3xf32>, tensor<i32>) -> tensor<3xf32>
      %21 = func.call @dynamic_index_in_dim_0(%iterArg_13, %18) : (tensor<7x5xf32>, tensor<i32>) -> tensor<5xf32>
      %22 = func.call @dynamic_index_in_dim_0(%iterArg_14, %18) : (tensor<7x5xf32>, tensor<i32>) -> tensor<5xf32>
      %23 = func.call @dynamic_index_in_dim_0(%iterArg_15, %18) : (tensor<7x5xf32>, tensor<i32>) -> tensor<5xf32>
      %24:4 = func.call @closed_call_1(%iterArg_16, %iterArg_18, %iterArg_19, %iterArg_20, %iterArg_21, %19, %20, %21, %22, %23) : (tensor<5x5xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<3xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>)
      %c_24 = stablehlo.constant dense<1> : tensor<i32>
      %25 = stablehlo.add %iterArg_17, %c_24 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_12, %iterArg_13, %iterArg_14, %iterArg_15, %iterArg_16, %25, %24#0, %24#1, %24#2, %24#3 : tensor<7x5xf32>, tensor<7x3xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<5x5xf32>, tensor<i32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>
    }
    return %16#9, %16#8, %16#7 : tensor<5xf32>, tensor<5x5xf32>, tensor<3x5xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<7x3xf32>, %arg1: tensor<i32>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<7x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x5xf32>, %arg1: tensor<5x5xf32>, %arg2: tensor<5xf32>, %arg3: tensor<5xf32>, %arg4: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5x5xf32>) -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    %3 = stablehlo.add %2, %arg2 : tensor<5xf32>
    %4 = stablehlo.tanh %3 : tensor<5xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %6 = stablehlo.subtract %5, %4 : tensor<5xf32>
    return %4, %4, %arg3, %4, %6 : tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<7x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<i32>) -> tensor<7x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<7x5xf32>, tensor<1x5xf32>, tensor<i32>, tensor<i32>) -> tensor<7x5xf32>
    return %1 : tensor<7x5xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<7x5xf32>, %arg1: tensor<i32>) -> tensor<5xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 5] : (tensor<7x5xf32>, tensor<i32>, tensor<i32>) -> tensor<1x5xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x5xf32>) -> tensor<5xf32>
    return %1 : tensor<5xf32>
  }
  func.func private @closed_call_1(%arg0: tensor<5x5xf32>, %arg1: tensor<3x5xf32>, %arg2: tensor<5x5xf32>, %arg3: tensor<5xf32>, %arg4: tensor<5xf32>, %arg5: tensor<5xf32>, %arg6: tensor<3xf32>, %arg7: tensor<5xf32>, %arg8: tensor<5xf32>, %arg9: tensor<5xf32>) -> (tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>) {
    %0 = stablehlo.add %arg4, %arg5 : tensor<5xf32>
    %1 = stablehlo.multiply %0, %arg9 : tensor<5xf32>
    %2 = stablehlo.multiply %1, %arg8 : tensor<5xf32>
    %3 = stablehlo.add %1, %2 : tensor<5xf32>
    %4 = stablehlo.add %arg3, %3 : tensor<5xf32>
    %5 = stablehlo.dot_general %3, %arg7, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5xf32>) -> tensor<5x5xf32>
    %6 = stablehlo.transpose %5, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<5x5xf32>
    %8 = stablehlo.dot_general %3, %arg0, contracting_dims = [0] x [1], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5x5xf32>) -> tensor<5xf32>
    %9 = stablehlo.dot_general %3, %arg6, contracting_dims = [] x [], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<3xf32>) -> tensor<5x3xf32>
    %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<5x3xf32>) -> tensor<3x5xf32>
    %11 = stablehlo.add %arg1, %10 : tensor<3x5xf32>
    return %11, %7, %4, %8 : tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>
  }
}
