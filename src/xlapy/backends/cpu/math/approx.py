"""Vectorizable transcendental functions: straight-line IR, no calls, no branches.

libm's ``expf``/``sinf``... are scalar calls, and a call in a loop body stops LLVM's loop
vectorizer, so a fused loop with a transcendental function would run an element at a
time. The functions here are classic range reductions and minimax polynomials, written
with ``select``, bit tricks, ``llvm.fma`` and the like (``math.support``), so a
loop around them becomes AVX-512 code. ``APPROXIMATIONS`` maps an HLO opcode name to an
emitter ``(builder, x[, y]) -> value`` for ``float`` or ``double`` operands (returning
the same type; f16 and bf16 are computed in f32 by the caller). The code lives in
``math.exp_log``, ``math.special`` and ``math.trig``; the
polynomials come from ``tools/fit_math_approx.py`` (Remez, long double references).

The reference is the interpreter's: for f32 the correctly rounded value (numpy in f64,
rounded once); for f64 numpy's (glibc's) value, itself within about an ULP of the exact
one, so the tests measure f64 against long double where numpy has it (all but erf).
"max" is the largest distance in representable numbers to that reference measured by
``tests/backends/cpu/test_math_approx.py``, which asserts these bounds: f32 over ~5-6M
points (a stride-997 sweep of all 2^32 bit patterns, i.e. ~4.3M, plus every value within
20,000 ULPs of each function's interesting points: 0, +-1, the overflow, underflow and
denormal thresholds, the range-reduction boundaries), f64 over ~0.9M (random bit
patterns, log-uniform and uniform values, 2,000 ULPs around the interesting points);
power and atan2 over 1.8M / 0.9M (f32) and 0.9M / 0.45M (f64) pairs. Special values are
exact (NaN in, NaN out; C99's values at +-0, +-1 and +-inf, signs of zero included) and
denormals are neither flushed in nor out: exp(-100) in f32 is the denormal 3.7e-44.

"in f64" means an f32 function computed in double and rounded once: (nearly) correctly
rounded at half the vector width, cheaper than a careful f32 evaluation where it needs
more than exp and log do, and f32 denormals become normal doubles.

============  ====  =============================================================  ===  =========
function      type  method                                                         max  points
============  ====  =============================================================  ===  =========
exponential   f32   n = x/ln2 rounded to an integer by one fma adding 1.5 2^23,     1    6.2M
                    r = x - n ln2 (fma Cody-Waite, its high part exact),
                    1 + (r_hi + (r_lo + r^2 Q(r))), Q minimax degree 4 by Estrin;
                    x 2^n in two steps, exact then rounding once (denormals)
exponential   f64   same, Q degree 9                                                1    0.98M
expm1         f32   same reduction; 2^n r_hi + (2^n - 1) rounded once, plus         1    5.7M
                    2^n (r_lo + r^2 Q): nothing cancels at n = +-1; exp past 88
expm1         f64   same, Q degree 9; exp past 709                                  1    0.92M
log           f32   x = 2^e m, m in [sqrt(1/2), sqrt(2)) by integer arithmetic on   1    5.3M
                    the bits (denormals scaled by 2^23 first); f = m - 1,
                    s = f/(2+f), log1p f = f - (f^2/2 - s (f^2/2 + s^2 P(s^2))),
                    P degree 2; + e ln2 by fma
log           f64   same, P degree 7 (denormals scaled by 2^52)                     1    0.89M
log1p         f32   log's reduction of u = 1 + x, plus u's rounding error           1    5.2M
                    (x - (u - 1)) / u; log1p(-0) = -0
log1p         f64   same                                                            1    0.87M
tanh          f32   |x| < 0.55: x + x^3 T(x^2), T degree 4; else 1 - 2/(e + 2),     1    5.0M
                    e = expm1(2|x|) (saturates to +-1 by itself)
tanh          f64   e / (e + 2) for all |x| (clamped at 40)                         2    0.86M
logistic      f32   e = exp(-|x|); 1/(1+e) for x >= 0, e/(1+e) below, 1 + e kept   1    5.1M
                    exactly as two floats and one Newton step on the quotient;
                    denormal results are exp(x) rounded once
logistic      f64   same (vs long double: scipy's expit is 0 below -709.78 where    1    0.86M
                    the true value is a denormal)
sine          f32   in f64: Payne-Hanek reduction for every x (2/pi in 24-bit       1    6.0M
                    chunks, exact products, fractions summed on fixed grids),
                    r + r^3 S(r^2), S degree 3
sine          f64   same with x in two halves, a gather of 9 chunks from a table    1    0.95M
                    by x's exponent, r = r_hi + r_lo; S degree 6
cosine        f32   as sine; 1 - r^2/2 + r^4 C(r^2), C degree 3                     1    6.0M
cosine        f64   as sine; C degree 6, 1 - r^2/2 summed without loss              1    0.95M
tan           f32   as sine; sin r / cos r (or -cos/sin in odd quadrants)           1    6.0M
tan           f64   same                                                            2    0.95M
atan2         f32   in f64: t = min/max of |y|, |x|; t > tan(pi/8): pi/4 +          1    1.8M
                    atan((t-1)/(t+1)); u + u^3 A(u^2), A degree 6; octant and
                    quadrant with pi/2, pi as two doubles
atan2         f64   same, A degree 11                                               2    0.9M
erf           f32   in f64: |x| < 1: x E(x^2), E degree 6; below 4:                 1    5.0M
                    1 - exp(-x^2) erfcx(x), erfcx degree 12 in x - 2.5; +-1 past
erf           f64   |x| < 0.875: x + x (E(x^2) - 1), degree 12; below 6:            3    0.88M
                    1 - exp(-h - l) erfcx(x) with x^2 = h + l exactly and erfcx
                    in 5 pieces of degree 13-14 picked by selects (vs scipy's
                    erf, itself up to 2 ULPs off: 1 against the exact value
                    where checked)
cbrt          f32   in f64: guess from bits/3 (in floating point), two Halley       0    5.0M
                    steps (1e-12)
cbrt          f64   same, denormals and huge values scaled by 2^+-54, then a        1    0.85M
                    Newton step with an exact residual
rsqrt         f32   in f64: 1/sqrt(x), rounded once (the interpreter's value)       0    4.9M
rsqrt         f64   1/sqrt(x) (the interpreter's value bit for bit)                 1    0.84M
power         f32   in f64: exp(y log|x|) with log and exp as above; C99's          0    1.8M
                    special cases, sign for odd integer y, NaN for x < 0 and
                    non-integer y
power         f64   log|x| as a double-double (~2^-65), y log|x| as two doubles,    1    0.9M
                    exp of the pair
============  ====  =============================================================  ===  =========
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from . import exp_log, special, trig

APPROXIMATIONS: dict[str, Callable[..., ir.Value]] = {
    "exponential": exp_log.exp,
    "exponential-minus-one": exp_log.expm1,
    "log": exp_log.log,
    "log-plus-one": exp_log.log1p,
    "tanh": exp_log.tanh,
    "logistic": exp_log.logistic,
    **special.APPROXIMATIONS,
    **trig.APPROXIMATIONS,
}
