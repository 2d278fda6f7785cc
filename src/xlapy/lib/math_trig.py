"""Inverse trigonometric and hyperbolic functions, for real and complex operands.

Real formulas avoid the usual cancellations (``1 - x*x`` is ``(1-x)(1+x)``,
small arguments go through ``log1p``/``expm1``, huge ones are rewritten before
``x*x`` overflows). Complex asin/acos (and asinh/acosh through them) follow the
modified Hull-Fairgrieve-Tang algorithm (ACM TOMS 23(3), 1997) in the
three-region form that StableHLO's CHLO decompositions use; complex tan and
atanh use Kahan's formulas. Results on branch cuts follow C99 Annex G: the
sign of a zero imaginary part picks the side, so ``f(conj(z)) == conj(f(z))``.
"""

from __future__ import annotations

import math

from .. import ops
from ..builder import XlaOp
from .math_support import (
    F64,
    copysign,
    element_type,
    finfo,
    full_like,
    math_function,
    require_float,
    select,
    sign_bit,
    with_upcast,
)

# -- shared pieces ------------------------------------------------------------------------------


def _hypot(a: XlaOp, b: XlaOp) -> XlaOp:
    """sqrt(a*a + b*b) without overflow or underflow of the squares."""
    ax, bx = ops.Abs(a), ops.Abs(b)
    mx = ops.Max(ax, bx)
    mn = ops.Min(ax, bx)
    r = mn / mx
    r = r * r
    sq = ops.Sqrt(r + 1.0)
    # When r is below eps the square root rounds to 1 and loses the r/2 term.
    tiny_r = ops.And(ops.Eq(sq, 1.0), r > 0.0)
    general = select(tiny_r, mx + mx * r * 0.5, mx * sq)
    return select(ops.Eq(mx, mn), mx * math.sqrt(2.0), general)


def _complex_asin_acos_parts(z: XlaOp) -> tuple[XlaOp, XlaOp, XlaOp, XlaOp]:
    """(Re asin z, Re acos z, |Im asin z|, sign bit of Im z) by modified Hull et al.

    With x = |Re z|, y = |Im z|, r = |z+1|, s = |z-1| and a = (r+s)/2:
    Re asin = atan2(Re z, q) and Re acos = atan2(q, Re z) where q is
    sqrt(a^2 - x^2) rewritten per region without cancellation; |Im asin| is
    log(a + sqrt(a^2-1)) = log1p(am1 + sqrt(am1*(a+1))) with am1 = a-1 likewise
    rewritten, switching to log(2) + log(|z|) where the squares would overflow.
    """
    signed_x = ops.Real(z)
    signed_y = ops.Imag(z)
    x = ops.Abs(signed_x)
    y = ops.Abs(signed_y)
    info = finfo(element_type(signed_x))
    safe_min = math.sqrt(float(info.tiny)) * 4.0
    safe_max = math.sqrt(float(info.max)) / 8.0

    xp1 = x + 1.0
    xm1 = x - 1.0
    r = _hypot(xp1, y)
    s = _hypot(xm1, y)
    a = (r + s) * 0.5
    ap1 = a + 1.0
    yy = y * y
    rpxp1 = r + xp1
    spxm1 = s + xm1
    smxm1 = s - xm1
    half_apx = (a + x) * 0.5

    # Real parts.
    q_small_x = ops.Sqrt(half_apx * (yy / rpxp1 + smxm1))
    q_large_x = y * ops.Sqrt(half_apx / rpxp1 + half_apx / spxm1)
    q = select(
        ops.Max(x, y) >= safe_max,
        y,  # |z| so large that a ~ |z| and a^2 - x^2 ~ y^2
        select(x <= 1.0, q_small_x, q_large_x),
    )
    asin_re = ops.Atan2(signed_x, q)
    acos_re = ops.Atan2(q, signed_x)

    # Imaginary part magnitude.
    tiny_y_inside = ops.And(y < safe_min, x < 1.0)
    am1 = select(
        tiny_y_inside,
        -(xp1 * xm1) / ap1,
        select(
            x >= 1.0,
            yy * 0.5 / rpxp1 + spxm1 * 0.5,
            select(a <= 1.5, yy * 0.5 / rpxp1 + yy * 0.5 / smxm1, a - 1.0),
        ),
    )
    # Where y dominates, log(a + sqrt(a^2-1)) ~ log(2) + log(y) + log1p((x/y)^2)/2; starting
    # that region well below safe_max also covers x large but tiny next to y.
    safe_max_opt = select(x < safe_max * 1e12, full_like(x, safe_max * 1e-6), safe_max * 1e2)
    y_large = y >= safe_max_opt
    mx = select(y_large, y, x)
    finite_y = ops.Lt(y, float("inf"))
    xoy = select(ops.And(y_large, finite_y), x / y, 0.0)
    sq = ops.Sqrt(am1 * ap1)
    big = math.log(2.0) + ops.Log(mx) + ops.Log1p(xoy * xoy) * 0.5
    imag = select(
        mx >= select(y_large, safe_max_opt, safe_max),
        big,
        select(tiny_y_inside, y / sq, ops.Log1p(am1 + sq)),
    )
    return asin_re, acos_re, imag, sign_bit(signed_y)


