"""select-and-scatter on the CPU backend (SelectAndScatterExpander: a variadic reduce-window
that selects, then a scatter), against the interpreter: ties, padding-only windows,
overlapping windows, any select direction."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module


@st.composite
def cases(draw):
    rank = draw(st.integers(1, 3))
    dims, sizes, strides, pads, out = [], [], [], [], []
    for _ in range(rank):
        n, k, s = draw(st.integers(1, 5)), draw(st.integers(1, 3)), draw(st.integers(1, 2))
        lo, hi = draw(st.integers(0, 2)), draw(st.integers(0, 2))
        if n + lo + hi < k:
            hi += k
        dims.append(n)
        sizes.append(k)
        strides.append(s)
        pads.append((lo, hi))
        out.append((n + lo + hi - k) // s + 1)
    t = draw(st.sampled_from(["f32", "s32", "bf16"]))
    direction = draw(st.sampled_from(["GE", "GT", "LE", "LT"]))
    text = f"""HloModule s
select {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = pred[] compare(a, b), direction={direction}
}}
scatter {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = {t}[] add(a, b)
}}
ENTRY e {{
  x = {t}[{",".join(map(str, dims))}] parameter(0)
  s = {t}[{",".join(map(str, out))}] parameter(1)
  i = {t}[] parameter(2)
  ROOT y = {t}[{",".join(map(str, dims))}] select-and-scatter(x, s, i), window={{size={"x".join(map(str, sizes))} stride={"x".join(map(str, strides))} pad={"x".join(f"{lo}_{hi}" for lo, hi in pads)}}}, select=select, scatter=scatter
}}"""
    return text, t, dims, out


@settings(max_examples=40, deadline=None)
@given(cases(), st.integers(0, 2**32 - 1))
def test_select_and_scatter_matches_the_interpreter(case, seed):
    text, t, dims, out = case
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(t).dtype
    x = rng.integers(-2, 3, dims).astype(dtype)  # many ties: the selection order shows
    source = rng.integers(1, 5, out).astype(dtype)
    init = np.array(rng.integers(-1, 2)).astype(dtype)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(executable(x, source, init), interpret(text, x, source, init))
