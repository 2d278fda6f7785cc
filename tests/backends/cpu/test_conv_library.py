"""Convolutions as runtime-library kernels (linalg_conv_library): the same bits as the
inline im2col convolution for every geometry, and a program loaded from the persistent
compile cache finds the kernels in a new process."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import linalg_conv, linalg_conv_library
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing import new_processes


def _conv_text(et: str, x: tuple, w: tuple, pads: tuple) -> str:
    (top, bottom), (left, right) = pads
    n, h, wd, _ = x
    kh, kw, _, o = w
    ho, wo = h + top + bottom - kh + 1, wd + left + right - kw + 1
    return f"""HloModule conv
ENTRY e {{
  x = {et}{list(x)} parameter(0)
  w = {et}{list(w)} parameter(1)
  ROOT c = {et}[{n},{ho},{wo},{o}] convolution(x, w), window={{size={kh}x{kw} pad={top}_{bottom}x{left}_{right}}}, dim_labels=b01f_01io->b01f
}}"""


def _run(text: str, arguments: list[np.ndarray]) -> np.ndarray:
    executable = CpuBackend().compile(parse_module(text), CpuOptions(cache=False))
    assert executable.fallback_ops == []
    return executable.execute([Literal.from_numpy(a) for a in arguments]).to_numpy()


@pytest.mark.parametrize(
    "et, x, w, pads",
    [("f32", (2, 9, 11, 3), (3, 3, 3, 5), ((1, 1), (1, 1))),
     ("f32", (1, 16, 16, 8), (5, 3, 8, 13), ((2, 0), (0, 1))),
     ("f32", (3, 7, 5, 4), (1, 1, 4, 7), ((0, 0), (0, 0))),
     ("f64", (2, 12, 10, 6), (3, 2, 6, 4), ((1, 2), (0, 3))),
     ("f32", (4, 30, 30, 16), (3, 3, 16, 32), ((1, 1), (1, 1))),
     ("f32", (1, 4, 4, 2), (4, 4, 2, 3), ((0, 0), (0, 0)))],
)  # fmt: skip
def test_the_library_convolution_is_the_inline_one_bit_for_bit(et, x, w, pads, monkeypatch) -> None:  # noqa: ANN001
    text = _conv_text(et, x, w, pads)
    rng = np.random.default_rng(sum(x) + sum(w))
    dtype = np.float32 if et == "f32" else np.float64
    arguments = [rng.standard_normal(x).astype(dtype), rng.standard_normal(w).astype(dtype)]
    calls: list = []
    original = linalg_conv.emit_convolution
    monkeypatch.setattr(linalg_conv, "emit_convolution", lambda *a: calls.append(1) or original(*a))
    library = _run(text, arguments)
    assert calls, "the convolution did not take the library's kernels"
    monkeypatch.setattr(linalg_conv, "CONV_TYPES", frozenset())
    inline = _run(text, arguments)
    assert len(calls) == 1
    np.testing.assert_array_equal(library.view(np.uint8), inline.view(np.uint8))
    expected = interpret(text, *arguments)
    tolerance = 1e-4 if et == "f32" else 1e-10
    np.testing.assert_allclose(library, expected, rtol=tolerance, atol=tolerance)


def test_the_plan_holds_the_largest_blocks_gemm_workspace() -> None:
    geometry = {"batch": 1, "height": 8, "width": 8, "channels": 4, "kh": 3, "kw": 3,
                "outs": 16, "pad_top": 1, "pad_left": 1, "hp": 10, "wp": 10, "ho": 8,
                "wo": 8, "block": 48, "rows": 78}  # fmt: skip
    from xlapy.backends.cpu.emit.linalg_gemm_blocking import workspace_bytes  # noqa: PLC0415
    from xlapy.backends.cpu.emit.linalg_gemm_loops import KERNEL_GROUP_BYTES  # noqa: PLC0415
    from xlapy.types import PrimitiveType  # noqa: PLC0415

    plan = linalg_conv_library.plan(geometry, PrimitiveType.F32, 256)
    assert plan.dtype == np.int64 and len(plan) == 16
    expected = workspace_bytes(PrimitiveType.F32, 256, 16, 48, 36, KERNEL_GROUP_BYTES)
    assert plan[14] == max(64, expected)
    assert list(plan[:14]) == [1, 8, 8, 4, 3, 3, 16, 1, 1, 10, 10, 8, 8, 48]
    assert plan[15] == 78


_CHILD = """
import json
import numpy as np
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
text = '''HloModule cached_conv
ENTRY e {
  x = f32[2,10,10,3] parameter(0)
  w = f32[3,3,3,4] parameter(1)
  ROOT c = f32[2,10,10,4] convolution(x, w), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}'''
executable = CpuBackend().compile(parse_module(text), CpuOptions())
rng = np.random.default_rng(0)
x = rng.standard_normal((2, 10, 10, 3)).astype(np.float32)
w = rng.standard_normal((3, 3, 3, 4)).astype(np.float32)
out = executable.execute([Literal.from_numpy(x), Literal.from_numpy(w)]).to_numpy()
padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
exact = sum(np.einsum("nhwc,co->nhwo", padded[:, i:i + 10, j:j + 10, :], w[i, j])
            for i in range(3) for j in range(3))
print(json.dumps({"stats": persistent_cache.stats(),
                  "error": float(np.abs(out - exact).max()),
                  "symbols": list(executable.program.code.external_symbols)}))
"""


def test_a_cached_program_resolves_the_convolution_kernels_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD,
        XLAPY_COMPILATION_CACHE_DIR=str(tmp_path),
        XLAPY_COMPILATION_CACHE_VERSION="test-conv",
        XLAPY_GEMM_CACHE_DIR="",
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert first["error"] < 1e-4 and second["error"] < 1e-4
    assert any(s.startswith("xlapy_conv_") and s.endswith("_pad") for s in first["symbols"])
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".conv"]
