"""The rng op on the CPU backend through RngExpander (rng-get-and-update-state, a Philox
rng-bit-generator and arithmetic), and rng-bit-generator through
RngBitGeneratorExpander (the ciphers' integer arithmetic): the interpreter's bits."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

BOUNDS = {
    "f32": [(0.0, 1.0), (-3.5, 2.0), (1.0, 1.0), (2.0, -1.0), (0.0, 1e-45), (-1.0, 0.0)],
    "f64": [(0.0, 1.0), (-1e300, 1e300), (5.0, 5.0)],
    "f16": [(0.0, 1.0), (-2.0, 65504.0)],
    "bf16": [(0.0, 1.0), (-8.0, 0.0)],
    "s32": [(0, 10), (-5, 5), (7, 7), (10, -3), (-(2**31), 2**31 - 1)],
    "u8": [(0, 255), (3, 9), (200, 10)],
    "s8": [(-128, 127), (-3, 4)],
    "s64": [(-(2**62), 2**62), (0, 3)],
    "u32": [(0, 2**32 - 1), (5, 6)],
    "pred": [(False, True), (True, True)],
}


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(BOUNDS)),
    st.lists(st.integers(0, 5), max_size=2),
    st.data(),
    st.integers(0, 2**64 - 1),
)
def test_rng_uniform_gives_the_interpreters_bits(t, dims, data, seed):
    a, b = data.draw(st.sampled_from(BOUNDS[t]))
    shape = f"{t}[{','.join(map(str, dims))}]"
    text = f"""HloModule r
ENTRY e {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  x = {shape} rng(a, b), distribution=rng_uniform
  y = {shape} rng(a, b), distribution=rng_uniform
  ROOT t = ({shape}, {shape}) tuple(x, y)
}}"""
    dtype = {"pred": np.bool_}.get(t) or xlapy.PrimitiveType.from_hlo_name(t).dtype
    args = [np.array(a).astype(dtype), np.array(b).astype(dtype)]
    options = xlapy.CompileOptions(backend_options={"rng_seed": seed})
    cpu = xlapy.local_client("cpu").compile(parse_module(text), options)
    reference = xlapy.local_client("interpreter").compile(parse_module(text), options)
    assert cpu.fallback_ops == []
    for _ in range(2):
        for got, want in zip(cpu(*args), reference(*args), strict=True):
            np.testing.assert_array_equal(
                np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8)
            )


BIT_TYPES = ["u32", "u64", "s32", "s64", "u8", "s8", "u16", "s16", "s4", "u4", "u2"]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["rng_default", "rng_philox", "rng_three_fry"]),
    st.sampled_from([2, 3]),
    st.sampled_from(BIT_TYPES),
    st.lists(st.integers(0, 7), max_size=3),
    st.lists(st.integers(0, 2**64 - 1), min_size=3, max_size=3),
    st.booleans(),
)
def test_rng_bit_generator_gives_the_interpreters_bits(algorithm, words, t, dims, state, edge):
    """Every algorithm, state size, width and shape (odd sizes: three-fry's halves and
    Philox's partial blocks), with counters about to wrap into the high word."""
    if algorithm == "rng_three_fry":
        words = 2
    if edge:  # the low counter word wraps inside the draw
        state[1] = 2**64 - 3
    shape = f"{t}[{','.join(map(str, dims))}]"
    text = f"""HloModule r
ENTRY e {{
  s = u64[{words}] parameter(0)
  ROOT r = (u64[{words}], {shape}) rng-bit-generator(s), algorithm={algorithm}
}}"""
    x = np.array(state[:words], np.uint64)
    cpu = xlapy.local_client("cpu").compile(parse_module(text))
    assert cpu.fallback_ops == []
    for got, want in zip(cpu(x), interpret(text, x), strict=True):
        np.testing.assert_array_equal(
            np.atleast_1d(got).view(np.uint8), np.atleast_1d(want).view(np.uint8)
        )
