"""BLAS and LAPACK for native code: the routines scipy exports, called by address.

``scipy.linalg.cython_blas`` (``cython_lapack``) publish their routines' C function
pointers; the dot, convolution and linear-algebra emitters declare an external
function per routine and the JIT resolves it to that address (``jit.register_symbol``),
so a GEMM is a direct call from native code with no Python in between.
"""

from __future__ import annotations

import ctypes
import functools

import scipy.linalg.cython_blas as cython_blas
import scipy.linalg.cython_lapack as cython_lapack
from llvmlite import ir

from ..llvm_types import I8_PTR, VOID
from . import jit

_addresses: dict[str, int] = {}
_BLAS_PREFIX = "xlapy_blas_"
# OpenBLAS's per-thread thread count, as native code calls it (emit.linalg_gemm_split).
SET_THREADS_LOCAL_SYMBOL = "xlapy_openblas_set_num_threads_local"


def blas_address(name: str) -> int:
    """The address of a BLAS (or LAPACK) routine exported by scipy.linalg.cython_blas
    (cython_lapack)."""
    if name not in _addresses:
        blas_table = cython_blas.__pyx_capi__
        table = blas_table if name in blas_table else cython_lapack.__pyx_capi__
        capsule = table[name]
        get_name = ctypes.pythonapi.PyCapsule_GetName
        get_name.restype, get_name.argtypes = ctypes.c_char_p, [ctypes.py_object]
        get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
        get_pointer.restype, get_pointer.argtypes = (
            ctypes.c_void_p,
            [ctypes.py_object, ctypes.c_char_p],
        )
        _addresses[name] = get_pointer(capsule, get_name(capsule))
    return _addresses[name]


def blas_function(module: ir.Module, name: str, arity: int) -> ir.Function:
    """An external declaration of BLAS routine ``name`` in ``module``, resolved to scipy's
    at link time."""
    symbol = _BLAS_PREFIX + name
    jit.register_symbol(symbol, blas_address(name))
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(VOID, [I8_PTR] * arity), symbol)


def resolve_symbol(name: str) -> bool:
    """Register ``name`` if it is one of the symbols this module gives native code
    (``xlapy_blas_*``, ``xlapy_openblas_set_num_threads_local``): what code loaded from the
    persistent compile cache needs before it is mapped. False for another name, or
    where this process cannot provide it."""
    if name.startswith(_BLAS_PREFIX):
        routine = name[len(_BLAS_PREFIX) :]
        if routine not in cython_blas.__pyx_capi__ and routine not in cython_lapack.__pyx_capi__:
            return False
        jit.register_symbol(name, blas_address(routine))
        return True
    if name == SET_THREADS_LOCAL_SYMBOL:
        address = set_threads_local_address()
        if address is not None:
            jit.register_symbol(name, address)
        return address is not None
    return False


@functools.cache
def set_threads_local_address() -> int | None:
    """The address of OpenBLAS's ``openblas_set_num_threads_local`` in the library that
    serves scipy's BLAS, or None."""

    class _DlInfo(ctypes.Structure):
        _fields_ = [
            ("dli_fname", ctypes.c_char_p),
            ("dli_fbase", ctypes.c_void_p),
            ("dli_sname", ctypes.c_char_p),
            ("dli_saddr", ctypes.c_void_p),
        ]

    try:
        libc = ctypes.CDLL(None)
        info = _DlInfo()
        if not libc.dladdr(ctypes.c_void_p(blas_address("sgemm")), ctypes.byref(info)):
            return None
        library = ctypes.CDLL(info.dli_fname.decode())
        function = library.openblas_set_num_threads_local
    except (OSError, AttributeError, TypeError):
        return None
    return ctypes.cast(function, ctypes.c_void_p).value


__all__ = [
    "SET_THREADS_LOCAL_SYMBOL",
    "blas_address",
    "blas_function",
    "resolve_symbol",
    "set_threads_local_address",
]
