"""Regularized incomplete gamma and beta functions: the library's iterative functions.

They follow XLA's client library: a power series or a continued fraction run in a
``while`` loop until every element has converged (Cephes' igam/igamc for the
gamma functions, the modified Lentz algorithm for the beta function's continued
fraction, DLMF 8.17.22). The loops are unavoidable: the number of terms grows
like sqrt(a) near x = a. Elements that do not need a loop are masked off so
they cost nothing but their lanes.

The prefactor x^a e^-x / Gamma(a) is where accuracy is usually lost: for large
``a`` the naive a*log(x) - x - lgamma(a) subtracts numbers of size a*log(a).
Here it is rewritten as a*log1pmx((x-a)/a) + log(a/(2 pi))/2 - S(a), with S
Stirling's series, which keeps the relative error at a few ulps.
"""

from __future__ import annotations

import math

from .. import ops
from ..builder import XlaOp
from .math_gamma import lgamma1p_impl, lgamma_impl, stirling_correction
from .math_support import (
    F64,
    element_type,
    finfo,
    full_like,
    math_function,
    polynomial,
    reduce_any,
    same_operands,
    select,
    while_loop,
    with_upcast,
)

_NAN = float("nan")
_INF = float("inf")

# -- log1pmx and Stirling's correction ------------------------------------------------------------

# log1p(d) - d = -u*d + 2u^3 sum_k u^(2k) / (2k+3) with u = d / (2 + d) (from log1p = 2 atanh).
_LOG1PMX_SERIES = tuple(1.0 / (2 * k + 3) for k in reversed(range(20)))


def _log1pmx(d: XlaOp) -> XlaOp:
    """log(1 + d) - d for |d| < 1/2, without the cancellation near d = 0."""
    u = d / (d + 2.0)
    u2 = u * u
    return u * u2 * polynomial(u2, _LOG1PMX_SERIES) * 2.0 - u * d


_STIRLING_MIN_A = 10.0  # where Stirling's correction is accurate to 1e-16


def _log_gamma_prefix(a: XlaOp, x: XlaOp) -> XlaOp:
    """log(x^a e^-x / Gamma(a)).

    For a >= 10 this is a*(log(x/a) - (x-a)/a) + log(a/(2 pi))/2 - S(a): the
    terms of size a*log(a) cancel analytically instead of numerically, and near
    x = a the bracket is log1pmx((x-a)/a), accurate to the last bit.
    """
    naive = a * ops.Log(x) - x - lgamma_impl(a)
    big_a = ops.Max(a, _STIRLING_MIN_A)  # keep the unused lane finite
    d = (x - big_a) / big_a
    bracket = select(
        ops.Abs(d) < 0.5,
        big_a * _log1pmx(d),
        big_a * ops.Log(x / big_a) - (x - big_a),
    )
    careful = (
        bracket + ops.Log(big_a) * 0.5 - 0.5 * math.log(2.0 * math.pi) - stirling_correction(big_a)
    )
    return select(a >= _STIRLING_MIN_A, careful, naive)


# -- the two iterations (Cephes igam.c) ------------------------------------------------------------


def _igamma_series(prefix: XlaOp, x: XlaOp, a: XlaOp, enabled: XlaOp) -> XlaOp:
    """P(a, x) = prefix/a * sum_n x^n / ((a+1)...(a+n)), summed until the terms are below eps."""
    eps = float(finfo(element_type(x)).eps)

    def condition(state: list[XlaOp]) -> XlaOp:
        return reduce_any(state[0])

    def body(state: list[XlaOp]) -> list[XlaOp]:
        enabled, r, c, ans, x = state
        r_new = r + 1.0
        c_new = c * (x / r_new)
        ans_new = ans + c_new
        still = ops.And(enabled, ops.Gt(c_new / ans_new, eps))
        return [
            still,
            ops.Select(enabled, r_new, r),
            ops.Select(enabled, c_new, c),
            ops.Select(enabled, ans_new, ans),
            x,
        ]

    one = full_like(x, 1.0)
    _, _, _, ans, _ = while_loop(condition, body, [enabled, a, one, one, x], "igamma_series")
    return ans * prefix / a


