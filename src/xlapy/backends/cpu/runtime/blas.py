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
    symbol = f"xlapy_blas_{name}"
    jit.register_symbol(symbol, blas_address(name))
    existing = module.globals.get(symbol)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(VOID, [I8_PTR] * arity), symbol)


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


__all__ = ["blas_address", "blas_function", "set_threads_local_address"]
