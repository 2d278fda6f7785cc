"""Kernels of the transcendental elementwise opcodes (and power), real and complex.

The interpreter is the reference the compiler is tested against, so for reals it aims at
the correctly rounded result: f32 (and f16, bf16, the 8-/4-bit floats, which XLA:CPU
computes in f32 and rounds back) is computed in f64 and rounded once to f32, f64 uses
numpy's (libm's) functions. XLA:CPU's own approximations differ from that by a few ULPs
(f64 log1p: up to ~128); test_elementwise_oracle.py measures and bounds it.

Complex functions follow XLA's formulas (``elementwise_complex``) so that special values
come out as XLA's; those XLA:CPU does not implement for complex (cbrt, acos...) use
numpy's in c128, rounded once. Integer power is XLA:CPU's loop, quirks included. A NaN
from numbers (a domain error) is x86's default NaN, sign set, as on XLA:CPU, whatever
numpy's version gives.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.special

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ..core import EvalContext, Value, kernel
from . import elementwise_complex as ec
from .elementwise_convert import narrow
from .elementwise_support import as_result, operand_type, result_type, widen

P = PrimitiveType
_Fn = Callable[..., np.ndarray]


@dataclass(frozen=True)
class _Math:
    """An opcode's function on f64 operands, on complex operands (of their own type), and
    for ``power`` on integer operands (widened, with their element type); ``None``: the
    opcode does not apply."""

    real: _Fn | None
    complex: _Fn | None = None
    integer: _Fn | None = None


def _compute(fn: _Fn, operands: list[Value], et: PrimitiveType, out: PrimitiveType) -> Value:
    if et.is_complex:  # each complex function picks its own precision
        args = [np.asarray(v, dtype=et.dtype) for v in operands]
    else:  # f64 stays; f32 and narrower: the f32 value, in f64
        args = [widen(v, et).astype(np.float64) for v in operands]
    with np.errstate(all="ignore"):
        result = np.asarray(fn(*args))
        if not et.is_complex:
            result = _default_nan(result, args)
        if result.dtype == np.float64 and out is not P.F64 and not et.is_complex:
            result = result.astype(np.float32)  # once to f32, then (if narrower) to ``out``
        return as_result(narrow(result, out), out)


# x86's default NaN (sign set), what an invalid SSE operation gives and XLA:CPU returns.
DEFAULT_NAN = np.uint64(0xFFF8000000000000).view(np.float64)


def _default_nan(result: np.ndarray, args: list[np.ndarray]) -> np.ndarray:
    """A NaN made from numbers (a domain error: log(-1), sin(inf)) as the default NaN.
    numpy's sign for it varies with its version and the function (numpy 2.4: +NaN from
    f64 log, -NaN from f32 log); NaN operands keep propagating as they came."""
    if result.dtype != np.float64:
        return result
    from_numbers = np.isnan(result)
    for a in args:
        from_numbers &= ~np.isnan(a)
    return np.where(from_numbers, DEFAULT_NAN, result) if from_numbers.any() else result


def _math_kernel(opcode: Op, math: _Math) -> None:
    def run(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
        et, out = operand_type(instruction, 0), result_type(instruction)
        if et.is_integral or et.is_pred:
            if math.integer is None:
                raise ctx.fail(instruction, f"{opcode.value} does not apply to {et.hlo_name}")
            with np.errstate(all="ignore"):
                result = math.integer(*(widen(v, et) for v in operands), et)
            return as_result(narrow(result, out), out)
        fn = math.complex if et.is_complex else math.real
        if fn is None:
            raise ctx.fail(instruction, f"{opcode.value} does not apply to {et.hlo_name} values")
        return _compute(fn, operands, et, out)

    run.__name__ = run.__qualname__ = f"_{opcode.name.lower()}"
    kernel(opcode)(run)


# -- real -------------------------------------------------------------------------------


def _power(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C's pow: 0^0 = 1, 1^NaN = 1, NaN^0 = 1 for quiet NaNs; a signaling NaN operand
    gives NaN (IEEE 754-2019 9.2.1, glibc and XLA:CPU). numpy's own answer there depends
    on the host: its AVX-512 build (SVML) gives 1, its other builds NaN."""
    result = np.power(x, y)
    signaling = _signaling_nan(x) | _signaling_nan(y)
    if np.any(signaling):
        result = np.where(signaling, np.asarray(np.nan, result.dtype), result)
    return result


