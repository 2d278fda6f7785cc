"""Tuple simplification: get-tuple-element of a tuple is the element, a tuple of all of
another tuple's elements in order is that tuple; nothing else changes."""

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


def simplify(text: str):
    module = parse_module(text)
    run_passes(module, [TupleSimplifier(), DeadCodeElimination()], verify=True)
    module.verify()
    return module


def ops(module) -> list[str]:
    return [i.opcode.value for i in module.entry.post_order()]


def flat(value) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [leaf for v in value for leaf in flat(v)]
    return [np.asarray(value)]


def same(text: str, module, *args) -> None:
    for g, w in zip(flat(run(module, *args)), flat(run(text, *args)), strict=True):
        np.testing.assert_array_equal(g, w)


ARGS = (np.array([1.0, -0.0, np.nan], np.float32), np.int32(-(2**31)))
PARAMS = "  x = f32[3] parameter(0)\n  i = s32[] parameter(1)"


def entry(body: str, params: str = PARAMS) -> str:
    return f"HloModule t\nENTRY e {{\n{params}\n{body}\n}}"


def test_nested_get_tuple_elements_of_tuples_resolve():
    text = entry(
        "  a = (f32[3], s32[]) tuple(x, i)\n  b = ((f32[3], s32[]), s32[]) tuple(a, i)\n"
        "  g = (f32[3], s32[]) get-tuple-element(b), index=0\n"
        "  h = f32[3] get-tuple-element(g), index=0\n  ROOT r = f32[3] negate(h)"
    )
    module = simplify(text)
    assert ops(module) == ["parameter", "parameter", "negate"]
    same(text, module, *ARGS)


def test_a_tuple_rebuilt_from_all_elements_in_order_is_the_tuple():
    text = entry(
        "  g0 = f32[3] get-tuple-element(p), index=0\n  g1 = s32[] get-tuple-element(p), index=1\n"
        "  ROOT r = (f32[3], s32[]) tuple(g0, g1)",
        "  p = (f32[3], s32[]) parameter(0)",
    )
    module = simplify(text)
    assert ops(module) == ["parameter"]


@pytest.mark.parametrize(
    "body",
    [
        "  g1 = s32[] get-tuple-element(p), index=1\n  g0 = f32[3] get-tuple-element(p), index=0\n"
        "  ROOT r = (s32[], f32[3]) tuple(g1, g0)",
        "  g0 = f32[3] get-tuple-element(p), index=0\n  ROOT r = (f32[3]) tuple(g0)",
        "  g0 = f32[3] get-tuple-element(p), index=0\n  g1 = s32[] get-tuple-element(q), index=1\n"
        "  ROOT r = (f32[3], s32[]) tuple(g0, g1)",
    ],
    ids=["reordered", "partial", "two sources"],
)
def test_tuples_that_do_not_rebuild_one_tuple_stay(body):
    text = entry(body, "  p = (f32[3], s32[]) parameter(0)\n  q = (f32[3], s32[]) parameter(1)")
    module = simplify(text)
    assert "tuple" in ops(module)


def test_layouts_must_match():
    text = entry(
        "  a = (f32[2,2]{1,0}) tuple(x)\n  ROOT g = f32[2,2]{0,1} get-tuple-element(a), index=0",
        "  x = f32[2,2]{1,0} parameter(0)",
    )
    module = parse_module(text)
    assert not TupleSimplifier().run(module)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=1, max_size=5))
def test_random_tuple_nests_resolve_to_their_leaves(path):
    """Wrap x in tuples along ``path`` (its position at each level), then unwrap it."""
    lines, value, shape = [], "x", "f32[3]"
    shapes = {"x": shape}
    for depth, position in enumerate(path):
        elements, element_shapes = ["i"] * 3, ["s32[]"] * 3
        elements[position], element_shapes[position] = value, shape
        value, shape = f"t{depth}", f"({', '.join(element_shapes)})"
        shapes[value] = shape
        lines.append(f"  {value} = {shape} tuple({', '.join(elements)})")
    for depth, position in reversed(list(enumerate(path))):
        inner = shapes["x" if depth == 0 else f"t{depth - 1}"]
        lines.append(f"  u{depth} = {inner} get-tuple-element({value}), index={position}")
        value = f"u{depth}"
    lines.append(f"  ROOT r = f32[3] negate({value})")
    text = entry("\n".join(lines))
    module = simplify(text)
    assert ops(module) == ["parameter", "parameter", "negate"]
    same(text, module, *ARGS)
