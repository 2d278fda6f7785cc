"""The gamma family: lgamma, digamma, the Hurwitz zeta function and polygamma.

Unlike XLA, lgamma and digamma do not use Lanczos' formula, whose absolute
accuracy turns into large relative errors where the functions are small. lgamma
is a Taylor series around 2 (with lgamma(1+d) = lgamma(2+d) - log(1+d)) after
the recurrence has shifted the argument into [3/2, 5/2), and Stirling's series
from 10.5 on; digamma likewise, with its series around the positive root
x0 = 1.4616... and the asymptotic series.
zeta is the Euler-Maclaurin form of Johansson (2015) with XLA's term counts, and
polygamma n! zeta(n+1, x), reflected for negative x. All series are unrolled;
their coefficients are computed once at import from zeta values.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from .. import ops
from ..builder import XlaOp
from .math_support import (
    F64,
    element_type,
    finfo,
    full_like,
    math_function,
    polynomial,
    require_float,
    same_operands,
    select,
    with_upcast,
)

_INF = float("inf")
_NAN = float("nan")

# -- power series near the zeros of lgamma and digamma ----------------------------------------
#
# Lanczos' formula is accurate in absolute terms, so relative accuracy is lost where the
# functions cross zero: lgamma at 1 and 2, digamma at x0 = 1.4616... . There the Taylor
# series are used instead; their coefficients are Hurwitz zeta values, computed once here.


def _hurwitz_zeta_float(s: int, q: float) -> float:
    """zeta(s, q) in double precision: 20 direct terms plus an Euler-Maclaurin tail."""
    n = 20
    head = math.fsum((q + k) ** -s for k in range(n))
    a = q + n
    # B_2j / (2j)! for j = 1..6
    bernoulli = (1 / 12, -1 / 720, 1 / 30240, -1 / 1209600, 1 / 47900160, -691 / 1307674368000)
    tail = [a ** (1 - s) / (s - 1), 0.5 * a**-s]
    rising = float(s)  # (s)_(2j-1)
    for j, b in enumerate(bernoulli, start=1):
        tail.append(b * rising * a ** (-s - 2 * j + 1))
        rising *= (s + 2 * j - 1) * (s + 2 * j)
    return math.fsum([head, *tail])


def _series_terms(f64: bool) -> int:
    return 28 if f64 else 13


# lgamma(2 + d) = (1 - gamma) d + sum_{k>=2} (-1)^k (zeta(k) - 1) / k d^k, for |d| <= 1/2.
_EULER_GAMMA = 0.57721566490153286060651209008240243
_LGAMMA2_COEFFS = [1.0 - _EULER_GAMMA] + [
    (-1) ** k * _hurwitz_zeta_float(k, 2.0) / k for k in range(2, 40)
]

# digamma(h + d) = digamma(h) + sum_{k>=1} (-1)^(k+1) zeta(k+1, h) d^k around h, the root
# x0 rounded to the working precision: x - h is then exact, and digamma(h) ~ zeta(2, x0)(h - x0)
# carries the rest of the root. (A two-constant split x - hi - lo would not survive: XLA folds
# the constants of (x - hi) - lo into one.)
_DIGAMMA_ROOT = Decimal("1.4616321449683623412626595423257213284681962040064463512959884086")
_DIGAMMA_ROOT_COEFFS = [
    (-1) ** (k + 1) * _hurwitz_zeta_float(k + 1, float(_DIGAMMA_ROOT)) for k in range(1, 40)
]


def _digamma_at_rounded_root(hi: float) -> float:
    return _DIGAMMA_ROOT_COEFFS[0] * float(Decimal(hi) - _DIGAMMA_ROOT)


_DIGAMMA_ROOT_F64 = (float(_DIGAMMA_ROOT), _digamma_at_rounded_root(float(_DIGAMMA_ROOT)))
_DIGAMMA_ROOT_F32 = (
    float(np.float32(_DIGAMMA_ROOT)),
    _digamma_at_rounded_root(float(np.float32(_DIGAMMA_ROOT))),
)


def _power_series(d: XlaOp, coeffs: list[float], terms: int) -> XlaOp:
    """sum_{k=1..terms} coeffs[k-1] d^k by Horner's rule."""
    acc = full_like(d, coeffs[terms - 1])
    for c in reversed(coeffs[: terms - 1]):
        acc = acc * d + c
    return acc * d


