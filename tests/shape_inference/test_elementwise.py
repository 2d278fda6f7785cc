"""Shape rules of elementwise ops and the spec's broadcasting (spec/broadcasting.md)."""

import pytest

from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.opcode import HloOpcode as Op
from xlapy.shape_inference import broadcast_binary_shapes, infer_shape

S = Shape.parse


def dims(text):
    return list(S(text).dimensions)


# -- broadcasting: every example of spec/broadcasting.md ------------------------------


@pytest.mark.parametrize(
    "lhs, rhs, bdims, result",
    [
        ("f32[2,3]", "f32[]", None, [2, 3]),  # scalar + matrix
        ("f32[2,3]", "f32[3]", [1], [2, 3]),  # vector as rows
        ("f32[3,3]", "f32[3]", [1], [3, 3]),
        ("f32[3,3]", "f32[3]", [0], [3, 3]),
        ("f32[2,3,4]", "f32[3,4]", [1, 2], [2, 3, 4]),  # cuboid + matrix
        ("f32[2,1]", "f32[2,3]", None, [2, 3]),  # degenerate dims
        ("f32[1,2,5]", "f32[7,2,5]", None, [7, 2, 5]),
        ("f32[7,2,5]", "f32[7,1,5]", None, [7, 2, 5]),
        ("f32[2,1]", "f32[1,3]", None, [2, 3]),  # outer operation
        ("f32[4]", "f32[1,2]", [0], [4, 2]),  # composition
        ("f32[1,2]", "f32[4,3,1]", [1, 2], [4, 3, 2]),
    ],
)
def test_spec_broadcasting_examples(lhs, rhs, bdims, result):
    out, _, _ = broadcast_binary_shapes("Add", S(lhs), S(rhs), bdims)
    assert out == result


def test_broadcast_maps_each_operand_into_the_result():
    out, lhs_map, rhs_map = broadcast_binary_shapes("Add", S("f32[3]"), S("f32[2,3]"), [1])
    assert out == [2, 3] and lhs_map == [1] and rhs_map == [0, 1]


@pytest.mark.parametrize(
    "lhs, rhs, bdims, message",
    [
        ("f32[2,3]", "f32[3]", [0], "cannot broadcast to dimension 0"),  # the spec's note
        ("f32[7,2,5]", "f32[7,2,6]", None, "not compatible at dimension 2"),
        ("f32[2,3]", "f32[3]", None, "give broadcast_dimensions"),
        ("f32[2,3,4]", "f32[3,4]", [2, 1], "strictly increasing"),
        ("f32[2,3,4]", "f32[3,4]", [1], "one entry per dimension"),
        ("f32[2,3]", "f32[3]", [2], "outside [0, 2)"),
    ],
)
def test_broadcasting_errors(lhs, rhs, bdims, message):
    with pytest.raises(InvalidArgumentError, match="Add") as info:
        broadcast_binary_shapes("Add", S(lhs), S(rhs), bdims)
    assert message in str(info.value)
    assert lhs in str(info.value) and rhs in str(info.value)


# -- unary ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opcode, operand, result",
    [
        (Op.ABS, "f32[2,3]", "f32[2,3]"),
        (Op.ABS, "c64[4]", "f32[4]"),
        (Op.ABS, "c128[]", "f64[]"),
        (Op.ABS, "s8[2]", "s8[2]"),
        (Op.REAL, "c64[4]", "f32[4]"),
        (Op.IMAG, "c128[4]", "f64[4]"),
        (Op.REAL, "f32[4]", "f32[4]"),
        (Op.IS_FINITE, "bf16[3]", "pred[3]"),
        (Op.EXPONENTIAL, "c64[3]", "c64[3]"),
        (Op.NOT, "pred[3]", "pred[3]"),
        (Op.NOT, "u32[3]", "u32[3]"),
        (Op.COUNT_LEADING_ZEROS, "s32[]", "s32[]"),
        (Op.POPCNT, "u8[5]", "u8[5]"),
        (Op.NEGATE, "s32[0]", "s32[0]"),
        (Op.SIGN, "f16[2]", "f16[2]"),
        (Op.TANH, "f8e4m3fn[2]", "f8e4m3fn[2]"),
        (Op.FLOOR, "f64[<=4]", "f64[<=4]"),
    ],
)
def test_unary_results(opcode, operand, result):
    assert infer_shape(opcode, [S(operand)]).compatible(S(result))


