"""Complex arithmetic and functions as XLA:CPU computes them.

Each function follows the formula XLA's elemental emitter uses (naive multiply, Smith's
division with its corner cases, |z| as max * sqrt(1 + (min/max)^2), sqrt via the polar
form, power with Kahan's special cases...), in the component precision (f32 for c64), so
that overflows, infinities, NaNs and signed zeros come out as XLA's do. The real
functions inside (exp, sin, atan2, pow...) are correctly rounded ones (computed in f64
for f32), which XLA's approximations differ from by an ULP or so: the tests bound how far
that carries.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Array = np.ndarray


def _real(fn: Callable[..., Array], *args: Array) -> Array:
    """``fn`` correctly rounded in the arguments' precision (f32 via f64)."""
    dtype = np.result_type(*args)
    if dtype == np.float64:
        return np.asarray(fn(*args))
    return np.asarray(fn(*(a.astype(np.float64) for a in args))).astype(dtype)


def parts(z: Array) -> tuple[Array, Array]:
    z = np.asarray(z)
    return z.real.copy(), z.imag.copy()


def compose(re: Array, im: Array) -> Array:
    re, im = np.broadcast_arrays(np.asarray(re), np.asarray(im))
    dtype = np.complex64 if re.dtype == np.float32 else np.complex128
    result = np.empty(re.shape, dtype)
    result.real, result.imag = re, im
    return result


def _const(x: Array, value: float) -> Array:
    return np.asarray(value, dtype=np.asarray(x).dtype)


def _copysign(magnitude: Array | float, sign: Array) -> Array:
    return np.copysign(np.asarray(magnitude, dtype=sign.dtype), sign)


def fma(a: Array, b: Array, c: Array) -> Array:
    """a * b + c rounded once, as the FMAs LLVM contracts XLA:CPU's multiply-adds into.

    f32: the product is exact in f64, and the f64 sum is made round-to-odd (its rounding
    error's sign picks the odd neighbour) so that rounding it to f32 is correct. f64: in
    x87 extended precision where numpy has it (exact exponent range, 64-bit products, so
    right but for rare double roundings), else unfused.
    """
    a, b, c = np.broadcast_arrays(np.asarray(a), np.asarray(b), np.asarray(c))
    if a.dtype == np.float32:
        p = a.astype(np.float64) * b.astype(np.float64)
        wide_c = c.astype(np.float64)
        total = p + wide_c
        back = total - p
        error = (p - (total - back)) + (wide_c - back)
        even = (total.view(np.int64) & 1) == 0
        nudge = (error != 0) & even & np.isfinite(total) & np.isfinite(error)
        toward = np.where(error > 0, np.inf, -np.inf)
        return np.where(nudge, np.nextafter(total, toward), total).astype(np.float32)
    if np.finfo(np.longdouble).nmant >= 63:
        ld = np.longdouble
        return (a.astype(ld) * b.astype(ld) + c.astype(ld)).astype(np.float64)
    return a * b + c


def multiply(a: Array, b: Array) -> Array:
    """(ar br - ai bi) + (ar bi + ai br)i, with the FMAs XLA:CPU's code gets."""
    ar, ai = parts(a)
    br, bi = parts(b)
    return compose(fma(ar, br, -(ai * bi)), fma(ai, br, ar * bi))


def add(a: Array, b: Array) -> Array:
    return np.asarray(a) + np.asarray(b)


