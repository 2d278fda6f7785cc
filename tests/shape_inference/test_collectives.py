"""Shape rules of collectives, send/recv, infeed/outfeed and the random-number ops."""

import pytest

import xlapy.shape_inference.collectives  # noqa: F401  (registers the rules)
from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.hlo.attributes import parse_attribute
from xlapy.opcode import HloOpcode as Op
from xlapy.shape import ProgramShape
from xlapy.shape_inference import infer_shape
from xlapy.shape_inference.collectives import all_to_all_result_shape
from xlapy.xla_data import RandomAlgorithm, RandomDistribution

S = Shape.parse
ADD = {"to_apply": ProgramShape([S("f32[]"), S("f32[]")], S("f32[]"))}


def groups(text):
    return parse_attribute(Op.ALL_GATHER, "replica_groups", text)


def ok(opcode, operands, attrs=None, comps=None, declared=None):
    return infer_shape(
        opcode, [S(o) for o in operands], attrs, comps, declared=S(declared) if declared else None
    )


def same(opcode, operands, attrs, expected, declared=None, comps=None):
    result = ok(opcode, operands, attrs, comps, declared)
    assert result.compatible(S(expected)), f"{result} != {expected}"


def fails(opcode, operands, attrs=None, message="", declared=None, comps=None):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        ok(opcode, operands, attrs, comps, declared)
    text = str(info.value)
    assert message in text, text
    for o in operands:
        assert str(S(o)) in text, text


# -- all-gather ------------------------------------------------------------------------------


def test_all_gather_spec_example():
    # Two replicas, [1.0, 2.5] and [3.0, 5.25] gathered along dimension 0 -> 4 elements.
    attrs = {"dimensions": (0,), "replica_groups": groups("{{0,1}}")}
    same(Op.ALL_GATHER, ["f32[2]"], attrs, "f32[4]")
    # replica_groups = {0, 2}, {1, 3}: groups of two.
    attrs = {"dimensions": (1,), "replica_groups": groups("{{0,2},{1,3}}")}
    same(Op.ALL_GATHER, ["f32[3,5]"], attrs, "f32[3,10]")
    # Iota groups and several operands (a tuple result).
    attrs = {"dimensions": (0,), "replica_groups": groups("[2,4]<=[8]")}
    same(Op.ALL_GATHER, ["f32[2,3]", "s32[1]"], attrs, "(f32[8,3], s32[4])")


def test_all_gather_group_size_from_declared_shape():
    # Empty groups: every replica takes part, a number only the module knows.
    attrs = {"dimensions": (0,), "replica_groups": groups("{}")}
    same(Op.ALL_GATHER, ["f32[2,3]"], attrs, "f32[16,3]", "f32[16,3]")
    same(Op.ALL_GATHER, ["f32[2]", "f32[3]"], attrs, "(f32[8], f32[12])", "(f32[8], f32[12])")
    # Cross-replica-and-partition: each group also spans all partitions.
    attrs = {"dimensions": (0,), "replica_groups": groups("{{0,1}}"), "channel_id": 1}
    same(Op.ALL_GATHER, ["f32[2]"], attrs, "f32[8]", "f32[8]")
    fails(Op.ALL_GATHER, ["f32[2]"], attrs, "a multiple of the group size 2", "f32[6]")
    # Flattened ids: the groups hold global device ids, so the size is known.
    attrs |= {"use_global_device_ids": True}
    same(Op.ALL_GATHER, ["f32[2]"], attrs, "f32[4]")


