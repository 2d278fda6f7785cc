"""The vectorizable math functions (``backends/cpu/math``) against correctly rounded references,
within the ULP bounds their docstrings document, with exact special values.

Errors are distances in representable numbers (ordered bit patterns, so denormals count
as the IEEE spacing they have) from the reference: for f32 the f64 result rounded once,
which is the interpreter's own value; for f64 a long double (x87, 64-bit mantissa)
result rounded once where numpy has the long double function, else numpy's f64 (glibc,
itself within an ULP). f32 inputs: a strided sweep of all 2^32 bit patterns (~4.3M
points) plus dense neighbourhoods of each function's interesting points (0, +-1, the
overflow, underflow and denormal thresholds, the range-reduction boundaries); f64: ~1M
points of the same kinds; hypothesis adds random values of both types. Each kernel is
compiled once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy.backends.cpu.math import approx as math_approx
from xlapy.testing.cpu_kernels import elementwise_kernel
from xlapy.types import PrimitiveType as P

LD = np.longdouble
INF, NAN = np.inf, np.nan
LN2 = float(np.log(2.0))


def _logistic_ld(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, LD)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


@dataclass(frozen=True)
class Function:
    """A function under test: its f32 reference (f64 in, f64 out), its f64 reference (long
    double where numpy has it), the max ULPs for f32 and f64, interesting points (and
    their negatives if ``symmetric``), and exact special values as (x, f32 result, f64
    result) with f64 None when it is the same."""

    f32_reference: Callable[..., np.ndarray]
    f64_reference: Callable[..., np.ndarray]
    ulps: tuple[int, int]
    points32: tuple[float, ...]
    points64: tuple[float, ...]
    specials: tuple[tuple[float, float], ...]


def _half_ln2s(count: int) -> tuple[float, ...]:
    return tuple((k + 0.5) * LN2 for k in range(-count, count))


_PIO2 = np.pi / 2
_TRIG_POINTS32 = (
    *(k * _PIO2 for k in range(0, 13)),
    np.pi / 4,
    1e5,
    1e22,
    3.4e38,
    2.0**-12,
    2.0**-126,
)
_TRIG_POINTS64 = (
    *(k * _PIO2 for k in range(0, 13)),
    np.pi / 4,
    2.0**-27,
    1e22,
    1e300,
    6381956970095103 * 2.0**797,  # the double closest to a multiple of pi/2
    2.0**-1022,
)

FUNCTIONS: dict[str, Function] = {
    "exponential": Function(
        np.exp,
        lambda x: np.exp(x.astype(LD)),
        (1, 1),
        (0.0, 1.0, 88.72283, -87.33655, -103.27893, -103.97208, *_half_ln2s(8)),
        (
            0.0,
            1.0,
            709.782712893384,
            -708.3964185322641,
            -744.4400719213812,
            -745.1332191019412,
            *_half_ln2s(8),
        ),
        ((0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, 0.0), (NAN, NAN), (1e30, INF), (-1e30, 0.0)),
    ),
    "exponential-minus-one": Function(
        np.expm1,
        lambda x: np.expm1(x.astype(LD)),
        (1, 1),
        (0.0, 1.0, -1.0, 88.0, 88.72283, -17.0, -20.0, *_half_ln2s(4)),
        (0.0, 1.0, -1.0, 709.0, 709.782712893384, -37.0, -40.0, *_half_ln2s(4)),
        (
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -1.0),
            (NAN, NAN),
            (1e30, INF),
            (-1e30, -1.0),
        ),
    ),
    "log": Function(
        np.log,
        lambda x: np.log(x.astype(LD)),
        (1, 1),
        (1.0, 0.5, 2.0, 2**0.5, 0.5**0.5, 2.0**-126, 2.0**-149, 2.0**-140, 3.4e38, 1e-30, 1e30),
        (
            1.0,
            0.5,
            2.0,
            2**0.5,
            0.5**0.5,
            2.0**-1022,
            2.0**-1074,
            2.0**-1060,
            1.7e308,
            1e-300,
            1e300,
        ),
        ((0.0, -INF), (-0.0, -INF), (1.0, 0.0), (INF, INF), (-INF, NAN), (-1.0, NAN), (NAN, NAN)),
    ),
    "log-plus-one": Function(
        np.log1p,
        lambda x: np.log1p(x.astype(LD)),
        (1, 1),
        (0.0, -1.0 + 2.0**-24, -0.5, 2**0.5 - 1, 0.5**0.5 - 1, 1.0, 1e-8, 3.4e38, 2.0**-126),
        (0.0, -1.0 + 2.0**-53, -0.5, 2**0.5 - 1, 0.5**0.5 - 1, 1.0, 1e-17, 1.7e308, 2.0**-1022),
        ((0.0, 0.0), (-0.0, -0.0), (-1.0, -INF), (-2.0, NAN), (INF, INF), (-INF, NAN), (NAN, NAN)),
    ),
    "tanh": Function(
        np.tanh,
        lambda x: np.tanh(x.astype(LD)),
        (1, 2),
        (0.0, 0.55, 9.01, 20.0, 1.0, 1e-4, 2.0**-126),
        (0.0, 0.55, 19.06, 40.0, 1.0, 1e-8, 2.0**-1022),
        (
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
            (1e30, 1.0),
            (-1e30, -1.0),
        ),
    ),
    "logistic": Function(
        scipy.special.expit,
        _logistic_ld,
        (1, 1),
        (0.0, 17.33, 16.6, -87.33655, -103.27893, -103.97208, -1.0, 1.0),
        (0.0, 36.7, 37.4, -708.3964185322641, -744.4400719213812, -745.1332191019412, -1.0),
        ((0.0, 0.5), (-0.0, 0.5), (INF, 1.0), (-INF, 0.0), (NAN, NAN), (1e30, 1.0), (-1e30, 0.0)),
    ),
    "sine": Function(
        np.sin,
        lambda x: np.sin(x.astype(LD)),
        (1, 1),
        _TRIG_POINTS32,
        _TRIG_POINTS64,
        ((0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN), (NAN, NAN)),
    ),
    "cosine": Function(
        np.cos,
        lambda x: np.cos(x.astype(LD)),
        (1, 1),
        _TRIG_POINTS32,
        _TRIG_POINTS64,
        ((0.0, 1.0), (-0.0, 1.0), (INF, NAN), (-INF, NAN), (NAN, NAN)),
    ),
    "tan": Function(
        np.tan,
        lambda x: np.tan(x.astype(LD)),
        (1, 2),
        _TRIG_POINTS32,
        _TRIG_POINTS64,
        ((0.0, 0.0), (-0.0, -0.0), (INF, NAN), (-INF, NAN), (NAN, NAN)),
    ),
    "erf": Function(
        scipy.special.erf,
        scipy.special.erf,  # no long double erf: scipy's, itself up to 2 ULPs off
        (1, 4),
        (0.0, 1.0, 2.5, 3.9, 4.0, 1e-30, 2.0**-126),
        (0.0, 0.875, 1.5, 2.25, 3.25, 4.5, 5.9, 6.0, 1e-300, 2.0**-1022),
        (
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
            (10.0, 1.0),
            (-10.0, -1.0),
        ),
    ),
    "cbrt": Function(
        np.cbrt,
        lambda x: np.cbrt(x.astype(LD)),
        (1, 1),
        (1.0, 8.0, 2.0**-126, 2.0**-149, 3.4e38, 1e-20),
        (1.0, 8.0, 2.0**-1022, 2.0**-1074, 2.0**900, 1.7e308),
        ((0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -INF), (NAN, NAN), (-8.0, -2.0), (27.0, 3.0)),
    ),
    "rsqrt": Function(
        lambda x: 1 / np.sqrt(x),
        lambda x: 1 / np.sqrt(x.astype(LD)),
        (0, 1),
        (1.0, 4.0, 2.0**-126, 2.0**-149, 3.4e38),
        (1.0, 4.0, 2.0**-1022, 2.0**-1074, 1.7e308),
        ((0.0, INF), (-0.0, -INF), (INF, 0.0), (-1.0, NAN), (-INF, NAN), (NAN, NAN), (4.0, 0.5)),
    ),
}
BINARY: dict[str, tuple[Callable[..., np.ndarray], tuple[int, int]]] = {
    "atan2": (np.arctan2, (1, 2)),
    "power": (np.power, (0, 1)),
}

TYPES = {P.F32: np.float32, P.F64: np.float64}
_kernels: dict = {}


def kernel(name: str, et: P) -> Callable[..., np.ndarray]:
    if (name, et) not in _kernels:
        fn = math_approx.APPROXIMATIONS[name]
        arity = 2 if name in BINARY else 1
        _kernels[name, et] = elementwise_kernel(lambda b, v: fn(b, *v), [et] * arity, et)
    return _kernels[name, et]


def reference(name: str, dtype: type, *xs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if name in BINARY:
            fn = BINARY[name][0]
            wide = np.float64 if dtype == np.float32 else LD
            return np.asarray(fn(*(x.astype(wide) for x in xs))).astype(dtype)
        if dtype == np.float32:
            fn32 = FUNCTIONS[name].f32_reference
            return np.asarray(fn32(*(x.astype(np.float64) for x in xs))).astype(dtype)
        return np.asarray(FUNCTIONS[name].f64_reference(*xs)).astype(dtype)


def ulp_distance(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """How many representable numbers apart (0 for equal values and for two NaNs; huge
    for NaN against a number). Bit patterns, ordered like the values, in int64 (f64 pairs
    of opposite signs in float64, which is exact enough for a distance that large)."""
    if got.dtype == np.float32:
        bits, low = got.view(np.int32).astype(np.int64), -(2**31)
        want_bits = want.view(np.int32).astype(np.int64)
    else:
        bits, low = got.view(np.int64), np.iinfo(np.int64).min
        want_bits = want.view(np.int64)
    g = np.where(bits < 0, low - bits, bits)
    w = np.where(want_bits < 0, low - want_bits, want_bits)
    same_sign = (g >= 0) == (w >= 0)
    with np.errstate(over="ignore"):
        distance = np.where(
            same_sign,
            np.abs(g - w).astype(np.float64),
            np.abs(g).astype(np.float64) + np.abs(w).astype(np.float64),
        )
    nan_got, nan_want = np.isnan(got), np.isnan(want)
    distance[nan_got & nan_want] = 0
    distance[nan_got != nan_want] = np.inf
    return distance


def neighbourhoods(points: tuple[float, ...], dtype: type, width: int) -> np.ndarray:
    """Every value within ``width`` representable numbers of each point and its negative."""
    int_type = np.int32 if dtype == np.float32 else np.int64
    steps = np.arange(-width, width + 1, dtype=np.int64)
    out = []
    for p in points:
        for signed in (p, -p):
            base = np.array([signed], dtype).view(int_type).astype(np.int64)
            bits = base + np.where(
                signed < 0 or (signed == 0 and np.signbit(signed)), -steps, steps
            )
            bits = bits[(bits >= np.iinfo(int_type).min) & (bits <= np.iinfo(int_type).max)]
            out.append(bits.astype(int_type).view(dtype))
    return np.concatenate(out)


def sample(name: str, dtype: type) -> np.ndarray:
    fn = FUNCTIONS[name]
    rng = np.random.default_rng(20240601)
    if dtype == np.float32:
        sweep = np.arange(0, 2**32, 997, dtype=np.uint64).astype(np.uint32).view(np.float32)
        near = neighbourhoods(fn.points32, dtype, 20_000)
        wide = rng.uniform(-128, 128, 200_000).astype(dtype)
        return np.concatenate([sweep, near, wide])
    sweep = rng.integers(0, 2**64, 400_000, dtype=np.uint64).view(np.float64)
    logs = np.exp(rng.uniform(-745, 709, 200_000)) * rng.choice([-1.0, 1.0], 200_000)
    near = neighbourhoods(fn.points64, dtype, 2_000)
    wide = np.concatenate([rng.uniform(-2, 2, 100_000), rng.uniform(-800, 800, 100_000)])
    return np.concatenate([sweep, logs, near, wide])


CASES = [(name, et) for name in FUNCTIONS for et in TYPES]


@pytest.mark.parametrize(("name", "et"), CASES, ids=[f"{n}-{t.hlo_name}" for n, t in CASES])
def test_within_documented_ulps(name: str, et: P) -> None:
    dtype = TYPES[et]
    xs = sample(name, dtype)
    got = kernel(name, et)(xs)
    distance = ulp_distance(got, reference(name, dtype, xs))
    worst = int(np.argmax(distance))
    bound = FUNCTIONS[name].ulps[0 if et is P.F32 else 1]
    assert distance[worst] <= bound, (
        f"{name}({xs[worst]!r}) = {got[worst]!r}: {distance[worst]} ULPs"
    )


@pytest.mark.parametrize(("name", "et"), CASES, ids=[f"{n}-{t.hlo_name}" for n, t in CASES])
def test_special_values_exact(name: str, et: P) -> None:
    dtype = TYPES[et]
    xs = np.array([x for x, _ in FUNCTIONS[name].specials], dtype)
    want = np.array([y for _, y in FUNCTIONS[name].specials], dtype)
    got = kernel(name, et)(xs)
    assert np.array_equal(np.isnan(got), np.isnan(want)), (xs, got)
    same = ~np.isnan(want)
    assert np.array_equal(got[same], want[same]), (xs, got)
    assert np.array_equal(np.signbit(got[same]), np.signbit(want[same])), (xs, got)


def test_denormal_results_and_inputs() -> None:
    """No flush to zero, in or out: exp(-100) in f32 is the denormal ~3.7e-44."""
    got = kernel("exponential", P.F32)(np.array([-100.0, -103.0], np.float32))
    assert np.array_equal(got, np.exp(np.array([-100.0, -103.0])).astype(np.float32))
    assert 0 < got[0] < np.finfo(np.float32).tiny
    tiny = np.array([1e-45, 1e-40, 1e-39], np.float32)
    assert np.array_equal(
        kernel("log", P.F32)(tiny), np.log(tiny.astype(np.float64)).astype(np.float32)
    )
    assert np.array_equal(kernel("tanh", P.F32)(tiny), tiny)
    assert np.array_equal(kernel("exponential-minus-one", P.F64)(np.array([5e-324])), [5e-324])


def binary_sample(name: str, dtype: type) -> tuple[np.ndarray, np.ndarray]:
    """Random bit patterns, moderate values of both signs, and for power the regions
    where it matters: bases near 1, integer exponents (odd and even), results near
    overflow and underflow."""
    rng = np.random.default_rng(7)
    n = 300_000 if dtype == np.float32 else 150_000
    width = 32 if dtype == np.float32 else 64
    int_type = np.uint32 if dtype == np.float32 else np.uint64

    def raw() -> np.ndarray:
        return rng.integers(0, 2**width, n, dtype=np.uint64).astype(int_type).view(dtype)

    def moderate() -> np.ndarray:
        return (np.exp(rng.uniform(-20, 20, n)) * rng.choice([-1.0, 1.0], n)).astype(dtype)

    xs = [raw(), moderate(), rng.uniform(-4, 4, n).astype(dtype)]
    ys = [raw(), moderate(), rng.uniform(-4, 4, n).astype(dtype)]
    if name == "power":
        base = np.exp(rng.uniform(-3, 3, n)) * rng.choice([-1.0, 1.0], n)
        xs += [base.astype(dtype), (1 + rng.uniform(-1e-3, 1e-3, n)).astype(dtype)]
        ys += [
            np.round(rng.uniform(-60, 60, n)).astype(dtype),
            rng.uniform(-1e5, 1e5, n).astype(dtype),
        ]
        top = 88.7 if dtype == np.float32 else 709.7
        bottom = -103.9 if dtype == np.float32 else -745.1
        x = np.exp(rng.uniform(0.1, 3, n))
        target = rng.uniform(bottom - 1, top + 1, n)
        xs.append(x.astype(dtype))
        ys.append((target / np.log(x)).astype(dtype))
    return np.concatenate(xs), np.concatenate(ys)


BINARY_CASES = [(name, et) for name in BINARY for et in TYPES]


@pytest.mark.parametrize(
    ("name", "et"), BINARY_CASES, ids=[f"{n}-{t.hlo_name}" for n, t in BINARY_CASES]
)
def test_binary_within_documented_ulps(name: str, et: P) -> None:
    dtype = TYPES[et]
    xs, ys = binary_sample(name, dtype)
    got = kernel(name, et)(xs, ys)
    distance = ulp_distance(got, reference(name, dtype, xs, ys))
    worst = int(np.argmax(distance))
    bound = BINARY[name][1][0 if et is P.F32 else 1]
    assert distance[worst] <= bound, (
        f"{name}({xs[worst]!r}, {ys[worst]!r}) = {got[worst]!r}: {distance[worst]} ULPs"
    )


_SPECIAL_OPERANDS = [
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    -0.5,
    2.0,
    -2.0,
    3.0,
    -3.0,
    2.5,
    -2.5,
    INF,
    -INF,
    NAN,
]


@pytest.mark.parametrize(
    ("name", "et"), BINARY_CASES, ids=[f"{n}-{t.hlo_name}" for n, t in BINARY_CASES]
)
def test_binary_special_values(name: str, et: P) -> None:
    """Every pair of special operands: C99's values (numpy's) with their signs; results
    that are 0, +-1, +-inf, NaN or an integer power of these operands exactly."""
    dtype = TYPES[et]
    pairs = np.array([(a, c) for a in _SPECIAL_OPERANDS for c in _SPECIAL_OPERANDS], dtype)
    xs, ys = pairs[:, 0].copy(), pairs[:, 1].copy()
    got = kernel(name, et)(xs, ys)
    with np.errstate(all="ignore"):
        want = BINARY[name][0](xs.astype(np.float64), ys.astype(np.float64)).astype(dtype)
    assert np.array_equal(np.isnan(got), np.isnan(want)), list(zip(xs, ys, got, want, strict=True))
    same = ~np.isnan(want)
    assert np.array_equal(np.signbit(got[same]), np.signbit(want[same]))
    exactly_representable = (name == "power") & (ys == np.round(ys))  # 2^3, 2.5^-2...
    exact = same & (np.isin(np.abs(want), [0.0, 1.0, INF]) | exactly_representable)
    assert np.array_equal(got[exact], want[exact]), list(
        zip(xs[exact], ys[exact], got[exact], want[exact], strict=True)
    )
    bound = BINARY[name][1][0 if et is P.F32 else 1]
    assert ulp_distance(got, want).max() <= bound


@settings(max_examples=100, deadline=None)
@given(
    st.sampled_from(sorted(BINARY)),
    st.sampled_from([P.F32, P.F64]),
    st.lists(st.tuples(st.floats(), st.floats()), min_size=1, max_size=8),
)
def test_binary_random_values(name: str, et: P, values: list[tuple[float, float]]) -> None:
    dtype = TYPES[et]
    with np.errstate(over="ignore"):
        pairs = np.array(values, np.float64).astype(dtype)
    xs, ys = pairs[:, 0].copy(), pairs[:, 1].copy()
    got = kernel(name, et)(xs, ys)
    bound = BINARY[name][1][0 if et is P.F32 else 1]
    assert ulp_distance(got, reference(name, dtype, xs, ys)).max() <= bound, (xs, ys)


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(sorted(FUNCTIONS)),
    st.sampled_from([P.F32, P.F64]),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=8),
)
def test_random_values(name: str, et: P, values: list[float]) -> None:
    dtype = TYPES[et]
    with np.errstate(over="ignore"):
        xs = np.array(values, np.float64).astype(dtype)
    got = kernel(name, et)(xs)
    bound = FUNCTIONS[name].ulps[0 if et is P.F32 else 1]
    assert ulp_distance(got, reference(name, dtype, xs)).max() <= bound, xs


def test_code_is_vectorized() -> None:
    """A loop around each function becomes SIMD code for the AVX2 floor of this project's
    machines (x86-64-v3, whatever the host or XLAPY_CPU_TARGET): no calls but
    intrinsics, vector types in the optimized IR. Each kernel is also compiled as usual,
    for the target the tests run on, since it is then called."""
    from xlapy.backends.cpu.runtime import jit
    from xlapy.testing import cpu_kernels

    seen: list[str] = []
    original = cpu_kernels.jit.compile_module

    avx2 = jit.resolve_target("x86-64-v3")

    def keep(module, **kwargs):
        seen.append(original(module, keep_ir=True, target=avx2).optimized_ir)
        return original(module, **kwargs)

    cpu_kernels.jit.compile_module = keep
    try:
        for name in math_approx.APPROXIMATIONS:
            fn = math_approx.APPROXIMATIONS[name]
            arity = 2 if name in BINARY else 1
            for et in TYPES:
                elementwise_kernel(lambda b, v, fn=fn: fn(b, *v), [et] * arity, et)
    finally:
        cpu_kernels.jit.compile_module = original
    assert jit.compile_module is original
    names = [(name, et) for name in math_approx.APPROXIMATIONS for et in TYPES]
    for (name, et), text in zip(names, seen, strict=True):
        assert ("x float>" if et is P.F32 else "x double>") in text, (name, et)
        called = {
            line.split("@")[1].split("(")[0] for line in text.splitlines() if " call " in line
        }
        assert all(c.startswith("llvm.") for c in called), (name, called)


def test_every_approximation_is_tested() -> None:
    assert set(math_approx.APPROXIMATIONS) == set(FUNCTIONS) | set(BINARY)