def _complex_asin(z: XlaOp) -> XlaOp:
    re, _, imag, negative = _complex_asin_acos_parts(z)
    return ops.Complex(re, ops.Select(negative, -imag, imag))


def _complex_acos(z: XlaOp) -> XlaOp:
    _, re, imag, negative = _complex_asin_acos_parts(z)
    return ops.Complex(re, ops.Select(negative, imag, -imag))


def _times_i(z: XlaOp) -> XlaOp:
    """i*z as (-Im z, Re z): exact, and no 0*inf = NaN from a complex multiply."""
    return ops.Complex(-ops.Imag(z), ops.Real(z))


def _times_minus_i(z: XlaOp) -> XlaOp:
    return ops.Complex(ops.Imag(z), -ops.Real(z))


def _complex_atanh(z: XlaOp) -> XlaOp:
    """Kahan: Re = log1p(4x / ((1-x)^2 + y^2)) / 4, Im = atan2(2y, (1-x)(1+x) - y^2) / 2.

    Far from the origin (where the squares overflow) Re ~ x/|z|^2 and
    Im ~ +-pi/2 with the sign of y.
    """
    signed_x = ops.Real(z)
    y = ops.Imag(z)
    x = ops.Abs(signed_x)
    ay = ops.Abs(y)
    info = finfo(element_type(x))
    safe_max = math.sqrt(float(info.max)) / 8.0
    big = ops.Max(x, ay) >= safe_max
    one_m_x = 1.0 - x
    re_near = ops.Log1p(x * 4.0 / (one_m_x * one_m_x + y * y)) * 0.25
    # Next to the pole at 1, (1-x)^2 + y^2 may underflow while 4x/((1-x)^2 + y^2) overflows;
    # there log1p(v) = log(v) to working precision, taken in pieces.
    h_pole = _hypot(one_m_x, y)
    at_pole = h_pole * h_pole < x * (4.0 * float(info.eps))
    re_pole = (ops.Log(x * 4.0) - ops.Log(h_pole) * 2.0) * 0.25
    re_near = select(at_pole, re_pole, re_near)
    h = _hypot(x, y)
    re_far = select(ops.IsFinite(h), x / h / h, 0.0)
    re = copysign(select(big, re_far, re_near), signed_x)
    im_near = ops.Atan2(y * 2.0, one_m_x * (1.0 + x) - y * y) * 0.5
    im_far = copysign(full_like(y, math.pi / 2), y)
    im = select(big, im_far, im_near)
    return ops.Complex(re, im)


