"""Fusion passes: what fuses, what must not, and that the interpreter's results never change."""

from __future__ import annotations

import numpy as np

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.hlo.opcode import HloOpcode
from xlapy.passes.dce import DeadCodeElimination
from xlapy.passes.fusion import InstructionFusion
from xlapy.passes.multi_output_fusion import MultiOutputFusion, ReduceEpilogueFusion

REDUCERS = """add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b) }
"""


def fused(text: str, *extra):
    module = parse_module(text)
    for p in (InstructionFusion(), *extra, DeadCodeElimination()):
        p.run(module)
    module.verify()
    again = parse_module(module.to_text())  # printed fusions read back
    again.verify()
    return module


def entry_ops(module) -> list[str]:
    return [
        i.opcode.value for i in module.entry.post_order() if i.opcode is not HloOpcode.PARAMETER
    ]


def check_same(text, module, *args):
    want, got = run(text, *args), run(module, *args)
    for w, g in zip(
        want if isinstance(want, tuple) else [want],
        got if isinstance(got, tuple) else [got],
        strict=True,
    ):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_elementwise_chain_with_scalar_broadcasts_is_one_loop():
    text = """HloModule t
ENTRY e {
  x = f32[64] parameter(0)
  a = f32[] parameter(1)
  ab = f32[64] broadcast(a), dimensions={}
  m = f32[64] multiply(ab, x)
  t = f32[64] tanh(m)
  xx = f32[64] multiply(x, x)
  e = f32[64] exponential(xx)
  ROOT r = f32[64] multiply(t, e)
}"""
    module = fused(text)
    assert entry_ops(module) == ["fusion"]
    assert module.entry.root.fusion_kind == "kLoop"
    check_same(text, module, np.linspace(-2, 2, 64, dtype=np.float32), np.float32(0.5))


def test_an_expensive_producer_with_two_users_is_computed_once():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  e = f32[16] exponential(x)
  a = f32[16] add(e, x)
  m = f32[16] multiply(e, x)
  ROOT r = (f32[16], f32[16]) tuple(a, m)
}"""
    module = fused(text)
    exps = [
        i for c in module.computations for i in c.instructions if i.opcode is HloOpcode.EXPONENTIAL
    ]
    assert len(exps) == 1
    check_same(text, module, np.linspace(-1, 1, 16, dtype=np.float32))


def test_a_cheap_producer_with_two_users_is_duplicated_into_both():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  n = f32[16] negate(x)
  e = f32[16] exponential(n)
  l = f32[16] log(n)
  ROOT r = (f32[16], f32[16]) tuple(e, l)
}"""
    module = fused(text)
    assert "negate" not in entry_ops(module)
    check_same(text, module, np.linspace(-3, -1, 16, dtype=np.float32))


def test_softmax_takes_three_kernels_with_multi_output_fusion():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[8] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[8,16] broadcast(m), dimensions={{0}}
  d = f32[8,16] subtract(x, mb)
  e = f32[8,16] exponential(d)
  z = f32[] constant(0)
  s = f32[8] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[8,16] broadcast(s), dimensions={{0}}
  ROOT r = f32[8,16] divide(e, sb)
}}"""
    module = fused(text, ReduceEpilogueFusion(), MultiOutputFusion())
    assert entry_ops(module).count("fusion") == 3
    exps = [
        i for c in module.computations for i in c.instructions if i.opcode is HloOpcode.EXPONENTIAL
    ]
    assert len(exps) == 1
    check_same(text, module, np.random.default_rng(0).standard_normal((8, 16)).astype(np.float32))


def test_reduce_epilogue_joins_the_reduce():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  n = f32[] constant(16)
  nb = f32[8] broadcast(n), dimensions={{}}
  ROOT mean = f32[8] divide(s, nb)
}}"""
    module = fused(text, ReduceEpilogueFusion())
    assert entry_ops(module) == ["fusion"]
    assert module.entry.root.fusion_kind == "kInput"
    check_same(text, module, np.random.default_rng(1).standard_normal((8, 16)).astype(np.float32))


def test_dot_is_never_fused_but_its_bias_and_relu_are():
    text = """HloModule t
ENTRY e {
  x = f32[4,8] parameter(0)
  w = f32[8,3] parameter(1)
  b = f32[3] parameter(2)
  d = f32[4,3] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[4,3] broadcast(b), dimensions={1}
  a = f32[4,3] add(d, bb)
  z = f32[] constant(0)
  zb = f32[4,3] broadcast(z), dimensions={}
  ROOT r = f32[4,3] maximum(a, zb)
}"""
    module = fused(text)
    assert entry_ops(module) == ["dot", "fusion"]
    rng = np.random.default_rng(2)
    check_same(
        text, module, *(rng.standard_normal(s).astype(np.float32) for s in [(4, 8), (8, 3), (3,)])
    )


def test_a_large_full_reduction_is_split_into_row_partials():
    from xlapy.passes.reduction_splitter import ReductionSplitter

    n = 1 << 20
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[{n}] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT m = f32[] reduce(x, ninf), dimensions={{0}}, to_apply=max
}}"""
    module = parse_module(text)
    assert ReductionSplitter().run(module)
    module.verify()
    shapes = [str(i.shape) for i in module.entry.post_order() if i.opcode is HloOpcode.REDUCE]
    assert shapes == ["f32[256]{0}", "f32[]"]
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    assert run(module, x) == run(text, x) == x.max()
