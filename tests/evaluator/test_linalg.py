"""Interpreter kernels of dot, convolution, FFT, Cholesky, triangular-solve and batch norm.

Each op is checked against an independent numpy/scipy computation (np.einsum,
a direct loop convolution, np.fft, np.linalg.cholesky, scipy's
solve_triangular, the batch-norm formulas) for every type it accepts, and
against the real XLA over hypothesis-drawn configurations.
"""

import itertools

import ml_dtypes
import numpy as np
import pytest
import scipy.linalg
from hypothesis import HealthCheck, assume, given, reject, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.errors import InternalError
from xlapy.evaluator.kernels import linalg  # noqa: F401  (registers the kernels)
from xlapy.hlo import parse_module
from xlapy.shape_inference import infer_instruction_shape

rng = np.random.default_rng(1234)

DTYPES = {
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "c64": np.complex64,
    "c128": np.complex128,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u32": np.uint32,
    "u64": np.uint64,
    "pred": np.bool_,
    "f8e4m3fn": ml_dtypes.float8_e4m3fn,
    "f8e5m2": ml_dtypes.float8_e5m2,
}
# Relative tolerance of a result type (the interpreter and numpy round differently).
TOLERANCE = {
    "f8e4m3fn": 0.13,
    "f8e5m2": 0.26,
    "f16": 4e-3,
    "bf16": 3e-2,
    "f32": 2e-5,
    "f64": 1e-12,
    "c64": 2e-5,
    "c128": 1e-12,
}


def shape_text(t, dims):
    return f"{t}[{','.join(map(str, dims))}]"


def random_array(t, dims, low=-4, high=5):
    dtype = DTYPES[t]
    if t == "pred":
        return rng.integers(0, 2, dims).astype(bool)
    if t[0] in "su":
        lo = 0 if t[0] == "u" else low
        return rng.integers(lo, high, dims).astype(dtype)
    x = rng.standard_normal(dims)
    if t[0] == "c":
        x = x + 1j * rng.standard_normal(dims)
    return x.astype(dtype)


def assert_close(actual, expected, t):
    assert actual.dtype == np.dtype(DTYPES[t])
    assert actual.shape == expected.shape
    if t in TOLERANCE:
        scale = (
            max(1.0, float(np.max(np.abs(expected.astype(np.complex128))))) if expected.size else 1
        )
        np.testing.assert_allclose(
            actual.astype(np.complex128),
            expected.astype(np.complex128),
            rtol=TOLERANCE[t],
            atol=TOLERANCE[t] * scale,
        )
    else:
        np.testing.assert_array_equal(actual, expected)


def with_inferred_result(text):
    """``text`` with the ROOT's shape replaced by what shape inference gives (for drawn configs)."""
    module = parse_module(text, check_shapes=False)
    shape = infer_instruction_shape(module.entry.root)
    head, rest = text.split("ROOT r = ", 1)
    return f"{head}ROOT r = {str(shape).split('{')[0]}{rest[rest.index(' ') :]}"


@pytest.fixture
def xla():
    """The real XLA (with 64-bit types enabled so u64/s64/f64 arrays reach it intact)."""
    jax = pytest.importorskip("jax", reason="jax runs the real XLA, the second oracle")
    from xlapy.testing import xla_oracle

    previous = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield xla_oracle.run_hlo_text
    jax.config.update("jax_enable_x64", previous)


# -- dot ----------------------------------------------------------------------------------


def dot_text(lt, rt, ot, ldims, rdims, odims, lc, rc, lb=(), rb=()):
    def dims(name, d):
        return f", {name}={{{','.join(map(str, d))}}}" if d else ""

    return f"""HloModule m
ENTRY e {{
  a = {shape_text(lt, ldims)} parameter(0)
  b = {shape_text(rt, rdims)} parameter(1)
  ROOT r = {shape_text(ot, odims)} dot(a, b){dims("lhs_batch_dims", lb)}{dims("lhs_contracting_dims", lc)}{dims("rhs_batch_dims", rb)}{dims("rhs_contracting_dims", rc)}
}}"""


def einsum_reference(a, b, ot, spec):
    """np.einsum in float64/complex128/int64, rounded to the result type."""
    if ot.startswith("c"):
        wide = np.complex128
    elif ot[0] == "f" or ot == "bf16" or a.dtype.kind == "f":
        wide = np.float64
    else:
        wide = np.int64
    product = np.einsum(spec, a.astype(wide), b.astype(wide))
    if ot == "pred":
        return product != 0
    if ot[0] in "su":
        return product.astype(DTYPES[ot])  # wraps modulo the width, like XLA
    return product.astype(DTYPES[ot])