@pytest.mark.parametrize(
    "opcode, operand, message",
    [
        (Op.FLOOR, "s32[2]", "floating-point"),
        (Op.EXPONENTIAL, "s32[2]", "floating-point or complex"),
        (Op.NOT, "f32[2]", "pred or integer"),
        (Op.COUNT_LEADING_ZEROS, "f32[2]", "integer"),
        (Op.IS_FINITE, "c64[2]", "floating-point"),
        (Op.NEGATE, "pred[2]", "integer, floating-point or complex"),
        (Op.SQRT, "(f32[])", "must be an array"),
    ],
)
def test_unary_errors(opcode, operand, message):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        infer_shape(opcode, [S(operand)])
    assert message in str(info.value) and operand in str(info.value)


def test_unary_arity():
    with pytest.raises(InvalidArgumentError, match="takes 1 operand, got 2"):
        infer_shape(Op.SINE, [S("f32[]"), S("f32[]")])


# -- binary -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "opcode, lhs, result",
    [
        (Op.ADD, "f32[2,3]", "f32[2,3]"),
        (Op.COMPARE, "s32[4]", "pred[4]"),
        (Op.COMPLEX, "f32[4]", "c64[4]"),
        (Op.COMPLEX, "f64[]", "c128[]"),
        (Op.AND, "pred[2]", "pred[2]"),
        (Op.SHIFT_LEFT, "u16[2]", "u16[2]"),
        (Op.ATAN2, "f32[0,3]", "f32[0,3]"),
        (Op.POWER, "s32[3]", "s32[3]"),
        (Op.REMAINDER, "f32[3]", "f32[3]"),
    ],
)
def test_binary_results(opcode, lhs, result):
    assert infer_shape(opcode, [S(lhs), S(lhs)]).compatible(S(result))


def test_binary_dynamic_dimensions_propagate():
    out = infer_shape(Op.ADD, [S("f32[<=4,3]"), S("f32[4,3]")])
    assert str(out) == "f32[<=4,3]{1,0}"


@pytest.mark.parametrize(
    "opcode, lhs, rhs, message",
    [
        (Op.ADD, "f32[2]", "f32[3]", "same dimensions"),
        (Op.ADD, "f32[2]", "s32[2]", "same element type"),
        (Op.AND, "f32[2]", "f32[2]", "pred or integer"),
        (Op.SHIFT_LEFT, "pred[2]", "pred[2]", "integer"),
        (Op.COMPLEX, "f16[2]", "f16[2]", "f32 or f64"),
        (Op.ATAN2, "s32[2]", "s32[2]", "floating-point or complex"),
        (Op.MULTIPLY, "(f32[])", "f32[]", "must be an array"),
    ],
)
def test_binary_errors(opcode, lhs, rhs, message):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        infer_shape(opcode, [S(lhs), S(rhs)])
    assert message in str(info.value) and lhs in str(info.value)


def test_compare_type_must_suit_operands():
    from xlapy.xla_data import ComparisonType

    ok = infer_shape(Op.COMPARE, [S("f32[2]"), S("f32[2]")], {"type": ComparisonType.TOTALORDER})
    assert ok.compatible(S("pred[2]"))
    with pytest.raises(InvalidArgumentError, match="does not apply"):
        infer_shape(Op.COMPARE, [S("s32[2]"), S("s32[2]")], {"type": ComparisonType.FLOAT})


# -- select, clamp, convert, bitcast-convert, reduce-precision ----------------------------


def test_select_spec_examples():
    assert infer_shape(Op.SELECT, [S("pred[4]"), S("s32[4]"), S("s32[4]")]).compatible(S("s32[4]"))
    assert infer_shape(Op.SELECT, [S("pred[]"), S("s32[4]"), S("s32[4]")]).compatible(S("s32[4]"))
    t = S("(f32[2], s32[])")
    assert infer_shape(Op.SELECT, [S("pred[]"), t, t]) == t


