"""dot_general, dot, convolution, fft, triangular_solve, cholesky, batch norm, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


RNG = np.random.default_rng(7)


def test_dot_general_batched_with_precision():
    text = """
    func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [HIGHEST, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
      return %0 : tensor<2x3x5xf32>
    }"""
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(run_text(text, a, b), a @ b, rtol=1e-5, atol=1e-6)
    assert "operand_precision={highest,highest}" in lower_text(text).to_text()


def test_dot_general_generic_with_algorithm_and_preferred_type():
    text = """
    func.func @main(%a: tensor<2x3xbf16>, %b: tensor<3x4xbf16>) -> tensor<2x4xf32> {
      %0 = "stablehlo.dot_general"(%a, %b) {
        dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>,
        algorithm = #stablehlo.dot_algorithm<lhs_precision_type = bf16, rhs_precision_type = bf16, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
      } : (tensor<2x3xbf16>, tensor<3x4xbf16>) -> tensor<2x4xf32>
      return %0 : tensor<2x4xf32>
    }"""
    hlo = lower_text(text).to_text()
    assert "f32[2,4]" in hlo and "algorithm=dot_bf16_bf16_f32" in hlo


def test_dot_integer_with_wider_result():
    text = """
    func.func @main(%a: tensor<2x3xi8>, %b: tensor<3xi8>) -> tensor<2xi32> {
      %0 = stablehlo.dot %a, %b : (tensor<2x3xi8>, tensor<3xi8>) -> tensor<2xi32>
      return %0 : tensor<2xi32>
    }"""
    a = np.array([[100, 100, 100], [-100, 50, 1]], np.int8)
    b = np.array([100, 100, 1], np.int8)
    np.testing.assert_array_equal(run_text(text, a, b), a.astype(np.int32) @ b.astype(np.int32))


def _conv_nhwc(x, w, stride, pad, lhs_dilation=1):
    """Direct convolution, NHWC x HWIO -> NHWC, for checking."""
    if lhs_dilation > 1:
        n, h, wd, c = x.shape
        d = np.zeros((n, (h - 1) * lhs_dilation + 1, (wd - 1) * lhs_dilation + 1, c), x.dtype)
        d[:, ::lhs_dilation, ::lhs_dilation] = x
        x = d
    x = np.pad(x, [(0, 0), pad[0], pad[1], (0, 0)])
    kh, kw, _, o = w.shape
    oh = (x.shape[1] - kh) // stride[0] + 1
    ow = (x.shape[2] - kw) // stride[1] + 1
    out = np.zeros((x.shape[0], oh, ow, o), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = x[:, i * stride[0] : i * stride[0] + kh, j * stride[1] : j * stride[1] + kw]
            out[:, i, j] = np.einsum("nhwc,hwco->no", patch, w)
    return out


def test_convolution_pretty_form():
    text = """
    func.func @main(%x: tensor<1x5x5x2xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32> {
      %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x5x5x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x3x3x4xf32>
      return %0 : tensor<1x3x3x4xf32>
    }"""
    x = RNG.standard_normal((1, 5, 5, 2)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 2, 4)).astype(np.float32)
    want = _conv_nhwc(x, w, (2, 2), [(1, 1), (1, 1)])
    np.testing.assert_allclose(run_text(text, x, w), want, rtol=1e-4, atol=1e-5)


def test_convolution_generic_with_lhs_dilation():
    text = """
    func.func @main(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32> {
      %0 = "stablehlo.convolution"(%x, %w) {
        window_strides = array<i64: 4, 4>,
        padding = dense<1> : tensor<2x2xi64>,
        lhs_dilation = array<i64: 2, 2>,
        rhs_dilation = array<i64: 1, 1>,
        window_reversal = array<i1: false, false>,
        dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
        batch_group_count = 1 : i64,
        feature_group_count = 1 : i64
      } : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
      return %0 : tensor<1x2x2x1xf32>
    }"""
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    w = np.ones((3, 3, 1, 1), np.float32)
    want = _conv_nhwc(x, w, (4, 4), [(1, 1), (1, 1)], lhs_dilation=2)
    np.testing.assert_allclose(run_text(text, x, w), want)


def test_fft_and_rfft():
    text = """
    func.func @main(%z: tensor<4xcomplex<f32>>, %x: tensor<8xf32>) -> (tensor<4xcomplex<f32>>, tensor<5xcomplex<f32>>) {
      %0 = stablehlo.fft %z, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
      %1 = stablehlo.fft %x, type = RFFT, length = [8] : (tensor<8xf32>) -> tensor<5xcomplex<f32>>
      return %0, %1 : tensor<4xcomplex<f32>>, tensor<5xcomplex<f32>>
    }"""
    z = (RNG.standard_normal(4) + 1j * RNG.standard_normal(4)).astype(np.complex64)
    x = RNG.standard_normal(8).astype(np.float32)
    full, real = run_text(text, z, x)
    np.testing.assert_allclose(full, np.fft.fft(z), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(real, np.fft.rfft(x), rtol=1e-5, atol=1e-5)


def test_cholesky_and_triangular_solve():
    text = """
    func.func @main(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> (tensor<3x3xf64>, tensor<3x2xf64>) {
      %l = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
      %x = "stablehlo.triangular_solve"(%l, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
      return %l, %x : tensor<3x3xf64>, tensor<3x2xf64>
    }"""
    m = RNG.standard_normal((3, 3))
    a = m @ m.T + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    l_got, x = run_text(text, a, b)
    want = np.linalg.cholesky(a)
    np.testing.assert_allclose(np.tril(l_got), want, rtol=1e-12)
    np.testing.assert_allclose(x, np.linalg.solve(want, b), rtol=1e-10)


def test_batch_norm_inference_and_training():
    text = """
    func.func @main(%x: tensor<4x2xf32>, %s: tensor<2xf32>, %o: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<4x2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) {
      %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
      %1:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
      return %0, %1#0, %1#1, %1#2 : tensor<4x2xf32>, tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>
    }"""
    x = RNG.standard_normal((4, 2)).astype(np.float32)
    s, o = np.array([1.0, 2.0], np.float32), np.array([0.5, -0.5], np.float32)
    m, v = np.array([0.1, -0.2], np.float32), np.array([1.5, 0.5], np.float32)
    inferred, trained, mean, var = run_text(text, x, s, o, m, v)
    np.testing.assert_allclose(inferred, (x - m) / np.sqrt(v + 1e-3) * s + o, rtol=1e-5)
    np.testing.assert_allclose(mean, x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(var, x.var(0), rtol=1e-5)
    np.testing.assert_allclose(
        trained, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3) * s + o, rtol=1e-4, atol=1e-5
    )


@pytest.mark.parametrize("transpose", ["TRANSPOSE", "ADJOINT"])
def test_triangular_solve_transposed_right_side(transpose):
    text = f"""
    func.func @main(%a: tensor<3x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {{
      %0 = "stablehlo.triangular_solve"(%a, %b) {{left_side = false, lower = false, unit_diagonal = true, transpose_a = #stablehlo<transpose {transpose}>}} : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
      return %0 : tensor<2x3xf64>
    }}"""
    a = np.triu(RNG.standard_normal((3, 3)), 1) + np.eye(3)
    b = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(run_text(text, a, b) @ a.T, b, rtol=1e-10, atol=1e-12)


def test_batch_norm_grad():
    text = """
    func.func @main(%x: tensor<4x2xf64>, %s: tensor<2xf64>, %m: tensor<2xf64>, %v: tensor<2xf64>, %g: tensor<4x2xf64>) -> (tensor<4x2xf64>, tensor<2xf64>, tensor<2xf64>) {
      %0:3 = "stablehlo.batch_norm_grad"(%x, %s, %m, %v, %g) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<4x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<4x2xf64>) -> (tensor<4x2xf64>, tensor<2xf64>, tensor<2xf64>)
      return %0#0, %0#1, %0#2 : tensor<4x2xf64>, tensor<2xf64>, tensor<2xf64>
    }"""
    x = RNG.standard_normal((4, 2))
    g = RNG.standard_normal((4, 2))
    s = np.array([1.0, 2.0])
    mean, var = x.mean(0), x.var(0)
    grad_x, grad_scale, grad_offset = run_text(text, x, s, mean, var, g)
    eps = np.float64(np.float32(1e-3))
    xhat = (x - mean) / np.sqrt(var + eps)
    np.testing.assert_allclose(grad_offset, g.sum(0), rtol=1e-12)
    np.testing.assert_allclose(grad_scale, (g * xhat).sum(0), rtol=1e-7)
    want = s / np.sqrt(var + eps) * (g - g.mean(0) - xhat * (g * xhat).mean(0))
    np.testing.assert_allclose(grad_x, want, rtol=1e-7, atol=1e-9)


def test_dynamic_conv_folds_its_padding():
    text = """
    func.func @main(%x: tensor<1x4x4x1xf32>, %w: tensor<3x3x1x1xf32>) -> tensor<1x4x4x1xf32> {
      %padding = stablehlo.constant dense<1> : tensor<2x2xi64>
      %0 = "stablehlo.dynamic_conv"(%x, %w, %padding) {
        window_strides = array<i64: 1, 1>,
        dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
        batch_group_count = 1 : i64, feature_group_count = 1 : i64
      } : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>, tensor<2x2xi64>) -> tensor<1x4x4x1xf32>
      return %0 : tensor<1x4x4x1xf32>
    }"""
    x = RNG.standard_normal((1, 4, 4, 1)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 1, 1)).astype(np.float32)
    want = _conv_nhwc(x, w, (1, 1), [(1, 1), (1, 1)])
    np.testing.assert_allclose(run_text(text, x, w), want, rtol=1e-5, atol=1e-5)