@pytest.mark.parametrize(
    "t",
    [
        *("f8e4m3fn", "f8e5m2", "f16", "bf16", "f32", "f64", "c64", "c128"),
        *("s8", "s32", "s64", "u8", "u32", "u64", "pred"),
    ],
)
def test_dot_batch_matmul_every_type(t):
    a, b = random_array(t, (2, 3, 4)), random_array(t, (2, 4, 5))
    text = dot_text(t, t, t, (2, 3, 4), (2, 4, 5), (2, 3, 5), [2], [1], [0], [0])
    assert_close(run(text, a, b), einsum_reference(a, b, t, "bmk,bkn->bmn"), t)


def test_dot_general_dimension_orders():
    """Batch and contracting dimensions anywhere; result = batch, lhs free, rhs free."""
    a, b = random_array("f64", (4, 2, 3, 5)), random_array("f64", (3, 6, 2, 4))
    text = dot_text(
        "f64", "f64", "f64", (4, 2, 3, 5), (3, 6, 2, 4), (2, 5, 6), [0, 2], [3, 0], [1], [2]
    )
    assert_close(run(text, a, b), np.einsum("kbcm,cnbk->bmn", a, b), "f64")


def test_dot_outer_product_and_scalars():
    a, b = random_array("f32", (3,)), random_array("f32", (2,))
    assert_close(
        run(dot_text("f32", "f32", "f32", (3,), (2,), (3, 2), [], []), a, b), np.outer(a, b), "f32"
    )
    x, y = np.float32(3), np.float32(-2)
    assert run(dot_text("f32", "f32", "f32", (), (), (), [], []), x, y) == np.float32(-6)


def test_dot_zero_sized_contraction_gives_zeros():
    a, b = np.zeros((3, 0), np.float32), np.zeros((0, 2), np.float32)
    out = run(dot_text("f32", "f32", "f32", (3, 0), (0, 2), (3, 2), [1], [0]), a, b)
    np.testing.assert_array_equal(out, np.zeros((3, 2), np.float32))
    empty = run(
        dot_text("s32", "s32", "s32", (0, 4), (4, 2), (0, 2), [1], [0]),
        np.zeros((0, 4), np.int32),
        np.ones((4, 2), np.int32),
    )
    assert empty.shape == (0, 2) and empty.dtype == np.int32


def test_dot_mixed_types_and_integer_wrap():
    a = np.array([100, 100], np.int8)
    assert run(dot_text("s8", "s8", "s32", (2,), (2,), (), [0], [0]), a, a) == 20000
    big = np.array([1000, 3], np.int32), np.array([7, 5], np.int32)
    assert run(dot_text("s32", "s32", "s8", (2,), (2,), (), [0], [0]), *big) == np.int8(103)
    wrap = np.array([2**31 - 1, 2], np.int32), np.array([2, 1], np.int32)
    assert run(dot_text("s32", "s32", "s32", (2,), (2,), (), [0], [0]), *wrap) == np.int32(0)
    floats = np.array([1.5, 2.5], np.float32), np.array([1.5, 1.5], np.float32)
    assert (
        run(dot_text("f32", "f32", "s32", (2,), (2,), (), [0], [0]), *floats) == 6
    )  # float sum, then convert
    ints_floats = np.array([1, 2], np.int32), np.array([0.5, 0.25], np.float32)
    assert run(dot_text("s32", "f32", "f32", (2,), (2,), (), [0], [0]), *ints_floats) == np.float32(
        1
    )


def test_dot_half_precision_accumulates_in_f32():
    """XLA:CPU sums f16 products in f32: 4096 ones is 4096, 2048+1+1 is 2050 (checked on XLA)."""
    ones = np.ones(4096, np.float16)
    assert run(dot_text("f16", "f16", "f16", (4096,), (4096,), (), [0], [0]), ones, ones) == 4096
    a = np.array([2048, 1, 1], np.float16)
    assert (
        run(dot_text("f16", "f16", "f16", (3,), (3,), (), [0], [0]), a, np.ones(3, np.float16))
        == 2050
    )


# -- convolution ---------------------------------------------------------------------------


