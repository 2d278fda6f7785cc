"""The simplification passes: each rewrite happens, the module still verifies, and the
interpreter computes the same results before and after (including -0.0, NaN, INT_MIN)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import PassPipeline, PipelineOptions
from xlapy.passes.expand.linalg_batchnorm import BatchNormExpander
from xlapy.passes.simplify.algebraic_simplifier import AlgebraicSimplifier
from xlapy.passes.simplify.constant_folding import ConstantFolding
from xlapy.passes.simplify.cse import CommonSubexpressionElimination
from xlapy.passes.simplify.dce import DeadCodeElimination
from xlapy.passes.simplify.inliner import CallInliner, MapInliner
from xlapy.passes.simplify.tuple_simplifier import TupleSimplifier
from xlapy.passes.simplify.while_licm import WhileLoopInvariantCodeMotion

EDGE_F32 = np.array([0.0, -0.0, 1.5, -2.0, np.nan, np.inf, -np.inf, 1e-45], np.float32)
EDGE_S32 = np.array([0, 1, -1, 2**31 - 1, -(2**31), 7, -7, 100], np.int32)


def simplified(text: str, *passes) -> tuple:
    module = parse_module(text)
    PassPipeline(passes=[*passes, DeadCodeElimination()], options=PipelineOptions(verify=True)).run(
        module
    )
    module.verify()
    return module, [i.opcode.value for i in module.entry.post_order()]


def same_results(text: str, module, *args) -> None:
    want = run(text, *args)
    got = run(module, *args)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def entry(body: str, params: str) -> str:
    return f"HloModule t\nENTRY e {{\n{params}\n{body}\n}}"


@pytest.mark.parametrize(
    "body,kept",
    [
        ("  z = s32[8] broadcast(c0), dimensions={}\n  ROOT r = s32[8] add(x, z)", ["parameter"]),
        (
            "  z = s32[8] broadcast(c0), dimensions={}\n  ROOT r = s32[8] subtract(x, z)",
            ["parameter"],
        ),
        (
            "  o = s32[8] broadcast(c1), dimensions={}\n  ROOT r = s32[8] multiply(o, x)",
            ["parameter"],
        ),
        ("  n = s32[8] negate(x)\n  ROOT r = s32[8] negate(n)", ["parameter"]),
        ("  ROOT r = s32[8] and(x, x)", ["parameter"]),
        ("  ROOT r = s32[8] convert(x)", ["parameter"]),
        ("  ROOT r = s32[8] slice(x), slice={[0:8]}", ["parameter"]),
    ],
)
def test_integer_identities_disappear(body, kept):
    text = entry(
        body, "  x = s32[8] parameter(0)\n  c0 = s32[] constant(0)\n  c1 = s32[] constant(1)"
    )
    module, ops = simplified(text, AlgebraicSimplifier())
    assert ops == kept
    same_results(text, module, EDGE_S32)


def test_x_minus_x_is_zero_for_integers_only():
    ints = entry("  ROOT r = s32[8] subtract(x, x)", "  x = s32[8] parameter(0)")
    module, ops = simplified(ints, AlgebraicSimplifier())
    assert "subtract" not in ops
    same_results(ints, module, EDGE_S32)
    floats = entry("  ROOT r = f32[8] subtract(x, x)", "  x = f32[8] parameter(0)")
    _, ops = simplified(floats, AlgebraicSimplifier())
    assert "subtract" in ops  # inf - inf is NaN, not 0


def test_float_plus_zero_keeps_the_add_but_plus_negative_zero_goes():
    plus_zero = entry(
        "  c = f32[] constant(0)\n  z = f32[8] broadcast(c), dimensions={}\n  ROOT r = f32[8] add(x, z)",
        "  x = f32[8] parameter(0)",
    )
    _, ops = simplified(plus_zero, AlgebraicSimplifier())
    assert "add" in ops  # -0 + 0 = +0
    plus_negative_zero = plus_zero.replace("constant(0)", "constant(-0)")
    module, ops = simplified(plus_negative_zero, AlgebraicSimplifier())
    assert "add" not in ops
    same_results(plus_negative_zero, module, EDGE_F32)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(width=32), min_size=1, max_size=6), st.sampled_from(["multiply", "divide"])
)
def test_times_and_over_one_are_exact_for_every_float(values, op):
    x = np.array(values, np.float32)
    n = len(values)
    text = entry(
        f"  c = f32[] constant(1)\n  o = f32[{n}] broadcast(c), dimensions={{}}\n  ROOT r = f32[{n}] {op}(x, o)",
        f"  x = f32[{n}] parameter(0)",
    )
    module, ops = simplified(text, AlgebraicSimplifier())
    assert ops == ["parameter"]
    np.testing.assert_array_equal(run(module, x).view(np.uint32), run(text, x).view(np.uint32))


def test_movement_chains_merge():
    text = entry(
        "  t = f32[3,2] transpose(x), dimensions={1,0}\n  u = f32[2,3] transpose(t), dimensions={1,0}\n"
        "  r1 = f32[6] reshape(u)\n  r2 = f32[3,2] reshape(r1)\n"
        "  b1 = f32[4,3,2] broadcast(r2), dimensions={1,2}\n  ROOT b2 = f32[5,4,3,2] broadcast(b1), dimensions={1,2,3}",
        "  x = f32[2,3] parameter(0)",
    )
    module, ops = simplified(text, AlgebraicSimplifier())
    assert ops == ["parameter", "reshape", "broadcast"]
    same_results(text, module, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_tuple_simplifier_and_cse_and_dce():
    text = entry(
        "  a = f32[4] exponential(x)\n  b = f32[4] exponential(x)\n  t = (f32[4], f32[4]) tuple(a, b)\n"
        "  g0 = f32[4] get-tuple-element(t), index=0\n  g1 = f32[4] get-tuple-element(t), index=1\n"
        "  dead = f32[4] log(x)\n  ROOT r = f32[4] add(g0, g1)",
        "  x = f32[4] parameter(0)",
    )
    module, ops = simplified(text, TupleSimplifier(), CommonSubexpressionElimination())
    assert ops == ["parameter", "exponential", "add"]
    same_results(text, module, np.array([0, 1, -1, 2], np.float32))


def test_cse_never_merges_random_numbers():
    text = entry(
        "  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
        "  a = f32[4] rng(lo, hi), distribution=rng_uniform\n  b = f32[4] rng(lo, hi), distribution=rng_uniform\n"
        "  ROOT r = f32[4] subtract(a, b)",
        "",
    )
    _, ops = simplified(text, CommonSubexpressionElimination())
    assert ops.count("rng") == 2


def test_constant_folding_uses_the_interpreters_semantics():
    text = entry(
        "  a = s32[2] constant({-2147483648, 7})\n  b = s32[2] constant({-1, 0})\n"
        "  q = s32[2] divide(a, b)\n  ROOT r = s32[2] add(q, x)",
        "  x = s32[2] parameter(0)",
    )
    module, ops = simplified(text, ConstantFolding())
    assert ops == ["parameter", "constant", "add"]
    same_results(text, module, np.array([1, 1], np.int32))


def test_call_inliner_then_dce_removes_the_callee():
    text = """HloModule t
