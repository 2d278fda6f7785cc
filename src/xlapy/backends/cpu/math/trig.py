"""sine, cosine, tan and atan2 as straight-line IR (accuracy table in ``math.approx``).

The reduction x = k pi/2 + r must stay exact for every finite x, 1e300 included: a
Cody-Waite split of pi/2 runs out of bits past ~2^20. So every argument goes through a
branch-free Payne-Hanek reduction in double arithmetic: 2/pi is stored as 24-bit chunks
(a table of doubles, computed here from pi to 1250 bits), x times each chunk is exact
(x's 24 or 26/27 bits times 24 bits), products that are multiples of 4 are dropped by
starting at the chunk x's exponent selects (a gather from the table; selects for f32),
and the products' fractions mod 4 are added exactly on fixed grids (bits above 2^-46,
bits above 2^-94, the rest). That yields the quadrant and the fraction as a sum of two
doubles even when x lies within 2^-61 of a multiple of pi/2, the closest any double
comes.

The price is speed: ~0.2 G elements/s for f32 sine, where numpy's SIMD sinf (a short
reduction, with a scalar path for large x) does ~1.5. A fast path for small |x| needs a
branch on the whole vector, which these emitters cannot make.

f32 computes in double (the reduction needs only five products there); f64 splits x in
two halves of 26 and 27 bits. sin and cos of the reduced argument are minimax
polynomials on [-pi/4, pi/4]; tan is their quotient. atan2 reduces to |u| <= tan(pi/8)
by the octant and atan(t) = pi/4 + atan((t-1)/(t+1)), with IEEE's special cases.
"""

from __future__ import annotations

from llvmlite import ir

from .support import DEFAULT_NAN, F64, I32, Emitter, split, two_pi_bits

# Minimax coefficients from tools/fit_math_approx.py (names as there; _LP: for f32
# results, evaluated in double).
_SIN_LP = [-0.16666666641618935, 0.008333329384992913, -0.00019839334543437638, 2.718308670383917e-06]  # fmt: skip
_COS_LP = [0.04166666662281409, -0.0013888883752188254, 2.4799519681938488e-05, -2.721021042811373e-07]  # fmt: skip
_SIN_F64 = [-0.16666666666666666, 0.008333333333333323, -0.0001984126984125381, 2.7557319213219405e-06, -2.5052104624109355e-08, 1.6058328863388263e-10, -7.576850130569568e-13]  # fmt: skip
_COS_F64 = [0.041666666666666664, -0.0013888888888888887, 2.480158730158347e-05, -2.755731922116453e-07, 2.087675582265782e-09, -1.1470475597043857e-11, 4.747065215902825e-14]  # fmt: skip
_ATAN_LP = [-0.333333332964224, 0.19999994404759266, -0.14285426564439205, 0.1110405463876161, -0.08997282943484759, 0.06993117218826195, -0.03795618061830796]  # fmt: skip
_ATAN_F64 = [-0.3333333333333333, 0.19999999999998544, -0.14285714285469425, 0.11111111091880925, -0.09090908239041023, 0.07692284189706448, -0.06666239489793586, 0.05877079702525132, -0.052184258801162384, 0.045024630722415984, -0.033426599216191746, 0.01512754286866618]  # fmt: skip

_CHUNK_BITS = 24
_CHUNKS = 52  # 1248 bits of 2/pi: enough for the largest double's exponent
_BITS = two_pi_bits(_CHUNK_BITS * _CHUNKS)
# Chunk j is _TWO_OVER_PI[j] 2^(-24 j): the scale is applied to x (chunks past 2^-1074
# would not be doubles).
_TWO_OVER_PI = [
    ((_BITS >> (_CHUNK_BITS * (_CHUNKS - 1 - j))) & ((1 << _CHUNK_BITS) - 1)) * 2.0**-_CHUNK_BITS
    for j in range(_CHUNKS)
]
_PIO2_HI, _PIO2_LO = split("pi/2", True)
_PIO4_HI, _PIO4_LO = split("pi/4", True)
_PI_HI, _PI_LO = split("pi", True)


def _table(d: Emitter) -> ir.GlobalVariable:
    module = d.b.block.function.module
    name = "xlapy.math.two_over_pi_chunks"
    table = module.globals.get(name)
    if table is None:
        ty = ir.ArrayType(F64, _CHUNKS)
        table = ir.GlobalVariable(module, ty, name)
        table.initializer = ir.Constant(ty, [ir.Constant(F64, v) for v in _TWO_OVER_PI])
        table.global_constant = True
        table.linkage = "internal"
    return table


