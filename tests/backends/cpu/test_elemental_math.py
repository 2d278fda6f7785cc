"""``elemental``'s transcendental functions against the interpreter, within the ULP bounds
of the table in ``elemental``'s docstring: every code of the 16-, 8- and 4-bit types, and
edge values, wide random bit patterns and each function's interesting range for f32 and
f64. Special values (NaN, infinities, zeros) must agree exactly (a NaN on one side only is
an infinite distance)."""

from __future__ import annotations

import functools
import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from elemental_harness import (  # noqa: E402
    FLOATS,
    SIZES,
    WIDE_FLOATS,
    P,
    all_codes,
    compile_kernels,
    float_edges,
    ids,
    instruction,
    interpreter,
    kernel,
    native,
    pairs,
    prepare,
    random_floats,
    ulp_distance,
)
from target_matrix import TARGETS, use_target  # noqa: E402

from xlapy.backends.cpu.elemental import emit_elemental  # noqa: E402
from xlapy.backends.cpu.elemental import floating as elemental_float  # noqa: E402
from xlapy.backends.cpu.elemental.floating import approximation  # noqa: E402

# math_approx's bounds (f32, f64) against the interpreter for the opcodes it implements
# today: its documented bounds (against the correctly rounded value) and, for f64, one
# more for the interpreter's own error (numpy uses SVML on AVX-512, scipy's expit is
# 1/(1+exp(-x))). An opcode it adds later is held to CEILING until its bound is written
# here and in elemental's docstring.
APPROX = {
    "exponential": (1, 2),
    "exponential-minus-one": (1, 2),
    "log": (1, 2),
    "log-plus-one": (1, 2),
    "tanh": (1, 3),
    "logistic": (1, 3),
    "rsqrt": (0, 0),
    "cbrt": (1, 4),  # numpy 2.4's f64 cbrt is 3 ULPs off at 6.96855742575775e120
    "erf": (1, 4),
    "power": (1, 4),
    "sine": (1, 2),
    "cosine": (1, 2),
    "tan": (1, 3),
    "atan2": (1, 3),
}
CEILING = 4
# opcode -> (f32 ULPs, f64 ULPs, sampling range) of the libm-in-double implementation.
LIBM = {
    "exponential": (1, 2, (-110.0, 90.0)),
    "log": (1, 2, None),
    "exponential-minus-one": (1, 2, (-40.0, 40.0)),
    "log-plus-one": (1, 2, (-0.99, 50.0)),
    "tanh": (1, 2, (-12.0, 12.0)),
    "logistic": (1, 3, (-120.0, 40.0)),
    "sine": (1, 2, (-10.0, 10.0)),
    "cosine": (1, 2, (-10.0, 10.0)),
    "tan": (1, 2, (-10.0, 10.0)),
    "sqrt": (0, 0, None),
    "rsqrt": (0, 0, None),
    "cbrt": (1, 4, (-1e3, 1e3)),
    "erf": (1, 4, (-6.0, 6.0)),
    "acos": (1, 4, (-1.0, 1.0)),
    "acosh": (1, 4, (1.0, 50.0)),
    "asin": (1, 4, (-1.0, 1.0)),
    "asinh": (1, 4, (-50.0, 50.0)),
    "atan": (1, 4, (-50.0, 50.0)),
    "atanh": (1, 4, (-1.0, 1.0)),
    "cosh": (1, 4, (-700.0, 700.0)),
    "sinh": (1, 4, (-700.0, 700.0)),
}
BINARY = {"power": (1, 4), "atan2": (1, 4)}
NARROW = [t for t in FLOATS if t not in (P.F32, P.F64)]


def bound(op, et, libm=False):
    """The documented bound: the approximation's where math_approx has the opcode (unless
    ``libm``: the fallback's)."""
    if et in NARROW:
        return 0 if op in ("sqrt", "rsqrt") else 1
    column = 0 if et is P.F32 else 1
    if approximation(op) is not None and not libm:
        return APPROX[op][column] if op in APPROX else CEILING
    return (LIBM[op] if op in LIBM else BINARY[op])[column]


def samples(op, et, n=20_000):
    rng = np.random.default_rng(11)
    if et.bit_width <= 16:
        return all_codes(et)
    spread = LIBM[op][2] if op in LIBM else (-5.0, 5.0)
    ranged = (
        np.exp(rng.uniform(-700 if et is P.F64 else -100, 80, n))
        if spread is None
        else rng.uniform(*spread, n)
    )
    return np.concatenate([float_edges(et), random_floats(et, n, 12), ranged.astype(et.dtype)])


