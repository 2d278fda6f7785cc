"""Collectives, ids, send/recv, feeds and random numbers, run on several interpreter devices."""

from __future__ import annotations

import numpy as np

from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
from xlapy.literal import Literal
from xlapy.opcode import HloOpcode
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


def run_replicated(text: str, arguments, replicas: int = 1, partitions: int = 1, function=None):
    """Per-device results of running on ``replicas`` x ``partitions`` interpreter devices."""
    module = lower_text(text, function)
    options = InterpreterOptions(num_replicas=replicas, num_partitions=partitions)
    executable = InterpreterBackend().compile(module, options)
    literals = [[Literal.from_value(a) for a in args] for args in arguments]
    return [r.to_numpy() for r in executable.execute_replicated(literals)]


ADD_REGION = """({
      ^bb0(%a: tensor<i64>, %b: tensor<i64>):
        %s = stablehlo.add %a, %b : tensor<i64>
        stablehlo.return %s : tensor<i64>
    })"""


def test_module_attributes_give_the_replica_count():
    text = """
    module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 4 : i32} {
      func.func @main(%x: tensor<f32>) -> tensor<f32> {
        return %x : tensor<f32>
      }
    }"""
    module = lower_text(text)
    assert (module.replica_count, module.num_partitions) == (4, 2)


def test_all_reduce():
    text = f"""
    func.func @main(%x: tensor<4xi64>) -> tensor<4xi64> {{
      %0 = "stablehlo.all_reduce"(%x) {ADD_REGION} {{
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
        channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
      }} : (tensor<4xi64>) -> tensor<4xi64>
      return %0 : tensor<4xi64>
    }}"""
    a, b = np.array([1, 2, 3, 4]), np.array([5, 6, 7, 8])
    out = run_replicated(text, [[a], [b]], replicas=2)
    for result in out:
        np.testing.assert_array_equal(result, a + b)


def test_all_gather_reduce_scatter_all_to_all():
    text = f"""
    func.func @main(%x: tensor<2x2xi64>) -> (tensor<2x4xi64>, tensor<1x2xi64>, tensor<4x1xi64>) {{
      %0 = "stablehlo.all_gather"(%x) {{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2x2xi64>) -> tensor<2x4xi64>
      %1 = "stablehlo.reduce_scatter"(%x) {ADD_REGION} {{scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2x2xi64>) -> tensor<1x2xi64>
      %2 = "stablehlo.all_to_all"(%x) {{split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = 2 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}} : (tensor<2x2xi64>) -> tensor<4x1xi64>
      return %0, %1, %2 : tensor<2x4xi64>, tensor<1x2xi64>, tensor<4x1xi64>
    }}"""
    a = np.array([[1, 2], [3, 4]])
    b = np.array([[5, 6], [7, 8]])
    (g0, s0, t0), (g1, s1, t1) = run_replicated(text, [[a], [b]], replicas=2)
    np.testing.assert_array_equal(g0, np.concatenate([a, b], 1))
    np.testing.assert_array_equal(g1, np.concatenate([a, b], 1))
    np.testing.assert_array_equal(s0, (a + b)[:1])
    np.testing.assert_array_equal(s1, (a + b)[1:])
    np.testing.assert_array_equal(t0, np.concatenate([a[:, :1], b[:, :1]], 0))
    np.testing.assert_array_equal(t1, np.concatenate([a[:, 1:], b[:, 1:]], 0))


def test_permute_broadcast_reduce_and_ids():
    text = f"""
    func.func @main(%x: tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>) {{
      %0 = "stablehlo.collective_permute"(%x) {{source_target_pairs = dense<[[0, 1], [1, 2]]> : tensor<2x2xi64>}} : (tensor<2xi64>) -> tensor<2xi64>
      %1 = "stablehlo.collective_broadcast"(%x) {{replica_groups = dense<[[2, 1, 0]]> : tensor<1x3xi64>}} : (tensor<2xi64>) -> tensor<2xi64>
      %2 = "stablehlo.collective_reduce"(%x) {ADD_REGION} {{replica_groups = dense<[[1, 2, 0]]> : tensor<1x3xi64>}} : (tensor<2xi64>) -> tensor<2xi64>
      %3 = stablehlo.replica_id : tensor<ui32>
      return %0, %1, %2, %3 : tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<ui32>
    }}"""
    xs = [np.array([1, 2]), np.array([3, 4]), np.array([5, 6])]
    out = run_replicated(text, [[x] for x in xs], replicas=3)
    permuted = [o[0] for o in out]
    np.testing.assert_array_equal(permuted[0], [0, 0])
    np.testing.assert_array_equal(permuted[1], xs[0])
    np.testing.assert_array_equal(permuted[2], xs[1])
    broadcast = [o[1] for o in out]
    for b in broadcast:
        np.testing.assert_array_equal(b, xs[2])
    reduced = [o[2] for o in out]
    np.testing.assert_array_equal(reduced[1], xs[0] + xs[1] + xs[2])
    np.testing.assert_array_equal(reduced[0], [0, 0])  # not its group's first member
    np.testing.assert_array_equal(reduced[2], [0, 0])
    assert [int(o[3]) for o in out] == [0, 1, 2]


