"""Loop and input fusion: what fuses, what must not, and that results never change.

Every test runs the pass, verifies the module, prints it and parses it back
(fused modules must be valid HLO text), and compares the interpreter's
results before and after on random inputs. The last test does all of that
for random graphs of fusible and unfusible ops.
"""

from __future__ import annotations

import pathlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy import ops
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.passes.fuse.instruction_fusion import InstructionFusion, default_can_emit
from xlapy.passes.fuse.multi_output_fusion import MultiOutputFusion, ReduceEpilogueFusion
from xlapy.passes.fuse.policy import EXPENSIVE
from xlapy.passes.fuse.reduce_space import reduce_space
from xlapy.passes.simplify.dce import DeadCodeElimination
from xlapy.passes.simplify.reduction_splitter import ReductionSplitter

Op = HloOpcode
DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "hlo"
REDUCERS = """add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b) }
"""


# -- helpers ----------------------------------------------------------------------------------


def fuse(text_or_module, *passes):
    module = parse_module(text_or_module) if isinstance(text_or_module, str) else text_or_module
    for p in passes or (InstructionFusion(),):
        p.run(module)
    DeadCodeElimination().run(module)
    module.verify()
    check_fusions(module)
    again = parse_module(module.to_text())  # printed fusions read back
    again.verify()
    assert again.to_text() == module.to_text()
    return module


def check_fusions(module) -> None:
    """The invariants every fused module keeps, whatever the graph."""
    for computation in module.computations:
        for fusion in computation.instructions:
            if fusion.opcode is not Op.FUSION:
                continue
            fused = fusion.fused_computation
            assert fused.fusion_instruction is fusion
            assert fusion.shape == fused.root.shape
            assert [p.parameter_number for p in fused.parameters] == list(
                range(fusion.operand_count)
            )
            assert len({id(o) for o in fusion.operands}) == fusion.operand_count  # deduped
            for p in fused.parameters:
                assert p.shape == fusion.operand(p.parameter_number).shape
            root = fused.root
            for inner in fused.instructions:
                if inner.opcode is Op.PARAMETER or (inner is root and inner.opcode is Op.TUPLE):
                    continue
                assert default_can_emit(inner), inner
                if inner.opcode is Op.CONSTANT:
                    assert inner.shape.is_scalar
            has_reduce = any(i.opcode is Op.REDUCE for i in fused.instructions)
            assert fusion.fusion_kind == ("kInput" if has_reduce else "kLoop")
            if has_reduce:
                assert reduce_space(fusion, default_can_emit) is not None
            if root.opcode is Op.TUPLE:
                assert all(u.opcode is Op.GET_TUPLE_ELEMENT for u in fusion.users)
                assert not fusion.is_root


def entry_ops(module) -> list[str]:
    return [i.opcode.value for i in module.entry.post_order() if i.opcode is not Op.PARAMETER]


def fusions(module) -> list:
    return [i for i in module.entry.instructions if i.opcode is Op.FUSION]


def count(module, opcode) -> int:
    return sum(i.opcode is opcode for c in module.computations for i in c.instructions)


def check_same(before, after, *args, rtol=1e-6) -> None:
    want, got = run(before, *args), run(after, *args)
    want = want if isinstance(want, tuple) else (want,)
    got = got if isinstance(got, tuple) else (got,)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_allclose(g, w, rtol=rtol)


