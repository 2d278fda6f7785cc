"""Data-movement ops: shapes of the spec's examples, text round trips and invalid calls."""

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module

S = xlapy.Shape.parse


def result(make, *shapes):
    b = xlapy.XlaBuilder("t")
    params = [ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes)]
    out = make(b, *params)
    computation = b.build(out)
    text = computation.to_hlo_text()
    assert parse_module(text).to_text() == text
    return computation.program_shape.result


@pytest.mark.parametrize(
    "make, shapes, expected",
    [
        (lambda b, x: ops.Broadcast(x, [2, 3]), ["f32[]"], "f32[2,3]"),  # the spec's example
        (lambda b, x: ops.Broadcast(x, [4]), ["s32[2,3]"], "s32[4,2,3]"),
        (lambda b, x: ops.BroadcastInDim(x, [2, 3], [1]), ["f32[3]"], "f32[2,3]"),
        (lambda b, x: ops.BroadcastInDim(x, [4, 3], [0, 1]), ["f32[1,3]"], "f32[4,3]"),
        (lambda b, x: ops.Reshape(x, [24]), ["f32[4,2,3]"], "f32[24]"),  # v012_24
        (lambda b, x: ops.Reshape(x, [8, 3]), ["f32[4,2,3]"], "f32[8,3]"),  # v012_83
        (lambda b, x: ops.Reshape(x, []), ["f32[1,1]"], "f32[]"),
        (lambda b, x: ops.Reshape(x, [1, 1]), ["f32[]"], "f32[1,1]"),
        (lambda b, x: ops.Reshape(x, [2, 1, 0], [3, 8]), ["f32[4,2,3]"], "f32[3,8]"),
        (lambda b, x: ops.Collapse(x, [0, 1, 2]), ["f32[4,2,3]"], "f32[24]"),  # v012
        (lambda b, x: ops.Collapse(x, [0, 1]), ["f32[4,2,3]"], "f32[8,3]"),  # v01
        (lambda b, x: ops.Collapse(x, [1, 2]), ["f32[4,2,3]"], "f32[4,6]"),  # v12
        (lambda b, x: ops.Transpose(x, [1, 0]), ["f32[2,3]"], "f32[3,2]"),
        (lambda b, x: ops.Rev(x, [0]), ["f32[2,3]"], "f32[2,3]"),
        (lambda b, x: ops.Slice(x, [2], [4]), ["f32[5]"], "f32[2]"),  # 1-D example
        (lambda b, x: ops.Slice(x, [2, 1], [4, 3]), ["f32[4,3]"], "f32[2,2]"),  # 2-D example
        (lambda b, x: ops.Slice(x, [0], [5], [2]), ["f32[5]"], "f32[3]"),
        (lambda b, x: ops.SliceInDim(x, 1, 3, 1, 1), ["f32[4,3]"], "f32[4,2]"),
        (lambda b, x, i: ops.DynamicSlice(x, [i], [2]), ["f32[5]", "s32[]"], "f32[2]"),
        (lambda b, x: ops.DynamicSlice(x, [2, 1], [2, 2]), ["f32[4,3]"], "f32[2,2]"),
        (
            lambda b, x, u: ops.DynamicUpdateSlice(x, u, [1, 1]),
            ["f32[4,3]", "f32[3,2]"],
            "f32[4,3]",
        ),
        (lambda b, x, y: ops.ConcatInDim(b, [x, y], 0), ["f32[3]", "f32[2]"], "f32[5]"),
        (lambda b, x, y: ops.ConcatInDim(b, [x, y], 1), ["f32[2,3]", "f32[2,1]"], "f32[2,4]"),
        (lambda b, x: ops.Pad(x, 0.0, [(1, 2, 1), (0, -1, 0)]), ["f32[2,3]"], "f32[6,2]"),
        (lambda b: ops.Iota(b, S("s32[2,3]"), 1), [], "s32[2,3]"),
        (lambda b: ops.Iota(b, xlapy.F32, 5), [], "f32[5]"),
        (lambda b, x: ops.GetTupleElement(ops.Tuple(b, [x, x]), 1), ["u8[2]"], "u8[2]"),
        (lambda b, x: ops.OptimizationBarrier(x), ["f32[2]"], "f32[2]"),
        (lambda b, x: ops.GetDimensionSize(x, 0), ["f32[<=4]"], "s32[]"),
        (lambda b, x: ops.SetDimensionSize(x, 3, 0), ["f32[4]"], "f32[<=4]"),
        (lambda b: ops.AfterAll(b, [ops.CreateToken(b), ops.CreateToken(b)]), [], "token[]"),
        (lambda b: ops.ConstantR2(b, [[1, 2], [3, 4]], xlapy.S8), [], "s8[2,2]"),
        (lambda b: ops.Constant(b, np.zeros((0, 3), np.float32)), [], "f32[0,3]"),
        (lambda b: ops.ConstantLiteral(b, xlapy.Literal.from_value(True)), [], "pred[]"),
    ],
)
def test_result_shapes(make, shapes, expected):
    assert result(make, *shapes).equal(S(expected), ignore_layout=True)


@pytest.mark.parametrize(
    "make, shapes, message",
    [
        (lambda b, x: ops.Reshape(x, [5]), ["f32[2,3]"], "cannot reshape 6 elements"),
        (lambda b, x: ops.Collapse(x, [0, 2]), ["f32[2,3,4]"], "consecutive"),
        (lambda b, x: ops.Transpose(x, [0, 0]), ["f32[2,3]"], "not a permutation"),
        (lambda b, x: ops.Slice(x, [3], [2]), ["f32[5]"], "f32[5]"),
        (lambda b, x: ops.SliceInDim(x, 0, 1, 1, 2), ["f32[5]"], "dimno 2"),
        (lambda b, x: ops.DynamicSlice(x, [0], [6]), ["f32[5]"], "[0, 5]"),
        (
            lambda b, x, y: ops.ConcatInDim(b, [x, y], 0),
            ["f32[2,3]", "f32[2,4]"],
            "only dimension 0",
        ),
        (lambda b, x: ops.Pad(x, 0.0, [(0, 0, -1)]), ["f32[2]"], "interior"),
        (lambda b, x: ops.BroadcastInDim(x, [3], [0]), ["f32[2]"], "cannot broadcast"),
        (lambda b, x: ops.GetTupleElement(x, 0), ["f32[2]"], "must be a tuple"),
        (lambda b: ops.Iota(b, S("pred[3]"), 0), [], "pred"),
        (lambda b: ops.ConstantR1(b, [[1, 2]]), [], "expected a vector"),
    ],
)
def test_invalid_calls(make, shapes, message):
    b = xlapy.XlaBuilder("bad")
    params = [ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes)]
    make(b, *params)
    with pytest.raises(InvalidArgumentError) as info:
        b.build()
    assert message in str(info.value)
    assert "test_movement.py:" in str(info.value)


def test_ragged_constants_are_a_clear_error():
    b = xlapy.XlaBuilder("ragged")
    ops.Constant(b, [[1, 2], [3]])
    with pytest.raises(InvalidArgumentError, match="ragged"):
        b.build()
