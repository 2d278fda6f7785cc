"""CHLO ops lowered through xlapy.lib.math (and HLO's topk), against scipy/numpy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special

from xlapy.backends.interpreter import run
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


X = np.array([0.1, 0.5, 0.9, -0.3], np.float64)


@pytest.mark.parametrize(
    ("op", "fn", "x"),
    [
        ("asin", np.arcsin, X),
        ("acos", np.arccos, X),
        ("atan", np.arctan, X),
        ("sinh", np.sinh, X),
        ("cosh", np.cosh, X),
        ("tan", np.tan, X),
        ("asinh", np.arcsinh, X),
        ("atanh", np.arctanh, X),
        ("acosh", np.arccosh, 1 + np.abs(X)),
        ("erf", special.erf, X),
        ("erfc", special.erfc, X),
        ("erf_inv", special.erfinv, X),
        ("lgamma", special.gammaln, np.abs(X) + 0.5),
        ("digamma", special.digamma, np.abs(X) + 0.5),
        ("bessel_i1e", special.i1e, X),
    ],
)
def test_unary_chlo(op, fn, x):
    text = f"""
    func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {{
      %0 = chlo.{op} %x : tensor<4xf64> -> tensor<4xf64>
      return %0 : tensor<4xf64>
    }}"""
    np.testing.assert_allclose(run_text(text, x), fn(x), rtol=1e-12, atol=1e-14)


def test_next_after_and_broadcasting_ops():
    text = """
    func.func @main(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>) {
      %0 = chlo.broadcast_add %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = chlo.next_after %x, %0 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x3xf32>
      %2 = chlo.broadcast_compare %x, %y {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
      return %0, %1, %2 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi1>
    }"""
    x = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    y = np.array([1.0, -1.0, 0.5], np.float32)
    added, stepped, less = run_text(text, x, y)
    np.testing.assert_array_equal(added, x + y)
    np.testing.assert_array_equal(stepped, np.nextafter(x, x + y))
    np.testing.assert_array_equal(less, x < y)


def test_top_k():
    text = """
    func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi32>) {
      %0:2 = chlo.top_k(%x, k = 3) : tensor<2x5xf32> -> (tensor<2x3xf32>, tensor<2x3xi32>)
      return %0#0, %0#1 : tensor<2x3xf32>, tensor<2x3xi32>
    }"""
    x = np.array([[1.0, 5.0, 3.0, 4.0, 2.0], [0.0, -1.0, 9.0, 8.0, 7.0]], np.float32)
    values, indices = run_text(text, x)
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1))


def test_complex_acosh_and_conj():
    text = """
    func.func @main(%z: tensor<3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>) {
      %0 = chlo.acosh %z : tensor<3xcomplex<f64>> -> tensor<3xcomplex<f64>>
      %1 = chlo.conj %z : tensor<3xcomplex<f64>> -> tensor<3xcomplex<f64>>
      return %0, %1 : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
    }"""
    z = np.array([1 + 2j, -0.5 + 0.1j, 3 - 4j])
    acosh, conj = run_text(text, z)
    np.testing.assert_allclose(acosh, np.arccosh(z), rtol=1e-12)
    np.testing.assert_array_equal(conj, np.conj(z))
