"""Lowerings of the elementwise family: arithmetic, compare, select, clamp, converts, map.

Most map one to one onto an HLO opcode. The exceptions are where StableHLO
and HLO disagree on what an op accepts: ``convert`` from complex to a real
type (the spec keeps the real part; HLO's convert refuses, so ``real`` comes
first) and boolean arithmetic, which StableHLO defines as logic (``add`` is
``or``, ``multiply`` is ``and``) and which is emitted as that logic, so that
no backend has to guess what an i1 sum means.
"""

from __future__ import annotations

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, ComparisonType
from .. import ast
from .attrs import enum_attr, int_attr, ints
from .core import Ctx, lowering, region
from .errors import invalid

_UNARY = {
    "abs": ops.Abs,
    "cbrt": ops.Cbrt,
    "ceil": ops.Ceil,
    "count_leading_zeros": ops.Clz,
    "cosine": ops.Cos,
    "exponential": ops.Exp,
    "exponential_minus_one": ops.Expm1,
    "floor": ops.Floor,
    "imag": ops.Imag,
    "is_finite": ops.IsFinite,
    "log": ops.Log,
    "log_plus_one": ops.Log1p,
    "logistic": ops.Logistic,
    "negate": ops.Neg,
    "not": ops.Not,
    "popcnt": ops.PopulationCount,
    "real": ops.Real,
    "round_nearest_afz": ops.RoundNearestAfz,
    "round_nearest_even": ops.RoundNearestEven,
    "rsqrt": ops.Rsqrt,
    "sign": ops.Sign,
    "sine": ops.Sin,
    "sqrt": ops.Sqrt,
    "tan": ops.Tan,
    "tanh": ops.Tanh,
}

_BINARY = {
    "add": ops.Add,
    "subtract": ops.Sub,
    "multiply": ops.Mul,
    "divide": ops.Div,
    "remainder": ops.Rem,
    "power": ops.Pow,
    "maximum": ops.Max,
    "minimum": ops.Min,
    "and": ops.And,
    "or": ops.Or,
    "xor": ops.Xor,
    "shift_left": ops.ShiftLeft,
    "shift_right_arithmetic": ops.ShiftRightArithmetic,
    "shift_right_logical": ops.ShiftRightLogical,
    "atan2": ops.Atan2,
    "complex": ops.Complex,
}

# Boolean arithmetic as the logic the spec defines it to be.
_BOOLEAN = {"add": ops.Or, "multiply": ops.And, "maximum": ops.Or, "minimum": ops.And}


def _unary(fn):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        (x,) = ctx.operands(op)
        return [fn(x)]

    return lower


def _binary(name: str, fn):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        lhs, rhs = ctx.operands(op)
        element_type = lhs.shape.element_type if lhs.shape.is_array else None
        if name in _BOOLEAN and element_type == PrimitiveType.PRED:
            return [_BOOLEAN[name](lhs, rhs)]
        if name in ("maximum", "minimum") and element_type is not None and element_type.is_complex:
            return [_complex_extremum(lhs, rhs, name == "maximum")]
        return [fn(lhs, rhs)]

    return lower


def _complex_extremum(lhs: XlaOp, rhs: XlaOp, maximum: bool) -> XlaOp:
    """The spec orders complex numbers lexicographically (real, then imaginary part); HLO's
    maximum and minimum do not take them, so the order is spelled out."""
    first = ops.Gt if maximum else ops.Lt
    lr, li, rr, ri = ops.Real(lhs), ops.Imag(lhs), ops.Real(rhs), ops.Imag(rhs)
    pick_lhs = ops.Or(first(lr, rr), ops.And(ops.Eq(lr, rr), first(li, ri)))
    return ops.Select(pick_lhs, lhs, rhs)


for _name, _fn in _UNARY.items():
    lowering(f"stablehlo.{_name}", f"mhlo.{_name}")(_unary(_fn))
for _name, _fn in _BINARY.items():
    lowering(f"stablehlo.{_name}", f"mhlo.{_name}")(_binary(_name, _fn))