def test_all_gather_invalid():
    attrs = {"dimensions": (0,), "replica_groups": groups("{}")}
    fails(Op.ALL_GATHER, ["f32[2]"], attrs, "the result shape must be stated")
    fails(Op.ALL_GATHER, ["f32[2]"], attrs, "operand 0's size times", "f32[5]")
    fails(Op.ALL_GATHER, ["f32[2]", "f32[3]"], attrs, "different participant counts", "(f32[4], f32[9])")  # fmt: skip
    fails(Op.ALL_GATHER, ["f32[2]"], {"dimensions": (1,)}, "out of range", "f32[4]")
    fails(Op.ALL_GATHER, ["f32[2,2]"], {"dimensions": (0, 1)}, "exactly one dimension", "f32[4,4]")
    fails(Op.ALL_GATHER, ["f32[2]"], {"dimensions": (0,), "replica_groups": groups("{{0,1},{2}}")}, "same size")  # fmt: skip
    fails(Op.ALL_GATHER, ["f32[2]"], {"dimensions": (0,), "replica_groups": groups("{{0,1},{1,2}}")}, "more than once")  # fmt: skip
    fails(Op.ALL_GATHER, ["f32[2]"], {"dimensions": (0,), "use_global_device_ids": True}, "needs a channel_id", "f32[4]")  # fmt: skip
    fails(Op.ALL_GATHER, ["(f32[2])"], {"dimensions": (0,)}, "must be an array", "f32[4]")


def test_all_gather_start_done():
    attrs = {"dimensions": (0,), "replica_groups": groups("{{0,1}}")}
    same(Op.ALL_GATHER_START, ["f32[2,3]"], attrs, "(f32[2,3], f32[4,3])")
    same(Op.ALL_GATHER_START, ["f32[2]", "f32[1]"], attrs, "((f32[2], f32[1]), (f32[4], f32[2]))")
    same(Op.ALL_GATHER_DONE, ["(f32[2,3], f32[4,3])"], None, "f32[4,3]")
    empty = {"dimensions": (0,), "replica_groups": groups("{}")}
    same(Op.ALL_GATHER_START, ["f32[2]"], empty, "(f32[2], f32[8])", "(f32[2], f32[8])")
    fails(Op.ALL_GATHER_START, ["f32[2]"], empty, "(operands, results) pair", "f32[8]")
    fails(Op.ALL_GATHER_DONE, ["f32[2]"], None, "tuple an all-gather-start produces")
    fails(Op.ALL_GATHER_DONE, ["(f32[2])"], None, "tuple an all-gather-start produces")
    fails(Op.ALL_GATHER_DONE, ["(f32[2], f32[4])", "f32[2]"], None, "takes 1 operand")
    fails(
        Op.ALL_GATHER_START, ["f32[2,2]"], attrs | {"dimensions": (0, 1)}, "exactly one dimension"
    )
    fails(Op.ALL_GATHER_START, ["f32[2]"], empty, "must be stated")


# -- all-reduce, reduce-scatter -----------------------------------------------------------------


def test_all_reduce():
    same(Op.ALL_REDUCE, ["f32[2]"], {"replica_groups": groups("{}")}, "f32[2]", comps=ADD)
    # A tuple operand list reduces each element; groups may differ in size for all-reduce.
    attrs = {"replica_groups": groups("{{0,1,2},{3}}")}
    same(Op.ALL_REDUCE, ["f32[2]", "bf16[3,4]"], attrs, "(f32[2], bf16[3,4])", comps=ADD)
    same(Op.ALL_REDUCE_START, ["f32[2]"], None, "f32[2]", comps=ADD)
    same(Op.ALL_REDUCE_DONE, ["f32[2]"], None, "f32[2]")
    same(Op.ALL_REDUCE_DONE, ["(f32[2], s32[])"], None, "(f32[2], s32[])")


