"""Elementwise ops: every one builds with the inferred shape, text round-trips, bad calls fail."""

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.ops import elementwise

S = xlapy.Shape.parse

FLOAT_UNARY = ["Abs", "Cbrt", "Ceil", "Cos", "Cosh", "Erf", "Exp", "Expm1", "Floor", "Log", "Log1p",
               "Logistic", "Neg", "Round", "RoundNearestAfz", "RoundNearestEven", "Rsqrt", "Sign",
               "Sin", "Sqrt", "Tan", "Tanh", "Copy", "Real", "Imag"]  # fmt: skip
INT_UNARY = ["Clz", "Not", "PopulationCount", "Abs", "Neg", "Sign"]
BINARY = ["Add", "Sub", "Mul", "Div", "Rem", "Pow", "Max", "Min"]
INT_BINARY = ["And", "Or", "Xor", "ShiftLeft", "ShiftRightArithmetic", "ShiftRightLogical"]
COMPARES = [f"{d}{t}" for d in ("Eq", "Ne", "Ge", "Gt", "Le", "Lt") for t in ("", "TotalOrder")]


def build(make, *shapes):
    b = xlapy.XlaBuilder("t")
    params = [ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes)]
    out = make(*params)
    computation = b.build(out)
    text = computation.to_hlo_text()
    assert parse_module(text).to_text() == text
    return computation.program_shape.result


@pytest.mark.parametrize("name", FLOAT_UNARY)
def test_float_unary(name):
    assert build(getattr(ops, name), "f32[2,3]").compatible(S("f32[2,3]"))


@pytest.mark.parametrize("name", INT_UNARY)
def test_integer_unary(name):
    assert build(getattr(ops, name), "s32[4]").compatible(S("s32[4]"))


def test_special_result_types():
    assert build(ops.IsFinite, "bf16[3]").compatible(S("pred[3]"))
    assert build(ops.Abs, "c64[3]").compatible(S("f32[3]"))
    assert build(ops.Real, "c128[]").compatible(S("f64[]"))
    assert build(ops.Complex, "f32[2]", "f32[2]").compatible(S("c64[2]"))
    assert build(lambda x: ops.ConvertElementType(x, xlapy.S8), "f32[2]").compatible(S("s8[2]"))
    assert build(lambda x: ops.ConvertElementType(x, np.float16), "s32[2]").compatible(S("f16[2]"))
    assert build(lambda x: ops.BitcastConvertType(x, xlapy.U8), "f32[2]").compatible(S("u8[2,4]"))
    assert build(lambda x: ops.BitcastConvertType(x, xlapy.F32), "u8[2,4]").compatible(S("f32[2]"))
    assert build(lambda x: ops.ReducePrecision(x, 5, 10), "f32[2]").compatible(S("f32[2]"))


@pytest.mark.parametrize("name", BINARY)
def test_binary_with_each_broadcasting_form(name):
    fn = getattr(ops, name)
    assert build(fn, "f32[2,3]", "f32[2,3]").compatible(S("f32[2,3]"))
    assert build(lambda a, b: fn(a, b, [1]), "f32[2,3]", "f32[3]").compatible(S("f32[2,3]"))
    assert build(fn, "f32[]", "f32[2,3]").compatible(S("f32[2,3]"))
    assert build(fn, "f32[2,1]", "f32[1,3]").compatible(S("f32[2,3]"))
    assert build(lambda a: fn(a, 2), "f32[4]").compatible(S("f32[4]"))
    assert build(lambda a: fn(3, a), "s32[4]").compatible(S("s32[4]"))


@pytest.mark.parametrize("name", INT_BINARY)
def test_integer_binary(name):
    assert build(getattr(ops, name), "u16[5]", "u16[5]").compatible(S("u16[5]"))


@pytest.mark.parametrize("name", COMPARES)
def test_comparisons(name):
    out = build(getattr(ops, name), "f32[2]", "f32[2]")
    assert out.compatible(S("pred[2]"))


def test_compare_with_direction_and_type():
    b = xlapy.XlaBuilder("c")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    op = ops.Compare(x, x, "lt", compare_type="totalorder")
    assert op.instruction.attributes["direction"].name == "LT"
    assert op.instruction.attributes["type"].name == "TOTALORDER"
    assert "type=TOTALORDER" in b.build().to_hlo_text()


def test_select_and_clamp():
    assert build(ops.Select, "pred[3]", "f32[3]", "f32[3]").compatible(S("f32[3]"))
    assert build(ops.Select, "pred[]", "s32[3]", "s32[3]").compatible(S("s32[3]"))
    assert build(lambda x: ops.Clamp(0.0, x, 1.0), "f32[3]").compatible(S("f32[3]"))
    assert build(ops.Clamp, "f32[3]", "f32[3]", "f32[3]").compatible(S("f32[3]"))


def test_every_elementwise_op_is_exported():
    for name in elementwise.__all__:
        assert getattr(ops, name) is getattr(elementwise, name)


@pytest.mark.parametrize(
    "make, shapes, message",
    [
        (ops.Add, ["f32[2]", "f32[3]"], "not compatible at dimension 0"),
        (ops.Add, ["f32[2]", "s32[2]"], "same element type"),
        (lambda a, b: ops.Mul(a, b, [0, 1]), ["f32[2,3]", "f32[3]"], "one entry per dimension"),
        (ops.And, ["f32[2]", "f32[2]"], "pred or integer"),
        (ops.Floor, ["s32[2]"], "floating-point"),
        (ops.Not, ["f32[2]"], "pred or integer"),
        (ops.Select, ["s32[2]", "f32[2]", "f32[2]"], "pred array"),
        (lambda x: ops.ConvertElementType(x, "f33"), ["f32[2]"], "unknown element type"),
        (lambda x: ops.BitcastConvertType(x, xlapy.F32), ["u8[2,3]"], "last dimension"),
        (lambda x: ops.ReducePrecision(x, 0, 3), ["f32[2]"], "exponent_bits"),
    ],
)
def test_invalid_calls(make, shapes, message):
    b = xlapy.XlaBuilder("bad")
    params = [ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes)]
    make(*params)
    with pytest.raises(InvalidArgumentError) as info:
        b.build()
    text = str(info.value)
    assert message in text and "test_elementwise.py:" in text
    assert shapes[0] in text or "f33" in text
