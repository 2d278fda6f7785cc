"""Closed-form special functions: the error function family, the exponentially scaled
Bessel functions I0e and I1e, NextAfter, and the float predicates.

Coefficients are the published ones XLA's client library uses: Cephes (erf/erfc
in f64, i0e/i1e), Rminimax fits from Eigen (erfc in f32) and Giles' erfinv.
Everything is unrolled: no loops.
"""

from __future__ import annotations

import numpy as np

from .. import ops
from ..builder import XlaOp
from ..errors import InvalidArgumentError
from ..types import PrimitiveType
from .math_support import (
    F64,
    chebyshev,
    element_type,
    full_like,
    math_function,
    polynomial,
    require_float,
    same_operands,
    scalar,
    select,
    sign_bit,
    with_upcast,
)

_INF = float("inf")
_NAN = float("nan")

# -- exp(-x^2) -----------------------------------------------------------------------------------


def _exp_neg_square(ax: XlaOp, fraction_bits: int) -> XlaOp:
    """exp(-ax^2) for ax >= 0 without the error of rounding ax^2 first.

    ax = hi + lo with hi on a grid of 2^-fraction_bits, so hi^2 is exact and
    exp(-ax^2) = exp(-hi^2) * exp(-lo*(ax + hi)); rounding ax^2 directly costs
    about ax^2 ulps, which is 700 ulps in f64's erfc tail.
    """
    scale = float(2**fraction_bits)
    hi = ops.Round(ax * scale) * (1.0 / scale)
    lo = ax - hi
    # e + e*expm1(...) rather than exp(...)*exp(...): XLA rewrites a product of two exps into
    # the exp of the sum, which would undo the split.
    e = ops.Exp(-(hi * hi))
    return e + e * ops.Expm1(-(lo * (ax + hi)))


# -- erf, erfc (f64: Cephes ndtr.c) --------------------------------------------------------------

_ERF_T = (
    9.60497373987051638749e0,
    9.00260197203842689217e1,
    2.23200534594684319226e3,
    7.00332514112805075473e3,
    5.55923013010394962768e4,
)
_ERF_U = (
    1.00000000000000000000e0,
    3.35617141647503099647e1,
    5.21357949780152679795e2,
    4.59432382970980127987e3,
    2.26290000613890934246e4,
    4.92673942608635921086e4,
)
_ERFC_P = (
    2.46196981473530512524e-10,
    5.64189564831068821977e-1,
    7.46321056442269912687e0,
    4.86371970985681366614e1,
    1.96520832956077098242e2,
    5.26445194995477358631e2,
    9.34528527171957607540e2,
    1.02755188689515710272e3,
    5.57535335369399327526e2,
)
_ERFC_Q = (
    1.00000000000000000000e0,
    1.32281951154744992508e1,
    8.67072140885989742329e1,
    3.54937778887819891062e2,
    9.75708501743205489753e2,
    1.82390916687909736289e3,
    2.24633760818710981792e3,
    1.65666309194161350182e3,
    5.57535340817727675546e2,
)
_ERFC_R = (
    5.64189583547755073984e-1,
    1.27536670759978104416e0,
    5.01905042251180477414e0,
    6.16021097993053585195e0,
    7.40974269950448939160e0,
    2.97886665372100240670e0,
)
_ERFC_S = (
    1.00000000000000000000e0,
    2.26052863220117276590e0,
    9.39603524938001434673e0,
    1.20489539808096656605e1,
    1.70814450747565897222e1,
    9.60896809063285878198e0,
    3.36907645100081516050e0,
)


def _erf_small_f64(x: XlaOp) -> XlaOp:
    """erf(x) = x T(x^2) / U(x^2) for |x| < 1."""
    z = x * x
    return x * polynomial(z, _ERF_T) / polynomial(z, _ERF_U)


def _erfc_large_f64(ax: XlaOp) -> XlaOp:
    """erfc(ax) for ax >= 1: exp(-ax^2) P/Q below 8, R/S above; 0 past the underflow."""
    ax = ops.Min(ax, 27.3)  # erfc(27.3) < the smallest subnormal; keeps inf out of P/Q
    ratio = select(
        ax < 8.0,
        polynomial(ax, _ERFC_P) / polynomial(ax, _ERFC_Q),
        polynomial(ax, _ERFC_R) / polynomial(ax, _ERFC_S),
    )
    return _exp_neg_square(ax, 16) * ratio


