"""Programs whose dots and convolutions run xlapy's GEMM (CpuOptions.gemm="xlapy").

Every operand form the dot emitter maps to a transpose flag (contracting dimension
first or last on either side), batched dots (one GEMM per batch element) and small
shapes, checked against float64 numpy within the documented bound (docs/gemm.md), on
the host's vector width and on the AVX2 code path (``target_cpu="x86-64-v3"``), with
guard pages after every buffer. The persistent compile cache: a program stored by one
process calls the GEMM library's symbol, which a new process resolves (compiling or
loading the variant) before it maps the program.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import linalg_gemm_library
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.builder import XlaBuilder
from xlapy.literal import Literal
from xlapy.testing import new_processes
from xlapy.types import PrimitiveType
from xlapy.xla_data import ConvolutionDimensionNumbers, DotDimensionNumbers

_TYPES = {"f32": (xlapy.F32, np.float32), "f64": (xlapy.F64, np.float64),
          "c64": (xlapy.C64, np.complex64)}  # fmt: skip


def _dot_program(name: str, lhs: tuple, rhs: tuple, dims: DotDimensionNumbers, et):  # noqa: ANN001, ANN202
    b = XlaBuilder(name)
    x = ops.Parameter(b, 0, xlapy.Shape.array(et, list(lhs)), "x")
    y = ops.Parameter(b, 1, xlapy.Shape.array(et, list(rhs)), "y")
    return b.build(ops.DotGeneral(x, y, dims)).hlo_module


def _call(executable, *arguments: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """The single result (through Literals: guard mode has no numpy fast path)."""
    return executable.execute([Literal.from_numpy(a) for a in arguments]).to_numpy()


def _random(rng: np.random.Generator, shape: tuple, dtype) -> np.ndarray:  # noqa: ANN001
    x = rng.standard_normal(shape)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _within_bound(got: np.ndarray, x: np.ndarray, y: np.ndarray, equation: str, k: int) -> None:
    wide = np.complex128 if np.iscomplexobj(x) else np.float64
    exact = np.einsum(equation, x.astype(wide), y.astype(wide))
    scale = np.einsum(equation, np.abs(x).astype(np.float64), np.abs(y).astype(np.float64))
    eps = np.finfo(got.dtype).eps
    assert got.shape == exact.shape
    assert np.all(np.abs(got - exact) <= 2 * (k + 2) * eps * scale + 1e-300)


# (lhs contracting dim, rhs contracting dim) -> einsum for rank-2 operands.
_FORMS = {(1, 0): "ik,kj->ij", (0, 0): "ki,kj->ij", (1, 1): "ik,jk->ij", (0, 1): "ki,jk->ij"}


@pytest.mark.parametrize(
    ("type_name", "target"),
    [("f32", None), ("f64", None), ("c64", None), ("f32", "x86-64-v3")],
    ids=["f32", "f64", "c64", "f32-avx2"],
)
def test_every_operand_form(type_name, target) -> None:  # noqa: ANN001
    et, dtype = _TYPES[type_name]
    rng = np.random.default_rng(1)
    backend = CpuBackend()
    options = CpuOptions(gemm="xlapy", target_cpu=target, guard_buffers="after")
    for m, n, k in [(1, 1, 1), (37, 19, 71), (130, 65, 3)]:
        for (lc, rc), equation in _FORMS.items():
            lhs = (m, k) if lc == 1 else (k, m)
            rhs = (k, n) if rc == 0 else (n, k)
            dims = DotDimensionNumbers([lc], [rc])
            executable = backend.compile(_dot_program("dot", lhs, rhs, dims, et), options)
            x, y = _random(rng, lhs, dtype), _random(rng, rhs, dtype)
            got = _call(executable, x, y)
            _within_bound(got, x, y, equation, k)


def test_batched_and_tiny_dots() -> None:
    rng = np.random.default_rng(2)
    backend = CpuBackend()
    options = CpuOptions(gemm="xlapy", guard_buffers="after")
    for batch, m, n, k in [(64, 3, 5, 7), (5, 33, 13, 17), (2, 1, 300, 250)]:
        dims = DotDimensionNumbers([2], [1], [0], [0])
        program = _dot_program("bmm", (batch, m, k), (batch, k, n), dims, xlapy.F32)
        x = _random(rng, (batch, m, k), np.float32)
        y = _random(rng, (batch, k, n), np.float32)
        got = _call(backend.compile(program, options), x, y)
        _within_bound(got, x, y, "bik,bkj->bij", k)


def test_a_large_dot_threaded_matches_the_avx2_path_bit_for_bit() -> None:
    rng = np.random.default_rng(3)
    backend = CpuBackend()
    program = _dot_program("mm", (300, 257), (257, 190), DotDimensionNumbers([1], [0]), xlapy.F32)
    x, y = _random(rng, (300, 257), np.float32), _random(rng, (257, 190), np.float32)
    host = _call(backend.compile(program, CpuOptions(gemm="xlapy")), x, y)
    avx2 = CpuOptions(gemm="xlapy", target_cpu="x86-64-v3")
    assert np.array_equal(host, _call(backend.compile(program, avx2), x, y))
    _within_bound(host, x, y, "ik,kj->ij", 257)


def test_convolution_through_the_gemm() -> None:
    rng = np.random.default_rng(4)
    x = _random(rng, (2, 9, 11, 5), np.float32)
    w = _random(rng, (3, 3, 5, 7), np.float32)
    nhwc = ConvolutionDimensionNumbers(
        input_batch_dimension=0, input_feature_dimension=3, input_spatial_dimensions=(1, 2),
        kernel_input_feature_dimension=2, kernel_output_feature_dimension=3,
        kernel_spatial_dimensions=(0, 1), output_batch_dimension=0,
        output_feature_dimension=3, output_spatial_dimensions=(1, 2),
    )  # fmt: skip
    b = XlaBuilder("conv")
    xp = ops.Parameter(b, 0, xlapy.Shape.array(xlapy.F32, list(x.shape)), "x")
    wp = ops.Parameter(b, 1, xlapy.Shape.array(xlapy.F32, list(w.shape)), "w")
    program = b.build(ops.ConvWithGeneralDimensions(xp, wp, [1, 1], "SAME", nhwc)).hlo_module
    options = CpuOptions(gemm="xlapy", guard_buffers="after")
    got = _call(CpuBackend().compile(program, options), x, w)
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    exact = sum(
        padded[:, i : i + 9, j : j + 11, :] @ w[i, j].astype(np.float64)
        for i in range(3) for j in range(3)
    )  # fmt: skip
    assert np.allclose(got, exact, rtol=1e-5, atol=1e-5)


_CHILD = """
import json, sys
import numpy as np
import xlapy
from xlapy import ops
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.builder import XlaBuilder
from xlapy.literal import Literal
b = XlaBuilder("cached_dot")
x = ops.Parameter(b, 0, xlapy.Shape.array(xlapy.F32, [70, 50]), "x")
y = ops.Parameter(b, 1, xlapy.Shape.array(xlapy.F32, [50, 30]), "y")
program = b.build(ops.Dot(x, y)).hlo_module
executable = CpuBackend().compile(program, CpuOptions(gemm="xlapy"))
rng = np.random.default_rng(0)
a, c = rng.standard_normal((70, 50), np.float32), rng.standard_normal((50, 30), np.float32)
out = executable.execute([Literal.from_numpy(a), Literal.from_numpy(c)]).to_numpy()
print(json.dumps({"stats": persistent_cache.stats(), "sum": float(out.astype(np.float64).sum()),
                  "error": float(np.abs(out - a.astype(np.float64) @ c).max())}))
