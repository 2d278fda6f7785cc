"""Float ops on compute values (``float`` for f32 and every narrower type, ``double`` for
f64; ``elemental.narrow_floats`` widens operands and narrows results).

Exact ops (+, -, *, /, fmod, sqrt, rounding, max/min...) are single IEEE operations in the
compute type, so after the one narrowing they are bit for bit the interpreter's (which
computes f32 and narrower types in numpy's f32). ``maximum``/``minimum`` are
``llvm.maximum``/``llvm.minimum``: NaN-propagating, -0 below +0, as XLA.

Transcendental functions (:data:`MATH_UNARY`, :data:`MATH_BINARY`), by preference:

1. ``math.approx.APPROXIMATIONS[opcode name]`` when it has the opcode: straight-line,
   vectorizable code in the compute type, with the bounds that module documents;
2. otherwise the double-precision libm function (an LLVM intrinsic such as ``llvm.sin``
   where LLVM has one, else a call resolved from the process's libm), and for f32 and
   narrower types its result rounded once to f32. That is the interpreter's own
   definition (the f64 function rounded to f32), so f32 results agree bit for bit but for
   a rare double rounding; f64 results differ from numpy's (which uses SVML on AVX-512
   machines) by the few ULPs tabulated in ``elemental``'s docstring.

``logistic`` without an approximation is scipy's ``expit`` formula, 1 / (1 + exp(-x)),
in double: for float operands exp(-x) cannot overflow there, so results down to the f32
denormals are right; for f64 ones it underflows to 0 below -709.78, exactly as the
interpreter's scipy does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ....opcode import HloOpcode
from ..llvm_types import F32, F64
from ..math.approx import APPROXIMATIONS
from .support import const, intrinsic, libm, mark_compute_heavy, unary_intrinsic

Op = HloOpcode
Unary = Callable[[ir.IRBuilder, ir.Value], ir.Value]
Binary = Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]


def approximation(name: str) -> Callable[..., ir.Value] | None:
    """``math.approx``'s function for the opcode ``name``, if it has one (else libm's)."""
    return APPROXIMATIONS.get(name)


# -- exact ops ---------------------------------------------------------------------------


def _sign(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """+-1 by the sign bit; zeros and NaNs are their own sign."""
    one = intrinsic(b, "llvm.copysign", [x.type], [const(x.type, 1.0), x])
    keep = b.fcmp_unordered("ueq", x, const(x.type, 0.0))  # NaN or +-0
    return b.select(keep, x, one)


EXACT_UNARY: dict[HloOpcode, Unary] = {
    Op.NEGATE: lambda b, x: b.fneg(x),
    Op.ABS: lambda b, x: unary_intrinsic(b, "fabs", x),
    Op.SIGN: _sign,
    Op.FLOOR: lambda b, x: unary_intrinsic(b, "floor", x),
    Op.CEIL: lambda b, x: unary_intrinsic(b, "ceil", x),
    Op.ROUND_NEAREST_EVEN: lambda b, x: unary_intrinsic(b, "roundeven", x),
    Op.ROUND_NEAREST_AFZ: lambda b, x: unary_intrinsic(b, "round", x),  # half away from 0
    Op.SQRT: lambda b, x: unary_intrinsic(b, "sqrt", x),  # correctly rounded
    Op.COPY: lambda b, x: x,  # (elemental keeps the operand's bits instead)
    Op.REAL: lambda b, x: x,
    Op.IMAG: lambda b, x: const(x.type, 0.0),  # of a real number (then narrowed)
}

EXACT_BINARY: dict[HloOpcode, Binary] = {
    Op.ADD: lambda b, x, y: b.fadd(x, y),
    Op.SUBTRACT: lambda b, x, y: b.fsub(x, y),
    Op.MULTIPLY: lambda b, x, y: b.fmul(x, y),
    Op.DIVIDE: lambda b, x, y: b.fdiv(x, y),
    Op.REMAINDER: lambda b, x, y: b.frem(x, y),  # C's fmod: exact, the dividend's sign
    Op.MAXIMUM: lambda b, x, y: intrinsic(b, "llvm.maximum", [x.type], [x, y]),
    Op.MINIMUM: lambda b, x, y: intrinsic(b, "llvm.minimum", [x.type], [x, y]),
}


# -- transcendental functions in double --------------------------------------------------


def _exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    approx = approximation(Op.EXPONENTIAL.value)
    return approx(b, x) if approx is not None else unary_intrinsic(b, "exp", x)


def _logistic(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1 / (1 + exp(-x)): scipy's ``expit`` (the interpreter's), formula and all. In
    double it cannot overflow for a float operand (f32 results down to the denormals come
    out right); for f64 operands below -709.78 exp(-x) overflows and the result is 0,
    as scipy's is, where the true value would be a denormal."""
    one = const(x.type, 1.0)
    return b.fdiv(one, b.fadd(one, _exp(b, b.fneg(x))))