# -- erf, erfc (f32: Rminimax fits, as in Eigen and XLA) ---------------------------------------

# erfc(x) - 1 = x P(x^2) for |x| <= 1.
_ERFC_SMALL_F32 = (
    +5.61802298761904239654541015625e-04,
    -4.91381669417023658752441406250e-03,
    +2.67075151205062866210937500000e-02,
    -1.12800106406211853027343750000e-01,
    +3.76122951507568359375000000000e-01,
    -1.12837910652160644531250000000e00,
)
# erfc(x) = exp(-x^2) / x * P(1/x^2) / Q(1/x^2) for 1 <= x.
_ERFC_GAMMA_F32 = (
    1.0208116471767425537109375e-01,
    4.2920666933059692382812500e-01,
    3.2379078865051269531250000e-01,
    5.3971976041793823242187500e-02,
)
_ERFC_DELTA_F32 = (
    1.7251677811145782470703125e-02,
    3.9137163758277893066406250e-01,
    1.0000000000000000000000000e00,
    6.2173241376876831054687500e-01,
    9.5662862062454223632812500e-02,
)


def _erfc_large_f32(ax: XlaOp) -> XlaOp:
    ax = ops.Min(ax, 10.5)  # exp(-10.5^2) underflows f32 even without flushing subnormals
    q2 = 1.0 / (ax * ax)
    ratio = polynomial(q2, _ERFC_GAMMA_F32) / (ax * polynomial(q2, _ERFC_DELTA_F32))
    return _exp_neg_square(ax, 8) * ratio


def _erfc_minus_one_f32(x: XlaOp) -> XlaOp:
    return x * polynomial(x * x, _ERFC_SMALL_F32)


def _erfc_impl(x: XlaOp) -> XlaOp:
    ax = ops.Abs(x)
    if element_type(x) == F64:
        small = 1.0 - _erf_small_f64(x)
        large = _erfc_large_f64(ax)
    else:
        small = _erfc_minus_one_f32(x) + 1.0
        large = _erfc_large_f32(ax)
    return select(ax < 1.0, small, select(x < 0.0, 2.0 - large, large))


def _erf_impl(x: XlaOp) -> XlaOp:
    ax = ops.Abs(x)
    if element_type(x) == F64:
        small = _erf_small_f64(x)
        large = 1.0 - _erfc_large_f64(ax)
    else:
        small = -_erfc_minus_one_f32(x)
        large = 1.0 - _erfc_large_f32(ax)
    return select(ax < 1.0, small, select(x < 0.0, -large, large))


@math_function("Erf")
def Erf(x: XlaOp) -> XlaOp:
    """Error function from the erfc fits below (near 0 directly, 1 - erfc(|x|) beyond 1).

    xlapy.ops.Erf is XLA's ``erf`` opcode; this is its expansion into basic ops.
    """
    require_float("Erf", x)
    return with_upcast(_erf_impl, x)


@math_function("Erfc")
def Erfc(x: XlaOp) -> XlaOp:
    """Complementary error function, accurate relative to erfc itself far into the tail."""
    require_float("Erfc", x)
    return with_upcast(_erfc_impl, x)


# -- erfinv (Giles, "Approximating the erfinv function", GPU Computing Gems 2011) ------------------

