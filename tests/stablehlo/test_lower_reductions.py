"""Region-applying ops (reduce, reduce_window, select_and_scatter, sort, map) and
gather/scatter, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.errors import UnimplementedError
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


X = np.array([[3.0, -1.0, 4.0, 1.5], [-5.0, 9.0, 2.0, 6.0], [5.0, 3.0, -5.0, 8.0]], np.float32)


def test_reduce_pretty_and_generic():
    text = """
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3xf32>) {
      %init = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = stablehlo.reduce(%x init: %init) applies stablehlo.add across dimensions = [0] : (tensor<3x4xf32>, tensor<f32>) -> tensor<4xf32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %1 = "stablehlo.reduce"(%x, %ninf) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
      }) {dimensions = array<i64: 1>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<3xf32>
      return %0, %1 : tensor<4xf32>, tensor<3xf32>
    }"""
    total, biggest = run_text(text, X)
    np.testing.assert_allclose(total, X.sum(0))
    np.testing.assert_array_equal(biggest, X.max(1))


def test_variadic_reduce_argmax():
    text = """
    func.func @main(%x: tensor<3x4xf32>) -> (tensor<3xf32>, tensor<3xi32>) {
      %idx = stablehlo.iota dim = 1 : tensor<3x4xi32>
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %zero = stablehlo.constant dense<0> : tensor<i32>
      %0:2 = stablehlo.reduce(%x init: %ninf), (%idx init: %zero) across dimensions = [1] : (tensor<3x4xf32>, tensor<3x4xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
        reducer(%a: tensor<f32>, %c: tensor<f32>) (%b: tensor<i32>, %d: tensor<i32>) {
          %gt = stablehlo.compare GT, %a, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>
          %v = stablehlo.select %gt, %a, %c : tensor<i1>, tensor<f32>
          %i = stablehlo.select %gt, %b, %d : tensor<i1>, tensor<i32>
          stablehlo.return %v, %i : tensor<f32>, tensor<i32>
        }
      return %0#0, %0#1 : tensor<3xf32>, tensor<3xi32>
    }"""
    values, indices = run_text(text, X)
    np.testing.assert_array_equal(values, X.max(1))
    np.testing.assert_array_equal(indices, X.argmax(1))


def test_reduce_window_max_pool():
    text = """
    func.func @main(%x: tensor<3x4xf32>) -> tensor<2x2xf32> {
      %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
      %0 = "stablehlo.reduce_window"(%x, %ninf) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.maximum %a, %b : tensor<f32>
        stablehlo.return %m : tensor<f32>
      }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>,
          padding = dense<[[0, 0], [0, 0]]> : tensor<2x2xi64>} : (tensor<3x4xf32>, tensor<f32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    }"""
    want = np.array([[X[r : r + 2, c : c + 2].max() for c in (0, 2)] for r in (0, 1)])
    np.testing.assert_array_equal(run_text(text, X), want)


def test_select_and_scatter():
    text = """
    func.func @main(%x: tensor<4x2xf32>, %s: tensor<2x2xf32>) -> tensor<4x2xf32> {
      %zero = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = "stablehlo.select_and_scatter"(%x, %s, %zero) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %ge = stablehlo.compare GE, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %ge : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %sum = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %sum : tensor<f32>
      }) {window_dimensions = array<i64: 2, 1>, window_strides = array<i64: 2, 1>} : (tensor<4x2xf32>, tensor<2x2xf32>, tensor<f32>) -> tensor<4x2xf32>
      return %0 : tensor<4x2xf32>
    }"""
    x = np.array([[1, 5], [2, 3], [7, 0], [4, 8]], np.float32)
    s = np.array([[10, 20], [30, 40]], np.float32)
    want = np.zeros_like(x)
    for w in range(2):
        for c in range(2):
            r = 2 * w + int(np.argmax(x[2 * w : 2 * w + 2, c]))
            want[r, c] += s[w, c]
    np.testing.assert_array_equal(run_text(text, x, s), want)


def test_sort_two_operands():
    text = """
    func.func @main(%k: tensor<5xf32>, %v: tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>) {
      %0:2 = "stablehlo.sort"(%k, %v) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
        %lt = stablehlo.compare GT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %lt : tensor<i1>
      }) {dimension = 0 : i64, is_stable = true} : (tensor<5xf32>, tensor<5xi32>) -> (tensor<5xf32>, tensor<5xi32>)
      return %0#0, %0#1 : tensor<5xf32>, tensor<5xi32>
    }"""
    k = np.array([3.0, 1.0, 4.0, 1.0, 5.0], np.float32)
    v = np.arange(5, dtype=np.int32)
    keys, values = run_text(text, k, v)
    order = np.argsort(-k, kind="stable")
    np.testing.assert_array_equal(keys, k[order])
    np.testing.assert_array_equal(values, v[order])


def test_map():
    text = """
    func.func @main(%x: tensor<2x2xf32>, %y: tensor<2x2xf32>) -> tensor<2x2xf32> {
      %0 = "stablehlo.map"(%x, %y) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.multiply %a, %b : tensor<f32>
        %s = stablehlo.add %m, %a : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {dimensions = array<i64: 0, 1>} : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
      return %0 : tensor<2x2xf32>
    }"""
    x = np.array([[1, 2], [3, 4]], np.float32)
    y = np.array([[5, 6], [7, 8]], np.float32)
    np.testing.assert_array_equal(run_text(text, x, y), x * y + x)


def test_gather():
    text = """
    func.func @main(%x: tensor<3x4x2xi64>, %i: tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64> {
      %0 = "stablehlo.gather"(%x, %i) {
        dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0],
                                              start_index_map = [1, 0], index_vector_dim = 2>,
        slice_sizes = array<i64: 1, 2, 2>, indices_are_sorted = false
      } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
      return %0 : tensor<2x3x2x2xi64>
    }"""
    x = np.arange(1, 25, dtype=np.int64).reshape(3, 4, 2)
    idx = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]], np.int64)
    want = np.zeros((2, 3, 2, 2), np.int64)
    for a in range(2):
        for b in range(3):
            col, row = idx[a, b]
            row = min(max(row, 0), 2)
            col = min(max(col, 0), 2)
            want[a, b] = x[row, col : col + 2, :]
    np.testing.assert_array_equal(run_text(text, x, idx), want)


def test_scatter_add_with_region():
    text = """
    func.func @main(%x: tensor<5xf32>, %i: tensor<3x1xi32>, %u: tensor<3xf32>) -> tensor<5xf32> {
      %0 = "stablehlo.scatter"(%x, %i, %u) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0],
            scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
          indices_are_sorted = false, unique_indices = false}
        : (tensor<5xf32>, tensor<3x1xi32>, tensor<3xf32>) -> tensor<5xf32>
      return %0 : tensor<5xf32>
    }"""
    x = np.zeros(5, np.float32)
    idx = np.array([[1], [3], [1]], np.int32)
    u = np.array([1.0, 2.0, 4.0], np.float32)
    np.testing.assert_array_equal(run_text(text, x, idx, u), [0, 5, 0, 2, 0])


def test_region_capturing_a_runtime_value_is_unsupported():
    text = """
    func.func @main(%x: tensor<3xf32>, %k: tensor<f32>) -> tensor<f32> {
      %init = stablehlo.constant dense<0.0> : tensor<f32>
      %0 = "stablehlo.reduce"(%x, %init) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.multiply %b, %k : tensor<f32>
        %s = stablehlo.add %a, %m : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }"""
    with pytest.raises(UnimplementedError, match=r"stablehlo.reduce at line 4.*%k"):
        lower_text(text)


def test_region_capturing_a_constant_rematerializes_it():
    text = """
    func.func @main(%x: tensor<3xf32>) -> tensor<f32> {
      %init = stablehlo.constant dense<0.0> : tensor<f32>
      %k = stablehlo.constant dense<2.5> : tensor<f32>
      %0 = "stablehlo.reduce"(%x, %init) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %m = stablehlo.minimum %b, %k : tensor<f32>
        %s = stablehlo.maximum %a, %m : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }) {dimensions = array<i64: 0>} : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }"""
    assert run_text(text, np.array([1.0, 2.0, 3.0], np.float32)) == 2.5


def test_dynamic_gather_folds_its_slice_sizes():
    text = """
    func.func @main(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>) -> tensor<2x3xf32> {
      %sizes = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
      %0 = "stablehlo.dynamic_gather"(%x, %i, %sizes) {
        dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0],
                                              start_index_map = [0], index_vector_dim = 1>
      } : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2xi32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(run_text(text, x, np.array([[3], [1]], np.int32)), x[[3, 1]])
