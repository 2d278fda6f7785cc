"""Call and map inlining: calls become their callee's instructions (per call site, nested
calls too, control edges kept), elementwise maps become array ops; results stay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import run_passes
from xlapy.passes.simplify.dce import DeadCodeElimination
from xlapy.passes.simplify.inliner import CallInliner, MapInliner


def inline(text: str, *passes):
    module = parse_module(text)
    run_passes(module, [*passes, DeadCodeElimination()], verify=True)
    module.verify()
    return module


def ops(module, computation: str | None = None) -> list[str]:
    c = module.entry if computation is None else module.computation(computation)
    return [i.opcode.value for i in c.post_order()]


def same(text: str, module, *args) -> None:
    want, got = run(text, *args), run(module, *args)
    if isinstance(want, tuple):
        for w, g in zip(want, got, strict=True):
            np.testing.assert_array_equal(g, w)
    else:
        np.testing.assert_array_equal(got, want)


X = np.array([1.5, -0.0, np.nan, -np.inf], np.float32)


def test_nested_and_shared_calls_are_inlined_per_site():
    text = """HloModule t
sq { p = f32[4] parameter(0)
  ROOT m = f32[4] multiply(p, p) }
outer { a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  s = f32[4] call(a), to_apply=sq
  ROOT r = f32[4] subtract(s, b) }
ENTRY e {
  x = f32[4] parameter(0)
  c1 = f32[4] call(x, x), to_apply=outer
  c2 = f32[4] call(c1, x), to_apply=outer
  c3 = f32[4] call(x), to_apply=sq
  ROOT t = (f32[4], f32[4]) tuple(c2, c3)
}"""
    module = inline(text, CallInliner())
    assert "call" not in ops(module)
    assert ops(module).count("multiply") == 3 and ops(module).count("subtract") == 2
    assert [c.name for c in module.computations] == ["e"]
    same(text, module, X)


def test_a_callee_returning_its_parameter_and_a_tuple():
    text = """HloModule t
ident { p = f32[4] parameter(0)
  q = s32[] parameter(1)
  ROOT t = (s32[], f32[4]) tuple(q, p) }
ENTRY e {
  x = f32[4] parameter(0)
  i = s32[] parameter(1)
  ROOT c = (s32[], f32[4]) call(x, i), to_apply=ident
}"""
    module = inline(text, CallInliner())
    assert ops(module) == ["parameter", "parameter", "tuple"]
    same(text, module, X, np.int32(-7))


def test_control_edges_of_the_call_and_inside_the_callee_carry_over():
    text = """HloModule t
f { p = f32[4] parameter(0)
  a = f32[4] negate(p)
  ROOT b = f32[4] abs(p), control-predecessors={a} }
ENTRY e {
  x = f32[4] parameter(0)
  before = f32[4] exponential(x)
  c = f32[4] call(x), to_apply=f, control-predecessors={before}
  after = f32[4] log(x), control-predecessors={c}
  ROOT t = (f32[4], f32[4], f32[4]) tuple(before, c, after)
}"""
    module = inline(text, CallInliner())
    entry = module.entry
    b = next(i for i in entry.instructions if i.opcode.value == "abs")
    a = next(i for i in entry.instructions if i.opcode.value == "negate")
    assert a in b.control_predecessors
    assert entry.instruction("before") in b.control_predecessors
    assert b in entry.instruction("after").control_predecessors
    same(text, module, X)


def test_calls_with_side_effects_are_inlined_and_keep_them():
    text = """HloModule t
f { p = f32[4] parameter(0)
  tok = token[] after-all()
  o = token[] outfeed(p, tok)
  ROOT n = f32[4] negate(p) }
