"""Expanders: ops the CPU backend has no loop for, rewritten into ops it has.

``BatchNormExpander`` turns batch-norm-inference, -training and -grad into
reductions, broadcasts and elementwise arithmetic (which then fuse), with the
formulas of the interpreter's kernels. They compute in the operand type, or in
f32 for narrower floats, and round once at the end.
"""

from __future__ import annotations

import math

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from ..literal import Literal
from ..shape import Shape
from ..types import PrimitiveType
from .pass_base import HloPass

Op = HloOpcode


class _Emitter:
    """Adds instructions to one computation, in one compute type."""

    def __init__(
        self, module: HloModule, computation: HloComputation, x: HloInstruction, feature: int
    ) -> None:
        self.module, self.computation = module, computation
        stored = x.shape.element_type
        self.et = stored if stored in (PrimitiveType.F32, PrimitiveType.F64) else PrimitiveType.F32
        self.dims = x.shape.dimensions
        self.feature = feature
        self.axes = tuple(d for d in range(len(self.dims)) if d != feature)
        self.count = math.prod(self.dims[d] for d in self.axes)
        self.full = Shape.array(self.et, self.dims)
        self.vector = Shape.array(self.et, [self.dims[feature]])
        self._add: HloComputation | None = None

    def add(self, instruction: HloInstruction) -> HloInstruction:
        return self.computation.add_instruction(instruction)

    def op(
        self, opcode: HloOpcode, shape: Shape, *operands: HloInstruction, **attributes: object
    ) -> HloInstruction:
        return self.add(HloInstruction(opcode, shape, list(operands), attributes=attributes))

    def wide(self, value: HloInstruction) -> HloInstruction:
        if value.shape.element_type == self.et:
            return value
        return self.op(Op.CONVERT, value.shape.with_element_type(self.et), value)

    def scalar(self, value: float) -> HloInstruction:
        return self.add(HloInstruction.create_constant(Literal.scalar(value, self.et)))

    def splat(self, value: float, shape: Shape) -> HloInstruction:
        return self.op(Op.BROADCAST, shape, self.scalar(value), dimensions=())

    def spread(self, vector: HloInstruction) -> HloInstruction:
        """A per-feature vector broadcast over the operand's shape."""
        return self.op(Op.BROADCAST, self.full, vector, dimensions=(self.feature,))

    def total(self, value: HloInstruction) -> HloInstruction:
        if self._add is None:
            t = self.et.hlo_name
            a = HloInstruction.create_parameter(0, Shape.array(self.et, []), name="a")
            b = HloInstruction.create_parameter(1, Shape.array(self.et, []), name="b")
            root = HloInstruction(Op.ADD, Shape.array(self.et, []), [a, b], name="sum")
            self._add = HloComputation(f"batch_norm_add_{t}", [a, b, root], root=root)
            self.module.add_computation(self._add)
        return self.op(
            Op.REDUCE,
            self.vector,
            value,
            self.scalar(0.0),
            dimensions=self.axes,
            to_apply=self._add,
        )

    def mean(self, value: HloInstruction) -> HloInstruction:
        return self.op(
            Op.DIVIDE, self.vector, self.total(value), self.splat(float(self.count), self.vector)
        )

    def narrow(self, value: HloInstruction, shape: Shape) -> HloInstruction:
        if value.shape.element_type == shape.element_type:
            return value
        return self.op(Op.CONVERT, value.shape.with_element_type(shape.element_type), value)


def _inverse_std(e: _Emitter, var: HloInstruction, epsilon: float) -> HloInstruction:
    return e.op(Op.RSQRT, e.vector, e.op(Op.ADD, e.vector, var, e.splat(epsilon, e.vector)))


