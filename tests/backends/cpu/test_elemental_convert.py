"""``elemental``'s type changes against the interpreter, bit for bit (any NaN equals any
NaN for convert; bitcast-convert exactly): convert between every pair of non-complex
types, bitcast-convert between every pair of equal width, reduce-precision of every float
type to several formats, stochastic-convert, and XLA's conversion rules spelled out."""

from __future__ import annotations

import pathlib
import sys

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from elemental_harness import (  # noqa: E402
    FLOATS,
    INTS,
    REAL_TYPES,
    P,
    check,
    float_edges,
    ids,
    int_edges,
    prepare,
    random_floats,
    random_ints,
    unsigned,
)


def int_values(et):
    """Edges, random values and integers next to float rounding boundaries."""
    if et.is_pred:
        return np.array([False, True, True, False])
    info = ml_dtypes.iinfo(et.dtype)
    near = [2**11 + 1, 2**24 + 1, 2**24 + 3, 2**25 - 1, 2**53 + 1, 2**62 + 2**38 + 1, 65519]
    near += [65520, 57343, 61439, 61440, 241, 464, 465, 2**31 - 1, 2**63 - 2**39 - 1]
    near = [s * v for v in near for s in (1, -1)]
    fits = [v for v in near if int(info.min) <= v <= int(info.max)]
    return np.concatenate(
        [int_edges(et), np.array(fits, dtype=object).astype(et.dtype), random_ints(et, 500, 5)]
    )


def values_of(et):
    if et.is_float:
        return np.concatenate([float_edges(et), random_floats(et, 4000, 6)])
    return int_values(et)


@pytest.mark.parametrize("src", REAL_TYPES, ids=ids)
def test_convert_to_every_type(src):
    prepare(("convert", (src,), dst, "") for dst in REAL_TYPES)
    x = values_of(src)
    for dst in REAL_TYPES:
        check("convert", x, out=dst, context=f"from {src.hlo_name}")


def test_convert_rules_spelled_out():
    # f64 -> f16 rounds through f32 (twice); f64 -> f8 once.
    tie = 1.0 + 2.0**-11  # an f16 tie; just above it in f64 rounds to the tie in f32
    above = np.array([tie + 2.0**-40])
    assert check("convert", above, out=P.F16).astype(np.float64).tolist() == [1.0]
    e4m3 = check("convert", np.array([1.0 + 2.0**-4 + 2.0**-40]), out=P.F8E4M3FN)
    assert e4m3.astype(np.float64).tolist() == [1.125]
    # f64 -> f8e8m0fnu: NaN below 2^-127, the lowest binade rounds up, 1.5 rounds up.
    x = np.array([2.0**-128, 2.0**-127, 1.2 * 2.0**-127, 1.4999999, 1.5, 3.0, 2.0**128, 0.0])
    e8m0 = check("convert", x, out=P.F8E8M0FNU).astype(np.float64)
    assert np.isnan(e8m0[[0, 6, 7]]).all()
    assert e8m0[1:6].tolist() == [2.0**-127, 2.0**-126, 1.0, 2.0, 4.0]
    # NaN -> f4e2m1fn is -0; +-6 saturates like an infinity when converted to integers.
    f4 = check("convert", np.array([np.nan, -np.nan, 100.0], np.float32), out=P.F4E2M1FN)
    assert unsigned(f4).tolist() == [0x8, 0x8, 0x7]
    six = np.array([6.0, -6.0, 4.0], ml_dtypes.float4_e2m1fn)
    assert check("convert", six, out=P.S8).tolist() == [127, -128, 4]
    # float -> int truncates, saturates, NaN -> 0.
    f = np.array([2.9, -2.9, np.nan, 1e10, -1e10, np.inf, -0.5], np.float32)
    assert check("convert", f, out=P.S32).tolist() == [2, -2, 0, 2**31 - 1, -(2**31), 2**31 - 1, 0]
    assert check("convert", f, out=P.U8).tolist() == [2, 0, 0, 255, 0, 255, 0]
    assert check("convert", f, out=P.S4).tolist() == [2, -2, 0, 7, -8, 7, 0]
    # e4m3fn has no infinity (overflow is NaN), e5m2 does; ties go to even.
    g = np.array([1e5, np.inf, 464.0, 465.0], np.float32)
    fn = check("convert", g, out=P.F8E4M3FN).astype(np.float32)
    assert np.isnan(fn[[0, 1, 3]]).all() and fn[2] == 448
    assert check("convert", g[:2], out=P.F8E5M2).astype(np.float32).tolist() == [np.inf] * 2
    # integers wrap; s4 -> s32 sign-extends.
    s32 = np.array([300, -129, 2**31 - 1], np.int32)
    assert check("convert", s32, out=P.S8).tolist() == [44, 127, -1]
    assert check("convert", np.array([-8, 7], ml_dtypes.int4), out=P.S32).tolist() == [-8, 7]
    # int -> bf16 rounds through f32 (twice): 2^24 + 2^16 + 1 is above bf16's tie.
    big = np.array([2**24 + 2**16 + 1, 2**33 + 2**25 + 1], np.int64)
    assert check("convert", big, out=P.BF16).astype(np.float64).tolist() == [2**24, 2**33]


