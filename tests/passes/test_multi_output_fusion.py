"""Multi-output and epilogue fusion: reduce kernels that take on more outputs.

The passes run in the CPU pipeline's order (loop/input fusion, reduce
epilogues, multi-output fusion, DCE); every module is verified, printed and
parsed back, and must give the interpreter's results from before fusion.
"""

from __future__ import annotations

import numpy as np

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.passes.fuse.instruction_fusion import InstructionFusion, default_can_emit
from xlapy.passes.fuse.multi_output_fusion import MultiOutputFusion, ReduceEpilogueFusion
from xlapy.passes.fuse.reduce_space import reduce_space
from xlapy.passes.simplify.dce import DeadCodeElimination

Op = HloOpcode
REDUCERS = """add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b) }
"""
PIPELINE = (InstructionFusion, ReduceEpilogueFusion, MultiOutputFusion)


def fuse(text: str, passes=PIPELINE):
    module = parse_module(text)
    for p in passes:
        p().run(module)
    DeadCodeElimination().run(module)
    module.verify()
    for fusion in fusions(module):
        fused = fusion.fused_computation
        assert fusion.shape == fused.root.shape
        if any(i.opcode is Op.REDUCE for i in fused.instructions):
            assert fusion.fusion_kind == "kInput"
            assert reduce_space(fusion, default_can_emit) is not None  # one loop nest
        if fused.root.opcode is Op.TUPLE:
            assert all(u.opcode is Op.GET_TUPLE_ELEMENT for u in fusion.users)
    again = parse_module(module.to_text())
    again.verify()
    assert again.to_text() == module.to_text()
    return module


def fusions(module) -> list:
    return [i for i in module.entry.instructions if i.opcode is Op.FUSION]


def unfused_elementwise(module) -> list:
    return [i for i in module.entry.instructions if i.opcode.is_elementwise]


def count(module, opcode) -> int:
    return sum(i.opcode is opcode for c in module.computations for i in c.instructions)


def check_same(text, module, *args, rtol=1e-5) -> None:
    want, got = run(text, *args), run(module, *args)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-6)


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


SOFTMAX = f"""HloModule softmax
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

# Layer norm as the benchmark writes it: the variance reads the mean.
LAYER_NORM = f"""HloModule layer_norm
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  g = f32[16] parameter(1)
  bta = f32[16] parameter(2)
  z = f32[] constant(0)
  n = f32[] constant(16)
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  nb = f32[8] broadcast(n), dimensions={{}}
  mean = f32[8] divide(s, nb)
  mb = f32[8,16] broadcast(mean), dimensions={{0}}
  d = f32[8,16] subtract(x, mb)
  dd = f32[8,16] multiply(d, d)
  v = f32[8] reduce(dd, z), dimensions={{1}}, to_apply=add
  var = f32[8] divide(v, nb)
  eps = f32[] constant(1e-05)
  eb = f32[8] broadcast(eps), dimensions={{}}
  ve = f32[8] add(var, eb)
  inv = f32[8] rsqrt(ve)
  ib = f32[8,16] broadcast(inv), dimensions={{0}}
  y = f32[8,16] multiply(d, ib)
  gb = f32[8,16] broadcast(g), dimensions={{1}}
  bb = f32[8,16] broadcast(bta), dimensions={{1}}
  yg = f32[8,16] multiply(y, gb)
  ROOT r = f32[8,16] add(yg, bb)
}}"""

# Layer norm from E[x] and E[x*x]: two sibling reductions of x.
LAYER_NORM_MOMENTS = f"""HloModule layer_norm_moments
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  g = f32[16] parameter(1)
  bta = f32[16] parameter(2)
  z = f32[] constant(0)
  n = f32[] constant(16)
  nb = f32[8] broadcast(n), dimensions={{}}
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  xx = f32[8,16] multiply(x, x)
  ss = f32[8] reduce(xx, z), dimensions={{1}}, to_apply=add
  mean = f32[8] divide(s, nb)
  ex2 = f32[8] divide(ss, nb)
  m2 = f32[8] multiply(mean, mean)
  var = f32[8] subtract(ex2, m2)
  eps = f32[] constant(1e-05)
  eb = f32[8] broadcast(eps), dimensions={{}}
  ve = f32[8] add(var, eb)
  inv = f32[8] rsqrt(ve)
  mb = f32[8,16] broadcast(mean), dimensions={{0}}
  d = f32[8,16] subtract(x, mb)
  ib = f32[8,16] broadcast(inv), dimensions={{0}}
  y = f32[8,16] multiply(d, ib)
  gb = f32[8,16] broadcast(g), dimensions={{1}}
  bb = f32[8,16] broadcast(bta), dimensions={{1}}
  yg = f32[8,16] multiply(y, gb)
  ROOT r = f32[8,16] add(yg, bb)
}}"""


def test_target_b_softmax_is_three_kernels_and_exp_is_computed_once():
    module = fuse(SOFTMAX)
    assert len(fusions(module)) == 3
    assert unfused_elementwise(module) == []
    assert count(module, Op.EXPONENTIAL) == 1
    # the exponential is a side output of the kernel that sums it
    (multi,) = [f for f in fusions(module) if f.shape.is_tuple]
    root = multi.fused_computation.root
    assert root.opcode is Op.TUPLE
    assert sorted(o.opcode.value for o in root.operands) == ["exponential", "reduce"]
    check_same(SOFTMAX, module, rand(8, 16))


def test_softmax_without_multi_output_fusion_takes_four_kernels():
    module = fuse(SOFTMAX, (InstructionFusion,))
    assert len(fusions(module)) == 4
    assert count(module, Op.EXPONENTIAL) == 1
    check_same(SOFTMAX, module, rand(8, 16))


def test_target_c_layer_norm_takes_at_most_three_kernels():
    module = fuse(LAYER_NORM)
    assert len(fusions(module)) <= 3
    assert unfused_elementwise(module) == []
    assert count(module, Op.DIVIDE) == 2 and count(module, Op.RSQRT) == 1  # none duplicated
    args = rand(8, 16), rand(16, seed=1), rand(16, seed=2)
    check_same(LAYER_NORM, module, *args)


def test_layer_norm_from_moments_reads_x_twice_in_two_kernels():
    module = fuse(LAYER_NORM_MOMENTS)
    assert len(fusions(module)) == 2
    assert unfused_elementwise(module) == []
    stats = next(f for f in fusions(module) if f.fusion_kind == "kInput")
    inside = [i.opcode for i in stats.fused_computation.instructions]
    assert inside.count(Op.REDUCE) == 2 and inside.count(Op.RSQRT) == 1
    assert count(module, Op.RSQRT) == 1
    args = rand(8, 16), rand(16, seed=1), rand(16, seed=2)
    check_same(LAYER_NORM_MOMENTS, module, *args)


def test_sibling_reductions_of_one_operand_become_one_kernel_with_a_tuple_root():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  xx = f32[8,16] multiply(x, x)
  ss = f32[8] reduce(xx, z), dimensions={{1}}, to_apply=add
  ns = f32[8] negate(s)
  ROOT r = (f32[8], f32[8]) tuple(ns, ss)
}}"""
    module = fuse(text, (InstructionFusion, MultiOutputFusion))
    (fusion,) = [f for f in fusions(module) if f.fusion_kind == "kInput"]
    root = fusion.fused_computation.root
    assert root.opcode is Op.TUPLE
    assert [o.opcode for o in root.operands] == [Op.REDUCE, Op.REDUCE]
    assert str(fusion.shape) == "(f32[8], f32[8])"
    assert sorted(u.tuple_index for u in fusion.users) == [0, 1]
    check_same(text, module, rand(8, 16))


