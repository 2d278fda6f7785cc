"""jaxlib's LAPACK FFI custom-call targets (``lapack_*_ffi``) as xlapy's built-in targets,
on the interpreter: JAX programs lowered to HLO text run unchanged and give JAX's results;
info outputs are LAPACK's; malformed calls are refused naming the target.
(tests/backends/cpu/test_lapack_targets.py runs the same programs on the CPU backend.)"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg.lapack as lapack

import xlapy
from xlapy.custom_call import builtin_targets, register_custom_call, unregister_custom_call
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module
from xlapy.stablehlo import parse_module as parse_stablehlo

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
jsl = pytest.importorskip("jax.scipy.linalg")
lax = jax.lax

BACKEND = "interpreter"
DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
TOLERANCE = {np.float32: 2e-4, np.complex64: 2e-4, np.float64: 1e-10, np.complex128: 1e-10}


def _random(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def _spd(shape, dtype):
    a = _random(shape, dtype).astype(np.complex128)
    eye = np.eye(shape[-1])
    product = a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * eye
    return (product if np.dtype(dtype).kind == "c" else product.real).astype(dtype)


def _run(fn, *args, backend=BACKEND):
    """JAX's result and xlapy's, from the HLO text JAX lowers ``fn`` to."""
    with jax.enable_x64(True):
        want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        text = jax.jit(fn).lower(*args).compiler_ir("hlo").as_hlo_text()
    got = xlapy.local_client(backend).compile(parse_module(text))(*args)
    got = jax.tree_util.tree_leaves(got if isinstance(got, tuple) else (got,))
    return [np.asarray(w) for w in want], [np.asarray(g) for g in got]


def _close(got, want, dtype):
    assert len(got) == len(want)
    tolerance = TOLERANCE[dtype]
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape and g.dtype == w.dtype
        scale = max(1.0, float(np.max(np.abs(w)))) if w.size else 1.0
        np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance * scale)


PROGRAMS = {
    "solve": (lambda a: jnp.linalg.solve(a, a[..., :2] + 1), _random),
    "inv": (jnp.linalg.inv, _random),
    "det": (jnp.linalg.det, _random),
    "slogdet": (lambda a: jnp.linalg.slogdet(a), _random),
    "lu": (lax.linalg.lu, _random),
    "qr": (jnp.linalg.qr, _random),
    "qr_complete": (lambda a: jnp.linalg.qr(a, mode="complete"), _random),
    "qr_pivoting": (lambda a: jsl.qr(a, pivoting=True), _random),
    "eigh": (jnp.linalg.eigh, _spd),
    "eigh_upper": (lambda a: jnp.linalg.eigh(a, UPLO="U"), _spd),
    "eigvalsh": (jnp.linalg.eigvalsh, _spd),
    "svd": (jnp.linalg.svd, _random),
    "svd_reduced": (lambda a: jnp.linalg.svd(a, full_matrices=False), _random),
    "svd_values": (lambda a: jnp.linalg.svd(a, compute_uv=False), _random),
    "svd_gesvd": (lambda a: lax.linalg.svd(a, algorithm=lax.linalg.SvdAlgorithm.QR), _random),
    "cholesky": (jnp.linalg.cholesky, _spd),
    "cholesky_upper": (lambda a: jsl.cholesky(a, lower=False), _spd),
    "solve_triangular": (lambda a: jsl.solve_triangular(a, a[..., :2] * 2, lower=True), _random),
    "eigvals": (jnp.linalg.eigvals, _random),
    "tridiagonal": (lambda a: lax.linalg.tridiagonal(a), _spd),
    "eig": (jnp.linalg.eig, _random),
    "schur": (jsl.schur, _random),
    "hessenberg": (lambda a: jsl.hessenberg(a, calc_q=True), _random),
}
SQUARE_ONLY = {"solve", "inv", "det", "slogdet", "eigh", "eigh_upper", "eigvalsh", "cholesky"}
SQUARE_ONLY |= {"cholesky_upper", "solve_triangular", "eigvals", "tridiagonal", "eig"}
SQUARE_ONLY |= {"schur", "hessenberg"}


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jax_program_matches_jax(name, dtype):
    fn, make = PROGRAMS[name]
    shapes = [(4, 4)] if name in SQUARE_ONLY else [(4, 4), (5, 3), (3, 5)]
    for shape in shapes:
        x = make(shape, dtype)
        want, got = _run(fn, x)
        _close(got, want, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128], ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize(
    "name", ["solve", "inv", "det", "qr", "eigh", "svd", "cholesky", "solve_triangular"]
)
def test_batched_jax_program_matches_jax(name, dtype):
    fn, make = PROGRAMS[name]
    x = make((2, 3, 4, 4), dtype)
    want, got = _run(fn, x)
    _close(got, want, dtype)


@pytest.mark.parametrize("n", [5, 1])  # one row: LAPACK's own case, no off-diagonals
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_tridiagonal_solve_matches_jax(dtype, n):
    dl, du = _random((2, n), dtype, seed=3), _random((2, n), dtype, seed=4)
    dl[:, 0] = 0
    du[:, -1] = 0
    d = _random((2, n), dtype, seed=5) + 4
    b = _random((2, n, 3), dtype, seed=6)
    want, got = _run(lax.linalg.tridiagonal_solve, dl, d, du, b)
    _close(got, want, dtype)


def test_results_agree_with_numpy():
    a = _random((5, 5), np.float64)
    b = _random((5, 2), np.float64, seed=1)
    _, (x,) = _run(lambda a, b: jnp.linalg.solve(a, b), a, b)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-10)
    _, (inverse,) = _run(jnp.linalg.inv, a)
    np.testing.assert_allclose(inverse, np.linalg.inv(a), rtol=1e-10, atol=1e-12)
    _, (s,) = _run(lambda a: jnp.linalg.svd(a, compute_uv=False), a)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    spd = _spd((5, 5), np.float64)
    _, (w, v) = _run(jnp.linalg.eigh, spd)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(spd), rtol=1e-12)
    np.testing.assert_allclose(spd @ v, v * w, atol=1e-10)
    _, (factor,) = _run(jnp.linalg.cholesky, spd)
    np.testing.assert_allclose(factor, np.linalg.cholesky(spd), rtol=1e-12)


@pytest.mark.parametrize(
    "left_side,lower,transpose_a,conjugate_a,unit_diagonal",
    [
        (True, True, False, False, False),
        (True, False, True, False, True),
        (False, True, True, True, False),
        (False, False, False, False, True),
    ],
)
def test_triangular_solve_attributes(left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    a = _random((4, 4), np.complex128) + 4 * np.eye(4)
    b = _random((4, 3) if left_side else (3, 4), np.complex128, seed=2)

    def solve(a, b):
        return lax.linalg.triangular_solve(
            a,
            b,
            left_side=left_side,
            lower=lower,
            transpose_a=transpose_a,
            conjugate_a=conjugate_a,
            unit_diagonal=unit_diagonal,
        )

    want, got = _run(solve, a, b)
    _close(got, want, np.complex128)


def test_singular_and_not_positive_definite_give_jax_results():
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    want, got = _run(jnp.linalg.det, singular)
    assert got[0] == want[0] == 0
    want, got = _run(lax.linalg.lu, singular)
    _close(got, want, np.float32)
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]], np.float64)
    want, got = _run(jnp.linalg.cholesky, indefinite)
    np.testing.assert_array_equal(got[0], want[0])  # NaNs where JAX has them (info > 0)
    assert np.isnan(got[0]).sum() == 3


def _getrf_text(operand="f32[3,3]{0,1}", result="(f32[3,3]{0,1}, s32[3]{0}, s32[])"):
    return f"""HloModule getrf