def divide(a: Array, b: Array) -> Array:
    """Smith's algorithm, then XLA's fix-ups where it gives (NaN, NaN)."""
    ar, ai = parts(a)
    br, bi = parts(b)
    zero, one, inf = _const(ar, 0.0), _const(ar, 1.0), _const(ar, np.inf)
    r_over_i = br / bi
    r_over_i_denom = fma(r_over_i, br, bi)
    i_over_r = bi / br
    i_over_r_denom = fma(i_over_r, bi, br)
    br_abs, bi_abs = np.abs(br), np.abs(bi)
    r_lt_i = br_abs < bi_abs
    cr = np.where(
        r_lt_i, fma(r_over_i, ar, ai) / r_over_i_denom, fma(i_over_r, ai, ar) / i_over_r_denom
    )
    ci = np.where(
        r_lt_i, fma(r_over_i, ai, -ar) / r_over_i_denom, fma(-i_over_r, ar, ai) / i_over_r_denom
    )
    # 1. a zero denominator: infinities signed by the numerator (and b's real part)
    zero_denominator = (br_abs == 0) & (bi_abs == 0) & (~np.isnan(ar) | ~np.isnan(ai))
    signed_inf = _copysign(np.inf, br)
    zero_denominator_r, zero_denominator_i = signed_inf * ar, signed_inf * ai
    # 2. an infinite numerator over a finite denominator
    ar_abs, ai_abs = np.abs(ar), np.abs(ai)
    ar_inf, ai_inf = ar_abs == inf, ai_abs == inf
    inf_over_finite = (ar_inf | ai_inf) & (br_abs != inf) & (bi_abs != inf) & ~np.isnan(br)
    inf_over_finite &= ~np.isnan(bi)
    ar_unit = _copysign(np.where(ar_inf, one, zero), ar)
    ai_unit = _copysign(np.where(ai_inf, one, zero), ai)
    inf_over_finite_r = inf * (ar_unit * br + ai_unit * bi)
    inf_over_finite_i = inf * (ai_unit * br - ar_unit * bi)
    # 3. a finite numerator over an infinite denominator
    br_inf, bi_inf = br_abs == inf, bi_abs == inf
    finite_over_inf = (br_inf | bi_inf) & (ar_abs != inf) & (ai_abs != inf) & ~np.isnan(ar)
    finite_over_inf &= ~np.isnan(ai)
    br_unit = _copysign(np.where(br_inf, one, zero), br)
    bi_unit = _copysign(np.where(bi_inf, one, zero), bi)
    finite_over_inf_r = zero * (ar * br_unit + ai * bi_unit)
    finite_over_inf_i = zero * (ai * br_unit - ar * bi_unit)

    both_nan = np.isnan(cr) & np.isnan(ci)

    def fix(value: Array, z: Array, i: Array, f: Array) -> Array:
        fixed = np.where(
            zero_denominator,
            z,
            np.where(inf_over_finite, i, np.where(finite_over_inf, f, value)),
        )
        return np.where(both_nan, fixed, value)

    return compose(
        fix(cr, zero_denominator_r, inf_over_finite_r, finite_over_inf_r),
        fix(ci, zero_denominator_i, inf_over_finite_i, finite_over_inf_i),
    )


def _abs_parts(re: Array, im: Array) -> tuple[Array, Array, Array]:
    """(min, max, 1 + (min/max)^2) of the parts' magnitudes, as XLA's abs helper."""
    a, b = np.abs(re), np.abs(im)
    big = np.where(np.isnan(a) | np.isnan(b), np.nan, np.maximum(a, b)).astype(a.dtype)
    small = np.where(np.isnan(a) | np.isnan(b), np.nan, np.minimum(a, b)).astype(a.dtype)
    ratio = small / big
    return small, big, fma(ratio, ratio, _const(a, 1.0))


def absolute(z: Array) -> Array:
    """|z| = max * sqrt(1 + (min/max)^2); min where that is NaN (0, inf, NaN parts)."""
    small, big, one_plus = _abs_parts(*parts(z))
    result = big * np.sqrt(one_plus)
    return np.where(np.isnan(result), small, result)


def _sqrt_abs(z: Array) -> Array:
    small, big, one_plus = _abs_parts(*parts(z))
    result = np.sqrt(big) * _real(np.power, one_plus, _const(one_plus, 0.25))
    return np.where(np.isnan(result), small, result)


def _rsqrt_abs(z: Array) -> Array:
    small, big, one_plus = _abs_parts(*parts(z))
    result = _real(_rsqrt, big) * _real(_rsqrt, np.sqrt(one_plus))
    return np.where(np.isnan(result), _real(_rsqrt, small), result)


def _rsqrt(x: Array) -> Array:
    return 1.0 / np.sqrt(x)


def sign(z: Array) -> Array:
    magnitude = absolute(z)
    re, im = parts(z)
    zero = _const(re, 0.0)
    is_zero = magnitude == 0
    return compose(np.where(is_zero, zero, re / magnitude), np.where(is_zero, zero, im / magnitude))


def exp(z: Array) -> Array:
    """e^a (cos b + i sin b); a zero b gives a zero imaginary part even for e^a = inf/NaN."""
    a, b = parts(z)
    exp_a = _real(np.exp, a)
    imag = np.where(b == 0, _const(a, 0.0), exp_a * _real(np.sin, b))
    return compose(exp_a * _real(np.cos, b), imag)


