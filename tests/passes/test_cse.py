"""Common subexpression elimination: identical pure instructions merge (constants by
value and shape, called computations by identity), nothing else does, and results stay."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import run_passes
from xlapy.passes.simplify.cse import CommonSubexpressionElimination
from xlapy.passes.simplify.dce import DeadCodeElimination

ADD = """add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
add2 { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
"""


def cse(text: str):
    module = parse_module(text)
    run_passes(module, [CommonSubexpressionElimination(), DeadCodeElimination()], verify=True)
    module.verify()
    return module


def count(module, opcode: str) -> int:
    return sum(i.opcode.value == opcode for i in module.entry.instructions)


def entry(body: str, params: str = "  x = f32[4] parameter(0)\n  y = f32[4] parameter(1)") -> str:
    return f"HloModule t\n{ADD}ENTRY e {{\n{params}\n{body}\n}}"


def same(text: str, module, *args) -> None:
    want, got = run(text, *args), run(module, *args)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(g, w)


ARGS = (np.array([1, -0.0, np.nan, 2], np.float32), np.array([3, 0.0, 1, -np.inf], np.float32))


def test_identical_chains_merge_operands_first():
    text = entry(
        "  a = f32[4] exponential(x)\n  b = f32[4] exponential(x)\n"
        "  c = f32[4] add(a, y)\n  d = f32[4] add(b, y)\n  ROOT r = (f32[4], f32[4]) tuple(c, d)"
    )
    module = cse(text)
    assert count(module, "exponential") == 1 and count(module, "add") == 1
    same(text, module, *ARGS)


@pytest.mark.parametrize(
    "a,b,merged",
    [
        ("f32[] constant(0)", "f32[] constant(0)", True),
        ("f32[] constant(0)", "f32[] constant(-0)", False),
        ("f32[] constant(nan)", "f32[] constant(nan)", True),
        ("f32[2] constant({1, 2})", "f32[2] constant({1, 2})", True),
        ("f32[2] constant({1, 2})", "f32[2] constant({2, 1})", False),
        ("s32[] constant(1)", "u32[] constant(1)", False),
        ("f32[2,2]{1,0} constant({{1,2},{3,4}})", "f32[2,2]{0,1} constant({{1,2},{3,4}})", False),
    ],
)
def test_constants_merge_by_value_type_and_layout(a, b, merged):
    text = f"HloModule t\nENTRY e {{\n  a = {a}\n  b = {b}\n  ROOT r = tuple(a, b)\n}}"
    shape_a, shape_b = a.split(" constant")[0], b.split(" constant")[0]
    text = text.replace("ROOT r = tuple", f"ROOT r = ({shape_a}, {shape_b}) tuple")
    module = cse(text)
    assert (count(module, "constant") == 1) == merged
    same(text, module)


def test_attributes_and_called_computations_must_match():
    text = entry(
        "  z = f32[] constant(0)\n"
        "  r1 = f32[] reduce(x, z), dimensions={0}, to_apply=add\n"
        "  r2 = f32[] reduce(x, z), dimensions={0}, to_apply=add\n"
        "  r3 = f32[] reduce(x, z), dimensions={0}, to_apply=add2\n"
        "  c1 = pred[4] compare(x, y), direction=LT\n  c2 = pred[4] compare(x, y), direction=GT\n"
        "  ROOT t = (f32[], f32[], f32[], pred[4], pred[4]) tuple(r1, r2, r3, c1, c2)"
    )
    module = cse(text)
    assert count(module, "reduce") == 2 and count(module, "compare") == 2
    same(text, module, *ARGS)


def test_metadata_does_not_prevent_merging():
    text = entry(
        '  a = f32[4] negate(x), metadata={op_name="a"}\n  b = f32[4] negate(x), metadata={op_name="b"}\n'
        "  ROOT t = (f32[4], f32[4]) tuple(a, b)"
    )
    assert count(cse(text), "negate") == 1


def test_commutative_operands_merge_for_integers_but_not_floats():
    ints = entry(
        "  a = s32[4] add(x, y)\n  b = s32[4] add(y, x)\n  ROOT t = (s32[4], s32[4]) tuple(a, b)",
        "  x = s32[4] parameter(0)\n  y = s32[4] parameter(1)",
    )
    module = cse(ints)
    assert count(module, "add") == 1
    same(
        ints,
        module,
        np.array([1, -5, 2**31 - 1, 0], np.int32),
        np.array([1, 2, 1, -(2**31)], np.int32),
    )
    floats = entry(
        "  a = f32[4] add(x, y)\n  b = f32[4] add(y, x)\n  ROOT t = (f32[4], f32[4]) tuple(a, b)"
    )
    assert count(cse(floats), "add") == 2  # NaN payloads may depend on the order


NEVER = {
    "rng": "  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n"
    "  u = f32[4] rng(lo, hi), distribution=rng_uniform\n  v = f32[4] rng(lo, hi), distribution=rng_uniform",
    "custom-call with side effect": '  u = f32[4] custom-call(x), custom_call_target="f", '
    'custom_call_has_side_effect=true\n  v = f32[4] custom-call(x), custom_call_target="f", '
    "custom_call_has_side_effect=true",
    "infeed": "  tok = token[] after-all()\n  u = (f32[4], token[]) infeed(tok)\n"
    "  v = (f32[4], token[]) infeed(tok)",
    "all-reduce": "  u = f32[4] all-reduce(x), replica_groups={}, to_apply=add\n"
    "  v = f32[4] all-reduce(x), replica_groups={}, to_apply=add",
    "control edges": "  u = f32[4] negate(x), control-predecessors={y}\n  v = f32[4] negate(x)",
}


@pytest.mark.parametrize("body", list(NEVER.values()), ids=list(NEVER))
def test_side_effects_and_random_numbers_never_merge(body):
    shape = "(f32[4], token[])" if "infeed" in body else "f32[4]"
    text = entry(f"{body}\n  ROOT t = ({shape}, {shape}) tuple(u, v)")
    module = cse(text)
    assert {"u", "v"} <= {i.name for i in module.entry.instructions}


def test_parameters_never_merge():
    text = entry("  ROOT t = (f32[4], f32[4]) tuple(x, y)")
    module = cse(text)
    assert len(module.entry.parameters) == 2


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.sampled_from(["negate", "abs", "exponential", "add", "multiply"]), min_size=2, max_size=8
    ),
    st.integers(0, 2**16),
)
def test_random_duplicated_programs_keep_their_results(ops, seed):
    """A program whose every op appears twice keeps each op once and its results."""
    lines, values = [], ["x", "y"]
    rng = np.random.default_rng(seed)
    for k, op in enumerate(ops):
        a, b = (values[int(rng.integers(len(values)))] for _ in range(2))
        operands = f"{a}, {b}" if op in ("add", "multiply") else a
        for copy in ("p", "q"):
            lines.append(f"  {copy}{k} = f32[4] {op}({operands})")
        values.append(f"p{k}")
    outputs = [f"p{k}" for k in range(len(ops))] + [f"q{k}" for k in range(len(ops))]
    shapes = ", ".join(["f32[4]"] * len(outputs))
    text = entry("\n".join(lines) + f"\n  ROOT t = ({shapes}) tuple({', '.join(outputs)})")
    module = cse(text)
    assert sum(1 for i in module.entry.instructions if i.name.startswith("q")) == 0
    same(text, module, *ARGS)