def test_all_reduce_invalid():
    fails(Op.ALL_REDUCE, ["s32[2]"], None, "reduces f32[]", comps=ADD)
    fails(Op.ALL_REDUCE, ["f32[2]"], None, "(T[], T[]) -> T[]", comps={"to_apply": ProgramShape([S("f32[]")], S("f32[]"))})  # fmt: skip
    fails(Op.ALL_REDUCE, ["f32[2]"], None, "parameter 1 is s32[]", comps={"to_apply": ProgramShape([S("f32[]"), S("s32[]")], S("f32[]"))})  # fmt: skip
    fails(Op.ALL_REDUCE, ["(f32[2])"], None, "must be an array", comps=ADD)
    fails(Op.ALL_REDUCE, ["f32[2]"], None, "needs a called computation to_apply=")
    fails(Op.ALL_REDUCE_START, ["s32[2]"], None, "reduces f32[]", comps=ADD)
    fails(Op.ALL_REDUCE_START, ["token[]"], None, "must be an array", comps=ADD)
    fails(Op.ALL_REDUCE_START, [], None, "at least one operand", comps=ADD)
    fails(Op.ALL_REDUCE_DONE, ["token[]"], None, "array or tuple of arrays")
    fails(Op.ALL_REDUCE_DONE, ["()"], None, "array or tuple of arrays")
    fails(Op.ALL_REDUCE_DONE, ["f32[2]", "f32[2]"], None, "takes 1 operand")


def test_reduce_scatter_spec_example():
    # Two replicas, [1.0, 2.25] and [3.0, 5.25]: each receives one element of the sum.
    attrs = {"dimensions": (0,), "replica_groups": groups("{{0,1}}")}
    same(Op.REDUCE_SCATTER, ["f32[2]"], attrs, "f32[1]", comps=ADD)
    attrs = {"dimensions": (1,), "replica_groups": groups("{{0,2},{1,3}}")}
    same(Op.REDUCE_SCATTER, ["f32[3,8]", "f32[5,4]"], attrs, "(f32[3,4], f32[5,2])", comps=ADD)
    attrs = {"dimensions": (0,), "replica_groups": groups("{}")}
    same(Op.REDUCE_SCATTER, ["f32[8]"], attrs, "f32[2]", "f32[2]", comps=ADD)


def test_reduce_scatter_invalid():
    attrs = {"dimensions": (0,), "replica_groups": groups("{{0,1,2}}")}
    fails(Op.REDUCE_SCATTER, ["f32[4]"], attrs, "divisible by the shard count 3", comps=ADD)
    attrs = {"dimensions": (0,), "replica_groups": groups("{}")}
    fails(Op.REDUCE_SCATTER, ["f32[8]"], attrs, "operand 0's size times", "f32[3]", comps=ADD)
    fails(Op.REDUCE_SCATTER, ["f32[8]"], attrs, "must be stated", comps=ADD)
    fails(Op.REDUCE_SCATTER, ["f32[8]"], {"dimensions": (2,)}, "out of range", "f32[4]", comps=ADD)


# -- all-to-all -----------------------------------------------------------------------------


def test_all_to_all_spec_example():
    # The builder-level example: f32[4,16], split_dimension=1, concat_dimension=0, 4 cores.
    assert all_to_all_result_shape(S("f32[4,16]"), 1, 0, 4).compatible(S("f32[16,4]"))
    with pytest.raises(InvalidArgumentError, match="all-to-all.*divisible by split_count 3"):
        all_to_all_result_shape(S("f32[4,16]"), 1, 0, 3)
    with pytest.raises(InvalidArgumentError, match="concat_dimension 2 is out of range"):
        all_to_all_result_shape(S("f32[4,16]"), 1, 2, 4)


def test_all_to_all_hlo_forms():
    # Array form: split and concatenate along dimensions={d}; the shape is kept.
    attrs = {"dimensions": (1,), "replica_groups": groups("{{0,1,2,3}}")}
    same(Op.ALL_TO_ALL, ["f32[4,16]"], attrs, "f32[4,16]")
    # Tuple form: one operand per participant.
    attrs = {"replica_groups": groups("{{0,1},{2,3}}")}
    same(Op.ALL_TO_ALL, ["f32[2,3]", "f32[2,3]"], attrs, "(f32[2,3], f32[2,3])")
    same(Op.ALL_TO_ALL, ["f32[2]", "f32[2]", "f32[2]"], None, "(f32[2], f32[2], f32[2])")


