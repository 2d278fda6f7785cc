"""Elementwise StableHLO ops lowered to HLO and run on the interpreter, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


X = np.array([[-1.5, 0.25, 2.0], [3.0, -0.5, 7.5]], np.float32)
Y = np.array([[2.0, -4.0, 0.5], [1.5, 3.0, -2.5]], np.float32)


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        ("add", np.add),
        ("subtract", np.subtract),
        ("multiply", np.multiply),
        ("divide", np.divide),
        ("maximum", np.maximum),
        ("minimum", np.minimum),
        ("atan2", np.arctan2),
        ("remainder", np.fmod),
    ],
)
def test_binary_float(op, fn):
    text = f"""
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {{
      %0 = stablehlo.{op} %x, %y : tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }}"""
    np.testing.assert_allclose(run_text(text, X, Y), fn(X, Y), rtol=1e-6)


@pytest.mark.parametrize(
    ("op", "fn"),
    [
        ("abs", np.abs),
        ("negate", np.negative),
        ("exponential", np.exp),
        ("exponential_minus_one", np.expm1),
        ("tanh", np.tanh),
        ("sine", np.sin),
        ("cosine", np.cos),
        ("floor", np.floor),
        ("ceil", np.ceil),
        ("sign", np.sign),
        ("round_nearest_even", np.round),
        ("cbrt", np.cbrt),
        ("tan", np.tan),
        ("logistic", lambda x: 1 / (1 + np.exp(-x))),
    ],
)
def test_unary_float(op, fn):
    text = f"""
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {{
      %0 = stablehlo.{op} %x : tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }}"""
    np.testing.assert_allclose(run_text(text, X), fn(X), rtol=2e-6, atol=1e-7)


def test_log_sqrt_rsqrt_on_positive_values():
    text = """
    func.func @main(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) {
      %0 = stablehlo.log %x : tensor<4xf64>
      %1 = stablehlo.sqrt %x : tensor<4xf64>
      %2 = stablehlo.rsqrt %x : tensor<4xf64>
      %3 = stablehlo.log_plus_one %x : tensor<4xf64>
      return %0, %1, %2, %3 : tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>
    }"""
    x = np.array([0.5, 1.0, 4.0, 9.0])
    out = run_text(text, x)
    for got, want in zip(out, [np.log(x), np.sqrt(x), 1 / np.sqrt(x), np.log1p(x)], strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-14)


def test_round_afz_and_is_finite():
    text = """
    func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xi1>) {
      %0 = stablehlo.round_nearest_afz %x : tensor<5xf32>
      %1 = stablehlo.is_finite %x : (tensor<5xf32>) -> tensor<5xi1>
      return %0, %1 : tensor<5xf32>, tensor<5xi1>
    }"""
    x = np.array([0.5, -2.5, 1.4, np.inf, np.nan], np.float32)
    rounded, finite = run_text(text, x)
    np.testing.assert_array_equal(rounded[:3], [1.0, -3.0, 1.0])
    np.testing.assert_array_equal(finite, [True, True, True, False, False])


def test_integer_ops():
    text = """
    func.func @main(%x: tensor<4xi32>, %y: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>) {
      %0 = stablehlo.divide %x, %y : tensor<4xi32>
      %1 = stablehlo.remainder %x, %y : tensor<4xi32>
      %2 = stablehlo.and %x, %y : tensor<4xi32>
      %3 = stablehlo.shift_left %x, %y : tensor<4xi32>
      %4 = stablehlo.shift_right_logical %x, %y : tensor<4xi32>
      %5 = stablehlo.shift_right_arithmetic %x, %y : tensor<4xi32>
      %6 = stablehlo.popcnt %x : tensor<4xi32>
      return %0, %1, %2, %3, %4, %5, %6 : tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>, tensor<4xi32>
    }"""
    x = np.array([7, -7, 12, -1], np.int32)
    y = np.array([2, 2, 3, 1], np.int32)
    div, rem, both, shl, shrl, shra, pop = run_text(text, x, y)
    np.testing.assert_array_equal(div, [3, -3, 4, -1])  # truncating, as C
    np.testing.assert_array_equal(rem, [1, -1, 0, 0])
    np.testing.assert_array_equal(both, x & y)
    np.testing.assert_array_equal(shl, x << y)
    np.testing.assert_array_equal(shrl, (x.view(np.uint32) >> y.view(np.uint32)).view(np.int32))
    np.testing.assert_array_equal(shra, x >> y)
    np.testing.assert_array_equal(pop, [3, 30, 2, 32])


def test_boolean_arithmetic_is_logic():
    text = """
    func.func @main(%x: tensor<4xi1>, %y: tensor<4xi1>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
      %0 = stablehlo.add %x, %y : tensor<4xi1>
      %1 = stablehlo.multiply %x, %y : tensor<4xi1>
      %2 = stablehlo.not %x : tensor<4xi1>
      return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
    }"""
    x = np.array([True, True, False, False])
    y = np.array([True, False, True, False])
    added, multiplied, negated = run_text(text, x, y)
    np.testing.assert_array_equal(added, x | y)
    np.testing.assert_array_equal(multiplied, x & y)
    np.testing.assert_array_equal(negated, ~x)
    hlo = lower_text(text).to_text()
    assert " or(" in hlo and " and(" in hlo


@pytest.mark.parametrize(
    ("direction", "compare_type", "fn"),
    [
        ("LT", "FLOAT", np.less),
        ("GE", "FLOAT", np.greater_equal),
        ("EQ", "TOTALORDER", np.equal),
        ("NE", "FLOAT", np.not_equal),
    ],
)
def test_compare(direction, compare_type, fn):
    text = f"""
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xi1> {{
      %0 = stablehlo.compare {direction}, %x, %y, {compare_type} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
      return %0 : tensor<2x3xi1>
    }}"""
    np.testing.assert_array_equal(run_text(text, X, Y), fn(X, Y))
    if compare_type == "TOTALORDER":
        assert "type=TOTALORDER" in lower_text(text).to_text()


def test_compare_generic_form_with_unsigned_type():
    text = """
    func.func @main(%x: tensor<3xui32>, %y: tensor<3xui32>) -> tensor<3xi1> {
      %0 = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type UNSIGNED>} : (tensor<3xui32>, tensor<3xui32>) -> tensor<3xi1>
      func.return %0 : tensor<3xi1>
    }"""
    x = np.array([4294967295, 1, 2], np.uint32)
    y = np.array([1, 4294967295, 3], np.uint32)
    np.testing.assert_array_equal(run_text(text, x, y), x < y)


def test_select_and_clamp():
    text = """
    func.func @main(%p: tensor<2x3xi1>, %x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
      %0 = stablehlo.select %p, %x, %y : tensor<2x3xi1>, tensor<2x3xf32>
      %lo = stablehlo.constant dense<-1.0> : tensor<f32>
      %hi = stablehlo.constant dense<2.0> : tensor<f32>
      %1 = stablehlo.clamp %lo, %x, %hi : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
    }"""
    p = X > Y
    selected, clamped = run_text(text, p, X, Y)
    np.testing.assert_array_equal(selected, np.where(p, X, Y))
    np.testing.assert_array_equal(clamped, np.clip(X, -1, 2))


def test_converts():
    text = """
    func.func @main(%x: tensor<3xf32>, %z: tensor<2xcomplex<f32>>) -> (tensor<3xi32>, tensor<3xf64>, tensor<2xf32>, tensor<3xcomplex<f64>>, tensor<3xui32>) {
      %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xi32>
      %1 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf64>
      %2 = stablehlo.convert %z : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
      %3 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xcomplex<f64>>
      %4 = stablehlo.bitcast_convert %x : (tensor<3xf32>) -> tensor<3xui32>
      return %0, %1, %2, %3, %4 : tensor<3xi32>, tensor<3xf64>, tensor<2xf32>, tensor<3xcomplex<f64>>, tensor<3xui32>
    }"""
    x = np.array([1.75, -2.5, 3.0], np.float32)
    z = np.array([1 + 2j, -3 - 4j], np.complex64)
    as_int, as_f64, real, as_complex, bits = run_text(text, x, z)
    np.testing.assert_array_equal(as_int, [1, -2, 3])
    np.testing.assert_array_equal(as_f64, x.astype(np.float64))
    np.testing.assert_array_equal(real, [1, -3])  # the spec keeps the real part
    np.testing.assert_array_equal(as_complex, x.astype(np.complex128))
    np.testing.assert_array_equal(bits, x.view(np.uint32))


def test_complex_real_imag():
    text = """
    func.func @main(%x: tensor<2xf64>, %y: tensor<2xf64>) -> (tensor<2xcomplex<f64>>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) {
      %0 = stablehlo.complex %x, %y : tensor<2xcomplex<f64>>
      %1 = stablehlo.real %0 : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
      %2 = stablehlo.imag %0 : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
      %3 = stablehlo.abs %0 : (tensor<2xcomplex<f64>>) -> tensor<2xf64>
      return %0, %1, %2, %3 : tensor<2xcomplex<f64>>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>
    }"""
    x, y = np.array([3.0, -1.0]), np.array([4.0, 2.0])
    z, re, im, mag = run_text(text, x, y)
    np.testing.assert_array_equal(z, x + 1j * y)
    np.testing.assert_array_equal(re, x)
    np.testing.assert_array_equal(im, y)
    np.testing.assert_allclose(mag, np.hypot(x, y))


def test_reduce_precision_and_clz():
    text = """
    func.func @main(%x: tensor<2xf32>, %i: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xi32>) {
      %0 = stablehlo.reduce_precision %x, format = e5m10 : tensor<2xf32>
      %1 = stablehlo.count_leading_zeros %i : tensor<3xi32>
      return %0, %1 : tensor<2xf32>, tensor<3xi32>
    }"""
    x = np.array([1.0001, 60000.0], np.float32)
    reduced, clz = run_text(text, x, np.array([1, 0, -1], np.int32))
    np.testing.assert_array_equal(reduced, x.astype(np.float16).astype(np.float32))
    np.testing.assert_array_equal(clz, [31, 32, 0])


def test_complex_maximum_and_minimum_are_lexicographic():
    text = """
    func.func @main(%x: tensor<3xcomplex<f32>>, %y: tensor<3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>) {
      %0 = stablehlo.maximum %x, %y : tensor<3xcomplex<f32>>
      %1 = stablehlo.minimum %x, %y : tensor<3xcomplex<f32>>
      return %0, %1 : tensor<3xcomplex<f32>>, tensor<3xcomplex<f32>>
    }"""
    x = np.array([1 + 5j, 2 + 1j, -1 - 1j], np.complex64)
    y = np.array([2 + 0j, 2 + 3j, -1 - 2j], np.complex64)
    biggest, smallest = run_text(text, x, y)
    np.testing.assert_array_equal(biggest, [2 + 0j, 2 + 3j, -1 - 1j])
    np.testing.assert_array_equal(smallest, [1 + 5j, 2 + 1j, -1 - 2j])


def test_bitcast_convert_to_and_from_bits():
    text = """
    func.func @main(%x: tensor<2xf32>) -> (tensor<2x32xi1>, tensor<2xf32>, tensor<2xi32>) {
      %bits = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<2x32xi1>
      %back = stablehlo.bitcast_convert %bits : (tensor<2x32xi1>) -> tensor<2xf32>
      %int = stablehlo.bitcast_convert %bits : (tensor<2x32xi1>) -> tensor<2xi32>
      return %bits, %back, %int : tensor<2x32xi1>, tensor<2xf32>, tensor<2xi32>
    }"""
    x = np.array([1.5, -0.1], np.float32)
    bits, back, as_int = run_text(text, x)
    words = x.view(np.uint32)
    want = (words[:, None] >> np.arange(32, dtype=np.uint32)) & 1  # least significant first
    np.testing.assert_array_equal(bits, want.astype(bool))
    np.testing.assert_array_equal(back, x)
    np.testing.assert_array_equal(as_int, x.view(np.int32))