# Below this, scipy's expit (the interpreter's f64 logistic) is 0 because exp(-x)
# overflows, where the true value (which math_approx's logistic gives) is a denormal.
EXPIT_UNDERFLOW = -709.78


def worst(op, args, et):
    got = native(op, tuple(et for _ in args), et)(*args)
    want = interpreter(op, list(args), et)
    distance = ulp_distance(got, want, et)
    if op == "logistic" and et is P.F64:  # see test_logistic_below_expits_underflow
        distance = np.where(args[0] < EXPIT_UNDERFLOW, 0.0, distance)
    if et is P.F8E8M0FNU:
        # No zero: an f32 result of 0 becomes NaN, one ULP above it 2^-127 (code 0), so an
        # f32 result one ULP off at the bottom of the range is one step off here.
        codes = (got.view(np.uint8), want.view(np.uint8))
        bottom = ((codes[0] == 0) & (codes[1] == 0xFF)) | ((codes[0] == 0xFF) & (codes[1] == 0))
        distance = np.where(bottom, 1.0, distance)
    k = int(np.argmax(distance))
    return float(distance[k]), [a[k] for a in args], got[k], want[k]


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_unary_functions_within_documented_ulps(et):
    prepare((op, (et,), et, "") for op in LIBM)
    for op in LIBM:
        ulps, where, got, want = worst(op, [samples(op, et)], et)
        assert ulps <= bound(op, et), (op, et.hlo_name, ulps, where, got, want)


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_power_and_atan2_within_documented_ulps(et):
    prepare((op, (et, et), et, "") for op in BINARY)
    rng = np.random.default_rng(13)
    x = samples("power", et)
    if et.bit_width <= 8:
        x, y = (a.ravel() for a in np.meshgrid(x, x))
    else:
        y = np.concatenate([rng.uniform(-5, 5, x.size // 2), rng.standard_normal(x.size)])
        y = rng.permutation(y[: x.size]).astype(et.dtype)
        x = np.abs(x) if et.bit_width > 16 else x  # and the negative bases below
        x = np.concatenate([x, -x[:500]])
        y = np.concatenate([y, np.round(y[:500])])
        if et.bit_width > 16:  # and every pair of edge values
            a, b = pairs(float_edges(et))
            x, y = np.concatenate([x, a]), np.concatenate([y, b])
    for op in BINARY:
        ulps, where, got, want = worst(op, [x, y], et)
        assert ulps <= bound(op, et), (op, et.hlo_name, ulps, where, got, want)


LIBM_TYPES = [P.F32, P.F64, P.F16, P.F8E5M2]


@pytest.mark.parametrize("et", LIBM_TYPES, ids=ids)
def test_libm_fallback_within_documented_ulps(et, monkeypatch):
    """Without math_approx (missing, or without the opcode) every function calls libm in
    double: within the LIBM bounds, whatever math_approx implements today."""
    monkeypatch.setattr(elemental_float, "approximation", lambda name: None)
    entries = {}
    for op in [*LIBM, *BINARY]:
        spec = (op, (et,) * (2 if op in BINARY else 1), et, "")
        root = instruction(spec)
        emit = functools.partial(lambda root, b, v: emit_elemental(b, root, v), root)
        entries["libm", spec] = (emit, spec[1], et)
    compile_kernels(entries)
    rng = np.random.default_rng(17)
    for (_, (op, in_types, _, _)), _entry in entries.items():
        x = samples(op, et)
        args = (
            [x] if len(in_types) == 1 else [np.abs(x), rng.uniform(-5, 5, x.size).astype(et.dtype)]
        )
        got = kernel(("libm", (op, in_types, et, "")))(*args)
        want = interpreter(op, args, et)
        distance = ulp_distance(got, want, et)
        if op == "logistic" and et is P.F64:
            distance = np.where(args[0] < EXPIT_UNDERFLOW, 0.0, distance)
        k = int(np.argmax(distance))
        assert distance[k] <= bound(op, et, libm=True), (
            op,
            distance[k],
            args[0][k],
            got[k],
            want[k],
        )


def test_special_values_are_exact():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
    for op in LIBM:
        got = native(op, (P.F32,), P.F32)(x)
        want = interpreter(op, [x], P.F32)
        with np.errstate(all="ignore"):
            exact = (got == want) & (np.signbit(got) == np.signbit(want))
        assert np.all(exact | (np.isnan(got) & np.isnan(want))), (op, got, want)
    p = np.array([0.0, 1.0, np.nan, -8.0, 0.0, -0.0], np.float32)
    q = np.array([0.0, np.nan, 0.0, 1 / 3, -1.0, -1.0], np.float32)
    got = native("power", (P.F32, P.F32), P.F32)(p, q)
    assert got[:3].tolist() == [1.0, 1.0, 1.0] and np.isnan(got[3])  # C's pow
    assert got[4] == np.inf and got[5] == -np.inf


def test_logistic_keeps_f32_denormals_and_matches_scipy_in_f64():
    x = np.array([-100.0, -88.0, -103.0, 0.0, 20.0], np.float32)
    got = native("logistic", (P.F32,), P.F32)(x)
    assert got[0] > 0 and got[2] > 0 and got[3] == 0.5  # denormal results, not 0
    assert worst("logistic", [x], P.F32)[0] <= 1
    far = np.array([-700.0, -709.7, 36.0, 40.0])
    assert worst("logistic", [far], P.F64)[0] <= bound("logistic", P.F64)


def test_logistic_below_expits_underflow():
    """Below x = -709.78 scipy's f64 expit is 0 (exp(-x) overflows in 1/(1+exp(-x))); the
    native result is either that 0 (libm formula) or the true denormal (math_approx):
    either way smaller than the smallest normal f64."""
    x = np.array([-709.8, -710.0, -720.0, -745.0, -746.0, -1e300, -np.inf])
    got = native("logistic", (P.F64,), P.F64)(x)
    assert interpreter("logistic", [x], P.F64).tolist() == [0.0] * x.size
    assert np.all((got >= 0) & (got < np.finfo(np.float64).tiny)), got


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(LIBM)),
    st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=40),
)
def test_random_f32_values(op, values):
    x = np.array(values, np.float32)
    ulps, where, got, want = worst(op, [x], P.F32)
    assert ulps <= bound(op, P.F32), (op, ulps, where, got, want)


