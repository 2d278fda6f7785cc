"""Kernels that compute a polynomial approximation per element ask LLVM for 512-bit
vectors (elemental.support.mark_compute_heavy) and are never inlined, so that no other
code changes width with them; streaming code keeps LLVM's own choice. The reduce loop of
such a kernel keeps fewer vectors in flight (emit.loops.HEAVY_INTERLEAVE)."""

from __future__ import annotations

import re

import numpy as np

import xlapy
from xlapy import computations, ops
from xlapy.backends.cpu.compiler import CpuBackend
from xlapy.backends.cpu.elemental.support import WIDE_VECTORS
from xlapy.backends.cpu.emit.loops import HEAVY_INTERLEAVE, REDUCE_INTERLEAVE
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.tools.explain_report.capture import capture
from xlapy.types import PrimitiveType

F32 = PrimitiveType.F32
ROWS, COLS = 512, 512  # past PARALLEL_MIN_ELEMENTS: a row group forms


def softmax_program(with_exp: bool = True) -> xlapy.XlaComputation:
    b = xlapy.XlaBuilder("softmax" if with_exp else "shifted_sum")
    x = ops.Parameter(b, 0, xlapy.Shape.parse(f"f32[{ROWS},{COLS}]"), "x")
    shifted = ops.Sub(x, ops.Reduce(x, float("-inf"), computations.max(F32), [1]), [0])
    e = ops.Exp(shifted) if with_exp else shifted
    return b.build(ops.Div(e, ops.Reduce(e, 0.0, computations.add(F32), [1]), [0]))


def _emitted_ir(program: xlapy.XlaComputation, tmp_path) -> str:
    CpuBackend().compile(program.hlo_module, CpuOptions(cache=False, dump_dir=str(tmp_path)))
    return next(p for p in tmp_path.glob("*.ll") if not p.name.endswith(".opt.ll")).read_text()


def _defined_functions(text: str) -> dict[str, str]:
    """name -> the attributes on its ``define`` line."""
    return {
        m.group(2): m.group(3)
        for m in re.finditer(r'^define (.*?)@"?([\w.]+)"?\(.*?\)(.*)$', text, re.M)
    }


def test_only_the_exp_kernel_asks_for_wide_vectors_and_it_is_never_inlined(tmp_path):
    functions = _defined_functions(_emitted_ir(softmax_program(), tmp_path))
    wide = {name for name, attributes in functions.items() if WIDE_VECTORS in attributes}
    # The exp-and-sum kernel: its body and its wrapper, which stays a function of its own.
    assert len(wide) == 2
    (body,) = (name for name in wide if name.endswith(".body"))
    (wrapper,) = wide - {body}
    assert "noinline" in functions[wrapper].split()
    # The row max, the division and the row group that calls them all keep LLVM's choice.
    assert any("row_group" in name for name in functions)
    assert not any("row_group" in name for name in wide)


def test_code_without_approximations_keeps_llvms_vector_width(tmp_path):
    text = _emitted_ir(softmax_program(with_exp=False), tmp_path)
    assert WIDE_VECTORS not in text


def test_the_heavy_reduce_loop_keeps_fewer_vectors_in_flight(tmp_path):
    text = _emitted_ir(softmax_program(), tmp_path)
    counts = {int(c) for c in re.findall(r'"llvm.loop.interleave.count", i32 (\d+)', text)}
    # The exp-and-sum loop is the only inline reduce loop (the row max is the reduce
    # library's), and it keeps fewer vectors in flight than a plain sum would.
    assert counts == {HEAVY_INTERLEAVE}
    assert HEAVY_INTERLEAVE < REDUCE_INTERLEAVE


def test_an_avx512_target_gets_512_bit_vectors_for_exp_and_the_results_stay_exact():
    record = capture(softmax_program().hlo_module, CpuOptions(target_cpu="skylake-avx512"))
    assembly = "\n".join(k.assembly for k in record.kernels)
    assert re.search(r"vfmadd\w+\s+[^\n]*%zmm", assembly), "exp should run on zmm registers"
    x = np.random.default_rng(0).standard_normal((ROWS, COLS), dtype=np.float32)
    program = softmax_program()
    got = xlapy.local_client("cpu").compile(program)(x)  # the host's code
    want = xlapy.local_client("interpreter").compile(program)(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=2e-6, atol=0)