# Stirling's series: lgamma(x) = (x - 1/2) log x - x + log(2 pi)/2 + sum_k B_2k / (2k(2k-1) x^(2k-1)).
_STIRLING = (
    1.0 / 156.0,
    -691.0 / 360360.0,
    1.0 / 1188.0,
    -1.0 / 1680.0,
    1.0 / 1260.0,
    -1.0 / 360.0,
    1.0 / 12.0,
)
_STIRLING_FROM = 10.5  # the next term is below 1e-16 of the sum from here on
_SHIFT_FACTORS = 8  # how far the shift recurrence reaches: [1.5, 10.5)


def stirling_correction(x: XlaOp) -> XlaOp:
    """lgamma(x) - ((x - 1/2) log x - x + log(2 pi)/2), for x >= 10."""
    inv = 1.0 / x
    return polynomial(inv * inv, _STIRLING) * inv


def _lgamma_positive(w: XlaOp) -> XlaOp:
    """lgamma(w) for w >= 1/2, to a few ulps everywhere including its zeros 1 and 2.

    [1/2, 3/2): lgamma(2+d) - log(w) with d = w - 1; [3/2, 21/2): the series at 2
    after the shift lgamma(w) = log((w-1)(w-2)...(w-n)) + lgamma(w-n), whose
    d = w - round(w) is exact; beyond: Stirling's series, written as
    w (log w - 1) - log(w)/2 so that it overflows only when lgamma does.
    """
    n = _series_terms(element_type(w) == F64)
    near_one = w < 1.5
    nearest = ops.RoundNearestEven(w)
    d = select(near_one, w - 1.0, w - nearest)  # exact (Sterbenz / integer)
    series = _power_series(d, _LGAMMA2_COEFFS, n)
    product = full_like(w, 1.0)
    for j in range(1, _SHIFT_FACTORS + 1):
        # factor w - j while round(w) - j >= 2 (decided on round(w), so ties stay consistent)
        product = product * select(nearest - float(j) >= 2.0, w - float(j), 1.0)
    shifted = ops.Log(product) + series
    big = ops.Max(w, _STIRLING_FROM)  # keep the unused lanes finite
    log_big = ops.Log(big)
    stirling = big * (log_big - 1.0) - log_big * 0.5 + _LOG_SQRT_2PI + stirling_correction(big)
    result = select(w < _STIRLING_FROM, shifted, stirling)
    # lgamma(1+d) = lgamma(2+d) - log(1+d), and 1+d is w itself: log(w) needs no log1p.
    return select(near_one, series - ops.Log(w), result)


def lgamma1p_impl(d: XlaOp) -> XlaOp:
    """lgamma(1 + d) without rounding 1 + d first (the series for |d| < 1/2)."""
    n = _series_terms(element_type(d) == F64)
    near = _power_series(d, _LGAMMA2_COEFFS, n) - ops.Log1p(d)
    return select(ops.Abs(d) < 0.5, near, lgamma_impl(d + 1.0))


def _digamma_near_root(x: XlaOp) -> XlaOp:
    f64 = element_type(x) == F64
    hi, value_at_hi = _DIGAMMA_ROOT_F64 if f64 else _DIGAMMA_ROOT_F32
    # |x - x0| < 1/2 against the radius x0 of convergence: 38 (f64) or 17 (f32) terms.
    return _power_series(x - hi, _DIGAMMA_ROOT_COEFFS, 38 if f64 else 17) + value_at_hi


_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_LOG_PI = math.log(math.pi)


def lgamma_impl(x: XlaOp) -> XlaOp:
    """lgamma on the positive half-line (see _lgamma_positive), reflected below 1/2.

    The reflection log(pi) - lgamma(1-x) - log|sin(pi x)| takes sin of pi times
    the distance to the nearest integer: exact enough near the poles and exactly
    0 at them (lgamma = +inf there).
    """
    reflect = x < 0.5
    w = select(reflect, 1.0 - x, x)
    w = select(ops.IsFinite(w), w, 1.0)  # infinities are handled at the end
    log_y = _lgamma_positive(w)
    ax = ops.Abs(x)
    frac = ax - ops.Floor(ax)
    frac = select(frac > 0.5, 1.0 - frac, frac)
    log_sin = ops.Log(ops.Sin(frac * math.pi))
    reflection = select(ops.IsFinite(log_sin), _LOG_PI - log_sin - log_y, -log_sin)
    result = select(reflect, reflection, log_y)
    result = select(ops.Ne(x, x), x, result)
    return select(ops.Eq(ax, _INF), _INF, result)


@math_function("Lgamma")
def Lgamma(x: XlaOp) -> XlaOp:
    """log|Gamma(x)|; +inf at the poles 0, -1, -2, ... and at +-inf."""
    require_float("Lgamma", x)
    return with_upcast(lgamma_impl, x)