_ERFINV_F32_W_LT_5 = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERFINV_F32_W_GE_5 = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)
_ERFINV_F64_W_LT_6_25 = (
    -3.6444120640178196996e-21,
    -1.685059138182016589e-19,
    1.2858480715256400167e-18,
    1.115787767802518096e-17,
    -1.333171662854620906e-16,
    2.0972767875968561637e-17,
    6.6376381343583238325e-15,
    -4.0545662729752068639e-14,
    -8.1519341976054721522e-14,
    2.6335093153082322977e-12,
    -1.2975133253453532498e-11,
    -5.4154120542946279317e-11,
    1.051212273321532285e-09,
    -4.1126339803469836976e-09,
    -2.9070369957882005086e-08,
    4.2347877827932403518e-07,
    -1.3654692000834678645e-06,
    -1.3882523362786468719e-05,
    0.0001867342080340571352,
    -0.00074070253416626697512,
    -0.0060336708714301490533,
    0.24015818242558961693,
    1.6536545626831027356,
)
_ERFINV_F64_W_LT_16 = (
    2.2137376921775787049e-09,
    9.0756561938885390979e-08,
    -2.7517406297064545428e-07,
    1.8239629214389227755e-08,
    1.5027403968909827627e-06,
    -4.013867526981545969e-06,
    2.9234449089955446044e-06,
    1.2475304481671778723e-05,
    -4.7318229009055733981e-05,
    6.8284851459573175448e-05,
    2.4031110387097893999e-05,
    -0.0003550375203628474796,
    0.00095328937973738049703,
    -0.0016882755560235047313,
    0.0024914420961078508066,
    -0.0037512085075692412107,
    0.005370914553590063617,
    1.0052589676941592334,
    3.0838856104922207635,
)
_ERFINV_F64_W_GE_16 = (
    -2.7109920616438573243e-11,
    -2.5556418169965252055e-10,
    1.5076572693500548083e-09,
    -3.7894654401267369937e-09,
    7.6157012080783393804e-09,
    -1.4960026627149240478e-08,
    2.9147953450901080826e-08,
    -6.7711997758452339498e-08,
    2.2900482228026654717e-07,
    -9.9298272942317002539e-07,
    4.5260625972231537039e-06,
    -1.9681778105531670567e-05,
    7.5995277030017761139e-05,
    -0.00021503011930044477347,
    -0.00013871931833623122026,
    1.0103004648645343977,
    4.8499064014085844221,
)


def _erfinv_impl(x: XlaOp) -> XlaOp:
    """erfinv(x) = x * p(w) with w = -log((1-x)(1+x)) and p a piecewise polynomial in w."""
    # -log((1-x)(1+x)) in two log1p's: x*x would round away most of 1 - x^2 near |x| = 1.
    ax = ops.Abs(x)
    w = -(ops.Log1p(-ax) + ops.Log1p(ax))
    if element_type(x) == F64:
        p6 = polynomial(w - 3.125, _ERFINV_F64_W_LT_6_25)
        sw = ops.Sqrt(w)
        p16 = polynomial(sw - 3.25, _ERFINV_F64_W_LT_16)
        pinf = polynomial(sw - 5.0, _ERFINV_F64_W_GE_16)
        p = select(w < 6.25, p6, select(w < 16.0, p16, pinf))
    else:
        p5 = polynomial(w - 2.5, _ERFINV_F32_W_LT_5)
        pinf = polynomial(ops.Sqrt(w) - 3.0, _ERFINV_F32_W_GE_5)
        p = select(w < 5.0, p5, pinf)
    result = p * x
    # erfinv(+-1) = +-inf exactly (the polynomials are indeterminate there); NaN beyond.
    result = select(ops.Eq(ax, 1.0), x * _INF, result)
    return select(ax > 1.0, _NAN, result)


@math_function("ErfInv")
def ErfInv(x: XlaOp) -> XlaOp:
    """Inverse error function on [-1, 1] (NaN outside)."""
    require_float("ErfInv", x)
    return with_upcast(_erfinv_impl, x)


# -- exponentially scaled modified Bessel functions (Cephes i0e.c, i1e.c) ------------------------

