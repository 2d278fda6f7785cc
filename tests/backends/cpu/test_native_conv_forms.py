"""Every form of convolution on the CPU backend (ConvolutionCanonicalizer): random dimension
labels, one or two spatial dimensions, strides, padding (negative too), both dilations,
window reversal, feature and batch groups, float and integer types - against the
interpreter, with no fallback."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module

TYPES = [("f32", "f32"), ("f64", "f64"), ("bf16", "bf16"), ("f16", "f32"), ("s32", "s32"),
         ("s8", "s32"), ("s64", "s64")]  # fmt: skip


@st.composite
def convolutions(draw):
    spatial = draw(st.integers(1, 2))
    in_type, out_type = draw(st.sampled_from(TYPES))
    grouping = draw(st.sampled_from(["none", "feature", "batch"]))
    groups = draw(st.integers(2, 3)) if grouping != "none" else 1
    per_in, per_out, batch = (draw(st.integers(1, 2)) for _ in range(3))
    c_in = per_in * (groups if grouping == "feature" else 1)
    o = per_out * groups
    n = batch * (groups if grouping == "batch" else 1)
    sizes, kernel, window = [], [], []
    out_sizes = []
    for _ in range(spatial):
        size, k = draw(st.integers(1, 6)), draw(st.integers(1, 3))
        stride, lhs_d, rhs_d = (draw(st.integers(1, 2)) for _ in range(3))
        lo, hi = draw(st.integers(-1, 2)), draw(st.integers(-1, 2))
        padded = (size - 1) * lhs_d + 1 + lo + hi
        span = (k - 1) * rhs_d + 1
        if padded < span:
            lo = hi = span  # make it fit
            padded = (size - 1) * lhs_d + 1 + lo + hi
        sizes.append(size)
        kernel.append(k)
        out_sizes.append((padded - span) // stride + 1)
        window.append((k, stride, lo, hi, lhs_d, rhs_d, draw(st.booleans())))
    digits = "01"[:spatial]
    lhs = list(draw(st.permutations(["b", "f", *digits])))
    rhs = list(draw(st.permutations(["i", "o", *digits])))
    out = list(draw(st.permutations(["b", "f", *digits])))
    lhs_sizes = {"b": n, "f": c_in, **{str(i): s for i, s in enumerate(sizes)}}
    rhs_sizes = {"i": per_in, "o": o, **{str(i): k for i, k in enumerate(kernel)}}
    out_sizes_map = {"b": n // (groups if grouping == "batch" else 1), "f": o,
                     **{str(i): s for i, s in enumerate(out_sizes)}}  # fmt: skip
    text = f"""HloModule c
ENTRY e {{
  x = {in_type}[{','.join(str(lhs_sizes[c]) for c in lhs)}] parameter(0)
  w = {in_type}[{','.join(str(rhs_sizes[c]) for c in rhs)}] parameter(1)
  ROOT y = {out_type}[{','.join(str(out_sizes_map[c]) for c in out)}] convolution(x, w), window={{size={'x'.join(str(t[0]) for t in window)} stride={'x'.join(str(t[1]) for t in window)} pad={'x'.join(f'{t[2]}_{t[3]}' for t in window)} lhs_dilate={'x'.join(str(t[4]) for t in window)} rhs_dilate={'x'.join(str(t[5]) for t in window)} rhs_reversal={'x'.join(str(int(t[6])) for t in window)}}}, dim_labels={''.join(lhs)}_{''.join(rhs)}->{''.join(out)}, feature_group_count={groups if grouping == 'feature' else 1}, batch_group_count={groups if grouping == 'batch' else 1}
}}"""
    shapes = ([lhs_sizes[c] for c in lhs], [rhs_sizes[c] for c in rhs])
    return text, in_type, shapes


@settings(max_examples=40, deadline=None)
@given(convolutions(), st.integers(0, 2**32 - 1))
def test_every_convolution_form_matches_the_interpreter(case, seed):
    text, in_type, (x_shape, w_shape) = case
    rng = np.random.default_rng(seed)
    dtype = xlapy.PrimitiveType.from_hlo_name(in_type).dtype
    x = rng.integers(-3, 4, x_shape).astype(dtype)
    w = rng.integers(-3, 4, w_shape).astype(dtype)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    # Small integers: every sum is exact in every type, so the results agree exactly.
    np.testing.assert_array_equal(executable(x, w), interpret(text, x, w))
