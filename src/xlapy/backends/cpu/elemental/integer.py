"""Integer and pred ops, with XLA:CPU's results where C and LLVM leave them undefined.

Every function takes operand values as :func:`support.int_value` reads them
(sub-byte types sign- or zero-extended in their byte; pred an unsigned byte 0/1) and
returns the result in the same container, *before* wrapping: the caller stores it with
``int_store``, which keeps ``et``'s low bits (pred: "nonzero", so that ``add`` is or,
``subtract`` xor and ``multiply`` and, as XLA:CPU computes pred as bytes).

Where LLVM has undefined behaviour the code selects a safe operand first and fixes the
result after (``sdiv``/``srem`` by 0 or of INT_MIN by -1 are UB even when the result is
discarded; shifts by the bit width or more are poison), so that it stays branch-free and
vectorizable:

* ``x / 0`` is -1 (all ones unsigned), ``INT_MIN / -1`` is INT_MIN; ``x % 0`` is x and
  ``INT_MIN % -1`` is 0;
* a shift by a negative amount or by the bit width or more gives 0, or the sign fill for
  an arithmetic right shift, which reads unsigned values as signed ones of their width; a
  logical right shift reads signed values as their bits (an s4 -1 is 0b1111);
* popcnt counts an s4 in its sign-extended byte (XLA:CPU's quirk), every other type in its
  own width; count-leading-zeros counts in the type's width;
* power is XLA:CPU's square-and-multiply over the exponent's low 6 bits, the exponent read
  as signed in its (at least 8-bit) container; a negative one gives 1/x truncated.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..llvm_types import I1
from .support import const, int_bits, int_bounds, intrinsic

Op = HloOpcode
P = PrimitiveType
IntFn = Callable[..., ir.Value]


def _signed(et: PrimitiveType) -> bool:
    return et.is_signed_integral


def _cmp(b: ir.IRBuilder, et: PrimitiveType, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """``x op y`` by ``et``'s signedness (pred: unsigned)."""
    return (b.icmp_signed if _signed(et) else b.icmp_unsigned)(op, x, y)


def _as_signed(b: ir.IRBuilder, x: ir.Value, et: PrimitiveType) -> ir.Value:
    """The value's bits read as a signed integer of ``et``'s width (in the container)."""
    width = et.bit_width
    if et.is_pred or width >= 8 or _signed(et):
        return x
    shift = const(x.type, 8 - width)
    return b.ashr(b.shl(x, shift), shift)


# -- division ----------------------------------------------------------------------------


def _division_guards(
    b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value
) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(y == 0, INT_MIN / -1, a divisor that is safe for LLVM: 1 in both cases)."""
    ty = x.type
    by_zero = b.icmp_unsigned("==", y, const(ty, 0))
    if _signed(et):
        lo = const(ty, int_bounds(et)[0])
        overflow = b.and_(b.icmp_signed("==", x, lo), b.icmp_signed("==", y, const(ty, -1)))
    else:
        overflow = ir.Constant(I1, 0)
    safe = b.select(b.or_(by_zero, overflow), const(ty, 1), y)
    return by_zero, overflow, safe


def divide(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    by_zero, overflow, safe = _division_guards(b, et, x, y)
    ty = x.type
    if _signed(et):
        quotient = b.select(overflow, x, b.sdiv(x, safe))
        return b.select(by_zero, const(ty, -1), quotient)
    return b.select(by_zero, const(ty, int_bounds(et)[1]), b.udiv(x, safe))


def remainder(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    by_zero, overflow, safe = _division_guards(b, et, x, y)
    ty = x.type
    if _signed(et):
        rest = b.select(overflow, const(ty, 0), b.srem(x, safe))
    else:
        rest = b.urem(x, safe)
    return b.select(by_zero, x, rest)


# -- shifts ------------------------------------------------------------------------------


def _shift_guard(b: ir.IRBuilder, et: PrimitiveType, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(the amount is out of range, an amount safe for LLVM). Negative amounts are huge
    unsigned ones (sub-byte amounts are sign-extended in their byte)."""
    out = b.icmp_unsigned(">=", y, const(y.type, et.bit_width))
    return out, b.select(out, const(y.type, 0), y)


