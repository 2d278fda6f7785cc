"""While-loop invariant code motion: expensive values computed only from state the loop
passes through unchanged move before the loop; cheap, growing, side-effecting or random
ones stay; results stay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import run_passes
from xlapy.passes.simplify.dce import DeadCodeElimination
from xlapy.passes.simplify.tuple_simplifier import TupleSimplifier
from xlapy.passes.simplify.while_licm import WhileLoopInvariantCodeMotion

LOOP = """HloModule t
cond {{ s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant({trips})
  ROOT lt = pred[] compare(i, n), direction=LT }}
body {{ s = (s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[4] get-tuple-element(s), index=1
  w = f32[4] get-tuple-element(s), index=2
{body}
  one = s32[] constant(1)
  j = s32[] add(i, one)
  ROOT r = (s32[], f32[4], f32[4]) tuple(j, a, w) }}
ENTRY e {{
  x = f32[4] parameter(0)
  w = f32[4] parameter(1)
  z = s32[] constant(0)
  init = (s32[], f32[4], f32[4]) tuple(z, x, w)
  loop = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] get-tuple-element(loop), index=1
}}"""


def licm(text: str):
    module = parse_module(text)
    run_passes(
        module,
        [WhileLoopInvariantCodeMotion(), TupleSimplifier(), DeadCodeElimination()],
        verify=True,
    )
    module.verify()
    return module


def body_ops(module) -> list[str]:
    return [i.opcode.value for i in module.computation("body").post_order()]


def same(text: str, module, *args) -> None:
    np.testing.assert_array_equal(run(module, *args), run(text, *args))


ARGS = (
    np.array([1.0, -0.0, 2.5, -3.0], np.float32),
    np.array([0.5, -0.0, np.nan, -np.inf], np.float32),
)


@pytest.mark.parametrize("trips", [0, 1, 5])
def test_an_invariant_chain_moves_before_the_loop(trips):
    body = "  ew = f32[4] exponential(w)\n  t = f32[4] tanh(ew)\n  a = f32[4] add(acc, t)"
    text = LOOP.format(body=body, trips=trips)
    module = licm(text)
    assert "exponential" not in body_ops(module) and "tanh" not in body_ops(module)
    entry = [i.opcode.value for i in module.entry.instructions]
    assert "tanh" in entry and "exponential" in entry
    (loop,) = [i for i in module.entry.instructions if i.opcode.value == "while"]
    assert len(loop.shape.tuple_shapes) == 4  # only tanh(exp(w)) is carried
    same(text, module, *ARGS)


def test_an_expensive_value_feeding_a_cheap_one_is_carried_and_the_cheap_one_stays():
    body = (
        "  ew = f32[4] exponential(w)\n  r2 = f32[2,2] reshape(ew)\n  r4 = f32[4] reshape(r2)\n"
        "  a = f32[4] add(acc, r4)"
    )
    text = LOOP.format(body=body, trips=3)
    module = licm(text)
    assert "exponential" not in body_ops(module)
    assert "reshape" in body_ops(module)
    same(text, module, *ARGS)


STAYS = {
    "depends on the changing state": "  e = f32[4] exponential(acc)\n  a = f32[4] add(acc, e)",
    "cheap only": "  c = f32[] constant(2)\n  b = f32[4] broadcast(c), dimensions={}\n"
    "  a = f32[4] add(acc, b)",
    "movement only": "  t = f32[4] reverse(w), dimensions={0}\n  a = f32[4] add(acc, t)",
    "random": "  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
    "  u = f32[4] rng(lo, hi), distribution=rng_uniform\n  a = f32[4] add(acc, u)",
    "side effect": '  u = f32[4] custom-call(w), custom_call_target="f", '
    "custom_call_has_side_effect=true\n  a = f32[4] add(acc, u)",
    "grows the state": "  o = f32[4,4] dot(w, w)\n  b = f32[4,4] broadcast(acc), dimensions={0}\n"
    "  m = f32[4,4] multiply(o, b)\n  hi = f32[] constant(0)\n"
    "  a = f32[4] reduce(m, hi), dimensions={1}, to_apply=add",
}


@pytest.mark.parametrize("body", list(STAYS.values()), ids=list(STAYS))
def test_values_that_are_not_worth_it_or_not_invariant_stay(body):
    add = "add { p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT s = f32[] add(p, q) }\n"
    text = LOOP.format(body=body, trips=2).replace("cond {", add + "cond {")
    module = parse_module(text)
    assert not WhileLoopInvariantCodeMotion().run(module)


def test_a_worthwhile_value_pulls_in_the_growing_values_it_needs():
    """The outer product is not worth carrying, but the reduce of it is: both move, only
    the reduce is carried."""
    add = "add { p = f32[] parameter(0)\n  q = f32[] parameter(1)\n  ROOT s = f32[] add(p, q) }\n"
    body = (
        "  o = f32[4,4] dot(w, w)\n  hi = f32[] constant(0)\n"
        "  d = f32[4] reduce(o, hi), dimensions={1}, to_apply=add\n  a = f32[4] add(acc, d)"
    )
    text = LOOP.format(body=body, trips=3).replace("cond {", add + "cond {")
    module = licm(text)
    assert "dot" not in body_ops(module) and "reduce" not in body_ops(module)
    (loop,) = [i for i in module.entry.instructions if i.opcode.value == "while"]
    assert [s.rank for s in loop.shape.tuple_shapes[3:]] == [1]
    same(text, module, *ARGS)


def test_loops_whose_body_is_shared_are_left_alone():
    body = "  ew = f32[4] exponential(w)\n  a = f32[4] add(acc, ew)"
    text = LOOP.format(body=body, trips=2).replace(
        "  ROOT out = f32[4] get-tuple-element(loop), index=1",
        "  loop2 = (s32[], f32[4], f32[4]) while(init), condition=cond, body=body\n"
        "  ROOT out = f32[4] get-tuple-element(loop2), index=1",
    )
    module = parse_module(text)
    assert not WhileLoopInvariantCodeMotion().run(module)


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.sampled_from(["exponential", "tanh", "negate", "sine", "log"]), min_size=1, max_size=4
    ),
    st.integers(0, 4),
    st.booleans(),
)
def test_random_invariant_chains(chain, trips, uses_acc):
    lines, value = [], "w"
    for k, op in enumerate(chain):
        lines.append(f"  c{k} = f32[4] {op}({value})")
        value = f"c{k}"
    last = (
        f"  m = f32[4] multiply(acc, {value})"
        if uses_acc
        else f"  m = f32[4] add({value}, {value})"
    )
    lines += [last, "  a = f32[4] add(acc, m)"]
    text = LOOP.format(body="\n".join(lines), trips=trips)
    module = licm(text)
    assert not any(op in body_ops(module) for op in chain)
    same(text, module, *ARGS)