def test_all_to_all_invalid():
    attrs = {"dimensions": (1,), "replica_groups": groups("{{0,1,2}}")}
    fails(Op.ALL_TO_ALL, ["f32[4,16]"], attrs, "must be divisible by the split count 3")
    fails(Op.ALL_TO_ALL, ["f32[4,16]", "f32[4,16]"], attrs, "takes one operand")
    fails(Op.ALL_TO_ALL, ["f32[2]", "f32[3]"], None, "all must have one shape")
    fails(Op.ALL_TO_ALL, ["f32[2]", "f32[2]"], {"replica_groups": groups("{{0,1,2}}")}, "one operand per participant (3)")  # fmt: skip
    fails(Op.ALL_TO_ALL, ["f32[4]"], {"dimensions": (1,)}, "out of range")


def test_ragged_all_to_all():
    sizes = ["s64[4]"] * 4
    same(Op.RAGGED_ALL_TO_ALL, ["f32[16,8]", "f32[32,8]"] + sizes, None, "f32[32,8]")
    same(Op.RAGGED_ALL_TO_ALL, ["bf16[16]", "bf16[24]"] + ["s32[2,4]"] * 4, None, "bf16[24]")
    fails(Op.RAGGED_ALL_TO_ALL, ["f32[16,8]", "f32[32,4]"] + sizes, None, "only in dimension 0")
    fails(Op.RAGGED_ALL_TO_ALL, ["f32[16]", "s32[32]"] + sizes, None, "same element type")
    fails(Op.RAGGED_ALL_TO_ALL, ["f32[16]", "f32[32]"] + sizes[:3] + ["s64[5]"], None, "must have the shape of input_offsets")  # fmt: skip
    fails(Op.RAGGED_ALL_TO_ALL, ["f32[16]", "f32[32]"] + ["f32[4]"] * 4, None, "integer array of rank 1 or 2")  # fmt: skip
    fails(Op.RAGGED_ALL_TO_ALL, ["f32[16]", "f32[32]"], None, "takes 6 operands")


# -- collective-permute, collective-broadcast ------------------------------------------------


def pairs(text):
    return parse_attribute(Op.COLLECTIVE_PERMUTE, "source_target_pairs", text)


def test_collective_permute():
    attrs = {"source_target_pairs": pairs("{{0,1},{1,2},{2,0}}")}
    same(Op.COLLECTIVE_PERMUTE, ["f32[4,2]"], attrs, "f32[4,2]")
    same(Op.COLLECTIVE_PERMUTE, ["f32[4]", "s32[2]"], attrs, "(f32[4], s32[2])")
    # In place: the result is the output buffer (operand 1).
    inplace = attrs | {
        "slice_sizes": parse_attribute(Op.COLLECTIVE_PERMUTE, "slice_sizes", "{{2}}")
    }
    same(Op.COLLECTIVE_PERMUTE, ["f32[4]", "f32[8]", "(s32[])", "(s32[])"], inplace, "f32[8]")
    same(Op.COLLECTIVE_PERMUTE_START, ["f32[4,2]"], attrs, "(f32[4,2], f32[4,2])")
    start = "(f32[4,2], f32[4,2], u32[], u32[])"
    same(Op.COLLECTIVE_PERMUTE_START, ["f32[4,2]"], attrs, start, start)
    same(Op.COLLECTIVE_PERMUTE_DONE, [start], None, "f32[4,2]")