sq { p = f32[3] parameter(0)
  ROOT m = f32[3] multiply(p, p) }
ENTRY e {
  x = f32[3] parameter(0)
  c = f32[3] call(x), to_apply=sq
  ROOT r = f32[3] add(c, x)
}"""
    module, ops = simplified(text, CallInliner())
    assert ops == ["parameter", "multiply", "add"]
    assert [c.name for c in module.computations] == ["e"]
    same_results(text, module, np.array([1, -2, 3], np.float32))


def test_fixed_point_pipeline_and_dump(tmp_path):
    text = entry(
        "  n = f32[4] negate(x)\n  m = f32[4] negate(n)\n  k = f32[4] negate(m)\n  ROOT r = f32[4] negate(k)",
        "  x = f32[4] parameter(0)",
    )
    module = parse_module(text)
    pipeline = PassPipeline(options=PipelineOptions(verify=True, dump_dir=str(tmp_path)))
    pipeline.add_fixed_point("simplify", [AlgebraicSimplifier(), DeadCodeElimination()])
    assert pipeline.run(module)
    assert [i.opcode.value for i in module.entry.post_order()] == ["parameter"]
    dumps = sorted(p.name for p in tmp_path.iterdir())
    assert dumps and all(name.endswith(".hlo") for name in dumps)
    assert pipeline.stats["algebraic-simplifier"].changes >= 1


def test_map_inliner_turns_a_scalar_function_into_array_ops():

    text = """HloModule t
