module @jit_scan_rnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<5x5xf32>, %arg2: tensor<3x5xf32>, %arg3: tensor<7x3xf32>, %arg4: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<7x5xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:7 = stablehlo.while(%iterArg = %arg3, %iterArg_0 = %arg2, %iterArg_1 = %arg1, %iterArg_2 = %arg0, %iterArg_3 = %c, %iterArg_4 = %arg4, %iterArg_5 = %0) : tensor<7x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<7x5xf32>
    cond {
      %c_6 = stablehlo.constant dense<7> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<7x3xf32>, tensor<i32>) -> tensor<3xf32>
      %3:2 = func.call @closed_call(%iterArg_0, %iterArg_1, %iterArg_2, %iterArg_4, %2) : (tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_5, %3#1, %iterArg_3) : (tensor<7x5xf32>, tensor<5xf32>, tensor<i32>) -> tensor<7x5xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %5, %3#0, %4 : tensor<7x3xf32>, tensor<3x5xf32>, tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>, tensor<7x5xf32>
    }
    return %1#5, %1#6 : tensor<5xf32>, tensor<7x5xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<7x3xf32>, %arg1: tensor<i32>) -> tensor<3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<7x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xf32>) -> tensor<3xf32>
    return %1 : tensor<3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x5xf32>, %arg1: tensor<5x5xf32>, %arg2: tensor<5xf32>, %arg3: tensor<5xf32>, %arg4: tensor<3xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3xf32>, tensor<3x5xf32>) -> tensor<5xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5x5xf32>) -> tensor<5xf32>
    %2 = stablehlo.add %0, %1 : tensor<5xf32>
    %3 = stablehlo.add %2, %arg2 : tensor<5xf32>
    %4 = stablehlo.tanh %3 : tensor<5xf32>
    return %4, %4 : tensor<5xf32>, tensor<5xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<7x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<i32>) -> tensor<7x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<7x5xf32>, tensor<1x5xf32>, tensor<i32>, tensor<i32>) -> tensor<7x5xf32>
    return %1 : tensor<7x5xf32>
  }
}