def test_collective_permute_invalid():
    fails(Op.COLLECTIVE_PERMUTE, ["f32[4]"], {"source_target_pairs": pairs("{{0,1},{0,2}}")}, "source 0 more than once")  # fmt: skip
    fails(Op.COLLECTIVE_PERMUTE, ["f32[4]"], {"source_target_pairs": pairs("{{0,1},{2,1}}")}, "target 1 more than once")  # fmt: skip
    fails(Op.COLLECTIVE_PERMUTE, ["(f32[4])"], None, "must be an array")
    inplace = {"slice_sizes": ((2,),)}
    fails(Op.COLLECTIVE_PERMUTE, ["f32[4]", "f32[8]"], inplace, "takes 4 operands")
    fails(Op.COLLECTIVE_PERMUTE, ["f32[4]", "s32[8]", "(s32[])", "(s32[])"], inplace, "same element type")  # fmt: skip
    fails(Op.COLLECTIVE_PERMUTE_START, ["f32[4]"], None, "must start with the sent", "(f32[5], f32[4], u32[], u32[])")  # fmt: skip
    fails(Op.COLLECTIVE_PERMUTE_DONE, ["f32[4]"], None, "collective-permute-start")
    fails(Op.COLLECTIVE_PERMUTE_DONE, ["(f32[4])"], None, "collective-permute-start")
    fails(Op.COLLECTIVE_PERMUTE_DONE, ["(f32[4], f32[4])", "f32[4]"], None, "takes 1 operand")
    fails(Op.COLLECTIVE_PERMUTE_START, ["f32[4]"], None, "(sent, received, context...)", "f32[4]")  # fmt: skip
    fails(Op.COLLECTIVE_PERMUTE_START, ["f32[4]"], {"source_target_pairs": pairs("{{1,0},{1,2}}")}, "source 1 more than once")  # fmt: skip


def test_collective_broadcast():
    attrs = {"replica_groups": groups("{{0,1}}")}
    same(Op.COLLECTIVE_BROADCAST, ["f32[4]"], attrs, "f32[4]")
    fails(Op.COLLECTIVE_BROADCAST, ["f32[4]"], {"replica_groups": groups("{{0,1},{2}}")}, "same size")  # fmt: skip
    fails(Op.COLLECTIVE_BROADCAST, ["token[]"], attrs, "must be an array")
    fails(Op.COLLECTIVE_BROADCAST, [], attrs, "at least one operand")


# -- send / recv ------------------------------------------------------------------------------


def test_send_recv_spec_contexts():
    # Send/Recv return {data, u32 request id, token}; the done forms return token / (data, token).
    same(Op.SEND, ["f32[2,3]", "token[]"], {"channel_id": 1}, "(f32[2,3], u32[], token[])")
    same(Op.SEND_DONE, ["(f32[2,3], u32[], token[])"], {"channel_id": 1}, "token[]")
    ctx = "(f32[2,3], u32[], token[])"
    same(Op.RECV, ["token[]"], {"channel_id": 1}, ctx, ctx)
    same(Op.RECV_DONE, [ctx], {"channel_id": 1}, "(f32[2,3], token[])")


def test_send_recv_invalid():
    fails(Op.SEND, ["f32[2]", "f32[2]"], None, "operand 1 must be a token")
    fails(Op.SEND, ["f32[2]"], None, "takes 2 operands")
    fails(Op.SEND, ["f32[2]", "token[]", "token[]"], None, "takes 2 operands")
    fails(Op.SEND_DONE, ["token[]"], None, "(data, u32[], token[]) tuple")
    fails(Op.SEND_DONE, ["(f32[2], u32[], f32[])"], None, "(data, u32[], token[]) tuple")
    fails(Op.SEND_DONE, ["(f32[2], token[])"], None, "(data, u32[], token[]) tuple")
    fails(Op.RECV, ["token[]"], None, "must be given")
    fails(Op.RECV, ["token[]"], None, "(data, u32[], token[]) tuple", "(f32[2], s32[], token[])")
    fails(Op.RECV, ["f32[]"], None, "operand 0 must be a token", "(f32[2], u32[], token[])")
    fails(Op.RECV_DONE, ["(f32[2], u32[])"], None, "(data, u32[], token[]) tuple")
    fails(Op.RECV_DONE, ["token[]"], None, "(data, u32[], token[]) tuple")
    fails(Op.RECV_DONE, [], None, "takes 1 operand")


# -- infeed / outfeed -------------------------------------------------------------------------


