"""Native emitters with fast paths (convolution as GEMMs, row gathers, in-place
dynamic-update-slice) against the interpreter, over random shapes and attributes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module


def native(text: str, *args):
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == [], [t.reason for t in executable._executable.program.thunks]
    return executable(*args)


@settings(max_examples=12, deadline=None)
@given(
    st.integers(1, 2), st.integers(1, 6), st.integers(1, 6), st.integers(1, 5), st.integers(1, 4),
    st.integers(1, 3), st.integers(1, 3), st.integers(0, 2), st.integers(0, 2), st.integers(0, 2),
    st.integers(0, 2),
)  # fmt: skip
def test_nhwc_convolution_matches_the_interpreter(b, h, w, c, o, kh, kw, pt, pb, pl, pr):
    ho, wo = h + pt + pb - kh + 1, w + pl + pr - kw + 1
    if ho < 1 or wo < 1:
        return
    rng = np.random.default_rng(b * 1000 + h * 100 + w)
    x = rng.standard_normal((b, h, w, c)).astype(np.float32)
    k = rng.standard_normal((kh, kw, c, o)).astype(np.float32)
    text = f"""HloModule c
ENTRY e {{
  x = f32[{b},{h},{w},{c}] parameter(0)
  k = f32[{kh},{kw},{c},{o}] parameter(1)
  ROOT y = f32[{b},{ho},{wo},{o}] convolution(x, k), window={{size={kh}x{kw} pad={pt}_{pb}x{pl}_{pr}}}, dim_labels=b01f_01io->b01f
}}"""
    np.testing.assert_allclose(native(text, x, k), interpret(text, x, k), rtol=1e-4, atol=1e-4)


@settings(max_examples=12, deadline=None)
@given(
    st.integers(1, 50), st.integers(1, 9), st.integers(0, 40),
    st.sampled_from(["s32", "s64", "u8", "u32"]),
)  # fmt: skip
def test_row_gather_clamps_indices_like_the_interpreter(rows, width, count, index_type):
    rng = np.random.default_rng(rows * 7 + width)
    table = rng.standard_normal((rows, width)).astype(np.float32)
    dtype = {"s32": np.int32, "s64": np.int64, "u8": np.uint8, "u32": np.uint32}[index_type]
    info = np.iinfo(dtype)
    picks = rng.integers(max(info.min, -5), min(info.max, rows + 5), (count, 1), endpoint=True)
    indices = picks.astype(dtype)
    text = f"""HloModule g
ENTRY e {{
  t = f32[{rows},{width}] parameter(0)
  i = {index_type}[{count},1] parameter(1)
  ROOT g = f32[{count},{width}] gather(t, i), offset_dims={{1}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,{width}}}
}}"""
    if count == 0:
        return
    np.testing.assert_array_equal(native(text, table, indices), interpret(text, table, indices))


@settings(max_examples=15, deadline=None)
@given(st.integers(-3, 9), st.integers(-3, 9), st.booleans())
def test_dynamic_update_slice_in_place_and_copied(i, j, keep_operand):
    x = np.arange(48, dtype=np.float32).reshape(6, 8)
    u = -np.ones((2, 3), np.float32)
    root = "(f32[6,8], f32[6,8]) tuple(d, n)" if keep_operand else "f32[6,8] add(d, d)"
    text = f"""HloModule d