def rand(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# -- loop fusion ------------------------------------------------------------------------------


def test_target_a_elementwise_chain_with_scalar_broadcasts_is_one_loop_fusion():
    b = xlapy.XlaBuilder("target_a")
    x = ops.Parameter(b, 0, xlapy.Shape.parse("f32[1000]"), "x")
    a = ops.Parameter(b, 1, xlapy.Shape.parse("f32[]"), "a")
    c = ops.Parameter(b, 2, xlapy.Shape.parse("f32[]"), "b")
    computation = b.build(ops.Tanh(a * x + c) * ops.Exp(-(x * x)) + 1.0)
    text = computation.to_hlo_text()
    module = fuse(computation.hlo_module.clone())
    assert entry_ops(module) == ["fusion"]
    (fusion,) = fusions(module)
    assert fusion.fusion_kind == "kLoop" and fusion.is_root
    assert fusion.name == "fusion" and fusion.fused_computation.name == "fused_computation"
    assert [p.name for p in fusion.fused_computation.parameters] == [
        "param_0",
        "param_1",
        "param_2",
    ]
    xs = np.linspace(-2, 2, 1000, dtype=np.float32)
    check_same(text, module, xs, np.float32(0.7), np.float32(-0.2))


def test_an_expensive_producer_with_two_users_is_computed_once():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  e = f32[16] exponential(x)
  a = f32[16] add(e, x)
  m = f32[16] multiply(e, x)
  ROOT r = (f32[16], f32[16]) tuple(a, m)
}"""
    module = fuse(text)
    assert count(module, Op.EXPONENTIAL) == 1
    assert "exponential" in entry_ops(module)
    check_same(text, module, rand(16))


def test_an_expensive_root_with_a_user_is_not_duplicated():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  l = f32[16] log(x)
  n = f32[16] negate(l)
  ROOT r = (f32[16], f32[16]) tuple(l, n)
}"""
    module = fuse(text)
    assert count(module, Op.LOG) == 1
    check_same(text, module, np.abs(rand(16)) + 0.1)


def test_a_cheap_producer_with_two_users_is_duplicated_into_both():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  n = f32[16] negate(x)
  e = f32[16] exponential(n)
  l = f32[16] log(n)
  ROOT r = (f32[16], f32[16]) tuple(e, l)
}"""
    module = fuse(text)
    assert "negate" not in entry_ops(module)
    assert entry_ops(module).count("fusion") == 2
    assert count(module, Op.NEGATE) == 2
    check_same(text, module, -np.abs(rand(16)) - 0.1)


def test_an_expensive_value_is_not_recomputed_through_a_broadcast_but_a_cheap_one_is():
    text = """HloModule t
ENTRY e {
  x = f32[8,16] parameter(0)
  v = f32[8] parameter(1)
  e = f32[8] exponential(v)
  eb = f32[8,16] broadcast(e), dimensions={0}
  n = f32[8] negate(v)
  nb = f32[8,16] broadcast(n), dimensions={0}
  a = f32[8,16] add(x, eb)
  ROOT r = f32[8,16] multiply(a, nb)
}"""
    module = fuse(text)
    (fusion,) = fusions(module)
    inside = {i.opcode for i in fusion.fused_computation.instructions}
    assert Op.NEGATE in inside and Op.BROADCAST in inside
    assert Op.EXPONENTIAL not in inside
    assert module.entry.root is fusion
    check_same(text, module, rand(8, 16), rand(8, seed=1))


def test_an_expensive_scalar_is_not_recomputed_per_element_of_its_broadcast():
    text = """HloModule t
ENTRY e {
  x = f32[64] parameter(0)
  s = f32[] parameter(1)
  t = f32[] tanh(s)
  tb = f32[64] broadcast(t), dimensions={}
  ROOT r = f32[64] add(x, tb)
}"""
    module = fuse(text)
    assert entry_ops(module) == ["tanh", "fusion"]
    check_same(text, module, rand(64), np.float32(0.3))


def test_target_d_mlp_layer_gives_a_dot_and_one_loop_fusion_with_bias_and_relu():
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
    module = fuse(text)
    assert entry_ops(module) == ["dot", "fusion"]
    (fusion,) = fusions(module)
    inside = {i.opcode for i in fusion.fused_computation.instructions}
    assert {Op.ADD, Op.MAXIMUM, Op.BROADCAST, Op.CONSTANT} <= inside
    assert Op.DOT not in inside
    check_same(text, module, rand(4, 8), rand(8, 3, seed=1), rand(3, seed=2))


def test_scalar_constants_fuse_and_large_constants_are_read_as_parameters():
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  c = f32[4] constant({1, 2, 3, 4})
  two = f32[] constant(2)
  tb = f32[4] broadcast(two), dimensions={}
  a = f32[4] add(x, c)
  ROOT r = f32[4] multiply(a, tb)
}"""
    module = fuse(text)
    assert entry_ops(module) == ["constant", "fusion"]
    (fusion,) = fusions(module)
    assert fusion.operand(1).opcode is Op.CONSTANT or fusion.operand(0).opcode is Op.CONSTANT
    check_same(text, module, rand(4))


