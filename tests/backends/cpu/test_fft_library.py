"""The FFT along the last axis as a runtime-library variant (linalg_fft_library): one
compiled kernel per type and direction serves every length, and programs loaded from the
persistent compile cache find it in a new process."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import linalg_fft_library
from xlapy.backends.cpu.runtime import jit
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.builder import XlaBuilder
from xlapy.literal import Literal
from xlapy.testing import new_processes


def _fft_program(rows: int, n: int, kind: str = "FFT", t=xlapy.C64):  # noqa: ANN001, ANN202
    b = XlaBuilder(f"fft_{rows}x{n}")
    x = ops.Parameter(b, 0, xlapy.Shape.array(t, [rows, n]), "x")
    return b.build(ops.Fft(x, kind, [n])).hlo_module


def _call(executable, x: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Through Literals: guard mode (``XLAPY_GUARD_BUFFERS``) has no numpy fast path."""
    return executable.execute([Literal.from_numpy(x)]).to_numpy()


def _input(rows: int, n: int, dtype=np.complex64) -> np.ndarray:  # noqa: ANN001
    rng = np.random.default_rng(rows * 7919 + n)
    return (rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))).astype(dtype)


def test_runs_group_the_stages_of_one_radix():
    assert linalg_fft_library._runs(1024) == [(4, 1024, 1, 4), (4, 4, 256, 1)]
    assert linalg_fft_library._runs(960) == [(4, 960, 1, 3), (3, 15, 64, 1), (5, 5, 192, 1)]
    assert linalg_fft_library._runs(7) == [(7, 7, 1, 1)]
    plan, twiddles = linalg_fft_library._plan(960, 3, -1, xlapy.C64)
    assert list(plan[:3]) == [960, 3, 3] and len(plan) == 3 + 3 * 6
    # Twiddles: the radix-4 run's rows (240 + 60 + 15 of 6 parts), then radix 3's (5 of 4).
    assert twiddles.dtype == np.float32 and twiddles.size == (240 + 60 + 15) * 6 + 5 * 4
    assert list(plan[3 + 6 + 4 : 3 + 6 + 6]) == [(240 + 60 + 15) * 6, 1]
    assert plan[3 + 12 + 5] == 0  # radix 5 of length 5: no twiddles


def test_one_variant_serves_every_length(monkeypatch) -> None:  # noqa: ANN001
    compiled = []
    original = jit.compile_module
    monkeypatch.setattr(
        jit,
        "compile_module",
        lambda module, **k: compiled.append(module.name) or original(module, **k),
    )
    backend = CpuBackend()
    options = CpuOptions(cache=False, persistent_cache_dir=None)
    for rows, n in [(3, 1024), (9, 960), (1, 7), (17, 1680), (8, 2)]:
        x = _input(rows, n)
        got = _call(backend.compile(_fft_program(rows, n), options), x)
        want = np.fft.fft(x.astype(np.complex128), axis=1)
        assert np.allclose(got, want, rtol=1e-4, atol=1e-4 * np.sqrt(n)), (rows, n)
    libraries = [name for name in compiled if name.startswith("xlapy_fft_")]
    assert len(libraries) <= 1  # compiled once (or loaded from the library directory)
    assert len([name for name in compiled if not name.startswith("xlapy_")]) == 5


@pytest.mark.parametrize("t", [xlapy.C64, xlapy.C128])
def test_inverse_scales_by_one_over_n(t) -> None:  # noqa: ANN001
    dtype = np.complex64 if t is xlapy.C64 else np.complex128
    x = _input(5, 384, dtype)
    got = _call(CpuBackend().compile(_fft_program(5, 384, "IFFT", t), CpuOptions()), x)
    want = np.fft.ifft(x.astype(np.complex128), axis=1)
    tolerance = 1e-6 if t is xlapy.C64 else 1e-14
    assert np.allclose(got, want, rtol=tolerance * 10, atol=tolerance)


_CHILD = """
import json
import numpy as np
import xlapy
from xlapy import ops
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.builder import XlaBuilder
from xlapy.literal import Literal
b = XlaBuilder("cached_fft")
x = ops.Parameter(b, 0, xlapy.Shape.array(xlapy.C64, [12, 240]), "x")
program = b.build(ops.Fft(x, "FFT", [240])).hlo_module
executable = CpuBackend().compile(program, CpuOptions())
rng = np.random.default_rng(0)
a = (rng.standard_normal((12, 240)) + 1j * rng.standard_normal((12, 240))).astype(np.complex64)
out = executable.execute([Literal.from_numpy(a)]).to_numpy()
print(json.dumps({"stats": persistent_cache.stats(), "bytes": out.tobytes().hex(),
                  "error": float(np.abs(out - np.fft.fft(a.astype(np.complex128))).max())}))
"""


def test_a_cached_program_resolves_the_fft_library_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD,
        XLAPY_COMPILATION_CACHE_DIR=str(tmp_path),
        XLAPY_COMPILATION_CACHE_VERSION="test-fft",
        XLAPY_GEMM_CACHE_DIR="",
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert second["bytes"] == first["bytes"] and first["error"] < 1e-3
    # The variant's object is kept beside the programs, outside their entries.
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".fft"]