def _normalize(e: _Emitter, x, mean, var, scale, offset, epsilon) -> HloInstruction:  # noqa: ANN001
    centered = e.op(Op.SUBTRACT, e.full, x, e.spread(mean))
    factor = e.op(Op.MULTIPLY, e.vector, scale, _inverse_std(e, var, epsilon))
    return e.op(
        Op.ADD, e.full, e.op(Op.MULTIPLY, e.full, centered, e.spread(factor)), e.spread(offset)
    )


def _expand_inference(module: HloModule, bn: HloInstruction) -> HloInstruction:
    e = _Emitter(module, bn.parent, bn.operand(0), int(bn.attribute("feature_index")))
    x, scale, offset, mean, var = (e.wide(o) for o in bn.operands)
    y = _normalize(e, x, mean, var, scale, offset, float(bn.attribute("epsilon")))
    return e.narrow(y, bn.shape)


def _expand_training(module: HloModule, bn: HloInstruction) -> HloInstruction:
    e = _Emitter(module, bn.parent, bn.operand(0), int(bn.attribute("feature_index")))
    x, scale, offset = (e.wide(o) for o in bn.operands)
    mean = e.mean(x)
    centered = e.op(Op.SUBTRACT, e.full, x, e.spread(mean))
    var = e.mean(e.op(Op.MULTIPLY, e.full, centered, centered))
    y = _normalize(e, x, mean, var, scale, offset, float(bn.attribute("epsilon")))
    shapes = bn.shape.tuple_shapes
    parts = [e.narrow(v, s) for v, s in zip((y, mean, var), shapes, strict=True)]
    return e.op(Op.TUPLE, bn.shape, *parts)


def _expand_grad(module: HloModule, bn: HloInstruction) -> HloInstruction:
    e = _Emitter(module, bn.parent, bn.operand(0), int(bn.attribute("feature_index")))
    x, scale, mean, var, dy = (e.wide(o) for o in bn.operands)
    epsilon = float(bn.attribute("epsilon"))
    inv_std = _inverse_std(e, var, epsilon)
    centered = e.op(Op.SUBTRACT, e.full, x, e.spread(mean))
    d_offset = e.total(dy)
    d_centered = e.total(e.op(Op.MULTIPLY, e.full, dy, centered))
    d_scale = e.op(Op.MULTIPLY, e.vector, d_centered, inv_std)
    count = e.splat(float(e.count), e.vector)
    mean_dy = e.op(Op.DIVIDE, e.vector, d_offset, count)
    var_eps = e.op(Op.ADD, e.vector, var, e.splat(epsilon, e.vector))
    slope = e.op(Op.DIVIDE, e.vector, d_centered, e.op(Op.MULTIPLY, e.vector, count, var_eps))
    inner = e.op(Op.SUBTRACT, e.full, dy, e.spread(mean_dy))
    inner = e.op(Op.SUBTRACT, e.full, inner, e.op(Op.MULTIPLY, e.full, centered, e.spread(slope)))
    dx = e.op(Op.MULTIPLY, e.full, e.spread(e.op(Op.MULTIPLY, e.vector, scale, inv_std)), inner)
    shapes = bn.shape.tuple_shapes
    parts = [e.narrow(v, s) for v, s in zip((dx, d_scale, d_offset), shapes, strict=True)]
    return e.op(Op.TUPLE, bn.shape, *parts)


_EXPANSIONS = {
    Op.BATCH_NORM_INFERENCE: _expand_inference,
    Op.BATCH_NORM_TRAINING: _expand_training,
    Op.BATCH_NORM_GRAD: _expand_grad,
}


class BatchNormExpander(HloPass):
    name = "batch-norm-expander"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for instruction in list(computation.instructions):
                expand = _EXPANSIONS.get(instruction.opcode)
                if expand is None or instruction.parent is not computation:
                    continue
                types = {o.shape.element_type for o in instruction.operands}
                if not all(t.is_float and t.bit_width >= 16 for t in types):
                    continue
                replacement = expand(module, instruction)
                computation.replace_instruction(instruction, replacement)
                computation.sort_topologically()
                changed = True
        return changed
