"""exp, expm1, log, log1p, tanh and logistic as straight-line IR (see ``math.approx``
for the accuracy table): a range reduction that keeps the reduced argument's leading
part exact, minimax polynomials for the rest, and 2^n by exponent arithmetic.

The helpers ``Reduced``/``exp_scaled`` and ``log_of`` are shared with the other
math modules (power needs exp of a sum of two doubles, tanh needs expm1's core).
"""

from __future__ import annotations

from llvmlite import ir

from .support import DEFAULT_NAN, LOG2E, Emitter, bits_of, split

# Minimax coefficients from tools/fit_math_approx.py (names as there).
# exp(r) - 1 = r + r^2 Q(r) on |r| <= ln2/2.
_EXP_F32 = [0.5, 0.16666536033153534, 0.04166637361049652, 0.008367355912923813, 0.001394119462929666]  # fmt: skip
_EXP_F64 = [0.5000000000000006, 0.16666666666666685, 0.04166666666657364, 0.008333333333314735, 0.0013888888932372773, 0.00019841269902688027, 2.480150445356641e-05, 2.7557228268177164e-06, 2.7626323358630587e-07, 2.5114374398207115e-08]  # fmt: skip
# log1p f = f - (h - s (h + z P(z))), h = f^2/2, s = f/(2+f), z = s^2 <= 0.0295.
_LOG_F32 = [0.6666677594184875, 0.399774432182312, 0.29874616861343384]  # fmt: skip
LOG_F64 = [0.6666666666666666, 0.40000000000004826, 0.2857142856935231, 0.22222222627064805, 0.18181776057235807, 0.1538711198981293, 0.13248992161865397, 0.13266013983228278]  # fmt: skip
# tanh x = x + x^3 T(x^2), |x| <= 0.56.
_TANH_F32 = [-0.33333316445350647, 0.13332535326480865, -0.05384605750441551, 0.02104201726615429, -0.006226930767297745]  # fmt: skip


# -- exp and expm1 ----------------------------------------------------------------------


class Reduced:
    """x + x_lo = n ln2 + r_hi + r_lo, with r_hi = x - n ln2_hi exact (fma; |r_hi| <=
    ln2/2 needs no more bits than x and n ln2_hi leave) and r_lo = x_lo - n ln2_lo;
    exp(r) - 1 = r_hi + ``low`` with low = r_lo + r^2 Q(r) (one fma) for r = r_hi +
    r_lo."""

    def __init__(self, m: Emitter, x: ir.Value, x_lo: ir.Value | None = None) -> None:
        ln2_hi, ln2_lo = split("ln2", m.double)
        self.n, self.n_int = m.rint_scaled(x, LOG2E)
        self.r_hi = m.fma(self.n, -ln2_hi, x)
        self.r_lo = m.mul(self.n, -ln2_lo)
        if x_lo is not None:
            self.r_lo = m.add(self.r_lo, x_lo)
        r = m.add(self.r_hi, self.r_lo)
        r2 = m.mul(r, r)
        q = m.poly(r, _EXP_F64 if m.double else _EXP_F32, r2)
        self.low = m.fma(r2, q, self.r_lo)  # exp(r) - 1 - r_hi


def exp_scaled(m: Emitter, x: ir.Value, x_lo: ir.Value | None = None) -> ir.Value:
    """exp(x + x_lo) for x not NaN (x_lo small next to x's ULP): x clamped to where 2^n
    overflows, or underflows past the denormals, by itself."""
    low, high = (-750.0, 710.0) if m.double else (-110.0, 90.0)
    clamped = m.clamp(x, low, high)
    if x_lo is not None:  # past the clamp, x_lo no longer belongs to x
        x_lo = m.select(m.cmp("==", clamped, x), x_lo, 0.0)
    red = Reduced(m, clamped, x_lo)
    return m.ldexp_one_plus(m.add(red.r_hi, red.low), red.n_int)