def _reduce(d: Emitter, a: ir.Value, precision: int) -> tuple[ir.Value, ir.Value, ir.Value]:
    """For a finite double a >= 0 with ``precision`` significant bits (24 or 53): (q, f,
    f_lo) with a 2/pi = 4k + q + f + f_lo, q in 0..3 (an i32), |f| <= 1/2 + 2^-40."""
    b = d.b
    exponent = d.isub(d.iand(d.b.lshr(d.bits(a), d.i(52)), 0x7FF), 1023)
    # Chunks below ``first`` make multiples of 4 (their products' lowest bit is >= 4);
    # rounding down in the division costs one more chunk, which reduces to 0 exactly.
    start = d.floor(d.mul(d.to_float(d.isub(exponent, precision + 25)), 1.0 / 24.0))
    first = b.fptosi(d.max(d.add(start, 1.0), 0.0), I32)
    count = 5 if precision <= 24 else 9
    if precision <= 24:
        parts = [a]
    else:
        high = d.from_bits(d.iand(d.bits(a), ~((1 << 27) - 1)))
        parts = [high, d.sub(a, high)]
    # x 2^(-24 first): exact, and about 2^78 at most where ``first`` > 0.
    scale = d.pow2(b.sext(b.mul(first, ir.Constant(I32, -_CHUNK_BITS)), d.int))
    parts = [d.mul(part, scale) for part in parts]
    table = _table(d) if precision > 24 else None
    grid_a, grid_b = [], []
    rest = None
    for j in range(count):
        if precision <= 24:
            # f32: first is 0..4, so selects beat a gather (slow on x86).
            chunk = d.c(_TWO_OVER_PI[j])
            for start_at in range(1, 5):
                is_here = b.icmp_signed(">=", first, ir.Constant(I32, start_at))
                chunk = d.select(is_here, _TWO_OVER_PI[start_at + j], chunk)
        else:
            index = b.add(first, ir.Constant(I32, j))
            chunk = b.load(b.gep(table, [ir.Constant(I32, 0), index], inbounds=True))
        for part in parts:
            p = d.mul(d.mul(part, chunk), 2.0 ** (-_CHUNK_BITS * j))  # exact
            p = d.fma(d.floor(d.mul(p, 0.25)), -4.0, p)  # mod 4, exact
            high_part = d.sub(d.add(p, 1.5 * 2.0**6), 1.5 * 2.0**6)  # multiple of 2^-46
            remainder = d.sub(p, high_part)
            mid_part = d.sub(d.add(remainder, 1.5 * 2.0**-42), 1.5 * 2.0**-42)  # of 2^-94
            low_part = d.sub(remainder, mid_part)
            grid_a.append(high_part)
            grid_b.append(mid_part)
            rest = low_part if rest is None else d.add(rest, low_part)
    total_a, total_b = grid_a[0], grid_b[0]
    for value in grid_a[1:]:
        total_a = d.add(total_a, value)  # exact: multiples of 2^-46 below 2^7
    for value in grid_b[1:]:
        total_b = d.add(total_b, value)  # exact: multiples of 2^-94 below 2^-42
    k = d.rint(total_a)
    frac = d.sub(total_a, k)  # exact
    s = d.add(frac, total_b)
    err = d.add(d.sub(frac, s), total_b)  # exact (|frac| >= |total_b| or frac = 0)
    tail = d.add(err, rest)
    f = d.add(s, tail)
    f_lo = d.sub(tail, d.sub(f, s))
    q = b.and_(b.fptosi(k, I32), ir.Constant(I32, 3))
    return q, f, f_lo


def _sin_cos(d: Emitter, r: ir.Value, r_lo: ir.Value, double: bool) -> tuple[ir.Value, ir.Value]:
    """sin and cos of r + r_lo, |r| <= pi/4 (+ a hair)."""
    z = d.mul(r, r)
    if not double:
        sin = d.fma(d.mul(r, z), d.poly(z, _SIN_LP), r)
        cos = d.fma(d.mul(z, z), d.poly(z, _COS_LP), d.fma(z, -0.5, 1.0))
        return sin, cos
    sin = d.add(r, d.fma(d.mul(r, z), d.poly(z, _SIN_F64), d.mul(r_lo, d.fma(z, -0.5, 1.0))))
    half = d.mul(z, 0.5)
    w = d.sub(1.0, half)
    small = d.fma(d.mul(z, z), d.poly(z, _COS_F64), d.neg(d.mul(r, r_lo)))
    cos = d.add(w, d.add(d.sub(d.sub(1.0, w), half), small))
    return sin, cos