def test_infeed_outfeed():
    same(Op.INFEED, ["token[]"], None, "((f32[2], s32[]), token[])", "((f32[2], s32[]), token[])")
    same(Op.INFEED, ["token[]"], None, "((), token[])", "((), token[])")  # an empty tuple: no-op
    same(Op.OUTFEED, ["f32[2]", "token[]"], {"outfeed_shape": S("f32[2]{0}")}, "token[]")
    fails(Op.INFEED, ["token[]"], None, "must be given")
    fails(Op.INFEED, ["token[]"], None, "(data, token[]) tuple", "f32[2]")
    fails(Op.INFEED, ["token[]"], None, "token-free data", "((f32[2], token[]), token[])")
    fails(Op.INFEED, ["f32[]"], None, "must be a token", "(f32[2], token[])")
    fails(Op.OUTFEED, ["f32[2]", "token[]"], {"outfeed_shape": S("f32[3]")}, "must match the data")
    fails(Op.OUTFEED, ["f32[2]", "f32[2]"], None, "operand 1 must be a token")
    fails(Op.OUTFEED, ["f32[2]"], None, "takes 2 operands")


# -- random numbers -----------------------------------------------------------------------------


def test_rng():
    normal = {"distribution": RandomDistribution.RNG_NORMAL}
    uniform = {"distribution": RandomDistribution.RNG_UNIFORM}
    same(Op.RNG, ["f32[]", "f32[]"], normal, "f32[3,4]", "f32[3,4]")
    same(Op.RNG, ["s32[]", "s32[]"], uniform, "s32[7]", "s32[7]")
    same(Op.RNG, ["pred[]", "pred[]"], uniform, "pred[2]", "pred[2]")
    fails(Op.RNG, ["s32[]", "s32[]"], normal, "floating-point parameters", "s32[2]")
    fails(Op.RNG, ["f32[2]", "f32[]"], uniform, "must be scalars", "f32[2]")
    fails(Op.RNG, ["f32[]", "f64[]"], uniform, "same element type", "f32[2]")
    fails(Op.RNG, ["f32[]", "f32[]"], uniform, "parameters' type f32", "f64[2]")
    fails(Op.RNG, ["f32[]", "f32[]"], uniform, "must be given")


def test_rng_bit_generator():
    three_fry = {"algorithm": RandomAlgorithm.RNG_THREE_FRY}
    philox = {"algorithm": RandomAlgorithm.RNG_PHILOX}
    same(Op.RNG_BIT_GENERATOR, ["u64[2]"], three_fry, "(u64[2], u32[4,4])", "(u64[2], u32[4,4])")
    same(Op.RNG_BIT_GENERATOR, ["u64[3]"], philox, "(u64[3], u64[8])", "(u64[3], u64[8])")
    default = {"algorithm": RandomAlgorithm.RNG_DEFAULT}
    same(Op.RNG_BIT_GENERATOR, ["u32[4]"], default, "(u32[4], u8[16])", "(u32[4], u8[16])")
    fails(Op.RNG_BIT_GENERATOR, ["u64[3]"], three_fry, "needs a u64 state of 2", "(u64[3], u32[4])")  # fmt: skip
    fails(Op.RNG_BIT_GENERATOR, ["s64[2]"], three_fry, "vector of unsigned integers", "(s64[2], u32[4])")  # fmt: skip
    fails(Op.RNG_BIT_GENERATOR, ["u64[2]"], three_fry, "initial state's shape", "(u64[3], u32[4])")  # fmt: skip
    fails(Op.RNG_BIT_GENERATOR, ["u64[2]"], three_fry, "integer element type", "(u64[2], f32[4])")  # fmt: skip
    fails(Op.RNG_BIT_GENERATOR, ["u64[2]"], three_fry, "(state, random bits) tuple", "u32[4]")
    fails(Op.RNG_BIT_GENERATOR, ["u64[2]"], three_fry, "must be given")


def test_rng_get_and_update_state():
    same(Op.RNG_GET_AND_UPDATE_STATE, [], {"delta": 4}, "u64[2]")
    fails(Op.RNG_GET_AND_UPDATE_STATE, [], None, "needs the attribute delta=")
    fails(Op.RNG_GET_AND_UPDATE_STATE, ["u64[2]"], {"delta": 4}, "takes 0 operands")
    fails(Op.RNG_GET_AND_UPDATE_STATE, [], {"delta": "4"}, "delta must be an integer")