ENTRY e {{
  x = f32[6,8] parameter(0)
  u = f32[2,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  n = f32[6,8] negate(x)
  d = f32[6,8] dynamic-update-slice(n, u, i, j)
  ROOT r = {root}
}}"""
    args = (x, u, np.int32(i), np.int32(j))
    got, want = native(text, *args), interpret(text, *args)
    for g, w in zip(got if keep_operand else [got], want if keep_operand else [want], strict=True):
        np.testing.assert_array_equal(g, w)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=3),
    st.data(),
    st.sampled_from([("add", "0"), ("maximum", "-inf"), ("minimum", "inf"), ("add", "1")]),
)
def test_reduce_window_matches_the_interpreter(dims, data, reducer):
    op, init = reducer
    parts, out_dims = [], []
    for size in dims:
        w = data.draw(st.integers(1, 3))
        s = data.draw(st.integers(1, 2))
        lo, hi = data.draw(st.integers(-1, 2)), data.draw(st.integers(0, 2))
        bd, wd = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2))
        base = (size - 1) * bd + 1 if size else 0
        padded = base + lo + hi
        span = (w - 1) * wd + 1
        if padded < span:
            return
        out_dims.append((padded - span) // s + 1)
        parts.append((w, s, lo, hi, bd, wd))
    window = (
        "size=" + "x".join(str(p[0]) for p in parts)
        + " stride=" + "x".join(str(p[1]) for p in parts)
        + " pad=" + "x".join(f"{p[2]}_{p[3]}" for p in parts)
        + " lhs_dilate=" + "x".join(str(p[4]) for p in parts)
        + " rhs_dilate=" + "x".join(str(p[5]) for p in parts)
    )  # fmt: skip
    shape = ",".join(map(str, dims))
    out = ",".join(map(str, out_dims))
    text = f"""HloModule w
r {{ a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] {op}(a, b) }}
ENTRY e {{
  x = f32[{shape}] parameter(0)
  i = f32[] constant({init})
  ROOT y = f32[{out}] reduce-window(x, i), window={{{window}}}, to_apply=r
}}"""
    x = np.random.default_rng(len(dims)).standard_normal(dims).astype(np.float32)
    np.testing.assert_allclose(native(text, x), interpret(text, x), rtol=1e-5, atol=1e-5)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.integers(0, 40), min_size=1, max_size=3),
    st.sampled_from(
        [("f32", "LT", ""), ("f32", "GT", ", type=TOTALORDER"), ("s32", "LT", ""), ("u8", "GT", "")]
    ),
    st.booleans(),
)
def test_sort_matches_the_interpreter(dims, key, with_values):
    t, direction, kind = key
    shape = ",".join(map(str, dims))
    rng = np.random.default_rng(sum(dims))
    dtype = {"f32": np.float32, "s32": np.int32, "u8": np.uint8}[t]
    keys = rng.integers(0, 6, dims).astype(dtype)
    # NaN only under TOTALORDER: with a plain LT it is no strict weak order, and the
    # result of such a sort is left to the implementation.
    if kind and keys.size:
        keys.reshape(-1)[:: max(1, keys.size // 3)] = np.nan
    extra = "\n  c = s32[] parameter(2)\n  d = s32[] parameter(3)" if with_values else ""
    operands = "k, v" if with_values else "k"
    result = f"({t}[{shape}], s32[{shape}])" if with_values else f"{t}[{shape}]"
    text = f"""HloModule s
cmp {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1){extra}
  ROOT r = pred[] compare(a, b), direction={direction}{kind}
}}
ENTRY e {{
  k = {t}[{shape}] parameter(0)
  v = s32[{shape}] iota(), iota_dimension={len(dims) - 1}
  ROOT s = {result} sort({operands}), dimensions={{{len(dims) - 1}}}, is_stable=true, to_apply=cmp
}}"""
    got, want = native(text, keys), interpret(text, keys)
    for g, w in zip(got if with_values else [got], want if with_values else [want], strict=True):
        np.testing.assert_array_equal(g, w)


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(1, 5),
    st.integers(0, 30),
    st.sampled_from(["add", "maximum", "multiply"]),
    st.booleans(),
)
def test_row_scatter_applies_updates_in_order_and_skips_out_of_bounds(
    rows, width, count, op, operand_dies
):
    rng = np.random.default_rng(rows * 31 + count)
    table = rng.standard_normal((rows, width)).astype(np.float32)
    indices = rng.integers(-2, rows + 2, (count, 1)).astype(np.int32)
    updates = rng.standard_normal((count, width)).astype(np.float32)
    base = (
        f"n = f32[{rows},{width}] negate(t)" if operand_dies else f"n = f32[{rows},{width}] copy(t)"
    )
    root = (
        "ROOT s = f32[{r},{w}] scatter(n, i, u)"
        if operand_dies
        else "s = f32[{r},{w}] scatter(n, i, u)"
    )
    tail = "" if operand_dies else "\n  ROOT both = (f32[{r},{w}], f32[{r},{w}]) tuple(s, n)"
    text = f"""HloModule s
