"""Shared helpers of the ahead-of-time tests: build an object, run it in a C process,
and what the JIT computes for the same program.

``aot_run`` compiles with ``xlapy.aot``, links the generated C driver with ``cc``
(``-lm -lpthread`` only), runs it as a subprocess (no Python in that process) and
returns its results; ``jit_run`` runs the JIT on the same arguments, with xlapy's loop
GEMM (``gemm="xlapy"``, the AOT object's code: results equal bit for bit) or with
scipy's BLAS (the default: results within tolerance).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
from types import SimpleNamespace

import numpy as np
import pytest

from xlapy.aot import compile as aot_compile
from xlapy.aot.driver import build_driver, c_compiler, run_driver
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.literal import Literal
from xlapy.tools.inputs import leaves


@pytest.fixture
def cc() -> str:
    compiler = c_compiler()
    if compiler is None:
        pytest.skip("needs a C compiler: cc is not on PATH")
    return compiler


@functools.cache
def _system_libraries() -> list[ctypes.CDLL]:
    out = []
    for name in ("c", "m", "mvec", "pthread", "gcc_s"):
        path = ctypes.util.find_library(name)
        if path:
            out.append(ctypes.CDLL(path))
    return out


def undefined_outside_system(result, allowed: set[str] = frozenset()) -> list[str]:  # noqa: ANN001
    """The object's undefined symbols that neither libc, libm (with libmvec), pthreads nor
    libgcc (compiler support, linked by cc itself) define, less ``allowed``."""
    missing = []
    for name in result.elf.undefined:
        if name in allowed:
            continue
        if not any(hasattr(library, name) for library in _system_libraries()):
            missing.append(name)
    return missing


def as_bytes(array) -> np.ndarray:  # noqa: ANN001
    return np.ascontiguousarray(np.asarray(array)).reshape(-1).view(np.uint8)


@pytest.fixture
def aot_run(cc, tmp_path):  # noqa: ANN001, ANN201
    def run(program, arguments, name="prog", extra_objects=(), **kwargs):  # noqa: ANN001, ANN202
        result = aot_compile(program, name, outdir=str(tmp_path), **kwargs)
        binary = build_driver(result, str(tmp_path), extra_objects)
        flat = [leaf for a in arguments for leaf in leaves(a)]
        outputs, _ = run_driver(result, binary, flat)
        return result, outputs

    return run


def jit_run(module, arguments, gemm: str = "xlapy") -> list[np.ndarray]:  # noqa: ANN001
    # Laid out as the object is, without guard pages (XLAPY_GUARD_BUFFERS would otherwise
    # give the JIT its own buffers, and reduce-window then multiplies in another order);
    # the general entry, not call_numpy's fast one, which runs in every mode.
    options = CpuOptions(gemm=gemm, guard_buffers=None)
    executable = CpuBackend().compile(module, options)
    out = executable.execute([Literal.from_numpy(np.array(a, copy=True)) for a in arguments])
    return [np.asarray(x) for x in leaves(out.to_numpy())]


@pytest.fixture
def helpers():  # noqa: ANN201
    """The functions above, for the test modules (conftest is not importable)."""
    return SimpleNamespace(
        undefined_outside_system=undefined_outside_system, as_bytes=as_bytes, jit_run=jit_run
    )