def _complex_tanh(z: XlaOp) -> XlaOp:
    """Kahan's tanh: t = tan(y), s = sinh(x), rho = cosh(x), beta = 1 + t^2,
    tanh(z) = (beta*rho*s + i*t) / (1 + beta*s^2); for large |x| the real part is
    +-1 and the imaginary part 2*sin(2y)*exp(-2|x|)."""
    x = ops.Real(z)
    y = ops.Imag(z)
    threshold = 22.0 if element_type(x) == F64 else 12.0
    t = ops.Sin(y) / ops.Cos(y)
    beta = t * t + 1.0
    s = _sinh_real(x)
    rho = ops.Sqrt(s * s + 1.0)
    denom = beta * s * s + 1.0
    re_near = beta * rho * s / denom
    im_near = t / denom
    ax = ops.Abs(x)
    re_far = copysign(x * 0.0 + 1.0, x)
    im_far = ops.Sin(y * 2.0) * ops.Exp(ax * -2.0) * 2.0
    far = ax > threshold
    re = select(ops.Eq(x, 0.0), x, select(far, re_far, re_near))  # tanh(+-0 + iy) is pure imaginary
    return ops.Complex(re, select(far, im_far, im_near))


# -- real building blocks -------------------------------------------------------------------------


def _sinh_real(x: XlaOp) -> XlaOp:
    """sinh via expm1 below 20 (no cancellation near 0), then exp(|x|/2)^2/2 (no early overflow)."""
    ax = ops.Abs(x)
    e = ops.Expm1(ax)
    near = (e + e / (e + 1.0)) * 0.5
    h = ops.Exp(ax * 0.5)
    far = (h * 0.5) * h
    result = select(ax < 20.0, near, far)
    return copysign(result, x)


def _cosh_real(x: XlaOp) -> XlaOp:
    ax = ops.Abs(x)
    e = ops.Exp(ax)
    near = (e + 1.0 / e) * 0.5
    h = ops.Exp(ax * 0.5)
    far = (h * 0.5) * h
    return ops.Max(select(ax < 20.0, near, far), 1.0)


def _asinh_real(x: XlaOp) -> XlaOp:
    """asinh(|x|) = log1p(|x| + x^2 / (1 + sqrt(1 + x^2))), or log(2|x|) past sqrt(max)."""
    ax = ops.Abs(x)
    big = ax >= math.sqrt(float(finfo(element_type(x)).max))
    ax2 = ax * ax
    near = ops.Log1p(ax + ax2 / (ops.Sqrt(ax2 + 1.0) + 1.0))
    far = ops.Log(ax) + math.log(2.0)
    return copysign(select(big, far, near), x)


def _acosh_real(x: XlaOp) -> XlaOp:
    """acosh: log1p(t + sqrt(t(x+1))) with t = x-1 (exact) below 2, then
    log(x + sqrt((x+1)(x-1))), and log(x) + log(2) past sqrt(max); NaN below 1."""
    big = x >= math.sqrt(float(finfo(element_type(x)).max))
    t = x - 1.0
    near_one = ops.Log1p(t + ops.Sqrt(t * (x + 1.0)))
    middle = ops.Log(x + ops.Sqrt((x + 1.0) * t))
    far = ops.Log(x) + math.log(2.0)
    result = select(big, far, select(x < 2.0, near_one, middle))
    return select(x < 1.0, float("nan"), result)


def _atanh_real(x: XlaOp) -> XlaOp:
    """atanh(|x|) = log1p(2|x| / (1 - |x|)) / 2: no cancellation at 0, exact pole at 1."""
    ax = ops.Abs(x)
    result = copysign(ops.Log1p(ax * 2.0 / (1.0 - ax)) * 0.5, x)
    return select(ax > 1.0, float("nan"), result)


# -- public functions -----------------------------------------------------------------------------


@math_function("Acos")
def Acos(x: XlaOp) -> XlaOp:
    """Arc cosine; real: 2*atan2(sqrt((1-x)(1+x)), 1+x) (pi at -1), complex: Hull et al."""
    t = require_float("Acos", x, complex_ok=True)
    if t.is_complex:
        return _complex_acos(x)

    def real(x: XlaOp) -> XlaOp:
        result = ops.Atan2(ops.Sqrt((1.0 - x) * (1.0 + x)), 1.0 + x) * 2.0
        return select(ops.Eq(x, -1.0), math.pi, result)

    return with_upcast(real, x)