def test_unfusible_ops_stay_out_and_complex_numbers_fuse():
    text = """HloModule t
ENTRY e {
  x = f32[8] parameter(0)
  y = f32[8] parameter(1)
  u = f32[2] parameter(2)
  i = s32[] parameter(3)
  a = f32[8] add(x, y)
  dus = f32[8] dynamic-update-slice(a, u, i)
  n = f32[8] negate(dus)
  cx = c64[8] complex(x, y)
  cm = c64[8] multiply(cx, cx)
  re = f32[8] real(cm)
  ROOT r = f32[8] add(n, re)
}"""
    module = fuse(text)
    assert count(module, Op.DYNAMIC_UPDATE_SLICE) == 1
    dus = next(i for i in module.entry.instructions if i.opcode is Op.DYNAMIC_UPDATE_SLICE)
    assert dus.operand(0).opcode is Op.ADD  # its producer stays standalone too
    for op in (Op.COMPLEX, Op.REAL):  # inside fusions, as real ops are
        assert not any(i.opcode is op for i in module.entry.instructions)
    fused = {i.opcode for f in fusions(module) for i in f.fused_computation.instructions}
    assert {Op.COMPLEX, Op.MULTIPLY, Op.REAL} <= fused
    check_same(text, module, rand(8), rand(8, seed=1), rand(2, seed=2), np.int32(3))


def test_movement_ops_fuse_and_a_layout_changing_bitcast_does_not():
    text = """HloModule t
ENTRY e {
  x = f32[4,6] parameter(0)
  t = f32[6,4] transpose(x), dimensions={1,0}
  r = f32[24] reshape(t)
  s = f32[20] slice(r), slice={[2:22]}
  v = f32[20] reverse(s), dimensions={0}
  z = f32[] constant(0)
  p = f32[24] pad(v, z), padding=1_3
  io = f32[24] iota(), iota_dimension=0
  c = f32[48] concatenate(p, io), dimensions={0}
  bc = f32[6,8]{1,0} bitcast(c)
  bt = f32[8,6]{0,1} bitcast(bc)
  ROOT n = f32[8,6]{0,1} negate(bt)
}"""
    module = fuse(text)
    assert entry_ops(module) == ["fusion", "bitcast", "negate"]
    check_same(text, module, rand(4, 6))


def test_dynamic_slice_select_clamp_and_convert_fuse():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  i = s32[] parameter(1)
  d = f32[4] dynamic-slice(x, i), dynamic_slice_sizes={4}
  lo = f32[] constant(-0.5)
  hi = f32[] constant(0.5)
  lb = f32[4] broadcast(lo), dimensions={}
  hb = f32[4] broadcast(hi), dimensions={}
  c = f32[4] clamp(lb, d, hb)
  g = pred[4] compare(d, c), direction=GT
  s = f32[4] select(g, d, c)
  ROOT v = s32[4] convert(s)
}"""
    module = fuse(text)
    assert entry_ops(module) == ["fusion"]
    check_same(text, module, rand(16) * 3, np.int32(5))


def test_a_backend_can_tighten_what_fuses():
    text = """HloModule t