def _igammac_continued_fraction(prefix: XlaOp, x: XlaOp, a: XlaOp, enabled: XlaOp) -> XlaOp:
    """Q(a, x) = prefix * (Legendre's continued fraction), evaluated by its recurrences.

    The numerators and denominators grow without bound, so both are rescaled
    by eps whenever they pass 1/eps; the loop stops after 2000 steps at most.
    """
    eps = float(finfo(element_type(x)).eps)
    big = 1.0 / eps

    def condition(state: list[XlaOp]) -> XlaOp:
        return ops.And(ops.Lt(state[5], 2000.0), reduce_any(state[0]))

    def body(state: list[XlaOp]) -> list[XlaOp]:
        enabled, ans, y, z, x, c, pkm1, qkm1, pkm2, qkm2 = state
        c = c + 1.0
        y_new = y + 1.0
        z_new = z + 2.0
        yc = y_new * c
        pk = pkm1 * z_new - pkm2 * yc
        qk = qkm1 * z_new - qkm2 * yc
        nonzero = ops.Ne(qk, 0.0)
        r = pk / qk
        t = select(nonzero, ops.Abs((ans - r) / r), 1.0)
        ans_new = ops.Select(nonzero, r, ans)
        rescale = ops.Gt(ops.Abs(pk), big)
        scaled = [ops.Select(rescale, v * eps, v) for v in (pk, qk, pkm1, qkm1)]
        still = ops.And(enabled, ops.Gt(t, eps))
        keep = [
            ops.Select(enabled, new, old)
            for new, old in zip(
                [ans_new, y_new, z_new, *scaled], [ans, y, z, pkm1, qkm1, pkm2, qkm2], strict=True
            )
        ]
        ans_k, y_k, z_k, pkm1_k, qkm1_k, pkm2_k, qkm2_k = keep
        return [still, ans_k, y_k, z_k, x, c, pkm1_k, qkm1_k, pkm2_k, qkm2_k]

    y = 1.0 - a
    z = x + y + 1.0
    pkm2 = full_like(x, 1.0)
    qkm2 = x
    pkm1 = x + 1.0
    qkm1 = z * x
    ans = pkm1 / qkm1
    c = ops.Constant(x.builder, 0.0, element_type(x))
    init = [enabled, ans, y, z, x, c, pkm1, qkm1, pkm2, qkm2]
    ans = while_loop(condition, body, init, "igammac_continued_fraction")[1]
    return ans * prefix


def _igammac_small_x(a: XlaOp, x: XlaOp) -> XlaOp:
    """Q(a, x) for x <= 1.1 and small a, where 1 - P(a, x) would cancel (Cephes/scipy).

    Q = -expm1(a log x - lgamma(1+a)) - x^a/Gamma(a) * sum_n (-x)^n / (n! (a+n)); the
    sum's terms fall like 1.1^n/n!, so a fixed 20 (f64) or 12 (f32) terms suffice.
    """
    terms = 20 if element_type(x) == F64 else 12
    fac = full_like(x, 1.0)
    total = full_like(x, 0.0)
    for n in range(1, terms + 1):
        fac = fac * (-x / float(n))
        total = total + fac / (a + float(n))
    log_x = ops.Log(x)
    head = -ops.Expm1(a * log_x - lgamma1p_impl(a))
    return head - ops.Exp(a * log_x - lgamma_impl(a)) * total


