"""ragged-dot on the CPU backend through RaggedDotExpander (masked dots), against the
interpreter, over random group sizes (empty groups, groups past the end), modes and types."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

TYPES = {"f32": np.float32, "s32": np.int32, "f64": np.float64, "bf16": None}


def _values(rng, dtype_name, shape):
    values = rng.integers(-4, 5, shape)
    if dtype_name == "bf16":
        import ml_dtypes

        return values.astype(ml_dtypes.bfloat16)
    return values.astype(TYPES[dtype_name])


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["non-contracting", "contracting", "batch"]),
    st.sampled_from(["f32", "s32", "f64", "bf16"]),
    st.integers(0, 7),
    st.integers(1, 4),
    st.integers(1, 4),
    st.lists(st.integers(0, 4), min_size=1, max_size=4),
)
def test_ragged_dot_matches_the_interpreter(mode, dtype, m, k, n, sizes):
    groups = len(sizes)
    out = "f32" if dtype == "bf16" else dtype
    if mode == "non-contracting":
        shapes = (f"{dtype}[{m},{k}]", f"{dtype}[{groups},{k},{n}]", f"{out}[{m},{n}]")
        dims = "lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}"
        lhs_shape, rhs_shape = (m, k), (groups, k, n)
    elif mode == "contracting":
        k = max(k, m)
        shapes = (f"{dtype}[{n},{k}]", f"{dtype}[{k},{m}]", f"{out}[{groups},{n},{m}]")
        dims = "lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}"
        lhs_shape, rhs_shape = (n, k), (k, m)
    else:
        shapes = (f"{dtype}[{groups},{m},{k}]", f"{dtype}[{groups},{k},{n}]", f"{out}[{groups},{m},{n}]")
        dims = ("lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_batch_dims={0}, "
                "rhs_batch_dims={0}, lhs_ragged_dims={0}")  # fmt: skip
        lhs_shape, rhs_shape = (groups, m, k), (groups, k, n)
    text = f"""HloModule r
ENTRY e {{
  a = {shapes[0]} parameter(0)
  b = {shapes[1]} parameter(1)
  s = s32[{groups}] parameter(2)
  ROOT d = {shapes[2]} ragged-dot(a, b, s), {dims}
}}"""
    rng = np.random.default_rng(m * 100 + k * 10 + n)
    args = [_values(rng, dtype, lhs_shape), _values(rng, dtype, rhs_shape), np.int32(sizes)]
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(executable(*args), interpret(text, *args))


@settings(max_examples=15, deadline=None)
@given(
    st.integers(1, 4), st.integers(1, 3), st.integers(1, 4), st.sampled_from([1, 2, 4]),
    st.sampled_from(["f32", "bf16", "f8e4m3fn"]),
)  # fmt: skip
def test_scaled_dot_matches_the_interpreter(m, blocks, n, block, dtype):
    k = blocks * block
    text = f"""HloModule s
ENTRY e {{
  a = {dtype}[{m},{k}] parameter(0)
  b = {dtype}[{k},{n}] parameter(1)
  sa = f32[{m},{blocks}] parameter(2)
  sb = f32[{blocks},{n}] parameter(3)
  ROOT d = f32[{m},{n}] scaled-dot(a, b, sa, sb), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}"""
    import ml_dtypes

    np_type = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f8e4m3fn": ml_dtypes.float8_e4m3fn}
    rng = np.random.default_rng(m * 31 + k * 7 + n)
    args = [
        rng.integers(-4, 5, (m, k)).astype(np_type[dtype]),
        rng.integers(-4, 5, (k, n)).astype(np_type[dtype]),
        rng.choice([0.5, 1.0, 2.0, 0.25], (m, blocks)).astype(np.float32),
        rng.choice([0.5, 1.0, 4.0], (blocks, n)).astype(np.float32),
    ]
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    np.testing.assert_array_equal(executable(*args), interpret(text, *args))
