"""The HLO evaluator (XLA's ``hlo/evaluator``): runs any HLO computation with numpy.

A layer below the passes and the backends, so that everything that needs an
instruction's value computes it the same way: constant folding, the StableHLO
importer's folding of shape arguments, the CPU backend's fallback for ops
without native code, and the interpreter backend, which is a thin executable
over :func:`evaluate`. Importing the package registers every kernel (one
module per op family in ``kernels/``).
"""

from . import kernels  # noqa: F401  (registers every kernel)
from .core import (
    EVALUATOR_OPCODES,
    KERNELS,
    MAX_NESTED_CALLS,
    TOKEN,
    DeviceContext,
    EvalContext,
    Token,
    Value,
    array_for,
    c_contiguous,
    check_result_size,
    evaluate,
    kernel,
    literal_from_value,
    value_from_literal,
)

__all__ = [
    "EVALUATOR_OPCODES",
    "KERNELS",
    "MAX_NESTED_CALLS",
    "TOKEN",
    "DeviceContext",
    "EvalContext",
    "Token",
    "Value",
    "array_for",
    "c_contiguous",
    "check_result_size",
    "evaluate",
    "kernel",
    "literal_from_value",
    "value_from_literal",
]