f {{ a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] {op}(a, b) }}
ENTRY e {{
  t = f32[{rows},{width}] parameter(0)
  i = s32[{count},1] parameter(1)
  u = f32[{count},{width}] parameter(2)
  {base}
  {root.format(r=rows, w=width)}, update_window_dims={{1}}, inserted_window_dims={{0}}, scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=f{tail.format(r=rows, w=width)}
}}"""
    got, want = native(text, table, indices, updates), interpret(text, table, indices, updates)
    for g, w in zip(
        got if not operand_dies else [got], want if not operand_dies else [want], strict=True
    ):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_c_custom_call_is_called_natively(tmp_path):
    import ctypes
    import shutil
    import subprocess

    import pytest

    from xlapy import register_custom_call
    from xlapy.custom_call import unregister_custom_call

    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH to build the custom-call target")
    source = tmp_path / "t.c"
    source.write_text(
        "void twice_plus(void* out, const void** in) {\n"
        "  const float* x = in[0]; float* y = out;\n"
        "  for (int i = 0; i < 8; ++i) y[i] = 2 * x[i] + 1;\n"
        "}\n"
    )
    shared = tmp_path / "libt.so"
    subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-o", str(shared), str(source)], check=True
    )
    library = ctypes.CDLL(str(shared))
    register_custom_call("twice_plus_native", library.twice_plus)
    try:
        text = """HloModule c
ENTRY e {
  x = f32[8] parameter(0)
  n = f32[8] negate(x)
  ROOT y = f32[8] custom-call(n), custom_call_target="twice_plus_native"
}"""
        x = np.arange(8, dtype=np.float32)
        np.testing.assert_array_equal(native(text, x), -2 * x + 1)
        np.testing.assert_array_equal(x, np.arange(8))
    finally:
        unregister_custom_call("twice_plus_native")


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, 2),
    st.integers(1, 6),
    st.booleans(),
    st.sampled_from(["f32", "f64"]),
    st.booleans(),
)
def test_cholesky_through_lapack_matches_the_interpreter(batch, n, lower, t, broken):
    rng = np.random.default_rng(n * 10 + batch)
    dtype = np.float32 if t == "f32" else np.float64
    shape = (batch, n, n) if batch else (n, n)
    m = rng.standard_normal(shape)
    a = (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(dtype)
    if broken:
        a[..., 0, 0] = -1.0 if n > 1 else np.nan  # not positive definite / not finite
    dims = ",".join(map(str, shape))
    text = f"""HloModule c
ENTRY e {{
  a = {t}[{dims}] parameter(0)
  ROOT l = {t}[{dims}] cholesky(a), lower={"true" if lower else "false"}
}}"""
    np.testing.assert_allclose(native(text, a), interpret(text, a), rtol=1e-4, atol=1e-5)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(1, 5), st.integers(1, 4), st.booleans(), st.booleans(), st.booleans(),
    st.sampled_from(["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]), st.integers(0, 2),
)  # fmt: skip
def test_triangular_solve_through_blas_matches_the_interpreter(
    k, other, left, lower, unit, transpose, batch
):
    rng = np.random.default_rng(k * 7 + other)
    a = (rng.standard_normal((k, k)) + 3 * np.eye(k)).astype(np.float32)
    rows, cols = (k, other) if left else (other, k)
    b_shape = (batch, rows, cols) if batch else (rows, cols)
    a_shape = (batch, k, k) if batch else (k, k)
    a_full = np.broadcast_to(a, a_shape).copy()
    b = rng.standard_normal(b_shape).astype(np.float32)
    text = f"""HloModule t
ENTRY e {{
  a = f32[{",".join(map(str, a_shape))}] parameter(0)
  b = f32[{",".join(map(str, b_shape))}] parameter(1)
  ROOT x = f32[{",".join(map(str, b_shape))}] triangular-solve(a, b), left_side={str(left).lower()}, lower={str(lower).lower()}, unit_diagonal={str(unit).lower()}, transpose_a={transpose}
}}"""
    np.testing.assert_allclose(
        native(text, a_full, b), interpret(text, a_full, b), rtol=1e-3, atol=1e-4
    )
