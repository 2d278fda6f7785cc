"""Ops that change element types: convert, bitcast-convert (equal widths), reduce-precision
and stochastic-convert, with the interpreter's (``elementwise_convert``'s) rules:

* float -> integer truncates toward zero and saturates, NaN -> 0 (``llvm.fptosi.sat`` /
  ``llvm.fptoui.sat``, which LLVM defines for every value); f4e2m1fn's +-6 saturates as
  an infinity would, as XLA does;
* integer -> integer wraps (two's complement); anything -> pred is "nonzero" (NaN too);
* integer -> float rounds to nearest even, to bf16 and the 8-/4-bit types through f32
  (twice, as XLA); float -> float rounds once, but f64 -> f16/bf16 goes through f32
  (twice, as XLA) while f64 -> f8/f4 rounds once (``elemental.narrow_floats``).
"""

from __future__ import annotations

from llvmlite import ir

from ....types import PrimitiveType
from ..llvm_types import F16, F32, F64, I16, I32, I64, NotEmittable, llvm_type
from . import narrow_floats as floats
from .complex import convert as complex_convert
from .support import (
    const,
    int_bits,
    int_bounds,
    int_store,
    int_value,
    intrinsic,
    to_i8,
    unary_intrinsic,
)

P = PrimitiveType


def _to_pred(b: ir.IRBuilder, v: ir.Value, src: PrimitiveType) -> ir.Value:
    if src.is_float:
        x = floats.widen(b, v, src)
        return to_i8(b, b.fcmp_unordered("!=", x, const(x.type, 0.0)))
    return to_i8(b, b.icmp_unsigned("!=", int_value(b, v, src), const(v.type, 0)))


