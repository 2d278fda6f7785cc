"""Expanders: batch norm as reductions and elementwise ops, async pairs as synchronous
ops, barriers removed, dots canonicalized for BLAS, topk as sort + slice; each rewrite
happens, the module verifies, and the interpreter agrees before and after."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import PassPipeline, PipelineOptions, run_passes
from xlapy.passes.expand.control_async import AsyncUnwrapper
from xlapy.passes.expand.linalg_batchnorm import BatchNormExpander
from xlapy.passes.expand.linalg_dot import DotCanonicalizer
from xlapy.passes.expand.movement_barriers import OptimizationBarrierRemover
from xlapy.passes.expand.reductions_topk import TopkDecomposer
from xlapy.passes.simplify.algebraic_simplifier import AlgebraicSimplifier
from xlapy.passes.simplify.algebraic_simplifier_dot import blas_form
from xlapy.passes.simplify.dce import DeadCodeElimination
from xlapy.passes.simplify.tuple_simplifier import TupleSimplifier


def expand(text: str, *passes):
    module = parse_module(text)
    run_passes(module, [*passes, TupleSimplifier(), DeadCodeElimination()], verify=True)
    module.verify()
    return module


def ops(module) -> set[str]:
    return {i.opcode.value for c in module.computations for i in c.instructions}


def flat(value) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in flat(v)]
    return [np.asarray(value)]


def assert_close(got, want, rtol: float = 0.0, atol: float = 0.0) -> None:
    for g, w in zip(flat(got), flat(want), strict=True):
        assert g.dtype == w.dtype and g.shape == w.shape
        if rtol or atol:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol, atol)
        else:
            np.testing.assert_array_equal(g, w)


# -- batch norm -----------------------------------------------------------------------------

BATCH_NORM = """HloModule t
ENTRY e {{
  x = {t}[4,3,5] parameter(0)
  s = {t}[3] parameter(1)
  o = {t}[3] parameter(2)
  g = {t}[4,3,5] parameter(3)
  tr = ({t}[4,3,5], {t}[3], {t}[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  y = {t}[4,3,5] get-tuple-element(tr), index=0
  m = {t}[3] get-tuple-element(tr), index=1
  v = {t}[3] get-tuple-element(tr), index=2
  i = {t}[4,3,5]{{0,1,2}} batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
  d = ({t}[4,3,5], {t}[3], {t}[3]) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=1
  ROOT r = ({t}[4,3,5], {t}[4,3,5]{{0,1,2}}, ({t}[4,3,5], {t}[3], {t}[3]), {t}[3], {t}[3]) tuple(y, i, d, m, v)
}}"""


@pytest.mark.parametrize("et,rtol", [("f32", 1e-4), ("f64", 1e-10), ("bf16", 2e-2), ("f16", 5e-3)])
def test_batch_norm_expands_to_reductions_and_elementwise_ops(et, rtol):
    text = BATCH_NORM.format(t=et)
    module = expand(text, BatchNormExpander())
    assert not any(op.startswith("batch-norm") for op in ops(module))
    assert {"reduce", "rsqrt", "broadcast"} <= ops(module)
    assert module.entry.root.operand(1).shape == parse_module(text).entry.root.operand(1).shape
    rng = np.random.default_rng(7)
    dtype = module.entry.parameters[0].shape.element_type.dtype
    shapes = [(4, 3, 5), (3,), (3,), (4, 3, 5)]
    args = [(rng.standard_normal(s) * 2 + 1).astype(dtype) for s in shapes]
    assert_close(run(module, *args), run(text, *args), rtol=rtol, atol=rtol)


def test_batch_norm_with_the_feature_last_and_a_rank_one_operand():
    text = """HloModule t
ENTRY e {
  x = f32[6,2] parameter(0)
  s = f32[2] parameter(1)
  o = f32[2] parameter(2)
  ROOT tr = (f32[6,2], f32[2], f32[2]) batch-norm-training(x, s, o), epsilon=0.5, feature_index=1
}"""
    module = expand(text, BatchNormExpander())
    assert "batch-norm-training" not in ops(module)
    rng = np.random.default_rng(8)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(6, 2), (2,), (2,)]]
    assert_close(run(module, *args), run(text, *args), rtol=1e-5, atol=1e-5)


# -- async ----------------------------------------------------------------------------------

ASYNC = """HloModule t, replica_count=2
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
comp { p = f32[4] parameter(0)
  n = f32[4] negate(p)
  ROOT e = f32[4] exponential(n) }
ENTRY e {
  x = f32[4] parameter(0)
  ars = f32[4] all-reduce-start(x), replica_groups={{0,1}}, to_apply=add
  ard = f32[4] all-reduce-done(ars)
  ags = (f32[4], f32[8]) all-gather-start(x), replica_groups={{0,1}}, dimensions={0}
  agd = f32[8] all-gather-done(ags)
  cps = (f32[4], f32[4], u32[], u32[]) collective-permute-start(x), source_target_pairs={{0,1},{1,0}}
  cpd = f32[4] collective-permute-done(cps)
  cs = (f32[4], f32[4], u32[]) copy-start(x)
  cd = f32[4] copy-done(cs)
  ns = ((f32[4]), f32[4], s32[]) negate-start(x)
  nd = f32[4] negate-done(ns)
  s = ((f32[4]), f32[4], s32[]) async-start(x), calls=comp
  u = ((f32[4]), f32[4], s32[]) async-update(s), calls=comp
  d = f32[4] async-done(u), calls=comp
  ROOT t = (f32[4], f32[8], f32[4], f32[4], f32[4], f32[4]) tuple(ard, agd, cpd, cd, nd, d)
}"""


def test_async_pairs_become_synchronous_ops():
    module = expand(ASYNC, AsyncUnwrapper())
    names = ops(module)
    assert not any(op.endswith(("-start", "-done", "-update")) for op in names), names
    assert {"all-reduce", "all-gather", "collective-permute", "copy", "negate"} <= names
    x = np.array([1.0, -0.0, np.nan, 4.0], np.float32)
    assert_close(run(module, x, num_replicas=2), run(ASYNC, x, num_replicas=2))


def test_async_chains_read_elsewhere_or_with_extra_operands_stay():
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  cs = (f32[4], f32[4], u32[]) copy-start(x)
  cd = f32[4] copy-done(cs)
  src = f32[4] get-tuple-element(cs), index=1
  ROOT t = (f32[4], f32[4]) tuple(cd, src)
}"""
    module = parse_module(text)
    assert not AsyncUnwrapper().run(module)


def test_control_edges_of_async_pairs_carry_over():
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  before = f32[4] exponential(x)
  cs = (f32[4], f32[4], u32[]) copy-start(x), control-predecessors={before}
  cd = f32[4] copy-done(cs)
  after = f32[4] log(x), control-predecessors={cd}
  ROOT t = (f32[4], f32[4], f32[4]) tuple(before, cd, after)
}"""
    module = expand(text, AsyncUnwrapper())
    (copy,) = [i for i in module.entry.instructions if i.opcode.value == "copy"]
    assert module.entry.instruction("before") in copy.control_predecessors
    assert copy in module.entry.instruction("after").control_predecessors


def test_barriers_are_removed():
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  y = s32[] parameter(1)
  t = (f32[4], s32[]) tuple(x, y)
  b = (f32[4], s32[]) opt-barrier(t)
  g = f32[4] get-tuple-element(b), index=0
  tok = token[] after-all()
  a = f32[4] add-dependency(g, tok)
  ROOT n = f32[4] negate(a)
}"""
    module = expand(text, OptimizationBarrierRemover())
    assert not {"opt-barrier", "add-dependency", "tuple"} & ops(module)
    x = np.array([1.0, -0.0, np.nan, 4.0], np.float32)
    assert_close(run(module, x, np.int32(3)), run(text, x, np.int32(3)))


# -- dot ------------------------------------------------------------------------------------


def _dot_is_blas(module) -> bool:
    (dot,) = [i for i in module.entry.instructions if i.opcode.value == "dot"]
    dims = {k: [int(d) for d in dot.attribute(k, ())] for k in (
        "lhs_batch_dims", "lhs_contracting_dims", "rhs_batch_dims", "rhs_contracting_dims")}  # fmt: skip
    return blas_form(
        dot.operand(0).shape.rank, dims["lhs_batch_dims"], dims["lhs_contracting_dims"]
    ) and blas_form(dot.operand(1).shape.rank, dims["rhs_batch_dims"], dims["rhs_contracting_dims"])


BATCH_INSIDE = """HloModule t
ENTRY e {
  x = f32[4,2,3] parameter(0)
  y = f32[3,2,5] parameter(1)
  ROOT d = f32[2,4,5] dot(x, y), lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}
}"""


def test_dots_get_operands_blas_takes_and_the_simplifier_keeps_them():
    pipeline = PassPipeline(options=PipelineOptions(verify=True))
    pipeline.add_fixed_point(
        "dots", [DotCanonicalizer(), AlgebraicSimplifier(), DeadCodeElimination()]
    )
    module = parse_module(BATCH_INSIDE)
    pipeline.run(module)
    assert _dot_is_blas(module)
    rng = np.random.default_rng(9)
    x = rng.integers(-5, 5, (4, 2, 3)).astype(np.float32)
    y = rng.integers(-5, 5, (3, 2, 5)).astype(np.float32)
    assert_close(run(module, x, y), run(BATCH_INSIDE, x, y))


def test_a_canonical_dot_compiles_to_blas_on_the_cpu_backend():

    module = expand(BATCH_INSIDE, DotCanonicalizer())
    executable = xlapy.local_client("cpu").compile(module)
    assert "dot" not in executable.fallback_ops
    rng = np.random.default_rng(10)
    x, y = rng.standard_normal((4, 2, 3), np.float32), rng.standard_normal((3, 2, 5), np.float32)
    np.testing.assert_allclose(executable(x, y), run(BATCH_INSIDE, x, y), rtol=1e-5, atol=1e-5)


def test_integer_dots_and_blas_ready_dots_are_left_alone():
    for text in (
        BATCH_INSIDE.replace("f32", "s32"),
        BATCH_INSIDE.replace("lhs_batch_dims={1}", "lhs_batch_dims={0}")
        .replace("f32[4,2,3]", "f32[2,4,3]")
        .replace("rhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_contracting_dims={0}",
                 "rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}")
        .replace("f32[3,2,5]", "f32[2,3,5]"),
    ):  # fmt: skip
        assert not DotCanonicalizer().run(parse_module(text))


@settings(max_examples=25, deadline=None)
@given(st.permutations(range(4)), st.permutations(range(3)), st.integers(0, 2**16))
def test_random_dot_layouts_canonicalize_exactly(lhs_perm, rhs_perm, seed):
    """lhs [b=2, m=3, k=4, k2=2] and rhs [b=2, k=4, k2=2... ] in random dimension orders."""
    lhs_dims = {"b": 2, "m": 3, "k": 4, "j": 2}
    rhs_dims = {"b": 2, "k": 4, "n": 5}
    lhs_names = [list(lhs_dims)[p] for p in lhs_perm]
    rhs_names = [list(rhs_dims)[p] for p in rhs_perm]
    lhs_shape = ",".join(str(lhs_dims[n]) for n in lhs_names)
    rhs_shape = ",".join(str(rhs_dims[n]) for n in rhs_names)
    text = f"""HloModule t
ENTRY e {{
  x = f32[{lhs_shape}] parameter(0)
  y = f32[{rhs_shape}] parameter(1)
  ROOT d = f32[2,3,2,5] dot(x, y), lhs_batch_dims={{{lhs_names.index("b")}}}, rhs_batch_dims={{{rhs_names.index("b")}}}, lhs_contracting_dims={{{lhs_names.index("k")}}}, rhs_contracting_dims={{{rhs_names.index("k")}}}
}}"""
    free = sorted(["m", "j"], key=lhs_names.index)
    text = text.replace(
        "f32[2,3,2,5] dot", f"f32[2,{','.join(str(lhs_dims[n]) for n in free)},5] dot"
    )
    module = expand(text, DotCanonicalizer())
    assert _dot_is_blas(module)
    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 4, [lhs_dims[n] for n in lhs_names]).astype(np.float32)
    y = rng.integers(-4, 4, [rhs_dims[n] for n in rhs_names]).astype(np.float32)
    assert_close(run(module, x, y), run(text, x, y))