_QUIET_BIT = {np.dtype(np.float16): 9, np.dtype(np.float32): 22, np.dtype(np.float64): 51}
_BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64}  # fmt: skip


def _signaling_nan(x: np.ndarray) -> np.ndarray:
    """NaNs whose quiet bit (the mantissa's top bit) is clear."""
    x = np.asarray(x)
    if x.dtype not in _QUIET_BIT:
        return np.zeros(x.shape, bool)
    quiet = x.view(_BITS[x.dtype]) & _BITS[x.dtype](1 << _QUIET_BIT[x.dtype])
    return np.isnan(x) & (quiet == 0)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(x)


def _logistic(x: np.ndarray) -> np.ndarray:
    return scipy.special.expit(x)


def _int_power(a: np.ndarray, b: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """XLA:CPU's integer power: square-and-multiply over the exponent's low 6 bits (a
    larger exponent overflows anyway, XLA reasons, though not for odd bases), wrapping.

    The exponent is read as signed, unsigned types of 8 bits or more included (sub-byte
    types are computed in a byte, where u2/u4 values stay positive); a negative one gives 1/x
    truncated toward zero: 1 for x = 1, +-1 for x = -1 (all ones), 0 otherwise.
    """
    base, exponent = np.broadcast_arrays(_as_signed(a), _as_signed(b))
    one = np.ones_like(base)
    result, base = one.copy(), base.copy()
    bits = exponent.astype(np.uint64)
    for _ in range(6):
        result = np.where(bits & np.uint64(1), result * base, result)
        base = base * base
        bits = bits >> np.uint64(1)
    original = np.broadcast_to(_as_signed(a), result.shape)
    odd = (exponent & 1) != 0
    inverse = np.where(original == 1, one, np.where(original == -1, np.where(odd, -one, one), 0))
    return np.where(exponent < 0, inverse, result)


def _as_signed(a: np.ndarray) -> np.ndarray:
    """Widened integers reinterpreted as signed ones of their container's width: XLA
    computes sub-byte types in a byte, zero- or sign-extended."""
    return a.astype(f"i{a.dtype.itemsize}")


# -- complex ----------------------------------------------------------------------------


def _in_c128(fn: _Fn) -> _Fn:
    """A numpy complex function, computed in c128 and rounded once to the operands' type."""

    def run(*args: np.ndarray) -> np.ndarray:
        return np.asarray(fn(*(a.astype(np.complex128) for a in args))).astype(args[0].dtype)

    return run


def _complex_cbrt(z: np.ndarray) -> np.ndarray:
    return np.power(z, 1.0 / 3.0)  # the principal root, as XLA's evaluator takes


_MATH: dict[Op, _Math] = {
    Op.EXPONENTIAL: _Math(np.exp, ec.exp),
    Op.EXPONENTIAL_MINUS_ONE: _Math(np.expm1, ec.expm1),
    Op.LOG: _Math(np.log, ec.log),
    Op.LOG_PLUS_ONE: _Math(np.log1p, ec.log1p),
    Op.SQRT: _Math(np.sqrt, ec.sqrt),
    Op.RSQRT: _Math(_rsqrt, ec.rsqrt),
    Op.CBRT: _Math(np.cbrt, _in_c128(_complex_cbrt)),
    Op.SINE: _Math(np.sin, ec.sin),
    Op.COSINE: _Math(np.cos, ec.cos),
    Op.TAN: _Math(np.tan, ec.tan),
    Op.TANH: _Math(np.tanh, ec.tanh),
    Op.LOGISTIC: _Math(_logistic, ec.logistic),
    Op.ERF: _Math(scipy.special.erf),
    Op.ACOS: _Math(np.arccos, _in_c128(np.arccos)),
    Op.ACOSH: _Math(np.arccosh, _in_c128(np.arccosh)),
    Op.ASIN: _Math(np.arcsin, _in_c128(np.arcsin)),
    Op.ASINH: _Math(np.arcsinh, _in_c128(np.arcsinh)),
    Op.ATAN: _Math(np.arctan, _in_c128(np.arctan)),
    Op.ATANH: _Math(np.arctanh, _in_c128(np.arctanh)),
    Op.COSH: _Math(np.cosh, _in_c128(np.cosh)),
    Op.SINH: _Math(np.sinh, _in_c128(np.sinh)),
    Op.ATAN2: _Math(np.arctan2, ec.atan2),
    Op.POWER: _Math(_power, ec.power, _int_power),
}

for _opcode, _math in _MATH.items():
    _math_kernel(_opcode, _math)