def _cos_pi_reduced(r: XlaOp) -> XlaOp:
    """cos(pi r) for r in [-1/2, 1/2] as sin(pi (1/2 - |r|)): exactly 0 at r = +-1/2."""
    return ops.Sin((0.5 - ops.Abs(r)) * math.pi)


# digamma(w) ~ log w - 1/(2w) - sum_k B_2k / (2k w^2k), in powers of 1/w^2 (k = 8 down to 1).
_DIGAMMA_ASYMPTOTIC = (
    -3617.0 / 8160.0,
    1.0 / 12.0,
    -691.0 / 32760.0,
    1.0 / 132.0,
    -1.0 / 240.0,
    1.0 / 252.0,
    -1.0 / 120.0,
    1.0 / 12.0,
)
_ROOT_WINDOW = 0.5  # the series around the root serves [x0 - 1/2, x0 + 1/2)


def _digamma_positive(w: XlaOp) -> XlaOp:
    """digamma(w) for w >= 1/2, to a few ulps including its root x0 = 1.4616...

    Shifted into the root window [x0 - 1/2, x0 + 1/2) by digamma(w) =
    digamma(w - n) + sum_{j<=n} 1/(w - j) (w - n is exact there), or up by one
    with digamma(w) = digamma(w + 1) - 1/w; from 10.5 on the asymptotic series.
    """
    low = _DIGAMMA_ROOT_F64[0] - _ROOT_WINDOW
    below = w < low
    base = select(below, w + 1.0, w)
    shift_sum = full_like(w, 0.0)
    for _ in range(_SHIFT_FACTORS + 1):
        down = base - 1.0
        inside = down >= low
        shift_sum = shift_sum + select(inside, 1.0 / down, 0.0)
        base = select(inside, down, base)
    shifted = _digamma_near_root(base) + select(below, -1.0 / w, shift_sum)
    big = ops.Max(w, _STIRLING_FROM)  # keep the unused lanes finite
    inv2 = 1.0 / (big * big)
    asymptotic = ops.Log(big) - 0.5 / big - inv2 * polynomial(inv2, _DIGAMMA_ASYMPTOTIC)
    return select(w < _STIRLING_FROM, shifted, asymptotic)


def _digamma_impl(x: XlaOp) -> XlaOp:
    """digamma on the positive half-line (see _digamma_positive), reflected below 1/2 by
    digamma(x) = digamma(1 - x) - pi cot(pi x)."""
    reflect = x < 0.5
    w = select(reflect, 1.0 - x, x)
    y = _digamma_positive(select(ops.IsFinite(w), w, 1.0))
    # cot(pi x) on x shifted by an integer into [-1/2, 1/2], where pi*x loses nothing.
    reduced = x + ops.Abs(ops.Floor(x + 0.5))
    reflection = y - _cos_pi_reduced(reduced) * math.pi / ops.Sin(reduced * math.pi)
    result = select(reflect, reflection, y)
    result = select(ops.Eq(x, _INF), _INF, select(ops.Ne(x, x), x, result))
    # Poles: -1/x at 0 keeps the one-sided limits (-inf at +0, +inf at -0), as scipy does;
    # at the negative integers (and -inf) the two sides disagree, so NaN.
    result = select(ops.Eq(x, 0.0), -1.0 / x, result)
    negative_integer = ops.And(x < 0.0, ops.Eq(x, ops.Floor(x)))
    return select(negative_integer, _NAN, result)


@math_function("Digamma")
def Digamma(x: XlaOp) -> XlaOp:
    """The logarithmic derivative of Gamma; NaN at the negative integers."""
    require_float("Digamma", x)
    return with_upcast(_digamma_impl, x)


# -- Hurwitz zeta and polygamma -------------------------------------------------------------------

# (2k)! / B_2k for k = 12 down to 1 (Horner order).
_ZETA_COEFFS = (
    -7.1661652561756670113e18,
    1.8152105401943546773e17,
    -4.5979787224074726105e15,
    1.1646782814350067249e14,
    -2.950130727918164224e12,
    7.47242496e10,
    -1.8924375803183791606e9,
    47900160.0,
    -1209600.0,
    30240.0,
    -720.0,
    12.0,
)
_ZETA_N = 9


