"""Collectives across replicas and partitions running in threads (1, 2 and 4 devices)."""

import numpy as np
import pytest

import xlapy
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
from xlapy.errors import DeadlineExceededError
from xlapy.hlo import parse_module

ADD = """
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
"""


def run(text, per_device_args, replicas=1, partitions=1, timeout=10.0):
    module = parse_module(text)
    options = InterpreterOptions(replicas, partitions, collective_timeout=timeout)
    exe = InterpreterBackend().compile(module, options)
    literals = [[xlapy.Literal.from_value(a) for a in args] for args in per_device_args]
    return [r.to_numpy() for r in exe.execute_replicated(literals)]


def per_replica(n, size=4):
    return [[np.arange(size, dtype=np.float32) + 10 * r] for r in range(n)]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_all_reduce_over_every_replica(n):
    text = f"""HloModule m, replica_count={n}
{ADD}
ENTRY e {{
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{}}, to_apply=add
}}"""
    out = run(text, per_replica(n), replicas=n)
    expected = sum(np.arange(4, dtype=np.float32) + 10 * r for r in range(n))
    for r in range(n):
        np.testing.assert_array_equal(out[r], expected)


def test_all_reduce_with_replica_groups():
    text = f"""HloModule m, replica_count=4
{ADD}
ENTRY e {{
  x = f32[4] parameter(0)
  ROOT r = f32[4] all-reduce(x), replica_groups={{{{0,2}},{{1,3}}}}, to_apply=add
}}"""
    out = run(text, per_replica(4), replicas=4)
    base = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(out[0], 2 * base + 20)
    np.testing.assert_array_equal(out[2], 2 * base + 20)
    np.testing.assert_array_equal(out[1], 2 * base + 40)
    np.testing.assert_array_equal(out[3], 2 * base + 40)


def test_seed_cross_replica_sum_with_two_replicas():
    b = xlapy.XlaBuilder("crs")
    x = xlapy.ops.Parameter(b, 0, xlapy.Shape.parse("f32[3]"), "x")
    # CrossReplicaSum is an all-reduce with an add computation.
    sub = b.create_sub_builder("add")
    p, q = xlapy.ops.Parameter(sub, 0, "f32[]"), xlapy.ops.Parameter(sub, 1, "f32[]")
    add = sub.build(xlapy.ops.Add(p, q))
    from xlapy.opcode import HloOpcode

    b.add_instruction(
        HloOpcode.ALL_REDUCE, [x], computations={"to_apply": b.computation_arg(add, [], "CRS", "add")},
        op_name="CrossReplicaSum",
    )  # fmt: skip
    client = xlapy.local_client("interpreter")
    exe = client.compile(b.build(), xlapy.CompileOptions(num_replicas=2))
    out = exe.execute_replicated([[np.float32([1, 2, 3])], [np.float32([10, 20, 30])]])
    for r in out:
        np.testing.assert_array_equal(r, [11, 22, 33])


@pytest.mark.parametrize("n", [2, 4])
def test_all_gather_and_reduce_scatter(n):
    text = f"""HloModule m, replica_count={n}
{ADD}
ENTRY e {{
  x = f32[4] parameter(0)
  g = f32[{4 * n}] all-gather(x), replica_groups={{}}, dimensions={{0}}
  rs = f32[{4 // n}] reduce-scatter(x), replica_groups={{}}, dimensions={{0}}, to_apply=add
  ROOT t = (f32[{4 * n}], f32[{4 // n}]) tuple(g, rs)
}}"""
    out = run(text, per_replica(n), replicas=n)
    gathered = np.concatenate([np.arange(4, dtype=np.float32) + 10 * r for r in range(n)])
    total = sum(np.arange(4, dtype=np.float32) + 10 * r for r in range(n))
    for r in range(n):
        np.testing.assert_array_equal(out[r][0], gathered)
        np.testing.assert_array_equal(out[r][1], np.split(total, n)[r])


def test_all_to_all_array_form():
    text = """HloModule m, replica_count=2
ENTRY e {
  x = f32[2,4] parameter(0)
  ROOT a = f32[2,4] all-to-all(x), replica_groups={{0,1}}, dimensions={1}
}"""
    xs = [np.arange(8, dtype=np.float32).reshape(2, 4) + 100 * r for r in range(2)]
    out = run(text, [[x] for x in xs], replicas=2)
    for r in range(2):
        expected = np.concatenate([np.split(xs[s], 2, axis=1)[r] for s in range(2)], axis=1)
        np.testing.assert_array_equal(out[r], expected)


def test_collective_permute_ring_and_zeros_for_unreached():
    text = """HloModule m, replica_count=4
ENTRY e {
  x = f32[2] parameter(0)
  ROOT p = f32[2] collective-permute(x), source_target_pairs={{0,1},{1,2},{2,3}}
}"""
    out = run(text, per_replica(4, 2), replicas=4)
    np.testing.assert_array_equal(out[0], [0, 0])  # nobody sends to replica 0
    for r in (1, 2, 3):
        np.testing.assert_array_equal(out[r], np.arange(2) + 10 * (r - 1))


def test_collective_broadcast_and_ids():
    text = """HloModule m, replica_count=2, num_partitions=2
ENTRY e {
  x = f32[2] parameter(0)
  b = f32[2] collective-broadcast(x), replica_groups={{1,0}}
  r = u32[] replica-id()
  p = u32[] partition-id()
  ROOT t = (f32[2], u32[], u32[]) tuple(b, r, p)
}"""
    args = [[np.float32([d, d])] for d in range(4)]
    out = run(text, args, replicas=2, partitions=2)
    for device, (value, replica, partition) in enumerate(out):
        assert replica == device // 2 and partition == device % 2
        # Cross-replica groups within each partition: the first member (replica 1) sends.
        np.testing.assert_array_equal(value, [2 + device % 2] * 2)


def test_mismatched_collective_times_out():
    text = f"""HloModule m, replica_count=2
{ADD}
reduce_branch {{
  x = f32[2] parameter(0)
  ROOT r = f32[2] all-reduce(x), replica_groups={{}}, to_apply=add
}}
skip_branch {{
  ROOT x = f32[2] parameter(0)
}}
ENTRY e {{
  x = f32[2] parameter(0)
  id = u32[] replica-id()
  zero = u32[] constant(0)
  first = pred[] compare(id, zero), direction=EQ
  ROOT c = f32[2] conditional(first, x, x), true_computation=reduce_branch, false_computation=skip_branch
}}"""
    with pytest.raises(DeadlineExceededError, match="did not arrive"):
        run(text, per_replica(2, 2), replicas=2, timeout=0.5)


def test_send_and_recv_within_one_device():
    text = """HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  t = token[] after-all()
  s = (f32[3], u32[], token[]) send(x, t), channel_id=7
  sd = token[] send-done(s), channel_id=7
  r = (f32[3], u32[], token[]) recv(t), channel_id=7
  rd = (f32[3], token[]) recv-done(r), channel_id=7
  ROOT v = f32[3] get-tuple-element(rd), index=0
}"""
    (out,) = run(text, [[np.float32([1, 2, 3])]])
    np.testing.assert_array_equal(out, [1, 2, 3])
