"""Evaluator kernels of the elementwise family (arithmetic, bitwise, compare, select, map...).

The sibling modules hold the rest of the family: ``elementwise_convert`` (type changes)
and ``elementwise_math`` (transcendental functions).

Each opcode is a table entry: one function per kind of element type (integers with pred,
reals, complex), applied to operands widened to a type numpy computes exactly (see
``elementwise_support``) and narrowed back to the result type. The semantics are XLA:CPU's,
checked against it in the tests; the notable ones:

* integers wrap; ``x / 0`` is -1 (all ones unsigned), ``x % 0`` is x, ``INT_MIN / -1`` is
  INT_MIN and ``INT_MIN % -1`` is 0; shifts by >= the bit width (or by a negative amount)
  give 0, or the sign fill for an arithmetic right shift, which treats unsigned values as
  signed ones of the same width;
* pred computes as an unsigned byte whose nonzero results are true: ``add`` is or,
  ``multiply`` and, ``subtract`` xor (XLA:CPU's "int8_t(x) OP int8_t(y) != 0");
* popcnt counts an s4 in its sign-extended byte (XLA:CPU's quirk), other types in their
  own width; count-leading-zeros always in the type's width;
* maximum and minimum propagate NaN and order -0 below +0; clamp is min(max(x, lo), hi)
  with those rules; complex maximum/minimum compare real parts only (ties keep the lhs);
* compare TOTALORDER orders -NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN;
* sign of +-0 and NaN is the operand itself; round-nearest-afz rounds half away from zero;
* f16, bf16 and the 8-/4-bit floats compute in f32 and round back (8-/4-bit through f16,
  as XLA:CPU does, see ``elementwise_convert.narrow``); complex ops follow XLA's formulas
  (``elementwise_complex``);
* denormals are kept (IEEE), where XLA:CPU flushes them to zero.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, ComparisonType
from ..core import EvalContext, Value, call_scalar, kernel
from . import elementwise_complex as ec
from .elementwise_convert import narrow
from .elementwise_support import (
    as_result,
    float_bits,
    int_bounds,
    operand_type,
    result_type,
    widen,
)

P = PrimitiveType
_Fn = Callable[..., np.ndarray]


@dataclass(frozen=True)
class _Impl:
    """An opcode's functions on widened operands, by the kind of the operands' type; each
    takes the operands and then the operands' element type. ``None``: not applicable."""

    integer: _Fn | None = None  # integers and pred (pred as an unsigned byte)
    real: _Fn | None = None  # f32/f64 (narrower floats widened to f32)
    complex: _Fn | None = None  # c64/c128


def _pick(impl: _Impl, et: PrimitiveType) -> _Fn | None:
    if et.is_integral or et.is_pred:
        return impl.integer
    return impl.real if et.is_float else impl.complex