def test_siblings_over_different_dimensions_or_dependent_on_each_other_stay_apart():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  rows = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  cols = f32[16] reduce(x, z), dimensions={{0}}, to_apply=add
  rb = f32[8,16] broadcast(rows), dimensions={{0}}
  d = f32[8,16] subtract(x, rb)
  m = f32[8] reduce(d, z), dimensions={{1}}, to_apply=max
  ROOT r = (f32[16], f32[8]) tuple(cols, m)
}}"""
    module = fuse(text)
    assert len(fusions(module)) == 3
    assert not any(f.shape.is_tuple for f in fusions(module))
    check_same(text, module, rand(8, 16))


def test_a_producer_whose_other_user_leads_to_the_consumer_is_not_absorbed():
    # e -> dot -> (reduce fusion): putting e inside the reduce kernel would be a cycle.
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,8] parameter(0)
  w = f32[8,8] parameter(1)
  e = f32[8,8] exponential(x)
  d = f32[8,8] dot(e, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  a = f32[8,8] add(e, d)
  z = f32[] constant(0)
  s = f32[8] reduce(a, z), dimensions={{1}}, to_apply=add
  ROOT r = (f32[8], f32[8,8]) tuple(s, e)
}}"""
    module = fuse(text)
    assert any(i.opcode is Op.EXPONENTIAL for i in module.entry.instructions)
    assert count(module, Op.EXPONENTIAL) == 1
    check_same(text, module, rand(8, 8), rand(8, 8, seed=1))


def test_a_value_returned_and_summed_is_a_side_output_of_the_sum():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  e = f32[8,16] exponential(x)
  z = f32[] constant(0)
  s = f32[8] reduce(e, z), dimensions={{1}}, to_apply=add
  ROOT r = (f32[8,16], f32[8]) tuple(e, s)
}}"""
    module = fuse(text)
    (fusion,) = fusions(module)
    assert fusion.fusion_kind == "kInput" and fusion.shape.is_tuple
    check_same(text, module, rand(8, 16))


def test_a_reduce_epilogue_joins_the_reduce_kernel():
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
    module = fuse(text, (InstructionFusion, ReduceEpilogueFusion))
    (fusion,) = fusions(module)
    assert fusion.is_root and fusion.fusion_kind == "kInput"
    assert fusion.fused_computation.root.opcode is Op.DIVIDE
    check_same(text, module, rand(8, 16))


def test_an_epilogue_reading_its_reduce_through_a_broadcast_is_not_joined():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  sb = f32[8,16] broadcast(s), dimensions={{0}}
  ROOT r = f32[8,16] add(sb, x)
}}"""
    module = fuse(text)
    assert len(fusions(module)) == 2
    check_same(text, module, rand(8, 16))


def test_mean_and_variance_from_moments_are_one_kernel():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  z = f32[] constant(0)
  n = f32[] constant(16)
  nb = f32[8] broadcast(n), dimensions={{}}
  s = f32[8] reduce(x, z), dimensions={{1}}, to_apply=add
  xx = f32[8,16] multiply(x, x)
  ss = f32[8] reduce(xx, z), dimensions={{1}}, to_apply=add
  mean = f32[8] divide(s, nb)
  ex2 = f32[8] divide(ss, nb)
  m2 = f32[8] multiply(mean, mean)
  var = f32[8] subtract(ex2, m2)
  ROOT r = (f32[8], f32[8]) tuple(mean, var)
}}"""
    module = fuse(text)
    (fusion,) = fusions(module)
    assert fusion.fusion_kind == "kInput" and fusion.shape.is_tuple
    check_same(text, module, rand(8, 16))
