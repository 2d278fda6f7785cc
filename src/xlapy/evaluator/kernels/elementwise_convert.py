"""Kernels that change element types: convert, bitcast-convert, reduce-precision and
stochastic-convert.

``convert`` follows XLA:CPU bit for bit (checked against it, see the tests), including
the places where that differs from a plain numpy/ml_dtypes ``astype``:

* float -> integer truncates toward zero, saturates at the target's range and maps NaN
  to 0 (numpy's cast is undefined there). f4e2m1fn's largest magnitude (6) saturates too,
  as XLA treats it like an infinity when converting to an integer.
* f64 -> f16/bf16 rounds through f32 (twice, as XLA does), but f64 -> f8/f4 rounds once,
  directly (ml_dtypes would go through f32).
* f64 -> f8e8m0fnu maps values below its smallest value (2^-127) to NaN, as XLA does;
  from narrower floats they round up to 2^-127.
* NaN -> f4e2m1fn (which has no NaN) gives -0, as XLA does (ml_dtypes gives +0).

Elsewhere it is the usual: integers wrap to narrower integers (two's complement), integer
-> float rounds to nearest even (-> bf16 through f32, as XLA), float narrowing rounds to
nearest even with the target's overflow rule (inf, NaN for the fn/fnuz kinds, saturation
for f4e2m1fn), anything -> pred is "nonzero" (NaN included), and complex -> real is an
error (take real() or imag()).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ..core import EvalContext, Value, c_contiguous, kernel
from .elementwise_support import (
    as_result,
    bits_to_float,
    bits_to_int,
    float_bits,
    int_bounds,
    operand_type,
    result_type,
    unsigned_bits,
    widen,
)

P = PrimitiveType
_E8M0_MIN = 2.0**-127


def _kind(et: PrimitiveType) -> str:
    if et.is_pred:
        return "pred"
    if et.is_integral:
        return "int"
    return "complex" if et.is_complex else "float"


def _int_container(x: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Integers as int64 (uint64 for u64), where every value and every wrap is exact."""
    return x.astype(np.uint64 if et is P.U64 else np.int64)


# -- float -> float ---------------------------------------------------------------------


def _round_to_format(v: np.ndarray, target: PrimitiveType) -> np.ndarray:
    """f64 values rounded (to nearest even) to ``target``'s precision, exponent unbounded
    above: a single rounding, so that the f32 -> target cast that follows is exact or
    overflows exactly as the target's rules say."""
    info = ml_dtypes.finfo(target.dtype)
    with np.errstate(all="ignore"):
        _, e = np.frexp(v)
        quantum = np.ldexp(1.0, np.maximum(e - 1, info.minexp) - info.nmant)
        rounded = np.rint(v / quantum) * quantum
    return np.where(np.isfinite(v), rounded, v)


def _f64_to_e8m0(v: np.ndarray) -> np.ndarray:
    """XLA's direct f64 -> f8e8m0fnu: a power of two, rounding up from a mantissa of 1.5;
    NaN below 2^-127, above 2^127 and for non-positive or non-finite values."""
    with np.errstate(all="ignore"):
        m, e = np.frexp(v)
        exponent = (e - 1 + (m >= 0.75)).astype(np.int64)
        # The lowest binade (2^-127, 2^-126) rounds up, as XLA does.
        exponent = np.where((v > _E8M0_MIN) & (exponent < -126), -126, exponent)
        valid = (v >= _E8M0_MIN) & np.isfinite(v) & (exponent <= 127)
        powers = np.ldexp(np.float32(1.0), np.where(valid, exponent, 0)).astype(np.float32)
    return np.where(valid, powers, np.float32(np.nan)).astype(ml_dtypes.float8_e8m0fnu)


