"""What an instruction costs: floating-point operations, transcendental calls, bytes moved.

A small model after XLA's ``HloCostAnalysis``, used by the profiler (``xlapy profile``)
to put a kernel's measured time beside the work it did, and so to say how close it came
to the machine's memory bandwidth or arithmetic peak (its roofline).

The model, per instruction:

* bytes moved: every array leaf of the operands read once plus every array leaf of the
  result written once. A fusion moves its operands and result only (what it computes
  inside stays in registers); control flow (while, conditional, call) moves nothing of
  its own: the computations it runs are counted where they run.
* FLOPs: an elementwise op does one per result element (a transcendental one, ``exp``,
  ``tanh``, ``sqrt``..., counts as a transcendental instead, as XLA counts them); a dot
  ``2 * M * N * K`` (result elements times twice the contracted size); a convolution
  ``2 * out * window * in_features`` (output elements times twice the kernel's spatial
  size times its input features per group); a reduction one per input element and
  reduced operand; a reduce-window one per output element and window element; a sort
  ``n * log2(n)`` comparisons per sorted row; an FFT ``5 * n * log2(n)`` per transform.
  A fusion does what its fused instructions do. Movement and indexing ops do none.

Counts are estimates of the work the program asks for, not of the instructions the
machine runs (a vectorized exp is many multiply-adds; it counts as one transcendental).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from ..shape import Shape

Op = HloOpcode


@dataclass(frozen=True)
class Cost:
    """The work of one run of an instruction."""

    flops: int = 0
    transcendentals: int = 0
    bytes_accessed: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            self.flops + other.flops,
            self.transcendentals + other.transcendentals,
            self.bytes_accessed + other.bytes_accessed,
        )

    def scaled(self, times: int) -> Cost:
        return Cost(self.flops * times, self.transcendentals * times, self.bytes_accessed * times)


# Elementwise ops XLA counts as transcendental rather than as FLOPs.
TRANSCENDENTAL = frozenset(
    {
        Op.EXP, Op.EXPM1, Op.LOG, Op.LOG1P, Op.POWER, Op.SQRT, Op.RSQRT, Op.CBRT, Op.TANH,
        Op.SIN, Op.COS, Op.TAN, Op.LOGISTIC, Op.ATAN2, Op.ERF, Op.ASIN, Op.ACOS, Op.ATAN,
        Op.SINH, Op.COSH, Op.ASINH, Op.ACOSH, Op.ATANH,
    }
)  # fmt: skip

# Instructions that compute nothing and move nothing of their own: they name values,
# or the work happens in the computations they call.
NO_WORK = frozenset(
    {
        Op.PARAMETER, Op.CONSTANT, Op.TUPLE, Op.GET_TUPLE_ELEMENT, Op.BITCAST,
        Op.OPTIMIZATION_BARRIER, Op.ADD_DEPENDENCY, Op.AFTER_ALL, Op.WHILE,
        Op.CONDITIONAL, Op.CALL,
    }
)  # fmt: skip

# Elementwise in form but pure data movement: bytes, no FLOPs.
MOVES_ONLY = frozenset({Op.COPY, Op.REAL, Op.IMAG})


def _array_shapes(shape: Shape) -> list[Shape]:
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in _array_shapes(s)]
    return [shape] if shape.is_array and not shape.is_unbounded_dynamic else []


def shape_bytes(shape: Shape) -> int:
    """Bytes of every array leaf of ``shape``."""
    return sum(s.byte_size() for s in _array_shapes(shape))


def _elements(shape: Shape) -> int:
    return sum(s.element_count() for s in _array_shapes(shape))


def bytes_moved(instruction: HloInstruction) -> int:
    """The instruction's operands read once and its result written once."""
    if instruction.opcode in NO_WORK:
        return 0
    operands = sum(shape_bytes(o.shape) for o in instruction.iter_operands_unique())
    return operands + shape_bytes(instruction.shape)


def _elementwise(instruction: HloInstruction) -> Cost:
    count = _elements(instruction.shape)
    if instruction.opcode in TRANSCENDENTAL:
        return Cost(transcendentals=count)
    return Cost(flops=count)


def _dot(instruction: HloInstruction) -> Cost:
    numbers = instruction.dot_dimension_numbers
    lhs = instruction.operand(0).shape
    contracted = math.prod(lhs.dimensions[d] for d in numbers.lhs_contracting_dimensions)
    return Cost(flops=2 * _elements(instruction.shape) * contracted)


def _convolution(instruction: HloInstruction) -> Cost:
    numbers = instruction.convolution_dimension_numbers
    kernel = instruction.operand(1).shape
    if numbers is None:
        window = math.prod(kernel.dimensions[2:])
        features = kernel.dimensions[0] if kernel.rank else 1
    else:
        window = math.prod(kernel.dimensions[d] for d in numbers.kernel_spatial_dimensions)
        features = kernel.dimensions[numbers.kernel_input_feature_dimension]
    return Cost(flops=2 * _elements(instruction.shape) * window * features)


def _reduce(instruction: HloInstruction) -> Cost:
    inputs = instruction.operands[: len(instruction.operands) // 2]
    return Cost(flops=sum(_elements(o.shape) for o in inputs))


def _reduce_window(instruction: HloInstruction) -> Cost:
    window = instruction.window
    size = math.prod(d.size for d in window.dimensions) if window is not None else 1
    inputs = max(1, len(instruction.operands) // 2)
    return Cost(flops=_elements(_array_shapes(instruction.shape)[0]) * size * inputs)


def _sort(instruction: HloInstruction) -> Cost:
    keys = instruction.operand(0).shape
    dimension = instruction.dimensions[0] if instruction.dimensions else keys.rank - 1
    n = keys.dimensions[dimension] if keys.rank else 1
    rows = keys.element_count() // max(1, n)
    return Cost(flops=int(rows * n * math.log2(max(2, n))))


def _fft(instruction: HloInstruction) -> Cost:
    lengths = [int(v) for v in instruction.attribute("fft_length", ()) or ()]
    n = math.prod(lengths) if lengths else 1
    transforms = _elements(instruction.operand(0).shape) // max(1, n)
    return Cost(flops=int(5 * transforms * n * math.log2(max(2, n))))


def _fusion(instruction: HloInstruction) -> Cost:
    inner = Cost()
    fused = instruction.fused_computation
    if fused is not None:
        for member in fused.instructions:
            inner = inner + compute_cost(member)
    return inner


_RULES: dict[HloOpcode, Callable[[HloInstruction], Cost]] = {
    Op.DOT: _dot,
    Op.CONVOLUTION: _convolution,
    Op.REDUCE: _reduce,
    Op.REDUCE_WINDOW: _reduce_window,
    Op.SORT: _sort,
    Op.FFT: _fft,
    Op.FUSION: _fusion,
}


def compute_cost(instruction: HloInstruction) -> Cost:
    """The FLOPs and transcendentals of one run of ``instruction`` (no bytes)."""
    rule = _RULES.get(instruction.opcode)
    if rule is not None:
        return rule(instruction)
    op = instruction.opcode
    if op.is_elementwise and op not in NO_WORK and op not in MOVES_ONLY:
        return _elementwise(instruction)
    return Cost()


def instruction_cost(instruction: HloInstruction) -> Cost:
    """What one run of ``instruction`` costs: its compute plus the bytes it moves."""
    return compute_cost(instruction) + Cost(bytes_accessed=bytes_moved(instruction))


__all__ = [
    "Cost",
    "TRANSCENDENTAL",
    "bytes_moved",
    "compute_cost",
    "instruction_cost",
    "shape_bytes",
]
