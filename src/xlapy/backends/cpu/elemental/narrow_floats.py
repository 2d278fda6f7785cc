"""Float storage and compute forms: f16, bf16 and the 8- and 4-bit floats to and from
``float``, rounded exactly as ml_dtypes (and so the interpreter) rounds.

In registers (``llvm_types``) ``f16`` is ``half``; ``bf16`` and the 8-/4-bit floats are
their bit patterns (``i16``, ``i8``; the 4-bit f4e2m1fn in the low bits of a byte).
Arithmetic widens them to ``float`` (exact) and narrows the result back:

* :func:`widen` - storage to compute form: ``float`` for every type but f64. The 8-/4-bit
  types decode through a 256-entry table of f32 bit patterns made by ml_dtypes itself, so
  every code (NaNs, the fnuz types' single NaN 0x80, f8e8m0fnu's 2^-127) widens exactly as
  the interpreter widens it.
* :func:`narrow` - an arithmetic result back to storage, as XLA:CPU (and the interpreter's
  ``elementwise_convert.narrow``) does: f16 and bf16 round once from f32; the 8-/4-bit
  types round to f16 first and then to the type (twice), f8e8m0fnu directly from f32.
* :func:`from_f32` / :func:`from_f64` - ``convert``'s single roundings (f64 -> f16/bf16
  goes through f32, as XLA does; f64 -> f8/f4 rounds once, through an f32 rounded to odd).

Rounding is to nearest even by integer arithmetic on the f32 bits, branch-free. Overflow
follows each format: infinity for the IEEE-like types (e5m2, e4m3, e3m4), NaN for the fn
and fnuz types (which have no infinity), saturation at +-6 for f4e2m1fn (which has no
NaN: a NaN becomes -0, XLA's choice). The fnuz types have no -0: a negative result that
rounds to zero is +0. f8e8m0fnu (powers of two, no sign, no zero) follows ml_dtypes from
f32 and XLA's own rule from f64 (see :func:`_e8m0_from_f64`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import ml_dtypes
import numpy as np
from llvmlite import ir

from ....types import PrimitiveType
from ..llvm_types import F16, F32, F64, I8, I16, I32, I64
from .support import const, intrinsic, unary_intrinsic

P = PrimitiveType


@dataclass(frozen=True)
class _Format:
    """An 8- or 4-bit float format, as ml_dtypes defines it."""

    et: PrimitiveType
    width: int  # bits of a code: 8 or 4
    mantissa: int
    bias: int
    max_code: int  # the largest finite magnitude's code
    kind: str  # "ieee" (inf and NaNs), "fn" (NaN = all ones), "fnuz" (NaN = 0x80), "sat"

    @property
    def sign(self) -> int:
        return 1 << (self.width - 1)

    @property
    def inf_code(self) -> int:
        return ((1 << (self.width - 1 - self.mantissa)) - 1) << self.mantissa

    @property
    def nan_code(self) -> int:
        """The magnitude code ml_dtypes gives a NaN (the sign is kept, except for fnuz)."""
        if self.kind == "ieee":
            return self.inf_code | (1 << (self.mantissa - 1))
        if self.kind == "fn":
            return self.sign - 1
        return self.sign  # fnuz: 0x80; sat (f4e2m1fn, no NaN): -0, XLA's choice


@functools.cache
def _format(et: PrimitiveType) -> _Format:
    info = ml_dtypes.finfo(et.dtype)
    width = et.bit_width
    max_code = int(np.array(info.max, et.dtype).view(np.uint8)) & ((1 << width) - 1)
    name = et.hlo_name
    if et is P.F4E2M1FN:
        kind = "sat"
    elif name.endswith("fnuz"):
        kind = "fnuz"
    elif name.endswith("fn"):
        kind = "fn"
    else:
        kind = "ieee"
    return _Format(et, width, int(info.nmant), 1 - int(info.minexp), max_code, kind)


def is_small_float(et: PrimitiveType) -> bool:
    """The 8- and 4-bit float types (bit patterns in a byte)."""
    return et.is_float and et.bit_width <= 8


def compute_type(et: PrimitiveType) -> ir.Type:
    """The LLVM type ``et``'s values are computed in: double for f64, float otherwise."""
    return F64 if et is P.F64 else F32


# -- widening ----------------------------------------------------------------------------


def _decode_table(b: ir.IRBuilder, et: PrimitiveType) -> ir.GlobalVariable:
    """A module constant: the f32 bits of every code of ``et``, decoded by ml_dtypes."""
    module = b.block.function.module
    name = f"xlapy.decode.{et.hlo_name}"
    table = module.globals.get(name)
    if table is None:
        codes = np.arange(1 << et.bit_width, dtype=np.uint8).view(et.dtype)
        bits = codes.astype(np.float32).view(np.uint32)
        ty = ir.ArrayType(I32, len(bits))
        table = ir.GlobalVariable(module, ty, name)
        table.global_constant = True
        table.linkage = "private"
        table.unnamed_addr = True
        table.initializer = ir.Constant(ty, [ir.Constant(I32, int(v)) for v in bits])
    return table


