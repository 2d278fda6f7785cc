"""Plain float row reductions as runtime-library variants (reduce_library): which
reductions take the library's kernel, that it computes what the inline kernel and the
interpreter compute (exact max/min: NaN, signed zeros; empty rows), and that a program
loaded from the persistent compile cache finds it in a new process."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import reduce_library
from xlapy.backends.cpu.emit.linalg_gemm_loops import vector_bits
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.testing import new_processes

_OPS = {"add": "add", "max": "maximum", "min": "minimum"}
_INIT = {"add": "0", "max": "-inf", "min": "inf"}


def _reduce(kind: str, et: str, shape: list[int], dims: list[int], body: str = "") -> str:
    """A reduce of parameter 0; ``body`` (HLO lines ending in ``x``) may transform it
    first inside the fusion."""
    out = [d for k, d in enumerate(shape) if k not in dims]
    source = "x" if body else "p"
    return f"""HloModule reduce_{kind}
r {{
  a = {et}[] parameter(0)
  b = {et}[] parameter(1)
  ROOT c = {et}[] {_OPS[kind]}(a, b)
}}

ENTRY e {{
  p = {et}{shape} parameter(0)
{body}
  i = {et}[] constant({_INIT[kind]})
  ROOT s = {et}{out} reduce({source}, i), dimensions={{{",".join(map(str, dims))}}}, to_apply=r
}}"""


def _compile(text: str, **options):  # noqa: ANN003, ANN202
    return CpuBackend().compile(parse_module(text), CpuOptions(cache=False, **options))


def _call(executable, x: np.ndarray) -> np.ndarray:  # noqa: ANN001
    """Through Literals: guard mode (``XLAPY_GUARD_BUFFERS``) has no numpy fast path."""
    return executable.execute([Literal.from_numpy(x)]).to_numpy()


def _uses_library(executable) -> bool:  # noqa: ANN001
    return any(s.startswith("xlapy_reduce_") for s in _declared(executable))


def _declared(executable) -> list[str]:  # noqa: ANN001
    module = executable.program.code
    text = getattr(module, "optimized_ir", "") or ""
    return [line.split("@")[1].split("(")[0].strip('"') for line in text.splitlines()
            if line.startswith("declare")]  # fmt: skip


def _data(shape: list[int], dtype: type, special: bool) -> np.ndarray:
    rng = np.random.default_rng(sum(shape) * 31 + len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    if special and x.size > 40:
        flat = x.reshape(-1)
        flat[3], flat[5], flat[17] = -0.0, 0.0, np.nan  # row 0 of the wide shapes
        flat[-1] = np.inf
    return x


@pytest.mark.parametrize("kind", ["add", "max", "min"])
@pytest.mark.parametrize("et", ["f32", "f64"])
@pytest.mark.parametrize(
    "shape, dims",
    [([37, 1000], [1]), ([300], [0]), ([4, 5, 6], [1, 2]), ([64, 4096], [1]), ([3, 0], [1])],
)
def test_the_library_kernel_matches_the_interpreter(kind, et, shape, dims, tmp_path) -> None:  # noqa: ANN001
    text = _reduce(kind, et, shape, dims)
    executable = _compile(text, dump_dir=str(tmp_path))
    assert _uses_library(executable) or 0 in shape  # empty rows: the init, broadcast
    x = _data(shape, np.float32 if et == "f32" else np.float64, special=kind != "add")
    got = _call(executable, x)
    want = xlapy.local_client("interpreter").compile(parse_module(text))(x)
    if kind == "add":
        tolerance = 1e-5 if et == "f32" else 1e-12
        np.testing.assert_allclose(got, want, rtol=tolerance, atol=tolerance * 10)
    else:  # exact, with NaN and the sign of a zero
        assert got.tobytes() == np.asarray(want).tobytes()


@pytest.mark.parametrize("kind", ["add", "max", "min"])
def test_an_empty_row_gives_the_initial_value(kind) -> None:  # noqa: ANN001
    """The kernel called directly (a program's simplifier leaves it no empty rows)."""
    bits = vector_bits(CpuOptions())
    symbol = reduce_library.variant_name(kind, xlapy.F64, bits)
    reduce_library.LIBRARY.ensure(symbol, (kind, xlapy.F64, bits), bits)
    kernel = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64)(
        reduce_library.LIBRARY.address(symbol)
    )
    source, target = np.zeros(1), np.full(3, 7.0)
    plan = np.array([0, np.float64(-2.5).view(np.int64)], np.int64)
    table = (ctypes.c_void_p * 3)(source.ctypes.data, target.ctypes.data, plan.ctypes.data)
    kernel(ctypes.addressof(table), 1, 3)
    assert target.tolist() == [7.0, -2.5, -2.5]


