"""rsqrt, cbrt, erf and power as straight-line IR (accuracy table in ``math.approx``).

f32 versions compute in double and round once at the end: the extra precision makes them
(nearly) correctly rounded at half the vector width, cheaper than the careful f32
evaluation exp and log need, and it turns f32 denormals into normal doubles. f64 versions
use the same methods with more terms, and for power a double-double logarithm: an error
of 2^-53 in log x would become one of |y log x| 2^-53 (up to ~745 ULPs) in the result.
"""

from __future__ import annotations

from llvmlite import ir

from .exp_log import LOG_F64, exp_scaled, log_of
from .support import DEFAULT_NAN, F64, Emitter, bits_of, split

# Minimax coefficients from tools/fit_math_approx.py (names as there; _LP: for f32
# results, evaluated in double).
_ERF_SMALL_LP = [1.1283791659137685, -0.37612627136090404, 0.1128360017772067, -0.026854444654659606, 0.005189535460834818, -0.0008020842363052291, 7.889123151776999e-05]  # fmt: skip
_ERFCX_LP = [0.21080636385461632, -0.07434733750975127, 0.02493800169065489, -0.008001686873306888, 0.00246702848679014, -0.0007331707739165677, 0.000210990551874071, -5.950478932185534e-05, 1.605058504932596e-05, -3.7555342604453865e-06, 1.0019049668424593e-06, -4.251256728514932e-07, 9.918347010280228e-08]  # fmt: skip
_ERF_SMALL_F64 = [0.12837916709551256, -0.37612638903183754, 0.11283791670955108, -0.02686617064512664, 0.005223977625376015, -0.000854832701770264, 0.00012055332660229536, -1.4925638255434615e-05, 1.6461800279276017e-06, -1.636019118946989e-07, 1.473757005411714e-08, -1.172677946929944e-09, 6.665742844964608e-11]  # fmt: skip
_ERFCX_0_F64 = [0.3813040589667179, -0.22278202704955757, 0.11675040184536827, -0.05609394990544948, 0.025069418166323108, -0.010529606333799223, 0.004188503548447538, -0.0015873595040786018, 0.000575878525294825, -0.00020077936679728837, 6.749087004783112e-05, -2.1923339272347802e-05, 6.905590598036154e-06, -2.1802406133742104e-06, 6.449179997762223e-07]  # fmt: skip
_ERFCX_1_F64 = [0.2694299851646704, -0.11801672272799839, 0.048148630049673485, -0.018492027589904373, 0.006738039159299031, -0.002343281666694044, 0.0007814620115547184, -0.0002508686773232364, 7.777080632067562e-05, -2.3344213138216124e-05, 6.800146229607291e-06, -1.9250484317627733e-06, 5.312085294063869e-07, -1.4824129533172618e-07, 3.879451407992547e-08]  # fmt: skip
_ERFCX_2_F64 = [0.1936620962790687, -0.06323763756063484, 0.019758592987322743, -0.005934337896997469, 0.001719581885298219, -0.00048219508502204365, 0.000131181800288241, -3.469860843876472e-05, 8.940159045890023e-06, -2.247388049313684e-06, 5.519577148786826e-07, -1.325308699208698e-07, 3.1257285598244145e-08, -7.498883733113444e-09, 1.609012896050474e-09]  # fmt: skip
_ERFCX_3_F64 = [0.1411674197630518, -0.0343316639318612, 0.008132222027089698, -0.001879535717924493, 0.000424510560063651, -9.382291910584193e-05, 2.0315582891143164e-05, -4.314295405477811e-06, 8.99421584281136e-07, -1.8423304788879333e-07, 3.710614814808765e-08, -7.3450438787279244e-09, 1.4335221212513435e-09, -2.9061617806041234e-10, 5.489087121297484e-11]  # fmt: skip
_ERFCX_4_F64 = [0.1056127354688918, -0.01944544467214865, 0.0035241509401107737, -0.0006291014910425086, 0.00011068405608675557, -1.9204078673906922e-05, 3.2875474912350896e-06, -5.555580766714999e-07, 9.271787138692133e-08, -1.5287754419442773e-08, 2.488890783495186e-09, -4.010739717651201e-10, 6.716243727498204e-11, -1.0566008707756311e-11]  # fmt: skip
_ERFCX_F64 = [_ERFCX_0_F64, _ERFCX_1_F64, _ERFCX_2_F64, _ERFCX_3_F64, _ERFCX_4_F64]
# Ends of the erfcx pieces (their centres are the midpoints).
_ERFCX_EDGES = [0.875, 1.5, 2.25, 3.25, 4.5, 6.0]