def widen(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """A stored float of type ``et`` in its compute type (exact)."""
    if et in (P.F32, P.F64):
        return v
    if et is P.F16:
        return b.fpext(v, F32)
    if et is P.BF16:
        return b.bitcast(b.shl(b.zext(v, I32), const(I32, 16)), F32)
    code = b.and_(v, const(I8, (1 << et.bit_width) - 1)) if et.bit_width < 8 else v
    pointer = b.gep(_decode_table(b, et), [const(I32, 0), b.zext(code, I32)], inbounds=True)
    return b.bitcast(b.load(pointer), F32)


# -- narrowing from f32 ------------------------------------------------------------------


def bf16_from_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """Round to nearest even; a NaN becomes ml_dtypes' quiet NaN of the same sign."""
    bits = b.bitcast(x, I32)
    lsb = b.and_(b.lshr(bits, const(I32, 16)), const(I32, 1))
    rounded = b.lshr(b.add(bits, b.add(const(I32, 0x7FFF), lsb)), const(I32, 16))
    nan = b.or_(b.and_(b.lshr(bits, const(I32, 16)), const(I32, 0x8000)), const(I32, 0x7FC0))
    is_nan = b.fcmp_unordered("uno", x, x)
    return b.trunc(b.select(is_nan, nan, rounded), I16)


def _small_from_f32(b: ir.IRBuilder, x: ir.Value, f: _Format) -> ir.Value:
    """An f32 rounded once to nearest even into the 8-/4-bit format ``f``."""
    bits = b.bitcast(x, I32)
    magnitude = b.and_(bits, const(I32, 0x7FFFFFFF))
    # Normal codes: round the mantissa at its new last bit, then rebias the exponent (a
    # carry out of the mantissa moves to the next binade by itself).
    shift = 23 - f.mantissa
    lsb = b.and_(b.lshr(magnitude, const(I32, shift)), const(I32, 1))
    rounded = b.add(magnitude, b.add(const(I32, (1 << (shift - 1)) - 1), lsb))
    normal = b.sub(b.lshr(rounded, const(I32, shift)), const(I32, (127 - f.bias) << f.mantissa))
    # Below the smallest normal: the code is |x| in units of the smallest denormal, rounded
    # to even (exact scaling by a power of two; 2^mantissa is the smallest normal's code).
    scaled = b.fmul(unary_intrinsic(b, "fabs", x), const(F32, 2.0 ** (f.mantissa + f.bias - 1)))
    rounded_scaled = intrinsic(
        b,
        "llvm.minnum",
        [F32],
        [unary_intrinsic(b, "roundeven", scaled), const(F32, 2.0**f.mantissa)],
    )
    denormal = b.fptosi(rounded_scaled, I32)
    smallest_normal = (127 + 1 - f.bias) << 23
    code = b.select(b.icmp_unsigned("<", magnitude, const(I32, smallest_normal)), denormal, normal)
    over = b.icmp_signed(">", code, const(I32, f.max_code))  # infinities included
    is_nan = b.icmp_unsigned(">", magnitude, const(I32, 0x7F800000))
    sign = b.shl(b.lshr(bits, const(I32, 31)), const(I32, f.width - 1))
    if f.kind == "fnuz":
        signed = b.select(b.icmp_signed("==", code, const(I32, 0)), code, b.or_(code, sign))
        result = b.select(b.or_(over, is_nan), const(I32, f.nan_code), signed)
    elif f.kind == "sat":
        code = b.select(over, const(I32, f.max_code), code)
        result = b.select(is_nan, const(I32, f.nan_code), b.or_(code, sign))
    else:
        overflow_code = f.inf_code if f.kind == "ieee" else f.nan_code
        code = b.select(over, const(I32, overflow_code), code)
        code = b.select(is_nan, const(I32, f.nan_code), code)
        result = b.or_(code, sign)
    return b.trunc(result, I8)


def _e8m0_from_f32(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """ml_dtypes' f32 -> f8e8m0fnu: the exponent, one up from a mantissa of 1.5; a denormal
    above 2^-127 goes up to 2^-126 and one at or below it to 2^-127; zero, negatives,
    infinities, NaN and overflow give the NaN 0xFF."""
    bits = b.bitcast(x, I32)
    normal = b.lshr(b.add(bits, const(I32, 0x400000)), const(I32, 23))
    denormal = b.zext(b.icmp_unsigned(">", bits, const(I32, 0x400000)), I32)
    code = b.select(b.icmp_unsigned("<", bits, const(I32, 0x800000)), denormal, normal)
    invalid = b.or_(
        b.icmp_unsigned("==", bits, const(I32, 0)),
        b.or_(
            b.icmp_unsigned(">=", bits, const(I32, 0x7F800000)),
            b.icmp_unsigned(">", code, const(I32, 254)),
        ),
    )
    return b.trunc(b.select(invalid, const(I32, 0xFF), code), I8)


def from_f32(b: ir.IRBuilder, x: ir.Value, et: PrimitiveType) -> ir.Value:
    """``convert`` of an f32 value to float type ``et``: one rounding to nearest even."""
    if et is P.F32:
        return x
    if et is P.F64:
        return b.fpext(x, F64)
    if et is P.F16:
        return b.fptrunc(x, F16)
    if et is P.BF16:
        return bf16_from_f32(b, x)
    if et is P.F8E8M0FNU:
        return _e8m0_from_f32(b, x)
    return _small_from_f32(b, x, _format(et))


def narrow(b: ir.IRBuilder, x: ir.Value, et: PrimitiveType) -> ir.Value:
    """An arithmetic result (in ``compute_type(et)``) back to ``et``, rounded as XLA:CPU
    rounds: the 8-/4-bit types (f8e8m0fnu aside) through f16, which can round twice (e.g.
    f8e3m4's sqrt(15.5) is 4, not the nearer 3.875)."""
    if is_small_float(et) and et is not P.F8E8M0FNU:
        x = b.fpext(b.fptrunc(x, F16), F32)
    return from_f32(b, x, et)


# -- narrowing from f64 ------------------------------------------------------------------


def f32_round_to_odd(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """``x`` (f64) in f32, truncated with the last bit set if inexact: rounding that to a
    type at least two bits narrower gives the correctly rounded result (one rounding)."""
    f = b.fptrunc(x, F32)
    back = b.fpext(f, F64)
    bits = b.bitcast(f, I32)
    inexact = b.fcmp_ordered("!=", back, x)
    away = b.fcmp_ordered(">", unary_intrinsic(b, "fabs", back), unary_intrinsic(b, "fabs", x))
    toward_zero = b.select(b.and_(inexact, away), b.sub(bits, const(I32, 1)), bits)
    odd = b.select(inexact, b.or_(toward_zero, const(I32, 1)), toward_zero)
    return b.bitcast(odd, F32)


def _e8m0_from_f64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """XLA's direct f64 -> f8e8m0fnu: the exponent, one up from a mantissa of 1.5, values
    in (2^-127, 2^-126) up to 2^-126; NaN (0xFF) below 2^-127, at or above 2^127 * 1.5,
    and for zero, negatives, infinities and NaN."""
    bits = b.bitcast(x, I64)
    up = b.and_(b.lshr(bits, const(I64, 51)), const(I64, 1))
    code = b.add(b.sub(b.lshr(bits, const(I64, 52)), const(I64, 1023 - 127)), up)
    smallest = int(np.array(2.0**-127).view(np.uint64))
    above_smallest = b.icmp_unsigned(">", bits, const(I64, smallest))
    code = b.select(
        b.and_(above_smallest, b.icmp_signed("<", code, const(I64, 1))), const(I64, 1), code
    )
    valid = b.and_(
        b.icmp_unsigned(">=", bits, const(I64, smallest)),
        b.and_(
            b.icmp_unsigned("<", bits, const(I64, 0x7FF0000000000000)),
            b.icmp_signed("<=", code, const(I64, 254)),
        ),
    )
    return b.trunc(b.select(valid, code, const(I64, 0xFF)), I8)


def from_f64(b: ir.IRBuilder, x: ir.Value, et: PrimitiveType) -> ir.Value:
    """``convert`` of an f64 value to float type ``et``, as XLA: f32 rounds once, f16 and
    bf16 round to f32 first (twice), the 8-/4-bit types once."""
    if et is P.F64:
        return x
    if et in (P.F32, P.F16, P.BF16):
        return from_f32(b, b.fptrunc(x, F32), et)
    if et is P.F8E8M0FNU:
        return _e8m0_from_f64(b, x)
    return _small_from_f32(b, f32_round_to_odd(b, x), _format(et))


# -- total order -------------------------------------------------------------------------


def total_order_key(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """A signed integer ordered as XLA's total order of ``et``'s values: -NaN < -inf <
    ... < -0 < +0 < ... < +inf < +NaN (the sign-magnitude bits, magnitude flipped for
    negatives).

    Types narrower than f32 are ordered as their f32 values, as XLA widens them. f16 and
    bf16 widen injectively and monotonically (NaN payloads shift along), so their own bits
    order the same; the 8-/4-bit types widen through ml_dtypes' table, whose NaNs are
    canonical (the fnuz types' NaN becomes -NaN, f8e8m0fnu's +NaN).
    """
    if is_small_float(et):
        v = widen(b, v, et)
    if isinstance(v.type, ir.IntType):
        bits = v
    else:
        bits = b.bitcast(v, I64 if v.type == F64 else (I16 if v.type == F16 else I32))
    ty = bits.type
    magnitude = const(ty, (1 << (ty.width - 1)) - 1)
    negative = b.icmp_signed("<", bits, const(ty, 0))
    return b.select(negative, b.xor(bits, magnitude), bits)


__all__ = [
    "bf16_from_f32",
    "compute_type",
    "f32_round_to_odd",
    "from_f32",
    "from_f64",
    "is_small_float",
    "narrow",
    "total_order_key",
    "widen",
]