def _igamma_pair(a: XlaOp, x: XlaOp, complement: bool) -> XlaOp:
    """P(a, x) or Q(a, x); each from whichever of the series and fraction converges there."""
    nan_input = ops.Or(ops.Ne(a, a), ops.Ne(x, x))
    domain_error = ops.Or(a < 0.0, x < 0.0)
    x_zero = ops.Eq(x, 0.0)
    a_zero = ops.Eq(a, 0.0)
    x_inf = ops.Eq(x, _INF)
    a_inf = ops.Eq(a, _INF)
    use_fraction = ops.And(x > 1.0, x > a)

    special = ops.Or(
        ops.Or(ops.Or(nan_input, domain_error), ops.Or(x_zero, a_zero)), ops.Or(x_inf, a_inf)
    )
    # Keep the disabled lanes finite so the loop state never holds NaNs that matter.
    safe_a = select(special, 1.0, a)
    safe_x = select(special, 1.0, x)
    log_prefix = _log_gamma_prefix(safe_a, safe_x)
    underflow = log_prefix < -math.log(float(finfo(element_type(x)).max))
    prefix = ops.Exp(log_prefix)
    active = ops.Not(ops.Or(special, underflow))
    series = _igamma_series(prefix, safe_x, safe_a, ops.And(active, ops.Not(use_fraction)))
    fraction = _igammac_continued_fraction(prefix, safe_x, safe_a, ops.And(active, use_fraction))
    if complement:
        result = select(use_fraction, fraction, 1.0 - series)
        # Small x and a: Q from its own series (scipy's igamc regions).
        small_a = select(x <= 0.5, -0.4 / ops.Log(safe_x) >= safe_a, safe_x * 1.1 >= safe_a)
        use_small = ops.And(x <= 1.1, small_a)
        result = select(use_small, _igammac_small_x(safe_a, safe_x), result)
        at_zero_x, at_inf_x, at_zero_a, at_inf_a = 1.0, 0.0, 0.0, 1.0
    else:
        result = select(use_fraction, 1.0 - fraction, series)
        at_zero_x, at_inf_x, at_zero_a, at_inf_a = 0.0, 1.0, 1.0, 0.0
    result = select(a_inf, at_inf_a, result)
    result = select(x_inf, at_inf_x, result)
    result = select(a_zero, at_zero_a, result)
    result = select(x_zero, at_zero_x, result)
    undefined = ops.Or(
        ops.Or(nan_input, domain_error), ops.Or(ops.And(x_zero, a_zero), ops.And(x_inf, a_inf))
    )
    return select(undefined, _NAN, result)


@math_function("Igamma")
def Igamma(a: XlaOp, x: XlaOp) -> XlaOp:
    """Regularized lower incomplete gamma P(a, x) = gamma(a, x) / Gamma(a).

    Edge values as scipy.special.gammainc: P(a, 0) = 0, P(0, x > 0) = 1,
    P(a, inf) = 1, P(inf, x) = 0; NaN for a < 0, x < 0 and the undefined
    corners (0, 0) and (inf, inf). (XLA's version gives NaN for a = 0.)
    """
    a, x = same_operands("Igamma", a, x)
    return with_upcast(lambda a, x: _igamma_pair(a, x, complement=False), a, x)


@math_function("Igammac")
def Igammac(a: XlaOp, x: XlaOp) -> XlaOp:
    """Regularized upper incomplete gamma Q(a, x) = 1 - P(a, x), computed directly.

    Edge values as scipy.special.gammaincc (XLA's version answers 1 instead of
    NaN for a <= 0 or x < 0).
    """
    a, x = same_operands("Igammac", a, x)
    return with_upcast(lambda a, x: _igamma_pair(a, x, complement=True), a, x)


# -- regularized incomplete beta --------------------------------------------------------------------


