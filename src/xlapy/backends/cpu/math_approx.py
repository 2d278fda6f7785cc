"""Vectorizable exp, log and tanh: straight-line IR, no calls, no branches.

libm's ``expf``/``tanhf`` are scalar calls that stop LLVM's loop vectorizer,
so a fused loop with a transcendental function ran an element at a time. These
versions are polynomials after a classic range reduction, written with
``select`` and ``llvm.fma`` so that a loop around them becomes AVX-512 code.

=========  ======  ================================================  ==========
function   type    method                                            max error
=========  ======  ================================================  ==========
exp        f32     n = rint(x/ln2), Cody-Waite r, Taylor degree 7,   1 ULP
                   2^n applied in two steps (denormal results exact)
exp        f64     same, Taylor degree 13                            1 ULP
log        f32     x = m 2^e (denormals pre-scaled), m in            3 ULP
                   [sqrt(1/2), sqrt(2)), atanh series in (m-1)/(m+1)
                   to s^11
log        f64     same, series to s^23                              3 ULP
expm1      both    2^n (exp(r) - 1) + (2^n - 1), exp(r) - 1 as its   2 ULP
                   own series; exp beyond +20 (f32) / +40 (f64)
tanh       both    e / (e + 2), e = expm1(2|x|); +-1 beyond 9 (f32)  3 ULP
                   or 19.1 (f64)
=========  ======  ================================================  ==========

The bounds are measured against numpy (``tests/backends/cpu/test_math_approx.py``).
Special values are exact: NaN propagates, exp(-inf) = 0, exp(inf) = inf,
log(0) = -inf, log(x < 0) = NaN, log(inf) = inf, tanh(+-inf) = +-1, and
tanh(-0) = -0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

_F32 = ir.FloatType()
_F64 = ir.DoubleType()


class _Format:
    def __init__(self, ty: ir.Type) -> None:
        self.ty = ty
        double = ty == _F64
        self.int = ir.IntType(64 if double else 32)
        self.mantissa = 52 if double else 23
        self.bias = 1023 if double else 127
        self.overflow = 709.782712893384 if double else 88.72283905206835
        self.underflow = -745.1332191019412 if double else -103.97207708
        self.exp_terms = 13 if double else 7
        self.log_terms = 23 if double else 11
        self.tanh_big = 19.1 if double else 9.0
        if double:
            self.ln2_hi, self.ln2_lo = 6.93147180369123816490e-01, 1.90821492927058770002e-10
        else:
            self.ln2_hi, self.ln2_lo = 0.693145751953125, 1.428606765330187045e-06

    def c(self, value: float) -> ir.Constant:
        return ir.Constant(self.ty, value)

    def i(self, value: int) -> ir.Constant:
        return ir.Constant(self.int, value)


def _call(b: ir.IRBuilder, name: str, *args: ir.Value) -> ir.Value:
    module = b.block.function.module
    ty = args[0].type
    mangled = f"{name}.{'f64' if ty == _F64 else 'f32'}"
    fn = module.globals.get(mangled)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [a.type for a in args]), mangled)
    return b.call(fn, list(args))


def _fma(b: ir.IRBuilder, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
    return _call(b, "llvm.fma", x, y, z)


def _horner(b: ir.IRBuilder, f: _Format, x: ir.Value, coefficients: list[float]) -> ir.Value:
    """sum c_k x^k, highest coefficient last."""
    acc = f.c(coefficients[-1])
    for c in reversed(coefficients[:-1]):
        acc = _fma(b, acc, x, f.c(c))
    return acc


def _pow2(b: ir.IRBuilder, f: _Format, n: ir.Value) -> ir.Value:
    """2**n for an integer n in the normal exponent range (as a float)."""
    bits = b.shl(b.add(n, f.i(f.bias)), f.i(f.mantissa))
    return b.bitcast(bits, f.ty)


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    f = _Format(x.type)
    clamped = _call(
        b, "llvm.maxnum", _call(b, "llvm.minnum", x, f.c(f.overflow + 1)), f.c(f.underflow - 1)
    )
    n_float = _call(b, "llvm.rint", b.fmul(clamped, f.c(1 / math.log(2))))
    r = _fma(b, n_float, f.c(-f.ln2_hi), clamped)
    r = _fma(b, n_float, f.c(-f.ln2_lo), r)
    p = _horner(b, f, r, [1 / math.factorial(k) for k in range(f.exp_terms + 1)])
    n = b.fptosi(n_float, f.int)
    half = b.ashr(n, f.i(1))
    scaled = b.fmul(b.fmul(p, _pow2(b, f, half)), _pow2(b, f, b.sub(n, half)))
    result = b.select(b.fcmp_ordered(">", x, f.c(f.overflow)), f.c(math.inf), scaled)
    result = b.select(b.fcmp_ordered("<", x, f.c(f.underflow)), f.c(0.0), result)
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


def log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    f = _Format(x.type)
    tiny = b.fcmp_ordered("<", x, f.c(2.0 ** (-1022 if f.ty == _F64 else -126)))
    shift = 54 if f.ty == _F64 else 25
    y = b.select(tiny, b.fmul(x, f.c(2.0**shift)), x)
    bits = b.bitcast(y, f.int)
    exponent = b.sub(b.lshr(bits, f.i(f.mantissa)), f.i(f.bias))
    mantissa_bits = b.or_(b.and_(bits, f.i((1 << f.mantissa) - 1)), f.i(f.bias << f.mantissa))
    m = b.bitcast(mantissa_bits, f.ty)  # in [1, 2)
    big = b.fcmp_ordered(">", m, f.c(math.sqrt(2.0)))
    m = b.select(big, b.fmul(m, f.c(0.5)), m)
    exponent = b.select(big, b.add(exponent, f.i(1)), exponent)
    exponent = b.select(tiny, b.sub(exponent, f.i(shift)), exponent)
    s = b.fdiv(b.fsub(m, f.c(1.0)), b.fadd(m, f.c(1.0)))
    s2 = b.fmul(s, s)
    series = _horner(b, f, s2, [2.0 / (2 * k + 1) for k in range((f.log_terms + 1) // 2)])
    log_m = b.fmul(s, series)
    e = b.sitofp(exponent, f.ty)
    result = _fma(b, e, f.c(f.ln2_hi), _fma(b, e, f.c(f.ln2_lo), log_m))
    result = b.select(b.fcmp_ordered("==", x, f.c(0.0)), f.c(-math.inf), result)
    result = b.select(b.fcmp_ordered("==", x, f.c(math.inf)), x, result)
    return b.select(b.fcmp_unordered("ult", x, f.c(0.0)), f.c(math.nan), result)


def _expm1_core(b: ir.IRBuilder, f: _Format, y: ir.Value) -> ir.Value:
    """exp(y) - 1 without cancellation, for y in [low, high] of ``_expm1_range``:
    with y = n ln2 + r, exp(y) - 1 = 2^n (exp(r) - 1) + (2^n - 1), and exp(r) - 1
    is its own series (no leading 1 to cancel)."""
    n_float = _call(b, "llvm.rint", b.fmul(y, f.c(1 / math.log(2))))
    r = _fma(b, n_float, f.c(-f.ln2_hi), y)
    r = _fma(b, n_float, f.c(-f.ln2_lo), r)
    q = b.fmul(r, _horner(b, f, r, [1 / math.factorial(k + 1) for k in range(f.exp_terms + 1)]))
    scale = _pow2(b, f, b.fptosi(n_float, f.int))
    return _fma(b, scale, q, b.fsub(scale, f.c(1.0)))


def _expm1_range(f: _Format) -> tuple[float, float]:
    return (-40.0, 40.0) if f.ty == _F64 else (-20.0, 20.0)


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    f = _Format(x.type)
    low, high = _expm1_range(f)
    clamped = _call(b, "llvm.maxnum", _call(b, "llvm.minnum", x, f.c(high)), f.c(low))
    core = _expm1_core(b, f, clamped)
    result = b.select(b.fcmp_ordered(">", x, f.c(high)), exp(b, x), core)
    result = b.select(b.fcmp_ordered("<", x, f.c(low)), f.c(-1.0), result)
    # expm1(-0) = -0 and tiny x give x itself (the series would too; keep the sign).
    result = b.select(b.fcmp_ordered("==", x, f.c(0.0)), x, result)
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """tanh |x| = e / (e + 2) with e = expm1(2 |x|): no cancellation anywhere."""
    f = _Format(x.type)
    magnitude = _call(b, "llvm.fabs", x)
    limited = _call(b, "llvm.minnum", b.fmul(magnitude, f.c(2.0)), f.c(2 * f.tanh_big))
    e = _expm1_core(b, f, limited)
    value = b.fdiv(e, b.fadd(e, f.c(2.0)))
    value = b.select(b.fcmp_ordered(">", magnitude, f.c(f.tanh_big)), f.c(1.0), value)
    result = _call(b, "llvm.copysign", value, x)
    return b.select(b.fcmp_unordered("uno", x, x), x, result)


APPROXIMATIONS: dict[str, Callable[..., ir.Value]] = {
    "exponential": exp,
    "log": log,
    "tanh": tanh,
    "exponential-minus-one": expm1,
}
