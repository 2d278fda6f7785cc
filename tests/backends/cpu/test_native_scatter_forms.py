"""Scatters of every form on the CPU backend (ScatterExpander: a native loop over the scatter
indices), against the interpreter: any window and inserted dimensions, any index map and
index vector dimension, repeated and out-of-bounds indices, several update computations."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

COMBINE = {"add": "add(a, b)", "max": "maximum(a, b)", "assign": "copy(b)", "mul": "multiply(a, b)"}


@st.composite
def scatters(draw):
    dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    rank = len(dims)
    components = draw(st.integers(1, rank))
    to_operand = list(draw(st.permutations(range(rank))))[:components]
    inserted = sorted(draw(st.lists(st.sampled_from(to_operand), unique=True)))
    window = [draw(st.integers(0, dims[d])) for d in range(rank) if d not in inserted]
    count = draw(st.integers(0, 5))
    vector_last = draw(st.booleans())
    index_dims = [count, components] if vector_last else [components, count]
    index_vector_dim = 1 if vector_last else 0
    update_rank = 1 + len(window)
    window_dims = sorted(draw(st.lists(st.sampled_from(range(update_rank)), min_size=len(window),
                                       max_size=len(window), unique=True)))  # fmt: skip
    update_dims, it = [], iter(window)
    for k in range(update_rank):
        update_dims.append(next(it) if k in window_dims else count)
    combine = draw(st.sampled_from(sorted(COMBINE)))
    t = draw(st.sampled_from(["f32", "s32", "u8"]))
    text = f"""HloModule s
combine {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT r = {t}[] {COMBINE[combine]}
}}
ENTRY e {{
  x = {t}[{",".join(map(str, dims))}] parameter(0)
  i = s32[{",".join(map(str, index_dims))}] parameter(1)
  u = {t}[{",".join(map(str, update_dims))}] parameter(2)
  ROOT y = {t}[{",".join(map(str, dims))}] scatter(x, i, u), update_window_dims={{{",".join(map(str, window_dims))}}}, inserted_window_dims={{{",".join(map(str, inserted))}}}, scatter_dims_to_operand_dims={{{",".join(map(str, to_operand))}}}, index_vector_dim={index_vector_dim}, to_apply=combine
}}"""
    return text, t, dims, index_dims, update_dims, max(dims)


@settings(max_examples=40, deadline=None)
@given(scatters(), st.integers(0, 2**32 - 1))
def test_every_scatter_form_matches_the_interpreter(case, seed):
    text, t, dims, index_dims, update_dims, biggest = case
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(t).dtype
    x = rng.integers(0, 9, dims).astype(dtype)
    indices = rng.integers(-1, biggest + 1, index_dims).astype(np.int32)  # some out of bounds
    updates = rng.integers(0, 9, update_dims).astype(dtype)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(
        executable(x, indices, updates), interpret(text, x, indices, updates)
    )
