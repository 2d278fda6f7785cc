"""cuBLAS for the GPU back-end's dots: ``libcublas`` through ctypes, one handle per device
bound to the device's stream, and :meth:`Cublas.gemm`, every GEMM as one
``cublasGemmStridedBatchedEx`` call.

The library is found by ``cuda.pathfinder`` (the ``nvidia-cublas`` wheel, then the
system) when cuda-pathfinder is installed, else by the usual sonames. Results match the
element type's own arithmetic: f16, bf16 and f32 accumulate in f32 with
``CUBLAS_COMPUTE_32F`` (never TF32) and with reduced-precision split-K reductions
disallowed; f64 and c128 in f64; c64 in f32. alpha and beta (1 and 0) are host scalars
(``CUBLAS_POINTER_MODE_HOST``). Each handle gets a workspace of its own from the
device's allocator, so cuBLAS allocates nothing behind the allocator's back.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import threading
from typing import Any

import numpy as np

from ....errors import FailedPreconditionError, InternalError
from .gemm_args import column_major_gemm, gemm_types

try:  # optional: the nvidia-cublas wheel's locator
    from cuda.pathfinder import load_nvidia_dynamic_lib
except ImportError:  # pragma: no cover
    load_nvidia_dynamic_lib = None

SONAMES = ("libcublas.so.13", "libcublas.so.12", "libcublas.so")
WORKSPACE_BYTES = 32 << 20  # what NVIDIA recommends for Hopper (4 MiB before it)

CUBLAS_POINTER_MODE_HOST = 0
CUBLAS_DEFAULT_MATH = 0
CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION = 16
CUBLAS_GEMM_DEFAULT = -1

STATUS_NAMES = {
    0: "CUBLAS_STATUS_SUCCESS",
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
    16: "CUBLAS_STATUS_LICENSE_ERROR",
}

_P = ctypes.c_void_p
_I = ctypes.c_int
_LL = ctypes.c_longlong
PROTOTYPES: dict[str, tuple[Any, ...]] = {
    "cublasCreate_v2": (ctypes.POINTER(ctypes.c_void_p),),
    "cublasSetStream_v2": (_P, _P),
    "cublasSetPointerMode_v2": (_P, _I),
    "cublasSetMathMode": (_P, _I),
    "cublasSetWorkspace_v2": (_P, _P, ctypes.c_size_t),
    "cublasGetVersion_v2": (_P, ctypes.POINTER(ctypes.c_int)),
    "cublasGemmStridedBatchedEx": (
        _P, _I, _I, _I, _I, _I,  # handle, transa, transb, m, n, k
        _P, _P, _I, _I, _LL,  # alpha, A, Atype, lda, strideA
        _P, _I, _I, _LL,  # B, Btype, ldb, strideB
        _P, _P, _I, _I, _LL,  # beta, C, Ctype, ldc, strideC
        _I, _I, _I,  # batchCount, computeType, algo
    ),
}  # fmt: skip


@functools.cache
def _library() -> tuple[Any, str]:
    """(the loaded libcublas with its prototypes set, or None; why not)."""
    attempts = []
    paths: list[str] = []
    if load_nvidia_dynamic_lib is not None:
        try:
            loaded = load_nvidia_dynamic_lib("cublas")
            if loaded.abs_path:
                paths.append(loaded.abs_path)
        except Exception as error:  # not installed as a wheel nor on the system
            attempts.append(f"cuda.pathfinder: {type(error).__name__}: {error}")
    paths += list(SONAMES)
    found = ctypes.util.find_library("cublas")
    if found:
        paths.append(found)
    for path in paths:
        try:
            library = ctypes.CDLL(path)
        except OSError as error:
            attempts.append(f"{path}: {error}")
            continue
        for name, argtypes in PROTOTYPES.items():
            function = getattr(library, name)
            function.argtypes = list(argtypes)
            function.restype = ctypes.c_int
        return library, ""
    reason = "libcublas could not be loaded (" + "; ".join(attempts) + ")"
    return None, " ".join(reason.split())


def cublas_available() -> bool:
    """Whether libcublas loads (never raises)."""
    try:
        return _library()[0] is not None
    except Exception:  # a library without the entry points xlapy calls
        return False


def cublas_unavailable_reason() -> str:
    try:
        return _library()[1]
    except Exception as error:
        return f"libcublas has not the entry points xlapy calls ({error})"


def status_name(status: int) -> str:
    return STATUS_NAMES.get(status, f"cublasStatus {status}")


def _check(status: int, call: str) -> None:
    if status != 0:
        raise InternalError(f"{call}: {status_name(status)}")


class _Handle:
    """A cuBLAS handle of one device: its stream, math mode, host pointer mode and its
    workspace. Used under the device's lock (cuBLAS handles are not thread-safe)."""

    def __init__(self, library: Any, device: Any) -> None:
        self.library = library
        self.device = device
        device.make_current()
        handle = ctypes.c_void_p()
        _check(library.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        self.handle = handle
        _check(library.cublasSetStream_v2(handle, int(device.stream)), "cublasSetStream")
        _check(
            library.cublasSetPointerMode_v2(handle, CUBLAS_POINTER_MODE_HOST),
            "cublasSetPointerMode",
        )
        math_mode = CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
        _check(library.cublasSetMathMode(handle, math_mode), "cublasSetMathMode")
        # After cublasSetStream, which resets the workspace to cuBLAS's own.
        self.workspace = device.allocate(WORKSPACE_BYTES)
        _check(
            library.cublasSetWorkspace_v2(handle, self.workspace.pointer, WORKSPACE_BYTES),
            "cublasSetWorkspace",
        )


_handles: dict[int, _Handle] = {}
_handles_lock = threading.Lock()


def _handle_of(device: Any) -> _Handle:
    library, reason = _library()
    if library is None:
        raise FailedPreconditionError(f"cuBLAS is not available: {reason}")
    with _handles_lock:
        handle = _handles.get(device.ordinal)
        if handle is None:
            with device.lock:
                handle = _handles[device.ordinal] = _Handle(library, device)
        return handle


@functools.cache
def _scalars(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """alpha = 1 and beta = 0 in host memory, kept alive for the process."""
    return np.ones(1, dtype=dtype), np.zeros(1, dtype=dtype)


class Cublas:
    """cuBLAS on ``device`` (the handle is made once per device and shared)."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self._handle = _handle_of(device)

    def version(self) -> int:
        value = ctypes.c_int()
        with self.device.lock:
            self.device.make_current()
            _check(
                self._handle.library.cublasGetVersion_v2(self._handle.handle, ctypes.byref(value)),
                "cublasGetVersion",
            )
        return value.value

    def gemm(
        self,
        dtype: Any,
        *,
        m: int,
        n: int,
        k: int,
        a: int,
        b: int,
        c: int,
        transpose_a: bool,
        transpose_b: bool,
        batch: int = 1,
        stride_a: int = 0,
        stride_b: int = 0,
        stride_c: int = 0,
        lda: int | None = None,
        ldb: int | None = None,
        ldc: int | None = None,
    ) -> None:
        """Enqueue ``C = op(A) @ op(B)`` on the device's stream for row-major A (m x k, or
        k x m when ``transpose_a``), B (k x n, or n x k) and C (m x n) at device pointers
        ``a``, ``b``, ``c``; ``batch`` such products with element strides; ``lda``/``ldb``/
        ``ldc`` are row strides in elements (default: packed)."""
        types = gemm_types(dtype)
        args = column_major_gemm(
            m=m, n=n, k=k, transpose_a=transpose_a, transpose_b=transpose_b, batch=batch,
            stride_a=stride_a, stride_b=stride_b, stride_c=stride_c, lda=lda, ldb=ldb, ldc=ldc,
        )  # fmt: skip
        pointers = {"a": a, "b": b}
        alpha, beta = _scalars(types.scale_dtype)
        handle = self._handle
        with self.device.lock:
            self.device.make_current()
            status = handle.library.cublasGemmStridedBatchedEx(
                handle.handle, args.transa, args.transb, args.m, args.n, args.k,
                alpha.ctypes.data,
                pointers[args.first], types.data_type, args.lda, args.stride_a,
                pointers[args.second], types.data_type, args.ldb, args.stride_b,
                beta.ctypes.data,
                c, types.data_type, args.ldc, args.stride_c,
                args.batch, types.compute_type, CUBLAS_GEMM_DEFAULT,
            )  # fmt: skip
        _check(
            status,
            f"cublasGemmStridedBatchedEx({np.dtype(dtype)}, m={m}, n={n}, k={k}, "
            f"batch={batch}, transpose_a={transpose_a}, transpose_b={transpose_b})",
        )


__all__ = ["Cublas", "cublas_available", "cublas_unavailable_reason", "status_name"]
