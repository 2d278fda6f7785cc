"""Gathers and scatters with batching dimensions on the CPU backend
(BatchedGatherScatterNormalizer, then the expanders), against the interpreter: the batch
dimension anywhere in the operand and the indices, any window, out-of-range starts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module


def _list(values) -> str:
    return ",".join(map(str, values))


@st.composite
def batched_forms(draw):
    rest = draw(st.lists(st.integers(1, 4), min_size=1, max_size=2))
    batch = draw(st.integers(1, 3))
    ob = draw(st.integers(0, len(rest)))
    dims = [*rest[:ob], batch, *rest[ob:]]
    others = [d for d in range(len(dims)) if d != ob]
    components = draw(st.integers(1, len(others)))
    start_map = list(draw(st.permutations(others)))[:components]
    collapsed = sorted(draw(st.lists(st.sampled_from(start_map), unique=True)))
    sizes = [
        1 if d in collapsed or d == ob else draw(st.integers(0, dims[d])) for d in range(len(dims))
    ]
    count = draw(st.integers(0, 3))
    ib = draw(st.integers(0, 1))
    index_dims = [batch, count, components] if ib == 0 else [count, batch, components]
    window = [sizes[d] for d in range(len(dims)) if d not in collapsed and d != ob]
    out_rank = 2 + len(window)
    offset_dims = sorted(
        draw(st.lists(st.sampled_from(range(out_rank)), min_size=len(window),
                      max_size=len(window), unique=True))
    )  # fmt: skip
    batch_dims = iter(index_dims[:2])
    window_dims = iter(window)
    out = [next(window_dims) if k in offset_dims else next(batch_dims) for k in range(out_rank)]
    return dims, ob, start_map, collapsed, sizes, index_dims, ib, offset_dims, out


def _inputs(seed, dims, index_dims):
    rng = np.random.default_rng(seed)
    x = rng.integers(-9, 9, dims).astype(np.float32)
    indices = rng.integers(-1, max(dims) + 1, index_dims).astype(np.int32)
    return rng, x, indices


@settings(max_examples=40, deadline=None)
@given(batched_forms(), st.integers(0, 2**32 - 1))
def test_batched_gathers_match_the_interpreter(form, seed):
    dims, ob, start_map, collapsed, sizes, index_dims, ib, offset_dims, out = form
    text = f"""HloModule g
ENTRY e {{
  x = f32[{_list(dims)}] parameter(0)
  i = s32[{_list(index_dims)}] parameter(1)
  ROOT y = f32[{_list(out)}] gather(x, i), offset_dims={{{_list(offset_dims)}}}, collapsed_slice_dims={{{_list(collapsed)}}}, start_index_map={{{_list(start_map)}}}, operand_batching_dims={{{ob}}}, start_indices_batching_dims={{{ib}}}, index_vector_dim=2, slice_sizes={{{_list(sizes)}}}
}}"""
    _, x, indices = _inputs(seed, dims, index_dims)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(executable(x, indices), interpret(text, x, indices))


@settings(max_examples=40, deadline=None)
@given(batched_forms(), st.integers(0, 2**32 - 1))
def test_batched_scatters_match_the_interpreter(form, seed):
    dims, ob, start_map, collapsed, sizes, index_dims, ib, offset_dims, out = form
    text = f"""HloModule s
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[{_list(dims)}] parameter(0)
  i = s32[{_list(index_dims)}] parameter(1)
  u = f32[{_list(out)}] parameter(2)
  ROOT y = f32[{_list(dims)}] scatter(x, i, u), update_window_dims={{{_list(offset_dims)}}}, inserted_window_dims={{{_list(collapsed)}}}, scatter_dims_to_operand_dims={{{_list(start_map)}}}, input_batching_dims={{{ob}}}, scatter_indices_batching_dims={{{ib}}}, index_vector_dim=2, to_apply=add
}}"""
    rng, x, indices = _inputs(seed, dims, index_dims)
    updates = rng.integers(-9, 9, out).astype(np.float32)  # small integers: sums are exact
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(
        executable(x, indices, updates), interpret(text, x, indices, updates)
    )
