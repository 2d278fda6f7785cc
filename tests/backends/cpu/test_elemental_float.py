"""``elemental``'s exact float ops and float compares against the interpreter, bit for bit
(any NaN equals any NaN): every pair of codes of the 8- and 4-bit types, every code of f16
and bf16 for unary ops (random pairs for binary ones), and edge values (zeros, infinities,
NaNs with payloads, extremes, denormals, ties) plus random bit patterns for f32 and f64."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from elemental_harness import (  # noqa: E402
    FLOATS,
    P,
    all_codes,
    check,
    check_compare,
    float_edges,
    ids,
    pairs,
    prepare,
    random_floats,
    unsigned,
)

BINARY = ["add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"]
UNARY = [
    "negate", "abs", "sign", "floor", "ceil", "round-nearest-even", "round-nearest-afz",
    "sqrt", "rsqrt", "imag",
]  # fmt: skip
IDENTITIES = ["copy", "real"]  # bit for bit, NaN payloads included


def specials(et):
    """Edge values of ``et`` few enough to take every pair of (16-bit types: a selection)."""
    if et.bit_width <= 8 or et.bit_width >= 32:
        return float_edges(et)
    f32 = float_edges(P.F32)
    with np.errstate(all="ignore"):
        cast = f32.astype(et.dtype)
    nans = np.array([0x7C01, 0xFE00, 0x7FFF] if et is P.F16 else [0x7F81, 0xFFC1], np.uint16)
    return np.concatenate([cast, nans.view(et.dtype), all_codes(et)[[1, 0x8001, 0x3FF, 0x400]]])


def binary_operands(et):
    if et.bit_width <= 8:
        return pairs(all_codes(et))
    a, b = pairs(specials(et))
    n = 60_000 if et.bit_width == 16 else 20_000
    return (
        np.concatenate([a, random_floats(et, n, 1)]),
        np.concatenate([b, random_floats(et, n, 2)]),
    )


def unary_operands(et):
    if et.bit_width <= 16:
        return all_codes(et)
    return np.concatenate([float_edges(et), random_floats(et, 20_000, 3)])


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_binary_ops(et):
    prepare((op, (et, et), et, "") for op in BINARY)
    x, y = binary_operands(et)
    for op in BINARY:
        check(op, x, y)


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_unary_ops_and_is_finite(et):
    specs = [(op, (et,), et, "") for op in UNARY + IDENTITIES]
    prepare([*specs, ("is-finite", (et,), P.PRED, "")])
    x = unary_operands(et)
    for op in UNARY:
        check(op, x)
    for op in IDENTITIES:
        check(op, x, bits=True)
    check("is-finite", x, out=P.PRED)


@pytest.mark.parametrize("et", FLOATS, ids=ids)
def test_compare_as_floats_and_in_total_order(et):
    x, y = binary_operands(et)
    check_compare(et, None, x, y)
    check_compare(et, "TOTALORDER", x, y)
    check("compare", x, y, out=P.PRED, attrs=", direction=GE, type=TOTALORDER")


def test_total_order_sees_nan_payloads_and_signed_zeros():
    """f16 widens without quieting (numpy's conversion), so a signalling NaN's payload
    orders below a quiet one's; -0 < +0; -NaN below everything."""
    h = np.array([0x7C01, 0x8000, 0xFE00, 0x7C00], np.uint16).view(np.float16)
    q = np.array([0x7E00, 0x0000, 0xFC00, 0x7C01], np.uint16).view(np.float16)
    lt = check("compare", h, q, out=P.PRED, attrs=", direction=LT, type=TOTALORDER")
    assert lt.tolist() == [True, True, True, True]
    x = np.array([np.nan, 0.0], np.float32)
    assert check("compare", x, x, out=P.PRED, attrs=", direction=EQ").tolist() == [False, True]
    assert check("compare", x, x, out=P.PRED, attrs=", direction=NE").tolist() == [True, False]


def test_maximum_minimum_sign_and_rounding_spelled_out():
    a = np.array([0.0, -0.0, np.nan, 1.0, -np.inf], np.float32)
    b = np.array([-0.0, 0.0, 1.0, np.nan, np.inf], np.float32)
    mx, mn = check("maximum", a, b), check("minimum", a, b)
    assert np.signbit(mx[:2]).tolist() == [False, False] and np.isnan(mx[2:4]).all()
    assert np.signbit(mn[:2]).tolist() == [True, True] and np.isnan(mn[2:4]).all()
    x = np.array([0.5, -0.5, 1.5, 2.5, -2.5, 0.49999997, -0.0, np.nan], np.float32)
    afz = check("round-nearest-afz", x)
    assert afz[:6].tolist() == [1.0, -1.0, 2.0, 3.0, -3.0, 0.0] and np.signbit(afz[6])
    assert check("round-nearest-even", x)[:5].tolist() == [0.0, -0.0, 2.0, 2.0, -2.0]
    sign = check("sign", x)
    assert sign[:6].tolist() == [1, -1, 1, 1, -1, 1] and np.signbit(sign[6])
    assert np.isnan(sign[7])
    rem = check("remainder", np.array([-7.5, 7.5], np.float32), np.array([2, -2], np.float32))
    assert rem.tolist() == [-1.5, 1.5]  # C's fmod: the dividend's sign


def test_narrow_types_round_through_f16_as_xla():
    """f8e3m4's sqrt(15.5) is 4 (15.5 -> f32 3.937 -> f16 3.9375, a tie -> 4), not the
    nearer 3.875; f4e2m1fn has no NaN (0/0 is -0) and saturates at 6."""
    import ml_dtypes

    root = check("sqrt", np.array([15.5], ml_dtypes.float8_e3m4))
    assert root.astype(np.float32).tolist() == [4.0]
    f4 = ml_dtypes.float4_e2m1fn
    zero, six = np.array([0.0, 6.0], f4), np.array([0.0, 6.0], f4)
    q = check("divide", zero, np.array([0.0, 0.5], f4))
    assert unsigned(q).tolist() == [0x8, 0x7]  # -0 and 6
    assert check("add", six, six).astype(np.float32).tolist() == [0.0, 6.0]


finite32 = st.floats(width=32, allow_nan=True, allow_infinity=True, allow_subnormal=True)
any64 = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BINARY), st.lists(st.tuples(finite32, finite32), min_size=1, max_size=70))
def test_random_f32_operands(op, values):
    x = np.array([v[0] for v in values], np.float32)
    y = np.array([v[1] for v in values], np.float32)
    check(op, x, y)
    check_compare(P.F32, "TOTALORDER", x, y)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(BINARY), st.lists(st.tuples(any64, any64), min_size=1, max_size=70))
def test_random_f64_operands(op, values):
    x = np.array([v[0] for v in values], np.float64)
    y = np.array([v[1] for v in values], np.float64)
    check(op, x, y)
