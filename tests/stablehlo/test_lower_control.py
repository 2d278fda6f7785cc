"""Control flow, calls and custom calls: while/if/case with captured values, func.call,
composite, custom_call, optimization_barrier, tokens."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.backends.interpreter import run
from xlapy.custom_call import unregister_custom_call
from xlapy.opcode import HloOpcode
from xlapy.stablehlo import parse_program
from xlapy.xla_data import CustomCallApiVersion


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


def test_while_with_captured_value():
    # sum = 0; i = 0; while i < n: sum += step; i += 1   (step is captured from outside)
    text = """
    func.func @main(%n: tensor<i64>, %step: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
      %zero = stablehlo.constant dense<0> : tensor<i64>
      %one = stablehlo.constant dense<1> : tensor<i64>
      %0:2 = stablehlo.while(%i = %zero, %sum = %zero) : tensor<i64>, tensor<i64>
      cond {
        %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      } do {
        %s = stablehlo.add %sum, %step : tensor<i64>
        %j = stablehlo.add %i, %one : tensor<i64>
        stablehlo.return %j, %s : tensor<i64>, tensor<i64>
      }
      return %0#0, %0#1 : tensor<i64>, tensor<i64>
    }"""
    i, total = run_text(text, np.int64(5), np.int64(3))
    assert (i, total) == (5, 15)
    module = lower_text(text)
    loop = next(x for x in module.entry.instructions if x.opcode is HloOpcode.WHILE)
    assert len(loop.shape.tuple_shapes) == 4  # i, sum, and the captured n and step


def test_while_single_value():
    text = """
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = "stablehlo.while"(%x) ({
      ^bb0(%a: tensor<f32>):
        %lim = stablehlo.constant dense<100.0> : tensor<f32>
        %c = stablehlo.compare LT, %a, %lim : (tensor<f32>, tensor<f32>) -> tensor<i1>
        stablehlo.return %c : tensor<i1>
      }, {
      ^bb0(%a: tensor<f32>):
        %d = stablehlo.add %a, %a : tensor<f32>
        stablehlo.return %d : tensor<f32>
      }) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }"""
    assert run_text(text, np.float32(3.0)) == 192.0


def test_if_with_captures():
    text = """
    func.func @main(%p: tensor<i1>, %x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "stablehlo.if"(%p) ({
        %a = stablehlo.add %x, %y : tensor<2xf32>
        stablehlo.return %a : tensor<2xf32>
      }, {
        %m = stablehlo.multiply %x, %y : tensor<2xf32>
        stablehlo.return %m : tensor<2xf32>
      }) : (tensor<i1>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    x, y = np.array([1.0, 2.0], np.float32), np.array([3.0, 4.0], np.float32)
    np.testing.assert_array_equal(run_text(text, np.bool_(True), x, y), x + y)
    np.testing.assert_array_equal(run_text(text, np.bool_(False), x, y), x * y)


def test_case_with_several_results():
    text = """
    func.func @main(%i: tensor<i32>, %x: tensor<i64>) -> (tensor<i64>, tensor<i64>) {
      %0:2 = "stablehlo.case"(%i) ({
        %c = stablehlo.constant dense<10> : tensor<i64>
        stablehlo.return %c, %x : tensor<i64>, tensor<i64>
      }, {
        %n = stablehlo.negate %x : tensor<i64>
        stablehlo.return %n, %n : tensor<i64>, tensor<i64>
      }) : (tensor<i32>) -> (tensor<i64>, tensor<i64>)
      return %0#0, %0#1 : tensor<i64>, tensor<i64>
    }"""
    assert run_text(text, np.int32(0), np.int64(4)) == (10, 4)
    assert run_text(text, np.int32(1), np.int64(4)) == (-4, -4)
    assert run_text(text, np.int32(7), np.int64(4)) == (-4, -4)  # out of range: the last


def test_calls_with_several_results():
    text = """
    module @m {
      func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
        %0:2 = call @split(%x) : (tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
        %1 = func.call @join(%0#0, %0#1) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
        return %1 : tensor<3xf32>
      }
      func.func private @split(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
        %n = stablehlo.negate %x : tensor<3xf32>
        return %x, %n : tensor<3xf32>, tensor<3xf32>
      }
      func.func private @join(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
        %s = stablehlo.subtract %a, %b : tensor<3xf32>
        return %s : tensor<3xf32>
      }
    }"""
    x = np.array([1.0, -2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run_text(text, x), 2 * x)
    module = lower_text(text)
    assert module.name == "m"
    assert sum(i.opcode is HloOpcode.CALL for i in module.entry.instructions) == 2


def test_composite_calls_its_decomposition():
    text = """
    func.func @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
      %0 = stablehlo.constant dense<2> : tensor<i64>
      %1 = stablehlo.add %arg0, %0 : tensor<i64>
      func.return %1 : tensor<i64>
    }
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %1 = stablehlo.composite "stablehlo.add_n" %x {
        composite_attributes = { n = 2 : i64 },
        decomposition = @add_n.impl
      } : (tensor<i64>) -> tensor<i64>
      return %1 : tensor<i64>
    }"""
    assert run_text(text, np.int64(1)) == 3
    hlo = lower_text(text).to_text()
    assert "is_composite=true" in hlo and "stablehlo.add_n" in hlo


def test_custom_call_runs_a_registered_target():
    seen = []

    def target(x, y):
        seen.append((x.copy(), y.copy()))
        return x * 2 + y

    xlapy.register_custom_call("test.stablehlo.fma2", target)
    try:
        text = """
        func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
          %0 = stablehlo.custom_call @test.stablehlo.fma2(%x, %y) {backend_config = "opaque!", has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
          return %0 : tensor<2xf32>
        }"""
        x, y = np.array([1.0, 2.0], np.float32), np.array([0.5, 0.25], np.float32)
        np.testing.assert_array_equal(run_text(text, x, y), x * 2 + y)
        assert len(seen) == 1
        call = next(
            i for i in lower_text(text).entry.instructions if i.opcode is HloOpcode.CUSTOM_CALL
        )
        assert call.attribute("backend_config") == "opaque!"
        assert call.attribute("custom_call_has_side_effect") is True
    finally:
        unregister_custom_call("test.stablehlo.fma2")


def test_custom_call_with_several_results_and_dictionary_config():
    text = """
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>) {
      %0:2 = stablehlo.custom_call @pair(%x) {api_version = 4 : i32, backend_config = {n = 3 : i64}} : (tensor<2xf32>) -> (tensor<2xf32>, tensor<i32>)
      return %0#0, %0#1 : tensor<2xf32>, tensor<i32>
    }"""
    module = lower_text(text)
    call = next(i for i in module.entry.instructions if i.opcode is HloOpcode.CUSTOM_CALL)
    assert call.shape.is_tuple and len(call.shape.tuple_shapes) == 2
    assert "n = 3" in call.attribute("backend_config")


def test_sharding_annotation_is_the_identity():
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @Sharding(%x) {mhlo.sharding = "{replicated}"} : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    module = lower_text(text)
    # kept, as XLA keeps it, for a partitioner; on one device it is the identity
    (call,) = [i for i in module.entry.instructions if i.opcode is HloOpcode.CUSTOM_CALL]
    assert call.custom_call_target == "Sharding"
    assert "sharding={replicated}" in module.to_text()
    x = np.array([1.5, -2.0], np.float32)
    np.testing.assert_array_equal(run(module, x), x)


def test_optimization_barrier_and_tokens():
    text = """
    func.func @main(%x: tensor<2xf32>, %y: tensor<i32>) -> (tensor<2xf32>, tensor<i32>, !stablehlo.token) {
      %0:2 = stablehlo.optimization_barrier %x, %y : tensor<2xf32>, tensor<i32>
      %t0 = stablehlo.create_token : !stablehlo.token
      %t1 = stablehlo.after_all : !stablehlo.token
      %t = stablehlo.after_all %t0, %t1 : !stablehlo.token
      return %0#0, %0#1, %t : tensor<2xf32>, tensor<i32>, !stablehlo.token
    }"""
    x, y, _ = run_text(text, np.array([1.0, 2.0], np.float32), np.int32(5))
    np.testing.assert_array_equal(x, [1.0, 2.0])
    assert y == 5


def test_recursion_is_rejected():
    text = """
    func.func @main(%x: tensor<f32>) -> tensor<f32> {
      %0 = call @main(%x) : (tensor<f32>) -> tensor<f32>
      return %0 : tensor<f32>
    }"""
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="recursive"):
        lower_text(text)


def test_custom_call_aliasing_api_version_and_layouts():
    text = """
    func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
      %0 = "stablehlo.custom_call"(%x) {
        call_target_name = "update_in_place",
        api_version = 2 : i32,
        operand_layouts = [dense<[0, 1]> : tensor<2xindex>],
        result_layouts = [dense<[0, 1]> : tensor<2xindex>],
        output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 0, operand_tuple_indices = []>]
      } : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %0 : tensor<2x3xf32>
    }"""
    hlo = lower_text(text).to_text()
    assert 'custom_call_target="update_in_place"' in hlo
    assert "output_to_operand_aliasing={{}: (0, {})}" in hlo
    assert "api_version=API_VERSION_STATUS_RETURNING" in hlo
    assert "f32[2,3]{0,1}" in hlo and "operand_layout_constraints={f32[2,3]{0,1}}" in hlo


def test_jax_ffi_dictionary_config():
    text = """
    func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
      %0 = stablehlo.custom_call @my_ffi(%x) {api_version = 4 : i32, mhlo.backend_config = {uplo = 76 : ui8}} : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }"""
    call = next(i for i in lower_text(text).entry.instructions if i.opcode is HloOpcode.CUSTOM_CALL)
    assert call.attribute("backend_config") == "{uplo = 76 : ui8}"
    assert call.attribute("api_version") is CustomCallApiVersion.API_VERSION_TYPED_FFI


def test_block_arguments_shadow_outer_constants():
    # The loop's block argument %c has the name of an outer constant; the if inside the
    # body must see the argument, not re-create the constant.
    text = """
    func.func @main(%x: tensor<i64>) -> tensor<i64> {
      %c = stablehlo.constant dense<100> : tensor<i64>
      %0 = "stablehlo.while"(%x) ({
      ^bb0(%c: tensor<i64>):
        %lim = stablehlo.constant dense<10> : tensor<i64>
        %p = stablehlo.compare LT, %c, %lim : (tensor<i64>, tensor<i64>) -> tensor<i1>
        stablehlo.return %p : tensor<i1>
      }, {
      ^bb0(%c: tensor<i64>):
        %t = stablehlo.constant dense<true> : tensor<i1>
        %n = "stablehlo.if"(%t) ({
          %one = stablehlo.constant dense<1> : tensor<i64>
          %s = stablehlo.add %c, %one : tensor<i64>
          stablehlo.return %s : tensor<i64>
        }, {
          stablehlo.return %c : tensor<i64>
        }) : (tensor<i1>) -> tensor<i64>
        stablehlo.return %n : tensor<i64>
      }) : (tensor<i64>) -> tensor<i64>
      return %0 : tensor<i64>
    }"""
    assert run_text(text, np.int64(3)) == 10