def _cosm1(x: Array) -> Array:
    return -2.0 * np.sin(x / 2.0) ** 2


def expm1(z: Array) -> Array:
    a, b = parts(z)
    one, zero = _const(a, 1.0), _const(a, 0.0)
    expm1_a = _real(np.expm1, a)
    cos_b_m1 = _real(_cosm1, b)
    real = expm1_a * (cos_b_m1 + one) + cos_b_m1
    imag = np.where(b == 0, zero, (expm1_a + one) * _real(np.sin, b))
    return compose(real, imag)


def log(z: Array) -> Array:
    a, b = parts(z)
    return compose(_real(np.log, absolute(z)), _real(np.arctan2, b, a))


def log1p(z: Array) -> Array:
    a, b = parts(z)
    one, half = _const(a, 1.0), _const(a, 0.5)
    a1 = a + one
    abs_a1, abs_b = np.abs(a1), np.abs(b)
    nan = np.isnan(abs_a1) | np.isnan(abs_b)
    big = np.where(nan, np.nan, np.maximum(abs_a1, abs_b)).astype(a.dtype)
    small = np.where(nan, np.nan, np.minimum(abs_a1, abs_b)).astype(a.dtype)
    big_m1 = np.where(a1 > abs_b, a, big - one)
    ratio = small / big
    r = half * _real(np.log1p, ratio * ratio) + _real(np.log1p, big_m1)
    # log1p(-1) = -inf; otherwise a NaN from 0/0 or inf/inf means |1 + z| is ``small``.
    real = np.where(big == 0, -np.inf, np.where(np.isnan(r), small, r)).astype(a.dtype)
    return compose(real, _real(np.arctan2, b, a1))


def sqrt(z: Array) -> Array:
    """The principal root from t = sqrt((|a| + |z|) / 2): (t, b / 2t) for a >= 0, else
    (|b| / 2t, +-t). As on XLA:CPU, a zero b counts as +0 whatever its sign (sqrt(-1 - 0i)
    is +i) and any NaN part makes both parts NaN."""
    a, b = parts(z)
    zero, half, inf = _const(a, 0.0), _const(a, 0.5), _const(a, np.inf)
    t = np.sqrt(np.abs(a) * half + absolute(z) * half)
    across = np.abs(b) / (t + t)
    sign = np.where(b < 0, _const(a, -1.0), _const(a, 1.0))
    real = np.where(a >= 0, t, across)
    imag = sign * np.where(a >= 0, across, t)
    real, imag = np.where(t == 0, zero, real), np.where(t == 0, zero, imag)
    b_inf = np.abs(b) == inf
    real, imag = np.where(b_inf, inf, real), np.where(b_inf, b, imag)
    nan = np.isnan(a) | np.isnan(b)
    return compose(np.where(nan, np.nan, real), np.where(nan, np.nan, imag))


def rsqrt(z: Array) -> Array:
    a, b = parts(z)
    inf = _const(a, np.inf)
    r = _rsqrt_abs(z)
    angle = _real(np.arctan2, b, a) * _const(a, -0.5)
    cos, sin = _real(np.cos, angle), _real(np.sin, angle)
    abs_a, abs_b = np.abs(a), np.abs(b)
    zero_zero = (a == 0) & (b == 0)
    at_infinity = ((abs_b == inf) & np.isnan(a)) | (abs_a == inf)
    real = np.where(zero_zero, inf, np.where(at_infinity, _copysign(0.0, a), r * cos))
    imag = np.where(zero_zero, np.nan, np.where(at_infinity, -_copysign(0.0, b), r * sin))
    return compose(real, imag)