@lowering("stablehlo.compare", "mhlo.compare")
def _compare(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs, rhs = ctx.operands(op)
    direction = enum_attr(op, "comparison_direction")
    if direction not in ComparisonDirection.__members__:
        raise invalid(op, f"unknown comparison_direction {direction}")
    kind = enum_attr(op, "compare_type", None)
    compare_type = None
    if kind is not None and kind != "NOTYPE":
        if kind not in ComparisonType.__members__:
            raise invalid(op, f"unknown compare_type {kind}")
        compare_type = ComparisonType[kind]
    return [ops.Compare(lhs, rhs, ComparisonDirection[direction], compare_type=compare_type)]


@lowering("stablehlo.select", "mhlo.select")
def _select(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    pred, on_true, on_false = ctx.operands(op)
    return [ops.Select(pred, on_true, on_false)]


@lowering("stablehlo.clamp", "mhlo.clamp")
def _clamp(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lo, x, hi = ctx.operands(op)
    return [ops.Clamp(lo, x, hi)]


@lowering("stablehlo.convert", "mhlo.convert")
def _convert(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    target = ctx.result_shape(op).element_type
    source = x.shape.element_type
    if source == target:
        return [x]
    if source.is_complex and not target.is_complex:
        x = ops.Real(x)
        if x.shape.element_type == target:
            return [x]
    return [ops.ConvertElementType(x, target)]


_UNSIGNED = {8: PrimitiveType.U8, 16: PrimitiveType.U16, 32: PrimitiveType.U32,
             64: PrimitiveType.U64}  # fmt: skip


@lowering("stablehlo.bitcast_convert", "mhlo.bitcast_convert")
def _bitcast_convert(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    target = ctx.result_shape(op).element_type
    source = x.shape.element_type
    if source == target:
        return [x]
    if target == PrimitiveType.PRED:
        return [_to_bits(ctx, op, x)]
    if source == PrimitiveType.PRED:
        return [_from_bits(ctx, op, x, target)]
    return [ops.BitcastConvertType(x, target)]


def _bit_positions(ctx: Ctx, unsigned: PrimitiveType, dims: tuple[int, ...]) -> XlaOp:
    return ops.Iota(ctx.builder, Shape.array(unsigned, list(dims)), len(dims) - 1)


def _to_bits(ctx: Ctx, op: ast.Operation, x: XlaOp) -> XlaOp:
    """A value as its bits (an i1 tensor one dimension longer, least significant bit first).

    HLO bitcasts nothing to or from pred, so the bits are shifted out one by one.
    """
    unsigned = _UNSIGNED.get(x.shape.element_type.bit_width)
    if unsigned is None:
        raise invalid(op, f"cannot take the bits of {x.shape.element_type.hlo_name}")
    if x.shape.element_type != unsigned:
        x = ops.BitcastConvertType(x, unsigned)
    dims = (*x.shape.dimensions, unsigned.bit_width)
    wide = ops.BroadcastInDim(x, dims, list(range(x.shape.rank)))
    bits = ops.And(ops.ShiftRightLogical(wide, _bit_positions(ctx, unsigned, dims)),
                   ops.Constant(ctx.builder, 1, unsigned))  # fmt: skip
    return ops.Ne(bits, ops.Constant(ctx.builder, 0, unsigned))


def _from_bits(ctx: Ctx, op: ast.Operation, x: XlaOp, target: PrimitiveType) -> XlaOp:
    """The value whose bits (least significant first) the last dimension of ``x`` holds."""
    unsigned = _UNSIGNED.get(target.bit_width)
    dims = x.shape.dimensions
    if unsigned is None or not dims or dims[-1] != target.bit_width:
        raise invalid(op, f"{x.shape} does not hold the bits of a {target.hlo_name}")
    shifted = ops.ShiftLeft(ops.ConvertElementType(x, unsigned),
                            _bit_positions(ctx, unsigned, dims))  # fmt: skip
    zero = ops.Constant(ctx.builder, 0, unsigned)
    word = ops.Reduce(shifted, zero, ops.Or, [len(dims) - 1])
    return word if target == unsigned else ops.BitcastConvertType(word, target)


@lowering("stablehlo.reduce_precision", "mhlo.reduce_precision")
def _reduce_precision(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.ReducePrecision(x, int_attr(op, "exponent_bits"), int_attr(op, "mantissa_bits"))]


@lowering("stablehlo.map", "mhlo.map")
def _map(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    inputs = ctx.operands(op)
    computation = ctx.computation(region(op), op, "computation")
    dims = ints(op, "dimensions", None)
    return [ops.Map(ctx.builder, inputs, computation, dims)]


__all__: list[str] = []
