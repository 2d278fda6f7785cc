"""Complex numbers on the CPU backend, natively, against the interpreter: elementwise
arithmetic and functions (with special values), conversions, comparisons, movement,
reductions, sorts, gathers and scatters, dots and the linear-algebra routines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

COMPLEX = ["c64", "c128"]
PART = {"c64": "f32", "c128": "f64"}
DTYPE = {"c64": np.complex64, "c128": np.complex128, "f32": np.float32, "f64": np.float64}
# Relative error of a part, against the result's magnitude: the real functions inside the
# formulas are within a few ULPs of the interpreter's, and the formulas carry that.
TOLERANCE = {"c64": 2e-6, "c128": 4e-15}
SPECIALS = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-30, 3e30]


def _compile(text: str) -> xlapy.Executable:
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == [], executable.fallback_ops
    return executable


def _values(rng: np.random.Generator, t: str, shape: tuple[int, ...], specials: bool) -> np.ndarray:
    parts = rng.normal(scale=2.0, size=(2, *shape))
    if specials:
        pick = rng.random((2, *shape)) < 0.3
        parts = np.where(pick, rng.choice(SPECIALS, (2, *shape)), parts)
    out = np.empty(shape, DTYPE[t])
    out.real, out.imag = parts[0], parts[1]
    return out


def _assert_close(
    got: np.ndarray, want: np.ndarray, t: str | None, normwise: bool = False
) -> None:
    """Bit for bit when ``t`` is None; else each part within the tolerance of ``t``
    relative to the result's magnitude (with ``normwise``, the largest one: linear
    algebra's errors scale with the matrices, not with each element), with NaNs and
    infinities where the interpreter has them."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if t is None:  # the same bits, but for NaN payloads
        if got.dtype.kind != "c":
            np.testing.assert_array_equal(got, want)
            return
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
            same = ~np.isnan(w)
            np.testing.assert_array_equal(np.signbit(g[same]), np.signbit(w[same]))
            np.testing.assert_array_equal(g[same], w[same])
        return
    scale = np.abs(want.astype(np.complex128))
    if normwise and scale.size and np.isfinite(scale).all():
        scale = np.full_like(scale, scale.max())
    for g, w in ((got.real, want.real), (got.imag, want.imag)):
        g, w = g.astype(np.float64), w.astype(np.float64)
        np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
        infinite = np.isinf(w)
        np.testing.assert_array_equal(g[infinite], w[infinite])
        finite = np.isfinite(w) & np.isfinite(scale)
        error = np.abs(g[finite] - w[finite])
        bound = TOLERANCE[t] * np.maximum(scale[finite], np.finfo(np.float32).tiny)
        assert np.all(error <= bound), (g[finite][error > bound], w[finite][error > bound])


EXACT_BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum"]
MATH_BINARY = ["power", "atan2"]
EXACT_UNARY = ["negate", "sign", "sqrt", "copy"]
MATH_UNARY = [
    "exponential", "exponential-minus-one", "log", "log-plus-one", "rsqrt", "cbrt", "tanh",
    "tan", "sine", "cosine", "logistic", "acos", "asin", "atan", "acosh", "asinh", "atanh",
    "cosh", "sinh",
]  # fmt: skip


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(COMPLEX),
    st.sampled_from(EXACT_BINARY + MATH_BINARY),
    st.lists(st.integers(0, 5), max_size=2),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_binary_ops_match_the_interpreter(t, op, dims, specials, seed):
    shape = f"{t}[{','.join(map(str, dims))}]"
    text = f"""HloModule b
ENTRY e {{
  x = {shape} parameter(0)
  y = {shape} parameter(1)
  ROOT r = {shape} {op}(x, y)
}}"""
    rng = np.random.default_rng(seed)
    math = op in MATH_BINARY
    x, y = (_values(rng, t, tuple(dims), specials and not math) for _ in range(2))
    # c128 multiply and divide: the interpreter's f64 FMA is x87's, an ULP off where a
    # product cancels; XLA:CPU's (and this backend's) is the correctly rounded one.
    exact = not math and not (t == "c128" and op in ("multiply", "divide"))
    _assert_close(_compile(text)(x, y), interpret(text, x, y), None if exact else t)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(COMPLEX),
    st.sampled_from(EXACT_UNARY + MATH_UNARY),
    st.lists(st.integers(0, 5), max_size=2),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_unary_ops_match_the_interpreter(t, op, dims, specials, seed):
    shape = f"{t}[{','.join(map(str, dims))}]"
    text = f"""HloModule u
ENTRY e {{
  x = {shape} parameter(0)
  ROOT r = {shape} {op}(x)
}}"""
    rng = np.random.default_rng(seed)
    math = op in MATH_UNARY
    x = _values(rng, t, tuple(dims), specials and not math)
    exact = not math and not (t == "c128" and op == "sign")
    _assert_close(_compile(text)(x), interpret(text, x), None if exact else t)


