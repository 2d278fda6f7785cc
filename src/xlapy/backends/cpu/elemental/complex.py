"""Complex elementwise code: XLA's formulas on the two parts, as the interpreter has them.

A c64 (c128) value is a ``<2 x float>`` (``<2 x double>``) register holding (re, im), which
is also its layout in memory (numpy's interleaved pairs), so loads and stores need no
conversion. Every function here takes those vectors, splits them into parts in their
component type, and follows the formula of ``evaluator.kernels.elementwise_complex``
step by step: the naive product with XLA:CPU's fused multiply-adds, Smith's division and
its fix-ups, ``|z|`` as max * sqrt(1 + (min/max)^2), the polar square root, Kahan's special
cases of power... so that overflows, infinities, NaNs and signed zeros come out as the
interpreter's (and XLA's). The real functions inside (exp, sin, atan2...) are
``elemental.floating``'s, so results differ from the interpreter's by those functions'
documented ULPs, carried through the formula; the exact ops are bit for bit.

Complex functions XLA:CPU has no formula for (acos, asin, atan, their hyperbolic forms,
cosh, sinh) are Kahan's formulas with glibc's special values
(``complex_inverse``; ``complex_rules`` puts both in one table per opcode); cbrt is ``z^(1/3)`` as numpy's power computes it
(glibc's cpow, C99's special values) in c128, rounded once, which is the interpreter's
definition.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from llvmlite import ir

from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..llvm_types import F64, NotEmittable, llvm_type
from . import floating as flt
from .support import const, intrinsic, to_i8, unary_intrinsic

Op = HloOpcode
P = PrimitiveType
Parts = tuple[ir.Value, ir.Value]
_I32_0 = ir.Constant(ir.IntType(32), 0)
_I32_1 = ir.Constant(ir.IntType(32), 1)


# -- parts and real helpers --------------------------------------------------------------


def parts(b: ir.IRBuilder, z: ir.Value) -> Parts:
    return b.extract_element(z, _I32_0), b.extract_element(z, _I32_1)


def compose(b: ir.IRBuilder, re: ir.Value, im: ir.Value) -> ir.Value:
    vector = ir.VectorType(re.type, 2)
    return b.insert_element(
        b.insert_element(ir.Constant(vector, ir.Undefined), re, _I32_0), im, _I32_1
    )


class Real:
    """The real operations of the formulas, on one component type, with short names so
    that each formula reads like its numpy original."""

    def __init__(self, b: ir.IRBuilder, ty: ir.Type):
        self.b, self.ty = b, ty

    def c(self, value: float) -> ir.Constant:
        return const(self.ty, value)

    def add(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fadd(x, y)

    def sub(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fsub(x, y)

    def mul(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fmul(x, y)

    def div(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.fdiv(x, y)

    def neg(self, x: ir.Value) -> ir.Value:
        return self.b.fneg(x)

    def fma(self, x: ir.Value, y: ir.Value, z: ir.Value) -> ir.Value:
        return intrinsic(self.b, "llvm.fma", [self.ty], [x, y, z])

    def abs(self, x: ir.Value) -> ir.Value:
        return unary_intrinsic(self.b, "fabs", x)

    def sqrt(self, x: ir.Value) -> ir.Value:
        return unary_intrinsic(self.b, "sqrt", x)

    def copysign(self, magnitude: ir.Value | float, sign: ir.Value) -> ir.Value:
        if not isinstance(magnitude, ir.Value):
            magnitude = self.c(magnitude)
        return intrinsic(self.b, "llvm.copysign", [self.ty], [magnitude, sign])

    def max(self, x: ir.Value, y: ir.Value) -> ir.Value:  # NaN-propagating
        return intrinsic(self.b, "llvm.maximum", [self.ty], [x, y])

    def min(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return intrinsic(self.b, "llvm.minimum", [self.ty], [x, y])

    def fn(self, opcode: HloOpcode, *args: ir.Value) -> ir.Value:
        """A transcendental function of ``elemental.floating`` (correct to its ULPs)."""
        table = flt.UNARY if len(args) == 1 else flt.BINARY
        return table[opcode](self.b, *args)

    # predicates (i1) and selection
    def cmp(self, op: str, x: ir.Value, y: ir.Value | float) -> ir.Value:
        if not isinstance(y, ir.Value):
            y = self.c(y)
        return self.b.fcmp_ordered(op, x, y)

    def isnan(self, x: ir.Value) -> ir.Value:
        return self.b.fcmp_unordered("uno", x, x)

    def is_inf(self, x: ir.Value) -> ir.Value:
        return self.cmp("==", self.abs(x), math.inf)

    def where(self, flag: ir.Value, x: ir.Value | float, y: ir.Value | float) -> ir.Value:
        x = x if isinstance(x, ir.Value) else self.c(x)
        y = y if isinstance(y, ir.Value) else self.c(y)
        return self.b.select(flag, x, y)

    def and_(self, *flags: ir.Value) -> ir.Value:
        result = flags[0]
        for flag in flags[1:]:
            result = self.b.and_(result, flag)
        return result

    def or_(self, *flags: ir.Value) -> ir.Value:
        result = flags[0]
        for flag in flags[1:]:
            result = self.b.or_(result, flag)
        return result

    def not_(self, flag: ir.Value) -> ir.Value:
        return self.b.not_(flag)


def _r(b: ir.IRBuilder, z: ir.Value) -> Real:
    return Real(b, z.type.element)


# -- arithmetic --------------------------------------------------------------------------


def add(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.fadd(x, y)


def subtract(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.fsub(x, y)


def negate(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.fneg(x)


def multiply(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """(ar br - ai bi) + (ar bi + ai br)i with the FMAs XLA:CPU's code gets."""
    r = _r(b, x)
    (ar, ai), (br, bi) = parts(b, x), parts(b, y)
    return compose(b, r.fma(ar, br, r.neg(r.mul(ai, bi))), r.fma(ai, br, r.mul(ar, bi)))


