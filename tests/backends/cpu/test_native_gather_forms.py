"""Gathers of every form on the CPU backend (GatherExpander: a native loop of dynamic slices),
against the interpreter: any offset, collapsed and start-index-map dimensions, either index
vector dimension, clamped out-of-range starts, empty results."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module


@st.composite
def gathers(draw):
    dims = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    rank = len(dims)
    components = draw(st.integers(1, rank))
    start_map = list(draw(st.permutations(range(rank))))[:components]
    collapsed = sorted(draw(st.lists(st.sampled_from(start_map), unique=True)))
    sizes = [1 if d in collapsed else draw(st.integers(0, dims[d])) for d in range(rank)]
    count = draw(st.integers(0, 5))
    vector_last = draw(st.booleans())
    index_dims = [count, components] if vector_last else [components, count]
    window = [sizes[d] for d in range(rank) if d not in collapsed]
    out_rank = 1 + len(window)
    offset_dims = sorted(draw(st.lists(st.sampled_from(range(out_rank)), min_size=len(window),
                                       max_size=len(window), unique=True)))  # fmt: skip
    out, it = [], iter(window)
    for k in range(out_rank):
        out.append(next(it) if k in offset_dims else count)
    t = draw(st.sampled_from(["f32", "s8", "f64"]))
    text = f"""HloModule g
ENTRY e {{
  x = {t}[{",".join(map(str, dims))}] parameter(0)
  i = s32[{",".join(map(str, index_dims))}] parameter(1)
  ROOT y = {t}[{",".join(map(str, out))}] gather(x, i), offset_dims={{{",".join(map(str, offset_dims))}}}, collapsed_slice_dims={{{",".join(map(str, collapsed))}}}, start_index_map={{{",".join(map(str, start_map))}}}, index_vector_dim={1 if vector_last else 0}, slice_sizes={{{",".join(map(str, sizes))}}}
}}"""
    return text, t, dims, index_dims, max(dims)


@settings(max_examples=40, deadline=None)
@given(gathers(), st.integers(0, 2**32 - 1))
def test_every_gather_form_matches_the_interpreter(case, seed):
    text, t, dims, index_dims, biggest = case
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(t).dtype
    x = rng.integers(-9, 9, dims).astype(dtype)
    indices = rng.integers(-2, biggest + 2, index_dims).astype(np.int32)  # clamped ones too
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(executable(x, indices), interpret(text, x, indices))
