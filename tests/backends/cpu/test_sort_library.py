"""Sorts by a plain comparison as runtime-library variants (sort_library): which sorts
take the library's kernel, that it sorts as the inline merge sort does (the same bits,
NaN and signed zeros in total order, stable), and that a program loaded from the
persistent compile cache finds it in a new process."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import sort_library
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing import new_processes

_COMPARISON = {"f32": "TOTALORDER", "f64": "TOTALORDER", "s32": "SIGNED", "s64": "SIGNED",
               "u32": "UNSIGNED", "u64": "UNSIGNED"}  # fmt: skip


def _sort(et: str, shape: list[int], direction: str = "LT", comparison: str | None = None) -> str:
    kind = comparison or _COMPARISON[et]
    return f"""HloModule sort_{et}
compare {{
  lhs = {et}[] parameter(0)
  rhs = {et}[] parameter(1)
  ROOT less = pred[] compare(lhs, rhs), direction={direction}, type={kind}
}}

ENTRY e {{
  p = {et}{shape} parameter(0)
  ROOT s = {et}{shape} sort(p), dimensions={{{len(shape) - 1}}}, to_apply=compare
}}"""


def _compile(text: str, **options):  # noqa: ANN003, ANN202
    return CpuBackend().compile(parse_module(text), CpuOptions(cache=False, **options))


def _call(executable, x: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Through Literals: guard mode (``XLAPY_GUARD_BUFFERS``) has no numpy fast path."""
    return executable.execute([Literal.from_numpy(x)]).to_numpy()


def _uses_library(executable) -> bool:  # noqa: ANN001
    text = executable.program.code.optimized_ir
    return any(line.startswith("declare") and "xlapy_sort_" in line for line in text.splitlines())


def _data(et: str, shape: list[int]) -> np.ndarray:
    rng = np.random.default_rng(sum(shape))
    if et.startswith("f"):
        x = rng.integers(-20, 20, shape).astype(np.float32 if et == "f32" else np.float64)
        flat = x.reshape(-1)
        for k, special in enumerate([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf]):
            flat[(7 * k + 3) % flat.size] = special
        return x
    dtype = np.dtype({"s32": np.int32, "s64": np.int64, "u32": np.uint32, "u64": np.uint64}[et])
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("et", ["f32", "f64", "s32", "s64", "u32", "u64"])
@pytest.mark.parametrize("direction", ["LT", "GT"])
@pytest.mark.parametrize("shape", [[5, 1000], [1], [3, 2, 33], [2, 4096]])
def test_the_library_sort_is_the_inline_sort(et, direction, shape, monkeypatch, tmp_path) -> None:  # noqa: ANN001
    text = _sort(et, shape, direction)
    x = _data(et, shape)
    library = _compile(text, dump_dir=str(tmp_path / "library"))
    assert _uses_library(library)
    got = _call(library, x)
    monkeypatch.setattr(sort_library, "plain_comparison", lambda instruction: None)
    inline = _compile(text, dump_dir=str(tmp_path / "inline"))
    assert not _uses_library(inline)
    assert got.tobytes() == _call(inline, x).tobytes()
    want = xlapy.local_client("interpreter").compile(parse_module(text))(x)
    assert got.tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize(
    "text",
    [
        _sort("f32", [4, 64], comparison="FLOAT"),  # partial order: not the variant's
        _sort("f32", [4, 64]).replace("direction=LT", "direction=LE"),
        _sort("s32", [4, 64]).replace("compare(lhs, rhs)", "compare(rhs, lhs)"),
        _sort("s16", [4, 64], comparison="SIGNED"),
    ],
    ids=["float-partial", "less-or-equal", "swapped", "s16"],
)
def test_other_comparators_stay_inline(text, tmp_path) -> None:  # noqa: ANN001
    executable = _compile(text, dump_dir=str(tmp_path))
    assert not _uses_library(executable)
    dtype = np.int16 if "s16" in text else np.int32 if "s32" in text else np.float32
    x = (np.arange(256)[::-1] % 37).astype(dtype).reshape(4, 64)
    want = xlapy.local_client("interpreter").compile(parse_module(text))(x)
    assert _call(executable, x).tobytes() == np.asarray(want).tobytes()


_CHILD = """
import json
import numpy as np
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
text = '''HloModule cached_sort
compare {
  lhs = f32[] parameter(0)
  rhs = f32[] parameter(1)
  ROOT less = pred[] compare(lhs, rhs), direction=LT, type=TOTALORDER
}
ENTRY e {
  p = f32[16,300] parameter(0)
  ROOT s = f32[16,300] sort(p), dimensions={1}, to_apply=compare
}'''
executable = CpuBackend().compile(parse_module(text), CpuOptions())
a = np.random.default_rng(0).standard_normal((16, 300)).astype(np.float32)
out = executable.execute([Literal.from_numpy(a)]).to_numpy()
print(json.dumps({"stats": persistent_cache.stats(), "right": bool((out == np.sort(a)).all()),
                  "symbols": list(executable.program.code.external_symbols)}))
"""


def test_a_cached_program_resolves_the_sort_library_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD,
        XLAPY_COMPILATION_CACHE_DIR=str(tmp_path),
        XLAPY_COMPILATION_CACHE_VERSION="test-sort",
        XLAPY_GEMM_CACHE_DIR="",
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert first["right"] and second["right"]
    assert any(s.startswith("xlapy_sort_") for s in first["symbols"])
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".sort"]
