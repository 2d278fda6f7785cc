"""From a row-major GEMM request to cuBLAS's column-major arguments, and the cuBLAS
types of each element type: pure functions, tested against numpy without a GPU.

cuBLAS reads matrices column-major; xlapy's buffers are row-major. A row-major m x n
matrix with row stride ld is, read column-major with leading dimension ld, its n x m
transpose. So ``C = op(A) @ op(B)`` (row-major) is computed as the column-major
``C^T = op(B)^T @ op(A)^T``: cuBLAS's first operand is B, its second A, its m and n are
our n and m, and each operand keeps its own transposition flag (the column-major view of
a stored row-major matrix is its transpose, and the two transpositions cancel).
"""

from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from ....errors import InvalidArgumentError, UnimplementedError

# cublasOperation_t
OP_N = 0
OP_T = 1

# cudaDataType_t
CUDA_R_16F = 2
CUDA_R_16BF = 14
CUDA_R_32F = 0
CUDA_R_64F = 1
CUDA_C_32F = 4
CUDA_C_64F = 5

# cublasComputeType_t. CUBLAS_COMPUTE_32F never uses TF32 (that is _FAST_TF32, 77).
CUBLAS_COMPUTE_32F = 68
CUBLAS_COMPUTE_64F = 70

INT32_MAX = (1 << 31) - 1


@dataclass(frozen=True)
class GemmTypes:
    """The cuBLAS types of one element type: of A, B and C (``data_type``), of the
    accumulation (``compute_type``), and the numpy type of alpha and beta (the scale type
    cuBLAS derives from the compute type)."""

    data_type: int
    compute_type: int
    scale_dtype: np.dtype


GEMM_TYPES: dict[np.dtype, GemmTypes] = {
    np.dtype(np.float16): GemmTypes(CUDA_R_16F, CUBLAS_COMPUTE_32F, np.dtype(np.float32)),
    np.dtype(ml_dtypes.bfloat16): GemmTypes(CUDA_R_16BF, CUBLAS_COMPUTE_32F, np.dtype(np.float32)),
    np.dtype(np.float32): GemmTypes(CUDA_R_32F, CUBLAS_COMPUTE_32F, np.dtype(np.float32)),
    np.dtype(np.float64): GemmTypes(CUDA_R_64F, CUBLAS_COMPUTE_64F, np.dtype(np.float64)),
    np.dtype(np.complex64): GemmTypes(CUDA_C_32F, CUBLAS_COMPUTE_32F, np.dtype(np.complex64)),
    np.dtype(np.complex128): GemmTypes(CUDA_C_64F, CUBLAS_COMPUTE_64F, np.dtype(np.complex128)),
}


def gemm_types(dtype: object) -> GemmTypes:
    """The cuBLAS types for ``dtype``; ``UnimplementedError`` for the ones cuBLAS's GEMM
    is not used for (integers, f8: the GPU back-end emits those dots as kernels)."""
    key = np.dtype(dtype)
    types = GEMM_TYPES.get(key)
    if types is None:
        valid = ", ".join(str(d) for d in GEMM_TYPES)
        raise UnimplementedError(f"cuBLAS gemm of {key}: supported element types are {valid}")
    return types


@dataclass(frozen=True)
class ColumnMajorGemm:
    """The arguments of ``cublasGemmStridedBatchedEx`` (names as cuBLAS's): ``first`` and
    ``second`` say which of the caller's operands ("a" or "b") cuBLAS's A and B are."""

    transa: int
    transb: int
    m: int
    n: int
    k: int
    first: str
    lda: int
    stride_a: int
    second: str
    ldb: int
    stride_b: int
    ldc: int
    stride_c: int
    batch: int


def column_major_gemm(
    *,
    m: int,
    n: int,
    k: int,
    transpose_a: bool,
    transpose_b: bool,
    batch: int = 1,
    stride_a: int = 0,
    stride_b: int = 0,
    stride_c: int = 0,
    lda: int | None = None,
    ldb: int | None = None,
    ldc: int | None = None,
) -> ColumnMajorGemm:
    """cuBLAS's arguments for ``C = op(A) @ op(B)`` over row-major A (m x k, or k x m when
    ``transpose_a``), B (k x n, or n x k when ``transpose_b``) and C (m x n), ``batch``
    times with element strides. ``lda``/``ldb``/``ldc`` are the row-major row strides in
    elements (default: the stored matrices' column counts)."""
    lda = (m if transpose_a else k) if lda is None else lda
    ldb = (k if transpose_b else n) if ldb is None else ldb
    ldc = n if ldc is None else ldc
    _check(m=m, n=n, k=k, batch=batch, transpose_a=transpose_a, transpose_b=transpose_b,
           lda=lda, ldb=ldb, ldc=ldc)  # fmt: skip
    return ColumnMajorGemm(
        transa=OP_T if transpose_b else OP_N,
        transb=OP_T if transpose_a else OP_N,
        m=n,
        n=m,
        k=k,
        first="b",
        lda=ldb,
        stride_a=stride_b,
        second="a",
        ldb=lda,
        stride_b=stride_a,
        ldc=ldc,
        stride_c=stride_c,
        batch=batch,
    )


def _check(
    *, m: int, n: int, k: int, batch: int, transpose_a: bool, transpose_b: bool,
    lda: int, ldb: int, ldc: int,
) -> None:  # fmt: skip
    request = f"gemm(m={m}, n={n}, k={k}, batch={batch}, lda={lda}, ldb={ldb}, ldc={ldc})"
    if min(m, n, k, batch) < 1:
        raise InvalidArgumentError(
            f"{request}: every dimension and the batch must be at least 1 (an empty GEMM "
            "needs no cuBLAS call)"
        )
    if max(m, n, k, batch, lda, ldb, ldc) > INT32_MAX:
        raise UnimplementedError(f"{request}: cuBLAS takes 32-bit sizes (at most {INT32_MAX})")
    needed = {
        "lda": m if transpose_a else k,
        "ldb": k if transpose_b else n,
        "ldc": n,
    }
    given = {"lda": lda, "ldb": ldb, "ldc": ldc}
    for name, least in needed.items():
        if given[name] < least:
            raise InvalidArgumentError(
                f"{request}: {name}={given[name]} is less than the stored matrix's row "
                f"length {least}"
            )


__all__ = [
    "ColumnMajorGemm",
    "GEMM_TYPES",
    "GemmTypes",
    "column_major_gemm",
    "gemm_types",
]