@pytest.mark.parametrize("t", COMPLEX)
@pytest.mark.parametrize("op", MATH_UNARY)
def test_functions_at_special_values_match_the_interpreter(t, op):
    """Infinities, NaNs and signed zeros in either part, each formula's corner cases."""
    grid = np.array(SPECIALS)
    x = np.empty((grid.size, grid.size), DTYPE[t])
    x.real, x.imag = grid[:, None], grid[None, :]
    text = f"""HloModule u
ENTRY e {{
  x = {t}[{grid.size},{grid.size}] parameter(0)
  ROOT r = {t}[{grid.size},{grid.size}] {op}(x)
}}"""
    _assert_close(_compile(text)(x), interpret(text, x), t)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(COMPLEX), st.integers(0, 7), st.integers(0, 2**32 - 1))
def test_parts_abs_compare_select_and_complex_match_the_interpreter(t, n, seed):
    f = PART[t]
    text = f"""HloModule p
ENTRY e {{
  x = {t}[{n}] parameter(0)
  y = {t}[{n}] parameter(1)
  re = {f}[{n}] real(x)
  im = {f}[{n}] imag(x)
  mag = {f}[{n}] abs(x)
  z = {t}[{n}] complex(im, re)
  eq = pred[{n}] compare(x, y), direction=EQ
  ne = pred[{n}] compare(x, z), direction=NE
  s = {t}[{n}] select(ne, z, y)
  ROOT r = ({f}[{n}], {f}[{n}], {f}[{n}], {t}[{n}], pred[{n}], pred[{n}], {t}[{n}]) tuple(re, im, mag, z, eq, ne, s)
}}"""
    rng = np.random.default_rng(seed)
    x = _values(rng, t, (n,), True)
    y = np.where(rng.random(n) < 0.5, x, _values(rng, t, (n,), True)).astype(DTYPE[t])
    for got, want in zip(_compile(text)(x, y), interpret(text, x, y), strict=True):
        _assert_close(got, want, None)


