"""Algebraic simplifier rules for elementwise ops: arithmetic, logic, compare, select,
conversions and rounding.

Each rule states the element types it holds for; "exactly" means bit for bit
for every input, signed zeros, infinities and INT_MIN included. NaN results stay
NaN; their sign and payload are not preserved (XLA does not promise them either).

=====================  ========================================================
rule                   holds for
=====================  ========================================================
x + 0, 0 + x -> x      integers, pred; floats only with 0 = -0.0 (x + (-0) is
                       exact, x + (+0) turns -0 into +0), complex (-0, -0)
x - 0 -> x             integers, pred; floats with +0.0; complex (+0, +0)
x - x -> 0             integers only (inf - inf and NaN - NaN are NaN)
0 - x -> -x            signed integers (0); floats and complex with -0.0
x * 1, 1 * x -> x      integers, pred, floats (not complex: (inf+1j)(1+0j) has NaN)
x * 0 -> 0             integers, pred (not floats: NaN * 0, -1 * 0 = -0)
x * -1 -> -x           signed integers, floats
x / 1 -> x             integers, floats
x / -1 -> -x           signed integers (INT_MIN / -1 = INT_MIN = -INT_MIN), floats
x rem +-1 -> 0         integers
x ** 1 -> x            integers, floats
-(-x) -> x             every type
not(not x) -> x        integers, pred
abs(abs x), abs(-x)    -> abs(x), every type; abs(x) -> x for unsigned and pred
sign(sign x) -> sign x integers, floats
round(round x)         floor/ceil/round-* of floor/ceil/round-* or of an
                       integer converted to float -> the operand
x & x, x | x -> x      integers, pred; also max(x, x), min(x, x) (not complex)
x & 0 -> 0, x & ~0 -> x, x | 0 -> x, x | ~0 -> ~0, x ^ 0 -> x, x ^ ~0 -> not x,
x ^ x -> 0             integers, pred
max(x, lowest) -> x    integers, pred, floats (lowest = -inf, or the most negative
min(x, highest) -> x   finite value of a type without infinities)
x << 0, x >> 0 -> x    integers
compare(x, x)          integers and pred, and floats compared in TOTALORDER: the
                       direction's constant (EQ/LE/GE true, NE/LT/GT false)
select(p, x, x) -> x   every type
select(c, x, y)        a constant predicate picks a side
select(p, T, F) -> p, select(p, F, T) -> not p; select(not p, x, y) -> select(p, y, x)
convert to the same type -> operand; convert(convert(x, B), C) -> x when C is x's
                       type A and B holds every value of A exactly (checked exhaustively
                       for types of <= 16 bits, from a table for 32-bit ones); ->
                       convert(x, C) for other C, except integer A and C through a float
                       B (integer conversions wrap, float-to-integer ones saturate);
                       complex types excluded
bitcast-convert to the same type -> operand; reduce-precision to at least the type's
                       own exponent and mantissa bits -> operand, for f16, bf16, f32 and
                       f64 (8-bit floats reduce through f16 and may flush there)
real(complex(a, b)) -> a, imag(complex(a, b)) -> b; real(x) -> x and imag(x) -> 0
                       for real x
=====================  ========================================================
"""

from __future__ import annotations

from functools import cache

import numpy as np

from ...hlo.instruction import HloInstruction
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, ComparisonType
from .algebraic_simplifier_support import (
    Op,
    Rule,
    RuleTable,
    all_ones,
    element_type,
    if_same,
    is_all_ones,
    is_exact_kind,
    is_extreme,
    is_float_value,
    is_float_zero_identity,
    is_int_value,
    is_zero_of_sign,
    new,
    same_shape,
    splat,
    uniform,
    zeros,
)

P = PrimitiveType


def _pairs(i: HloInstruction) -> tuple[tuple[HloInstruction, HloInstruction], ...]:
    """(x, other) for both operand orders of a commutative binary op."""
    a, b = i.operands
    return ((a, b), (b, a))


