"""The evaluator's entry points for other layers: one instruction, one computation."""

from __future__ import annotations

import numpy as np

from xlapy.evaluator import evaluate_computation, evaluate_instruction
from xlapy.hlo import parse_module
from xlapy.literal import Literal

MODULE = """HloModule m
ENTRY e {
  a = s32[3] parameter(0)
  b = s32[3] constant({0, -1, 1})
  d = s32[3] divide(a, b)
  ROOT r = s32[3] add(d, b)
}"""


def _instruction(module, name):
    return next(i for i in module.entry.instructions if i.name == name)


def test_evaluate_instruction_uses_the_kernel_semantics():
    module = parse_module(MODULE)
    divide = _instruction(module, "d")
    a = Literal.from_value(np.array([1, 2, 2**31 - 1], np.int32))
    result = evaluate_instruction(divide, [a, divide.operand(1).literal])
    np.testing.assert_array_equal(result.to_numpy(), [-1, -2, 2**31 - 1])  # x / 0 is -1


def test_evaluate_instruction_without_a_value_now_is_none():
    module = parse_module(MODULE)
    assert evaluate_instruction(_instruction(module, "a"), []) is None  # no kernel


def test_evaluate_computation_takes_and_gives_literals():
    module = parse_module(MODULE)
    a = Literal.from_value(np.array([4, 4, 4], np.int32))
    result = evaluate_computation(module.entry, [a])
    np.testing.assert_array_equal(result.to_numpy(), [-1, -5, 5])
