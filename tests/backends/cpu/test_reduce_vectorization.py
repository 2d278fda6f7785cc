"""Reductions keep vectors in flight (ir_support.for_range), float max/min keep three
short chains (emit.reduce_minmax), and both still give the interpreter's bits: NaN
anywhere propagates, max(-0, +0) is +0, whatever the length and whatever lane the special
value lands in; f32 and f64, on the host's vector ISA and on AVX2; in the inline kernel
(emit.loops) and in the runtime library's (emit.reduce_library, which a plain reduce of
a parameter takes)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlapy
from xlapy import computations, ops
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.emit import reduce_library
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.literal import Literal
from xlapy.types import PrimitiveType

F32 = PrimitiveType.F32


_NUMPY = {"f32": np.float32, "f64": np.float64}


def reduce_program(n: int, kind: str, dtype: str = "f32", init: float | None = None):
    et = PrimitiveType.F32 if dtype == "f32" else PrimitiveType.F64
    b = xlapy.XlaBuilder(f"reduce_{kind}_{n}_{dtype}")
    x = ops.Parameter(b, 0, xlapy.Shape.parse(f"{dtype}[{n}]"), "x")
    start, reducer = {
        "max": (float("-inf"), computations.max(et)),
        "min": (float("inf"), computations.min(et)),
        "add": (0.0, computations.add(et)),
    }[kind]
    value = np.array(start if init is None else init, _NUMPY[dtype])
    return b.build(ops.Reduce(x, ops.ConstantLiteral(b, Literal.from_numpy(value)), reducer, [0]))


@pytest.mark.parametrize(("kind", "count", "vector_op"), [("add", 8, "fadd reassoc <"),
                                                      ("max", 4, "llvm.maxnum.v")])  # fmt: skip
def test_the_innermost_reduce_loop_asks_for_vectors_in_flight_and_is_vectorized(
    kind, count, vector_op, tmp_path, monkeypatch
):
    # A float max keeps three chains per vector (reduce_minmax): half as many vectors.
    monkeypatch.setattr(reduce_library, "try_emit", lambda fe, instruction: False)  # inline
    CpuBackend().compile(
        reduce_program(4096, kind).hlo_module, CpuOptions(cache=False, dump_dir=str(tmp_path))
    )
    emitted = next(p for p in tmp_path.glob("*.ll") if not p.name.endswith(".opt.ll")).read_text()
    pattern = rf'^(!\d+) = !\{{ !"llvm.loop.interleave.count", i32 {count} \}}'
    hint = re.search(pattern, emitted, re.M)
    assert hint is not None
    loop_id = re.search(rf"^(!\d+) = !\{{ \1, {hint.group(1)} \}}", emitted, re.M)
    assert loop_id is not None, "the loop id must be its own first operand"
    assert f"!llvm.loop {loop_id.group(1)}" in emitted
    optimized = next(tmp_path.glob("*.opt.ll")).read_text()
    assert "vector.body" in optimized and vector_op in optimized


def _cases(n: int, dtype: str) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    dtype = _NUMPY[dtype]
    cases = [np.zeros(n, dtype), -np.zeros(n, dtype), np.full(n, np.inf, dtype)]
    for position in sorted({0, n // 2, n - 1}):
        signed = -np.zeros(n, dtype)
        signed[position] = 0.0
        cases.append(signed)
        with_nan = rng.standard_normal(n).astype(dtype)
        with_nan[position] = np.nan
        cases.append(with_nan)
        with_inf = rng.standard_normal(n).astype(dtype)
        with_inf[position] = -np.inf if position else np.inf
        cases.append(with_inf)
    cases.append(rng.integers(-4, 4, n).astype(dtype))  # exact sums in any order
    return cases


@pytest.mark.parametrize("target", [None, "x86-64-v3"])
@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("kind", ["max", "min", "add"])
@pytest.mark.parametrize("n", [1, 7, 64, 65, 1000, 1027])
@pytest.mark.parametrize("path", ["library", "inline"])
def test_reductions_agree_with_the_interpreter_bit_for_bit_on_special_values(
    kind, n, dtype, target, path, monkeypatch
):
    if path == "inline":
        monkeypatch.setattr(reduce_library, "try_emit", lambda fe, instruction: False)
    computation = reduce_program(n, kind, dtype)
    cpu = CpuBackend().compile(computation.hlo_module, CpuOptions(target_cpu=target))
    interpreter = xlapy.local_client("interpreter").compile(computation)
    for x in _cases(n, dtype):
        _agree(cpu, interpreter, x, (kind, n, dtype, target))


@pytest.mark.parametrize("init", [0.0, -0.0, float("nan"), 5.0])
@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("path", ["library", "inline"])
def test_the_init_value_counts_as_one_more_element(kind, init, path, monkeypatch):
    if path == "inline":
        monkeypatch.setattr(reduce_library, "try_emit", lambda fe, instruction: False)
    computation = reduce_program(100, kind, "f32", init)
    cpu = CpuBackend().compile(computation.hlo_module, CpuOptions())
    interpreter = xlapy.local_client("interpreter").compile(computation)
    for x in _cases(100, "f32"):
        _agree(cpu, interpreter, x, (kind, init))


def _agree(cpu, interpreter, x: np.ndarray, what: tuple) -> None:  # noqa: ANN001
    got = np.asarray(cpu.execute([Literal.from_numpy(x)]).to_numpy())
    want = np.asarray(interpreter(x))
    if np.isnan(want):
        assert np.isnan(got), (what, x[:8], got)
    else:
        assert got.tobytes() == want.tobytes(), (what, x[:8], got, want)
