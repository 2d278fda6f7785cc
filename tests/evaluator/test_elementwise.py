"""The interpreter's elementwise kernels against references computed independently here
(Python integers, numpy/scipy in f64, ml_dtypes roundings), on edge values of every
element type each opcode accepts, and on zero-size, rank-0 and rank-3 arrays.

The semantics are XLA:CPU's (test_elementwise_oracle.py checks them against it); the
references below spell them out: C-like integer division with XLA's results for x/0 and
INT_MIN/-1, shifts saturating at the bit width, NaN-propagating maximum/minimum with
-0 < +0, float -> int conversion truncating and saturating with NaN -> 0, and so on.
Denormals are kept (IEEE), where XLA:CPU would flush them.
"""

from __future__ import annotations

import decimal
import itertools
import math
import struct

import ml_dtypes
import numpy as np
import pytest
import scipy.special

import xlapy.evaluator.kernels.elementwise  # noqa: F401  (registers the kernels)
from xlapy.backends.interpreter import run
from xlapy.errors import XlaError
from xlapy.evaluator import DeviceContext, EvalContext
from xlapy.hlo import parse_module
from xlapy.types import ARRAY_TYPES, PrimitiveType

P = PrimitiveType
INTS = [t for t in ARRAY_TYPES if t.is_integral]
SIGNED = [t for t in INTS if t.is_signed_integral]
FLOATS = [t for t in ARRAY_TYPES if t.is_float]
NARROW = [t for t in FLOATS if t not in (P.F32, P.F64)]


def ids(et: PrimitiveType) -> str:
    return et.hlo_name


def shape_of(x: np.ndarray) -> str:
    et = PrimitiveType.from_dtype(x.dtype)
    return f"{et.hlo_name}[{','.join(map(str, x.shape))}]"


def apply(opcode: str, *args: np.ndarray, result: str | None = None, attrs: str = "") -> np.ndarray:
    """Run one instruction on the interpreter; ``result`` is its element type (default: the
    first operand's); the result has the first array operand's dimensions."""
    args = tuple(np.asarray(a) for a in args)
    params = "\n".join(f"  p{i} = {shape_of(a)} parameter({i})" for i, a in enumerate(args))
    dims = max(args, key=lambda a: a.ndim).shape
    et = result or PrimitiveType.from_dtype(args[0].dtype).hlo_name
    out = f"{et}[{','.join(map(str, dims))}]"
    names = ", ".join(f"p{i}" for i in range(len(args)))
    text = f"HloModule t\nENTRY e {{\n{params}\n  ROOT r = {out} {opcode}({names}){attrs}\n}}"
    return np.asarray(run(text, *args))


def wrap(value: int, et: PrimitiveType) -> int:
    """A Python integer as a two's complement integer of et's width."""
    width = et.bit_width
    value &= (1 << width) - 1
    if et.is_signed_integral and value >= 1 << (width - 1):
        value -= 1 << width
    return value


def int_edges(et: PrimitiveType) -> list[int]:
    info = ml_dtypes.iinfo(et.dtype)
    lo, hi = int(info.min), int(info.max)
    values = {0, 1, 2, 3, 5, 7, 100, -1, -2, -3, -7, -100, lo, hi, lo + 1, hi - 1}
    values |= {et.bit_width - 1, et.bit_width, et.bit_width + 1, 63, 64, 65}
    return sorted(v for v in values if lo <= v <= hi)


def as_ints(values, et: PrimitiveType) -> np.ndarray:
    return np.array(values, dtype=object).astype(et.dtype)


def float_edges(et: PrimitiveType) -> np.ndarray:
    """0, -0, +-inf, NaN, extremes, denormals, halves, and ordinary values of et."""
    info = ml_dtypes.finfo(et.dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0]
    values += [float(info.max), -float(info.max), float(info.smallest_normal)]
    values += [float(info.smallest_subnormal), -float(info.smallest_subnormal), 0.1, -7.25]
    values += [1e30, -1e30, 1e-30, 123.456, 2.0**31, 2.0**63]
    with np.errstate(all="ignore"):
        return np.array(values, np.float64).astype(et.dtype)