def conv_text(lt, rt, ot, ldims, rdims, odims, window, labels, extra=""):
    return f"""HloModule m
ENTRY e {{
  a = {shape_text(lt, ldims)} parameter(0)
  b = {shape_text(rt, rdims)} parameter(1)
  ROOT r = {shape_text(ot, odims)} convolution(a, b), window={{{window}}}, dim_labels={labels}{extra}
}}"""


def conv_reference(lhs, rhs, instruction):
    """XLA's convolution pseudo-code as loops over outputs, kernel positions and input features."""
    dn = instruction.attribute("dim_labels")
    wdims = instruction.attribute("window").dimensions
    fgc = instruction.attribute("feature_group_count", 1)
    bgc = instruction.attribute("batch_group_count", 1)
    if lhs.dtype.kind == "c":
        wide = np.complex128
    elif lhs.dtype.kind in "iub":
        wide = np.int64
    else:  # f16, f32, f64 and ml_dtypes' bfloat16
        wide = np.float64
    x = lhs.astype(wide).transpose(
        [dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions]
    )
    w = rhs.astype(wide).transpose(
        [
            dn.kernel_output_feature_dimension,
            dn.kernel_input_feature_dimension,
            *dn.kernel_spatial_dimensions,
        ]
    )
    odims = instruction.shape.dimensions
    out_spatial = [odims[d] for d in dn.output_spatial_dimensions]
    n_out = odims[dn.output_batch_dimension]
    O, I = w.shape[:2]
    out = np.zeros((n_out, O, *out_spatial), wide)
    for nb, o in itertools.product(range(n_out), range(O)):
        c0 = (o // (O // fgc)) * I
        n = (o // (O // bgc)) * n_out + nb
        for pos in itertools.product(*map(range, out_spatial)):
            total = 0
            for k in itertools.product(*map(range, w.shape[2:])):
                src = []
                for p, kk, wd, size in zip(pos, k, wdims, x.shape[2:], strict=True):
                    dilated = p * wd.stride + kk * wd.window_dilation - wd.padding_low
                    if dilated % wd.base_dilation or not 0 <= dilated // wd.base_dilation < size:
                        break
                    src.append(dilated // wd.base_dilation)
                else:
                    kidx = tuple(
                        s - 1 - kk if wd.window_reversal else kk
                        for kk, s, wd in zip(k, w.shape[2:], wdims, strict=True)
                    )
                    total = total + np.dot(
                        x[(n, slice(c0, c0 + I), *src)], w[(o, slice(None), *kidx)]
                    )
            out[(nb, o, *pos)] = total
    order = [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions]
    return out.transpose(np.argsort(order))


CONV_CASES = [
    # (lhs dims, rhs dims, window, dim_labels, extra attributes)
    ((2, 3, 7), (4, 3, 3), "size=3", "bf0_oi0->bf0", ""),
    ((2, 5, 5, 3), (3, 3, 3, 4), "size=3x3 stride=2x1 pad=1_1x0_2", "b01f_01io->b01f", ""),
    (
        (1, 6, 4, 2),
        (2, 2, 2, 3),
        "size=2x2 lhs_dilate=2x1 rhs_dilate=1x2 pad=1_0x-1_1",
        "b01f_01io->b01f",
        "",
    ),
    (
        (2, 4, 6),
        (6, 2, 3),
        "size=3 rhs_reversal=1 pad=2_2",
        "bf0_oi0->bf0",
        ", feature_group_count=2",
    ),
    ((6, 2, 5), (6, 2, 2), "size=2 stride=2", "bf0_oi0->bf0", ", batch_group_count=3"),
    ((5, 4, 2, 3), (2, 3, 5, 2), "size=3x2", "0bf1_i0o1->f01b", ""),
]


@pytest.mark.parametrize("lhs_dims, rhs_dims, window, labels, extra", CONV_CASES)
@pytest.mark.parametrize("t", ["f32", "f64", "c64"])
def test_convolution_matches_direct_loops(t, lhs_dims, rhs_dims, window, labels, extra):
    text = with_inferred_result(conv_text(t, t, t, lhs_dims, rhs_dims, (1,), window, labels, extra))
    a, b = random_array(t, lhs_dims), random_array(t, rhs_dims)
    expected = conv_reference(a, b, parse_module(text).entry.root).astype(DTYPES[t])
    assert_close(run(text, a, b), expected, t)


@pytest.mark.parametrize(
    "t, ot", [("f16", "f16"), ("bf16", "bf16"), ("s32", "s32"), ("s8", "s32"), ("u8", "u8")]
)
def test_convolution_narrow_and_integer_types(t, ot):
    lhs_dims, rhs_dims, window, labels, extra = CONV_CASES[1]
    text = with_inferred_result(
        conv_text(t, t, ot, lhs_dims, rhs_dims, (1,), window, labels, extra)
    )
    a, b = random_array(t, lhs_dims), random_array(t, rhs_dims)
    expected = conv_reference(a, b, parse_module(text).entry.root)
    assert_close(run(text, a, b), expected.astype(DTYPES[ot]), ot)


def test_convolution_zero_sized():
    text = with_inferred_result(
        conv_text("f32", "f32", "f32", (0, 3, 5), (2, 3, 2), (1,), "size=2", "bf0_oi0->bf0")
    )
    out = run(text, np.zeros((0, 3, 5), np.float32), np.ones((2, 3, 2), np.float32))
    assert out.shape == (0, 2, 4)
    no_features = with_inferred_result(
        conv_text("f32", "f32", "f32", (2, 0, 5), (3, 0, 2), (1,), "size=2", "bf0_oi0->bf0")
    )
    out = run(no_features, np.zeros((2, 0, 5), np.float32), np.zeros((3, 0, 2), np.float32))
    np.testing.assert_array_equal(out, np.zeros((2, 3, 4), np.float32))


# -- fft ----------------------------------------------------------------------------------


FFT_CASES = [
    ("FFT", "c64", (3, 8), [8]),
    ("FFT", "c128", (2, 3, 5, 7), [3, 5, 7]),
    ("IFFT", "c64", (4, 6), [4, 6]),
    ("IFFT", "c128", (2, 9), [9]),
    ("RFFT", "f32", (2, 6, 7), [6, 7]),
    ("RFFT", "f64", (5,), [5]),
    ("IRFFT", "c64", (3, 4, 5), [4, 8]),
    ("IRFFT", "c128", (2, 3, 3, 4), [3, 3, 7]),
]


def fft_text(kind, t, dims, lengths):
    ot = {"RFFT": {"f32": "c64", "f64": "c128"}, "IRFFT": {"c64": "f32", "c128": "f64"}}.get(
        kind, {}
    ).get(t, t)
    odims = list(dims)
    if kind == "RFFT":
        odims[-1] = lengths[-1] // 2 + 1
    if kind == "IRFFT":
        odims[-1] = lengths[-1]
    return (
        ot,
        f"""HloModule m
ENTRY e {{
  a = {shape_text(t, dims)} parameter(0)
  ROOT r = {shape_text(ot, odims)} fft(a), fft_type={kind}, fft_length={{{",".join(map(str, lengths))}}}
}}""",
    )


@pytest.mark.parametrize("kind, t, dims, lengths", FFT_CASES)
def test_fft_matches_numpy(kind, t, dims, lengths):
    ot, text = fft_text(kind, t, dims, lengths)
    x = random_array(t, dims).astype(np.complex128 if t[0] == "c" else np.float64)
    axes = list(range(len(dims) - len(lengths), len(dims)))
    fn = {"FFT": np.fft.fftn, "IFFT": np.fft.ifftn, "RFFT": np.fft.rfftn, "IRFFT": np.fft.irfftn}[
        kind
    ]
    expected = fn(x, s=lengths, axes=axes)
    assert_close(run(text, x.astype(DTYPES[t])), expected.astype(DTYPES[ot]), ot)


def test_fft_zero_sized():
    ot, text = fft_text("FFT", "c64", (0, 4), [4])
    assert run(text, np.zeros((0, 4), np.complex64)).shape == (0, 4)
    ot, text = fft_text("IRFFT", "c64", (2, 1), [0])
    out = run(text, np.zeros((2, 1), np.complex64))
    assert out.shape == (2, 0) and out.dtype == np.float32


# -- cholesky and triangular-solve --------------------------------------------------------


def spd(t, batch, n):
    x = random_array(t if t[0] == "c" else "f64", (*batch, n, n)).astype(
        np.complex128 if t[0] == "c" else np.float64
    )
    return x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)


@pytest.mark.parametrize("t", ["f32", "f64", "c64", "c128", "f16", "bf16"])
@pytest.mark.parametrize("lower", [True, False])
def test_cholesky_matches_numpy_and_reads_one_triangle(t, lower):
    a = spd(t, (2,), 4)
    expected = np.linalg.cholesky(a)
    if not lower:
        expected = np.conj(np.swapaxes(expected, -1, -2))
    garbage = np.triu(np.full((4, 4), 99.0), 1) if lower else np.tril(np.full((4, 4), 99.0), -1)
    text = f"""HloModule m
ENTRY e {{
  a = {t}[2,4,4] parameter(0)
  ROOT r = {t}[2,4,4] cholesky(a), lower={str(lower).lower()}
}}"""
    out = run(text, (a + garbage).astype(DTYPES[t]))
    assert_close(out, expected.astype(DTYPES[t]), t)
    other = (
        np.triu(out.astype(np.complex128), 1) if lower else np.tril(out.astype(np.complex128), -1)
    )
    assert not other.any()  # the other triangle is zero, as XLA:CPU leaves it


def test_cholesky_not_positive_definite_is_nan_per_matrix():
    a = spd("f64", (3,), 3)
    a[1, 2, 2] = -40.0
    text = "HloModule m\nENTRY e {\n  a = f64[3,3,3] parameter(0)\n  ROOT r = f64[3,3,3] cholesky(a), lower=true\n}"
    out = run(text, a)
    assert np.isnan(out[1]).all()
    assert np.isfinite(out[[0, 2]]).all()
    empty = "HloModule m\nENTRY e {\n  a = f32[0,2,2] parameter(0)\n  ROOT r = f32[0,2,2] cholesky(a)\n}"
    assert run(empty, np.zeros((0, 2, 2), np.float32)).shape == (0, 2, 2)


def solve_reference(a, b, left, lower, transpose, unit):
    """scipy.linalg.solve_triangular per matrix; the right-side form through transposes."""
    trans = {"NO_TRANSPOSE": 0, "TRANSPOSE": 1, "ADJOINT": 2}[transpose]
    out = np.empty_like(b)
    for i in range(a.shape[0]):
        if left:
            out[i] = scipy.linalg.solve_triangular(
                a[i], b[i], trans=trans, lower=lower, unit_diagonal=unit
            )
        else:  # x op(a) = b  <=>  op(a)^T x^T = b^T
            op = {0: a[i], 1: a[i].T, 2: np.conj(a[i].T)}[trans]
            tri = np.tril(op) if lower == (trans == 0) else np.triu(op)
            if unit:
                np.fill_diagonal(tri, 1)
            out[i] = scipy.linalg.solve_triangular(
                tri.T, b[i].T, lower=not (lower == (trans == 0))
            ).T
    return out


@pytest.mark.parametrize("t", ["f32", "f64", "c64", "c128"])
@pytest.mark.parametrize(
    "left, lower, transpose, unit",
    [
        (left, lower, transpose, unit)
        for left, lower, transpose, unit in itertools.product(
            [True, False], [True, False], ["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"], [False, True]
        )
    ],
)
def test_triangular_solve_matches_scipy(t, left, lower, transpose, unit):
    wide = np.complex128 if t[0] == "c" else np.float64
    a = random_array(t, (2, 4, 4)).astype(wide) + 4 * np.eye(4)
    b_dims = (2, 4, 3) if left else (2, 3, 4)
    b = random_array(t, b_dims).astype(wide)
    text = f"""HloModule m
ENTRY e {{
  a = {t}[2,4,4] parameter(0)
  b = {shape_text(t, b_dims)} parameter(1)
  ROOT r = {shape_text(t, b_dims)} triangular-solve(a, b), left_side={str(left).lower()}, lower={str(lower).lower()}, unit_diagonal={str(unit).lower()}, transpose_a={transpose}
}}"""
    expected = solve_reference(a, b, left, lower, transpose, unit)
    assert_close(run(text, a.astype(DTYPES[t]), b.astype(DTYPES[t])), expected.astype(DTYPES[t]), t)


def test_triangular_solve_half_precision_and_singular():
    a = np.array([[2.0, 0.0], [1.0, 4.0]])
    b = np.array([[2.0], [9.0]])
    for t in ["f16", "bf16"]:
        text = f"HloModule m\nENTRY e {{\n  a = {t}[2,2] parameter(0)\n  b = {t}[2,1] parameter(1)\n  ROOT r = {t}[2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}}"
        out = run(text, a.astype(DTYPES[t]), b.astype(DTYPES[t]))
        np.testing.assert_array_equal(out.astype(np.float64), [[1.0], [2.0]])
    singular = "HloModule m\nENTRY e {\n  a = f32[2,2] parameter(0)\n  b = f32[2,1] parameter(1)\n  ROOT r = f32[2,1] triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE\n}"
    out = run(singular, np.array([[0.0, 0.0], [1.0, 1.0]], np.float32), np.ones((2, 1), np.float32))
    assert np.isinf(out[0, 0]) and np.isinf(out[1, 0])  # IEEE, not an exception


def test_triangular_solve_zero_sized():
    for a_dims, b_dims in [((0, 3, 3), (0, 3, 2)), ((0, 0), (0, 4)), ((3, 3), (3, 0))]:
        text = f"""HloModule m
ENTRY e {{
  a = {shape_text("f32", a_dims)} parameter(0)
  b = {shape_text("f32", b_dims)} parameter(1)
  ROOT r = {shape_text("f32", b_dims)} triangular-solve(a, b), left_side=true, lower=true, transpose_a=NO_TRANSPOSE
}}"""
        out = run(text, np.ones(a_dims, np.float32), np.ones(b_dims, np.float32))
        assert out.shape == b_dims and out.dtype == np.float32


# -- batch norm ---------------------------------------------------------------------------


def bn_reference(x, scale, offset, eps, axis):
    axes = tuple(d for d in range(x.ndim) if d != axis)
    shape = [1] * x.ndim
    shape[axis] = -1
    mean = x.mean(axis=axes)
    var = x.var(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * scale.reshape(
        shape
    ) + offset.reshape(shape)
    return y, mean, var


@pytest.mark.parametrize("t", ["f16", "bf16", "f32", "f64"])
def test_batch_norm_training_inference_grad(t):
    x = random_array("f64", (4, 3, 5)) * 2 + 1
    scale, offset = random_array("f64", (3,)), random_array("f64", (3,))
    x, scale, offset = (v.astype(DTYPES[t]).astype(np.float64) for v in (x, scale, offset))
    eps = 0.001
    y, mean, var = bn_reference(x, scale, offset, eps, 1)
    vec = f"{t}[3]"
    training = f"""HloModule m
ENTRY e {{
  x = {t}[4,3,5] parameter(0)
  s = {vec} parameter(1)
  o = {vec} parameter(2)
  ROOT r = ({t}[4,3,5], {vec}, {vec}) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
}}"""
    out = run(training, *(v.astype(DTYPES[t]) for v in (x, scale, offset)))
    for actual, expected in zip(out, (y, mean, var), strict=True):
        assert_close(actual, expected.astype(DTYPES[t]), t)

    inference = f"""HloModule m
ENTRY e {{
  x = {t}[4,3,5] parameter(0)
  s = {vec} parameter(1)
  o = {vec} parameter(2)
  m = {vec} parameter(3)
  v = {vec} parameter(4)
  ROOT r = {t}[4,3,5] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
}}"""
    args = [v.astype(DTYPES[t]) for v in (x, scale, offset, mean, var)]
    assert_close(run(inference, *args), y.astype(DTYPES[t]), t)

    dy = random_array("f64", (4, 3, 5)).astype(DTYPES[t]).astype(np.float64)
    count = 20
    inv = 1 / np.sqrt(var + eps)
    centered = x - mean.reshape(1, 3, 1)
    d_offset = dy.sum(axis=(0, 2))
    d_scale = (dy * centered).sum(axis=(0, 2)) * inv
    dx = (scale * inv).reshape(1, 3, 1) * (
        dy
        - d_offset.reshape(1, 3, 1) / count
        - centered * ((dy * centered).sum(axis=(0, 2)) / (count * (var + eps))).reshape(1, 3, 1)
    )
    grad = f"""HloModule m
ENTRY e {{
  x = {t}[4,3,5] parameter(0)
  s = {vec} parameter(1)
  m = {vec} parameter(2)
  v = {vec} parameter(3)
  g = {t}[4,3,5] parameter(4)
  ROOT r = ({t}[4,3,5], {vec}, {vec}) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=1
}}"""
    out = run(grad, *(v.astype(DTYPES[t]) for v in (x, scale, mean, var, dy)))
    for actual, expected in zip(out, (dx, d_scale, d_offset), strict=True):
        assert_close(actual, expected.astype(DTYPES[t]), t)


def test_batch_norm_rank_one_feature_last():
    x = np.array([1.0, 2.0, 3.0], np.float32)
    text = """HloModule m
ENTRY e {
  x = f32[3] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  ROOT r = (f32[3], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=1, feature_index=0
}"""
    y, mean, var = run(text, x, np.ones(3, np.float32), np.zeros(3, np.float32))
    np.testing.assert_array_equal(mean, x)
    np.testing.assert_array_equal(var, np.zeros(3, np.float32))
    np.testing.assert_array_equal(y, np.zeros(3, np.float32))


# -- the real XLA as a second oracle ---------------------------------------------------------


def compare_with_xla(xla, text, args, t):
    ours = run(text, *args)
    try:
        theirs = xla(text, list(args))
    except InternalError as e:
        if "UNIMPLEMENTED" not in str(e):
            raise
        # XLA:CPU itself cannot run this form (e.g. a bf16 x bf16 -> f32 batch dot): no oracle.
        reject()
    ours = list(ours) if isinstance(ours, tuple) else [ours]
    for actual, expected in zip(ours, theirs, strict=True):
        same_nans = np.array_equal(
            np.isnan(actual.astype(np.complex128)), np.isnan(expected.astype(np.complex128))
        )
        assert same_nans
        finite = ~np.isnan(expected.astype(np.complex128))
        assert_close(actual[finite], expected[finite].astype(actual.dtype), t)


@pytest.mark.parametrize("lower", [True, False])
def test_factorizations_agree_with_xla(xla, lower):
    a = spd("f64", (3,), 4)
    a[2, 1, 1] = -30.0  # not positive definite: XLA gives a NaN matrix
    text = f"HloModule m\nENTRY e {{\n  a = f64[3,4,4] parameter(0)\n  ROOT r = f64[3,4,4] cholesky(a), lower={str(lower).lower()}\n}}"
    compare_with_xla(xla, text, [a], "f64")
    for transpose in ["NO_TRANSPOSE", "ADJOINT"]:
        m = random_array("c64", (2, 3, 3)) + 3 * np.eye(3, dtype=np.complex64)
        b = random_array("c64", (2, 2, 3))
        solve = f"""HloModule m
ENTRY e {{
  a = c64[2,3,3] parameter(0)
  b = c64[2,2,3] parameter(1)
  ROOT r = c64[2,2,3] triangular-solve(a, b), left_side=false, lower={str(lower).lower()}, transpose_a={transpose}
}}"""
        compare_with_xla(xla, solve, [m, b], "c64")


def test_batch_norm_agrees_with_xla(xla):
    x = random_array("f32", (2, 3, 4, 5))
    text = """HloModule m
ENTRY e {
  x = f32[2,3,4,5] parameter(0)
  s = f32[4] parameter(1)
  o = f32[4] parameter(2)
  ROOT r = (f32[2,3,4,5], f32[4], f32[4]) batch-norm-training(x, s, o), epsilon=0.01, feature_index=2
}"""
    compare_with_xla(xla, text, [x, random_array("f32", (4,)), random_array("f32", (4,))], "f32")


ORACLE_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@st.composite
def dot_configs(draw):
    t, ot = draw(
        st.sampled_from(
            [
                ("f32", "f32"),
                ("f64", "f64"),
                ("c64", "c64"),
                ("s32", "s32"),
                ("s8", "s32"),
                ("bf16", "f32"),
                ("f8e4m3fn", "f32"),
                ("f16", "f16"),
            ]
        )
    )
    roles = {k: draw(st.integers(0, 2)) for k in ("batch", "contract", "lfree", "rfree")}
    size = st.integers(0, 4) if draw(st.booleans()) else st.integers(1, 4)
    batch = [draw(size) for _ in range(roles["batch"])]
    contract = [draw(size) for _ in range(roles["contract"])]
    lfree = [draw(size) for _ in range(roles["lfree"])]
    rfree = [draw(size) for _ in range(roles["rfree"])]
    lperm = draw(st.permutations(range(len(batch) + len(contract) + len(lfree))))
    rperm = draw(st.permutations(range(len(batch) + len(contract) + len(rfree))))
    lsizes = batch + contract + lfree  # logical order, then placed by the permutation
    rsizes = batch + contract + rfree
    ldims = [0] * len(lsizes)
    rdims = [0] * len(rsizes)
    for logical, place in enumerate(lperm):
        ldims[place] = lsizes[logical]
    for logical, place in enumerate(rperm):
        rdims[place] = rsizes[logical]
    nb, nc = len(batch), len(contract)
    # Free dimensions appear in the result in their operand's dimension order.
    lfree_dims = [ldims[d] for d in sorted(lperm[nb + nc :])]
    rfree_dims = [rdims[d] for d in sorted(rperm[nb + nc :])]
    text = dot_text(
        t,
        t,
        ot,
        ldims,
        rdims,
        batch + lfree_dims + rfree_dims,
        [lperm[nb + i] for i in range(nc)],
        [rperm[nb + i] for i in range(nc)],
        [lperm[i] for i in range(nb)],
        [rperm[i] for i in range(nb)],
    )
    return t, ot, ldims, rdims, text


@ORACLE_SETTINGS
@given(config=dot_configs())
def test_dot_agrees_with_xla(xla, config):
    t, ot, ldims, rdims, text = config
    compare_with_xla(xla, text, [random_array(t, ldims), random_array(t, rdims)], ot)


@st.composite
def conv_configs(draw):
    t = draw(st.sampled_from(["f32", "f32", "f64", "s32", "bf16"]))
    n = draw(st.integers(1, 2))
    groups = draw(st.sampled_from(["none", "feature", "batch"]))
    g = draw(st.integers(2, 3)) if groups != "none" else 1
    fgc, bgc = (g, 1) if groups == "feature" else (1, g) if groups == "batch" else (1, 1)
    batch = draw(st.integers(1, 2)) * bgc
    cin = draw(st.integers(1, 3))
    cout = draw(st.integers(1, 2)) * g
    spatial = [draw(st.integers(1, 6)) for _ in range(n)]
    ksize = [draw(st.integers(1, 3)) for _ in range(n)]
    parts = []
    for name, values in (
        ("stride", [draw(st.integers(1, 3)) for _ in range(n)]),
        ("lhs_dilate", [draw(st.integers(1, 2)) for _ in range(n)]),
        ("rhs_dilate", [draw(st.integers(1, 2)) for _ in range(n)]),
        ("rhs_reversal", [draw(st.integers(0, 1)) for _ in range(n)]),
    ):
        parts.append(f"{name}={'x'.join(map(str, values))}")
    pads = [f"{draw(st.integers(-1, 2))}_{draw(st.integers(-1, 2))}" for _ in range(n)]
    window = f"size={'x'.join(map(str, ksize))} pad={'x'.join(pads)} " + " ".join(parts)
    digits = [str(i) for i in range(n)]
    lhs_labels = draw(st.permutations(["b", "f", *digits]))
    rhs_labels = draw(st.permutations(["o", "i", *digits]))
    out_labels = draw(st.permutations(["b", "f", *digits]))
    size_of = {"b": batch, "f": cin * fgc, **dict(zip(digits, spatial, strict=True))}
    ldims = [size_of[c] for c in lhs_labels]
    kernel_size = {"o": cout, "i": cin, **dict(zip(digits, ksize, strict=True))}
    rdims = [kernel_size[c] for c in rhs_labels]
    labels = f"{''.join(lhs_labels)}_{''.join(rhs_labels)}->{''.join(out_labels)}"
    extra = (
        f", feature_group_count={fgc}"
        if fgc > 1
        else f", batch_group_count={bgc}"
        if bgc > 1
        else ""
    )
    try:
        text = with_inferred_result(conv_text(t, t, t, ldims, rdims, (1,), window, labels, extra))
    except Exception:  # a drawn padding that crops away the whole input
        assume(False)
    return t, ldims, rdims, text


@ORACLE_SETTINGS
@given(config=conv_configs())
def test_convolution_agrees_with_xla(xla, config):
    t, ldims, rdims, text = config
    compare_with_xla(xla, text, [random_array(t, ldims), random_array(t, rdims)], t)


@st.composite
def fft_configs(draw):
    kind = draw(st.sampled_from(["FFT", "IFFT", "RFFT", "IRFFT"]))
    t = draw(st.sampled_from(["f32", "f64"] if kind == "RFFT" else ["c64", "c128"]))
    rank = draw(st.integers(1, 3))
    lengths = [draw(st.integers(1, 9)) for _ in range(rank)]
    batch = [draw(st.integers(1, 3)) for _ in range(draw(st.integers(0, 2)))]
    dims = batch + lengths
    if kind == "IRFFT":
        dims[-1] = lengths[-1] // 2 + 1
    return kind, t, dims, lengths


@ORACLE_SETTINGS
@given(config=fft_configs())
def test_fft_agrees_with_xla(xla, config):
    kind, t, dims, lengths = config
    ot, text = fft_text(kind, t, dims, lengths)
    compare_with_xla(xla, text, [random_array(t, dims)], ot)