def _negate(i: HloInstruction, x: HloInstruction) -> HloInstruction | None:
    return new(i, Op.NEGATE, [x]) if same_shape(x.shape, i.shape) else None


# -- add, subtract, multiply, divide ------------------------------------------------------


def _add_identity(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    for x, c in _pairs(i):
        v = uniform(c)
        if (
            is_int_value(v, et, 0)
            or is_float_zero_identity(v, et, negative=True)
            or (et.is_complex and is_zero_of_sign(v, et, negative=True))
        ):
            return if_same(x, i)
    return None


def _subtract_zero(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    x, c = i.operands
    v = uniform(c)
    if (
        is_int_value(v, et, 0)
        or is_float_zero_identity(v, et, negative=False)
        or (et.is_complex and is_zero_of_sign(v, et, negative=False))
    ):
        return if_same(x, i)
    return None


def _subtract_self(i: HloInstruction) -> HloInstruction | None:
    x, y = i.operands
    if x is y and element_type(i).is_integral:
        return zeros(i)
    return None


def _zero_minus(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    c, x = i.operands
    v = uniform(c)
    if et.is_signed_integral:
        negates = is_int_value(v, et, 0)
    elif et.is_float:
        negates = is_float_zero_identity(v, et, negative=True)
    else:
        negates = et.is_complex and is_zero_of_sign(v, et, negative=True)
    return _negate(i, x) if negates else None


def _multiply(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    for x, c in _pairs(i):
        v = uniform(c)
        if is_int_value(v, et, 1) or is_float_value(v, et, 1.0):
            return if_same(x, i)
        if is_int_value(v, et, 0):
            return zeros(i)
        if (et.is_signed_integral and is_int_value(v, et, -1)) or is_float_value(v, et, -1.0):
            return _negate(i, x)
    return None


def _divide(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    x, c = i.operands
    v = uniform(c)
    if (et.is_integral and is_int_value(v, et, 1)) or is_float_value(v, et, 1.0):
        return if_same(x, i)
    if (et.is_signed_integral and is_int_value(v, et, -1)) or is_float_value(v, et, -1.0):
        return _negate(i, x)
    return None


def _remainder(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    v = uniform(i.operand(1))
    if et.is_integral and (is_int_value(v, et, 1) or is_int_value(v, et, -1)):
        return zeros(i)
    return None


def _power(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    x, c = i.operands
    v = uniform(c)
    if (et.is_integral and is_int_value(v, et, 1)) or is_float_value(v, et, 1.0):
        return if_same(x, i)
    return None


# -- unary ----------------------------------------------------------------------------------


def _involution(i: HloInstruction) -> HloInstruction | None:
    """negate(negate x), not(not x)."""
    inner = i.operand(0)
    if inner.opcode is i.opcode:
        return if_same(inner.operand(0), i)
    return None


def _abs(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    et = x.shape.element_type
    if et.is_unsigned_integral or et.is_pred:
        return if_same(x, i)
    if x.opcode is Op.ABS:
        return if_same(x, i)
    if x.opcode is Op.NEGATE:
        return if_same(new(i, Op.ABS, [x.operand(0)]), i)
    return None


def _sign(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.SIGN and not element_type(i).is_complex:
        return if_same(x, i)
    return None


_ROUNDING = frozenset({Op.FLOOR, Op.CEIL, Op.ROUND_NEAREST_AFZ, Op.ROUND_NEAREST_EVEN})


def _rounding(i: HloInstruction) -> HloInstruction | None:
    """Rounding an integral value (already rounded, or converted from an integer) is a no-op."""
    x = i.operand(0)
    if x.opcode in _ROUNDING:
        return if_same(x, i)
    if x.opcode is Op.CONVERT and is_exact_kind(x.operand(0).shape.element_type):
        return if_same(x, i)
    return None


def _real(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.COMPLEX:
        return if_same(x.operand(0), i)
    if not x.shape.element_type.is_complex:
        return if_same(x, i)
    return None


def _imag(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.COMPLEX:
        return if_same(x.operand(1), i)
    if not x.shape.element_type.is_complex:
        return zeros(i)
    return None


# -- logic and order ----------------------------------------------------------------------


def _idempotent(i: HloInstruction) -> HloInstruction | None:
    """x & x, x | x, max(x, x), min(x, x)."""
    x, y = i.operands
    if x is y and not element_type(i).is_complex:
        return if_same(x, i)
    return None


def _and(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    for x, c in _pairs(i):
        v = uniform(c)
        if is_all_ones(v, et):
            return if_same(x, i)
        if is_int_value(v, et, 0):
            return zeros(i)
    return None


def _or(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    for x, c in _pairs(i):
        v = uniform(c)
        if is_int_value(v, et, 0):
            return if_same(x, i)
        if is_all_ones(v, et):
            return all_ones(i)
    return None


def _xor(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    a, b = i.operands
    if a is b and is_exact_kind(et):
        return zeros(i)
    for x, c in _pairs(i):
        v = uniform(c)
        if is_int_value(v, et, 0):
            return if_same(x, i)
        if is_all_ones(v, et) and same_shape(x.shape, i.shape):
            return new(i, Op.NOT, [x])
    return None


def _max_min(lowest: bool) -> Rule:
    def rule(i: HloInstruction) -> HloInstruction | None:
        et = element_type(i)
        for x, c in _pairs(i):
            if is_extreme(uniform(c), et, lowest):
                return if_same(x, i)
        return None

    rule.__name__ = f"_{'max_lowest' if lowest else 'min_highest'}"
    return rule


def _shift_by_zero(i: HloInstruction) -> HloInstruction | None:
    x, c = i.operands
    if is_int_value(uniform(c), element_type(i), 0):
        return if_same(x, i)
    return None


_TRUE_ON_EQUAL = {
    ComparisonDirection.EQ: True,
    ComparisonDirection.LE: True,
    ComparisonDirection.GE: True,
    ComparisonDirection.NE: False,
    ComparisonDirection.LT: False,
    ComparisonDirection.GT: False,
}


def _compare_self(i: HloInstruction) -> HloInstruction | None:
    x, y = i.operands
    if x is not y:
        return None
    et = x.shape.element_type
    total = i.attribute("type") is ComparisonType.TOTALORDER and et.is_float
    if not (is_exact_kind(et) or total):
        return None
    direction = i.attribute("direction")
    if not isinstance(direction, ComparisonDirection):
        return None
    return splat(i, _TRUE_ON_EQUAL[direction])


# -- select ---------------------------------------------------------------------------------


def _select(i: HloInstruction) -> HloInstruction | None:
    p, on_true, on_false = i.operands
    if on_true is on_false:
        return if_same(on_true, i)
    v = uniform(p)
    if v is not None:
        return if_same(on_true if bool(v) else on_false, i)
    if p.opcode is Op.NOT:
        return new(i, Op.SELECT, [p.operand(0), on_false, on_true])
    et = element_type(i)
    if et.is_pred and p.shape.rank == i.shape.rank:
        t, f = uniform(on_true), uniform(on_false)
        if is_int_value(t, et, 1) and is_int_value(f, et, 0):
            return if_same(p, i)
        if is_int_value(t, et, 0) and is_int_value(f, et, 1) and same_shape(p.shape, i.shape):
            return new(i, Op.NOT, [p])
    return None


# -- conversions ----------------------------------------------------------------------------

_WIDE_32 = {
    P.S32: frozenset({P.S64, P.F64}),
    P.U32: frozenset({P.U64, P.S64, P.F64}),
    P.F32: frozenset({P.F64}),
}


@cache
def holds_every_value(source: PrimitiveType, target: PrimitiveType) -> bool:
    """Whether every value of ``source`` converts to ``target`` exactly (NaN to a NaN, -0 to
    -0): then a further conversion from ``target`` rounds the very same value."""
    if source == target:
        return True
    if source.is_complex or target.is_complex:
        return False
    if source.bit_width > 16:
        return target in _WIDE_32.get(source, frozenset())
    if source.is_pred:
        values = np.array([False, True])
    elif source.is_integral:
        low = -(1 << (source.bit_width - 1)) if source.is_signed_integral else 0
        values = np.arange(low, low + (1 << source.bit_width)).astype(source.dtype)
    else:  # every bit pattern of the float type
        raw = np.arange(
            1 << source.bit_width, dtype=np.uint16 if source.bit_width > 8 else np.uint8
        )
        values = raw.view(source.dtype)
    with np.errstate(all="ignore"):
        wide = values.astype(np.float64)
        back = values.astype(target.dtype).astype(np.float64)
    nan = np.isnan(wide)
    same = (wide == back) & (np.signbit(wide) == np.signbit(back))
    return bool(np.all(np.where(nan, np.isnan(back), same)))


def _convert(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    target = element_type(i)
    if x.shape.element_type == target:
        return if_same(x, i)
    if x.opcode is not Op.CONVERT:
        return None
    source = x.operand(0)
    a, b = source.shape.element_type, x.shape.element_type
    if not holds_every_value(a, b):
        return None
    if a == target:
        return if_same(source, i)
    if a.is_complex or target.is_complex:
        return None
    if a.is_integral and not b.is_integral and target.is_integral:
        return None  # through a float an integer saturates; directly it wraps
    return new(i, Op.CONVERT, [source])


def _same_type_identity(i: HloInstruction) -> HloInstruction | None:
    """bitcast-convert to its own type."""
    x = i.operand(0)
    return if_same(x, i) if x.shape.element_type == element_type(i) else None


# reduce-precision of 8-bit floats goes through f16 (e8m0 through f32) and may flush or
# overflow there even with the type's own bit counts; these types are left alone.
_PLAIN_FLOATS = frozenset({P.F16, P.BF16, P.F32, P.F64})


def _reduce_precision(i: HloInstruction) -> HloInstruction | None:
    et = element_type(i)
    if et not in _PLAIN_FLOATS:
        return None
    exponent, mantissa = et.exponent_mantissa_bits
    e, m = i.attribute("exponent_bits"), i.attribute("mantissa_bits")
    if e is None or m is None or int(e) < exponent or int(m) < mantissa:
        return None
    return if_same(i.operand(0), i)


RULES: RuleTable = {
    Op.ADD: (_add_identity,),
    Op.SUBTRACT: (_subtract_zero, _subtract_self, _zero_minus),
    Op.MULTIPLY: (_multiply,),
    Op.DIVIDE: (_divide,),
    Op.REMAINDER: (_remainder,),
    Op.POWER: (_power,),
    Op.NEGATE: (_involution,),
    Op.NOT: (_involution,),
    Op.ABS: (_abs,),
    Op.SIGN: (_sign,),
    Op.FLOOR: (_rounding,),
    Op.CEIL: (_rounding,),
    Op.ROUND_NEAREST_AFZ: (_rounding,),
    Op.ROUND_NEAREST_EVEN: (_rounding,),
    Op.REAL: (_real,),
    Op.IMAG: (_imag,),
    Op.AND: (_idempotent, _and),
    Op.OR: (_idempotent, _or),
    Op.XOR: (_xor,),
    Op.MAXIMUM: (_idempotent, _max_min(lowest=True)),
    Op.MINIMUM: (_idempotent, _max_min(lowest=False)),
    Op.SHIFT_LEFT: (_shift_by_zero,),
    Op.SHIFT_RIGHT_ARITHMETIC: (_shift_by_zero,),
    Op.SHIFT_RIGHT_LOGICAL: (_shift_by_zero,),
    Op.COMPARE: (_compare_self,),
    Op.SELECT: (_select,),
    Op.CONVERT: (_convert,),
    Op.BITCAST_CONVERT: (_same_type_identity,),
    Op.REDUCE_PRECISION: (_reduce_precision,),
}

__all__ = ["RULES", "holds_every_value"]