ENTRY main {{
  a = {operand.split("{")[0]} parameter(0)
  ROOT lu = {result} custom-call(a), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={{{operand}}}, api_version=API_VERSION_TYPED_FFI, backend_config={{}}
}}
"""


def test_getrf_info_and_pivots_are_lapacks():
    singular = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]], np.float32)
    lu, pivots, info = xlapy.local_client(BACKEND).compile(parse_module(_getrf_text()))(singular)
    want_lu, want_pivots, want_info = lapack.sgetrf(singular)
    assert int(info) == want_info > 0  # U[2,2] is exactly zero
    np.testing.assert_array_equal(pivots, want_pivots + 1)  # jaxlib's pivots are 1-based
    np.testing.assert_allclose(lu, want_lu)


def test_potrf_info_counts_the_failing_minor():
    text = """HloModule potrf
ENTRY main {
  a = f64[3,3] parameter(0)
  ROOT c = (f64[3,3]{0,1}, s32[]) custom-call(a), custom_call_target="lapack_dpotrf_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={uplo = 76 : ui8}
}
"""
    a = np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 1.0], [0.0, 1.0, 3.0]])
    factor, info = xlapy.local_client(BACKEND).compile(parse_module(text))(a)
    want, want_info = lapack.dpotrf(a, lower=1, clean=0)
    assert int(info) == want_info == 2
    np.testing.assert_allclose(factor, want)


@pytest.mark.parametrize(
    "operand,result,words",
    [
        ("f32[3]{0}", "(f32[3]{0}, s32[3]{0}, s32[])", ["operand 0 must be a matrix", "f32[3]"]),
        ("f64[3,3]{0,1}", "(f64[3,3]{0,1}, s32[3]{0}, s32[])", ["of f32", "f64[3,3]"]),
        ("f32[3,3]{0,1}", "(f32[3,3]{0,1}, s32[2]{0}, s32[])", ["the result must be", "s32[3]"]),
    ],
)
def test_malformed_call_is_refused_at_compile_time(operand, result, words):
    module = parse_module(_getrf_text(operand, result))
    with pytest.raises(InvalidArgumentError) as error:
        xlapy.local_client(BACKEND).compile(module)
    message = str(error.value)
    assert "lapack_sgetrf_ffi" in message
    for word in words:
        assert word in message


def test_bad_attribute_is_refused():
    text = """HloModule trsm
