"""Collective, point-to-point and feed ops as builder ops (xlapy.ops.collectives).

For each op: the spec's worked examples (operation_semantics, the StableHLO
spec, seed 003), inferred shapes for 1, 2 and 4 replicas with explicit, iota
and partition-spanning replica groups, the HLO XLA's builder emits (get-tuple-
elements for tuple operands, AllToAll's reshape/transpose lowering, send and
recv pairs, feed tokens), the printed attributes in XLA's order, a text round
trip through xlapy's parser, XLA's own parser accepting the text, single-
replica results on the real XLA, and invalid calls that fail at build() by
default and at the call in die-immediately mode, naming the op, the shapes
and the file:line of the call. Multi-replica execution belongs to the
interpreter's tests.
"""

import re
from collections.abc import Callable

import numpy as np
import pytest

import xlapy
from xlapy import computations
from xlapy import ops as C
from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.ops import elementwise as E
from xlapy.ops import movement as M
from xlapy.testing.builders import built, params, run, shape_is
from xlapy.xla_data_sharding import (
    ChannelHandle,
    ChannelType,
    CollectiveDeviceList,
    IotaReplicaGroupList,
)

S = xlapy.Shape.parse
ADD_F32 = computations.add(xlapy.F32)


# -- helpers ---------------------------------------------------------------------------------


def line_of(op: XlaOp) -> str:
    """The op's instruction line in the printed computation."""
    return f"{op.instruction.name} = " + op.instruction.to_text().split(" = ", 1)[1]


def opcodes(computation: XlaComputation) -> list[str]:
    return [i.opcode.value for i in computation.hlo_module.entry.instructions]


def check_invalid(shapes: tuple[str, ...], call: Callable[..., XlaOp], *fragments: str) -> None:
    """``call(b, *parameters)`` is invalid: recorded for build(), or raised at once.

    ``call`` is a one-line lambda, so its first line is the line of the op call
    that the message must point at.
    """
    where = f"[at {__file__}:{call.__code__.co_firstlineno}]"
    b = XlaBuilder("invalid")
    result = call(b, *params(b, *shapes))
    assert isinstance(result, XlaOp) and result.instruction is None
    with pytest.raises(InvalidArgumentError) as deferred:
        b.build()
    b = XlaBuilder("invalid_now")
    b.set_die_immediately_on_error(True)
    args = params(b, *shapes)
    with pytest.raises(InvalidArgumentError) as immediate:
        call(b, *args)
    for info in (deferred, immediate):
        message = str(info.value)
        for fragment in (*fragments, where):
            assert fragment in message, f"{fragment!r} not in {message!r}"


# -- all-reduce and cross-replica-sum ---------------------------------------------------------


def test_all_reduce_spec_examples():
    b = XlaBuilder("all_reduce")
    x, a, c = params(b, "f32[2]", "s64[4]", "s64[4]")
    # operation_semantics: f32[2] per replica, summed: the shape is kept.
    summed = C.AllReduce(x, ADD_F32)
    shape_is(summed, "f32[2]")
    assert "replica_groups={}, to_apply=" in line_of(summed)
    # StableHLO: two operands, one group of two replicas: a tuple of both shapes.
    both = C.AllReduce(M.Tuple(b, [a, c]), lambda p, q: E.Add(p, q), [[0, 1]])
    shape_is(both, "(s64[4], s64[4])")
    assert [o.opcode.value for o in both.instruction.operands] == ["get-tuple-element"] * 2
    assert "replica_groups={{0,1}}" in line_of(both)
    same = C.AllReduceTuple([a, c], computations.add(xlapy.S64), [[0, 1]])
    shape_is(same, "(s64[4], s64[4])")
    built(b, summed, both, same)


@pytest.mark.parametrize(
    "groups, printed",
    [
        ([[0, 1], [2, 3]], "{{0,1},{2,3}}"),
        ([[0, 2], [1, 3]], "{{0,2},{1,3}}"),
        ([[0, 1, 2, 3]], "{{0,1,2,3}}"),
        ([[3, 0], [1, 2]], "{{3,0},{1,2}}"),
        (IotaReplicaGroupList(2, 2), "[2,2]<=[4]"),
        (IotaReplicaGroupList(2, 2, (2, 2), (1, 0)), "[2,2]<=[2,2]T(1,0)"),
        (CollectiveDeviceList(), "{}"),
    ],
)
def test_all_reduce_groups_for_2_and_4_replicas(groups, printed):
    b = XlaBuilder("groups")
    (x,) = params(b, "f32[3,5]")
    r = C.AllReduce(x, ADD_F32, groups)
    shape_is(r, "f32[3,5]")
    assert f"replica_groups={printed}, to_apply=" in line_of(r)
    built(b, r)