@pytest.mark.parametrize("kind", ["add", "max"])
def test_the_library_kernel_is_the_inline_kernel(kind, monkeypatch, tmp_path) -> None:  # noqa: ANN001
    """The same loop, accumulators and vectors in flight: the same bits."""
    text = _reduce(kind, "f32", [33, 4096], [1])
    x = _data([33, 4096], np.float32, special=kind != "add")
    library = _call(_compile(text), x)
    monkeypatch.setattr(reduce_library, "try_emit", lambda fe, instruction: False)
    inline = _compile(text, dump_dir=str(tmp_path))
    assert not _uses_library(inline)
    assert library.tobytes() == _call(inline, x).tobytes()


@pytest.mark.parametrize(
    "text",
    [
        _reduce("add", "f32", [8, 16], [0]),  # a leading dimension
        _reduce("add", "f32", [4, 8, 16], [2]),  # two kept dimensions
        _reduce("max", "f32", [8, 16], [1], body="  x = f32[8,16] exponential(p)"),  # fused
        _reduce("add", "s32", [8, 16], [1]).replace("constant(0)", "constant(0)"),  # integers
    ],
    ids=["leading", "two-kept", "fused-producer", "integer"],
)
def test_other_reductions_stay_inline(text, tmp_path) -> None:  # noqa: ANN001
    executable = _compile(text, dump_dir=str(tmp_path))
    assert not _uses_library(executable)
    dtype = np.int32 if "s32" in text else np.float32
    x = (np.arange(np.prod(executable.program.declared.parameters[0].dimensions)) % 7).astype(dtype)
    x = x.reshape(executable.program.declared.parameters[0].dimensions)
    want = xlapy.local_client("interpreter").compile(parse_module(text))(x)
    np.testing.assert_allclose(_call(executable, x), want, rtol=1e-6)


def test_a_split_reduction_and_a_softmax_use_it_with_row_groups() -> None:
    """The reduction splitter's rows (a reshape of the parameter) and a softmax's row max
    inside a row group (its kernel called block by block)."""
    split = _reduce("max", "f32", [1 << 20], [0])
    x = _data([1 << 20], np.float32, special=False)
    executable = _compile(split)
    assert float(_call(executable, x)) == float(x.max())
    softmax = """HloModule softmax
max_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
add_f32 {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
ENTRY e {
  p = f32[512,1024] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[512] reduce(p, ninf), dimensions={1}, to_apply=max_f32
  mb = f32[512,1024] broadcast(m), dimensions={0}
  d = f32[512,1024] subtract(p, mb)
  e = f32[512,1024] exponential(d)
  zero = f32[] constant(0)
  s = f32[512] reduce(e, zero), dimensions={1}, to_apply=add_f32
  sb = f32[512,1024] broadcast(s), dimensions={0}
  ROOT r = f32[512,1024] divide(e, sb)
}"""
    executable = _compile(softmax)
    assert executable.program.row_groups == 1
    y = _data([512, 1024], np.float32, special=False)
    e = np.exp(y - y.max(axis=1, keepdims=True))
    np.testing.assert_allclose(_call(executable, y), e / e.sum(axis=1, keepdims=True), rtol=1e-5)


_CHILD = """
import json
import numpy as np
from xlapy.backends.cpu import persistent_cache
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal
text = '''HloModule cached_max
r {
  a = f64[] parameter(0)
  b = f64[] parameter(1)
  ROOT c = f64[] maximum(a, b)
}
ENTRY e {
  p = f64[64,300] parameter(0)
  i = f64[] constant(-inf)
  ROOT s = f64[64] reduce(p, i), dimensions={1}, to_apply=r
}'''
executable = CpuBackend().compile(parse_module(text), CpuOptions())
a = np.random.default_rng(0).standard_normal((64, 300))
out = executable.execute([Literal.from_numpy(a)]).to_numpy()
print(json.dumps({"stats": persistent_cache.stats(), "right": bool((out == a.max(1)).all()),
                  "symbols": list(executable.program.code.external_symbols)}))
"""


def test_a_cached_program_resolves_the_reduce_library_in_a_new_process(tmp_path) -> None:  # noqa: ANN001
    first, second = new_processes.reports(
        _CHILD,
        XLAPY_COMPILATION_CACHE_DIR=str(tmp_path),
        XLAPY_COMPILATION_CACHE_VERSION="test-reduce",
        XLAPY_GEMM_CACHE_DIR="",
    )
    assert first["stats"]["writes"] == 1 and second["stats"]["hits"] == 1
    assert first["right"] and second["right"]
    assert any(s.startswith("xlapy_reduce_") for s in first["symbols"])
    # The variant's object is kept beside the programs, outside their entries.
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".reduce"]
