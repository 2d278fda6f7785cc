"""XLA's math library (xla/hlo/builder/lib/math.h) and StableHLO's ``chlo`` functions,
built out of ordinary HLO ops through the builder.

Each function takes ``XlaOp`` operands of one builder (Python numbers and rank-0
ops are accepted beside them in the functions of several arguments) and emits
only basic ops -- elementwise arithmetic, comparisons, selects, bitcasts, and a
``while`` loop for the incomplete gamma and beta functions -- never a new
opcode. f16, bf16 (and the other narrow floats) are computed in f32 and rounded
back, as XLA does; f32 and f64 are computed in their own type; complex operands
are accepted where XLA accepts them (Acos, Asin, Atan, Acosh, Asinh, Atanh,
Sinh, Cosh, Tan, Square, Reciprocal). Errors follow the builder's policy: a
wrong element type or shape is recorded on the builder with the caller's
file:line, and ``build()`` raises it.

Functions
---------
Trigonometric and hyperbolic (math_trig): Acos, Asin, Atan, Acosh, Asinh,
Atanh, Sinh, Cosh, Tan. Error functions (math_special): Erf, Erfc, ErfInv.
Gamma family (math_gamma): Lgamma, Digamma, Polygamma(n, x), Zeta(x, q).
Iterative (math_incomplete): Igamma(a, x), Igammac(a, x),
RegularizedIncompleteBeta(a, b, x). Others (math_special): BesselI0e,
BesselI1e, NextAfter(from_, to), IsNan, IsInf, IsPosInf, IsNegInf, IsNegZero,
Square, Reciprocal.

Where xlapy differs from XLA's versions
---------------------------------------
The algorithms are XLA's except where XLA's lose accuracy; values at domain
edges follow scipy.special (C99 Annex G for complex branch cuts):

* Lgamma and Digamma use Taylor series at 2 and at digamma's root, shifted by
  the recurrences, and Stirling/asymptotic series, not Lanczos: a few ulps
  everywhere on x > 0, where XLA's are off by up to 1e5 ulps next to the zeros.
  Digamma(+-0) = -+inf (scipy), not -inf for both.
* Erfc's exp(-x^2) splits x^2 exactly (XLA rounds x*x: up to 700 ulps in f64's
  tail); ErfInv takes log1p(-|x|) + log1p(|x|) instead of log1p(-x*x) (XLA: up
  to 5e5 ulps near +-1).
* Igamma/Igammac compute x^a e^-x / Gamma(a) as a*log1pmx((x-a)/a) + Stirling
  terms for a >= 10 (XLA subtracts numbers of size a*log(a)), and Igammac has
  scipy's direct series for small x. Edges as scipy: P(0, x>0) = 1, NaN for
  a < 0 or x < 0 (XLA: NaN for a = 0; its Igammac answers 1 for bad inputs).
* RegularizedIncompleteBeta computes log(x^a (1-x)^b / B(a,b)) without
  lgamma(a) + lgamma(b) - lgamma(a+b) cancellations, and where the result is
  below 1/2 but XLA would take 1 - I_(1-x)(b, a), it runs the direct fraction
  too. a = 0 or b = 0 give scipy's point masses.
* Complex asin/acos/asinh/acosh use the modified Hull et al. algorithm; atanh
  and tan Kahan's formulas (XLA: the naive logs for atanh, exp for sinh/cosh).
* Zeta at a pole q = 0, -1, ... is +inf for even x and NaN for odd x (XLA;
  scipy says +inf); Lgamma(-inf) = +inf (C99; scipy says -inf).

Measured accuracy
-----------------
Against mpmath at 40+ digits, on the real XLA:CPU (jax 0.10.2), thousands of
points per row: grids, random points, and the awkward spots named. ulp = unit in
the last place of the exact result; "99%" is the 99th percentile.

=========================  ===================  ===================================
function (domain)          f32 max (99%) ulp    f64 max (99%) ulp
=========================  ===================  ===================================
Asin, Acos [-1, 1]         1.3 (0.9)            1.0 (1.0)
Atan                       0.5 (0.4)            0 (0)
Asinh, Acosh, Atanh        1.4 (1.1)            1.4 (1.1)
Sinh, Cosh [-88, 88]       1.8 (1.2)            2.0 (1.4)
Tan [-10, 10]              1.1 (0.8)            1.2 (1.0)
complex asin/acos/asinh/   |f - ref| <= 1.7 eps |f - ref| <= 3 eps |ref| (numpy)
acosh/atan/atanh/sinh/     |ref| (numpy ref)
cosh/tan
Erf [-6, 6]                1.2 (0.8)            1.4 (1.0)
Erfc [-6, 26.5]            2.3 (1.5)            3.6 (1.9)
ErfInv (-1, 1)             1.9 (1.5)            16 (9) [a]
Lgamma x > 0               2.0 (1.2)            2.1 (1.1)
Lgamma x < 0               absolute <= 8e-6     absolute <= 1.4e-14 [b]
Digamma x > 0              1.7 (0.9)            1.5 (1.0)
Digamma x < 0              absolute, see [b]    absolute, see [b]
BesselI0e, BesselI1e       2.1, 7.2             2.5, 6.4
Igamma (a, x <= 1e4)       77 (28) [c]          609 (99) [c]
Igammac (a, x <= 1e4)      71 (29) [c]          369 (47) [c]
RegIncBeta (a, b <= 100)   91 (44) [c]          583 (212) [c]
Zeta (x > 1, q > 0)        3.5 (2.7)            4.6 (3.3) [d]
Polygamma (n <= 7)         36 (2.7) [b]         18 (2.6) [b]
NextAfter, Is*, Square,    exact                exact
Reciprocal
=========================  ===================  ===================================

[a] XLA:CPU's own f64 log1p is off by up to 120 ulps for arguments in
    (-0.43, -0.35), which ErfInv meets for |x| near 0.4; elsewhere <= 2 ulps.
[b] Near the zeros of lgamma and digamma at negative x the reflection formula
    is accurate in absolute terms only (as in every implementation using it).
[c] The largest errors are far in the tails (results below 1e-100), where
    a*log(x) - x is itself large and its rounding is the function's own
    conditioning; scipy's errors there are of the same size (1.4e3 ulps for
    gammainc in f64). Results above 1e-10 are within about 30 ulps.
[d] Except where XLA's f64 pow is off: 2e3 ulps for zeta(50, 1e4) ~ 2e-198.
    Terms (q+k)^-x that are subnormal are flushed to zero by XLA:CPU; for
    q < 0 (integer x) odd x cancels catastrophically, as in any precision.

The references of the tests (tests/lib/test_math.py) are scipy and numpy; their
tolerances are these figures with margin, or scipy's own error where larger.
"""

from __future__ import annotations

from .math_gamma import Digamma, Lgamma, Polygamma, Zeta
from .math_incomplete import Igamma, Igammac, RegularizedIncompleteBeta
from .math_special import (
    BesselI0e,
    BesselI1e,
    Erf,
    Erfc,
    ErfInv,
    IsInf,
    IsNan,
    IsNegInf,
    IsNegZero,
    IsPosInf,
    NextAfter,
    Reciprocal,
    Square,
)
from .math_trig import Acos, Acosh, Asin, Asinh, Atan, Atanh, Cosh, Sinh, Tan

__all__ = [
    "Acos",
    "Acosh",
    "Asin",
    "Asinh",
    "Atan",
    "Atanh",
    "BesselI0e",
    "BesselI1e",
    "Cosh",
    "Digamma",
    "Erf",
    "ErfInv",
    "Erfc",
    "Igamma",
    "Igammac",
    "IsInf",
    "IsNan",
    "IsNegInf",
    "IsNegZero",
    "IsPosInf",
    "Lgamma",
    "NextAfter",
    "Polygamma",
    "Reciprocal",
    "RegularizedIncompleteBeta",
    "Sinh",
    "Square",
    "Tan",
    "Zeta",
]
