"""``ReduceWindowAsSlices``: a small-window reduce-window as strided slices combined
elementwise.

Why: a back-end whose kernels are loops over their output (the GPU's, today) has no
window emitter; but each output element of a reduce-window is the reducer folded over
the window's elements, and the element at window offset ``k`` of every output is one
strided slice of the padded (base-dilated) input. So the reduce-window equals
``init (+) slice_0 (+) slice_1 ...`` for a binary elementwise reducer ``(+)``: one
fusible loop. Done for single-input windows of at most :data:`MAX_WINDOW_ELEMENTS`
elements whose reducer is one elementwise op of its two parameters (add, max, min,
multiply, and, or): pooling, running sums over short windows. Padding elements are the
init value, as the spec defines them.
"""

from __future__ import annotations

import itertools
import math

from ... import ops
from ...builder import XlaBuilder
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ...xla_data import PaddingConfig
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
MAX_WINDOW_ELEMENTS = 64
_REDUCERS = {
    Op.ADD: ops.Add,
    Op.MAXIMUM: ops.Max,
    Op.MINIMUM: ops.Min,
    Op.MULTIPLY: ops.Mul,
    Op.AND: ops.And,
    Op.OR: ops.Or,
}


def _elementwise_reducer(computation: HloComputation) -> object | None:
    root = computation.root
    parameters = set(map(id, computation.parameters))
    if (
        root.opcode in _REDUCERS
        and len(computation.instructions) == 3
        and {id(o) for o in root.operands} == parameters
    ):
        return _REDUCERS[root.opcode]
    return None


def _expansion(instruction: HloInstruction) -> tuple[XlaBuilder, object] | None:
    if instruction.operand_count != 2 or not instruction.shape.is_array:
        return None
    operand, init = instruction.operands
    combine = _elementwise_reducer(instruction.attribute("to_apply"))
    window = instruction.window
    if combine is None or window is None or not operand.shape.is_static:
        return None
    dims = window.dimensions
    if any(d.window_reversal for d in dims):
        return None
    sizes = [d.size for d in dims]
    if math.prod(sizes) > MAX_WINDOW_ELEMENTS:
        return None
    et = operand.shape.element_type
    out = list(instruction.shape.dimensions)
    b = XlaBuilder(f"{instruction.name}_as_slices")
    x = ops.Parameter(b, 0, Shape.array(et, operand.shape.dimensions), "operand")
    v = ops.Parameter(b, 1, Shape.array(et, []), "init")
    padded = ops.Pad(
        x,
        v,
        PaddingConfig.from_triples(
            [(d.padding_low, d.padding_high, d.base_dilation - 1) for d in dims]
        ),
    )
    result = ops.Broadcast(v, out)
    for offset in itertools.product(*(range(s) for s in sizes)):
        starts = [k * d.window_dilation for k, d in zip(offset, dims, strict=True)]
        limits = [
            start + (n - 1) * d.stride + 1 for start, n, d in zip(starts, out, dims, strict=True)
        ]
        part = ops.Slice(padded, starts, limits, [d.stride for d in dims])
        result = combine(result, part)
    return b, result


class ReduceWindowAsSlices(ExpanderPass):
    """Small-window reduce-windows become slices and elementwise ops (module docstring)."""

    name = "reduce-window-as-slices"
    opcodes = frozenset({Op.REDUCE_WINDOW})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if any(n == 0 for n in instruction.shape.dimensions):
            return None
        built = _expansion(instruction)
        if built is None:
            return None
        builder, root = built
        return splice_computation(instruction, builder.build(root))


__all__ = ["MAX_WINDOW_ELEMENTS", "ReduceWindowAsSlices"]