_I0E_A_F64 = (
    -4.41534164647933937950e-18,
    3.33079451882223809783e-17,
    -2.43127984654795469359e-16,
    1.71539128555513303061e-15,
    -1.16853328779934516808e-14,
    7.67618549860493561688e-14,
    -4.85644678311192946090e-13,
    2.95505266312963983461e-12,
    -1.72682629144155570723e-11,
    9.67580903537323691224e-11,
    -5.18979560163526290666e-10,
    2.65982372468238665035e-9,
    -1.30002500998624804212e-8,
    6.04699502254191894932e-8,
    -2.67079385394061173391e-7,
    1.11738753912010371815e-6,
    -4.41673835845875056359e-6,
    1.64484480707288970893e-5,
    -5.75419501008210370398e-5,
    1.88502885095841655729e-4,
    -5.76375574538582365885e-4,
    1.63947561694133579842e-3,
    -4.32430999505057594430e-3,
    1.05464603945949983183e-2,
    -2.37374148058994688156e-2,
    4.93052842396707084878e-2,
    -9.49010970480476444210e-2,
    1.71620901522208775349e-1,
    -3.04682672343198398683e-1,
    6.76795274409476084995e-1,
)
_I0E_B_F64 = (
    -7.23318048787475395456e-18,
    -4.83050448594418207126e-18,
    4.46562142029675999901e-17,
    3.46122286769746109310e-17,
    -2.82762398051658348494e-16,
    -3.42548561967721913462e-16,
    1.77256013305652638360e-15,
    3.81168066935262242075e-15,
    -9.55484669882830764870e-15,
    -4.15056934728722208663e-14,
    1.54008621752140982691e-14,
    3.85277838274214270114e-13,
    7.18012445138366623367e-13,
    -1.79417853150680611778e-12,
    -1.32158118404477131188e-11,
    -3.14991652796324136454e-11,
    1.18891471078464383424e-11,
    4.94060238822496958910e-10,
    3.39623202570838634515e-9,
    2.26666899049817806459e-8,
    2.04891858946906374183e-7,
    2.89137052083475648297e-6,
    6.88975834691682398426e-5,
    3.36911647825569408990e-3,
    8.04490411014108831608e-1,
)
_I1E_A_F64 = (
    2.77791411276104639959e-18,
    -2.11142121435816608115e-17,
    1.55363195773620046921e-16,
    -1.10559694773538630805e-15,
    7.60068429473540693410e-15,
    -5.04218550472791168711e-14,
    3.22379336594557470981e-13,
    -1.98397439776494371520e-12,
    1.17361862988909016308e-11,
    -6.66348972350202774223e-11,
    3.62559028155211703701e-10,
    -1.88724975172282928790e-9,
    9.38153738649577178388e-9,
    -4.44505912879632808065e-8,
    2.00329475355213526229e-7,
    -8.56872026469545474066e-7,
    3.47025130813767847674e-6,
    -1.32731636560394358279e-5,
    4.78156510755005422638e-5,
    -1.61760815825896745588e-4,
    5.12285956168575772895e-4,
    -1.51357245063125314899e-3,
    4.15642294431288815669e-3,
    -1.05640848946261981558e-2,
    2.47264490306265168283e-2,
    -5.29459812080949914269e-2,
    1.02643658689847095384e-1,
    -1.76416518357834055153e-1,
    2.52587186443633654823e-1,
)
_I1E_B_F64 = (
    7.51729631084210481353e-18,
    4.41434832307170791151e-18,
    -4.65030536848935832153e-17,
    -3.20952592199342395980e-17,
    2.96262899764595013876e-16,
    3.30820231092092828324e-16,
    -1.88035477551078244854e-15,
    -3.81440307243700780478e-15,
    1.04202769841288027642e-14,
    4.27244001671195135429e-14,
    -2.10154184277266431302e-14,
    -4.08355111109219731823e-13,
    -7.19855177624590851209e-13,
    2.03562854414708950722e-12,
    1.41258074366137813316e-11,
    3.25260358301548823856e-11,
    -1.89749581235054123450e-11,
    -5.58974346219658380687e-10,
    -3.83538038596423702205e-9,
    -2.63146884688951950684e-8,
    -2.51223623787020892529e-7,
    -3.88256480887769039346e-6,
    -1.10588938762623716291e-4,
    -9.76109749136146840777e-3,
    7.78576235018280120474e-1,
)
# Cephes' single-precision versions keep the trailing terms of the same series.
_I0E_A_F32 = _I0E_A_F64[-18:]
_I0E_B_F32 = _I0E_B_F64[-7:]
_I1E_A_F32 = _I1E_A_F64[-17:]
_I1E_B_F32 = _I1E_B_F64[-7:]


def _bessel_i0e_impl(x: XlaOp) -> XlaOp:
    f64 = element_type(x) == F64
    a, b = (_I0E_A_F64, _I0E_B_F64) if f64 else (_I0E_A_F32, _I0E_B_F32)
    ax = ops.Abs(x)
    near = chebyshev(ax * 0.5 - 2.0, a)
    far = chebyshev(32.0 / ax - 2.0, b) / ops.Sqrt(ax)
    return select(ax <= 8.0, near, far)


def _bessel_i1e_impl(x: XlaOp) -> XlaOp:
    f64 = element_type(x) == F64
    a, b = (_I1E_A_F64, _I1E_B_F64) if f64 else (_I1E_A_F32, _I1E_B_F32)
    ax = ops.Abs(x)
    near = ax * chebyshev(ax * 0.5 - 2.0, a)
    far = chebyshev(32.0 / ax - 2.0, b) / ops.Sqrt(ax)
    result = select(ax <= 8.0, near, far)
    return select(x < 0.0, -result, result)


