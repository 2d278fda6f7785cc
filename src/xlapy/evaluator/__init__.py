"""The HLO evaluator (XLA's ``hlo/evaluator``): runs any HLO computation with numpy.

A layer below the passes and the backends, so that everything that needs an
instruction's value computes it the same way: constant folding, the StableHLO
importer's folding of shape arguments, the CPU backend's fallback for ops
without native code, and the interpreter backend, which is a thin executable
over :func:`evaluate`. Importing the package registers every kernel (one
module per op family in ``kernels/``).

Entry points: :func:`evaluate` (values in, value out, for executables that
manage devices), :func:`evaluate_computation` (literals in and out) and
:func:`evaluate_instruction` (one instruction on constant operands, None when
it cannot be evaluated now: what constant folding needs).
"""

from . import kernels  # noqa: F401  (registers every kernel)
from .core import (
    EVALUATOR_OPCODES,
    KERNELS,
    MAX_NESTED_CALLS,
    TOKEN,
    DeviceContext,
    EvalContext,
    FeedQueues,
    Token,
    Value,
    array_for,
    c_contiguous,
    call_scalar,
    check_result_size,
    copy_value,
    device_context,
    evaluate,
    evaluate_computation,
    evaluate_instruction,
    index_scalar,
    kernel,
    literal_from_value,
    value_from_literal,
    value_of_shape,
)

__all__ = [
    "EVALUATOR_OPCODES",
    "KERNELS",
    "MAX_NESTED_CALLS",
    "TOKEN",
    "DeviceContext",
    "FeedQueues",
    "EvalContext",
    "Token",
    "Value",
    "array_for",
    "c_contiguous",
    "call_scalar",
    "check_result_size",
    "device_context",
    "copy_value",
    "evaluate",
    "evaluate_computation",
    "evaluate_instruction",
    "index_scalar",
    "kernel",
    "literal_from_value",
    "value_from_literal",
    "value_of_shape",
]