def _betainc_continued_fractions(
    first: tuple[XlaOp, XlaOp, XlaOp],
    second: tuple[XlaOp, XlaOp, XlaOp],
    second_wanted: XlaOp,
    iterations: int,
) -> tuple[XlaOp, XlaOp, XlaOp]:
    """Two continued fractions 1/(1+ d1/(1+ d2/(1+ ...))) of DLMF 8.17.22, by modified Lentz.

    d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)), d_{2m} = m(b-m) x / ((a+2m-1)(a+2m)).
    The loop runs until every element of the first and every wanted element of the
    second has converged, or ``iterations`` steps; it returns both values and
    whether the second converged.
    """
    x0 = first[2]
    builder = x0.builder
    t = element_type(x0)
    eps = float(finfo(t).eps)
    small = eps / 2.0
    threshold = eps / 2.0

    def numerator(n: XlaOp, a: XlaOp, b: XlaOp, x: XlaOp) -> XlaOp:
        """d_(n-1) for the n-th step (n >= 1); the first numerator is 1."""
        m = ops.Floor((n - 1.0) * 0.5)
        even = ops.Eq(ops.Rem(n, 2.0), 0.0)
        a2m = a + m * 2.0
        even_term = -(a + m) * (a + b + m) * x / (a2m * (a2m + 1.0))
        odd_term = m * (b - m) * x / ((a2m - 1.0) * a2m)
        term = select(even, even_term, odd_term)
        return select(ops.Eq(n, 1.0), 1.0, term)

    def step(
        n: XlaOp, c: XlaOp, d: XlaOp, h: XlaOp, done: XlaOp, a: XlaOp, b: XlaOp, x: XlaOp
    ) -> list[XlaOp]:
        """One Lentz step; a converged element keeps its value (no drift while others run)."""
        num = numerator(n, a, b, x)
        c = num / c + 1.0
        c = select(ops.Abs(c) < small, small, c)
        d = num * d + 1.0
        d = select(ops.Abs(d) < small, small, d)
        d = 1.0 / d
        delta = c * d
        h = ops.Select(done, h, h * delta)
        return [c, d, h, ops.Or(done, ops.Le(ops.Abs(delta - 1.0), threshold))]

    def condition(state: list[XlaOp]) -> XlaOp:
        return ops.And(ops.Lt(state[0], float(iterations)), state[1])

    def body(state: list[XlaOp]) -> list[XlaOp]:
        n, _, c1, d1, h1, done1, c2, d2, h2, done2, wanted, a1, b1, x1, a2, b2, x2 = state
        nb = ops.Broadcast(n, list(x1.shape.dimensions))
        c1, d1, h1, done1 = step(nb, c1, d1, h1, done1, a1, b1, x1)
        c2, d2, h2, done2 = step(nb, c2, d2, h2, done2, a2, b2, x2)
        pending = ops.Or(ops.Not(done1), ops.And(wanted, ops.Not(done2)))
        return [n + 1.0, reduce_any(pending), c1, d1, h1, done1, c2, d2, h2, done2, wanted] + [
            a1,
            b1,
            x1,
            a2,
            b2,
            x2,
        ]

    h = full_like(x0, small)  # b0 = 0, bumped to `small` as Lentz prescribes
    zero = full_like(x0, 0.0)
    no = ops.Broadcast(ops.Constant(builder, False), list(x0.shape.dimensions))
    init = [
        ops.Constant(builder, 1.0, t),
        ops.Constant(builder, True),
        *[h, zero, h, no],
        *[h, zero, h, no],
        second_wanted,
        *first,
        *second,
    ]
    out = while_loop(condition, body, init, "betainc_lentz")
    return out[4], out[8], out[9]


def _lgamma_ratio(q: XlaOp, p: XlaOp) -> XlaOp:
    """lgamma(q) - lgamma(q + p) for q >= 10 by Stirling: no terms of size q*log(q)."""
    return (
        p * (1.0 - ops.Log(q))
        - (q + p - 0.5) * ops.Log1p(p / q)
        + stirling_correction(q)
        - stirling_correction(q + p)
    )