def _trig(b: ir.IRBuilder, x: ir.Value, which: str) -> ir.Value:
    m = Emitter(b, x.type)
    d = m.other(F64)
    xd = m.extend(x)
    a = d.abs(xd)
    finite = d.cmp("<", a, float("inf"))
    q, f, f_lo = _reduce(d, d.select(finite, a, 0.0), 53 if m.double else 24)
    r = d.mul(f, _PIO2_HI)
    r_lo = d.fma(f, _PIO2_LO, d.fma(f_lo, _PIO2_HI, d.fma(f, _PIO2_HI, d.neg(r))))
    sin, cos = _sin_cos(d, r, r_lo, m.double)
    odd = b.icmp_unsigned("!=", b.and_(q, ir.Constant(I32, 1)), ir.Constant(I32, 0))
    negative_x = b.icmp_signed("<", d.bits(xd), d.i(0))
    if which == "sine":
        value = d.select(odd, cos, sin)
        flip = b.xor(negative_x, b.icmp_unsigned(">=", q, ir.Constant(I32, 2)))
    elif which == "cosine":
        value = d.select(odd, sin, cos)
        q1 = b.add(q, ir.Constant(I32, 1))
        flip = b.icmp_unsigned(">=", b.and_(q1, ir.Constant(I32, 3)), ir.Constant(I32, 2))
    else:
        value = d.div(d.select(odd, cos, sin), d.select(odd, d.neg(sin), cos))
        flip = negative_x
    value = d.select(flip, d.neg(value), value)
    if m.double:  # below 2^-27, sin x = tan x = x and cos x = 1 once rounded
        tiny = d.cmp("<", a, 2.0**-27)
        value = d.select(tiny, 1.0 if which == "cosine" else xd, value)
    value = d.select(finite, value, DEFAULT_NAN)
    return m.keep_nan(x, m.narrow(value, x.type))


def sine(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _trig(b, x, "sine")


def cosine(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _trig(b, x, "cosine")


def tan(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return _trig(b, x, "tan")


def atan2(b: ir.IRBuilder, y: ir.Value, x: ir.Value) -> ir.Value:
    """atan2(y, x) (HLO's lhs, rhs) in double, rounded once for f32."""
    m = Emitter(b, x.type)
    d = m.other(F64)
    yd, xd = m.extend(y), m.extend(x)
    ay, ax = d.abs(yd), d.abs(xd)
    swap = d.cmp(">", ay, ax)
    num, den = d.min(ay, ax), d.max(ay, ax)
    # 0/0 and inf/inf: the angle is that of t = 0 and t = 1 (0 or pi; pi/4 or 3pi/4).
    both_inf = d.cmp("==", num, float("inf"))
    num = d.select(both_inf, 1.0, num)
    den = d.select(both_inf, 1.0, d.select(d.cmp("==", den, 0.0), 1.0, den))
    t = d.div(num, den)
    big = d.cmp(">", t, 0.41421356237309503)
    # (num - den)/(num + den), halved above 1 so that num + den cannot overflow.
    half = d.select(d.cmp(">", den, 1.0), 0.5, 1.0)
    u = d.div(d.mul(d.sub(num, den), half), d.fma(num, half, d.mul(den, half)))
    u = d.select(big, u, t)
    z = d.mul(u, u)
    coefficients = _ATAN_F64 if m.double else _ATAN_LP
    atan_u = d.fma(d.mul(u, z), d.poly(z, coefficients), u)
    # theta = base + atan(u), base = pi/4 or 0, carried as hi + lo.
    hi = d.select(big, _PIO4_HI, 0.0)
    lo = d.select(big, _PIO4_LO, 0.0)
    theta = d.add(hi, d.add(lo, atan_u))
    theta_lo = d.sub(d.add(lo, atan_u), d.sub(theta, hi))
    # pi/2 - theta if swapped, then pi - that if x < 0 (or -0).
    swapped = d.add(d.sub(_PIO2_HI, theta), d.sub(_PIO2_LO, theta_lo))
    theta = d.select(swap, swapped, d.add(theta, theta_lo))
    negative_x = b.icmp_signed("<", d.bits(xd), d.i(0))
    theta = d.select(negative_x, d.add(d.sub(_PI_HI, theta), _PI_LO), theta)
    result = d.copysign(theta, yd)
    result = d.select(b.or_(d.is_nan(xd), d.is_nan(yd)), d.add(xd, yd), result)
    return m.narrow(result, x.type)


APPROXIMATIONS = {"sine": sine, "cosine": cosine, "tan": tan, "atan2": atan2}
