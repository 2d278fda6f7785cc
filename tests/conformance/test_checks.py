"""The check semantics against hand-made arrays, case by case of the reference's rules."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from xlapy.conformance import checks
from xlapy.conformance.checks import (
    ULP_INFINITE,
    check_almost_eq,
    check_close,
    check_eq,
    check_serialized_eq,
    ulp_distance,
)

F32 = np.float32


def bits(value: int, dtype) -> np.ndarray:
    unsigned = np.dtype(f"u{np.dtype(dtype).itemsize}")
    return np.array([value], dtype=unsigned).view(dtype)


# -- ULP distance ----------------------------------------------------------------------------


def test_ulp_neighbours_and_identity():
    one = F32(1.0)
    up = np.nextafter(one, F32(2))
    assert ulp_distance(np.array([one]), np.array([up])).tolist() == [1]
    assert ulp_distance(np.array([up]), np.array([one])).tolist() == [1]
    assert ulp_distance(np.array([one]), np.array([one])).tolist() == [0]


def test_ulp_signed_zeros_are_zero_apart():
    assert ulp_distance(np.array([0.0], F32), np.array([-0.0], F32)).tolist() == [0]
    assert ulp_distance(np.array([-0.0]), np.array([0.0])).tolist() == [0]


def test_ulp_across_zero_adds_both_sides():
    tiny = bits(1, F32)  # smallest subnormal
    minus_tiny = bits(0x80000001, F32)
    assert ulp_distance(tiny, minus_tiny).tolist() == [2]
    assert ulp_distance(np.array([0.0], F32), minus_tiny).tolist() == [1]


def test_ulp_subnormals_are_ordinary_steps():
    largest_subnormal = bits(0x007FFFFF, F32)
    smallest_normal = bits(0x00800000, F32)
    assert ulp_distance(largest_subnormal, smallest_normal).tolist() == [1]
    assert ulp_distance(bits(0, F32), bits(5, F32)).tolist() == [5]


def test_ulp_nan_and_inf():
    nan, other_nan = np.array([np.nan], F32), bits(0xFFC00001, F32)
    assert ulp_distance(nan, other_nan).tolist() == [0]  # any two NaNs: 0
    inf = np.array([np.inf], F32)
    assert ulp_distance(inf, inf).tolist() == [0]
    assert ulp_distance(inf, -inf).tolist() == [ULP_INFINITE]
    assert ulp_distance(inf, np.array([3.4e38], F32)).tolist() == [ULP_INFINITE]
    assert ulp_distance(nan, np.array([1.0], F32)).tolist() == [ULP_INFINITE]


@pytest.mark.parametrize(
    "dtype",
    [
        np.float16,
        ml_dtypes.bfloat16,
        np.float64,
        ml_dtypes.float8_e4m3fn,
        ml_dtypes.float8_e5m2,
        ml_dtypes.float8_e4m3fnuz,
        ml_dtypes.float4_e2m1fn,
    ],
)
def test_ulp_narrow_types_count_representable_values(dtype):
    values = np.array([1.0, 1.5, -1.0], dtype)
    step = np.array([1.0], dtype)
    up = bits(int(checks.float_bits(step)[0]) + 1, dtype)
    assert ulp_distance(step, up).tolist() == [1]
    distance = ulp_distance(values, values[::-1].copy())
    assert distance[1] == 0
    assert distance[0] == distance[2] > 0


def test_ulp_float8_without_sign_bit():
    e8m0 = ml_dtypes.float8_e8m0fnu
    assert ulp_distance(np.array([1.0], e8m0), np.array([4.0], e8m0)).tolist() == [2]


def test_ulp_complex_takes_the_worse_part():
    a = np.array([1 + 1j], np.complex64)
    b = np.array(
        [np.nextafter(F32(1), F32(2)) + 1j * np.nextafter(np.nextafter(F32(1), F32(2)), F32(2))],
        np.complex64,
    )
    assert ulp_distance(a, b).tolist() == [2]


# -- expect_close ----------------------------------------------------------------------------


def test_close_bounds_and_first_differing_element():
    expected = np.array([[1.0, 2.0], [3.0, 4.0]], F32)
    actual = expected.copy()
    actual[1, 0] = np.nextafter(F32(3), F32(4))
    actual[1, 1] = np.nextafter(np.nextafter(F32(4), F32(5)), F32(5))
    assert check_close(actual, expected, 0, 2).passed
    result = check_close(actual, expected, 0, 1)
    assert not result.passed and result.mismatches == 1
    assert "index [1, 1]" in result.detail and "2 ULP apart" in result.detail
    assert "4.0 (0x40800000)" in result.detail  # expected value with its bits


def test_close_min_ulp_difference_demands_a_difference():
    x = np.array([1.0], F32)
    assert not check_close(x, x, 1, 3).passed
    assert check_close(np.nextafter(x, F32(2)), x, 1, 3).passed


def test_close_the_check_mlir_example():
    # interpret/check.mlir: 5.0 vs 5.010 in f16 is 3 ULP apart, allowed with max 3.
    assert check_close(np.array(5.0, np.float16), np.array(5.010, np.float16), 0, 3).passed
    assert not check_close(np.array(5.0, np.float16), np.array(5.010, np.float16), 0, 2).passed


def test_close_type_mismatch_fails():
    result = check_close(np.zeros(2, F32), np.zeros(3, F32))
    assert not result.passed and "type mismatch" in result.detail


# -- expect_almost_eq ------------------------------------------------------------------------


def test_almost_eq_absolute_tolerance():
    assert check_almost_eq(np.array([5.0]), np.array([5.0001])).passed  # default 1e-4
    assert not check_almost_eq(np.array([5.0]), np.array([5.1])).passed
    assert check_almost_eq(np.array([5.0]), np.array([5.1]), 0.1 + 1e-12).passed
    # No relative term: large values need the absolute difference too.
    assert not check_almost_eq(np.array([1e10]), np.array([1e10 + 1])).passed


def test_almost_eq_special_values():
    nan, inf = np.nan, np.inf
    a = np.array([nan, inf, -inf, 0.0, -0.0, inf, nan])
    e = np.array([nan, inf, -inf, -0.0, 0.0, -inf, 1.0])
    assert checks.almost_equal(a, e, 1e-4).tolist() == [True, True, True, True, True, False, False]


def test_almost_eq_opposite_signs_never_close():
    assert not check_almost_eq(np.array([-1e-6]), np.array([1e-6])).passed
    assert not check_almost_eq(np.array([-0.0]), np.array([1e-6])).passed
    assert check_almost_eq(np.array([0.0]), np.array([1e-6])).passed


def test_almost_eq_complex_needs_both_parts():
    a = np.array([1 + 1j], np.complex128)
    assert check_almost_eq(a, np.array([1 + 1.00001j])).passed
    assert not check_almost_eq(a, np.array([1 + 1.1j])).passed


def test_almost_eq_half_precision_from_the_add_test():
    a = np.array([0.4, np.inf], np.float16)
    e = np.array([0.3999, np.inf], np.float16)
    assert check_almost_eq(a, e).passed


# -- expect_eq -------------------------------------------------------------------------------


def test_eq_integers_and_booleans():
    assert check_eq(np.array([1, -2], np.int64), np.array([1, -2], np.int64)).passed
    result = check_eq(np.array([1, 2, 3], np.uint8), np.array([1, 2, 4], np.uint8))
    assert not result.passed and "index [2]" in result.detail and "actual 3" in result.detail
    assert not check_eq(np.array([True]), np.array([False])).passed


def test_eq_floats_are_ieee_equal():
    # The reference compares with APFloat ==: +0 == -0 and NaN != NaN (even same bits).
    assert check_eq(np.array([0.0], F32), np.array([-0.0], F32)).passed
    assert not check_eq(np.array([np.nan], F32), np.array([np.nan], F32)).passed


def test_eq_type_mismatch():
    assert not check_eq(np.array([1], np.int32), np.array([1], np.int64)).passed


# -- expect_serialized_eq --------------------------------------------------------------------


def test_serialized_eq_by_iteration():
    recorded = [np.array(1, np.int64), np.array(2, np.int64)]
    assert check_serialized_eq(np.array(1, np.int64), recorded, "p", 0).passed
    assert check_serialized_eq(np.array(2, np.int64), recorded, "p", 1).passed
    assert not check_serialized_eq(np.array(1, np.int64), recorded, "p", 1).passed
    missing = check_serialized_eq(np.array(1, np.int64), recorded, "p", 2)
    assert not missing.passed and "no value for iteration 2" in missing.detail
    wrong_type = check_serialized_eq(np.array(1, np.int32), recorded, "p", 0)
    assert not wrong_type.passed and "tensor<i32>" in wrong_type.detail


# -- formatting and the tolerance table ------------------------------------------------------


def test_mlir_type_and_print_format():
    assert checks.mlir_type(np.zeros((2, 3), ml_dtypes.bfloat16)) == "tensor<2x3xbf16>"
    assert checks.mlir_type(np.zeros((), np.uint8)) == "tensor<ui8>"
    assert checks.format_tensor(np.array([[1, 2], [3, 4]], np.int8)) == (
        "tensor<2x2xi8> {[[1, 2], [3, 4]]}"
    )


def test_tolerance_table_entries_explain_themselves():
    for key, override in checks.OP_TOLERANCES.items():
        assert override.reason, key
        assert override.max_ulp is not None or override.tolerance is not None, key


def test_tolerance_override_lookup(monkeypatch):
    general = checks.ToleranceOverride("general", max_ulp=4)
    specific = checks.ToleranceOverride("specific", max_ulp=9)
    monkeypatch.setitem(checks.OP_TOLERANCES, "fakeop", general)
    monkeypatch.setitem(checks.OP_TOLERANCES, "fakeop/float16", specific)
    assert checks.tolerance_override("fakeop", "float32") is general
    assert checks.tolerance_override("fakeop", "float16") is specific
    assert checks.tolerance_override("otherop", "float16") is None
    assert "max_ulp_difference=9" in specific.describe()