@pytest.mark.parametrize("width", [4, 8, 16, 32, 64])
def test_bitcast_convert_between_equal_widths(width):
    types = [t for t in INTS + FLOATS if t.bit_width == width]
    prepare(("bitcast-convert", (s,), d, "") for s in types for d in types)
    for src in types:
        x = values_of(src)
        for dst in types:
            check("bitcast-convert", x, out=dst, bits=True)


FORMATS = [(5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (11, 52), (3, 1), (8, 0), (2, 1), (1, 0)]


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_reduce_precision(et):
    attrs = [f", exponent_bits={e}, mantissa_bits={m}" for e, m in FORMATS]
    prepare(("reduce-precision", (et,), et, a) for a in attrs)
    x = values_of(et)
    for a in attrs:
        check("reduce-precision", x, attrs=a)


STOCHASTIC = [(P.U8, P.S8), (P.U32, P.S32), (P.U64, P.S64), (P.U16, P.U64), (P.U4, P.S4)]


@pytest.mark.parametrize("src", FLOATS, ids=ids)
def test_stochastic_convert(src):
    prepare(("stochastic-convert", (src, r), d, "") for r, d in STOCHASTIC)
    x = values_of(src)
    for random_type, dst in STOCHASTIC:
        for seed in (7, 8):
            r = random_ints(random_type, x.size, seed)
            check("stochastic-convert", x, r, out=dst)


def test_stochastic_convert_spelled_out():
    x = np.array([1.25, 1.25, -1.25, -1.25, np.nan, np.inf, -1e10, 127.5, 2.0, -0.0], np.float32)
    quarter = 2**30  # 0.25 of 2^32
    r = np.array([quarter - 1, quarter, quarter - 1, quarter, 0, 0, 0, 0, 0, 0], np.uint32)
    assert check("stochastic-convert", x, r, out=P.S8).tolist() == [
        2, 1, -2, -1, 0, 127, -128, 127, 2, 0,
    ]  # fmt: skip


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from([P.F32, P.F64]),
    st.sampled_from([P.S8, P.S32, P.U32, P.S64, P.U64, P.F16, P.BF16, P.F8E4M3FN, P.F8E5M2]),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=70),
)
def test_random_float_conversions(src, dst, values):
    with np.errstate(all="ignore"):
        check("convert", np.array(values).astype(src.dtype), out=dst)


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from([P.S64, P.U64, P.S32]),
    st.sampled_from([P.F32, P.F16, P.BF16, P.F64, P.F8E4M3FN, P.S4, P.U16]),
    st.lists(st.integers(-(2**63), 2**64 - 1), min_size=1, max_size=70),
)
def test_random_integer_conversions(src, dst, values):
    wrapped = np.array([v % 2**64 for v in values], np.uint64).view(np.int64).astype(src.dtype)
    check("convert", wrapped, out=dst)
