"""Constant folding: instructions of constants become constants with the interpreter's
values (INT_MIN / -1, NaN, -0.0, rounding of narrow types); broadcasts, iotas, random
numbers, side effects and device-dependent values are not folded."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy.passes.simplify.constant_folding as constant_folding
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.passes import run_passes
from xlapy.passes.simplify.constant_folding import ConstantFolding
from xlapy.passes.simplify.dce import DeadCodeElimination


def fold(text: str):
    module = parse_module(text)
    run_passes(module, [ConstantFolding(), DeadCodeElimination()], verify=True)
    module.verify()
    return module


def ops(module) -> list[str]:
    return [i.opcode.value for i in module.entry.post_order()]


def assert_bits(got, want) -> None:
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            assert_bits(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape
    if g.dtype.kind == "f":
        nan = np.isnan(w)
        np.testing.assert_array_equal(np.isnan(g), nan)
        np.testing.assert_array_equal(g[~nan].view(np.uint8), w[~nan].view(np.uint8))
    else:
        np.testing.assert_array_equal(g, w)


FOLDED = [
    ("s32[3] constant({-2147483648, 7, 5})", "s32[3] constant({-1, 0, -2})", "divide", "s32[3]"),
    ("s32[3] constant({-2147483648, 7, 5})", "s32[3] constant({-1, 0, -2})", "remainder", "s32[3]"),
    ("f32[4] constant({0, -0, inf, nan})", "f32[4] constant({-0, -0, -inf, 1})", "add", "f32[4]"),
    ("f32[4] constant({0, -0, inf, 1})", "f32[4] constant({0, 0, 0, 0})", "divide", "f32[4]"),
    ("bf16[3] constant({1, 0.0078125, 3})", "bf16[3] constant({0.00390625, 1, 3})", "add", "bf16[3]"),
    ("u8[3] constant({255, 0, 7})", "u8[3] constant({1, 1, 9})", "add", "u8[3]"),
    ("s8[3] constant({-128, 5, 3})", "s8[3] constant({9, 1, 7})", "shift-left", "s8[3]"),
    ("f16[2] constant({65504, -65504})", "f16[2] constant({65504, -65504})", "add", "f16[2]"),
]  # fmt: skip


@pytest.mark.parametrize("a,b,op,shape", FOLDED)
def test_binary_ops_of_constants_fold_to_the_interpreters_value(a, b, op, shape):
    text = f"HloModule t\nENTRY e {{\n  a = {a}\n  b = {b}\n  ROOT r = {shape} {op}(a, b)\n}}"
    module = fold(text)
    assert ops(module) == ["constant"]
    assert module.entry.root.name == "r"
    assert_bits(run(module), run(text))


def test_folding_propagates_through_chains_and_keeps_layouts():
    text = """HloModule t