def _target_cases(et):
    """Every unary function on the edge values (every code of the 16-bit types) and random
    values; power and atan2 on pairs of edge values (of 300 random codes for 16 bits)."""
    edges = float_edges(et)
    x = edges if et.bit_width <= 16 else np.concatenate([edges, random_floats(et, 4000, 5)])
    if et.bit_width <= 16:
        edges = edges[np.random.default_rng(19).integers(0, edges.size, 300)]
    a, b = pairs(edges)
    return [(op, [x]) for op in LIBM] + [(op, [a, b]) for op in BINARY]


def _same_bits(got, want):
    """Bit for bit, any NaN equal to any NaN (a NaN's payload is the implementation's)."""
    with np.errstate(invalid="ignore"):
        nan = np.isnan(got.astype(np.float64)) & np.isnan(want.astype(np.float64))
    differ = (got.view(f"u{got.itemsize}") != want.view(f"u{want.itemsize}")) & ~nan
    return np.flatnonzero(differ)


@pytest.mark.parametrize("spec", TARGETS)
@pytest.mark.parametrize("et", WIDE_FLOATS, ids=ids)
def test_math_on_each_target(et, spec, monkeypatch):
    """Compiled for another CPU (no AVX, AVX2+FMA, 512-bit AVX-512), every function stays
    within its bounds with exact special values, and gives the host build's bits: vector
    width and instruction set change no result."""
    cases = _target_cases(et)
    specs = [(op, (et,) * len(args), et, "") for op, args in cases]
    prepare(specs)
    host = [native(*spec[:3])(*args) for spec, (_, args) in zip(specs, cases, strict=True)]
    use_target(monkeypatch, spec)
    prepare(specs)
    for (op, args), before in zip(cases, host, strict=True):
        ulps, where, got, want = worst(op, args, et)
        assert ulps <= bound(op, et), (spec, op, et.hlo_name, ulps, where, got, want)
        run = native(op, (et,) * len(args), et)
        now = run(*args)
        bad = _same_bits(now, before)
        assert not bad.size, (spec, op, [a[bad[:4]] for a in args], now[bad[:4]], before[bad[:4]])
        for size in SIZES:  # the scalar remainder as well as the vector body
            assert not _same_bits(run(*(a[:size] for a in args)), now[:size]).size, (op, size)
