"""Shape rules of the data-movement and plumbing ops, with the spec's examples."""

import pytest

from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.opcode import HloOpcode as Op
from xlapy.shape_inference import infer_shape

S = Shape.parse


def ok(opcode, operands, attrs=None, declared=None):
    return infer_shape(opcode, [S(o) for o in operands], attrs, declared=declared and S(declared))


def fails(opcode, operands, attrs=None, declared=None, message=""):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        ok(opcode, operands, attrs, declared)
    assert message in str(info.value)
    for o in operands:
        assert o in str(info.value)


def test_broadcast_in_dim():
    # BroadcastInDim(f32[3], [2,3], {1}) and the degenerate form.
    assert ok(Op.BROADCAST, ["f32[3]"], {"dimensions": [1]}, "f32[2,3]").compatible(S("f32[2,3]"))
    assert ok(Op.BROADCAST, ["f32[1,3]"], {"dimensions": [0, 1]}, "f32[4,3]").compatible(
        S("f32[4,3]")
    )
    assert ok(Op.BROADCAST, ["f32[]"], {"dimensions": []}, "f32[2,2]").compatible(S("f32[2,2]"))
    fails(Op.BROADCAST, ["f32[3]"], {"dimensions": [0]}, "f32[2,3]", "cannot broadcast")
    fails(Op.BROADCAST, ["f32[3]"], {"dimensions": []}, "f32[2,3]", "one entry per operand")
    fails(Op.BROADCAST, ["f32[2,2]"], {"dimensions": [1, 0]}, "f32[2,2]", "strictly increasing")
    fails(Op.BROADCAST, ["f32[3]"], {"dimensions": [2]}, "f32[2,3]", "outside [0, 2)")


def test_reshape():
    assert ok(Op.RESHAPE, ["f32[2,3]"], declared="f32[3,2]").compatible(S("f32[3,2]"))
    assert ok(Op.RESHAPE, ["f32[1,1]"], declared="f32[]").compatible(S("f32[]"))
    fails(Op.RESHAPE, ["f32[2,3]"], declared="f32[4,2]", message="cannot reshape 6 elements")
    fails(Op.RESHAPE, ["f32[2,3]"], message="result shape cannot be inferred")


def test_transpose_and_reverse():
    assert ok(Op.TRANSPOSE, ["f32[2,3,4]"], {"dimensions": [2, 0, 1]}).compatible(S("f32[4,2,3]"))
    fails(Op.TRANSPOSE, ["f32[2,3]"], {"dimensions": [0, 0]}, message="not a permutation")
    fails(Op.TRANSPOSE, ["f32[2,3]"], {"dimensions": [0]}, message="not a permutation")
    assert ok(Op.REVERSE, ["s32[2,3]"], {"dimensions": [0, 1]}).compatible(S("s32[2,3]"))
    fails(Op.REVERSE, ["s32[2,3]"], {"dimensions": [3]}, message="outside [0, 2)")
    fails(Op.REVERSE, ["s32[2,3]"], {"dimensions": [1, 1]}, message="repeats")


def test_concatenate_spec_examples():
    assert ok(Op.CONCATENATE, ["f32[3]", "f32[2]", "f32[1]"], {"dimensions": [0]}).compatible(
        S("f32[6]")
    )
    assert ok(Op.CONCATENATE, ["f32[2,3]", "f32[2,3]"], {"dimensions": [0]}).compatible(
        S("f32[4,3]")
    )
    fails(Op.CONCATENATE, ["f32[2,3]", "f32[2,4]"], {"dimensions": [0]}, message="only dimension 0")
    fails(Op.CONCATENATE, ["f32[2]", "s32[2]"], {"dimensions": [0]}, message="element type")
    fails(Op.CONCATENATE, ["f32[2]", "f32[2,1]"], {"dimensions": [0]}, message="rank")
    fails(Op.CONCATENATE, ["f32[2]"], {"dimensions": [1]}, message="outside")