f { a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[] constant(2)
  m = f32[] multiply(a, c)
  p = pred[] compare(m, b), direction=GT
  ROOT s = f32[] select(p, m, b) }
ENTRY e {
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT r = f32[2,3] map(x, y), dimensions={0,1}, to_apply=f
}"""
    module, ops = simplified(text, MapInliner())
    assert "map" not in ops and {"multiply", "compare", "select"} <= set(ops)
    rng = np.random.default_rng(5)
    x, y = (rng.standard_normal((2, 3)).astype(np.float32) for _ in range(2))
    same_results(text, module, x, y)


def test_while_licm_computes_an_invariant_value_once():

    text = """HloModule t
cond { s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(5)
  ROOT lt = pred[] compare(i, n), direction=LT }
body { s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[4] get-tuple-element(s), index=1
  w = f32[4] get-tuple-element(s), index=2
  ew = f32[4] exponential(w)
  t = f32[4] tanh(ew)
  a = f32[4] add(acc, t)
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[4], f32[4]) tuple(j, a, w) }
ENTRY e {
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(z, x, w)
  loop = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}"""
    module, _ = simplified(text, WhileLoopInvariantCodeMotion())
    body = module.computation("body")
    assert not any(i.opcode.value in ("exponential", "tanh") for i in body.instructions)
    assert any(i.opcode.value == "tanh" for i in module.entry.instructions)
    rng = np.random.default_rng(6)
    same_results(text, module, *(rng.standard_normal(4).astype(np.float32) for _ in range(2)))


def test_batch_norm_expands_into_ops_the_cpu_backend_compiles():

    text = """HloModule t
ENTRY e {
  x = f32[4,3,5] parameter(0)
  s = f32[3] parameter(1)
  o = f32[3] parameter(2)
  g = f32[4,3,5] parameter(3)
  t = (f32[4,3,5], f32[3], f32[3]) batch-norm-training(x, s, o), epsilon=0.001, feature_index=1
  y = f32[4,3,5] get-tuple-element(t), index=0
  m = f32[3] get-tuple-element(t), index=1
  v = f32[3] get-tuple-element(t), index=2
  i = f32[4,3,5] batch-norm-inference(x, s, o, m, v), epsilon=0.001, feature_index=1
  d = (f32[4,3,5], f32[3], f32[3]) batch-norm-grad(x, s, m, v, g), epsilon=0.001, feature_index=1
  ROOT r = (f32[4,3,5], f32[4,3,5], (f32[4,3,5], f32[3], f32[3])) tuple(y, i, d)
}"""
    module, ops = simplified(text, BatchNormExpander())
    assert not any(op.startswith("batch-norm") for op in ops)
    rng = np.random.default_rng(7)
    args = [rng.standard_normal(s).astype(np.float32) for s in [(4, 3, 5), (3,), (3,), (4, 3, 5)]]
    want, got = run(text, *args), run(module, *args)
    for w, g in zip([want[0], want[1], *want[2]], [got[0], got[1], *got[2]], strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
