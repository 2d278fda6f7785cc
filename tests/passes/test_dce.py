"""Dead code elimination: unused pure instructions and uncalled computations go; side
effects, parameters, roots and control ordering stay; results do not change."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import run_passes
from xlapy.passes.simplify.dce import DeadCodeElimination, has_side_effect

ADD = """add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
"""


def dce(text: str):
    module = parse_module(text)
    changed = run_passes(module, [DeadCodeElimination()], verify=True)
    module.verify()
    return module, changed


def names(module, computation: str | None = None) -> list[str]:
    c = module.entry if computation is None else module.computation(computation)
    return [i.name for i in c.post_order()]


def test_unused_chains_go_in_one_run_and_results_stay():
    text = """HloModule t
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] exponential(x)
  b = f32[4] log(a)
  c = f32[4] add(b, y)
  ROOT r = f32[4] multiply(x, y)
}"""
    module, changed = dce(text)
    assert changed
    assert names(module) == ["x", "y", "r"]  # unused parameters stay
    args = [np.array([1, -2, 0, 3], np.float32), np.array([0.5, 2, -0.0, np.nan], np.float32)]
    np.testing.assert_array_equal(run(module, *args), run(text, *args))
    assert not run_passes(module, [DeadCodeElimination()])


SIDE_EFFECTS = {
    "outfeed": "  tok = token[] after-all()\n  o = token[] outfeed(x, tok)",
    "infeed": "  tok = token[] after-all()\n  i = (f32[4], token[]) infeed(tok)",
    "custom-call with side effect": '  c = f32[4] custom-call(x), custom_call_target="f", '
    "custom_call_has_side_effect=true",
    "rng": "  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
    "  r0 = f32[4] rng(lo, hi), distribution=rng_uniform",
    "all-reduce": "  ar = f32[4] all-reduce(x), replica_groups={}, to_apply=add",
    "all-reduce-start/done": "  s = f32[4] all-reduce-start(x), replica_groups={}, to_apply=add\n"
    "  d = f32[4] all-reduce-done(s)",
    "copy-start/done": "  cs = (f32[4], f32[4], u32[]) copy-start(x)\n  cd = f32[4] copy-done(cs)",
    "control edge": "  n = f32[4] negate(x)\n  m = f32[4] negate(x), control-predecessors={n}",
    "send": "  tok = token[] after-all()\n  sd = (f32[4], u32[], token[]) send(x, tok), channel_id=1\n"
    "  sdd = token[] send-done(sd), channel_id=1",
}


@pytest.mark.parametrize("body", list(SIDE_EFFECTS.values()), ids=list(SIDE_EFFECTS))
def test_side_effects_stay(body):
    text = f"HloModule t\n{ADD}ENTRY e {{\n  x = f32[4] parameter(0)\n{body}\n  ROOT r = f32[4] abs(x)\n}}"
    module = parse_module(text)
    before = names(module)
    module, _ = dce(text)
    assert names(module) == before


def test_pure_unused_ops_that_look_special_go():
    text = f"""HloModule t
{ADD}ENTRY e {{
  x = f32[4] parameter(0)
  state = u64[2] parameter(1)
  g = (u64[2], u32[4]) rng-bit-generator(state), algorithm=rng_default
  tok = token[] after-all()
  id = u32[] replica-id()
  red = f32[] constant(0)
  r1 = f32[] reduce(x, red), dimensions={{0}}, to_apply=add
  ROOT r = f32[4] abs(x)
}}"""
    module, _ = dce(text)
    assert names(module) == ["x", "state", "r"]
    assert [c.name for c in module.computations] == ["e"]


def test_uncalled_computations_go_but_called_ones_and_the_entry_stay():
    text = f"""HloModule t
{ADD}
unused {{ p = f32[] parameter(0)
  ROOT n = f32[] negate(p) }}
sq {{ p = f32[4] parameter(0)
  ROOT m = f32[4] multiply(p, p) }}
ENTRY e {{
  x = f32[4] parameter(0)
  dead = f32[4] call(x), to_apply=sq
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={{0}}, to_apply=add
}}"""
    module, changed = dce(text)
    assert changed
    assert [c.name for c in module.computations] == ["add", "e"]
    x = np.array([1, 2, 3, -0.5], np.float32)
    np.testing.assert_array_equal(run(module, x), run(text, x))


LOOP = """HloModule t
cond {{ s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT }}
body {{ s = (s32[], f32[4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  v = f32[4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  {effect}
  ROOT r = (s32[], f32[4]) tuple(j, v) }}
ENTRY e {{
  x = f32[4] parameter(0)
  z = s32[] constant(0)
  init = (s32[], f32[4]) tuple(z, x)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  ROOT out = f32[4] negate(x)
}}"""


def test_unused_loops_go_unless_their_body_has_side_effects():
    pure, _ = dce(LOOP.format(effect=""))
    assert "loop" not in names(pure)
    assert [c.name for c in pure.computations] == ["e"]
    effect = "tok = token[] after-all()\n  o = token[] outfeed(v, tok)"
    kept, _ = dce(LOOP.format(effect=effect))
    assert "loop" in names(kept)
    assert {c.name for c in kept.computations} == {"cond", "body", "e"}


def test_has_side_effect_looks_into_called_computations():
    module = parse_module(
        LOOP.format(effect="tok = token[] after-all()\n  o = token[] outfeed(v, tok)")
    )
    loop = module.entry.instruction("loop")
    assert has_side_effect(loop)
    assert not has_side_effect(module.entry.instruction("out"))


def test_dead_instructions_inside_called_computations_go():
    text = """HloModule t
f { p = f32[4] parameter(0)
  dead = f32[4] exponential(p)
  ROOT n = f32[4] negate(p) }
ENTRY e {
  x = f32[4] parameter(0)
  ROOT c = f32[4] call(x), to_apply=f
}"""
    module, _ = dce(text)
    assert names(module, "f") == ["p", "n"]