REAL_SOURCES = ["pred", "s8", "u16", "s32", "s64", "u64", "f16", "bf16", "f32", "f64"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(REAL_SOURCES + COMPLEX),
    st.sampled_from(COMPLEX),
    st.integers(0, 6),
    st.integers(0, 2**32 - 1),
)
def test_converts_to_complex_match_the_interpreter(src, dst, n, seed):
    text = f"""HloModule c
ENTRY e {{
  x = {src}[{n}] parameter(0)
  ROOT r = {dst}[{n}] convert(x)
}}"""
    rng = np.random.default_rng(seed)
    if src in COMPLEX:
        x = _values(rng, src, (n,), True)
    else:
        dtype = xlapy.PrimitiveType.from_hlo_name(src).dtype
        x = (rng.normal(size=n) * 1e3).astype(np.float64)
        if src == "pred" or src[0] in "su":
            x = np.abs(x) if src[0] == "u" else x
            x = (x > 0) if src == "pred" else x.astype(np.int64)
        x = np.asarray(x).astype(dtype)
    _assert_close(_compile(text)(x), interpret(text, x), None)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(COMPLEX), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_movement_and_reductions_match_the_interpreter(t, rows, cols, seed):
    text = f"""HloModule m
add {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT s = {t}[] add(a, b)
}}
mul {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT s = {t}[] multiply(a, b)
}}
ENTRY e {{
  x = {t}[{rows},{cols}]{{0,1}} parameter(0)
  i = s32[] parameter(1)
  zero = {t}[] constant((0, 0))
  one = {t}[] constant((1, -0.5))
  sums = {t}[{cols}] reduce(x, zero), dimensions={{0}}, to_apply=add
  products = {t}[{rows}] reduce(x, one), dimensions={{1}}, to_apply=mul
  windows = {t}[{rows},{cols}] reduce-window(x, zero), window={{size=2x2 pad=0_1x1_0}}, to_apply=add
  t1 = {t}[{cols},{rows}] transpose(x), dimensions={{1,0}}
  rev = {t}[{rows},{cols}] reverse(x), dimensions={{0,1}}
  padded = {t}[{rows + 2},{cols + 1}] pad(x, one), padding=1_1x0_1
  cat = {t}[{2 * rows},{cols}] concatenate(x, rev), dimensions={{0}}
  ds = {t}[1,{cols}] dynamic-slice(x, i, i), dynamic_slice_sizes={{1,{cols}}}
  dus = {t}[{rows},{cols}] dynamic-update-slice(x, ds, i, i)
  io = {t}[{rows},{cols}] iota(), iota_dimension=1
  b = {t}[{rows},{cols},2] broadcast(sums), dimensions={{1}}
  ROOT r = ({t}[{cols}], {t}[{rows}], {t}[{rows},{cols}], {t}[{cols},{rows}], {t}[{rows},{cols}], {t}[{rows + 2},{cols + 1}], {t}[{2 * rows},{cols}], {t}[{rows},{cols}], {t}[{rows},{cols}], {t}[{rows},{cols},2]) tuple(sums, products, windows, t1, rev, padded, cat, dus, io, b)
}}"""
    rng = np.random.default_rng(seed)
    x = _values(rng, t, (rows, cols), False)
    i = np.int32(rng.integers(-1, rows + 1))
    got, want = _compile(text)(x, i), interpret(text, x, i)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        # reductions may associate differently (the interpreter's order is not promised)
        _assert_close(g, w, t if index in (0, 1, 2, 9) else None)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(COMPLEX), st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_sort_gather_and_scatter_of_complex_values_match_the_interpreter(t, n, seed):
    """A sort by real part carrying the complex values, a row gather and a scatter-add."""
    f = PART[t]
    text = f"""HloModule s
less {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ra = {f}[] real(a)
  rb = {f}[] real(b)
  ROOT lt = pred[] compare(ra, rb), direction=LT, type=TOTALORDER
}}
add {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT s = {t}[] add(a, b)
}}
ENTRY e {{
  x = {t}[{n},3] parameter(0)
  idx = s32[4,1] parameter(1)
  sorted = {t}[{n},3] sort(x), dimensions={{0}}, is_stable=true, to_apply=less
  g = {t}[4,1,3] gather(x, idx), offset_dims={{1,2}}, collapsed_slice_dims={{}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,3}}
  u = {t}[4,3] reshape(g)
  s = {t}[{n},3] scatter(x, idx, u), update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add
  ROOT r = ({t}[{n},3], {t}[4,1,3], {t}[{n},3]) tuple(sorted, g, s)
}}"""
    rng = np.random.default_rng(seed)
    x = _values(rng, t, (n, 3), False)
    idx = rng.integers(-1, n + 1, (4, 1)).astype(np.int32)
    got, want = _compile(text)(x, idx), interpret(text, x, idx)
    for index, (g, w) in enumerate(zip(got, want, strict=True)):
        _assert_close(g, w, t if index == 2 else None)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(COMPLEX),
    st.integers(1, 5),
    st.integers(0, 4),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_dot_cholesky_and_triangular_solve_match_the_interpreter(
    t, n, k, left, lower, transpose, unit, seed
):
    rng = np.random.default_rng(seed)
    a = _values(rng, t, (n, n), False)
    spd = (a @ a.conj().T + n * np.eye(n)).astype(DTYPE[t])
    rhs_shape = (n, k) if left else (k, n)
    rhs = _values(rng, t, rhs_shape, False)
    triangle = (a + 3 * np.eye(n)).astype(DTYPE[t])
    r = f"{t}[{rhs_shape[0]},{rhs_shape[1]}]"
    text = f"""HloModule l
ENTRY e {{
  a = {t}[{n},{n}] parameter(0)
  spd = {t}[{n},{n}] parameter(1)
  rhs = {r} parameter(2)
  d = {t}[{n},{n}] dot(a, spd), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  c = {t}[{n},{n}] cholesky(spd), lower={"true" if lower else "false"}
  s = {r} triangular-solve(a, rhs), left_side={"true" if left else "false"}, lower={"true" if lower else "false"}, unit_diagonal={"true" if unit else "false"}, transpose_a={transpose}
  ROOT o = ({t}[{n},{n}], {t}[{n},{n}], {r}) tuple(d, c, s)
}}"""
    got, want = _compile(text)(triangle, spd, rhs), interpret(text, triangle, spd, rhs)
    for g, w in zip(got, want, strict=True):
        _assert_close(g, w, t if t == "c128" else "c64-linalg", normwise=True)


TOLERANCE["c64-linalg"] = 2e-5  # LAPACK's order of operations, not the interpreter's
