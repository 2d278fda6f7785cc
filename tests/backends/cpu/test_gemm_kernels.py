"""xlapy's GEMM (emit.linalg_gemm_*), called directly through its BLAS-like interface.

Every variant is checked against a float64 numpy product within the documented bound
(docs/gemm.md: ``|c - exact| <= (k + 2) * eps * sum_p |a_ip| |b_pj|``, plus ``eps * |c|``
when accumulating), for all transposes, accumulate, edge sizes (1, odd, not multiples
of the tiles, k = 0, k past one cache panel), leading dimensions larger than the
sizes, both vector widths (the AVX2 variant runs on an AVX-512 host). The operands sit
right before a guard page (read-only where they are inputs), so a read or write past a
matrix's last element faults; C's padding rows must stay as they were. Threads, cache
panels and vector width never change a bit of the result.
"""

from __future__ import annotations

import ctypes
import itertools

import numpy as np
import pytest

from xlapy.backends.cpu.emit import linalg_gemm_library as library
from xlapy.backends.cpu.emit.linalg_gemm_blocking import blocking, workspace_bytes
from xlapy.backends.cpu.emit.linalg_gemm_complex import (
    PACKED_MIN,
    PLANES_MOST,
    complex_workspace_bytes,
)
from xlapy.backends.cpu.runtime import guarded_memory, jit
from xlapy.types import PrimitiveType as P

# void gemm(a, b, c, m, n, k, lda, ldb, ldc, workspace, workspace_bytes, workers)
_CALL = ctypes.CFUNCTYPE(
    None,
    *[ctypes.c_void_p] * 3,
    *[ctypes.c_int64] * 6,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.c_int64,
)
_DTYPES = {P.F32: np.float32, P.F64: np.float64, P.C64: np.complex64, P.C128: np.complex128}
_HOST_BITS = 512 if "+avx512f" in jit.host_target().features.split(",") else 256
_SIZES = [(1, 1, 1), (5, 3, 0), (37, 29, 50), (64, 12, 1), (97, 131, 67), (33, 1, 3), (3, 40, 401)]


def _workspace(et: P, bits: int, m: int, n: int, k: int) -> int:
    """What a call at the top of a computation reserves (emit_gemm_call)."""
    if et.is_complex:
        return complex_workspace_bytes(et, bits, m, n, k, 1 << 25, in_task=False)
    return workspace_bytes(et, bits, m, n, k, 1 << 25)


def _gemm(et: P, trans_a: bool, trans_b: bool, accumulate: bool, bits: int):  # noqa: ANN202
    name = library.ensure_variant(et, trans_a, trans_b, accumulate, bits)
    return _CALL(library.LIBRARY.address(name))


def _operand(rng: np.random.Generator, dtype, rows: int, cols: int, ld: int) -> np.ndarray:  # noqa: ANN001
    """A column-major rows x cols matrix with leading dimension ld, its buffer ending
    exactly at its last element."""
    size = ld * (cols - 1) + rows if rows and cols else 1
    flat = rng.standard_normal(size)
    if np.issubdtype(dtype, np.complexfloating):
        flat = flat + 1j * rng.standard_normal(size)
    return flat.astype(dtype)


def _view(flat: np.ndarray, rows: int, cols: int, ld: int) -> np.ndarray:
    """The rows x cols column-major matrix in ``flat`` (leading dimension ld)."""
    if rows == 0 or cols == 0:
        return np.zeros((rows, cols), flat.dtype)
    padded = np.concatenate([flat, np.zeros(ld * cols - flat.size, flat.dtype)])
    return padded.reshape(cols, ld)[:, :rows].T