def test_all_reduce_channel_global_ids_layout_and_one_tuple():
    b = XlaBuilder("all_reduce_options")
    x, y = params(b, "f32[2,3]", "f32[4]")
    r = C.AllReduce(
        x, ADD_F32, [[0, 1, 2, 3]], ChannelHandle(7), S("f32[2,3]{0,1}"), use_global_device_ids=True
    )
    assert r.shape.layout.minor_to_major == (0, 1)
    assert line_of(r).endswith(
        "channel_id=7, replica_groups={{0,1,2,3}}, constrain_layout=true, "
        f"use_global_device_ids=true, to_apply={r.instruction.attributes['to_apply'].name}"
    )
    # A one-element tuple stays a tuple, as XLA's builder wraps it again.
    one = C.AllReduce(M.Tuple(b, [y]), ADD_F32)
    shape_is(one, "(f32[4])")
    assert one.instruction.opcode.value == "tuple"
    # A channel handle of 0 is "no channel" (XLA's proto default).
    plain = C.AllReduce(y, ADD_F32, channel_id=0)
    assert "channel_id" not in line_of(plain)
    built(b, r, one, plain)


def test_cross_replica_sum_is_an_add_all_reduce_and_identity_on_one_replica():
    b = XlaBuilder("crs")
    x, p = params(b, "f32[2,3]", "pred[4]")
    total = C.CrossReplicaSum(x)
    anyof = C.CrossReplicaSum(p, [[0]])
    pair = C.CrossReplicaSum(M.Tuple(b, [x, x]))
    c = built(b, total, anyof, pair)
    sums = [comp for comp in c.hlo_module.computations if comp.name.startswith("sum.")]
    roots = sorted(comp.root.opcode.value for comp in sums)
    assert roots == ["add", "add", "or"]  # pred sums are ors, as XLA builds them
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    pv = np.array([True, False, True, False])
    out = run(c, xv, pv)
    np.testing.assert_array_equal(out[0], xv)
    np.testing.assert_array_equal(out[1], pv)
    np.testing.assert_array_equal(out[2], xv)
    np.testing.assert_array_equal(out[3], xv)


def test_all_reduce_with_a_max_reducer_runs_on_one_replica():
    b = XlaBuilder("ar_max")
    (x,) = params(b, "s32[5]")
    c = built(b, C.AllReduce(x, lambda p, q: E.Max(p, q), [[0]]))
    xv = np.array([3, -1, 4, 1, -5], np.int32)
    np.testing.assert_array_equal(run(c, xv)[0], xv)


def three_parameter_computation() -> XlaComputation:
    b = XlaBuilder("three")
    p, q, r = params(b, "f32[]", "f32[]", "f32[]")
    return b.build(E.Add(E.Add(p, q), r))


