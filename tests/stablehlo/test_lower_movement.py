"""Data-movement StableHLO ops (and the dynamic_* ops folded from constants), against numpy."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.shape import Shape
from xlapy.stablehlo import parse_program
from xlapy.types import PrimitiveType


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


A = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_constant_iota_reshape_transpose():
    text = """
    func.func @main() -> (tensor<2x3xi32>, tensor<3x2xi32>, tensor<6xi32>, tensor<2x3xf32>) {
      %0 = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
      %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<2x3xi32>) -> tensor<3x2xi32>
      %2 = stablehlo.reshape %0 : (tensor<2x3xi32>) -> tensor<6xi32>
      %3 = stablehlo.iota dim = 1 : tensor<2x3xf32>
      return %0, %1, %2, %3 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<6xi32>, tensor<2x3xf32>
    }"""
    c, t, r, iota = run_text(text)
    want = np.array([[1, 2, 3], [4, 5, 6]], np.int32)
    np.testing.assert_array_equal(c, want)
    np.testing.assert_array_equal(t, want.T)
    np.testing.assert_array_equal(r, want.reshape(-1))
    np.testing.assert_array_equal(iota, np.broadcast_to(np.arange(3, dtype=np.float32), (2, 3)))


def test_broadcast_in_dim_stretches_and_permutes():
    text = """
    func.func @main(%x: tensor<2x1xf32>, %y: tensor<2x3xf32>) -> (tensor<4x2x5xf32>, tensor<3x2xf32>, tensor<2x3xf32>) {
      %0 = stablehlo.broadcast_in_dim %x, dims = [1, 2] : (tensor<2x1xf32>) -> tensor<4x2x5xf32>
      %1 = stablehlo.broadcast_in_dim %y, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
      %2 = stablehlo.broadcast_in_dim %y, dims = [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0, %1, %2 : tensor<4x2x5xf32>, tensor<3x2xf32>, tensor<2x3xf32>
    }"""
    x = np.array([[1.0], [2.0]], np.float32)
    stretched, permuted, same = run_text(text, x, A)
    np.testing.assert_array_equal(stretched, np.broadcast_to(x[None], (4, 2, 5)))
    np.testing.assert_array_equal(permuted, A.T)
    np.testing.assert_array_equal(same, A)


def test_slices_and_updates():
    text = """
    func.func @main(%x: tensor<4x5xi32>, %i: tensor<i32>, %u: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2x3xi32>, tensor<4x5xi32>) {
      %0 = stablehlo.slice %x [1:4:2, 0:5:2] : (tensor<4x5xi32>) -> tensor<2x3xi32>
      %c = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.dynamic_slice %x, %i, %c, sizes = [2, 2] : (tensor<4x5xi32>, tensor<i32>, tensor<i32>) -> tensor<2x2xi32>
      %2 = stablehlo.dynamic_update_slice %x, %u, %i, %c : (tensor<4x5xi32>, tensor<2x2xi32>, tensor<i32>, tensor<i32>) -> tensor<4x5xi32>
      return %1, %0, %2 : tensor<2x2xi32>, tensor<2x3xi32>, tensor<4x5xi32>
    }"""
    x = np.arange(20, dtype=np.int32).reshape(4, 5)
    u = -np.ones((2, 2), np.int32)
    dyn, sliced, updated = run_text(text, x, np.int32(3), u)
    np.testing.assert_array_equal(sliced, x[1:4:2, 0:5:2])
    np.testing.assert_array_equal(dyn, x[2:4, 1:3])  # start 3 clamps to 2
    want = x.copy()
    want[2:4, 1:3] = -1
    np.testing.assert_array_equal(updated, want)


def test_concatenate_pad_reverse():
    text = """
    func.func @main(%x: tensor<2x3xf32>) -> (tensor<4x3xf32>, tensor<3x6xf32>, tensor<2x3xf32>) {
      %0 = stablehlo.concatenate %x, %x, dim = 0 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
      %v = stablehlo.constant dense<-1.0> : tensor<f32>
      %1 = stablehlo.pad %x, %v, low = [1, -1], high = [0, 2], interior = [0, 1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x6xf32>
      %2 = stablehlo.reverse %x, dims = [1] : tensor<2x3xf32>
      return %0, %1, %2 : tensor<4x3xf32>, tensor<3x6xf32>, tensor<2x3xf32>
    }"""
    joined, padded, reversed_ = run_text(text, A)
    np.testing.assert_array_equal(joined, np.concatenate([A, A]))
    interior = np.full((2, 5), -1, np.float32)
    interior[:, ::2] = A
    want = np.full((3, 6), -1, np.float32)
    want[1:, :4] = interior[:, 1:]
    np.testing.assert_array_equal(padded, want)
    np.testing.assert_array_equal(reversed_, A[:, ::-1])


def test_tuple_and_get_tuple_element():
    text = """
    func.func @main(%x: tensor<2xf32>, %y: tensor<i32>) -> (tensor<i32>, tensor<2xf32>) {
      %t = stablehlo.tuple %x, %y : tuple<tensor<2xf32>, tensor<i32>>
      %0 = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<i32>
      %1 = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf32>, tensor<i32>>) -> tensor<2xf32>
      return %0, %1 : tensor<i32>, tensor<2xf32>
    }"""
    y, x = run_text(text, np.array([1.0, 2.0], np.float32), np.int32(7))
    assert y == 7
    np.testing.assert_array_equal(x, [1.0, 2.0])


def test_get_dimension_size():
    text = """
    func.func @main(%x: tensor<2x3xf32>) -> tensor<i32> {
      %0 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xf32>) -> tensor<i32>
      return %0 : tensor<i32>
    }"""
    assert run_text(text, A) == 3


def test_dynamic_ops_fold_constant_shapes():
    text = """
    func.func @main(%x: tensor<3x1xi64>) -> (tensor<3x2x2xi64>, tensor<3x4xi64>, tensor<1x3xi64>, tensor<5x1xi64>) {
      %shape = stablehlo.constant dense<[3, 2, 2]> : tensor<3xi64>
      %0 = stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [0, 2] : (tensor<3x1xi64>, tensor<3xi64>) -> tensor<3x2x2xi64>
      %iota_shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
      %1 = stablehlo.dynamic_iota %iota_shape, dim = 0 : (tensor<2xi64>) -> tensor<3x4xi64>
      %rs = stablehlo.constant dense<[1, 3]> : tensor<2xi32>
      %rs64 = stablehlo.convert %rs : (tensor<2xi32>) -> tensor<2xi64>
      %2 = stablehlo.dynamic_reshape %x, %rs64 : (tensor<3x1xi64>, tensor<2xi64>) -> tensor<1x3xi64>
      %v = stablehlo.constant dense<0> : tensor<i64>
      %lo = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
      %hi = stablehlo.constant dense<[1, 0]> : tensor<2xi64>
      %in = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
      %3 = stablehlo.dynamic_pad %x, %v, %lo, %hi, %in : (tensor<3x1xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x1xi64>
      return %0, %1, %2, %3 : tensor<3x2x2xi64>, tensor<3x4xi64>, tensor<1x3xi64>, tensor<5x1xi64>
    }"""
    x = np.array([[1], [2], [3]], np.int64)
    broadcast, iota, reshaped, padded = run_text(text, x)
    np.testing.assert_array_equal(broadcast, np.broadcast_to(x[:, None, :], (3, 2, 2)))
    np.testing.assert_array_equal(iota, np.broadcast_to(np.arange(3)[:, None], (3, 4)))
    np.testing.assert_array_equal(reshaped, x.reshape(1, 3))
    np.testing.assert_array_equal(padded, np.pad(x, [(1, 1), (0, 0)]))


def test_dynamic_shape_from_runtime_value_is_unsupported():
    text = """
    func.func @main(%x: tensor<3xi64>, %shape: tensor<1xi64>) -> tensor<3xi64> {
      %0 = stablehlo.dynamic_reshape %x, %shape : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi64>
      return %0 : tensor<3xi64>
    }"""
    with pytest.raises(UnimplementedError, match=r"stablehlo.dynamic_reshape at line 3.*bounded"):
        lower_text(text)


def test_bounded_dynamic_shapes_lower():
    text = """
    func.func @main(%x: tensor<8xf32>, %n: tensor<i32>) -> (tensor<?xf32, #stablehlo.bounds<8>>, tensor<i32>) {
      %0 = stablehlo.set_dimension_size %x, %n, dim = 0 : (tensor<8xf32>, tensor<i32>) -> tensor<?xf32, #stablehlo.bounds<8>>
      %1 = stablehlo.get_dimension_size %0, dim = 0 : (tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<i32>
      return %0, %1 : tensor<?xf32, #stablehlo.bounds<8>>, tensor<i32>
    }"""
    hlo = lower_text(text).to_text()
    assert "f32[<=8]{0} set-dimension-size(x, n), dimensions={0}" in hlo
    assert "get-dimension-size(" in hlo


def test_unbounded_dynamic_types_need_argument_shapes():
    """A shape-polymorphic function has one HloModule per argument signature
    (tests/test_stablehlo_refine.py covers the refinement)."""
    text = """
    func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
      return %x : tensor<?xf32>
    }"""
    with pytest.raises(InvalidArgumentError, match=r"shape-polymorphic \(%x: tensor<\?xf32>\)"):
        lower_text(text)
    module = parse_program(text).hlo_module(argument_shapes=[Shape.array(PrimitiveType.F32, [3])])
    assert str(module.entry.program_shape.result) == "f32[3]{0}"