def test_dynamic_slice_spec_examples():
    assert ok(Op.DYNAMIC_SLICE, ["f32[5]", "s32[]"], {"dynamic_slice_sizes": [2]}).compatible(
        S("f32[2]")
    )
    out = ok(Op.DYNAMIC_SLICE, ["f32[4,3]", "s32[]", "s32[]"], {"dynamic_slice_sizes": [2, 2]})
    assert out.compatible(S("f32[2,2]"))
    fails(Op.DYNAMIC_SLICE, ["f32[5]", "s32[]"], {"dynamic_slice_sizes": [6]}, message="[0, 5]")
    fails(Op.DYNAMIC_SLICE, ["f32[5]"], {"dynamic_slice_sizes": [2]}, message="1 scalar start")
    fails(Op.DYNAMIC_SLICE, ["f32[5]", "f32[]"], {"dynamic_slice_sizes": [2]}, message="integer")


def test_dynamic_update_slice_spec_examples():
    assert ok(Op.DYNAMIC_UPDATE_SLICE, ["f32[5]", "f32[2]", "s32[]"]).compatible(S("f32[5]"))
    out = ok(Op.DYNAMIC_UPDATE_SLICE, ["f32[4,3]", "f32[3,2]", "s32[]", "s32[]"])
    assert out.compatible(S("f32[4,3]"))
    fails(Op.DYNAMIC_UPDATE_SLICE, ["f32[5]", "f32[6]", "s32[]"], message="exceeds")
    fails(Op.DYNAMIC_UPDATE_SLICE, ["f32[5]", "s32[2]", "s32[]"], message="element type")
    fails(Op.DYNAMIC_UPDATE_SLICE, ["f32[5]", "f32[2]", "s32[]", "s32[]"], message="1 scalar")


def test_iota():
    assert ok(Op.IOTA, [], {"iota_dimension": 1}, "s32[2,3]").compatible(S("s32[2,3]"))
    fails(Op.IOTA, [], {"iota_dimension": 2}, "s32[2,3]", "outside [0, 2)")
    fails(Op.IOTA, [], {"iota_dimension": 0}, "f32[]", "rank >= 1")
    fails(Op.IOTA, [], {"iota_dimension": 0}, "pred[3]", "pred")


def test_tuples():
    t = ok(Op.TUPLE, ["f32[2]", "s32[]"])
    assert str(t) == "(f32[2], s32[])"
    assert ok(Op.GET_TUPLE_ELEMENT, ["(f32[2], s32[])"], {"index": 1}) == S("s32[]")
    fails(Op.GET_TUPLE_ELEMENT, ["(f32[2], s32[])"], {"index": 2}, message="out of range")
    fails(Op.GET_TUPLE_ELEMENT, ["f32[2]"], {"index": 0}, message="must be a tuple")
    fails(Op.GET_TUPLE_ELEMENT, ["(f32[2])"], {}, message="needs the attribute index=")


def test_tokens_and_plumbing():
    assert ok(Op.AFTER_ALL, ["token[]", "token[]"]) == Shape.token()
    assert ok(Op.AFTER_ALL, []) == Shape.token()
    fails(Op.AFTER_ALL, ["token[]", "f32[]"], message="must be a token")
    assert ok(Op.ADD_DEPENDENCY, ["f32[2]", "token[]"]) == S("f32[2]")
    fails(Op.ADD_DEPENDENCY, ["f32[2]", "f32[2]"], message="must be a token")
    assert ok(Op.OPT_BARRIER, ["(f32[2], s32[])"]) == S("(f32[2], s32[])")
    assert ok(Op.REPLICA_ID, []).compatible(S("u32[]"))
    assert ok(Op.PARTITION_ID, []).compatible(S("u32[]"))


def test_dimension_size_ops():
    assert ok(Op.GET_DIMENSION_SIZE, ["f32[<=4,3]"], {"dimensions": [0]}).compatible(S("s32[]"))
    out = ok(Op.SET_DIMENSION_SIZE, ["f32[4,3]", "s32[]"], {"dimensions": [0]})
    assert str(out) == "f32[<=4,3]{1,0}"
    fails(Op.SET_DIMENSION_SIZE, ["f32[4,3]", "s64[]"], {"dimensions": [0]}, message="s32 scalar")
    fails(Op.GET_DIMENSION_SIZE, ["f32[4,3]"], {"dimensions": [2]}, message="outside")


def test_bitcast_keeps_byte_size():
    assert ok(Op.BITCAST, ["f32[2,3]{1,0}"], declared="f32[6]{0}") == S("f32[6]{0}")
    fails(Op.BITCAST, ["f32[2,3]{1,0}"], declared="f32[7]{0}", message="byte size")