"""


def test_a_cached_program_resolves_the_gemm_library_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD, XLAPY_COMPILATION_CACHE_DIR=str(tmp_path), XLAPY_COMPILATION_CACHE_VERSION="test-gemm"
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert second["sum"] == first["sum"] and first["error"] < 1e-4
    # The variant's object is kept beside the programs, outside their entries.
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".gemm"]


_LIBRARY_CHILD = """
import json
from xlapy.backends.cpu.emit import linalg_gemm_library
from xlapy.backends.cpu.runtime import jit
from xlapy.types import PrimitiveType
compiled = []
original = jit.compile_module
jit.compile_module = lambda *a, **k: compiled.append(1) or original(*a, **k)
name = linalg_gemm_library.ensure_variant(PrimitiveType.F64, False, True, True, 256)
print(json.dumps({"name": name, "compiled": len(compiled)}))
"""


def test_without_a_compile_cache_the_library_is_kept_for_the_next_process(tmp_path) -> None:  # noqa: ANN001
    env = dict(os.environ, XLAPY_GEMM_CACHE_DIR=str(tmp_path / "gemm"))
    env.pop("XLAPY_COMPILATION_CACHE_DIR", None)
    runs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", _LIBRARY_CHILD], env=env, capture_output=True,
                              text=True, timeout=120, check=True)  # fmt: skip
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    assert runs[0]["compiled"] == 1 and runs[1]["compiled"] == 0
    assert [p.suffix for p in (tmp_path / "gemm").iterdir()] == [".gemm"]
    # Empty: nothing kept, every process compiles.
    env["XLAPY_GEMM_CACHE_DIR"] = ""
    done = subprocess.run([sys.executable, "-c", _LIBRARY_CHILD], env=env, capture_output=True,
                          text=True, timeout=120, check=True)  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1])["compiled"] == 1


def test_a_variant_this_process_has_is_kept_in_a_program_cache_that_lacks_it(
    tmp_path,  # noqa: ANN001
    monkeypatch,  # noqa: ANN001
) -> None:
    # Found in (or compiled for) the library first, as a program without a cache would;
    # a later program's cache directory still gets it, so that its next process maps it.
    monkeypatch.setenv("XLAPY_GEMM_CACHE_DIR", str(tmp_path / "library"))
    flags = (PrimitiveType.F64, False, True, True, 256)
    name = linalg_gemm_library.ensure_variant(*flags)
    cache = tmp_path / "cache"
    assert linalg_gemm_library.ensure_variant(*flags, str(cache)) == name
    assert [p.suffix for p in cache.iterdir()] == [".gemm"]