def test_partition_id():
    text = """
    func.func @main() -> tensor<ui32> {
      %0 = stablehlo.partition_id : tensor<ui32>
      return %0 : tensor<ui32>
    }"""
    out = run_replicated(text, [[], []], partitions=2)
    assert [int(o) for o in out] == [0, 1]


def test_send_recv_and_feeds_lower_to_token_threaded_hlo():
    text = """
    func.func @main(%x: tensor<2xf32>, %t: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
      %t1 = "stablehlo.send"(%x, %t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<2xf32>, !stablehlo.token) -> !stablehlo.token
      %r:2 = "stablehlo.recv"(%t1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<2xf32>, !stablehlo.token)
      %i:3 = "stablehlo.infeed"(%r#1) {infeed_config = ""} : (!stablehlo.token) -> (tensor<2xf32>, tensor<i32>, !stablehlo.token)
      %o = "stablehlo.outfeed"(%i#0, %i#1, %i#2) {outfeed_config = ""} : (tensor<2xf32>, tensor<i32>, !stablehlo.token) -> !stablehlo.token
      return %r#0, %o : tensor<2xf32>, !stablehlo.token
    }"""
    module = lower_text(text)
    opcodes = [i.opcode for i in module.entry.instructions]
    for opcode in (HloOpcode.SEND, HloOpcode.SEND_DONE, HloOpcode.RECV, HloOpcode.RECV_DONE,
                   HloOpcode.INFEED, HloOpcode.OUTFEED):  # fmt: skip
        assert opcode in opcodes
    infeed = next(i for i in module.entry.instructions if i.opcode is HloOpcode.INFEED)
    assert str(infeed.shape.tuple_shapes[0].without_layout()) == "(f32[2], s32[])"


def test_infeed_and_outfeed_run():
    from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
    from xlapy.literal import Literal

    text = """
    func.func @main(%t: !stablehlo.token) -> (tensor<2xi64>, !stablehlo.token) {
      %0:2 = "stablehlo.infeed"(%t) : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
      %1 = stablehlo.add %0#0, %0#0 : tensor<2xi64>
      %2 = "stablehlo.outfeed"(%1, %0#1) : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
      return %1, %2 : tensor<2xi64>, !stablehlo.token
    }"""
    executable = InterpreterBackend().compile(lower_text(text), InterpreterOptions())
    executable.feeds[0].infeed.put(np.array([3, 4], np.int64))
    result = executable.execute([Literal.token()]).to_numpy()
    np.testing.assert_array_equal(result[0], [6, 8])
    np.testing.assert_array_equal(executable.feeds[0].outfeed.get_nowait(), [6, 8])


def test_rng_ops():
    text = """
    func.func @main(%s: tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>, tensor<1000xf32>) {
      %0:2 = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<3x4xui32>)
      %lo = stablehlo.constant dense<2.0> : tensor<f32>
      %hi = stablehlo.constant dense<3.0> : tensor<f32>
      %shape = stablehlo.constant dense<1000> : tensor<1xi64>
      %1 = stablehlo.rng %lo, %hi, %shape, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<1000xf32>
      return %0#0, %0#1, %1 : tensor<2xui64>, tensor<3x4xui32>, tensor<1000xf32>
    }"""
    state, bits, uniform = run_text(text, np.array([1, 2], np.uint64))
    assert state.shape == (2,) and bits.shape == (3, 4) and bits.dtype == np.uint32
    assert not np.array_equal(state, [1, 2])
    assert uniform.min() >= 2.0 and uniform.max() < 3.0
