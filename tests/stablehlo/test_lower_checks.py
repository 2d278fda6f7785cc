"""check.* and interpreter.* ops become side-effecting custom-calls with JSON configs."""

from __future__ import annotations

import json

import numpy as np
import pytest

import xlapy
from xlapy.backends.interpreter import run
from xlapy.custom_call import unregister_custom_call
from xlapy.opcode import HloOpcode
from xlapy.stablehlo import parse_program


def lower_text(text: str, function: str | None = None):
    return parse_program(text).hlo_module(function)


def run_text(text: str, *args, function: str | None = None, **options):
    return run(lower_text(text, function), *args, **options)


def _custom_calls(module):
    return [i for c in module.computations for i in c.instructions
            if i.opcode is HloOpcode.CUSTOM_CALL]  # fmt: skip


def _configs(module):
    return [
        (i.custom_call_target, json.loads(i.attribute("backend_config")), i)
        for i in _custom_calls(module)
    ]


CHECKS = """
func.func @main() {
  %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %1 = stablehlo.constant dense<[1.0, 2.00001]> : tensor<2xf32>
  check.expect_eq %0, %0 : tensor<2xf32>
  check.expect_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_almost_eq %0, %1 : tensor<2xf32>
  check.expect_almost_eq %0, %1, tolerance = 1.0e-3 : tensor<2xf32>
  check.expect_almost_eq_const %0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %0, %1, max_ulp_difference = 3, min_ulp_difference = 1 : tensor<2xf32>, tensor<2xf32>
  func.return
}"""


def test_check_ops_become_custom_calls_with_json_configs():
    configs = [(t, c) for t, c, _ in _configs(lower_text(CHECKS))]
    assert configs == [
        ("check.expect_eq", {}),
        ("check.expect_eq_const", {}),
        ("check.expect_almost_eq", {"tolerance": 1e-4}),
        ("check.expect_almost_eq", {"tolerance": 1e-3}),
        ("check.expect_almost_eq_const", {"tolerance": 1e-4}),
        ("check.expect_close", {"min_ulp_difference": 0, "max_ulp_difference": 3}),
        ("check.expect_close", {"min_ulp_difference": 1, "max_ulp_difference": 3}),
    ]
    for _, _, call in _configs(lower_text(CHECKS)):
        assert call.attribute("custom_call_has_side_effect") is True
        assert call.shape.is_tuple and not call.shape.tuple_shapes


def test_checks_run_in_program_order_with_registered_targets():
    from xlapy.backends.interpreter import run

    calls = []
    names = ["check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
             "check.expect_almost_eq_const", "check.expect_close"]  # fmt: skip
    for name in names:
        xlapy.register_custom_call(name, lambda *a, _n=name: calls.append((_n, a)) or ())
    try:
        run(lower_text(CHECKS))
    finally:
        for name in names:
            unregister_custom_call(name)
    assert [n for n, _ in calls] == [
        "check.expect_eq", "check.expect_eq_const", "check.expect_almost_eq",
        "check.expect_almost_eq", "check.expect_almost_eq_const", "check.expect_close",
        "check.expect_close",
    ]  # fmt: skip
    np.testing.assert_array_equal(calls[1][1][1], [1.0, 2.0])  # the constant is an operand


JAX = {"form": "custom_call"}  # the runner applies the reference's bounds for this spelling


def test_jax_style_check_custom_calls():
    text = """
    func.func public @main() -> tensor<2xf32> {
      %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
      stablehlo.custom_call @check.expect_close(%0, %0) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      stablehlo.custom_call @check.expect_almost_eq(%0, %0) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      stablehlo.custom_call @check.expect_eq(%0, %0) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
      return %0 : tensor<2xf32>
    }"""
    configs = [(t, c) for t, c, _ in _configs(lower_text(text))]
    assert configs == [
        ("check.expect_close", {"min_ulp_difference": 0, "max_ulp_difference": 1, **JAX}),
        ("check.expect_almost_eq", {"tolerance": 1e-4, **JAX}),
        ("check.expect_eq", JAX),
    ]