def _float_to_float(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    if dst in (P.F64, P.F32) or (dst in (P.F16, P.BF16) and src is not P.F64):
        result = x.astype(dst.dtype)
    elif dst in (P.F16, P.BF16):  # f64: through f32, as XLA does
        result = x.astype(np.float32).astype(dst.dtype)
    elif dst is P.F8E8M0FNU:
        result = _f64_to_e8m0(x) if src is P.F64 else x.astype(np.float32).astype(dst.dtype)
    else:
        v = _round_to_format(x, dst) if src is P.F64 else x
        with np.errstate(all="ignore"):
            result = v.astype(np.float32).astype(dst.dtype)
    if dst is P.F4E2M1FN:  # no NaN: XLA gives -0
        result = np.where(np.isnan(x.astype(np.float32)), dst.dtype.type(-0.0), result)
    return np.asarray(result, dtype=dst.dtype)


# -- float -> int -----------------------------------------------------------------------


def _float_to_int(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    lo, hi = int_bounds(dst)
    v = x.astype(np.float64)
    with np.errstate(all="ignore"):
        too_high = v >= float(hi + 1)  # hi + 1 is a power of two: exact in f64
        too_low = v <= float(lo - 1) if lo < 0 else v <= -1.0
        if src is P.F4E2M1FN:  # XLA saturates f4e2m1fn's +-6 like infinities
            too_high |= v == 6.0
            too_low |= v == -6.0
        fits = ~(too_high | too_low | np.isnan(v))
        ints = np.trunc(np.where(fits, v, 0.0)).astype(np.uint64 if dst is P.U64 else np.int64)
        container = ints.dtype.type
        ints = np.where(too_high, container(hi), np.where(too_low, container(lo), ints))
    return ints.astype(dst.dtype)


# -- the table --------------------------------------------------------------------------


def _to_pred(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    return widen(x, src) != 0


def _from_pred(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    return convert_array(x.astype(np.uint8), P.U8, dst)


def _int_to_int(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    return _int_container(x, src).astype(dst.dtype)  # wraps, as two's complement does


def _int_to_float(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    wide = _int_container(x, src)
    if dst is P.F8E8M0FNU:
        return _float_to_float(wide.astype(np.float32), P.F32, dst)
    with np.errstate(all="ignore"):
        return wide.astype(dst.dtype)


def _to_complex(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    return convert_array(x, src, dst.component_type).astype(dst.dtype)


def _complex_to_complex(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    return x.astype(dst.dtype)


def _complex_to_real(x: np.ndarray, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    raise InvalidArgumentError(
        f"cannot convert complex {src.hlo_name} to {dst.hlo_name}; take real() or imag() first"
    )


_Converter = Callable[[np.ndarray, PrimitiveType, PrimitiveType], np.ndarray]
_CONVERTERS: dict[tuple[str, str], _Converter] = {
    ("pred", "pred"): _to_pred,
    ("int", "pred"): _to_pred,
    ("float", "pred"): _to_pred,
    ("complex", "pred"): _complex_to_real,
    ("pred", "int"): _from_pred,
    ("pred", "float"): _from_pred,
    ("pred", "complex"): _from_pred,
    ("int", "int"): _int_to_int,
    ("int", "float"): _int_to_float,
    ("int", "complex"): _to_complex,
    ("float", "int"): _float_to_int,
    ("float", "float"): _float_to_float,
    ("float", "complex"): _to_complex,
    ("complex", "int"): _complex_to_real,
    ("complex", "float"): _complex_to_real,
    ("complex", "complex"): _complex_to_complex,
}


def convert_array(value: Any, src: PrimitiveType, dst: PrimitiveType) -> np.ndarray:
    """``value`` of element type ``src`` converted to ``dst`` exactly as XLA's convert."""
    x = np.asarray(value, dtype=src.dtype)
    if src == dst:
        return x.copy()
    with np.errstate(all="ignore"):  # overflow to infinity is a rule here, not an accident
        return np.asarray(_CONVERTERS[_kind(src), _kind(dst)](x, src, dst), dtype=dst.dtype)


def narrow(value: Any, et: PrimitiveType) -> np.ndarray:
    """A computed array back to ``et``: integers wrap, pred is nonzero, floats round.

    Floats round with ``convert``'s rules. An f32 result for an 8- or 4-bit float rounds
    to f16 first: XLA:CPU computes those types in f16 (itself computed in f32), which
    rounds twice (f8e3m4's sqrt(15.5) is 4, not the nearer 3.875).
    """
    array = np.asarray(value)
    if et.is_pred:
        return array != 0
    if et.is_float and array.dtype.kind == "f" and np.dtype(et.dtype) != array.dtype:
        source = P.from_dtype(array.dtype)
        if source is P.F32 and et.bit_width <= 8 and et is not P.F8E8M0FNU:
            array, source = convert_array(array, P.F32, P.F16), P.F16
        return convert_array(array, source, et)
    with np.errstate(all="ignore"):
        return array.astype(et.dtype)


@kernel(Op.CONVERT)
def _convert(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return convert_array(operands[0], operand_type(instruction, 0), result_type(instruction))


# -- bitcast-convert --------------------------------------------------------------------


def _bit_matrix(x: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Each element's bits, least significant first, in a new minor dimension (uint8 0/1).

    Memory order is little-endian, as XLA's, so a wide element's byte 0 (its low bits)
    comes first when split into narrower ones.
    """
    width = et.bit_width
    if width < 8:
        pattern = float_bits(x, et) if et.is_float else unsigned_bits(x, et)
        return np.unpackbits(pattern[..., None], axis=-1, bitorder="little")[..., :width]
    data = c_contiguous(x, et.dtype)
    octets = data.reshape(-1).view(np.uint8).reshape(data.shape + (width // 8,))
    if sys.byteorder == "big":
        octets = octets[..., ::-1]
    return np.unpackbits(octets, axis=-1, bitorder="little")


def _from_bit_matrix(bits: np.ndarray, et: PrimitiveType) -> np.ndarray:
    width = et.bit_width
    octets = np.packbits(bits, axis=-1, bitorder="little")
    if width < 8:
        pattern = octets[..., 0]
        return bits_to_float(pattern, et) if et.is_float else bits_to_int(pattern, et)
    if sys.byteorder == "big":
        octets = octets[..., ::-1]
    octets = c_contiguous(octets)
    return octets.reshape(-1).view(np.dtype(et.dtype)).reshape(bits.shape[:-1])


@kernel(Op.BITCAST_CONVERT)
def _bitcast_convert(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Reinterprets bits; between widths the minor dimension holds the narrower pieces,
    lowest bits first (XLA's little-endian order)."""
    src, dst = operand_type(instruction, 0), result_type(instruction)
    if src.is_pred or dst.is_pred:
        raise ctx.fail(instruction, "pred takes part in no bitcast-convert")
    x = np.asarray(operands[0], dtype=src.dtype)
    bits = _bit_matrix(x, src)
    if src.bit_width > dst.bit_width:
        bits = bits.reshape(x.shape + (src.bit_width // dst.bit_width, dst.bit_width))
    elif src.bit_width < dst.bit_width:
        bits = bits.reshape(x.shape[:-1] + (dst.bit_width,))
    return as_result(_from_bit_matrix(bits, dst), dst)


# -- reduce-precision -------------------------------------------------------------------


def reduce_precision_array(
    value: Any, et: PrimitiveType, exponent_bits: int, mantissa_bits: int
) -> np.ndarray:
    """XLA's reduce-precision, on the bits of f16, bf16, f32 and f64 values (not widened, so
    that a no-op stays one); 8- and 4-bit floats go through f16 (f8e8m0fnu, out of its
    range, through f32) and back, as XLA does: f8e5m2's denormals survive (5, 2).

    The mantissa rounds to nearest even by adding a bias below the kept bits; then an
    exponent beyond the reduced range becomes a signed infinity and one at or below its
    minimum a signed zero (no denormals). NaNs stay NaNs.
    """
    x = np.asarray(value, dtype=et.dtype)
    if et.bit_width <= 8:
        via = P.F32 if et is P.F8E8M0FNU else P.F16
        wide = reduce_precision_array(convert_array(x, et, via), via, exponent_bits, mantissa_bits)
        return convert_array(wide, via, et)
    src_exponent, src_mantissa = et.exponent_mantissa_bits
    bits = float_bits(x, et).astype(np.uint64)
    one = np.uint64(1)
    if mantissa_bits < src_mantissa:
        shift = np.uint64(src_mantissa - mantissa_bits)
        last_kept = one << shift
        bias = (bits >> shift) & one
        bits = (bits + bias + (last_kept >> one) - one) & ~(last_kept - one)
    if exponent_bits < src_exponent:
        sign = one << np.uint64(et.bit_width - 1)
        exponent_mask = np.uint64(((1 << src_exponent) - 1) << src_mantissa)
        bias = (1 << (src_exponent - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > np.uint64((bias + reduced_bias) << src_mantissa)
        underflows = exponent <= np.uint64((bias - reduced_bias) << src_mantissa)
        signed_zero = bits & sign
        bits = np.where(
            overflows, signed_zero | exponent_mask, np.where(underflows, signed_zero, bits)
        )
    mask = np.uint64((1 << et.bit_width) - 1)
    result = bits_to_float(bits & mask, et)
    return np.where(np.isnan(x.astype(np.float64)), x, result).astype(et.dtype)


@kernel(Op.REDUCE_PRECISION)
def _reduce_precision(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    attrs = instruction.attributes
    return reduce_precision_array(
        operands[0],
        operand_type(instruction, 0),
        int(attrs["exponent_bits"]),
        int(attrs["mantissa_bits"]),
    )


# -- stochastic-convert -----------------------------------------------------------------


@kernel(Op.STOCHASTIC_CONVERT)
def _stochastic_convert(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """Float -> integer rounding up with probability equal to the fraction: up when the
    random bits, read as a fraction of 2^bits, are below it. Saturates; NaN -> 0.

    XLA:CPU decomposes this into HLO for signed targets only (it rejects unsigned ones);
    the interpreter extends the same rule to them: negatives and NaN give 0, values at or
    above the maximum the maximum.
    """
    src, random_type, dst = (
        operand_type(instruction, 0),
        operand_type(instruction, 1),
        result_type(instruction),
    )
    if not src.is_float or not dst.is_integral or not random_type.is_unsigned_integral:
        raise ctx.fail(
            instruction,
            f"stochastic-convert converts floats to integers with unsigned random bits, "
            f"not {src.hlo_name} to {dst.hlo_name} with {random_type.hlo_name}",
        )
    v = np.asarray(operands[0], dtype=src.dtype).astype(np.float64)
    random = unsigned_bits(operands[1], random_type).astype(np.uint64)
    lo, hi = int_bounds(dst)
    with np.errstate(all="ignore"):
        magnitude = np.abs(v)
        whole = np.floor(magnitude)
        # Exact: the fraction is a difference of nearby floats, scaled by a power of two.
        fixed = np.ldexp(magnitude - whole, random_type.bit_width)
        round_up = random < np.where(np.isfinite(fixed), fixed, 0.0).astype(np.uint64)
        signed = np.where(np.signbit(v), -1.0, 1.0) * (whole + round_up)
        too_high, too_low = v >= float(hi), v <= float(lo)
        result = np.where(too_high | too_low | np.isnan(v), 0.0, signed)
    ints = result.astype(np.uint64 if dst is P.U64 else np.int64)
    container = ints.dtype.type
    ints = np.where(too_high, container(hi), np.where(too_low, container(lo), ints))
    return as_result(ints.astype(dst.dtype), dst)


__all__ = ["convert_array", "narrow", "reduce_precision_array"]
