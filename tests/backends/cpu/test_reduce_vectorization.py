"""Reductions keep eight vectors in flight (ir_support.interleave_hint) and still give the
interpreter's bits: NaN anywhere propagates, max(-0, +0) is +0, whatever the length and
whatever lane the special value lands in."""

from __future__ import annotations

import re

import numpy as np
import pytest

import xlapy
from xlapy import computations, ops
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.types import PrimitiveType

F32 = PrimitiveType.F32


def reduce_program(n: int, kind: str):
    b = xlapy.XlaBuilder(f"reduce_{kind}_{n}")
    x = ops.Parameter(b, 0, xlapy.Shape.parse(f"f32[{n}]"), "x")
    init, reducer = {
        "max": (float("-inf"), computations.max(F32)),
        "min": (float("inf"), computations.min(F32)),
        "add": (0.0, computations.add(F32)),
    }[kind]
    return b.build(ops.Reduce(x, init, reducer, [0]))


def test_the_innermost_reduce_loop_asks_for_eight_vectors_and_is_vectorized(tmp_path):
    CpuBackend().compile(
        reduce_program(4096, "max").hlo_module, CpuOptions(cache=False, dump_dir=str(tmp_path))
    )
    emitted = next(p for p in tmp_path.glob("*.ll") if not p.name.endswith(".opt.ll")).read_text()
    hint = re.search(r'^(!\d+) = !\{ !"llvm.loop.interleave.count", i32 8 \}', emitted, re.M)
    assert hint is not None
    loop_id = re.search(rf"^(!\d+) = !\{{ \1, {hint.group(1)} \}}", emitted, re.M)
    assert loop_id is not None, "the loop id must be its own first operand"
    assert f"!llvm.loop {loop_id.group(1)}" in emitted
    optimized = next(tmp_path.glob("*.opt.ll")).read_text()
    assert "vector.body" in optimized and "llvm.maximum.v" in optimized


@pytest.mark.parametrize("kind", ["max", "min", "add"])
@pytest.mark.parametrize("n", [1, 7, 64, 65, 1000, 1027])
def test_reductions_agree_with_the_interpreter_bit_for_bit_on_special_values(kind, n):
    rng = np.random.default_rng(n)
    computation = reduce_program(n, kind)
    cpu = xlapy.local_client("cpu").compile(computation)
    interpreter = xlapy.local_client("interpreter").compile(computation)
    cases = [np.zeros(n, np.float32), -np.zeros(n, np.float32)]
    for position in sorted({0, n // 2, n - 1}):
        signed = -np.zeros(n, np.float32)
        signed[position] = 0.0
        cases.append(signed)
        with_nan = rng.standard_normal(n).astype(np.float32)
        with_nan[position] = np.nan
        cases.append(with_nan)
    cases.append(rng.integers(-4, 4, n).astype(np.float32))  # exact sums in any order
    for x in cases:
        got = np.asarray(cpu(x))
        want = np.asarray(interpreter(x))
        if np.isnan(want):
            assert np.isnan(got)
        else:
            assert got.tobytes() == want.tobytes(), (kind, n, x[:8], got, want)