ENTRY e {
  c = f32[2,3]{0,1} constant({{1, 2, 3}, {4, 5, 6}})
  t = f32[3,2]{0,1} transpose(c), dimensions={1,0}
  n = f32[3,2]{0,1} negate(t)
  x = f32[3,2]{0,1} parameter(0)
  ROOT r = f32[3,2]{0,1} add(n, x)
}"""
    module = fold(text)
    assert sorted(ops(module)) == ["add", "constant", "parameter"]
    folded = module.entry.root.operand(0)
    assert folded.shape == module.entry.root.shape
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert_bits(run(module, x), run(text, x))


def test_reduce_and_gte_of_a_tuple_constant_fold():
    text = """HloModule t
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
ENTRY e {
  c = f32[4] constant({1, 2, -0.5, 8})
  z = f32[] constant(0)
  r = f32[] reduce(c, z), dimensions={0}, to_apply=add
  t = (s32[], f32[2]) constant((7, {1, 2}))
  g = f32[2] get-tuple-element(t), index=1
  ROOT out = (f32[], f32[2]) tuple(r, g)
}"""
    module = fold(text)
    assert ops(module) == ["constant", "constant", "tuple"]
    assert [c.name for c in module.computations] == ["e"]
    assert_bits(run(module), run(text))


NOT_FOLDED = {
    "broadcast of a scalar": ("  c = f32[] constant(1)\n  ROOT r = f32[100] broadcast(c), dimensions={}", "broadcast"),
    "broadcast that grows": ("  c = f32[2] constant({1, 2})\n  ROOT r = f32[50,2] broadcast(c), dimensions={1}", "broadcast"),
    "iota": ("  ROOT r = s32[10] iota(), iota_dimension=0", "iota"),
    "rng": ("  lo = f32[] constant(0)\n  hi = f32[] constant(1)\n  ROOT r = f32[4] rng(lo, hi), distribution=rng_uniform", "rng"),
    "replica-id": ("  ROOT r = u32[] replica-id()", "replica-id"),
    "custom-call": ('  c = f32[2] constant({1, 2})\n  ROOT r = f32[2] custom-call(c), custom_call_target="f"', "custom-call"),
    "after-all": ("  ROOT r = token[] after-all()", "after-all"),
}  # fmt: skip


@pytest.mark.parametrize("body,kept", list(NOT_FOLDED.values()), ids=list(NOT_FOLDED))
def test_not_folded(body, kept):
    module = parse_module(f"HloModule t\nENTRY e {{\n{body}\n}}")
    assert not ConstantFolding().run(module)
    assert kept in ops(module)


def test_results_above_the_size_limit_are_not_folded(monkeypatch):

    monkeypatch.setattr(constant_folding, "MAX_ELEMENTS", 3)
    text = "HloModule t\nENTRY e {\n  c = f32[4] constant({1, 2, 3, 4})\n  ROOT r = f32[4] negate(c)\n}"
    assert not ConstantFolding().run(parse_module(text))
    small = text.replace("f32[4]", "f32[3]").replace("1, 2, 3, 4", "1, 2, 3")
    assert ConstantFolding().run(parse_module(small))


def test_a_broadcast_that_only_adds_unit_dimensions_folds():
    text = """HloModule t
ENTRY e {
  c = f32[3] constant({1, -0, 3})
  ROOT r = f32[1,3,1] broadcast(c), dimensions={1}
}"""
    module = fold(text)
    assert ops(module) == ["constant"]
    assert_bits(run(module), run(text))


def test_side_effects_and_parameters_block_folding():
    text = """HloModule t
ENTRY e {
  x = f32[2] parameter(0)
  c = f32[2] constant({1, 2})
  n = f32[2] negate(c), control-predecessors={x}
  ROOT r = f32[2] add(x, n)
}"""
    module = parse_module(text)
    assert not ConstantFolding().run(module)


UNARY = ["negate", "abs", "exponential", "log", "sqrt", "floor", "sign", "tanh", "cosine"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(UNARY),
    st.sampled_from(["f32", "f64", "f16", "bf16"]),
    st.lists(
        st.sampled_from([0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan, 1e-40, 6e4]),
        min_size=1,
        max_size=6,
    ),
)
def test_folded_unary_ops_give_the_interpreters_bits(op, et, values):
    literal = ", ".join(
        "nan" if np.isnan(v) else ("-0" if v == 0 and np.signbit(v) else repr(v)) for v in values
    )
    literal = literal.replace("inf", "inf")
    n = len(values)
    text = f"HloModule t\nENTRY e {{\n  c = {et}[{n}] constant({{{literal}}})\n  ROOT r = {et}[{n}] {op}(c)\n}}"
    module = fold(text)
    assert ops(module) == ["constant"]
    want = np.asarray(run(text))
    got = np.asarray(run(module))
    wide_w, wide_g = want.astype(np.float64), got.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(wide_g), np.isnan(wide_w))
    keep = ~np.isnan(wide_w)
    np.testing.assert_array_equal(np.signbit(wide_g[keep]), np.signbit(wide_w[keep]))
    np.testing.assert_array_equal(wide_g[keep], wide_w[keep])