@pytest.mark.parametrize(
    "operands, message",
    [
        (["pred[3]", "s32[4]", "s32[4]"], "must equal the operands'"),
        (["s32[4]", "s32[4]", "s32[4]"], "must be a pred array"),
        (["pred[4]", "s32[4]", "f32[4]"], "must have the same shape"),
        (["pred[2]", "(f32[2])", "(f32[2])"], "scalar predicate"),
    ],
)
def test_select_errors(operands, message):
    with pytest.raises(InvalidArgumentError, match="select") as info:
        infer_shape(Op.SELECT, [S(o) for o in operands])
    assert message in str(info.value)


def test_clamp():
    assert infer_shape(Op.CLAMP, [S("f32[]"), S("f32[3]"), S("f32[]")]).compatible(S("f32[3]"))
    assert infer_shape(Op.CLAMP, [S("f32[3]"), S("f32[3]"), S("f32[3]")]).compatible(S("f32[3]"))
    with pytest.raises(InvalidArgumentError, match="must be a scalar or have"):
        infer_shape(Op.CLAMP, [S("f32[2]"), S("f32[3]"), S("f32[]")])
    with pytest.raises(InvalidArgumentError, match="must match"):
        infer_shape(Op.CLAMP, [S("s32[]"), S("f32[3]"), S("f32[]")])
    with pytest.raises(InvalidArgumentError, match="takes 3 operands"):
        infer_shape(Op.CLAMP, [S("f32[]"), S("f32[3]")])


def test_convert():
    out = infer_shape(Op.CONVERT, [S("f32[2,3]")], declared=S("s8[2,3]"))
    assert out.compatible(S("s8[2,3]"))
    with pytest.raises(InvalidArgumentError, match="result shape cannot be inferred"):
        infer_shape(Op.CONVERT, [S("f32[2]")])
    with pytest.raises(InvalidArgumentError, match="cannot convert complex"):
        infer_shape(Op.CONVERT, [S("c64[2]")], declared=S("f32[2]"))


@pytest.mark.parametrize(
    "operand, target, result",
    [
        ("f32[2,3]", "s32[2,3]", "s32[2,3]"),
        ("f32[2]", "u8[2,4]", "u8[2,4]"),  # wider to narrower adds a minor dimension
        ("u8[2,4]", "f32[2]", "f32[2]"),  # narrower to wider consumes it
        ("f64[]", "f16[4]", "f16[4]"),
    ],
)
def test_bitcast_convert_spec(operand, target, result):
    assert infer_shape(Op.BITCAST_CONVERT, [S(operand)], declared=S(target)).compatible(S(result))


def test_bitcast_convert_errors():
    with pytest.raises(InvalidArgumentError, match="last dimension of size 4"):
        infer_shape(Op.BITCAST_CONVERT, [S("u8[2,3]")], declared=S("f32[2]"))
    with pytest.raises(InvalidArgumentError, match="pred"):
        infer_shape(Op.BITCAST_CONVERT, [S("pred[2]")], declared=S("u8[2]"))


def test_reduce_precision():
    attrs = {"exponent_bits": 5, "mantissa_bits": 10}
    assert infer_shape(Op.REDUCE_PRECISION, [S("f32[3]")], attrs).compatible(S("f32[3]"))
    with pytest.raises(InvalidArgumentError, match="exponent_bits must be >= 1"):
        infer_shape(Op.REDUCE_PRECISION, [S("f32[3]")], {"exponent_bits": 0, "mantissa_bits": 1})
    with pytest.raises(InvalidArgumentError, match="floating-point"):
        infer_shape(Op.REDUCE_PRECISION, [S("s32[3]")], attrs)
    with pytest.raises(InvalidArgumentError, match="needs the attribute mantissa_bits"):
        infer_shape(Op.REDUCE_PRECISION, [S("f32[3]")], {"exponent_bits": 5})