@math_function("Asin")
def Asin(x: XlaOp) -> XlaOp:
    """Arc sine; real: 2*atan2(x, 1 + sqrt((1-x)(1+x))), complex: Hull et al."""
    t = require_float("Asin", x, complex_ok=True)
    if t.is_complex:
        return _complex_asin(x)

    def real(x: XlaOp) -> XlaOp:
        return ops.Atan2(x, ops.Sqrt((1.0 - x) * (1.0 + x)) + 1.0) * 2.0

    return with_upcast(real, x)


@math_function("Atan")
def Atan(x: XlaOp) -> XlaOp:
    """Arc tangent; real: atan2(x, 1), complex: -i*atanh(i*z)."""
    t = require_float("Atan", x, complex_ok=True)
    if t.is_complex:
        return _times_minus_i(_complex_atanh(_times_i(x)))
    return with_upcast(lambda x: ops.Atan2(x, 1.0), x)


@math_function("Acosh")
def Acosh(x: XlaOp) -> XlaOp:
    """Inverse hyperbolic cosine; complex: (|Im acos z|, Re acos z with the sign of Im z)."""
    t = require_float("Acosh", x, complex_ok=True)
    if t.is_complex:
        _, re, imag, negative = _complex_asin_acos_parts(x)
        return ops.Complex(imag, ops.Select(negative, -re, re))
    return with_upcast(_acosh_real, x)


@math_function("Asinh")
def Asinh(x: XlaOp) -> XlaOp:
    """Inverse hyperbolic sine; complex: -i*asin(i*z)."""
    t = require_float("Asinh", x, complex_ok=True)
    if t.is_complex:
        return _times_minus_i(_complex_asin(_times_i(x)))
    return with_upcast(_asinh_real, x)


@math_function("Atanh")
def Atanh(x: XlaOp) -> XlaOp:
    """Inverse hyperbolic tangent; NaN outside [-1, 1] for reals, Kahan's formula for complex."""
    t = require_float("Atanh", x, complex_ok=True)
    if t.is_complex:
        return _complex_atanh(x)
    return with_upcast(_atanh_real, x)


@math_function("Sinh")
def Sinh(x: XlaOp) -> XlaOp:
    """Hyperbolic sine; complex: sinh(x)cos(y) + i*cosh(x)sin(y) (exact zero imaginary part)."""
    t = require_float("Sinh", x, complex_ok=True)
    if t.is_complex:
        re, im = ops.Real(x), ops.Imag(x)
        out_re = _sinh_real(re) * ops.Cos(im)
        out_im = select(ops.Eq(im, 0.0), im, _cosh_real(re) * ops.Sin(im))
        return ops.Complex(out_re, out_im)
    return with_upcast(_sinh_real, x)


@math_function("Cosh")
def Cosh(x: XlaOp) -> XlaOp:
    """Hyperbolic cosine; complex: cosh(x)cos(y) + i*sinh(x)sin(y)."""
    t = require_float("Cosh", x, complex_ok=True)
    if t.is_complex:
        re, im = ops.Real(x), ops.Imag(x)
        out_re = _cosh_real(re) * ops.Cos(im)
        out_im = select(ops.Eq(im, 0.0), im * ops.Sign(re), _sinh_real(re) * ops.Sin(im))
        return ops.Complex(out_re, out_im)
    return with_upcast(_cosh_real, x)


@math_function("Tan")
def Tan(x: XlaOp) -> XlaOp:
    """Tangent; real: sin/cos, complex: -i*tanh(i*z) with Kahan's tanh."""
    t = require_float("Tan", x, complex_ok=True)
    if t.is_complex:
        return _times_minus_i(_complex_tanh(_times_i(x)))
    return with_upcast(lambda x: ops.Sin(x) / ops.Cos(x), x)


__all__ = ["Acos", "Acosh", "Asin", "Asinh", "Atan", "Atanh", "Cosh", "Sinh", "Tan"]