ENTRY e {
  x = f32[4] parameter(0)
  ROOT c = f32[4] call(x), to_apply=f
}"""
    module = inline(text, CallInliner())
    assert "outfeed" in ops(module) and "call" not in ops(module)


MAP_BODIES = {
    "select of compare": (
        "  c = f32[] constant(2)\n  m = f32[] multiply(a, c)\n"
        "  p = pred[] compare(m, b), direction=GT\n  ROOT s = f32[] select(p, m, b)",
        ["multiply", "compare", "select"],
    ),
    "returns a parameter": ("  ROOT s = f32[] add(a, b)\n  k = f32[] negate(b)", ["add"]),
    "identity": ("  ROOT s = f32[] negate(a)\n  k = f32[] negate(a)", ["negate"]),
    "constant": ("  ROOT s = f32[] constant(-0)\n  k = f32[] negate(a)", ["broadcast"]),
    "convert and back": (
        "  c = s32[] convert(a)\n  d = f32[] convert(c)\n  ROOT s = f32[] maximum(d, b)",
        ["convert", "maximum"],
    ),
}


@pytest.mark.parametrize("body,expected", list(MAP_BODIES.values()), ids=list(MAP_BODIES))
def test_elementwise_maps_become_array_ops(body, expected):
    params = "a = f32[] parameter(0)\n  b = f32[] parameter(1)"
    text = f"""HloModule t
f {{
  {params}
{body} }}
ENTRY e {{
  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT r = f32[2,3] map(x, y), dimensions={{0,1}}, to_apply=f
}}"""
    module = inline(text, MapInliner())
    assert "map" not in ops(module)
    assert set(expected) <= set(ops(module))
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3)).astype(np.float32)
    x[0, 0], x[1, 1] = -0.0, np.nan
    y = rng.standard_normal((2, 3)).astype(np.float32)
    same(text, module, x, y)


def test_a_map_returning_its_parameter_is_that_operand():
    text = """HloModule t
f {
  a = f32[] parameter(0)
  ROOT b = f32[] parameter(1)
}
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT r = f32[4] map(x, y), dimensions={0}, to_apply=f
}"""
    module = inline(text, MapInliner())
    assert module.entry.root.name == "y"
    same(text, module, X, -X)


def test_maps_that_are_not_elementwise_stay():
    text = """HloModule t
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
f { a = f32[] parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  r = f32[] rng(lo, hi), distribution=rng_uniform
  ROOT s = f32[] add(a, r) }
ENTRY e {
  x = f32[3] parameter(0)
  ROOT m = f32[3] map(x), dimensions={0}, to_apply=f
}"""
    module = parse_module(text)
    assert not MapInliner().run(module)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.sampled_from(["add", "multiply", "maximum", "subtract", "negate", "abs"]),
        min_size=1,
        max_size=6,
    ),
    st.lists(st.integers(0, 3), min_size=1, max_size=2),
    st.integers(0, 2**16),
)
def test_random_scalar_functions_map_inline_exactly(ops_list, dims, seed):
    lines, values = [], ["a", "b"]
    rng = np.random.default_rng(seed)
    for k, op in enumerate(ops_list):
        operands = [values[int(rng.integers(len(values)))] for _ in range(2)]
        args = operands[0] if op in ("negate", "abs") else ", ".join(operands)
        lines.append(f"  v{k} = s32[] {op}({args})")
        values.append(f"v{k}")
    d = ",".join(map(str, dims))
    text = f"""HloModule t
f {{ a = s32[] parameter(0)
  b = s32[] parameter(1)
{chr(10).join(lines)}
  ROOT r = s32[] add(v{len(ops_list) - 1}, a) }}
ENTRY e {{
  x = s32[{d}] parameter(0)
  y = s32[{d}] parameter(1)
  ROOT m = s32[{d}] map(x, y), dimensions={{{",".join(map(str, range(len(dims))))}}}, to_apply=f
}}"""
    module = inline(text, MapInliner())
    assert "map" not in ops(module)
    x = rng.integers(-(2**31), 2**31, dims, dtype=np.int64).astype(np.int32)
    y = rng.integers(-(2**31), 2**31, dims, dtype=np.int64).astype(np.int32)
    same(text, module, x, y)