def rsqrt(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """1 / sqrt(x), in double: exactly the interpreter's value (for f32, both round the
    double quotient once); rsqrt(-0) = -inf, rsqrt(x < 0) = NaN as IEEE's sqrt gives."""
    m = Emitter(b, x.type)
    d = m.other(F64)
    return m.narrow(d.div(1.0, d.sqrt(m.extend(x))), x.type)


def cbrt(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    """A first guess from the exponent bits divided by 3 (in floating point: vector
    integer division is slow), two Halley steps (cubic convergence: ~5% -> 1e-4 -> 1e-12)
    and, for f64, a Newton step with an exact residual."""
    m = Emitter(b, x.type)
    d = m.other(F64)
    a = d.abs(m.extend(x))
    # f64 denormals scaled by 2^54 (cbrt by 2^18), huge values by 2^-54 (y^3 stays finite).
    tiny = d.cmp("<", a, d.min_normal)
    huge = d.cmp(">", a, 2.0**900)
    scaled = d.mul(a, d.select(tiny, 2.0**54, d.select(huge, 2.0**-54, 1.0)))
    third = d.mul(b.sitofp(d.bits(scaled), F64), 1.0 / 3.0)
    y = d.from_bits(b.fptosi(d.add(third, float(_CBRT_BIAS)), d.int))
    for _ in range(2):
        y3 = d.mul(d.mul(y, y), y)
        y = d.mul(y, d.div(d.fma(scaled, 2.0, y3), d.fma(y3, 2.0, scaled)))
    if m.double:
        square = d.mul(y, y)
        residual = d.fma(d.fma(y, y, d.neg(square)), y, d.fma(square, y, d.neg(scaled)))
        y = d.sub(y, d.div(residual, d.mul(square, 3.0)))
    y = d.mul(y, d.select(tiny, 2.0**-18, d.select(huge, 2.0**18, 1.0)))
    result = m.copysign(m.narrow(y, x.type), x)
    special = b.or_(m.cmp("==", x, 0.0), m.cmp("==", m.abs(x), float("inf")))
    return m.keep_nan(x, m.select(special, x, result))


# bits(y0) = bits(a)/3 + _CBRT_BIAS: the exponent becomes (e + 1023)/3 + 682 = e/3 + 1023;
# the small offset below it centres the guess's relative error (about +-3.2%).
_CBRT_BIAS = (682 << 52) - 0x900000000000


def erf(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    m = Emitter(b, x.type)
    d = m.other(F64)
    xd = m.extend(x)
    a = d.abs(xd)
    if not m.double:
        # |x| < 1: x E(x^2); below 4: 1 - exp(-x^2) erfcx(x); past it 1 (in f32).
        small = d.mul(xd, d.poly(d.mul(xd, xd), _ERF_SMALL_LP))
        limited = d.min(a, 4.0)
        erfcx = d.poly(d.sub(limited, 2.5), _ERFCX_LP)
        big = d.sub(1.0, d.mul(exp_scaled(d, d.neg(d.mul(limited, limited))), erfcx))
        split_at, saturate = 1.0, 4.0
    else:
        small = d.fma(xd, d.poly(d.mul(xd, xd), _ERF_SMALL_F64), xd)
        limited = d.min(a, 6.0)
        # The piece's centre and coefficients, chosen by selects.
        above = [d.cmp(">=", limited, edge) for edge in _ERFCX_EDGES[1:-1]]

        def pick(values: list[float]) -> ir.Value:
            chosen = d.c(values[0])
            for flag, value in zip(above, values[1:], strict=True):
                chosen = d.select(flag, value, chosen)
            return chosen

        centres = [(lo + hi) / 2 for lo, hi in zip(_ERFCX_EDGES, _ERFCX_EDGES[1:], strict=False)]
        t = d.sub(limited, pick(centres))
        degree = max(len(c) for c in _ERFCX_F64)
        padded = [c + [0.0] * (degree - len(c)) for c in _ERFCX_F64]
        erfcx = d.poly(t, [pick([p[k] for p in padded]) for k in range(degree)])
        # exp(-x^2) with x^2 = h + l exactly.
        h = d.mul(limited, limited)
        low = d.fma(limited, limited, d.neg(h))
        big = d.sub(1.0, d.mul(exp_scaled(d, d.neg(h), d.neg(low)), erfcx))
        split_at, saturate = 0.875, 6.0
    big = d.select(d.cmp(">=", a, saturate), 1.0, big)
    result = d.select(d.cmp("<", a, split_at), small, d.copysign(big, xd))
    return m.keep_nan(x, m.narrow(result, x.type))


# -- power --------------------------------------------------------------------------------


def _two_sum(d: Emitter, x: ir.Value, y: ir.Value) -> tuple[ir.Value, ir.Value]:
    """s + e = x + y exactly, s = fl(x + y) (Knuth, any magnitudes)."""
    s = d.add(x, y)
    v = d.sub(s, x)
    return s, d.add(d.sub(x, d.sub(s, v)), d.sub(y, v))


def _log_double_double(d: Emitter, a: ir.Value) -> tuple[ir.Value, ir.Value]:
    """log a = hi + lo to ~2^-65 relative, for a positive finite double (denormals too).

    The same reduction as ``log_of`` (a = 2^e m, f = m - 1 exact, s = f/(2+f)), with
    every term carried as a sum of two doubles except the polynomial's terms past the
    first (~1e-5 of the result, so their rounding is far below 2^-65 of it)."""
    tiny = d.cmp("<", a, d.min_normal)
    y = d.select(tiny, d.mul(a, 2.0**52), a)
    sqrt_half = bits_of(0.70710678118654752440, True)
    shifted = d.isub(d.bits(y), sqrt_half)
    e_int = d.isub(d.iashr(shifted, 52), d.select(tiny, d.i(52), d.i(0)))
    e = d.to_float(e_int)
    f = d.sub(d.from_bits(d.iadd(d.iand(shifted, (1 << 52) - 1), sqrt_half)), 1.0)
    den = d.add(2.0, f)
    den_lo = d.sub(f, d.sub(den, 2.0))  # exact: |f| < 2
    s = d.div(f, den)
    s_lo = d.div(d.sub(d.fma(d.neg(s), den, f), d.mul(s, den_lo)), den)
    # R = z P(z), z = s^2: its leading term c0 z as a sum of two doubles too (R s is
    # ~0.3% of log a, so a plain R would cost 2^-60 of it).
    z = d.mul(s, s)
    z_lo = d.fma(d.add(s, s), s_lo, d.fma(s, s, d.neg(z)))
    r = d.mul(z, LOG_F64[0])
    r_lo = d.fma(
        d.mul(z, z), d.poly(z, LOG_F64[1:]), d.fma(z_lo, LOG_F64[0], d.fma(z, LOG_F64[0], d.neg(r)))
    )
    sq = d.mul(f, f)
    h, h_lo = d.mul(sq, 0.5), d.mul(d.fma(f, f, d.neg(sq)), 0.5)
    big_a, big_a_lo = _two_sum(d, h, r)
    big_a_lo = d.add(big_a_lo, d.add(h_lo, r_lo))
    t = d.mul(s, big_a)
    t_lo = d.add(d.fma(s, big_a, d.neg(t)), d.fma(s, big_a_lo, d.mul(s_lo, big_a)))
    u, u_err = _two_sum(d, f, d.neg(h))
    v, v_err = _two_sum(d, u, t)
    lo = d.add(d.add(u_err, v_err), d.sub(t_lo, h_lo))
    # e ln2 with ln2_hi of 42 bits, so that e ln2_hi (|e| < 2^11) is exact.
    w, w_err = _two_sum(d, d.mul(e, _LN2_HI42), v)
    lo = d.add(lo, d.fma(e, _LN2_LO42, w_err))
    hi = d.add(w, lo)
    return hi, d.sub(lo, d.sub(hi, w))


def power(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """x^y = exp(y log|x|) with C99's special cases: x^0 = 1 and 1^y = 1 (even for a quiet NaN),
    (-1)^+-inf = 1, a negative finite x to a finite non-integer power is NaN, and the
    sign of x (or of -0) survives an odd integer power."""
    m = Emitter(b, x.type)
    d = m.other(F64)
    xd, yd = m.extend(x), m.extend(y)
    a = d.abs(xd)
    if m.double:
        hi, lo = _log_double_double(d, a)
        t = d.mul(yd, hi)
        t_lo = d.fma(yd, lo, d.fma(yd, hi, d.neg(t)))
    else:  # f32 operands: |y log x| < 2^8 where it matters, so 2^-52 relative is plenty
        t, t_lo = d.mul(yd, log_of(d, a, 0.0)), None
    inf = float("inf")
    log_edge = d.select(d.cmp("==", a, 0.0), -inf, inf)  # log 0, log inf
    edge = b.or_(d.cmp("==", a, 0.0), d.cmp("==", a, inf))
    t = d.select(edge, d.mul(yd, log_edge), t)
    if t_lo is not None:
        t_lo = d.select(edge, 0.0, d.select(d.cmp("==", d.abs(t), inf), 0.0, t_lo))
    result = exp_scaled(d, t, t_lo)
    result = d.select(d.cmp(">", t, 0.0), d.select(d.cmp("==", t, inf), inf, result), result)
    # Signs: odd integer y keeps x's sign; negative x to a non-integer is NaN.
    integral = d.cmp("==", d.floor(yd), yd)
    half = d.mul(yd, 0.5)
    odd = b.and_(integral, d.cmp("!=", d.floor(half), half))
    negative = b.icmp_signed("<", d.bits(xd), d.i(0))
    result = d.select(b.and_(negative, odd), d.neg(result), result)
    finite_negative = b.and_(d.cmp("<", xd, 0.0), d.cmp(">", xd, -inf))
    y_finite = d.cmp("<", d.abs(yd), inf)
    invalid = b.and_(finite_negative, b.and_(y_finite, b.not_(integral)))
    result = d.select(invalid, DEFAULT_NAN, result)
    result = d.select(b.or_(d.is_nan(xd), d.is_nan(yd)), d.add(xd, yd), result)
    one = b.or_(d.cmp("==", yd, 0.0), d.cmp("==", xd, 1.0))
    one = b.or_(one, b.and_(d.cmp("==", xd, -1.0), d.cmp("==", d.abs(yd), inf)))
    # ...but a signaling NaN operand gives NaN, even there (glibc's pow, so numpy's).
    one = b.and_(one, b.not_(b.or_(_is_signaling(d, b, xd), _is_signaling(d, b, yd))))
    return m.narrow(d.select(one, 1.0, result), x.type)


def _is_signaling(d: Emitter, b: ir.IRBuilder, v: ir.Value) -> ir.Value:
    """A NaN whose quiet bit (the top mantissa bit) is clear; only double values get
    here, float ones having been quieted by their widening."""
    quiet = b.and_(d.bits(v), d.i(1 << 51))
    return b.and_(d.is_nan(v), b.icmp_unsigned("==", quiet, d.i(0)))


_LN2_HI42, _LN2_LO42 = split("ln2", True, hi_bits=42)

APPROXIMATIONS = {"rsqrt": rsqrt, "cbrt": cbrt, "erf": erf, "power": power}