def _run(
    et,
    trans_a,
    trans_b,
    accumulate,
    bits,
    m,
    n,
    k,
    *,
    workers=1,
    pad=(2, 3, 1),
    workspace=None,
    seed=0,
):  # noqa: ANN001, ANN202
    rng = np.random.default_rng(seed)
    dtype = _DTYPES[et]
    a_rows, a_cols = (k, m) if trans_a else (m, k)
    b_rows, b_cols = (n, k) if trans_b else (k, n)
    lda, ldb, ldc = max(1, a_rows + pad[0]), max(1, b_rows + pad[1]), m + pad[2]
    a = _operand(rng, dtype, a_rows, a_cols, lda)
    b = _operand(rng, dtype, b_rows, b_cols, ldb)
    c = _operand(rng, dtype, m, n, ldc)
    c_before = c.copy()
    guarded = [guarded_memory.guarded_copy(x, "after", read_only=True) for x in (a, b)]
    out = guarded_memory.guarded_copy(c, "after")
    size = workspace or max(64, _workspace(et, bits, m, n, k))
    space = guarded_memory.guarded_array((size,), np.uint8, "after")
    call = _gemm(et, trans_a, trans_b, accumulate, bits)
    call(guarded[0].ctypes.data, guarded[1].ctypes.data, out.ctypes.data, m, n, k,
         lda, ldb, ldc, space.ctypes.data, size, workers)  # fmt: skip
    op_a = _view(a, a_rows, a_cols, lda)
    op_a = op_a.T if trans_a else op_a
    op_b = _view(b, b_rows, b_cols, ldb)
    op_b = op_b.T if trans_b else op_b
    c0 = _view(c_before, m, n, ldc)
    wide = np.complex128 if np.issubdtype(dtype, np.complexfloating) else np.float64
    exact = op_a.astype(wide) @ op_b.astype(wide) + (c0.astype(wide) if accumulate else 0)
    return np.array(out), c_before, exact, (op_a, op_b, c0), ldc


def _check(et, accumulate, m, n, k, result) -> None:  # noqa: ANN001
    out, c_before, exact, (op_a, op_b, c0), ldc = result
    eps = np.finfo(_DTYPES[et]).eps
    bound = (k + 2) * eps * (np.abs(op_a).astype(np.float64) @ np.abs(op_b).astype(np.float64))
    bound = bound * (2 if et.is_complex else 1) + (eps * np.abs(c0) if accumulate else 0)
    got = _view(out, m, n, ldc)
    assert np.all(np.abs(got - exact) <= bound + np.finfo(np.float64).tiny), (m, n, k)
    # C's padding rows (between m and ldc) are never written.
    for j in range(n):
        assert np.array_equal(
            out[j * ldc + m : (j + 1) * ldc], c_before[j * ldc + m : (j + 1) * ldc]
        )