def shift_left(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    out, safe = _shift_guard(b, et, y)
    return b.select(out, const(x.type, 0), b.shl(x, safe))


def shift_right_logical(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    out, safe = _shift_guard(b, et, y)
    return b.select(out, const(x.type, 0), b.lshr(int_bits(b, x, et), safe))


def shift_right_arithmetic(
    b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value
) -> ir.Value:
    out, safe = _shift_guard(b, et, y)
    signed = _as_signed(b, x, et)
    fill = b.ashr(signed, const(x.type, x.type.width - 1))
    return b.select(out, fill, b.ashr(signed, safe))


# -- the rest of the binary ops ----------------------------------------------------------


def maximum(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(_cmp(b, et, ">", x, y), x, y)


def minimum(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(_cmp(b, et, "<", x, y), x, y)


def mulhi(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    """The high half (``et``'s width) of the double-width product."""
    ty = x.type
    wide = ir.IntType(2 * ty.width)
    extend = b.sext if _signed(et) else b.zext
    product = b.mul(extend(x, wide), extend(y, wide))
    shift = b.ashr if _signed(et) else b.lshr
    return b.trunc(shift(product, const(wide, et.bit_width)), ty)


def power(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value, y: ir.Value) -> ir.Value:
    """XLA:CPU's integer power (see the module docstring), unrolled into selects."""
    ty = x.type
    one, zero = const(ty, 1), const(ty, 0)
    result, base = one, x
    for bit in range(6):
        set_ = b.icmp_unsigned("!=", b.and_(y, const(ty, 1 << bit)), zero)
        result = b.select(set_, b.mul(result, base), result)
        if bit < 5:
            base = b.mul(base, base)
    negative = b.icmp_signed("<", y, zero)  # in the container, as XLA reads it
    odd = b.icmp_unsigned("!=", b.and_(y, one), zero)
    minus_one = b.select(odd, const(ty, -1), one)
    inverse = b.select(
        b.icmp_signed("==", x, one),
        one,
        b.select(b.icmp_signed("==", x, const(ty, -1)), minus_one, zero),
    )
    return b.select(negative, inverse, result)


BINARY: dict[HloOpcode, IntFn] = {
    Op.ADD: lambda b, et, x, y: b.add(x, y),
    Op.SUBTRACT: lambda b, et, x, y: b.sub(x, y),
    Op.MULTIPLY: lambda b, et, x, y: b.mul(x, y),
    Op.DIVIDE: divide,
    Op.REMAINDER: remainder,
    Op.AND: lambda b, et, x, y: b.and_(x, y),
    Op.OR: lambda b, et, x, y: b.or_(x, y),
    Op.XOR: lambda b, et, x, y: b.xor(x, y),
    Op.MAXIMUM: maximum,
    Op.MINIMUM: minimum,
    Op.SHIFT_LEFT: shift_left,
    Op.SHIFT_RIGHT_LOGICAL: shift_right_logical,
    Op.SHIFT_RIGHT_ARITHMETIC: shift_right_arithmetic,
    Op.MULHI: mulhi,
    Op.POWER: power,
}


# -- unary ops ---------------------------------------------------------------------------


def negate(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    return b.neg(x)


def logical_not(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    if et.is_pred:
        return b.zext(b.icmp_unsigned("==", x, const(x.type, 0)), x.type)
    return b.xor(x, const(x.type, -1))


def absolute(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    if not _signed(et):
        return x
    return b.select(b.icmp_signed("<", x, const(x.type, 0)), b.neg(x), x)


def sign(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    zero, one = const(x.type, 0), const(x.type, 1)
    nonzero = b.select(b.icmp_unsigned("==", x, zero), zero, one)
    if not _signed(et):
        return nonzero
    return b.select(b.icmp_signed("<", x, zero), const(x.type, -1), nonzero)


def popcnt(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    counted = x if et is P.S4 else int_bits(b, x, et)  # s4: its sign-extended byte
    return intrinsic(b, "llvm.ctpop", [x.type], [counted])


def count_leading_zeros(b: ir.IRBuilder, et: PrimitiveType, x: ir.Value) -> ir.Value:
    zeros = intrinsic(b, "llvm.ctlz", [x.type], [int_bits(b, x, et), ir.Constant(I1, 0)])
    extra = x.type.width - et.bit_width  # the clear bits above a sub-byte value
    return b.sub(zeros, const(x.type, extra)) if extra > 0 else zeros


UNARY: dict[HloOpcode, IntFn] = {
    Op.NEGATE: negate,
    Op.NOT: logical_not,
    Op.ABS: absolute,
    Op.SIGN: sign,
    Op.POPCNT: popcnt,
    Op.COUNT_LEADING_ZEROS: count_leading_zeros,
}

__all__ = ["BINARY", "UNARY"]