def _zeta_impl(x: XlaOp, q: XlaOp) -> XlaOp:
    """zeta(x, q) = S + I + T (Johansson 2015, eq. 5) with N = 10 direct terms and an
    M = 12 term Euler-Maclaurin tail evaluated by Horner's rule."""
    eps = float(finfo(element_type(x)).eps)
    acc = q
    s = ops.Pow(q, -x)
    for _ in range(_ZETA_N):
        acc = acc + 1.0
        s = s + ops.Pow(acc, -x)
    acc = acc + 1.0
    neg_power = ops.Pow(acc, -x)
    integral = neg_power * acc / (x - 1.0)
    inv_sq = 1.0 / (acc * acc)
    horner = full_like(x, 0.0)
    m = len(_ZETA_COEFFS)
    two_k_minus_one = 2 * m - 1
    for i in range(m - 1):
        factor = (x + float(two_k_minus_one - 1 - 2 * i)) * (x + float(two_k_minus_one - 2 - 2 * i))
        horner = factor * inv_sq * (horner + 1.0 / _ZETA_COEFFS[i])
    tail = neg_power * (x / acc * (horner + 1.0 / _ZETA_COEFFS[m - 1]) + 0.5)
    accurate = s + integral + tail
    # Once the terms are below eps of the sum, the tail would only add rounding noise.
    result = select(ops.Abs(neg_power) < ops.Abs(s) * eps, s, accurate)

    result = select(ops.Eq(x, 1.0), _INF, result)  # the harmonic series
    result = select(x < 1.0, _NAN, result)
    non_positive_q = q <= 0.0
    integer_x = ops.Eq(x, ops.Floor(x))
    # q^-x is complex for q < 0 unless x is an integer.
    result = select(ops.And(non_positive_q, ops.Not(integer_x)), _NAN, result)
    # At a pole q = 0, -1, ... the limit is +inf for even x; for odd x the sides disagree.
    at_pole = ops.And(non_positive_q, ops.Eq(q, ops.Floor(q)))
    even_x = ops.And(ops.Eq(ops.Rem(x, 2.0), 0.0), integer_x)
    return select(at_pole, select(even_x, full_like(x, _INF), _NAN), result)


@math_function("Zeta")
def Zeta(x: XlaOp, q: XlaOp) -> XlaOp:
    """Hurwitz zeta function sum_k (k + q)^-x, for x >= 1 (NaN below)."""
    x, q = same_operands("Zeta", x, q)
    return with_upcast(_zeta_impl, x, q)


def _polygamma_impl(n: XlaOp, x: XlaOp) -> XlaOp:
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1, digamma for n = 0.

    For negative non-integer x (n = 1..4) the zeta series would diverge, so the
    n-th derivative of the reflection formula is used:
    psi^(n)(x) = -n! zeta(n+1, 1-x) - pi d^n/dx^n cot(pi x).
    """
    n_plus_one = n + 1.0
    sign = ops.Rem(n, 2.0) * 2.0 - 1.0
    factorial = ops.Exp(lgamma_impl(n_plus_one))
    # n! is an integer the format holds exactly up to 18! (f64) or 10! (f32): round off
    # the error of exp(lgamma).
    exact_limit = 18.0 if element_type(n) == F64 else 10.0
    factorial = select(n <= exact_limit, ops.RoundNearestEven(factorial), factorial)

    pi = math.pi
    reduced = x + ops.Abs(ops.Floor(x + 0.5))
    s = ops.Sin(reduced * pi)
    c = _cos_pi_reduced(reduced)
    s2 = s * s
    g1 = -(pi**2) / s2
    g2 = c * (2.0 * pi**3) / (s2 * s)
    g3 = (c * c * 2.0 + 1.0) * (-2.0 * pi**4) / (s2 * s2)  # cos(2 pi x) + 2 = 2c^2 + 1
    g4 = c * (c * c + 2.0) * (8.0 * pi**5) / (s2 * s2 * s)
    gn = select(ops.Eq(n, 1.0), g1, select(ops.Eq(n, 2.0), g2, select(ops.Eq(n, 3.0), g3, g4)))
    reflected = -factorial * _zeta_impl(n_plus_one, 1.0 - x) - gn
    use_reflection = ops.And(ops.And(x < 0.0, ops.Ne(x, ops.Floor(x))), ops.And(n >= 1.0, n <= 4.0))
    direct = sign * factorial * _zeta_impl(n_plus_one, x)
    result = select(ops.Eq(n, 0.0), _digamma_impl(x), select(use_reflection, reflected, direct))
    return select(ops.Or(ops.Ne(n, ops.Floor(n)), n < 0.0), _NAN, result)


@math_function("Polygamma")
def Polygamma(n: XlaOp, x: XlaOp) -> XlaOp:
    """The n-th derivative of digamma; ``n`` is a float holding a natural number (NaN if not)."""
    n, x = same_operands("Polygamma", n, x)
    return with_upcast(_polygamma_impl, n, x)


__all__ = ["Digamma", "Lgamma", "Polygamma", "Zeta"]