def exp(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    return m.keep_nan(x, exp_scaled(m, x))


def expm1_clamped(m: Emitter, x: ir.Value, plus: float = 0.0) -> ir.Value:
    """expm1 for x in [low, 88] (f32) / [low, 709] (f64), where 2^n is a normal float:
    2^n (exp(r) - 1) + (2^n - 1), grouped as 2^n r_hi + (2^n - 1) (one rounding) plus
    2^n low (small), so nothing cancels for n = +-1. ``plus``: expm1(x) + plus with no
    rounding of its own (2^n - 1 + plus instead of 2^n - 1), for tanh's e + 2."""
    red = Reduced(m, x)
    scale = m.pow2(red.n_int)
    head = m.fma(scale, red.r_hi, m.sub(scale, 1.0 - plus))
    return m.fma(scale, red.low, head)


def expm1(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    # Below ``low`` expm1 rounds to -1; above ``big`` 2^n would overflow: exp instead
    # (expm1 = exp there to far below an ULP).
    low, big, high = (-40.0, 709.0, 710.0) if m.double else (-20.0, 88.0, 90.0)
    clamped = m.clamp(x, low, big)
    result = expm1_clamped(m, clamped)
    large = exp_scaled(m, m.clamp(x, big, high))
    result = m.select(m.cmp(">", x, big), large, result)
    # expm1(-0) = -0 (the reduction loses the sign of zero).
    result = m.select(m.cmp("==", x, 0.0), x, result)
    return m.keep_nan(x, result)


# -- log and log1p ----------------------------------------------------------------------


def log_of(
    m: Emitter, y: ir.Value, correction: ir.Value | float, e_shift: ir.Value | int = 0
) -> ir.Value:
    """log(y 2^-e_shift + c) for a positive normal finite y and c = ``correction`` small
    next to the rounding of y (added to the small terms): y = 2^e m with m in
    [sqrt(1/2), sqrt(2)) by integer arithmetic on the bits, then log = e ln2 + log1p(m-1)."""
    sqrt_half = bits_of(0.70710678118654752440, m.double)
    shifted = m.isub(m.bits(y), sqrt_half)
    e = m.to_float(m.isub(m.iashr(shifted, m.mantissa), e_shift))
    mant = m.from_bits(m.iadd(m.iand(shifted, (1 << m.mantissa) - 1), sqrt_half))
    return _log_parts(m, e, m.sub(mant, 1.0), correction)


def _log_parts(m: Emitter, e: ir.Value, f: ir.Value, correction: ir.Value | float) -> ir.Value:
    """e ln2 + log1p(f) + correction, f in [sqrt(1/2) - 1, sqrt(2) - 1] exact."""
    ln2_hi, ln2_lo = split("ln2", m.double)
    s = m.div(f, m.add(2.0, f))
    z = m.mul(s, s)
    h = m.mul(m.mul(f, f), 0.5)
    r = m.mul(z, m.poly(z, LOG_F64 if m.double else _LOG_F32))
    small = m.fma(s, m.add(h, r), m.fma(e, ln2_lo, correction))
    return m.fma(e, ln2_hi, m.sub(f, m.sub(h, small)))


def log(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    shift = m.mantissa  # 2^mantissa makes every denormal normal
    denormal = m.cmp("<", x, m.min_normal)
    y = m.select(denormal, m.mul(x, 2.0**shift), x)
    result = log_of(m, y, 0.0, m.select(denormal, m.i(shift), m.i(0)))
    return log_specials(m, x, result, 0.0)


def log_specials(m: Emitter, x: ir.Value, result: ir.Value, pole: float) -> ir.Value:
    """-inf at x = ``pole``, NaN below it, inf at inf, NaN for NaN."""
    result = m.select(m.cmp("==", x, pole), -float("inf"), result)
    result = m.select(m.cmp("==", x, float("inf")), x, result)
    result = m.select(m.cmp("<", x, pole), DEFAULT_NAN, result)
    return m.keep_nan(x, result)


def log1p(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    u = m.add(x, 1.0)  # >= 2^-24 (f32) or 2^-53 (f64) for x > -1: never denormal
    correction = m.div(m.sub(x, m.sub(u, 1.0)), u)
    result = log_of(m, u, correction)
    result = m.select(m.cmp("==", x, 0.0), x, result)  # log1p(-0) = -0
    return log_specials(m, x, result, -1.0)


# -- tanh and logistic ------------------------------------------------------------------


def tanh(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    a = m.abs(x)
    if m.double:
        # e / (e + 2): the rounding of e + 2 and of the quotient, and e's error damped
        # by 2 / (e + 2): within 2 ULPs everywhere, no second polynomial needed.
        e = expm1_clamped(m, m.mul(m.min(a, 40.0), 2.0))
        value = m.div(e, m.add(e, 2.0))
    else:
        # Below 0.55 (tanh < 1/2) the quotient's roundings would cost up to 2.5 ULPs:
        # an odd polynomial there; above, 1 - 2/(e + 2) has its errors scaled by < 1/2.
        e_plus_2 = expm1_clamped(m, m.mul(m.min(a, 20.0), 2.0), plus=2.0)
        big = m.sub(1.0, m.div(2.0, e_plus_2))
        z = m.mul(a, a)
        small = m.fma(m.mul(a, z), m.poly(z, _TANH_F32), a)
        value = m.select(m.cmp("<", a, 0.55), small, big)
    return m.keep_nan(x, m.copysign(value, x))


def logistic(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1 / (1 + exp(-x)), as 1/(1+e) or e/(1+e) with e = exp(-|x|) <= 1 so nothing
    overflows; d = 1 + e is kept exactly as d + d_lo, and one Newton step corrects the
    quotient for d_lo and its own rounding."""
    m = Emitter(b, x.type)
    e = exp(b, m.neg(m.abs(x)))
    d = m.add(1.0, e)
    d_lo = m.sub(e, m.sub(d, 1.0))  # exact: d - 1 is exact for d in [1, 2]
    numerator = m.select(m.cmp("<", x, 0.0), e, 1.0)
    inverse = m.div(1.0, d)
    q = m.mul(numerator, inverse)
    residual = m.sub(m.fma(m.neg(q), d, numerator), m.mul(q, d_lo))
    return m.keep_nan(x, m.fma(residual, inverse, q))