def pairs_of(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.meshgrid(values, values, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def same_floats(ours: np.ndarray, expected: np.ndarray) -> bool:
    """Equal as values with signs of zero, any NaN equal to any NaN."""
    a, b = ours.astype(np.float64), np.asarray(expected).astype(np.float64)
    return bool(np.all(((a == b) & (np.signbit(a) == np.signbit(b))) | (np.isnan(a) & np.isnan(b))))


def round_to(values: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """f64 values computed exactly (or in f32 by XLA) rounded as XLA:CPU rounds a result:
    to f32, and for 8-/4-bit floats (f8e8m0fnu aside) through f16."""
    with np.errstate(all="ignore"):
        f32 = np.asarray(values, np.float64).astype(np.float32)
        if et is P.F32:
            return f32
        if et.bit_width <= 8 and et is not P.F8E8M0FNU:
            f32 = f32.astype(np.float16).astype(np.float32)
        result = f32.astype(et.dtype)
    if et is P.F4E2M1FN:  # no NaN: XLA makes NaN -0
        result = np.where(np.isnan(f32), et.dtype.type(-0.0), result)
    return result


# -- integers ---------------------------------------------------------------------------------


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def as_signed(value: int, width: int) -> int:
    """The bits of ``value`` read as a signed integer of ``width`` bits."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def divide(a: int, b: int, et: PrimitiveType) -> int:
    if b == 0:  # -1, all ones when unsigned
        return -1
    if et.is_signed_integral and b == -1 and a == int(ml_dtypes.iinfo(et.dtype).min):
        return a  # INT_MIN / -1 = INT_MIN
    return c_div(a, b)


def remainder(a: int, b: int, et: PrimitiveType) -> int:
    return a if b == 0 else a - c_div(a, b) * b  # INT_MIN % -1 = 0 falls out


def shift_right_arithmetic(a: int, b: int, et: PrimitiveType) -> int:
    """Sign-filling; unsigned values are read as signed ones of their width."""
    signed = as_signed(a, et.bit_width)
    if not 0 <= b < et.bit_width:
        return -1 if signed < 0 else 0
    return signed >> b


def xla_int_power(a: int, b: int, et: PrimitiveType) -> int:
    """XLA:CPU squares over the exponent's low 6 bits only; the exponent is read as signed
    in its (at least 8-bit) container, and a negative one gives 1/a truncated."""
    width = max(8, et.bit_width)
    exponent, base = as_signed(b, width), as_signed(a, width)
    if exponent < 0:
        return 1 if base == 1 else (-1) ** (exponent & 1) if base == -1 else 0
    return a ** (exponent % 64)


INT_BINARY = {
    "add": lambda a, b, t: a + b,
    "subtract": lambda a, b, t: a - b,
    "multiply": lambda a, b, t: a * b,
    "divide": divide,
    "remainder": remainder,
    "maximum": lambda a, b, t: max(a, b),
    "minimum": lambda a, b, t: min(a, b),
    "and": lambda a, b, t: a & b,
    "or": lambda a, b, t: a | b,
    "xor": lambda a, b, t: a ^ b,
    "shift-left": lambda a, b, t: a << b if 0 <= b < t.bit_width else 0,
    "shift-right-logical": lambda a, b, t: (
        (a % (1 << t.bit_width)) >> b if 0 <= b < t.bit_width else 0
    ),
    "shift-right-arithmetic": shift_right_arithmetic,
    "mulhi": lambda a, b, t: (a * b) >> t.bit_width,
    "power": xla_int_power,
}


@pytest.mark.parametrize("et", INTS, ids=ids)
def test_integer_binary_ops_wrap_and_follow_c(et):
    values = int_edges(et)
    a, b = (list(v) for v in zip(*itertools.product(values, values), strict=True))
    x, y = as_ints(a, et), as_ints(b, et)
    for name, fn in INT_BINARY.items():
        ours = apply(name, x, y)
        expected = [wrap(fn(p, q, et), et) for p, q in zip(a, b, strict=True)]
        bad = [
            (p, q, o, e) for p, q, o, e in zip(a, b, ours.tolist(), expected, strict=True) if o != e
        ]
        assert not bad, f"{name} {et}: (a, b, ours, expected) {bad[:5]}"


def test_integer_division_edge_cases_spelled_out():
    s32 = lambda *v: np.array(v, np.int32)  # noqa: E731
    imin = -(2**31)
    assert apply("divide", s32(7, -7, 5, imin, 0), s32(2, 2, 0, -1, 0)).tolist() == [
        3,
        -3,
        -1,
        imin,
        -1,
    ]
    assert apply("remainder", s32(7, -7, 5, imin), s32(2, 2, 0, -1)).tolist() == [1, -1, 5, 0]
    u8 = np.array([7, 200], np.uint8)
    assert apply("divide", u8, np.array([0, 0], np.uint8)).tolist() == [255, 255]
    u4 = np.array([7, 15], ml_dtypes.uint4)
    assert apply("divide", u4, np.array([0, 0], ml_dtypes.uint4)).tolist() == [15, 15]
    s4 = np.array([-8, 7], ml_dtypes.int4)
    assert apply("divide", s4, np.array([-1, 0], ml_dtypes.int4)).tolist() == [-8, -1]
    assert apply("add", s4, np.array([-1, 1], ml_dtypes.int4)).tolist() == [7, -8]  # wraps


def test_integer_power_follows_xla():
    x = np.array([2, -1, -1, 1, 0, 3, 2, -2, 3], np.int32)
    y = np.array([-1, -3, -4, -5, -1, 0, 31, 3, 64], np.int32)
    # 1/x truncated for negative exponents; INT_MIN for 2^31; only 6 exponent bits: 3^64 = 1
    assert apply("power", x, y).tolist() == [0, -1, 1, 1, 0, 1, -(2**31), -8, 1]
    u8 = np.array([255, 255, 3], np.uint8)  # 128 reads as a negative exponent
    assert apply("power", u8, np.array([128, 129, 128], np.uint8)).tolist() == [1, 255, 0]


@pytest.mark.parametrize("et", INTS, ids=ids)
def test_integer_unary_ops(et):
    values = int_edges(et)
    x = as_ints(values, et)
    width = et.bit_width
    popcnt_width = 8 if et is P.S4 else width  # XLA counts an s4 in its sign-extended byte
    expected = {
        "negate": [wrap(-v, et) for v in values],
        "not": [wrap(~v, et) for v in values],
        "popcnt": [wrap(bin(v & ((1 << popcnt_width) - 1)).count("1"), et) for v in values],
        "count-leading-zeros": [
            wrap(width - (v & ((1 << width) - 1)).bit_length(), et) for v in values
        ],
        "abs": [wrap(abs(v), et) for v in values],
        "sign": [(v > 0) - (v < 0) for v in values],
        "copy": values,
    }
    for name, want in expected.items():
        assert apply(name, x).tolist() == want, name


def test_pred_arithmetic_is_that_of_a_nonzero_byte():
    a, b = (np.array(v, bool) for v in ([0, 0, 1, 1], [0, 1, 0, 1]))
    table = {
        "add": [0, 1, 1, 1], "multiply": [0, 0, 0, 1], "maximum": [0, 1, 1, 1],
        "minimum": [0, 0, 0, 1], "and": [0, 0, 0, 1], "or": [0, 1, 1, 1], "xor": [0, 1, 1, 0],
        "subtract": [0, 1, 1, 0], "divide": [1, 0, 1, 1], "remainder": [0, 0, 1, 0],
        "power": [1, 0, 1, 1],
    }  # fmt: skip
    for name, want in table.items():
        assert apply(name, a, b).astype(int).tolist() == want, name
    assert apply("not", a).tolist() == [True, True, False, False]
    directions = {"LT": [0, 1, 0, 0], "GE": [1, 0, 1, 1], "EQ": [1, 0, 0, 1]}
    for d, want in directions.items():
        assert (
            apply("compare", a, b, result="pred", attrs=f", direction={d}").astype(int).tolist()
            == want
        )


# -- floats -------------------------------------------------------------------------------------


def reference_max(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:  # +0 over -0
        return b if math.copysign(1, a) < 0 else a
    return max(a, b)


def reference_min(a: float, b: float) -> float:
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b:
        return a if math.copysign(1, a) < 0 else b
    return min(a, b)


FLOAT_BINARY = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.divide,
    "remainder": np.fmod,  # C's fmod: the dividend's sign
    "maximum": np.vectorize(reference_max, otypes=[np.float64]),
    "minimum": np.vectorize(reference_min, otypes=[np.float64]),
    "power": np.power,  # C's pow: 0^0 = 1, 1^NaN = 1, NaN^0 = 1, 0^-1 = inf
    "atan2": np.arctan2,
}


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_float_binary_ops(et):
    """f64 in f64; f32 and narrower in f32 (IEEE single, as numpy computes it), except
    power and atan2: their f64 values rounded to f32. Then rounded as XLA rounds."""
    a, b = pairs_of(float_edges(et))
    compute = np.float64 if et is P.F64 else np.float32
    for name, fn in FLOAT_BINARY.items():
        with np.errstate(all="ignore"):
            if name in ("power", "atan2"):
                exact = fn(a.astype(np.float64), b.astype(np.float64)).astype(compute)
            else:
                exact = np.asarray(fn(a.astype(compute), b.astype(compute))).astype(compute)
        expected = exact if et is P.F64 else round_to(exact, et)
        assert same_floats(apply(name, a, b), expected), (name, et)


def test_maximum_and_minimum_spelled_out():
    a = np.array([0.0, -0.0, np.nan, 1.0, -np.inf], np.float32)
    b = np.array([-0.0, 0.0, 1.0, np.nan, np.inf], np.float32)
    mx, mn = apply("maximum", a, b), apply("minimum", a, b)
    assert np.signbit(mx[:2]).tolist() == [False, False] and np.isnan(mx[2:4]).all()
    assert np.signbit(mn[:2]).tolist() == [True, True] and np.isnan(mn[2:4]).all()
    assert mx[4] == np.inf and mn[4] == -np.inf


def reference_round(x: float, mode: str) -> float:
    """Exact decimal rounding of the float's exact value; a zero keeps x's sign."""
    if not math.isfinite(x):
        return x
    rounded = float(decimal.Decimal(x).to_integral_value(rounding=mode))
    return math.copysign(rounded, x)


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_float_unary_exact_ops(et):
    x = np.concatenate(
        [
            float_edges(et),
            np.array([0.49999997, -0.5, 0.5, 1.5, -2.5, 4.5, -0.2], np.float64).astype(et.dtype),
        ]
    )
    w = x.astype(np.float64)
    expected = {
        "abs": np.abs(w),
        "negate": -w,
        "ceil": np.ceil(w),
        "floor": np.floor(w),
        "round-nearest-even": [reference_round(v, decimal.ROUND_HALF_EVEN) for v in w],
        "round-nearest-afz": [reference_round(v, decimal.ROUND_HALF_UP) for v in w],
        "sign": np.array([v if math.isnan(v) or v == 0 else math.copysign(1.0, v) for v in w]),
        "copy": w,
        "real": w,
    }
    for name, want in expected.items():
        assert same_floats(apply(name, x), np.asarray(want).astype(et.dtype)), name
    assert apply("is-finite", x, result="pred").tolist() == np.isfinite(w).tolist()
    # the imaginary part of a real number: 0 in the type (f8e8m0fnu has no 0: NaN)
    assert same_floats(apply("imag", x), np.zeros(x.shape, np.float32).astype(et.dtype))


TRANSCENDENTAL = {
    "exponential": np.exp,
    "exponential-minus-one": np.expm1,
    "log": np.log,
    "log-plus-one": np.log1p,
    "sqrt": np.sqrt,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "cbrt": np.cbrt,
    "sine": np.sin,
    "cosine": np.cos,
    "tan": np.tan,
    "tanh": np.tanh,
    "logistic": scipy.special.expit,
    "erf": scipy.special.erf,
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atan": np.arctan,
    "atanh": np.arctanh,
    "cosh": np.cosh,
    "sinh": np.sinh,
}


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_transcendental_ops_are_correctly_rounded_f64_results(et):
    """f32 and narrower: the f64 result rounded to f32 (then as XLA rounds to the type)."""
    rng = np.random.default_rng(7)
    values = np.concatenate(
        [float_edges(et).astype(np.float64), rng.uniform(-5, 5, 64), [0.999, -0.999, 1.0001]]
    )
    with np.errstate(all="ignore"):
        x = values.astype(et.dtype) if et is P.F64 else values.astype(np.float32).astype(et.dtype)
        for name, fn in TRANSCENDENTAL.items():
            exact = fn(x.astype(np.float64))
            expected = exact if et is P.F64 else round_to(exact.astype(np.float32), et)
            assert same_floats(apply(name, x), expected), (name, et)


# -- complex ---------------------------------------------------------------------------------


def test_complex_construction_and_parts_keep_infinities_and_signed_zeros():
    re = np.array([1.0, -0.0, np.inf, np.nan], np.float32)
    im = np.array([np.inf, -0.0, 2.0, 0.0], np.float32)
    z = apply("complex", re, im, result="c64")
    assert same_floats(z.real, re) and same_floats(z.imag, im)
    assert same_floats(apply("real", z, result="f32"), re)
    assert same_floats(apply("imag", z, result="f32"), im)
    assert same_floats(apply("abs", np.array([3 + 4j, -5j]), result="f64"), np.array([5.0, 5.0]))


def test_complex_arithmetic_on_ordinary_values_matches_numpy():
    """XLA's formulas (and the interpreter's copies of them) agree with numpy's c128
    functions to a few epsilons on ordinary values."""
    rng = np.random.default_rng(3)
    for dtype, tol in ((np.complex64, 1e-6), (np.complex128, 1e-14)):
        a = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).astype(dtype)
        b = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).astype(dtype)
        wide_a, wide_b = a.astype(np.complex128), b.astype(np.complex128)
        for name, fn in (
            ("add", np.add),
            ("subtract", np.subtract),
            ("multiply", np.multiply),
            ("divide", np.divide),
            ("power", np.power),
        ):
            np.testing.assert_allclose(
                apply(name, a, b), fn(wide_a, wide_b), rtol=tol * 50, err_msg=name
            )
        for name, fn in (
            ("exponential", np.exp),
            ("log", np.log),
            ("sqrt", np.sqrt),
            ("tanh", np.tanh),
            ("sine", np.sin),
            ("cosine", np.cos),
            ("tan", np.tan),
            ("rsqrt", lambda z: 1 / np.sqrt(z)),
            ("sign", lambda z: z / np.abs(z)),
            ("logistic", lambda z: 1 / (1 + np.exp(-z))),
            ("exponential-minus-one", lambda z: np.exp(z) - 1),
            ("log-plus-one", lambda z: np.log(1 + z)),
        ):
            np.testing.assert_allclose(
                apply(name, a), fn(wide_a), rtol=tol * 50, atol=tol, err_msg=name
            )


def test_complex_special_values_follow_xla():
    z = np.array(
        [1 - 0j, complex(np.nan, 0), complex(np.inf, 0), complex(-1, -0.0), 0j], np.complex64
    )
    z.imag[3] = -0.0
    e = apply("exponential", z)  # a zero imaginary part stays +0 whatever e^a is
    assert e.imag.tolist() == [0, 0, 0, 0, 0] and not np.signbit(e.imag).any()
    s = apply("sqrt", z)  # -1 - 0i: +i (a zero imaginary part counts as +0)
    assert s[3] == 1j and s[4] == 0 and np.isnan(s[1].real) and np.isnan(s[1].imag)
    q = apply(
        "divide",
        np.array([1 + 1j, np.inf + 0j], np.complex64),
        np.array([0j, 1 + 1j], np.complex64),
    )
    assert np.isinf(q[0].real) and np.isinf(q[0].imag)  # Smith's algorithm's fix-ups
    assert np.isinf(q[1].real) and np.isinf(q[1].imag)
    p = apply(
        "power",
        np.array([0j, 0j, 1 + 0j, 2 + 3j], np.complex64),
        np.array([0j, 2 + 0j, np.nan + 0j, 0j], np.complex64),
    )
    assert p.tolist() == [1 + 0j, 0j, 1 + 0j, 1 + 0j]  # 0^0 = 1, 0^c = 0, 1^y = 1, x^0 = 1
    sign = apply("sign", np.array([0j, 3 + 4j], np.complex64))
    assert sign[0] == 0 and abs(sign[1] - (0.6 + 0.8j)) < 1e-7


# -- compare -----------------------------------------------------------------------------------


def total_order_rank(value: float, et: PrimitiveType) -> tuple:
    """-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN. The fnuz types' only NaN has the
    bits of -0 and ranks as -NaN; f8e8m0fnu's, without a sign bit, as +NaN."""
    negative = math.copysign(1.0, value) < 0
    if math.isnan(value):
        if et.hlo_name.endswith("fnuz"):
            negative = True
        if et is P.F8E8M0FNU:
            negative = False
        return (-3 if negative else 3, 0.0)
    if value == 0:
        return (-1 if negative else 1, 0.0)
    return (2 if value > 0 else -2, value)


ORDER = {
    "EQ": lambda p, q: p == q,
    "NE": lambda p, q: p != q,
    "LT": lambda p, q: p < q,
    "LE": lambda p, q: p <= q,
    "GT": lambda p, q: p > q,
    "GE": lambda p, q: p >= q,
}


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_compare_floats_with_float_and_total_order(et):
    a, b = pairs_of(float_edges(et))
    wa, wb = a.astype(np.float64).tolist(), b.astype(np.float64).tolist()
    ranks_a, ranks_b = ([total_order_rank(v, et) for v in w] for w in (wa, wb))
    for direction, fn in ORDER.items():
        ours = apply("compare", a, b, result="pred", attrs=f", direction={direction}")
        assert ours.tolist() == [fn(p, q) for p, q in zip(wa, wb, strict=True)], direction
        ours = apply(
            "compare", a, b, result="pred", attrs=f", direction={direction}, type=TOTALORDER"
        )
        expected = [fn(p, q) for p, q in zip(ranks_a, ranks_b, strict=True)]
        assert ours.tolist() == expected, ("TOTALORDER", direction)


@pytest.mark.parametrize("et", INTS, ids=ids)
def test_compare_integers_signed_and_unsigned(et):
    values = int_edges(et)
    a, b = (list(v) for v in zip(*itertools.product(values, values), strict=True))
    for direction, fn in ORDER.items():
        ours = apply(
            "compare",
            as_ints(a, et),
            as_ints(b, et),
            result="pred",
            attrs=f", direction={direction}",
        )
        assert ours.tolist() == [fn(p, q) for p, q in zip(a, b, strict=True)]


def test_compare_complex_only_for_equality():
    a = np.array([1 + 1j, np.nan + 0j, 2j], np.complex64)
    b = np.array([1 + 1j, np.nan + 0j, 2 + 2j], np.complex64)
    assert apply("compare", a, b, result="pred", attrs=", direction=EQ").tolist() == [
        True,
        False,
        False,
    ]
    assert apply("compare", a, b, result="pred", attrs=", direction=NE").tolist() == [
        False,
        True,
        True,
    ]
    with pytest.raises(XlaError):
        apply("compare", a, b, result="pred", attrs=", direction=LT")


# -- convert ------------------------------------------------------------------------------------


def reference_float_to_int(v: float, et: PrimitiveType) -> int:
    info = ml_dtypes.iinfo(et.dtype)
    if math.isnan(v):
        return 0
    if math.isinf(v):
        return int(info.max) if v > 0 else int(info.min)
    return min(max(math.trunc(v), int(info.min)), int(info.max))


@pytest.mark.parametrize("src", FLOATS, ids=ids)
def test_convert_float_to_every_integer_truncates_and_saturates(src):
    x = float_edges(src)
    for dst in INTS:
        expected = [reference_float_to_int(v, dst) for v in x.astype(np.float64)]
        if src is P.F4E2M1FN:  # XLA saturates f4e2m1fn's largest magnitude like an infinity
            info = ml_dtypes.iinfo(dst.dtype)
            expected = [
                int(info.max) if v == 6 else int(info.min) if v == -6 else e
                for v, e in zip(x.astype(float), expected, strict=True)
            ]
        assert apply("convert", x, result=dst.hlo_name).tolist() == expected, dst
    assert apply("convert", x, result="pred").tolist() == [
        bool(v != 0) for v in x.astype(np.float64)
    ]


@pytest.mark.parametrize("src", INTS, ids=ids)
def test_convert_integers_wrap_and_round_to_nearest(src):
    values = int_edges(src)
    x = as_ints(values, src)
    for dst in INTS:
        assert apply("convert", x, result=dst.hlo_name).tolist() == [wrap(v, dst) for v in values]
    # Python's float(int) rounds to nearest even; so does numpy's f64 -> f32/f16 when the f64
    # holds the integer exactly (below 2^53), and f16 overflows to inf.
    exact = [v for v in values if abs(v) <= 2**53]
    for dst in (P.F64, P.F32, P.F16):
        with np.errstate(over="ignore"):
            expected = [float(np.float64(float(v)).astype(dst.dtype)) for v in exact]
        ours = apply("convert", as_ints(exact, src), result=dst.hlo_name)
        assert ours.astype(np.float64).tolist() == expected, dst
    big = [v for v in values if abs(v) > 2**53]
    if big:
        assert apply("convert", as_ints(big, src), result="f64").tolist() == [float(v) for v in big]
    assert apply("convert", x, result="pred").tolist() == [v != 0 for v in values]


def test_convert_between_floats_rounds_to_nearest_even_with_the_targets_rules():
    x = np.array(
        [1e10, -1e10, 464.0, 470.0, np.nan, np.inf, 1.0 + 2.0**-4, 1.0 + 3 * 2.0**-5], np.float32
    )
    assert np.isnan(
        apply("convert", x, result="f8e4m3fn").astype(np.float32)[[1, 3, 4, 5]]
    ).all()  # no inf: NaN
    assert apply("convert", x, result="f8e4m3fn").astype(np.float32)[2] == 448  # ties to even
    e5m2 = apply("convert", x, result="f8e5m2").astype(np.float32)
    assert e5m2[0] == np.inf and e5m2[1] == -np.inf
    f4 = apply("convert", np.array([100.0, np.nan, 2.5], np.float32), result="f4e2m1fn")
    assert f4.astype(np.float32).tolist() == [6.0, 0.0, 2.0] and np.signbit(
        f4.astype(np.float32)[1]
    )


def test_convert_f64_rounds_once_to_f8_but_through_f32_to_f16():
    tie = 1.0 + 2.0**-11  # an f16 tie (1 and the next f16); just above it in f64:
    above = np.array([tie + 2.0**-40], np.float64)
    assert (
        apply("convert", above, result="f16").astype(np.float64)[0] == 1.0
    )  # f32 rounds to the tie first
    e4m3_tie = np.array([1.0 + 2.0**-4 + 2.0**-40])  # just above the tie of 1 and 1.125
    assert apply("convert", e4m3_tie, result="f8e4m3fn").astype(np.float64)[0] == 1.125
    e8m0 = apply(
        "convert", np.array([2.0**-128, 2.0**-127, 1.5, 1.4999, 2.0**128]), result="f8e8m0fnu"
    )
    e8m0 = e8m0.astype(np.float64)
    assert (
        np.isnan(e8m0[0])
        and e8m0[1] == 2.0**-127
        and e8m0[2] == 2
        and e8m0[3] == 1
        and np.isnan(e8m0[4])
    )


def test_convert_complex_to_real_is_rejected_and_real_to_complex_is_not():
    with pytest.raises(XlaError):
        apply("convert", np.array([1 + 1j], np.complex64), result="f32")
    z = apply("convert", np.array([1.5, -np.inf], np.float32), result="c128")
    assert z.tolist() == [1.5 + 0j, complex(-np.inf, 0)]


# -- bitcast-convert, reduce-precision, stochastic-convert ---------------------------------------


def test_bitcast_convert_splits_and_joins_little_endian():
    x = np.array([1.0, -2.5], np.float32)
    text = "HloModule t\nENTRY e {\n  p = f32[2] parameter(0)\n  ROOT r = u8[2,4] bitcast-convert(p)\n}"
    octets = np.asarray(run(text, x))
    assert octets.tobytes() == struct.pack("<ff", 1.0, -2.5)
    back = "HloModule t\nENTRY e {\n  p = u8[2,4] parameter(0)\n  ROOT r = f32[2] bitcast-convert(p)\n}"
    assert np.asarray(run(back, octets)).tolist() == [1.0, -2.5]
    nibbles = (
        "HloModule t\nENTRY e {\n  p = u8[2] parameter(0)\n  ROOT r = s4[2,2] bitcast-convert(p)\n}"
    )
    assert np.asarray(run(nibbles, np.array([0x1F, 0x80], np.uint8))).tolist() == [[-1, 1], [0, -8]]
    pairs = (
        "HloModule t\nENTRY e {\n  p = u2[1,4] parameter(0)\n  ROOT r = u8[1] bitcast-convert(p)\n}"
    )
    assert np.asarray(run(pairs, np.array([[1, 2, 3, 0]], ml_dtypes.uint2))).tolist() == [
        0b00111001
    ]
    same = (
        "HloModule t\nENTRY e {\n  p = f64[1] parameter(0)\n  ROOT r = s64[1] bitcast-convert(p)\n}"
    )
    assert np.asarray(run(same, np.array([-0.0]))).tolist() == [-(2**63)]
    c = "HloModule t\nENTRY e {\n  p = c64[1] parameter(0)\n  ROOT r = f32[1,2] bitcast-convert(p)\n}"
    assert np.asarray(run(c, np.array([1 - 2j], np.complex64))).tolist() == [[1.0, -2.0]]


def test_reduce_precision_matches_narrower_types_and_xla_rules():
    rng = np.random.default_rng(5)
    magnitudes = 10.0 ** rng.uniform(-4, 4.5, 200)  # normal in f16 (and bf16)
    x = (magnitudes * rng.choice([-1, 1], 200)).astype(np.float32)
    for (e, m), narrow in (((5, 10), np.float16), ((8, 7), ml_dtypes.bfloat16)):
        ours = apply("reduce-precision", x, attrs=f", exponent_bits={e}, mantissa_bits={m}")
        assert same_floats(ours, x.astype(narrow).astype(np.float32)), (e, m)
    special = np.array([np.nan, np.inf, 1e6, 1e-6, 65504.0, 65520.0, -1e-30], np.float32)
    ours = apply("reduce-precision", special, attrs=", exponent_bits=5, mantissa_bits=10")
    assert np.isnan(ours[0]) and ours[1] == np.inf and ours[2] == np.inf  # overflow: inf
    assert ours[3] == 0 and ours[4] == 65504 and ours[5] == np.inf  # f16 denormals: 0
    assert ours[6] == 0 and np.signbit(ours[6])
    no_op = apply(
        "reduce-precision", float_edges(P.F16), attrs=", exponent_bits=5, mantissa_bits=10"
    )
    assert same_floats(no_op, float_edges(P.F16))  # f16's own denormals survive


def test_stochastic_convert_rounds_up_below_the_fraction():
    x = np.array([1.25, 1.25, -1.25, -1.25, np.nan, np.inf, -1e10, 127.5, 2.0, -0.0], np.float32)
    quarter = 2**30  # 0.25 of 2^32
    r = np.array([quarter - 1, quarter, quarter - 1, quarter, 0, 0, 0, 0, 0, 0], np.uint32)
    ours = apply("stochastic-convert", x, r, result="s8")
    assert ours.tolist() == [2, 1, -2, -1, 0, 127, -128, 127, 2, 0]


# -- select, clamp, copy, mulhi ---------------------------------------------------------------------


def test_select_with_array_scalar_and_tuple_operands():
    pred = np.array([True, False, True])
    a, b = np.array([1, 2, 3], np.int32), np.array([7, 8, 9], np.int32)
    assert apply("select", pred, a, b, result="s32").tolist() == [1, 8, 3]
    assert apply("select", np.array(False), a, b, result="s32").tolist() == [7, 8, 9]
    text = """HloModule t
ENTRY e {
  p = pred[] parameter(0)
  a = (f32[2], s32[]) parameter(1)
  b = (f32[2], s32[]) parameter(2)
  ROOT r = (f32[2], s32[]) select(p, a, b)
}"""
    on_true = (np.array([1.0, 2.0], np.float32), np.array(5, np.int32))
    on_false = (np.array([3.0, 4.0], np.float32), np.array(6, np.int32))
    chosen = run(text, np.array(False), on_true, on_false)
    assert chosen[0].tolist() == [3.0, 4.0] and int(chosen[1]) == 6


def test_clamp_with_scalar_bounds_and_nans():
    x = np.array([-5.0, 0.5, 5.0, np.nan, -0.0], np.float32)
    lo, hi = np.array(0.0, np.float32), np.array(1.0, np.float32)
    text = """HloModule t
ENTRY e {
  lo = f32[] parameter(0)
  x = f32[5] parameter(1)
  hi = f32[] parameter(2)
  ROOT r = f32[5] clamp(lo, x, hi)
}"""
    ours = np.asarray(run(text, lo, x, hi))
    assert ours[:3].tolist() == [0.0, 0.5, 1.0] and np.isnan(ours[3])
    assert ours[4] == 0 and not np.signbit(ours[4])  # max(+0, -0) is +0
    ints = apply(
        "clamp",
        np.array([0, 0], np.uint8),
        np.array([3, 200], np.uint8),
        np.array([10, 10], np.uint8),
    )
    assert ints.tolist() == [3, 10]


def test_mulhi_is_the_high_half_of_the_double_width_product():
    for et in (P.S8, P.U8, P.S32, P.U32, P.S64, P.U64, P.S4, P.U2):
        values = int_edges(et)
        a, b = (list(v) for v in zip(*itertools.product(values, values), strict=True))
        ours = apply("mulhi", as_ints(a, et), as_ints(b, et))
        assert ours.tolist() == [
            wrap((p * q) >> et.bit_width, et) for p, q in zip(a, b, strict=True)
        ], et


def test_copy_is_the_identity_on_arrays_and_tuples():
    text = "HloModule t\nENTRY e {\n  p = (f32[2], pred[]) parameter(0)\n  ROOT r = (f32[2], pred[]) copy(p)\n}"
    out = run(text, (np.array([1.0, np.nan], np.float32), np.array(True)))
    assert np.isnan(out[0][1]) and bool(out[1])


# -- shapes and batched scalar computations ------------------------------------------------------


@pytest.mark.parametrize("dims", [(0,), (2, 0, 3), (), (2, 3, 4)], ids=str)
def test_every_opcode_on_empty_scalar_and_rank_3_arrays(dims):
    """Results keep the operands' dimensions (and match the 1-d results element for
    element) for zero-size, rank-0 and rank-3 operands."""
    rng = np.random.default_rng(1)
    size = int(np.prod(dims))
    f = rng.uniform(0.1, 0.9, size).astype(np.float32)
    i = rng.integers(0, 5, size).astype(np.int32)
    z = (f + 1j * f[::-1]).astype(np.complex64)
    flat_and_shaped = []
    for name in TRANSCENDENTAL:
        flat_and_shaped.append((name, (f,), ""))
    for name in ("abs", "negate", "sign", "ceil", "floor", "round-nearest-afz"):
        flat_and_shaped.append((name, (f,), ""))
    for name in ("popcnt", "count-leading-zeros", "not"):
        flat_and_shaped.append((name, (i,), ""))
    for name in INT_BINARY:
        flat_and_shaped.append((name, (i, i), ""))
    for name in FLOAT_BINARY:
        flat_and_shaped.append((name, (f, f), ""))
    flat_and_shaped += [
        ("compare", (f, f), ", direction=LE, type=TOTALORDER"),
        ("reduce-precision", (f,), ", exponent_bits=5, mantissa_bits=2"),
        ("exponential", (z,), ""),
        ("divide", (z, z), ""),
    ]
    for name, args, attrs in flat_and_shaped:
        result = "pred" if name == "compare" else None
        flat = apply(name, *args, result=result, attrs=attrs)
        shaped = apply(name, *(a.reshape(dims) for a in args), result=result, attrs=attrs)
        assert shaped.shape == dims, name
        np.testing.assert_array_equal(shaped.ravel(), flat, err_msg=name)
    assert apply("convert", f.reshape(dims), result="bf16").shape == dims
    assert (
        apply(
            "select", (f > 0.5).reshape(dims), f.reshape(dims), f.reshape(dims), result="f32"
        ).shape
        == dims
    )
    assert apply("complex", f.reshape(dims), f.reshape(dims), result="c64").shape == dims


@pytest.mark.parametrize("src", [t for t in FLOATS if t is not P.F64], ids=ids)
def test_convert_between_floats_is_the_f32_value_rounded_by_ml_dtypes(src):
    """Every float but f64 holds f32 values exactly; XLA then rounds as ml_dtypes does
    (nearest even; overflow to inf, NaN or saturation by kind), NaN -> f4e2m1fn is -0."""
    x = float_edges(src)
    for dst in FLOATS:
        with np.errstate(all="ignore"):
            expected = x.astype(np.float32).astype(dst.dtype)
        if dst is P.F4E2M1FN:
            expected = np.where(np.isnan(x.astype(np.float32)), dst.dtype.type(-0.0), expected)
        assert same_floats(apply("convert", x, result=dst.hlo_name), expected), dst
    pred = apply("convert", np.array([True, False]), result=src.hlo_name)
    assert same_floats(pred, np.array([1.0, 0.0], np.float32).astype(src.dtype))


def test_kernels_run_batched_scalar_computations_on_whole_arrays():
    """call_batched runs scalar computations on arrays: kernels take the element type from
    the instruction and accept any operand shape (numpy scalars included)."""
    module = parse_module("""HloModule t
ENTRY comb {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  gt = pred[] compare(a, b), direction=GT
  big = f32[] maximum(a, b)
  small = f32[] select(gt, b, a)
  diff = f32[] subtract(big, small)
  ROOT c = bf16[] convert(diff)
}""")
    ctx = EvalContext(DeviceContext())
    a = np.array([[1.0, 5.0], [np.nan, -0.0]], np.float32)
    b = np.array([[2.0, 3.0], [1.0, 0.0]], np.float32)
    c = ctx.call_batched(module.entry, [a, b])
    assert c.shape == (2, 2) and c.dtype == ml_dtypes.bfloat16
    assert c.astype(np.float32)[0].tolist() == [1.0, 2.0] and np.isnan(c.astype(np.float32)[1, 0])
    scalar = ctx.call_batched(module.entry, [np.float32(3.0), np.float32(1.0)])
    assert isinstance(scalar, np.ndarray) and scalar.shape == () and float(scalar) == 2.0


# -- the rest of XLA:CPU's choices ------------------------------------------------------------


def test_complex_maximum_and_minimum_compare_real_parts_only():
    a = np.array([1 + 0j, 1 + 2j, complex(np.nan, 0), 2 + 0j], np.complex64)
    b = np.array([1 + 2j, 1 + 0j, 1 + 1j, 1 + 5j], np.complex64)
    assert apply("maximum", a, b).tolist() == [1 + 0j, 1 + 2j, 1 + 1j, 2 + 0j]  # ties keep a
    assert apply("minimum", a, b).tolist() == [1 + 0j, 1 + 2j, 1 + 1j, 1 + 5j]


def test_complex_cbrt_atan2_and_newer_functions_on_ordinary_values():
    rng = np.random.default_rng(11)
    z = (rng.uniform(0.5, 2, 20) + 1j * rng.uniform(0.5, 2, 20)).astype(np.complex128)
    w = (rng.uniform(0.5, 2, 20) + 1j * rng.uniform(0.5, 2, 20)).astype(np.complex128)
    np.testing.assert_allclose(apply("cbrt", z), z ** (1 / 3), rtol=1e-14)  # principal root
    expected = -1j * np.log((w + 1j * z) / np.sqrt(w * w + z * z))  # atan2(z, w)
    np.testing.assert_allclose(apply("atan2", z, w), expected, rtol=1e-12)
    for name, fn in (("acos", np.arccos), ("asinh", np.arcsinh), ("cosh", np.cosh)):
        np.testing.assert_allclose(apply(name, z), fn(z), rtol=1e-14, err_msg=name)


def test_complex_remainder_and_clamp_are_rejected():
    z = np.array([1 + 1j], np.complex64)
    for text in ("remainder(p0, p0)", "clamp(p0, p0, p0)"):
        module = (
            f"HloModule t\nENTRY e {{\n  p0 = c64[1] parameter(0)\n  ROOT r = c64[1] {text}\n}}"
        )
        with pytest.raises(XlaError):
            run(module, z)


def test_stochastic_convert_to_unsigned_extends_xlas_rule():
    """XLA:CPU only decomposes signed targets; the evaluator's rule covers unsigned ones:
    negatives and NaN give 0, too large values the maximum."""
    x = np.array([1.5, 1.5, -3.0, np.nan, 300.0, 254.75], np.float32)
    r = np.array([2**31 - 1, 2**31, 0, 0, 0, 2**32 - 1], np.uint32)
    assert apply("stochastic-convert", x, r, result="u8").tolist() == [2, 1, 0, 0, 255, 254]


def test_reduce_precision_of_narrow_floats_goes_through_f16():
    """XLA widens 8-bit floats to f16 (f8e8m0fnu to f32), reduces, and converts back."""
    tiny = np.array([2.0**-16, 2.0**-15, 1.0, 57344.0], ml_dtypes.float8_e5m2)
    same = apply("reduce-precision", tiny, attrs=", exponent_bits=5, mantissa_bits=2")
    assert same.astype(np.float32).tolist() == [2.0**-16, 2.0**-15, 1.0, 57344.0]  # denormals
    e4m3 = np.array([2.0**-9, 0.5, 448.0, 1.125], ml_dtypes.float8_e4m3fn)
    narrow = apply("reduce-precision", e4m3, attrs=", exponent_bits=4, mantissa_bits=2")
    assert narrow.astype(np.float32)[:2].tolist() == [0.0, 0.5]  # the denormal flushes
    assert np.isnan(narrow.astype(np.float32)[2])  # 448 rounds up to 512: inf, NaN in e4m3fn
    assert narrow.astype(np.float32)[3] == 1.0  # ties to even
    e8m0 = np.array([2.0**-127, 1.0, 2.0**127], ml_dtypes.float8_e8m0fnu)
    kept = apply("reduce-precision", e8m0, attrs=", exponent_bits=8, mantissa_bits=0")
    assert np.isnan(kept.astype(np.float32)[0]) and kept.astype(np.float32)[1:].tolist() == [
        1.0,
        2.0**127,
    ]


def test_bitcast_convert_of_complex_to_and_from_pairs_of_words():
    z = np.array([1.5 - 2j], np.complex128)
    text = "HloModule t\nENTRY e {\n  p = c128[1] parameter(0)\n  ROOT r = u64[1,2] bitcast-convert(p)\n}"
    words = np.asarray(run(text, z))
    assert words.tobytes() == struct.pack("<dd", 1.5, -2.0)
    back = "HloModule t\nENTRY e {\n  p = u64[1,2] parameter(0)\n  ROOT r = c128[1] bitcast-convert(p)\n}"
    assert np.asarray(run(back, words)).tolist() == [1.5 - 2j]


def test_f64_to_f8e8m0fnu_follows_xlas_direct_rounding():
    x = np.array([2.0**-128, 0.99 * 2.0**-127, 2.0**-127, 1.2 * 2.0**-127, 1.4999999, 1.5, 3.0])
    ours = apply("convert", x, result="f8e8m0fnu").astype(np.float64)
    assert np.isnan(ours[:2]).all()  # below the smallest value: NaN (not 2^-127 as via f32)
    assert ours[2:].tolist() == [2.0**-127, 2.0**-126, 1.0, 2.0, 4.0]  # a mantissa of 1.5 rounds up