def test_all_reduce_invalid_calls():
    f = ("f32[4,3]",)
    check_invalid(f, lambda b, x: C.AllReduce(x, ADD_F32, [[0, 1]], use_global_device_ids=True), "AllReduce", "needs a channel_id", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllReduce(x, three_parameter_computation()), "AllReduce", "to_apply must be a (T[], T[]) -> T[] reduction", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllReduce(x, ADD_F32, [[0, 1], [1, 2]]), "AllReduce", "id 1 more than once", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllReduce(x, computations.add(xlapy.S32)), "AllReduce", "to_apply reduces s32[]", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.CrossReplicaSum(M.CreateToken(b)), "CrossReplicaSum", "must be an array", "token[]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllReduce(x, ADD_F32, shape_with_layout=S("f32[3,4]{0,1}")), "AllReduce", "shape_with_layout f32[3,4]{0,1} must be compatible with the result f32[4,3]")  # fmt: skip


def test_all_reduce_of_mixed_tuple_types_is_unimplemented_as_in_xla():
    b = XlaBuilder("mixed")
    x, y = params(b, "f32[2]", "s32[2]")
    with pytest.raises(UnimplementedError, match="same element type"):
        b.set_die_immediately_on_error(True)
        C.AllReduce(M.Tuple(b, [x, y]), ADD_F32)


# -- all-gather --------------------------------------------------------------------------------


def test_all_gather_spec_examples():
    b = XlaBuilder("all_gather")
    v, a, c = params(b, "f32[2]", "s64[2,2]", "s64[2,2]")
    # operation_semantics: [1.0, 2.5] and [3.0, 5.25] on two replicas give f32[4].
    g = C.AllGather(v, 0, 2)
    shape_is(g, "f32[4]")
    assert line_of(g).endswith("all-gather(p0), replica_groups={}, dimensions={0}")
    # StableHLO: two s64[2,2] operands gathered along dimension 1 in group {0,1}.
    both = C.AllGather(M.Tuple(b, [a, c]), 1, 2, [[0, 1]])
    shape_is(both, "(s64[2,4], s64[2,4])")
    same = C.AllGatherTuple([a, c], 1, 2, [[0, 1]])
    shape_is(same, "(s64[2,4], s64[2,4])")
    assert "replica_groups={{0,1}}, dimensions={1}" in line_of(same)
    built(b, g, both, same)


@pytest.mark.parametrize(
    "groups, shard_count, options, expected, printed",
    [
        ([[0, 1], [2, 3]], 2, {}, "f32[8,3]", "replica_groups={{0,1},{2,3}}, dimensions={0}"),
        ([[0, 2], [1, 3]], 2, {}, "f32[8,3]", "replica_groups={{0,2},{1,3}}, dimensions={0}"),
        ([[0, 1, 2, 3]], 4, {}, "f32[16,3]", "replica_groups={{0,1,2,3}}, dimensions={0}"),
        ((), 4, {}, "f32[16,3]", "replica_groups={}, dimensions={0}"),
        (IotaReplicaGroupList(2, 2, (2, 2), (1, 0)), 2, {}, "f32[8,3]",
         "replica_groups=[2,2]<=[2,2]T(1,0), dimensions={0}"),
        # A channel without global ids: groups also span partitions, a multiple of 2.
        ([[0, 1]], 4, {"channel_id": 1}, "f32[16,3]",
         "channel_id=1, replica_groups={{0,1}}, dimensions={0}"),
        ([[0, 1], [2, 3]], 2, {"channel_id": 3, "use_global_device_ids": True}, "f32[8,3]",
         "channel_id=3, replica_groups={{0,1},{2,3}}, dimensions={0}, use_global_device_ids=true"),
    ],
)  # fmt: skip
def test_all_gather_groups(groups, shard_count, options, expected, printed):
    b = XlaBuilder("all_gather_groups")
    (x,) = params(b, "f32[4,3]")
    g = C.AllGather(x, 0, shard_count, groups, **options)
    shape_is(g, expected)
    assert line_of(g).endswith(printed)
    built(b, g)


def test_a_rejected_layout_adds_no_instruction():
    b = XlaBuilder("rejected")
    b.set_die_immediately_on_error(True)
    (x,) = params(b, "f32[4,3]")
    for call in (
        lambda: C.AllGather(x, 0, 2, layout=[0]),
        lambda: C.ReduceScatter(x, ADD_F32, 0, 2, layout=[2, 1, 0]),
        lambda: C.AllReduce(x, ADD_F32, shape_with_layout=S("f32[4]")),
        lambda: C.AllToAll(x, 0, 1, 2, layout=[0]),
    ):
        with pytest.raises(InvalidArgumentError):
            call()
    assert opcodes(b.build(x)) == ["parameter"]


def test_all_gather_layout_is_constrained():
    b = XlaBuilder("all_gather_layout")
    (x,) = params(b, "f32[4,3]")
    g = C.AllGather(x, 1, 2, [[0, 1]], layout=[0, 1])
    assert str(g.shape) == "f32[4,6]{0,1}"
    assert "constrain_layout=true, dimensions={1}" in line_of(g)
    built(b, g)


def test_all_gather_and_reduce_scatter_of_one_replica_are_identities():
    b = XlaBuilder("one_replica")
    (x,) = params(b, "f32[2,3]")
    g = C.AllGather(x, 1, 1)
    s = C.ReduceScatter(x, ADD_F32, 0, 1, [[0]])
    a = C.AllToAll(x, 1, 0, 1)
    p = C.CollectivePermute(x, [(0, 0)])
    z = C.CollectivePermute(x, [])
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = run(built(b, g, s, a, p, z), xv)
    for result in out[:4]:
        np.testing.assert_array_equal(result, xv)
    # No pair targets replica 0, so it receives zeros (the spec's rule).
    np.testing.assert_array_equal(out[4], np.zeros_like(xv))


def test_all_gather_invalid_calls():
    f = ("f32[4,3]",)
    check_invalid(f, lambda b, x: C.AllGather(x, 2, 2), "AllGather", "all_gather_dimension 2 is out of range", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGather(x, 0, 0), "AllGather", "shard_count must be positive", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGather(x, 0, 3, [[0, 1], [2, 3]]), "AllGather", "shard_count 3 does not match the replica group size 2", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGather(x, 0, 2, [[0, 1], [2]]), "AllGather", "must all have the same size", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGather(x, 0, 4, [[0, 1]], channel_id=1, use_global_device_ids=True), "AllGather", "does not match the replica group size 2", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGather(x, 0, 2, layout=[0]), "AllGather", "layout {0} does not fit f32[8,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGatherTuple([x, 3.0], 0, 2), "AllGatherTuple", "operand 1 must be an XlaOp, got float")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllGatherTuple([x, x], 0, 2, layout=[1, 0]), "AllGatherTuple", "does not fit (f32[8,3]{1,0}, f32[8,3]{1,0})")  # fmt: skip


# -- reduce-scatter ----------------------------------------------------------------------------


def test_reduce_scatter_spec_example_and_groups():
    b = XlaBuilder("reduce_scatter")
    x, y = params(b, "s64[2,4]", "f32[8,2]")
    # StableHLO: s64[2,4] on two replicas, scatter dimension 1: s64[2,2] each.
    r = C.ReduceScatter(x, computations.add(xlapy.S64), 1, 2, [[0, 1]], channel_id=1)
    shape_is(r, "s64[2,2]")
    assert "channel_id=1, replica_groups={{0,1}}, dimensions={1}, to_apply=" in line_of(r)
    four = C.ReduceScatter(y, ADD_F32, 0, 4, [[0, 1, 2, 3]])
    shape_is(four, "f32[2,2]")
    pairs = C.ReduceScatter(
        y, ADD_F32, 0, 2, [[0, 2], [1, 3]], 5, layout=[0, 1], use_global_device_ids=True
    )
    assert str(pairs.shape) == "f32[4,2]{0,1}"
    assert (
        "channel_id=5, replica_groups={{0,2},{1,3}}, constrain_layout=true, "
        "use_global_device_ids=true, dimensions={0}, to_apply="
    ) in line_of(pairs)
    both = C.ReduceScatter(M.Tuple(b, [y, y]), ADD_F32, 1, 2)
    shape_is(both, "(f32[8,1], f32[8,1])")
    built(b, r, four, pairs, both)


def test_reduce_scatter_invalid_calls():
    f = ("f32[4,3]",)
    check_invalid(f, lambda b, x: C.ReduceScatter(x, ADD_F32, 1, 2), "ReduceScatter", "divisible by shard_count 2", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.ReduceScatter(x, ADD_F32, 0, 4, [[0, 1], [2, 3]]), "ReduceScatter", "does not match the replica group size 2", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.ReduceScatter(x, three_parameter_computation(), 0, 2), "ReduceScatter", "to_apply must be", "f32[4,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.ReduceScatter(x, ADD_F32, -1, 2), "ReduceScatter", "scatter_dimension -1 is out of range", "f32[4,3]")  # fmt: skip


# -- all-to-all --------------------------------------------------------------------------------


def test_all_to_all_spec_example_1_lowers_as_xla_builder():
    b = XlaBuilder("alltoall")
    (x,) = params(b, "f32[4,16]")
    r = C.AllToAll(x, 1, 0, 4)
    shape_is(r, "f32[16,4]")  # four f32[4,4] blocks, concatenated along dimension 0
    c = built(b, r)
    assert opcodes(c) == ["parameter", "all-to-all", "reshape", "transpose", "reshape"]
    entry = c.hlo_module.entry.instructions
    # An empty replica_groups is stated as the one group of split_count replicas.
    assert "replica_groups={{0,1,2,3}}, dimensions={1}" in entry[1].to_text()
    assert str(entry[1].shape) == "f32[4,16]{1,0}"
    assert str(entry[2].shape) == "f32[4,4,4]{2,1,0}"
    assert entry[3].attributes["dimensions"] == (1, 0, 2)


def test_all_to_all_spec_example_2_and_the_stablehlo_operands():
    b = XlaBuilder("alltoall2")
    a, c = params(b, "s64[2,4]", "s64[2,4]")
    ra = C.AllToAll(a, 1, 0, 2, [[0, 1]])
    rc = C.AllToAll(c, 1, 0, 2, [[0, 1]])
    shape_is(ra, "s64[4,2]")
    shape_is(rc, "s64[4,2]")
    built(b, ra, rc)


@pytest.mark.parametrize(
    "shape, split, concat, count",
    [("f32[4,16]", 1, 0, 4), ("f32[2,4]", 1, 0, 2), ("f32[6,2,5]", 0, 2, 3),
     ("f32[3,8,2]", 1, 2, 4), ("f32[2,3,4]", 2, 0, 2), ("f32[2,6,3]", 1, 1, 3)],
)  # fmt: skip
def test_all_to_all_lowering_concatenates_the_blocks(shape, split, concat, count):
    """After the HLO all-to-all, block j along the split dimension came from member j;
    the reshape/transpose/reshape must concatenate the blocks along ``concat``."""
    b = XlaBuilder("lowering")
    (x,) = params(b, shape)
    r = C.AllToAll(x, split, concat, count)
    c = built(b, r)
    exchanged = np.arange(np.prod(S(shape).dimensions)).reshape(S(shape).dimensions)
    expected = np.concatenate(np.split(exchanged, count, axis=split), axis=concat)
    value = exchanged
    for instruction in c.hlo_module.entry.instructions[2:]:
        if instruction.opcode.value == "reshape":
            value = value.reshape(instruction.shape.dimensions)
        else:
            value = value.transpose(instruction.attributes["dimensions"])
    np.testing.assert_array_equal(value, expected)
    assert r.shape.dimensions == expected.shape


def test_all_to_all_with_layout_uses_the_tuple_form():
    b = XlaBuilder("alltoall_layout")
    (x,) = params(b, "f32[4,6]")
    r = C.AllToAll(x, 1, 0, 2, [[0, 1]], layout=[0, 1])
    shape_is(r, "f32[8,3]")
    c = built(b, r)
    ops_ = opcodes(c)
    assert ops_ == ["parameter", "slice", "slice", "all-to-all"] + ["get-tuple-element"] * 2 + [
        "concatenate"
    ]
    exchange = c.hlo_module.entry.instructions[3]
    assert str(exchange.shape) == "(f32[4,3]{0,1}, f32[4,3]{0,1})"
    assert "replica_groups={{0,1}}, constrain_layout=true" in exchange.to_text()
    t = XlaBuilder("tuple_form")
    p, q = params(t, "f32[2]", "f32[2]")
    shape_is(C.AllToAllTuple([p, q], [[0, 1]], channel_id=4), "(f32[2], f32[2])")
    built(t)


def test_all_to_all_invalid_calls():
    f = ("f32[4,6]",)
    check_invalid(f, lambda b, x: C.AllToAll(x, 1, 0, 4), "AllToAll", "must be divisible by split_count 4", "f32[4,6]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllToAll(x, 0, 2, 2), "AllToAll", "concat_dimension 2 is out of range", "f32[4,6]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllToAll(x, 1, 0, 2, [[0, 1, 2]]), "AllToAll", "split_count 2 does not match the replica group size 3", "f32[4,6]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllToAll(M.Tuple(b, [x]), 1, 0, 2), "AllToAll", "must be an array", "(f32[4,6]{1,0})")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllToAllTuple([x, E.Neg(x), x], [[0, 1]]), "AllToAllTuple", "one operand per participant (2), got 3", "f32[4,6]")  # fmt: skip
    check_invalid(f, lambda b, x: C.AllToAll(x, 1, 0, 2, layout=[0, 1, 2]), "AllToAll", "layout {0,1,2} must be compatible", "f32[4,6]")  # fmt: skip


# -- ragged all-to-all ------------------------------------------------------------------------


def test_ragged_all_to_all_seed_example():
    b = XlaBuilder("ragged")
    data, out, offsets = params(b, "s32[3]", "s32[4]", "s32[2]")
    # Seed 003: two replicas, input s32[3], output s32[4], offsets and sizes s32[2].
    r = C.RaggedAllToAll(data, offsets, offsets, out, offsets, offsets, [[0, 1]])
    shape_is(r, "s32[4]")
    names = [o.name for o in r.instruction.operands]
    assert names == ["p0", "p1", "p2", "p2", "p2", "p2"]  # HLO order: input, output, ...
    assert line_of(r).endswith("ragged-all-to-all(p0, p1, p2, p2, p2, p2), replica_groups={{0,1}}")
    built(b, r)


def test_ragged_all_to_all_with_updates_per_device_and_rows():
    b = XlaBuilder("ragged2")
    data, out, offsets = params(b, "f32[8,3]", "f32[10,3]", "s64[4,2]")
    r = C.RaggedAllToAll(data, offsets, offsets, out, offsets, offsets, [[0, 1, 2, 3]], 2)
    shape_is(r, "f32[10,3]")
    assert "channel_id=2, replica_groups={{0,1,2,3}}" in line_of(r)
    built(b, r)


def test_ragged_all_to_all_invalid_calls():
    f = ("f32[8,3]", "f32[10,3]", "s32[2]")
    check_invalid(f, lambda b, x, o, n: C.RaggedAllToAll(x, E.ConvertElementType(n, xlapy.F32), n, o, n, n), "RaggedAllToAll", "must be an integer array", "f32[2]")  # fmt: skip
    check_invalid(f, lambda b, x, o, n: C.RaggedAllToAll(x, n, n, E.ConvertElementType(o, xlapy.S32), n, n), "RaggedAllToAll", "same element type", "s32[10,3]")  # fmt: skip
    check_invalid(f, lambda b, x, o, n: C.RaggedAllToAll(x, n, n, M.Reshape(o, [10, 3, 1]), n, n), "RaggedAllToAll", "same element type and rank", "f32[10,3,1]")  # fmt: skip
    check_invalid(f, lambda b, x, o, n: C.RaggedAllToAll(x, n, M.Reshape(n, [1, 2]), o, n, n), "RaggedAllToAll", "must have the shape of input_offsets", "s32[1,2]")  # fmt: skip


# -- collective-permute and collective-broadcast -------------------------------------------------


def test_collective_permute_spec_example():
    b = XlaBuilder("permute")
    (x,) = params(b, "s64[2,2]")
    # StableHLO: three replicas, 0 -> 1 -> 2; replica 0 receives zeros.
    r = C.CollectivePermute(x, [(0, 1), (1, 2)], ChannelHandle(1))
    shape_is(r, "s64[2,2]")
    assert line_of(r).endswith("channel_id=1, source_target_pairs={{0,1},{1,2}}")
    two = C.MultiCollectivePermute([x, E.Neg(x)], [[0, 1], [1, 0]])
    shape_is(two, "(s64[2,2], s64[2,2])")
    built(b, r, two)


def test_collective_broadcast_spec_example():
    b = XlaBuilder("broadcast")
    (x,) = params(b, "s64[1,2]")
    # StableHLO: four replicas, group {2,1}: replica 2 broadcasts to 1, 0 and 3 get zeros.
    r = C.CollectiveBroadcast(x, [[2, 1]])
    shape_is(r, "s64[1,2]")
    assert line_of(r).endswith("collective-broadcast(p0), replica_groups={{2,1}}")
    pair = C.CollectiveBroadcast([x, x], [[0, 1], [2, 3]], channel_id=2)
    shape_is(pair, "(s64[1,2], s64[1,2])")
    built(b, r, pair)
    with pytest.raises(UnimplementedError, match="has_dynamic_root"):
        b2 = XlaBuilder("dynamic_root")
        b2.set_die_immediately_on_error(True)
        C.CollectiveBroadcast(params(b2, "f32[2]")[0], [[0, 1]], has_dynamic_root=True)


def test_permute_and_broadcast_invalid_calls():
    f = ("f32[2,3]",)
    check_invalid(f, lambda b, x: C.CollectivePermute(x, [(0, 1), (0, 2)]), "CollectivePermute", "source 0 more than once", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.CollectivePermute(x, [(0, 1), (2, 1)]), "CollectivePermute", "target 1 more than once", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.CollectivePermute(x, [(0, 1, 2)]), "CollectivePermute", "source_target_pairs must be (source, target) pairs", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.MultiCollectivePermute([x], [(0, 1)]), "MultiCollectivePermute", "at least two operands", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.CollectiveBroadcast(x, [[0, 1], [1, 2]]), "CollectiveBroadcast", "id 1 more than once", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.CollectiveBroadcast(M.CreateToken(b), [[0, 1]]), "CollectiveBroadcast", "must be an array", "token[]")  # fmt: skip


# -- replica and partition ids, tokens -------------------------------------------------------------


def test_replica_and_partition_ids_are_u32_scalars_and_zero_on_one_device():
    b = XlaBuilder("ids")
    rid = C.ReplicaId(b)
    pid = C.PartitionId(b)
    shape_is(rid, "u32[]")
    shape_is(pid, "u32[]")
    assert line_of(rid) == f"{rid.instruction.name} = u32[] replica-id()"
    shifted = E.Add(rid, 10)
    out = run(built(b, rid, pid, shifted))
    assert [int(o) for o in out] == [0, 0, 10]
    assert out[0].dtype == np.uint32


def test_after_all_joins_tokens():
    b = XlaBuilder("after_all")
    t1, t2 = M.CreateToken(b), M.CreateToken(b)
    joined = M.AfterAll(b, [t1, t2])
    shape_is(joined, "token[]")
    built(b, joined)


def test_ids_and_tokens_invalid_calls():
    f = ("f32[2]",)
    check_invalid(f, lambda b, x: C.ReplicaId(x), "ReplicaId", "must be the XlaBuilder", "XlaOp")  # fmt: skip
    check_invalid(f, lambda b, x: C.PartitionId(x), "PartitionId", "must be the XlaBuilder", "XlaOp")  # fmt: skip
    check_invalid(f, lambda b, x: M.AfterAll(b, [M.CreateToken(b), x]), "AfterAll", "operand 1 must be a token", "f32[2]")  # fmt: skip


# -- send and recv -------------------------------------------------------------------------------


def test_send_and_recv_emit_xla_builders_pairs():
    b = XlaBuilder("send_recv")
    (x,) = params(b, "f32[2,3]")
    h1, h2 = C.CreateChannelHandle(b), C.CreateChannelHandle(b)
    assert (h1.handle, h2.handle) == (1, 2) and h1.type == ChannelType.DEVICE_TO_DEVICE
    done = C.Send(x, h1)
    data = C.Recv(b, S("f32[5]"), h2)
    shape_is(done, "token[]")
    shape_is(data, "f32[5]")
    c = built(b, done, data)
    assert opcodes(c)[1:9] == [
        "after-all", "send", "send-done", "after-all", "recv", "recv-done",
        "get-tuple-element", "tuple",
    ]  # fmt: skip
    send, send_done, recv, recv_done = (c.hlo_module.entry.instructions[i] for i in (2, 3, 5, 6))
    assert str(send.shape) == "(f32[2,3]{1,0}, u32[], token[])"
    assert send_done.operands == (send,) and send_done.to_text().endswith("channel_id=1")
    assert send.to_text().endswith(f"send({send.operands[0].name}, {send.operands[1].name}), channel_id=1")  # fmt: skip
    assert str(recv.shape) == "(f32[5]{0}, u32[], token[])"
    assert str(recv_done.shape) == "(f32[5]{0}, token[])"
    assert recv_done.attributes["channel_id"] == 2


def test_send_and_recv_with_tokens_and_host_transfers():
    b = XlaBuilder("tokens")
    (x,) = params(b, "f32[4]")
    token = M.CreateToken(b)
    sent = C.Send(x, token, ChannelHandle(3))
    also = C.SendWithToken(x, sent, ChannelHandle(4))
    received = C.Recv(b, also, S("s32[2]"), ChannelHandle(5))
    shape_is(received, "(s32[2], token[])")
    again = C.RecvWithToken(M.GetTupleElement(received, 1), S("s32[2]"), ChannelHandle(6))
    to_host = C.SendToHost(x, token, S("f32[4]{0}"), ChannelHandle(7, ChannelType.DEVICE_TO_HOST))
    from_host = C.RecvFromHost(token, S("f32[3]"), ChannelHandle(8, ChannelType.HOST_TO_DEVICE))
    assert line_of(to_host).endswith("channel_id=7, is_host_transfer=true")
    assert line_of(from_host).endswith("channel_id=8, is_host_transfer=true")
    assert from_host.instruction.operands[0].opcode.value == "recv"
    shape_is(from_host, "(f32[3], token[])")
    built(b, sent, also, received, again, to_host, from_host)


def test_send_recv_invalid_calls():
    f = ("f32[2,3]",)
    host = ChannelHandle(1, ChannelType.DEVICE_TO_HOST)
    check_invalid(f, lambda b, x: C.Send(x, host), "Send must use a device-to-device channel", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.SendWithToken(x, x, ChannelHandle(1)), "SendWithToken", "operand 1 must be a token", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.Recv(b, x, S("f32[2]"), ChannelHandle(1)), "Recv", "operand 0 must be a token", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.SendToHost(x, M.CreateToken(b), S("f32[3,2]"), host), "SendToHost", "f32[3,2]", "compatible with operand shape f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.Recv(b, S("f32[2]"), host), "Recv must use a device-to-device channel", "f32[2]")  # fmt: skip


# -- infeed and outfeed ----------------------------------------------------------------------------


def test_infeed_chains_its_implicit_tokens_as_xla_does():
    b = XlaBuilder("infeed")
    first = C.Infeed(b, S("f32[2]"), "cfg")
    second = C.Infeed(b, S("(f32[2], s32[])"))
    shape_is(first, "f32[2]")
    shape_is(second, "(f32[2], s32[])")
    c = built(b, first, second)
    assert opcodes(c) == [
        "after-all", "infeed", "get-tuple-element", "get-tuple-element",
        "infeed", "get-tuple-element", "get-tuple-element", "tuple",
    ]  # fmt: skip
    entry = c.hlo_module.entry.instructions
    assert entry[1].to_text().endswith(f'infeed({entry[0].name}), infeed_config="cfg"')
    assert entry[4].operands[0] is entry[2]  # the second infeed waits for the first's token
    assert entry[2].attributes["index"] == 1 and entry[3].attributes["index"] == 0
    t = XlaBuilder("infeed_token")
    pair = C.InfeedWithToken(M.CreateToken(t), S("u8[3,3]"))
    shape_is(pair, "(u8[3,3], token[])")
    assert "infeed_config" not in line_of(pair)
    built(t, pair)


def test_outfeed_chains_tokens_and_returns_the_empty_tuple():
    b = XlaBuilder("outfeed")
    (x,) = params(b, "f32[2,3]")
    nil = C.Outfeed(x, S("f32[2,3]"), "oc")
    shape_is(nil, "()")
    C.Outfeed(x, S("f32[2,3]{0,1}"), "")
    c = built(b, nil)
    entry = c.hlo_module.entry.instructions
    outfeeds = [i for i in entry if i.opcode.value == "outfeed"]
    assert outfeeds[0].to_text().endswith('outfeed_shape=f32[2,3]{1,0}, outfeed_config="oc"')
    assert outfeeds[1].to_text().endswith("outfeed_shape=f32[2,3]{0,1}")
    assert outfeeds[1].operands[1] is outfeeds[0]  # chained through the first's token
    t = XlaBuilder("outfeed_token")
    (y,) = params(t, "s32[4]")
    token = C.OutfeedWithToken(y, M.CreateToken(t), S("s32[4]"), "x")
    shape_is(token, "token[]")
    built(t, token)


def test_feed_invalid_calls():
    f = ("f32[2,3]",)
    check_invalid(f, lambda b, x: C.Outfeed(x, S("f32[3,2]"), ""), "Outfeed", "outfeed shape f32[3,2]", "compatible with operand shape f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.OutfeedWithToken(x, x, S("f32[2,3]"), ""), "OutfeedWithToken", "operand 1 must be a token", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.InfeedWithToken(x, S("f32[2]")), "InfeedWithToken", "operand 0 must be a token", "f32[2,3]")  # fmt: skip
    check_invalid(f, lambda b, x: C.Infeed(b, S("(f32[2], token[])")), "Infeed", "token-free data", "((f32[2]{0}, token[]), token[])")  # fmt: skip


# -- XLA's own parser and printer ---------------------------------------------------------------


def instruction_lines(text: str) -> set[str]:
    """Instruction lines without what only the long form adds (% and /*index=N*/)."""
    lines = set()
    for line in text.splitlines():
        line = re.sub(r"/\*index=\d+\*/", "", line.replace("%", "")).strip()
        if " = " in line and not line.startswith("HloModule"):
            lines.add(line.removeprefix("ROOT "))
    return lines


def test_xla_reads_and_prints_the_ops_as_we_print_them():
    """Every op in one module: XLA's parser accepts it, and XLA's printer writes every
    instruction line (attributes and their order included) as xlapy's printer does."""
    pytest.importorskip("jax", reason="jaxlib holds XLA's HLO parser and printer")
    from jax._src.lib import xla_client

    b = XlaBuilder("everything")
    x, data, out, offsets = params(b, "f32[4,8]", "f32[4,8]", "f32[6,8]", "s32[2]")
    token = M.CreateToken(b)
    host = ChannelHandle(7, ChannelType.DEVICE_TO_HOST)
    results = [
        C.AllReduce(x, ADD_F32, [[0, 1], [2, 3]], 1, S("f32[4,8]{0,1}"), True),
        C.AllGather(x, 0, 2, IotaReplicaGroupList(2, 2), layout=[0, 1]),
        C.AllGather(x, 0, 2, [[0, 1], [2, 3]], 5, use_global_device_ids=True),
        C.ReduceScatter(x, ADD_F32, 1, 4, [[0, 1, 2, 3]], 6, [0, 1], True),
        C.AllToAll(x, 1, 0, 2, [[0, 1], [2, 3]], channel_id=9),
        C.AllToAll(x, 1, 0, 2, [[0, 1], [2, 3]], layout=[1, 0]),
        C.RaggedAllToAll(data, offsets, offsets, out, offsets, offsets, [[0, 1]], 3),
        C.CollectivePermute(x, [(0, 1), (1, 0)], 2),
        C.CollectiveBroadcast(x, [[0, 1]], 4),
        C.CrossReplicaSum(x),
        C.ReplicaId(b),
        C.PartitionId(b),
        C.Send(x, token, ChannelHandle(3)),
        C.Recv(b, token, S("f32[2]"), ChannelHandle(4)),
        C.SendToHost(x, token, S("f32[4,8]"), host),
        C.Infeed(b, S("f32[3]"), "c"),
        C.OutfeedWithToken(x, token, S("f32[4,8]{0,1}"), "o"),
        C.Outfeed(x, S("f32[4,8]"), ""),
    ]
    text = built(b, *results).to_hlo_text()
    printed_by_xla = xla_client.hlo.hlo_module_from_text(text).to_string()
    assert instruction_lines(printed_by_xla) == instruction_lines(text)