def _rsqrt(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.fdiv(const(x.type, 1.0), unary_intrinsic(b, "sqrt", x))


def _intrinsic_fn(name: str) -> Unary:
    return lambda b, x: unary_intrinsic(b, name, x)


def _libm_fn(symbol: str) -> Unary:
    return lambda b, x: libm(b, symbol, [x])


# The double-precision functions (the interpreter computes in f64 too).
_DOUBLE_UNARY: dict[HloOpcode, Unary] = {
    Op.EXPONENTIAL: _intrinsic_fn("exp"),
    Op.LOG: _intrinsic_fn("log"),
    Op.EXPONENTIAL_MINUS_ONE: _libm_fn("expm1"),
    Op.LOG_PLUS_ONE: _libm_fn("log1p"),
    Op.TANH: _libm_fn("tanh"),
    Op.LOGISTIC: _logistic,
    Op.SINE: _intrinsic_fn("sin"),
    Op.COSINE: _intrinsic_fn("cos"),
    Op.TAN: _libm_fn("tan"),
    Op.RSQRT: _rsqrt,
    Op.CBRT: _libm_fn("cbrt"),
    Op.ERF: _libm_fn("erf"),
    Op.ACOS: _libm_fn("acos"),
    Op.ACOSH: _libm_fn("acosh"),
    Op.ASIN: _libm_fn("asin"),
    Op.ASINH: _libm_fn("asinh"),
    Op.ATAN: _libm_fn("atan"),
    Op.ATANH: _libm_fn("atanh"),
    Op.COSH: _libm_fn("cosh"),
    Op.SINH: _libm_fn("sinh"),
}

_DOUBLE_BINARY: dict[HloOpcode, Binary] = {
    Op.POWER: lambda b, x, y: intrinsic(b, "llvm.pow", [x.type], [x, y]),  # C's pow
    Op.ATAN2: lambda b, x, y: libm(b, "atan2", [x, y]),
}


def _in_double(fn: Callable[..., ir.Value], b: ir.IRBuilder, *args: ir.Value) -> ir.Value:
    """``fn`` (a double function) on compute values: float ones computed in double and
    rounded once, as the interpreter does."""
    if args[0].type == F64:
        return fn(b, *args)
    return b.fptrunc(fn(b, *(b.fpext(a, F64) for a in args)), F32)


def _math(opcode: HloOpcode, fallback: Callable[..., ir.Value]) -> Callable[..., ir.Value]:
    def run(b: ir.IRBuilder, *args: ir.Value) -> ir.Value:
        approx = approximation(opcode.value)
        mark_compute_heavy(b.function)
        if approx is not None:
            return approx(b, *args)
        return _in_double(fallback, b, *args)

    run.__name__ = f"_{opcode.name.lower()}"
    return run


MATH_UNARY: dict[HloOpcode, Unary] = {op: _math(op, fn) for op, fn in _DOUBLE_UNARY.items()}
MATH_BINARY: dict[HloOpcode, Binary] = {op: _math(op, fn) for op, fn in _DOUBLE_BINARY.items()}

UNARY: dict[HloOpcode, Unary] = {**EXACT_UNARY, **MATH_UNARY}
BINARY: dict[HloOpcode, Binary] = {**EXACT_BINARY, **MATH_BINARY}


def is_finite(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """An ``i1``: neither infinite nor NaN."""
    return b.fcmp_ordered("<", unary_intrinsic(b, "fabs", x), const(x.type, math.inf))


__all__ = ["BINARY", "EXACT_BINARY", "EXACT_UNARY", "MATH_BINARY", "MATH_UNARY", "UNARY"]