def _int_to_int(b: ir.IRBuilder, v: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
    value = int_value(b, v, src)
    target = llvm_type(dst)
    if target.width < value.type.width:
        value = b.trunc(value, target)
    elif target.width > value.type.width:
        value = (b.sext if src.is_signed_integral else b.zext)(value, target)
    return int_store(b, value, dst)


def _int_to_float(b: ir.IRBuilder, v: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
    value = int_value(b, v, src)
    to_float = b.sitofp if src.is_signed_integral else b.uitofp
    if dst is P.F64:
        return to_float(value, F64)
    return floats.from_f32(b, to_float(value, F32), dst)


def _float_to_int(b: ir.IRBuilder, v: ir.Value, src: PrimitiveType, dst: PrimitiveType) -> ir.Value:
    x = floats.widen(b, v, src)
    if src is P.F4E2M1FN:  # XLA saturates f4e2m1fn's largest magnitude like an infinity
        x = b.select(
            b.fcmp_ordered("==", unary_intrinsic(b, "fabs", x), const(F32, 6.0)),
            b.fmul(x, const(F32, float("inf"))),
            x,
        )
    exact = ir.IntType(dst.bit_width)  # i2/i4 saturate at their own bounds
    name = "llvm.fptosi.sat" if dst.is_signed_integral else "llvm.fptoui.sat"
    result = intrinsic(b, name, [exact, x.type], [x])
    target = llvm_type(dst)
    if exact.width < target.width:
        result = (b.sext if dst.is_signed_integral else b.zext)(result, target)
    return int_store(b, result, dst)


def _float_to_float(
    b: ir.IRBuilder, v: ir.Value, src: PrimitiveType, dst: PrimitiveType
) -> ir.Value:
    x = floats.widen(b, v, src)
    if src is P.F64:
        return floats.from_f64(b, x, dst)
    return floats.from_f32(b, x, dst)


def emit_convert(
    b: ir.IRBuilder, value: ir.Value, from_type: PrimitiveType, to_type: PrimitiveType
) -> ir.Value:
    """``convert`` of one value from ``from_type`` to ``to_type`` (llvm_types forms)."""
    if from_type.is_complex or to_type.is_complex:
        return complex_convert(b, value, from_type, to_type, emit_convert)
    for et in (from_type, to_type):
        if et.is_complex or not (et.is_pred or et.is_integral or et.is_float):
            raise NotEmittable(f"convert from {from_type.hlo_name} to {to_type.hlo_name}")
    if to_type.is_pred:
        return _to_pred(b, value, from_type)
    src = P.U8 if from_type.is_pred else from_type
    if src == to_type:
        return canonical(b, value, src)
    if src.is_float:
        convert = _float_to_float if to_type.is_float else _float_to_int
    else:
        convert = _int_to_float if to_type.is_float else _int_to_int
    return convert(b, value, src, to_type)


def canonical(b: ir.IRBuilder, value: ir.Value, et: PrimitiveType) -> ir.Value:
    """``value`` unchanged, in ml_dtypes' storage form (sub-byte types: low bits only)."""
    if et.bit_width < 8:
        return b.and_(value, const(value.type, (1 << et.bit_width) - 1))
    return value


# -- bitcast-convert ---------------------------------------------------------------------


def bits_of(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    if isinstance(v.type, ir.IntType):
        return int_bits(b, v, et) if et.is_integral else canonical(b, v, et)
    return b.bitcast(v, ir.IntType(et.bit_width))


def bitcast_convert(
    b: ir.IRBuilder, v: ir.Value, src: PrimitiveType, dst: PrimitiveType
) -> ir.Value:
    """The same bits as another type of the same width (pred takes part in none)."""
    if src.is_pred or dst.is_pred or src.bit_width != dst.bit_width:
        raise NotEmittable(
            f"bitcast-convert from {src.hlo_name} to {dst.hlo_name} (not one element to one)"
        )
    bits = bits_of(b, v, src)
    target = llvm_type(dst)
    return bits if isinstance(target, ir.IntType) else b.bitcast(bits, target)


# -- reduce-precision --------------------------------------------------------------------


def _reduce_bits(
    b: ir.IRBuilder, bits: ir.Value, et: PrimitiveType, exponent_bits: int, mantissa_bits: int
) -> ir.Value:
    """XLA's reduce-precision on the bits of an f16/bf16/f32/f64 (the interpreter's
    ``reduce_precision_array``): round the mantissa to nearest even by adding a bias below
    the kept bits, then an exponent beyond the reduced range becomes a signed infinity and
    one at or below its minimum a signed zero (no denormals)."""
    src_exponent, src_mantissa = et.exponent_mantissa_bits
    width = et.bit_width
    ty = bits.type
    if mantissa_bits < src_mantissa:
        shift = src_mantissa - mantissa_bits
        last_kept = 1 << shift
        bias = b.and_(b.lshr(bits, const(ty, shift)), const(ty, 1))
        bits = b.add(b.add(bits, bias), const(ty, (last_kept >> 1) - 1))
        bits = b.and_(bits, const(ty, ~(last_kept - 1)))
    if exponent_bits < src_exponent:
        sign = const(ty, 1 << (width - 1))
        exponent_mask = ((1 << src_exponent) - 1) << src_mantissa
        src_bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = b.and_(bits, const(ty, exponent_mask))
        overflows = b.icmp_unsigned(
            ">", exponent, const(ty, (src_bias + reduced_bias) << src_mantissa)
        )
        underflows = b.icmp_unsigned(
            "<=", exponent, const(ty, (src_bias - reduced_bias) << src_mantissa)
        )
        signed_zero = b.and_(bits, sign)
        bits = b.select(
            overflows,
            b.or_(signed_zero, const(ty, exponent_mask)),
            b.select(underflows, signed_zero, bits),
        )
    return bits


_BITS_TYPE = {P.F16: (F16, I16), P.F32: (F32, I32), P.F64: (F64, I64)}


def reduce_precision(
    b: ir.IRBuilder, v: ir.Value, et: PrimitiveType, exponent_bits: int, mantissa_bits: int
) -> ir.Value:
    """reduce-precision of one value; 8-/4-bit types go through f16 (f8e8m0fnu through
    f32) and back, as XLA does. NaNs stay the operand's NaN."""
    if not et.is_float:
        raise NotEmittable(f"reduce-precision of {et.hlo_name}")
    if floats.is_small_float(et):
        via = P.F32 if et is P.F8E8M0FNU else P.F16
        wide = floats.widen(b, v, et)
        narrow = b.fptrunc(wide, F16) if via is P.F16 else wide  # exact
        reduced = reduce_precision(b, narrow, via, exponent_bits, mantissa_bits)
        back = floats.from_f32(b, b.fpext(reduced, F32) if via is P.F16 else reduced, et)
        return b.select(b.fcmp_unordered("uno", wide, wide), v, back)
    if et is P.BF16:
        result = _reduce_bits(b, v, et, exponent_bits, mantissa_bits)
    else:
        float_type, int_type = _BITS_TYPE[et]
        bits = _reduce_bits(b, b.bitcast(v, int_type), et, exponent_bits, mantissa_bits)
        result = b.bitcast(bits, float_type)
    x = floats.widen(b, v, et)
    return b.select(b.fcmp_unordered("uno", x, x), v, result)


# -- stochastic-convert ------------------------------------------------------------------


def stochastic_convert(
    b: ir.IRBuilder,
    v: ir.Value,
    random: ir.Value,
    src: PrimitiveType,
    random_type: PrimitiveType,
    dst: PrimitiveType,
) -> ir.Value:
    """Float -> integer rounding the magnitude up when the random bits, read as a fraction
    of 2^bits, are below its fraction; saturating; NaN -> 0 (the interpreter's rule, which
    is XLA's decomposition for signed targets)."""
    if not (src.is_float and dst.is_integral and random_type.is_unsigned_integral):
        raise NotEmittable(
            f"stochastic-convert of {src.hlo_name} to {dst.hlo_name} with {random_type.hlo_name}"
        )
    x = floats.widen(b, v, src)
    x = x if x.type == F64 else b.fpext(x, F64)
    magnitude = unary_intrinsic(b, "fabs", x)
    whole = unary_intrinsic(b, "floor", magnitude)
    fixed = b.fmul(b.fsub(magnitude, whole), const(F64, 2.0**random_type.bit_width))  # exact
    fixed = b.select(b.fcmp_ordered("<", fixed, const(F64, float("inf"))), fixed, const(F64, 0))
    threshold = intrinsic(b, "llvm.fptoui.sat", [I64, F64], [fixed])
    bits = int_bits(b, random, random_type)
    draw = bits if bits.type.width == 64 else b.zext(bits, I64)
    up = b.uitofp(b.zext(b.icmp_unsigned("<", draw, threshold), I32), F64)
    rounded = intrinsic(b, "llvm.copysign", [F64], [b.fadd(whole, up), x])
    lo, hi = int_bounds(dst)
    target = llvm_type(dst)
    name = "llvm.fptosi.sat" if dst.is_signed_integral else "llvm.fptoui.sat"
    result = intrinsic(b, name, [I64, F64], [rounded])  # in range unless selected away
    result = b.trunc(result, target) if target.width < 64 else result
    too_high = b.fcmp_ordered(">=", x, const(F64, float(hi)))
    too_low = b.fcmp_ordered("<=", x, const(F64, float(lo)))
    result = b.select(b.fcmp_unordered("uno", x, x), const(target, 0), result)
    result = b.select(too_low, const(target, lo), result)
    result = b.select(too_high, const(target, hi), result)
    return int_store(b, result, dst)


__all__ = [
    "bitcast_convert",
    "bits_of",
    "canonical",
    "emit_convert",
    "reduce_precision",
    "stochastic_convert",
]