def power(x: Array, y: Array) -> Array:
    """|x|^c * exp(-d arg x) * (cos q + i sin q), q = c arg x + d ln|x|, with Kahan's cases:
    0^(c >= 0) is 0 (1 for c = 0), x^0 = 1, 1^y = 1, inf^(c > 0) = inf, inf^(c < 0) = 0."""
    a, b = parts(x)
    c, d = parts(y)
    zero, one, inf = _const(a, 0.0), _const(a, 1.0), _const(a, np.inf)
    magnitude = absolute(x)
    angle = _real(np.arctan2, b, a)
    coeff = _real(np.power, magnitude, c) * _real(np.exp, -d * angle)
    q = c * angle + d * _real(np.log, magnitude)
    re, im = coeff * _real(np.cos, q), coeff * _real(np.sin, q)
    zero_base = (magnitude == 0) & (d == 0) & (zero <= c)
    re = np.where(zero_base, np.where(c == 0, one, zero), re)
    im = np.where(zero_base, zero, im)
    for condition, value in (
        ((c == 0) & (d == 0), one),
        ((a == 1) & (b == 0), one),
        ((a == inf) & (b == 0) & (d == 0) & (c > 0), inf),
        ((a == inf) & (b == 0) & (d == 0) & (c < 0), zero),
    ):
        re, im = np.where(condition, value, re), np.where(condition, zero, im)
    return compose(re, im)


def tanh(z: Array, as_tan: bool = False) -> Array:
    """(e^2a - e^-2a + 2i sin 2b) / (e^2a + e^-2a + 2 cos 2b), with XLA's limits; tan(z) is
    -i tanh(iz)."""
    a0, b0 = parts(z)
    a, b = (-b0, a0) if as_tan else (a0, b0)
    zero, inf, four = _const(a, 0.0), _const(a, np.inf), _const(a, 4.0)
    exp_2a_m1 = _real(np.expm1, a + a)
    exp_neg_2a_m1 = _real(np.expm1, -(a + a))
    real_numerator = exp_2a_m1 - exp_neg_2a_m1
    cos_b, sin_b = _real(np.cos, b), _real(np.sin, b)
    imag_numerator = four * (cos_b * sin_b)
    exp_sum_m2 = exp_2a_m1 + exp_neg_2a_m1
    denominator = exp_sum_m2 + (cos_b * cos_b) * four
    real = np.where(exp_sum_m2 == inf, _copysign(1.0, a), real_numerator / denominator)
    imag = imag_numerator / denominator
    a_is_inf = np.abs(a) == inf
    sin_2b_nan = np.isnan(imag_numerator)
    real = np.where(sin_2b_nan & ~a_is_inf, np.nan, real).astype(a.dtype)
    imag = np.where((b == 0) | (a_is_inf & sin_2b_nan), zero, imag)
    return compose(imag, -real) if as_tan else compose(real, imag)


def tan(z: Array) -> Array:
    return tanh(z, as_tan=True)


def _sin_cos(z: Array, of_sin: bool) -> Array:
    x, y = parts(z)
    half = _const(x, 0.5)
    exp_y = _real(np.exp, y)
    half_exp_y, half_exp_neg_y = half * exp_y, half / exp_y
    sinh_y, cosh_y = half_exp_y - half_exp_neg_y, half_exp_y + half_exp_neg_y
    sin_x, cos_x = _real(np.sin, x), _real(np.cos, x)
    if of_sin:
        return compose(sin_x * cosh_y, cos_x * sinh_y)
    return compose(cos_x * cosh_y, sin_x * (half_exp_neg_y - half_exp_y))


def sin(z: Array) -> Array:
    return _sin_cos(z, of_sin=True)


def cos(z: Array) -> Array:
    return _sin_cos(z, of_sin=False)


def logistic(z: Array) -> Array:
    """1 / (1 + e^-z), each step as XLA computes it."""
    one = compose(_const(parts(z)[0], 1.0), _const(parts(z)[0], 0.0))
    return divide(one, add(one, exp(-np.asarray(z))))


def atan2(y: Array, x: Array) -> Array:
    """-i log((x + iy) / sqrt(x^2 + y^2)), each step as XLA computes it."""
    sum_of_squares = add(multiply(x, x), multiply(y, y))
    i = compose(_const(parts(x)[0], 0.0), _const(parts(x)[0], 1.0))
    ratio = divide(add(x, multiply(i, y)), sqrt(sum_of_squares))
    minus_i = compose(_const(parts(x)[0], 0.0), _const(parts(x)[0], -1.0))
    return multiply(minus_i, log(ratio))


__all__ = [
    "absolute",
    "atan2",
    "compose",
    "cos",
    "divide",
    "exp",
    "expm1",
    "log",
    "log1p",
    "logistic",
    "multiply",
    "parts",
    "power",
    "rsqrt",
    "sign",
    "sin",
    "sqrt",
    "tan",
    "tanh",
]