@pytest.mark.parametrize("trans_a", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("trans_b", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("accumulate", [False, True], ids=["set", "acc"])
def test_every_transpose_and_accumulate_f32(trans_a, trans_b, accumulate) -> None:  # noqa: ANN001
    for m, n, k in _SIZES:
        result = _run(P.F32, trans_a, trans_b, accumulate, _HOST_BITS, m, n, k)
        _check(P.F32, accumulate, m, n, k, result)


@pytest.mark.parametrize(
    ("et", "trans_a", "trans_b", "accumulate", "bits"),
    [
        (P.F64, False, False, False, _HOST_BITS),
        (P.F64, True, True, True, _HOST_BITS),
        (P.F32, False, False, False, 256),
        (P.F32, False, True, True, 256),
        (P.F64, True, False, False, 256),
        (P.C64, False, False, False, _HOST_BITS),
        (P.C128, True, True, True, _HOST_BITS),
    ],
)
def test_other_types_and_the_avx2_kernels(et, trans_a, trans_b, accumulate, bits) -> None:  # noqa: ANN001
    for m, n, k in _SIZES:
        result = _run(et, trans_a, trans_b, accumulate, bits, m, n, k)
        _check(et, accumulate, m, n, k, result)


def test_threads_panels_and_width_do_not_change_a_bit() -> None:
    m, n, k = 300, 211, 900  # several row blocks, column chunks and k panels
    single = _run(P.F32, False, False, False, _HOST_BITS, m, n, k)[0]
    threaded = _run(P.F32, False, False, False, _HOST_BITS, m, n, k, workers=2)[0]
    block = blocking(P.F32, _HOST_BITS)
    # A workspace that holds 10 steps of k: 90 panels instead of 3.
    rows, cols = -(-m // block.mr) * block.mr, -(-n // block.nr) * block.nr
    small = _run(P.F32, False, False, False, _HOST_BITS, m, n, k, workspace=(rows + cols) * 10 * 4)[
        0
    ]
    avx2 = _run(P.F32, False, False, False, 256, m, n, k, workers=2)[0]
    assert np.array_equal(single, threaded)
    assert np.array_equal(single, small)
    assert np.array_equal(single, avx2)


def test_threaded_accumulate_matches_and_k_zero_clears() -> None:
    m, n, k = 129, 257, 300
    single = _run(P.F64, True, False, True, _HOST_BITS, m, n, k)
    threaded = _run(P.F64, True, False, True, _HOST_BITS, m, n, k, workers=3)
    assert np.array_equal(single[0], threaded[0])
    _check(P.F64, True, m, n, k, threaded)
    out, before, _, _, ldc = _run(P.F32, False, False, False, _HOST_BITS, 7, 5, 0)
    assert not _view(out, 7, 5, ldc).any()
    out, before, _, _, ldc = _run(P.F32, False, False, True, _HOST_BITS, 7, 5, 0)
    assert np.array_equal(out, before)


def test_library_symbols_resolve_by_name() -> None:
    assert library.resolve_symbol("xlapy_gemm_256_f32_NT_acc")
    assert library.resolve_symbol("xlapy_gemm_512_c64_TN")
    assert not library.resolve_symbol("xlapy_gemm_512_s8_NN")
    assert not library.resolve_symbol("xlapy_blas_sgemm")


def test_b_packed_where_its_columns_are_a_multiple_of_1k_apart() -> None:
    # ldb = 256 f32 (1 KiB): B is packed (by 4 x 4 transposes); ldb = 203 reads it in place.
    for pad in (56, 3):
        result = _run(P.F32, False, False, False, _HOST_BITS, 70, 30, 200, pad=(2, pad, 1))
        _check(P.F32, False, 70, 30, 200, result)
    result = _run(P.F64, True, False, True, _HOST_BITS, 45, 26, 128, pad=(0, 0, 0))  # ldb 128
    _check(P.F64, True, 45, 26, 128, result)


@pytest.mark.parametrize("et", [P.C64, P.C128])
@pytest.mark.parametrize("trans_a", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("trans_b", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("accumulate", [False, True], ids=["set", "acc"])
def test_complex_through_four_real_gemms(et, trans_a, trans_b, accumulate) -> None:  # noqa: ANN001
    # Above PACKED_MIN: four packed real products on planes; within the bound, and
    # threads do not change a bit.
    m, n, k = 70, 45, 33
    assert m * n * k >= PACKED_MIN
    single = _run(et, trans_a, trans_b, accumulate, _HOST_BITS, m, n, k)
    _check(et, accumulate, m, n, k, single)
    threaded = _run(et, trans_a, trans_b, accumulate, _HOST_BITS, m, n, k, workers=2)
    assert np.array_equal(single[0], threaded[0])


def test_complex_in_column_blocks_and_without_room_for_the_planes() -> None:
    # A workspace for a few columns at a time gives the same bits as the whole width
    # (each element is still summed over p in order); one too small for a single
    # column runs the loop nest, within the bound; nothing is written past either.
    m, n, k = 64, 40, 30
    whole = _run(P.C64, False, True, True, _HOST_BITS, m, n, k)
    narrow = complex_workspace_bytes(P.C64, _HOST_BITS, m, n, k, 40_000, in_task=True)
    assert 0 < narrow < complex_workspace_bytes(P.C64, _HOST_BITS, m, n, k, 1 << 25, False)
    blocked = _run(P.C64, False, True, True, _HOST_BITS, m, n, k, workspace=narrow)
    assert np.array_equal(whole[0], blocked[0])
    blocked_t = _run(P.C64, True, False, False, _HOST_BITS, m, n, k, workspace=narrow)
    _check(P.C64, False, m, n, k, blocked_t)
    result = _run(P.C64, False, True, True, _HOST_BITS, m, n, k, workspace=64)
    _check(P.C64, True, m, n, k, result)
    assert complex_workspace_bytes(P.C64, _HOST_BITS, 8, 8, 8, 1 << 25, False) == 0
    assert complex_workspace_bytes(P.C64, _HOST_BITS, m, n, k, 1 << 10, True) == 0


def test_a_huge_complex_product_keeps_its_planes_within_the_bound() -> None:
    # 8192^3 c64: whole planes would take 2 GiB; by column blocks they stay under 1 GiB
    # (op(A)'s planes, 512 MiB, are whole: where they alone pass the bound, the loop nest).
    n = 8192
    size = complex_workspace_bytes(P.C64, _HOST_BITS, n, n, n, 32 << 20, in_task=False)
    assert 0 < size <= PLANES_MOST + (32 << 20)
    assert complex_workspace_bytes(P.C64, _HOST_BITS, 2 * n, n, 2 * n, 32 << 20, False) == 0


# The skinny paths (emit.linalg_gemm_skinny): C with at most 8 columns, or with rows
# within two vectors, A not transposed; k past one block of steps and not a multiple.
_FEW_COLUMNS = [(300, 1, 37), (130, 2, 5), (77, 3, 200), (64, 4, 16), (301, 5, 33), (99, 8, 129)]
_FEW_ROWS = [(1, 90, 100), (5, 40, 77), (16, 13, 64), (17, 61, 35), (32, 7, 300)]


@pytest.mark.parametrize("trans_a", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("trans_b", [False, True], ids=["N", "T"])
@pytest.mark.parametrize("accumulate", [False, True], ids=["set", "acc"])
@pytest.mark.parametrize("bits", sorted({256, _HOST_BITS}))
def test_skinny_products_within_the_bound_and_the_matrices(
    trans_a, trans_b, accumulate, bits
) -> None:  # noqa: ANN001
    for et in (P.F32, P.F64):
        for m, n, k in _FEW_COLUMNS + _FEW_ROWS:
            result = _run(et, trans_a, trans_b, accumulate, bits, m, n, k, workers=2)
            _check(et, accumulate, m, n, k, result)


def _product(bits, trans, accumulate, sizes, a, lda, b, ldb, c, ldc, workers):  # noqa: ANN001, ANN202
    """C after one call on these column-major buffers (guarded, as in _run)."""
    m, n, k = sizes
    inputs = [guarded_memory.guarded_copy(x, "after", read_only=True) for x in (a, b)]
    out = guarded_memory.guarded_copy(c, "after")
    size = max(64, _workspace(P.F64, bits, m, n, k))
    space = guarded_memory.guarded_array((size,), np.uint8, "after")
    call = _gemm(P.F64, *trans, accumulate, bits)
    call(inputs[0].ctypes.data, inputs[1].ctypes.data, out.ctypes.data, m, n, k,
         lda, ldb, ldc, space.ctypes.data, size, workers)  # fmt: skip
    return np.array(out).reshape(-1, ldc).T


def test_skinny_results_are_the_packed_gemms_bit_for_bit() -> None:
    """The same elements of C from the skinny path and from the packed GEMM (a wider or
    taller C over the same A, B and C): the same operations in the same order, whatever
    the threads or the vector width."""
    rng = np.random.default_rng(3)
    rows, cols, k = 70, 40, 300
    a, c = rng.standard_normal((k, rows)).ravel(), rng.standard_normal((cols, rows)).ravel()
    for trans_a, trans_b, bits, accumulate in itertools.product(
        (False, True), (False, True), sorted({256, _HOST_BITS}), (False, True)
    ):
        b = np.random.default_rng(4).standard_normal(cols * k)
        lda = k if trans_a else rows
        ldb = cols if trans_b else k
        buffers = (a, lda, b, ldb, c, rows)
        trans = (trans_a, trans_b)
        whole = _product(bits, trans, accumulate, (rows, cols, k), *buffers, 1)
        few_columns = _product(bits, trans, accumulate, (rows, 3, k), *buffers, 2)
        few_rows = _product(bits, trans, accumulate, (5, cols, k), *buffers, 2)
        one_column = _product(bits, trans, accumulate, (rows, 1, k), *buffers, 1)
        assert np.array_equal(few_columns[:, :3], whole[:, :3])
        assert np.array_equal(few_rows[:5], whole[:5])
        assert np.array_equal(one_column[:, :1], whole[:, :1])


def test_skinny_without_room_to_pack_in_the_workspace() -> None:
    # Few columns (A not transposed): B read in place, no workspace needed at all.
    for trans_b in (False, True):
        result = _run(P.F32, False, trans_b, True, _HOST_BITS, 150, 6, 400, workspace=64)
        _check(P.F32, True, 150, 6, 400, result)
    # Few rows with A transposed: no room to copy A (300 steps), so the packed path, in
    # a workspace of 10 steps of k.
    block = blocking(P.F32, _HOST_BITS)
    ten_steps = (-(-9 // block.mr) * block.mr + -(-70 // block.nr) * block.nr) * 4 * 10
    for trans_b in (False, True):
        result = _run(P.F32, True, trans_b, False, _HOST_BITS, 9, 70, 300, workspace=ten_steps)
        _check(P.F32, False, 9, 70, 300, result)