def test_probe_print_and_serialized_eq():
    text = """
    func.func @main() {
      %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
      %1 = interpreter.probe %0, probe_id = "probe/0" : tensor<2xi64>
      interpreter.print %1 : tensor<2xi64>
      check.expect_serialized_eq %1, probe_id = "probe/0", iter = 2 : tensor<2xi64>
      func.return
    }"""
    (probe, pc, pi), (printed, prc, _), (serial, sc, _) = _configs(lower_text(text))
    assert (probe, pc) == ("interpreter.probe", {"probe_id": "probe/0"})
    assert str(pi.shape.without_layout()) == "s64[2]"
    assert (printed, prc) == ("interpreter.print", {"name": "%1", "type": "tensor<2xi64>"})
    assert (serial, sc) == ("check.expect_serialized_eq", {"probe_id": "probe/0", "iteration": 2})


RUN_PARALLEL = """
module @cross_replica {
  func.func @all_reduce(%operand : tensor<4xi64>) -> tensor<4xi64> {
    %result = "stablehlo.all_reduce"(%operand) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
        %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
        stablehlo.return %0 : tensor<i64>
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }
  func.func @queue() -> tensor<4xi64> {
    %0 = stablehlo.constant dense<0> : tensor<4xi64>
    return %0 : tensor<4xi64>
  }
  func.func @main() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %inputs1 = stablehlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs1) {
      programs=[[@all_reduce], [@all_reduce]], infeed=[@queue]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[6, 8, 10, 12]> : tensor<4xi64>
    check.expect_eq_const %results#1, dense<[6, 8, 10, 12]> : tensor<4xi64>
    func.return
  }
}"""


def test_run_parallel_names_the_programs():
    from xlapy.stablehlo import parse_program

    module = lower_text(RUN_PARALLEL)
    target, config, call = _configs(module)[0]
    assert target == "interpreter.run_parallel"
    assert config == {"programs": [["all_reduce"], ["all_reduce"]], "infeed": ["queue"]}
    assert len(call.shape.tuple_shapes) == 2
    program = parse_program(RUN_PARALLEL)
    assert program.function_names == ["all_reduce", "queue", "main"]
    assert program.hlo_module("all_reduce").entry.root.opcode is HloOpcode.ALL_REDUCE


def test_run_parallel_executes_through_a_registered_target():
    """The runner's job in miniature: run the named programs on replicas, return results."""
    from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
    from xlapy.literal import Literal
    from xlapy.stablehlo import parse_program

    program = parse_program(RUN_PARALLEL)
    config = {}

    def run_parallel(*operands):
        grid = config["programs"]
        module = program.hlo_module(grid[0][0])
        executable = InterpreterBackend().compile(
            module, InterpreterOptions(num_replicas=len(grid), num_partitions=len(grid[0]))
        )
        args = [[Literal.from_value(x)] for x in operands]
        return tuple(r.to_numpy() for r in executable.execute_replicated(args))

    seen = []
    module = program.hlo_module()
    config.update(_configs(module)[0][1])
    xlapy.register_custom_call("interpreter.run_parallel", run_parallel)
    xlapy.register_custom_call("check.expect_eq_const", lambda a, b: seen.append((a, b)) or ())
    try:
        run(module)
    finally:
        unregister_custom_call("interpreter.run_parallel")
        unregister_custom_call("check.expect_eq_const")
    for actual, expected in seen:
        np.testing.assert_array_equal(actual, expected)
    assert len(seen) == 2


def test_unknown_program_in_run_parallel_is_an_error():
    text = RUN_PARALLEL.replace("[[@all_reduce], [@all_reduce]]", "[[@nope]]")
    with pytest.raises(xlapy.errors.NotFoundError, match="nope"):
        lower_text(text)