def divide(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """Smith's algorithm, then XLA's fix-ups where it gives (NaN, NaN)."""
    r = _r(b, x)
    (ar, ai), (br, bi) = parts(b, x), parts(b, y)
    r_over_i = r.div(br, bi)
    r_over_i_denom = r.fma(r_over_i, br, bi)
    i_over_r = r.div(bi, br)
    i_over_r_denom = r.fma(i_over_r, bi, br)
    br_abs, bi_abs = r.abs(br), r.abs(bi)
    r_lt_i = r.cmp("<", br_abs, bi_abs)
    cr = r.where(
        r_lt_i,
        r.div(r.fma(r_over_i, ar, ai), r_over_i_denom),
        r.div(r.fma(i_over_r, ai, ar), i_over_r_denom),
    )
    ci = r.where(
        r_lt_i,
        r.div(r.fma(r_over_i, ai, r.neg(ar)), r_over_i_denom),
        r.div(r.fma(r.neg(i_over_r), ar, ai), i_over_r_denom),
    )
    # 1. a zero denominator: infinities signed by the numerator (and b's real part)
    not_both_nan = r.or_(r.not_(r.isnan(ar)), r.not_(r.isnan(ai)))
    zero_denominator = r.and_(r.cmp("==", br_abs, 0.0), r.cmp("==", bi_abs, 0.0), not_both_nan)
    signed_inf = r.copysign(math.inf, br)
    zero_r, zero_i = r.mul(signed_inf, ar), r.mul(signed_inf, ai)
    # 2. an infinite numerator over a finite denominator
    ar_abs, ai_abs = r.abs(ar), r.abs(ai)
    ar_inf, ai_inf = r.cmp("==", ar_abs, math.inf), r.cmp("==", ai_abs, math.inf)
    inf_over_finite = r.and_(
        r.or_(ar_inf, ai_inf),
        r.b.fcmp_unordered("!=", br_abs, r.c(math.inf)),
        r.b.fcmp_unordered("!=", bi_abs, r.c(math.inf)),
        r.not_(r.isnan(br)),
        r.not_(r.isnan(bi)),
    )
    ar_unit = r.copysign(r.where(ar_inf, 1.0, 0.0), ar)
    ai_unit = r.copysign(r.where(ai_inf, 1.0, 0.0), ai)
    inf = r.c(math.inf)
    inf_r = r.mul(inf, r.add(r.mul(ar_unit, br), r.mul(ai_unit, bi)))
    inf_i = r.mul(inf, r.sub(r.mul(ai_unit, br), r.mul(ar_unit, bi)))
    # 3. a finite numerator over an infinite denominator
    br_inf, bi_inf = r.cmp("==", br_abs, math.inf), r.cmp("==", bi_abs, math.inf)
    finite_over_inf = r.and_(
        r.or_(br_inf, bi_inf),
        r.b.fcmp_unordered("!=", ar_abs, inf),
        r.b.fcmp_unordered("!=", ai_abs, inf),
        r.not_(r.isnan(ar)),
        r.not_(r.isnan(ai)),
    )
    br_unit = r.copysign(r.where(br_inf, 1.0, 0.0), br)
    bi_unit = r.copysign(r.where(bi_inf, 1.0, 0.0), bi)
    zero = r.c(0.0)
    fin_r = r.mul(zero, r.add(r.mul(ar, br_unit), r.mul(ai, bi_unit)))
    fin_i = r.mul(zero, r.sub(r.mul(ai, br_unit), r.mul(ar, bi_unit)))
    both_nan = r.and_(r.isnan(cr), r.isnan(ci))

    def fix(value: ir.Value, z: ir.Value, i: ir.Value, f: ir.Value) -> ir.Value:
        fixed = r.where(
            zero_denominator, z, r.where(inf_over_finite, i, r.where(finite_over_inf, f, value))
        )
        return r.where(both_nan, fixed, value)

    return compose(b, fix(cr, zero_r, inf_r, fin_r), fix(ci, zero_i, inf_i, fin_i))


def _abs_parts(r: Real, re: ir.Value, im: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
    """(min, max, 1 + (min/max)^2) of the parts' magnitudes, as XLA's abs helper."""
    a, c = r.abs(re), r.abs(im)
    big, small = r.max(a, c), r.min(a, c)  # NaN-propagating, as the formula wants
    ratio = r.div(small, big)
    return small, big, r.fma(ratio, ratio, r.c(1.0))


def _abs(r: Real, re: ir.Value, im: ir.Value) -> ir.Value:
    small, big, one_plus = _abs_parts(r, re, im)
    result = r.mul(big, r.sqrt(one_plus))
    return r.where(r.isnan(result), small, result)


def absolute(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """|z| = max * sqrt(1 + (min/max)^2); min where that is NaN (0, inf, NaN parts)."""
    return _abs(_r(b, z), *parts(b, z))


def sign(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    r = _r(b, z)
    re, im = parts(b, z)
    magnitude = _abs(r, re, im)
    is_zero = r.cmp("==", magnitude, 0.0)
    return compose(
        b, r.where(is_zero, 0.0, r.div(re, magnitude)), r.where(is_zero, 0.0, r.div(im, magnitude))
    )


def maximum(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """By real parts (ties keep the lhs; a NaN real part picks the rhs)."""
    return b.select(_r(b, x).cmp(">=", parts(b, x)[0], parts(b, y)[0]), x, y)


def minimum(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    return b.select(_r(b, x).cmp("<=", parts(b, x)[0], parts(b, y)[0]), x, y)


# -- functions ---------------------------------------------------------------------------


def exp(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """e^a (cos b + i sin b); a zero b gives a zero imaginary part even for e^a = inf/NaN."""
    r = _r(b, z)
    a, c = parts(b, z)
    exp_a = r.fn(Op.EXPONENTIAL, a)
    imag = r.where(r.cmp("==", c, 0.0), 0.0, r.mul(exp_a, r.fn(Op.SINE, c)))
    return compose(b, r.mul(exp_a, r.fn(Op.COSINE, c)), imag)


def expm1(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    r = _r(b, z)
    a, c = parts(b, z)
    expm1_a = r.fn(Op.EXPONENTIAL_MINUS_ONE, a)
    half_sin = r.fn(Op.SINE, r.mul(c, r.c(0.5)))
    cos_c_m1 = r.mul(r.c(-2.0), r.mul(half_sin, half_sin))
    real = r.add(r.mul(expm1_a, r.add(cos_c_m1, r.c(1.0))), cos_c_m1)
    imag = r.where(r.cmp("==", c, 0.0), 0.0, r.mul(r.add(expm1_a, r.c(1.0)), r.fn(Op.SINE, c)))
    return compose(b, real, imag)


def log(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    r = _r(b, z)
    a, c = parts(b, z)
    return compose(b, r.fn(Op.LOG, _abs(r, a, c)), r.fn(Op.ATAN2, c, a))


def log1p(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    r = _r(b, z)
    a, c = parts(b, z)
    a1 = r.add(a, r.c(1.0))
    abs_a1, abs_c = r.abs(a1), r.abs(c)
    big, small = r.max(abs_a1, abs_c), r.min(abs_a1, abs_c)
    big_m1 = r.where(r.cmp(">", a1, abs_c), a, r.sub(big, r.c(1.0)))
    ratio = r.div(small, big)
    value = r.add(
        r.mul(r.c(0.5), r.fn(Op.LOG_PLUS_ONE, r.mul(ratio, ratio))),
        r.fn(Op.LOG_PLUS_ONE, big_m1),
    )
    real = r.where(r.cmp("==", big, 0.0), -math.inf, r.where(r.isnan(value), small, value))
    return compose(b, real, r.fn(Op.ATAN2, c, a1))


def sqrt(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """The principal root from t = sqrt((|a| + |z|) / 2), with XLA:CPU's special values."""
    r = _r(b, z)
    a, c = parts(b, z)
    half = r.c(0.5)
    t = r.sqrt(r.add(r.mul(r.abs(a), half), r.mul(_abs(r, a, c), half)))
    across = r.div(r.abs(c), r.add(t, t))
    sign_c = r.where(r.cmp("<", c, 0.0), -1.0, 1.0)
    a_nonneg = r.cmp(">=", a, 0.0)
    real = r.where(a_nonneg, t, across)
    imag = r.mul(sign_c, r.where(a_nonneg, across, t))
    t_zero = r.cmp("==", t, 0.0)
    real, imag = r.where(t_zero, 0.0, real), r.where(t_zero, 0.0, imag)
    c_inf = r.is_inf(c)
    real, imag = r.where(c_inf, math.inf, real), r.where(c_inf, c, imag)
    nan = r.or_(r.isnan(a), r.isnan(c))
    return compose(b, r.where(nan, math.nan, real), r.where(nan, math.nan, imag))


def _rsqrt_real(r: Real, x: ir.Value) -> ir.Value:
    return r.fn(Op.RSQRT, x)


def rsqrt(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    r = _r(b, z)
    a, c = parts(b, z)
    small, big, one_plus = _abs_parts(r, a, c)
    magnitude = r.mul(_rsqrt_real(r, big), _rsqrt_real(r, r.sqrt(one_plus)))
    magnitude = r.where(r.isnan(magnitude), _rsqrt_real(r, small), magnitude)
    angle = r.mul(r.fn(Op.ATAN2, c, a), r.c(-0.5))
    cos, sin = r.fn(Op.COSINE, angle), r.fn(Op.SINE, angle)
    zero_zero = r.and_(r.cmp("==", a, 0.0), r.cmp("==", c, 0.0))
    at_infinity = r.or_(r.and_(r.is_inf(c), r.isnan(a)), r.is_inf(a))
    real = r.where(
        zero_zero, math.inf, r.where(at_infinity, r.copysign(0.0, a), r.mul(magnitude, cos))
    )
    imag = r.where(
        zero_zero,
        math.nan,
        r.where(at_infinity, r.neg(r.copysign(0.0, c)), r.mul(magnitude, sin)),
    )
    return compose(b, real, imag)


def power(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """|x|^c * exp(-d arg x) * (cos q + i sin q), q = c arg x + d ln|x|, with Kahan's
    special cases (see the interpreter's ``power``)."""
    r = _r(b, x)
    (a, bb), (c, d) = parts(b, x), parts(b, y)
    magnitude = _abs(r, a, bb)
    angle = r.fn(Op.ATAN2, bb, a)
    coeff = r.mul(r.fn(Op.POWER, magnitude, c), r.fn(Op.EXPONENTIAL, r.mul(r.neg(d), angle)))
    q = r.add(r.mul(c, angle), r.mul(d, r.fn(Op.LOG, magnitude)))
    re, im = r.mul(coeff, r.fn(Op.COSINE, q)), r.mul(coeff, r.fn(Op.SINE, q))
    d_zero = r.cmp("==", d, 0.0)
    zero_base = r.and_(r.cmp("==", magnitude, 0.0), d_zero, r.cmp(">=", c, 0.0))
    re = r.where(zero_base, r.where(r.cmp("==", c, 0.0), 1.0, 0.0), re)
    im = r.where(zero_base, 0.0, im)
    b_zero = r.cmp("==", bb, 0.0)
    a_inf = r.cmp("==", a, math.inf)
    for condition, value in (
        (r.and_(r.cmp("==", c, 0.0), d_zero), 1.0),
        (r.and_(r.cmp("==", a, 1.0), b_zero), 1.0),
        (r.and_(a_inf, b_zero, d_zero, r.cmp(">", c, 0.0)), math.inf),
        (r.and_(a_inf, b_zero, d_zero, r.cmp("<", c, 0.0)), 0.0),
    ):
        re, im = r.where(condition, value, re), r.where(condition, 0.0, im)
    return compose(b, re, im)


def _tanh_parts(r: Real, a: ir.Value, c: ir.Value) -> Parts:
    four = r.c(4.0)
    exp_2a_m1 = r.fn(Op.EXPONENTIAL_MINUS_ONE, r.add(a, a))
    exp_neg_2a_m1 = r.fn(Op.EXPONENTIAL_MINUS_ONE, r.neg(r.add(a, a)))
    real_numerator = r.sub(exp_2a_m1, exp_neg_2a_m1)
    cos_c, sin_c = r.fn(Op.COSINE, c), r.fn(Op.SINE, c)
    imag_numerator = r.mul(four, r.mul(cos_c, sin_c))
    exp_sum_m2 = r.add(exp_2a_m1, exp_neg_2a_m1)
    denominator = r.add(exp_sum_m2, r.mul(r.mul(cos_c, cos_c), four))
    real = r.where(
        r.cmp("==", exp_sum_m2, math.inf), r.copysign(1.0, a), r.div(real_numerator, denominator)
    )
    imag = r.div(imag_numerator, denominator)
    a_is_inf = r.is_inf(a)
    sin_2c_nan = r.isnan(imag_numerator)
    real = r.where(r.and_(sin_2c_nan, r.not_(a_is_inf)), math.nan, real)
    imag = r.where(r.or_(r.cmp("==", c, 0.0), r.and_(a_is_inf, sin_2c_nan)), 0.0, imag)
    return real, imag


def tanh(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """(e^2a - e^-2a + 2i sin 2b) / (e^2a + e^-2a + 2 cos 2b), with XLA's limits."""
    return compose(b, *_tanh_parts(_r(b, z), *parts(b, z)))


def tan(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """-i tanh(iz)."""
    r = _r(b, z)
    a, c = parts(b, z)
    real, imag = _tanh_parts(r, r.neg(c), a)
    return compose(b, imag, r.neg(real))


def _sin_cos(b: ir.IRBuilder, z: ir.Value, of_sin: bool) -> ir.Value:
    r = _r(b, z)
    x, y = parts(b, z)
    half = r.c(0.5)
    exp_y = r.fn(Op.EXPONENTIAL, y)
    half_exp_y, half_exp_neg_y = r.mul(half, exp_y), r.div(half, exp_y)
    sinh_y, cosh_y = r.sub(half_exp_y, half_exp_neg_y), r.add(half_exp_y, half_exp_neg_y)
    sin_x, cos_x = r.fn(Op.SINE, x), r.fn(Op.COSINE, x)
    if of_sin:
        return compose(b, r.mul(sin_x, cosh_y), r.mul(cos_x, sinh_y))
    return compose(b, r.mul(cos_x, cosh_y), r.mul(sin_x, r.sub(half_exp_neg_y, half_exp_y)))


def sin(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    return _sin_cos(b, z, of_sin=True)


def cos(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    return _sin_cos(b, z, of_sin=False)


def _constant(z: ir.Value, re: float, im: float) -> ir.Value:
    return ir.Constant(z.type, [re, im])


def logistic(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """1 / (1 + e^-z), each step as XLA computes it."""
    one = _constant(z, 1.0, 0.0)
    return divide(b, one, add(b, one, exp(b, negate(b, z))))


def atan2(b: ir.IRBuilder, y: ir.Value, x: ir.Value) -> ir.Value:
    """-i log((x + iy) / sqrt(x^2 + y^2)), each step as XLA computes it."""
    sum_of_squares = add(b, multiply(b, x, x), multiply(b, y, y))
    numerator = add(b, x, multiply(b, _constant(x, 0.0, 1.0), y))
    ratio = divide(b, numerator, sqrt(b, sum_of_squares))
    return multiply(b, _constant(x, 0.0, -1.0), log(b, ratio))


def _c_exp(r: Real, x: ir.Value, y: ir.Value) -> Parts:
    """C99's cexp (Annex G's special values, as glibc, which numpy calls)."""
    e = r.fn(Op.EXPONENTIAL, x)
    re, im = r.mul(e, r.fn(Op.COSINE, y)), r.mul(e, r.fn(Op.SINE, y))
    im = r.where(r.cmp("==", y, 0.0), y, im)  # +-0 kept, even beside inf or NaN
    y_not_finite = r.not_(r.cmp("<", r.abs(y), math.inf))
    to_inf = r.and_(r.cmp("==", x, math.inf), y_not_finite)
    to_zero = r.and_(r.cmp("==", x, -math.inf), y_not_finite)
    re = r.where(to_inf, math.inf, r.where(to_zero, 0.0, re))
    im = r.where(to_inf, math.nan, r.where(to_zero, 0.0, im))
    return re, im


def cbrt(b: ir.IRBuilder, z: ir.Value) -> ir.Value:
    """The principal root as the interpreter's ``numpy.power(z, 1/3)`` in c128, rounded
    once: 0 at 0, else glibc's cpow, cexp((1/3) clog z), with C's special values."""
    wide = z if z.type.element == F64 else b.fpext(z, ir.VectorType(F64, 2))
    r = Real(b, F64)
    a, c = parts(b, wide)
    any_inf = r.or_(r.is_inf(a), r.is_inf(c))
    log_re = r.where(any_inf, math.inf, r.fn(Op.LOG, _abs(r, a, c)))
    log_im = r.fn(Op.ATAN2, c, a)
    third, zero = r.c(1.0 / 3.0), r.c(0.0)
    w_re = r.sub(r.mul(third, log_re), r.mul(zero, log_im))  # C's (1/3 + 0i) * log z
    w_im = r.add(r.mul(third, log_im), r.mul(zero, log_re))
    w_re = r.where(any_inf, math.inf, w_re)  # libgcc's __muldc3 recovers inf from (NaN, NaN)
    re, im = _c_exp(r, w_re, w_im)
    at_zero = r.and_(r.cmp("==", a, 0.0), r.cmp("==", c, 0.0))
    root = compose(b, r.where(at_zero, 0.0, re), r.where(at_zero, 0.0, im))
    return root if z.type.element == F64 else b.fptrunc(root, z.type)


UNARY: dict[HloOpcode, Callable[[ir.IRBuilder, ir.Value], ir.Value]] = {
    Op.NEGATE: negate,
    Op.COPY: lambda b, z: z,
    Op.SIGN: sign,
    Op.EXPONENTIAL: exp,
    Op.EXPONENTIAL_MINUS_ONE: expm1,
    Op.LOG: log,
    Op.LOG_PLUS_ONE: log1p,
    Op.SQRT: sqrt,
    Op.RSQRT: rsqrt,
    Op.CBRT: cbrt,
    Op.TANH: tanh,
    Op.TAN: tan,
    Op.SINE: sin,
    Op.COSINE: cos,
    Op.LOGISTIC: logistic,
}

BINARY: dict[HloOpcode, Callable[[ir.IRBuilder, ir.Value, ir.Value], ir.Value]] = {
    Op.ADD: add,
    Op.SUBTRACT: subtract,
    Op.MULTIPLY: multiply,
    Op.DIVIDE: divide,
    Op.MAXIMUM: maximum,
    Op.MINIMUM: minimum,
    Op.POWER: power,
    Op.ATAN2: atan2,
}


def compare(b: ir.IRBuilder, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
    """EQ and NE (complex numbers have no order), as a pred: equal when both parts are."""
    if op not in ("==", "!="):
        raise NotEmittable("complex values have no order to compare by")
    (xr, xi), (yr, yi) = parts(b, x), parts(b, y)
    if op == "==":
        return to_i8(b, b.and_(b.fcmp_ordered("==", xr, yr), b.fcmp_ordered("==", xi, yi)))
    return to_i8(b, b.or_(b.fcmp_unordered("!=", xr, yr), b.fcmp_unordered("!=", xi, yi)))


# -- conversions -------------------------------------------------------------------------

Convert = Callable[[ir.IRBuilder, ir.Value, PrimitiveType, PrimitiveType], ir.Value]


def convert(
    b: ir.IRBuilder, value: ir.Value, src: PrimitiveType, dst: PrimitiveType, real: Convert
) -> ir.Value:
    """To a complex type: the parts converted (a real number's imaginary part is 0).
    ``real`` converts between real types. Complex to real is not a convert in XLA."""
    if not dst.is_complex:
        raise NotEmittable(f"convert from {src.hlo_name} to {dst.hlo_name}")
    part = dst.component_type
    if src.is_complex:
        if src == dst:
            return value
        wider = src.component_type.bit_width < part.bit_width
        return b.fpext(value, llvm_type(dst)) if wider else b.fptrunc(value, llvm_type(dst))
    re = real(b, value, src, part)
    return compose(b, re, const(re.type, 0.0))


__all__ = [
    "BINARY",
    "UNARY",
    "Real",
    "absolute",
    "compare",
    "compose",
    "convert",
    "parts",
    "sqrt",
]