ENTRY e {
  x = f32[16] parameter(0)
  t = f32[16] tanh(x)
  n = f32[16] negate(t)
  ROOT a = f32[16] add(n, x)
}"""

    def no_tanh(instruction):
        return default_can_emit(instruction) and instruction.opcode is not Op.TANH

    module = fuse(text, InstructionFusion(no_tanh))
    assert entry_ops(module) == ["tanh", "fusion"]
    check_same(text, module, rand(16))


# -- input fusion -------------------------------------------------------------------------------


def test_a_reduce_absorbs_its_input_chain_and_constant_init_and_nothing_fuses_through_it():
    text = f"""HloModule t
{REDUCERS}
ENTRY e {{
  x = f32[8,16] parameter(0)
  xx = f32[8,16] multiply(x, x)
  z = f32[] constant(0)
  s = f32[8] reduce(xx, z), dimensions={{1}}, to_apply=add
  ROOT n = f32[8] negate(s)
}}"""
    module = fuse(text)
    assert entry_ops(module) == ["fusion", "negate"]
    (fusion,) = fusions(module)
    assert fusion.fusion_kind == "kInput"
    root = fusion.fused_computation.root
    assert root.opcode is Op.REDUCE
    assert {o.opcode for o in root.operands} == {Op.MULTIPLY, Op.CONSTANT}
    check_same(text, module, rand(8, 16))


def test_an_existing_loop_fusion_merges_into_its_consumer_and_while_bodies_fuse():
    text = (DATA / "fusion_while_reduce.hlo").read_text()
    module = fuse(text)
    body = module.computation("body")
    fused = [i for i in body.instructions if i.opcode is Op.FUSION]
    scaled = next(f for f in fused if f.shape.rank == 1)
    assert scaled.operand_count == 1  # the constant 0.5 moved in
    check_same(text, module, rand(8))


def test_a_loop_fusion_producer_merges_into_its_consumer():
    text = """HloModule t
