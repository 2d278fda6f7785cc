module @jit_fori_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<2x4xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c_0, %iterArg_4 = %c, %iterArg_5 = %arg0) : tensor<i32>, tensor<i32>, tensor<4xf32>
    cond {
      %c_6 = stablehlo.constant dense<6> : tensor<i32>
      %11 = stablehlo.compare LT, %iterArg, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %11:2 = func.call @closed_call(%iterArg_4, %iterArg_5) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %12 = stablehlo.add %iterArg, %c_6 : tensor<i32>
      stablehlo.return %12, %11#0, %11#1 : tensor<i32>, tensor<i32>, tensor<4xf32>
    }
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = call @closed_call(%c_1, %arg0) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %2:2 = call @closed_call(%1#0, %1#1) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %3:2 = call @closed_call(%2#0, %2#1) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.multiply %4, %arg0 : tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %7 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %8 = stablehlo.concatenate %6, %7, dim = 0 : (tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %10:3 = stablehlo.while(%iterArg = %8, %iterArg_4 = %c_3, %iterArg_5 = %9) : tensor<2x4xf32>, tensor<i32>, tensor<2x4xf32>
    cond {
      %c_6 = stablehlo.constant dense<2> : tensor<i32>
      %11 = stablehlo.compare LT, %iterArg_4, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %11 : tensor<i1>
    } do {
      %11 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_4) : (tensor<2x4xf32>, tensor<i32>) -> tensor<4xf32>
      %12 = func.call @closed_call_0(%11) : (tensor<4xf32>) -> tensor<4xf32>
      %13 = func.call @dynamic_update_index_in_dim(%iterArg_5, %12, %iterArg_4) : (tensor<2x4xf32>, tensor<4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %14 = stablehlo.add %iterArg_4, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %14, %13 : tensor<2x4xf32>, tensor<i32>, tensor<2x4xf32>
    }
    return %0#2, %3#1, %10#2 : tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>
  }
  func.func private @closed_call(%arg0: tensor<i32>, %arg1: tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg0, %c : tensor<i32>
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.multiply %arg1, %1 : tensor<4xf32>
    %3 = stablehlo.convert %arg0 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.add %arg1, %4 : tensor<4xf32>
    %6 = stablehlo.sine %5 : tensor<4xf32>
    %7 = stablehlo.add %2, %6 : tensor<4xf32>
    return %0, %7 : tensor<i32>, tensor<4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x4xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 4] : (tensor<2x4xf32>, tensor<i32>, tensor<i32>) -> tensor<1x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @closed_call_0(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @cumsum(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @cumsum(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = call @cumsum_1(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @cumsum_1(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[3, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 4>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<i32>) -> tensor<2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x4xf32>
    return %1 : tensor<2x4xf32>
  }
}