def _elementwise_kernel(opcode: Op, impl: _Impl) -> None:
    def run(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
        et, out = operand_type(instruction, 0), result_type(instruction)
        fn = _pick(impl, et)
        if fn is None:
            raise ctx.fail(instruction, f"{opcode.value} does not apply to {et.hlo_name} values")
        with np.errstate(all="ignore"):
            result = fn(*(widen(v, et) for v in operands), et)
        return as_result(narrow(result, out), out)

    run.__name__ = run.__qualname__ = f"_{opcode.name.lower()}"
    kernel(opcode)(run)


# -- integers ---------------------------------------------------------------------------


def _as_signed(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Integer values reinterpreted as signed ones of the same width."""
    width = et.bit_width
    if width >= 8:
        return a.astype(f"i{width // 8}")
    wide = a.astype(np.int16)
    return np.where(wide >= 1 << (width - 1), wide - (1 << width), wide)


def _as_unsigned(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Integer values reinterpreted as unsigned ones of the same width (their bits)."""
    width = et.bit_width
    if width >= 8:
        return a.astype(f"u{width // 8}")
    return a.astype(np.uint8) & np.uint8((1 << width) - 1)


def _int_divide(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    lo, hi = int_bounds(et)
    by_zero = b == 0
    overflow = (a == lo) & (b == -1) if lo < 0 else np.zeros_like(by_zero)
    safe = np.where(by_zero | overflow, 1, b).astype(b.dtype)
    floor = a // safe
    # Round toward zero: floor division is one too low when there is a remainder of the
    # other sign.
    quotient = np.where((a - floor * safe != 0) & ((a < 0) != (safe < 0)), floor + 1, floor)
    on_zero = -1 if lo < 0 else hi
    return np.where(by_zero, np.array(on_zero).astype(a.dtype), np.where(overflow, a, quotient))


def _int_remainder(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    lo, _ = int_bounds(et)
    by_zero = b == 0
    overflow = (a == lo) & (b == -1) if lo < 0 else np.zeros_like(by_zero)
    safe = np.where(by_zero | overflow, 1, b).astype(b.dtype)
    return np.where(by_zero, a, np.where(overflow, 0, np.fmod(a, safe)))


def _shift_amount(b: np.ndarray, et: PrimitiveType) -> tuple[np.ndarray, np.ndarray]:
    """(whether the shift is out of range, the amount made safe to shift by)."""
    out_of_range = (b < 0) | (b >= et.bit_width)
    return out_of_range, np.where(out_of_range, 0, b)


def _shift_left(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    out, safe = _shift_amount(b, et)
    return np.where(out, 0, a << safe.astype(a.dtype))


def _shift_right_arithmetic(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    out, safe = _shift_amount(b, et)
    signed = _as_signed(a, et)
    return np.where(out, np.where(signed < 0, -1, 0), signed >> safe.astype(signed.dtype))


def _shift_right_logical(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    out, safe = _shift_amount(b, et)
    bits = _as_unsigned(a, et)
    return np.where(out, 0, bits >> safe.astype(bits.dtype))


def _mulhi(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """The high half of the double-width product (signed for signed types)."""
    product = np.asarray(a).astype(object) * np.asarray(b).astype(object)
    high = np.asarray(product >> et.bit_width, dtype=object)
    return high.astype(np.uint64 if et is P.U64 else np.int64)


def _popcnt(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    # XLA:CPU counts an s4's bits in its sign-extended byte (popcnt(-1) = 8, wrapping to
    # -8); every other type, s2 included, in its own width.
    width_of = P.S8 if et is P.S4 else et
    return np.bitwise_count(_as_unsigned(a, width_of)).astype(a.dtype)


def _count_leading_zeros(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    bits = _as_unsigned(a, et).astype(np.uint64)
    length = np.zeros(bits.shape, np.int64)
    for step in (32, 16, 8, 4, 2, 1):
        high = bits >> np.uint64(step)
        has_high = high != 0
        length += np.where(has_high, step, 0)
        bits = np.where(has_high, high, bits)
    length += bits != 0
    return (et.bit_width - length).astype(a.dtype)


def _int_not(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    return a == 0 if et.is_pred else ~a


# -- reals ------------------------------------------------------------------------------


def _float_maximum(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    # np.maximum propagates NaN; equal values differ only as -0/+0, where +0 wins.
    return np.where(a == b, np.where(np.signbit(a), b, a), np.maximum(a, b))


def _float_minimum(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    return np.where(a == b, np.where(np.signbit(a), a, b), np.minimum(a, b))


def _float_sign(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """+-1 by the sign bit; zeros and NaNs are their own sign."""
    return np.where(np.isnan(a) | (a == 0), a, np.copysign(np.ones_like(a), a))


def _complex_maximum(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """XLA:CPU compares real parts only: a when a.real >= b.real (ties keep a whatever
    the imaginary parts), else b, so a NaN real part on either side picks b."""
    return np.where(a.real >= b.real, a, b)


def _complex_minimum(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    return np.where(a.real <= b.real, a, b)


def _round_half_away(a: np.ndarray, et: PrimitiveType) -> np.ndarray:
    # trunc and the difference are exact; adding 0.5 first would round twice.
    whole = np.trunc(a)
    return np.where(np.abs(a - whole) >= 0.5, whole + np.copysign(np.ones_like(a), a), whole)


def _complex_fn(fn: _Fn) -> _Fn:
    """A function of ``elementwise_complex`` as a table entry (which passes the type)."""
    return lambda *args: fn(*args[:-1])


_IMPLS: dict[Op, _Impl] = {
    Op.ADD: _Impl(lambda a, b, t: a + b, lambda a, b, t: a + b, lambda a, b, t: a + b),
    Op.SUBTRACT: _Impl(lambda a, b, t: a - b, lambda a, b, t: a - b, lambda a, b, t: a - b),
    Op.MULTIPLY: _Impl(lambda a, b, t: a * b, lambda a, b, t: a * b, _complex_fn(ec.multiply)),
    Op.DIVIDE: _Impl(_int_divide, lambda a, b, t: a / b, _complex_fn(ec.divide)),
    Op.REMAINDER: _Impl(_int_remainder, lambda a, b, t: np.fmod(a, b)),
    Op.MAXIMUM: _Impl(lambda a, b, t: np.maximum(a, b), _float_maximum, _complex_maximum),
    Op.MINIMUM: _Impl(lambda a, b, t: np.minimum(a, b), _float_minimum, _complex_minimum),
    Op.AND: _Impl(lambda a, b, t: a & b),
    Op.OR: _Impl(lambda a, b, t: a | b),
    Op.XOR: _Impl(lambda a, b, t: a ^ b),
    Op.SHIFT_LEFT: _Impl(_shift_left),
    Op.SHIFT_RIGHT_ARITHMETIC: _Impl(_shift_right_arithmetic),
    Op.SHIFT_RIGHT_LOGICAL: _Impl(_shift_right_logical),
    Op.MULHI: _Impl(_mulhi),
    Op.NEGATE: _Impl(lambda a, t: -a, lambda a, t: -a, lambda a, t: -a),
    Op.ABS: _Impl(lambda a, t: np.abs(a), lambda a, t: np.abs(a), _complex_fn(ec.absolute)),
    Op.SIGN: _Impl(lambda a, t: np.sign(a), _float_sign, _complex_fn(ec.sign)),
    Op.NOT: _Impl(_int_not),
    Op.POPCNT: _Impl(_popcnt),
    Op.COUNT_LEADING_ZEROS: _Impl(_count_leading_zeros),
    Op.CEIL: _Impl(real=lambda a, t: np.ceil(a)),
    Op.FLOOR: _Impl(real=lambda a, t: np.floor(a)),
    Op.ROUND_NEAREST_AFZ: _Impl(real=_round_half_away),
    Op.ROUND_NEAREST_EVEN: _Impl(real=lambda a, t: np.rint(a)),
    Op.IS_FINITE: _Impl(real=lambda a, t: np.isfinite(a)),
}


# -- compare ----------------------------------------------------------------------------


def _total_order_key(x: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Signed integers ordered as XLA's total order of floats: the sign-magnitude bits with
    the magnitude flipped for negatives, so -NaN < -inf < ... < -0 < +0 < ... < +NaN.

    Types narrower than f32 are ordered as their (exact) f32 values, as XLA widens them
    first: the fnuz types' only NaN (the bits of -0) becomes -NaN, below everything, and
    f8e8m0fnu's (which has no sign bit) +NaN, above everything.
    """
    if et.bit_width < 32:
        x, et = x.astype(np.float32), P.F32
    width = et.bit_width
    bits = float_bits(x, et).astype(np.uint64)
    signed = (bits << np.uint64(64 - width)).view(np.int64) >> np.int64(64 - width)
    magnitude = np.int64((1 << (width - 1)) - 1)
    return np.where(signed < 0, signed ^ magnitude, signed)


_DIRECTIONS: dict[ComparisonDirection, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    ComparisonDirection.EQ: np.equal,
    ComparisonDirection.NE: np.not_equal,
    ComparisonDirection.LT: np.less,
    ComparisonDirection.LE: np.less_equal,
    ComparisonDirection.GT: np.greater,
    ComparisonDirection.GE: np.greater_equal,
}


@kernel(Op.COMPARE)
def _compare(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    et = operand_type(instruction, 0)
    direction = instruction.attributes["direction"]
    ctype = instruction.attributes.get("type") or ComparisonType.default_for(et)
    if et.is_complex and direction not in (ComparisonDirection.EQ, ComparisonDirection.NE):
        raise ctx.fail(instruction, f"complex values have no order ({direction.value})")
    if ctype is ComparisonType.TOTALORDER:
        lhs, rhs = (_total_order_key(np.asarray(v, dtype=et.dtype), et) for v in operands)
    else:
        lhs, rhs = (widen(v, et) for v in operands)
    return as_result(_DIRECTIONS[direction](lhs, rhs), P.PRED)


# -- select, clamp, complex, real, imag, copy -------------------------------------------


def _select_values(pred: np.ndarray, on_true: Value, on_false: Value) -> Value:
    if isinstance(on_true, tuple):  # a scalar predicate picks whole tuples
        if pred.ndim == 0:
            return on_true if bool(pred) else on_false
        return tuple(_select_values(pred, t, f) for t, f in zip(on_true, on_false, strict=True))
    return np.where(pred, on_true, on_false)


@kernel(Op.SELECT)
def _select(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    pred, on_true, on_false = operands
    chosen = _select_values(np.asarray(pred, dtype=bool), on_true, on_false)
    out = instruction.shape
    return chosen if out.is_tuple else as_result(chosen, out.element_type)


@kernel(Op.CLAMP)
def _clamp(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """max(x, lo) then min(.., hi), with maximum's and minimum's NaN and zero rules."""
    et = operand_type(instruction, 1)
    if et.is_complex:
        raise ctx.fail(instruction, "complex values have no order to clamp by")
    lo, x, hi = (widen(v, et) for v in operands)
    if et.is_float:
        result = _float_minimum(_float_maximum(x, lo, et), hi, et)
    else:
        result = np.minimum(np.maximum(x, lo), hi)
    return as_result(narrow(result, et), et)


@kernel(Op.COMPLEX)
def _make_complex(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    # Assigning the parts keeps infinities and signed zeros (re + 1j * im would not).
    re, im = np.broadcast_arrays(*(np.asarray(v) for v in operands))
    result = np.empty(re.shape, dtype=result_type(instruction).dtype)
    result.real, result.imag = re, im
    return result


@kernel(Op.REAL)
def _real(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return as_result(np.real(np.asarray(operands[0])), result_type(instruction))


@kernel(Op.IMAG)
def _imag(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The imaginary part; that of a real number is 0 (converted: NaN for f8e8m0fnu)."""
    x = np.asarray(operands[0])
    out = result_type(instruction)
    if operand_type(instruction, 0).is_complex:
        return as_result(np.imag(x), out)
    return as_result(narrow(np.zeros(x.shape, np.float32), out), out)


@kernel(Op.COPY)
def _copy(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The same logical value: layouts, the only thing a copy changes, live elsewhere."""
    return operands[0]


@kernel(Op.MAP)
def _map(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    (result,) = call_scalar(ctx, instruction.to_apply, [np.asarray(o) for o in operands])
    # The operands' shape, which is the result's (at its dynamic sizes, if any).
    shape = np.asarray(operands[0]).shape if operands else instruction.shape.dimensions
    return np.array(np.broadcast_to(result, shape), order="C")


for _opcode, _impl in _IMPLS.items():
    _elementwise_kernel(_opcode, _impl)
