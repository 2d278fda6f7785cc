"""Sorts along any dimension on the CPU backend (SortDimensionMover: transposes around a
row sort), against the interpreter: several operands, stability, every dimension."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.integers(0, 5), min_size=1, max_size=3),
    st.data(),
    st.sampled_from(["f32", "s32", "bf16"]),
    st.booleans(),
    st.sampled_from(["LT", "GT"]),
    st.integers(0, 2**32 - 1),
)
def test_sort_along_any_dimension_matches_the_interpreter(dims, data, t, layout, direction, seed):
    dim = data.draw(st.integers(0, len(dims) - 1))
    shape = f"[{','.join(map(str, dims))}]"
    order = "{" + ",".join(map(str, range(len(dims)))) + "}" if layout else ""
    kind = ", type=TOTALORDER" if t != "s32" else ""
    text = f"""HloModule s
cmp {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction={direction}{kind}
}}
ENTRY e {{
  x = {t}{shape}{order} parameter(0)
  p = s32{shape} iota(), iota_dimension={dim}
  ROOT s = ({t}{shape}, s32{shape}) sort(x, p), dimensions={{{dim}}}, is_stable=true, to_apply=cmp
}}"""
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(t).dtype
    x = rng.integers(-3, 4, dims).astype(dtype)  # repeated keys: stability shows
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    for got, want in zip(executable(x), interpret(text, x), strict=True):
        np.testing.assert_array_equal(got, want)