fc {
  p0 = f32[8] parameter(0)
  ROOT e = f32[8] exponential(p0)
}
ENTRY e {
  x = f32[8] parameter(0)
  f = f32[8] fusion(x), kind=kLoop, calls=fc
  ROOT n = f32[8] negate(f)
}"""
    module = fuse(text)
    assert entry_ops(module) == ["fusion"]
    assert count(module, Op.EXPONENTIAL) == 1
    assert [c.name for c in module.computations if c.name.startswith("f")] == ["fused_computation"]
    check_same(text, module, rand(8))


# -- random graphs --------------------------------------------------------------------------

N = 6
UNARY = ["negate", "exponential", "tanh", "abs", "sqrt"]
BINARY = ["add", "multiply", "divide", "maximum", "subtract"]
TWO_OPERANDS = {"binary", "dot", "concat", "dus", "select"}
KINDS = ["unary", "binary", "dot", "transpose", "reverse", "row_reduce", "col_reduce",
         "scalar_exp", "slice_pad", "concat", "dus", "select", "iota"]  # fmt: skip


@st.composite
def random_graph(draw):
    """HLO text of a random DAG over f32[N,N] values mixing fusible and unfusible ops."""
    lines = [f"  v0 = f32[{N},{N}] parameter(0)", f"  v1 = f32[{N},{N}] parameter(1)",
             "  z = f32[] constant(0)", "  two = s32[] constant(2)"]  # fmt: skip
    values, used = ["v0", "v1"], set()
    sq = f"f32[{N},{N}]"
    for k in range(2, draw(st.integers(3, 20))):
        kind = draw(st.sampled_from(KINDS))
        a, b = (draw(st.sampled_from(values)) for _ in range(2))
        v = f"v{k}"
        if kind == "unary":
            lines.append(f"  {v} = {sq} {draw(st.sampled_from(UNARY))}({a})")
        elif kind == "binary":
            lines.append(f"  {v} = {sq} {draw(st.sampled_from(BINARY))}({a}, {b})")
        elif kind == "dot":
            lines.append(
                f"  {v} = {sq} dot({a}, {b}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"
            )
        elif kind == "transpose":
            lines.append(f"  {v} = {sq} transpose({a}), dimensions={{1,0}}")
        elif kind == "reverse":
            lines.append(f"  {v} = {sq} reverse({a}), dimensions={{0}}")
        elif kind in ("row_reduce", "col_reduce"):
            d, keep = (1, 0) if kind == "row_reduce" else (0, 1)
            reducer = draw(st.sampled_from(["add", "max"]))
            lines.append(
                f"  {v}r = f32[{N}] reduce({a}, z), dimensions={{{d}}}, to_apply={reducer}"
            )
            lines.append(f"  {v} = {sq} broadcast({v}r), dimensions={{{keep}}}")
        elif kind == "scalar_exp":
            lines.append(f"  {v}r = f32[] reduce({a}, z), dimensions={{0,1}}, to_apply=add")
            lines.append(f"  {v}e = f32[] exponential({v}r)")
            lines.append(f"  {v} = {sq} broadcast({v}e), dimensions={{}}")
        elif kind == "slice_pad":
            lines.append(f"  {v}s = f32[2,{N}] slice({a}), slice={{[1:3], [0:{N}]}}")
            lines.append(f"  {v} = {sq} pad({v}s, z), padding=3_{N - 5}x0_0")
        elif kind == "concat":
            lines.append(f"  {v}s = f32[{N // 2},{N}] slice({a}), slice={{[0:{N // 2}], [0:{N}]}}")
            lines.append(
                f"  {v}t = f32[{N // 2},{N}] slice({b}), slice={{[{N // 2}:{N}], [0:{N}]}}"
            )
            lines.append(f"  {v} = {sq} concatenate({v}s, {v}t), dimensions={{0}}")
        elif kind == "dus":
            lines.append(f"  {v}s = f32[2,{N}] slice({b}), slice={{[0:2], [0:{N}]}}")
            lines.append(f"  {v} = {sq} dynamic-update-slice({a}, {v}s, two, two)")
        elif kind == "select":
            lines.append(f"  {v}c = pred[{N},{N}] compare({a}, {b}), direction=GT")
            lines.append(f"  {v} = {sq} select({v}c, {a}, {b})")
        else:
            lines.append(f"  {v}i = {sq} iota(), iota_dimension=1")
            lines.append(f"  {v} = {sq} add({v}i, {a})")
        used.update({a, b} if kind in TWO_OPERANDS else {a})
        values.append(v)
    outputs = [v for v in values if v not in used]
    outputs += draw(st.lists(st.sampled_from(values), max_size=2))
    tuple_shape = ", ".join([sq] * len(outputs))
    lines.append(f"  ROOT out = ({tuple_shape}) tuple({', '.join(outputs)})")
    return f"HloModule g\n{REDUCERS}\nENTRY e {{\n" + "\n".join(lines) + "\n}"


def expensive_count(module) -> int:
    return sum(
        i.opcode in EXPENSIVE and i.opcode is not Op.REDUCE
        for c in module.computations
        if c.is_fusion_computation or c is module.entry
        for i in c.instructions
    )


@settings(max_examples=150, deadline=None)
@given(random_graph(), st.booleans())
def test_target_f_g_random_graphs_stay_acyclic_correct_and_never_duplicate_expensive_ops(
    text, multi_output
):
    before = parse_module(text)
    passes = [InstructionFusion()]
    if multi_output:
        passes += [ReduceEpilogueFusion(), MultiOutputFusion()]
    module = fuse(text, *passes)  # verifies: a cycle fails post_order
    assert expensive_count(module) <= expensive_count(before)
    assert not any(p.run(module) for p in passes)  # a second run finds nothing more
    rng = np.random.default_rng(len(text))
    args = [rng.uniform(0.1, 1.0, (N, N)).astype(np.float32) for _ in range(2)]
    check_same(before, module, *args, rtol=1e-5)


# -- the reduction splitter (runs just before fusion in the CPU pipeline) --------------------


def test_a_large_full_reduction_is_split_into_row_partials():

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
    shapes = [str(i.shape) for i in module.entry.post_order() if i.opcode is Op.REDUCE]
    assert shapes == ["f32[256]{0}", "f32[]"]
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    assert run(module, x) == run(text, x) == x.max()