@math_function("BesselI0e")
def BesselI0e(x: XlaOp) -> XlaOp:
    """exp(-|x|) I0(x): Chebyshev series on [0, 8] and in 32/x beyond (Cephes)."""
    require_float("BesselI0e", x)
    return with_upcast(_bessel_i0e_impl, x)


@math_function("BesselI1e")
def BesselI1e(x: XlaOp) -> XlaOp:
    """exp(-|x|) I1(x), odd in x (Cephes)."""
    require_float("BesselI1e", x)
    return with_upcast(_bessel_i1e_impl, x)


# -- NextAfter ------------------------------------------------------------------------------------

_UNSIGNED = {16: np.uint16, 32: np.uint32, 64: np.uint64}


@math_function("NextAfter")
def NextAfter(from_: XlaOp, to: XlaOp) -> XlaOp:
    """The representable value after ``from_`` in the direction of ``to`` (C's nextafter).

    Works on the bit patterns: a float's magnitude order is its integer order,
    so stepping is +-1 on the sign-less bits; zeros step to the smallest
    subnormal signed like ``to``; NaN if either input is NaN.
    """
    from_, to = same_operands("NextAfter", from_, to)
    t = element_type(from_)
    width = t.bit_width
    if width not in _UNSIGNED:
        raise InvalidArgumentError(f"NextAfter: unsupported element type {t.hlo_name}")
    utype = _UNSIGNED[width]
    ut = PrimitiveType.from_dtype(utype)
    from_bits = ops.BitcastConvertType(from_, ut)
    to_bits = ops.BitcastConvertType(to, ut)
    sign_mask = utype(1 << (width - 1))
    magnitude_mask = utype((1 << (width - 1)) - 1)

    from_abs = ops.And(from_bits, magnitude_mask)
    to_abs = ops.And(to_bits, magnitude_mask)
    from_sign = ops.And(from_bits, sign_mask)
    to_sign = ops.And(to_bits, sign_mask)
    towards_zero = ops.Or(ops.Gt(from_abs, to_abs), ops.Ne(from_sign, to_sign))
    one = full_like(from_bits, 1)
    stepped = select(towards_zero, from_bits - one, from_bits + one)
    smallest_towards_to = ops.Or(to_sign, one)
    result = select(
        ops.Eq(from_abs, utype(0)),
        select(ops.Eq(to_abs, utype(0)), to_bits, smallest_towards_to),
        stepped,
    )
    result = select(ops.Eq(from_bits, to_bits), to_bits, result)
    nan_bits = ops.BitcastConvertType(full_like(from_, _NAN), ut)
    either_nan = ops.Or(ops.Ne(from_, from_), ops.Ne(to, to))
    result = select(either_nan, nan_bits, result)
    return ops.BitcastConvertType(result, t)


# -- predicates and trivial helpers ---------------------------------------------------------------


@math_function("IsNan")
def IsNan(x: XlaOp) -> XlaOp:
    require_float("IsNan", x)
    return ops.Ne(x, x)


@math_function("IsPosInf")
def IsPosInf(x: XlaOp) -> XlaOp:
    require_float("IsPosInf", x)
    return ops.Eq(x, _INF)


@math_function("IsNegInf")
def IsNegInf(x: XlaOp) -> XlaOp:
    require_float("IsNegInf", x)
    return ops.Eq(x, -_INF)


@math_function("IsInf")
def IsInf(x: XlaOp) -> XlaOp:
    require_float("IsInf", x)
    return ops.Eq(ops.Abs(x), _INF)


@math_function("IsNegZero")
def IsNegZero(x: XlaOp) -> XlaOp:
    """-0.0 exactly (``x == 0`` cannot tell the zeros apart)."""
    t = require_float("IsNegZero", x)
    if t.bit_width < 32:  # compare in f32, as XLA does, so no 16-bit integer ops are needed
        x = ops.ConvertElementType(x, PrimitiveType.F32)
    return ops.And(sign_bit(x), ops.Eq(x, 0.0))


@math_function("Square")
def Square(x: XlaOp) -> XlaOp:
    return x * x


@math_function("Reciprocal")
def Reciprocal(x: XlaOp) -> XlaOp:
    return scalar(x, 1.0) / x


__all__ = [
    "BesselI0e",
    "BesselI1e",
    "Erf",
    "ErfInv",
    "Erfc",
    "IsInf",
    "IsNan",
    "IsNegInf",
    "IsNegZero",
    "IsPosInf",
    "NextAfter",
    "Reciprocal",
    "Square",
]