def _log_beta_prefix(a: XlaOp, b: XlaOp, x: XlaOp) -> XlaOp:
    """log(x^a (1-x)^b / B(a, b)), by the sizes of a and b.

    Both >= 10: with x0 = a/(a+b), it is a*log(x/x0) + b*log((1-x)/(1-x0)) +
    log(ab/(a+b))/2 - log(2 pi)/2 - (S(a) + S(b) - S(a+b)); near x0 the two logs
    are log1pmx of dx = (xb - (1-x)a)/a and dy = -(xb - (1-x)a)/b, whose linear
    terms cancel exactly. One >= 10: lgamma(q) - lgamma(q+p) by Stirling. Both
    small: plain lgamma, whose values are small too.
    """
    y = 1.0 - x
    log_x = ops.Log(x)
    log_y = ops.Log1p(-x)
    p = ops.Min(a, b)
    q = ops.Max(a, b)
    big = _STIRLING_MIN_A
    # both large
    aa = ops.Max(a, big)
    bb = ops.Max(b, big)
    n = x * bb - y * aa
    dx = n / aa
    dy = -n / bb
    near = ops.And(ops.Abs(dx) < 0.5, ops.Abs(dy) < 0.5)
    dx_near = select(near, dx, 0.0)
    dy_near = select(near, dy, 0.0)
    power_near = aa * _log1pmx(dx_near) + bb * _log1pmx(dy_near)
    power_far = aa * (log_x + ops.Log1p(bb / aa)) + bb * (log_y + ops.Log1p(aa / bb))
    both_large = (
        select(near, power_near, power_far)
        + ops.Log(aa * bb / (aa + bb)) * 0.5
        - 0.5 * math.log(2.0 * math.pi)
        - (stirling_correction(aa) + stirling_correction(bb) - stirling_correction(aa + bb))
    )
    # one large
    qq = ops.Max(q, big)
    lbeta_one = lgamma_impl(p) + _lgamma_ratio(qq, p)
    # both small
    lbeta_small = lgamma_impl(a) + lgamma_impl(b) - lgamma_impl(a + b)
    lbeta = select(q >= big, lbeta_one, lbeta_small)
    plain = a * log_x + b * log_y - lbeta
    return select(p >= big, both_large, plain)


def _betainc_impl(a: XlaOp, b: XlaOp, x: XlaOp) -> XlaOp:
    """I_x(a, b) from the continued fraction, directly or by I_x(a,b) = 1 - I_(1-x)(b,a).

    The fraction converges fast for x < (a+1)/(a+b+2) (XLA's and Cephes' rule);
    beyond it the reflection is used. But between that bound and the mean
    a/(a+b) (wide for small b) the result is below 1/2 and 1 - I_(1-x)(b,a) would
    cancel, so there the direct fraction is run too and preferred when it
    converges within the iteration limit.
    """
    f64 = element_type(x) == F64
    nan_input = ops.Or(ops.Or(ops.Ne(a, a), ops.Ne(b, b)), ops.Ne(x, x))
    domain_error = ops.Or(ops.Or(a < 0.0, b < 0.0), ops.Or(x < 0.0, x > 1.0))
    a_zero = ops.Eq(a, 0.0)
    b_zero = ops.Eq(b, 0.0)
    special = ops.Or(ops.Or(nan_input, domain_error), ops.Or(a_zero, b_zero))
    a = select(special, 1.0, a)
    b = select(special, 1.0, b)
    x = select(special, 0.5, x)
    direct = x < (a + 1.0) / (a + b + 2.0)
    below_mean = ops.And(ops.Not(direct), x < a / (a + b))
    swapped = (select(direct, a, b), select(direct, b, a), select(direct, x, 1.0 - x))
    fraction, fraction_direct, converged = _betainc_continued_fractions(
        swapped, (a, b, x), below_mean, 600 if f64 else 200
    )
    value = fraction * ops.Exp(_log_beta_prefix(*swapped)) / swapped[0]
    result = select(direct, value, 1.0 - value)
    value_direct = fraction_direct * ops.Exp(_log_beta_prefix(a, b, x)) / a
    result = select(ops.And(below_mean, converged), value_direct, result)
    # Degenerate parameters: a point mass at 0 (a = 0) or at 1 (b = 0).
    result = select(a_zero, 1.0, select(b_zero, 0.0, result))
    undefined = ops.Or(ops.Or(nan_input, domain_error), ops.And(a_zero, b_zero))
    return select(undefined, _NAN, result)


@math_function("RegularizedIncompleteBeta")
def RegularizedIncompleteBeta(a: XlaOp, b: XlaOp, x: XlaOp) -> XlaOp:
    """I_x(a, b) = B(x; a, b) / B(a, b), for a, b >= 0 and 0 <= x <= 1 (NaN otherwise)."""
    a, b, x = same_operands("RegularizedIncompleteBeta", a, b, x)
    return with_upcast(_betainc_impl, a, b, x)


__all__ = ["Igamma", "Igammac", "RegularizedIncompleteBeta"]
