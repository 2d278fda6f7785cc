"""passes.creation: every helper gives the shape shape inference gives, adds the
instruction to its operands' computation, and rejects bad operands with the
shape-inference error."""

from __future__ import annotations

import pytest

from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.opcode import HloOpcode
from xlapy.passes import creation
from xlapy.shape import Shape
from xlapy.shape_inference import infer_shape
from xlapy.types import PrimitiveType
from xlapy.xla_data import ComparisonDirection, DotDimensionNumbers, PaddingConfig

Op = HloOpcode
P = PrimitiveType

TEXT = """HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  y = f32[2,3]{1,0} parameter(1)
  v = f32[3]{0} parameter(2)
  s = f32[] parameter(3)
  t = (f32[2,3]{1,0}, f32[3]{0}) parameter(4)
  ROOT r = f32[2,3]{1,0} add(x, y)
}"""


@pytest.fixture
def params():
    module = parse_module(TEXT)
    entry = module.entry
    return entry, {p.name: p for p in entry.parameters}


def shapes(*values):
    return [v.shape for v in values]


def test_each_helper_gives_the_inferred_shape(params):
    entry, p = params
    x, y, v, s, t = p["x"], p["y"], p["v"], p["s"], p["t"]
    dot = DotDimensionNumbers(lhs_contracting_dimensions=(1,), rhs_contracting_dimensions=(0,))
    pad = PaddingConfig.from_triples([(1, 0, 0), (0, 2, 1)])
    cases = [
        (creation.make_unary(Op.NEGATE, x), infer_shape(Op.NEGATE, shapes(x))),
        (creation.make_binary(Op.ADD, x, y), infer_shape(Op.ADD, shapes(x, y))),
        (
            creation.make_compare(ComparisonDirection.LT, x, y),
            infer_shape(Op.COMPARE, shapes(x, y), {"direction": ComparisonDirection.LT}),
        ),
        (creation.make_convert(x, P.S32), Shape.array(P.S32, [2, 3])),
        (creation.make_broadcast(v, [2, 3], [1]), Shape.array(P.F32, [2, 3])),
        (creation.make_reshape(x, [3, 2]), Shape.array(P.F32, [3, 2])),
        (creation.make_transpose(x, [1, 0]), Shape.array(P.F32, [3, 2])),
        (creation.make_slice(x, [0, 1], [2, 3]), Shape.array(P.F32, [2, 2])),
        (creation.make_slice(x, [0, 0], [2, 3], [1, 2]), Shape.array(P.F32, [2, 2])),
        (creation.make_concatenate([x, y], 0), Shape.array(P.F32, [4, 3])),
        (creation.make_pad(x, s, pad), Shape.array(P.F32, [3, 7])),
        (creation.make_dot(x, creation.make_transpose(y, [1, 0]), dot), Shape.array(P.F32, [2, 2])),
        (creation.make_get_tuple_element(t, 1), t.shape.tuple_shapes[1]),
        (creation.make_tuple([x, v]), Shape.tuple([x.shape, v.shape])),
        (creation.make_constant(entry, Literal.scalar(2.5, P.F32)), Shape.array(P.F32, [])),
        (creation.make_iota(entry, Shape.array(P.S32, [4]), 0), Shape.array(P.S32, [4])),
    ]
    pred = creation.make_compare(ComparisonDirection.GT, x, y)
    cases.append((creation.make_select(pred, x, y), x.shape))
    for made, want in cases:
        assert made.shape == want, made
        assert made.parent is entry


def test_the_result_has_no_layout_when_the_operands_have_none(params):
    bare = parse_module(TEXT.replace("{1,0}", "").replace("{0}", "")).entry.parameter(0)
    assert creation.make_transpose(bare, [1, 0]).shape.layout is None
    assert creation.make_transpose(params[1]["x"], [1, 0]).shape.layout is not None


@pytest.mark.parametrize(
    "build",
    [
        lambda p: creation.make_binary(Op.ADD, p["x"], p["v"]),
        lambda p: creation.make_transpose(p["x"], [0, 0]),
        lambda p: creation.make_reshape(p["x"], [4, 2]),
        lambda p: creation.make_slice(p["x"], [0, 0], [3, 3]),
        lambda p: creation.make_concatenate([p["x"], p["v"]], 0),
        lambda p: creation.make_get_tuple_element(p["t"], 2),
        lambda p: creation.make_dot(p["x"], p["y"], DotDimensionNumbers((1,), (0,))),
    ],
)
def test_bad_operands_fail_with_the_shape_inference_error(params, build):
    entry, p = params
    before = len(entry.instructions)
    with pytest.raises(InvalidArgumentError):
        build(p)
    assert len(entry.instructions) == before