# -- topk -----------------------------------------------------------------------------------


@pytest.mark.parametrize("largest", ["true", "false"])
@pytest.mark.parametrize("et", ["f32", "s32", "bf16", "u8"])
def test_topk_becomes_a_stable_sort_and_slices(et, largest):
    text = f"""HloModule t
ENTRY e {{
  x = {et}[3,7] parameter(0)
  ROOT t = ({et}[3,3], s32[3,3]) topk(x), k=3, largest={largest}
}}"""
    module = expand(text, TopkDecomposer())
    assert "topk" not in ops(module) and {"sort", "slice", "iota"} <= ops(module)
    if et in ("f32", "bf16"):
        row = [0.0, -0.0, np.nan, 1.0, -np.inf, 1.0, -np.nan]
        x = np.array([row, row[::-1], [2.0] * 7], np.float32).astype(
            module.entry.parameters[0].shape.element_type.dtype
        )
    else:
        x = np.array([[5, 1, 5, 0, 9, 9, 2], [0] * 7, [3, 2, 1, 7, 7, 7, 1]]).astype(
            module.entry.parameters[0].shape.element_type.dtype
        )
    want, got = run(text, x), run(module, x)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0].view(np.uint8), want[0].view(np.uint8))


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, np.nan, np.inf, -np.inf]),
        min_size=1,
        max_size=9,
    ),
    st.data(),
)
def test_topk_agrees_on_random_rows(values, data):
    n = len(values)
    k = data.draw(st.integers(0, n))
    largest = data.draw(st.sampled_from(["true", "false"]))
    text = f"""HloModule t
ENTRY e {{
  x = f32[2,{n}] parameter(0)
  ROOT t = (f32[2,{k}], s32[2,{k}]) topk(x), k={k}, largest={largest}
}}"""
    module = expand(text, TopkDecomposer())
    x = np.array([values, values[::-1]], np.float32)
    want, got = run(text, x), run(module, x)
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[0].view(np.uint32), want[0].view(np.uint32))
