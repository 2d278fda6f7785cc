"""bitcast-convert on the CPU backend, natively, against the interpreter: equal widths,
splitting wide elements and packing narrow ones, sub-byte types included."""

from __future__ import annotations

import ml_dtypes  # noqa: F401  (registers the narrow numpy dtypes)
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.backends.interpreter import run as interpret
from xlapy.hlo import parse_module
from xlapy.types import PrimitiveType

TYPES = [
    "s4", "u4", "s8", "u8", "s16", "u16", "f16", "bf16", "s32", "u32", "f32", "s64", "u64",
    "f64", "f8e4m3fn", "f8e5m2", "u2", "s2", "f4e2m1fn",
]  # fmt: skip
WIDTH = {name: PrimitiveType.from_hlo_name(name).bit_width for name in TYPES}


def _random_bits(rng: np.random.Generator, name: str, shape: tuple[int, ...]) -> np.ndarray:
    dtype = PrimitiveType.from_hlo_name(name).dtype
    width = WIDTH[name]
    raw = rng.integers(0, 1 << min(width, 63), shape, dtype=np.uint64, endpoint=False)
    if width >= 8:
        return raw.astype(f"u{width // 8}").view(dtype)
    # sub-byte: ml_dtypes builds the value from the low bits of an integer pattern
    if np.dtype(dtype).kind == "f":
        return raw.astype(np.uint8).view(dtype)
    signed = np.dtype(dtype).kind == "i"
    values = raw.astype(np.int64)
    if signed:
        values = np.where(values >= 1 << (width - 1), values - (1 << width), values)
    return values.astype(dtype)


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(TYPES),
    st.sampled_from(TYPES),
    st.lists(st.integers(0, 4), min_size=0, max_size=2),
    st.integers(0, 2**32 - 1),
)
def test_bitcast_convert_matches_the_interpreter(src, dst, leading, seed):
    ws, wd = WIDTH[src], WIDTH[dst]
    if ws > wd:
        in_dims, out_dims = list(leading), [*leading, ws // wd]
    elif ws < wd:
        in_dims, out_dims = [*leading, wd // ws], list(leading)
    else:
        in_dims = out_dims = list(leading)
    x = _random_bits(np.random.default_rng(seed), src, tuple(in_dims))
    shape_in = f"{src}[{','.join(map(str, in_dims))}]"
    shape_out = f"{dst}[{','.join(map(str, out_dims))}]"
    text = f"""HloModule b
ENTRY e {{
  x = {shape_in} parameter(0)
  ROOT y = {shape_out} bitcast-convert(x)
}}"""
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    got, want = executable(x), interpret(text, x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(
        np.atleast_1d(got).view(np.uint8), np.atleast_1d(np.asarray(want)).view(np.uint8)
    )


BYTE_TYPES = ["s8", "u8", "s16", "f16", "bf16", "s32", "u32", "f32", "s64", "f64"]


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(BYTE_TYPES),
    st.sampled_from(BYTE_TYPES),
    st.integers(1, 3),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_type_changing_bitcast_reinterprets_the_bytes(src, dst, rows, src_major, dst_major, seed):
    """XLA's bitcast may change the element type when the byte size stays (optimized HLO
    has them); with layouts, the bytes are read in physical order."""
    ws, wd = WIDTH[src] // 8, WIDTH[dst] // 8  # each row holds 8 bytes
    in_dims, out_dims = (rows, 8 // ws), (rows, 8 // wd)
    src_layout = "{0,1}" if src_major else "{1,0}"
    dst_layout = "{0,1}" if dst_major else "{1,0}"
    text = f"""HloModule b
ENTRY e {{
  x = {src}[{in_dims[0]},{in_dims[1]}]{src_layout} parameter(0)
  ROOT y = {dst}[{out_dims[0]},{out_dims[1]}]{dst_layout} bitcast(x)
}}"""
    x = _random_bits(np.random.default_rng(seed), src, in_dims)
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    got, want = executable(x), interpret(text, x)
    np.testing.assert_array_equal(
        np.ascontiguousarray(got).view(np.uint8), np.ascontiguousarray(want).view(np.uint8)
    )