ENTRY main {
  a = f32[3,3] parameter(0)
  b = f32[3,2] parameter(1)
  ROOT x = f32[3,2]{0,1} custom-call(a, b), custom_call_target="lapack_strsm_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={diag = 78 : ui8, side = 76 : ui8, trans_x = 81 : ui8, uplo = 76 : ui8}
}
"""
    with pytest.raises(InvalidArgumentError, match=r"lapack_strsm_ffi.*trans_x=81"):
        xlapy.local_client(BACKEND).compile(parse_module(text))


def test_unsupported_mode_says_so():
    text = """HloModule gees
ENTRY main {
  a = f32[3,3] parameter(0)
  ROOT s = (f32[3,3]{0,1}, f32[3,3]{0,1}, f32[3]{0}, f32[3]{0}, s32[], s32[]) custom-call(a), custom_call_target="lapack_sgees_ffi", api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, sort = 83 : ui8}
}
"""
    with pytest.raises(UnimplementedError, match=r"lapack_sgees_ffi.*sort='S'.*not supported yet"):
        xlapy.local_client(BACKEND).compile(parse_module(text))


def test_every_jaxlib_target_is_built_in():
    names = set(builtin_targets())
    for routine in ["getrf", "geqrf", "geqp3", "potrf", "trsm", "gesdd", "gesvd", "geev"]:
        for letter in "sdcz":
            assert f"lapack_{letter}{routine}_ffi" in names
    for real, complex_ in [("orgqr", "ungqr"), ("syevd", "heevd"), ("sytrd", "hetrd")]:
        assert {f"lapack_s{real}_ffi", f"lapack_d{real}_ffi"} <= names
        assert {f"lapack_c{complex_}_ffi", f"lapack_z{complex_}_ffi"} <= names
    assert {"lapack_sgees_ffi", "lapack_zgehrd_ffi", "lapack_cgtsv_ffi"} <= names


def test_a_user_registration_wins_over_the_builtin():
    module = parse_module(_getrf_text())
    a = np.eye(3, dtype=np.float32)

    def mine(x):
        return x * 2, np.zeros(3, np.int32), np.int32(7)

    register_custom_call("lapack_sgetrf_ffi", mine)
    try:
        lu, _, info = xlapy.local_client(BACKEND).compile(module)(a)
        assert int(info) == 7 and lu[0, 0] == 2
    finally:
        unregister_custom_call("lapack_sgetrf_ffi")
    lu, pivots, info = xlapy.local_client(BACKEND).compile(module)(a)
    assert int(info) == 0 and pivots.tolist() == [1, 2, 3]


def test_stablehlo_import_runs_the_targets():
    a = _spd((4, 4), np.float32)
    with jax.enable_x64(True):
        want = jax.jit(jnp.linalg.eigh)(a)
        text = jax.jit(jnp.linalg.eigh).lower(a).as_text()
    w, v = xlapy.local_client(BACKEND).compile(parse_stablehlo(text))(a)
    _close([np.asarray(w), np.asarray(v)], [np.asarray(x) for x in want], np.float32)
