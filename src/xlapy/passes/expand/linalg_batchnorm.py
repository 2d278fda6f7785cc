"""``BatchNormExpander``: batch norm rewritten into ops a simple backend has loops for.

Why: a backend made of elementwise, reduce, movement and dot emitters should
not need an emitter for every composite op; this pass spells batch norm in
terms of those (which then fuse), with the same results.

Batch norm. As XLA's expander: training takes ``E[x]`` and ``E[x^2]`` in one
pass each and ``Var[x] = E[x^2] - E[x]^2`` (the biased variance), normalizes
as ``(x - E[x]) * rsqrt(Var[x] + eps) * scale + offset``; inference folds scale
and shift into one multiply-add per element: ``x * s + (offset - mean * s)``
with ``s = scale * rsqrt(var + eps)``; grad is XLA's
``scale * rsqrt(var + eps) / N * (N * dy - sum(dy) - (x - mean) * sum(dy * (x -
mean)) / (var + eps))``. XLA computes in the operand type; here f16, bf16 and
8-bit floats compute in f32 and round once at the end (what XLA:CPU's float
normalization does to those ops anyway), f32 and f64 in their own type.
"""

from __future__ import annotations

import math

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ..rewrite import ExpanderPass
from ..simplify.algebraic_simplifier_support import same_shape

Op = HloOpcode


def scalar_add_computation(module: HloModule, et: PrimitiveType) -> HloComputation:
    """A new ``add`` of two ``et`` scalars, added to ``module`` (a reducer)."""
    scalar = Shape.scalar(et)
    a = HloInstruction.create_parameter(0, scalar, name="lhs")
    b = HloInstruction.create_parameter(1, scalar, name="rhs")
    root = HloInstruction(Op.ADD, scalar, [a, b], name="sum")
    return module.add_computation(HloComputation(f"add_{et.hlo_name}", [a, b, root], root=root))


class _Emitter:
    """Adds instructions to one computation, in one compute type, for one feature axis."""

    def __init__(self, module: HloModule, bn: HloInstruction) -> None:
        x = bn.operand(0)
        self.module, self.computation = module, bn.parent
        stored = x.shape.element_type
        self.et = stored if stored in (PrimitiveType.F32, PrimitiveType.F64) else PrimitiveType.F32
        self.dims = x.shape.dimensions
        self.feature = int(bn.attribute("feature_index"))
        self.epsilon = float(bn.attribute("epsilon"))
        self.axes = tuple(d for d in range(len(self.dims)) if d != self.feature)
        self.count = math.prod(self.dims[d] for d in self.axes)
        self.full = Shape.array(self.et, self.dims)
        self.vector = Shape.array(self.et, [self.dims[self.feature]])
        self._add: HloComputation | None = None

    def op(
        self, opcode: HloOpcode, *operands: HloInstruction, **attributes: object
    ) -> HloInstruction:
        """An elementwise op (or reduce) of full or per-feature shape, from its first operand.

        The shapes are the emitter's own (default layouts whatever the batch norm's
        operands carry), which inference from laid-out operands would not give."""
        shape = self.full if operands[0].shape.rank == len(self.dims) else self.vector
        if opcode is Op.REDUCE:
            shape = self.vector
        instruction = HloInstruction(opcode, shape, list(operands), attributes=attributes)
        return self.computation.add_instruction(instruction)

    def wide(self, value: HloInstruction) -> HloInstruction:
        if value.shape.element_type == self.et:
            return value
        shape = value.shape.with_element_type(self.et)
        return self.computation.add_instruction(HloInstruction(Op.CONVERT, shape, [value]))

    def narrow(self, value: HloInstruction, shape: Shape) -> HloInstruction:
        """``value`` with exactly ``shape`` (its element type and layout)."""
        if same_shape(value.shape, shape):
            return value
        opcode = Op.COPY if value.shape.element_type == shape.element_type else Op.CONVERT
        return self.computation.add_instruction(HloInstruction(opcode, shape, [value]))

    def constant(self, value: float, full: bool = False) -> HloInstruction:
        scalar = self.computation.add_instruction(
            HloInstruction.create_constant(Literal.scalar(value, self.et))
        )
        shape = self.full if full else self.vector
        return self.computation.add_instruction(
            HloInstruction(Op.BROADCAST, shape, [scalar], attributes={"dimensions": ()})
        )

    def spread(self, vector: HloInstruction) -> HloInstruction:
        """A per-feature vector broadcast over the operand's shape."""
        return self.computation.add_instruction(
            HloInstruction(
                Op.BROADCAST, self.full, [vector], attributes={"dimensions": (self.feature,)}
            )
        )

    def total(self, value: HloInstruction) -> HloInstruction:
        """The sum over every axis but the feature one."""
        if self._add is None:
            self._add = scalar_add_computation(self.module, self.et)
        zero = self.computation.add_instruction(
            HloInstruction.create_constant(Literal.scalar(0, self.et))
        )
        return self.op(Op.REDUCE, value, zero, dimensions=self.axes, to_apply=self._add)

    def rsqrt_var_eps(self, var: HloInstruction) -> tuple[HloInstruction, HloInstruction]:
        """(var + epsilon, rsqrt(var + epsilon)) per feature."""
        var_eps = self.op(Op.ADD, var, self.constant(self.epsilon))
        return var_eps, self.op(Op.RSQRT, var_eps)


def _expand_inference(e: _Emitter, bn: HloInstruction) -> HloInstruction:
    x, scale, offset, mean, var = (e.wide(o) for o in bn.operands)
    _, rsqrt = e.rsqrt_var_eps(var)
    true_scale = e.op(Op.MULTIPLY, scale, rsqrt)
    true_shift = e.op(Op.SUBTRACT, offset, e.op(Op.MULTIPLY, mean, true_scale))
    y = e.op(Op.ADD, e.op(Op.MULTIPLY, x, e.spread(true_scale)), e.spread(true_shift))
    return e.narrow(y, bn.shape)


def _expand_training(e: _Emitter, bn: HloInstruction) -> HloInstruction:
    x, scale, offset = (e.wide(o) for o in bn.operands)
    count = e.constant(float(e.count))
    mean = e.op(Op.DIVIDE, e.total(x), count)
    square_mean = e.op(Op.DIVIDE, e.total(e.op(Op.MULTIPLY, x, x)), count)
    var = e.op(Op.SUBTRACT, square_mean, e.op(Op.MULTIPLY, mean, mean))
    _, rsqrt = e.rsqrt_var_eps(var)
    normalized = e.op(Op.MULTIPLY, e.op(Op.SUBTRACT, x, e.spread(mean)), e.spread(rsqrt))
    y = e.op(Op.ADD, e.op(Op.MULTIPLY, normalized, e.spread(scale)), e.spread(offset))
    shapes = bn.shape.tuple_shapes
    parts = [e.narrow(v, s) for v, s in zip((y, mean, var), shapes, strict=True)]
    return e.computation.add_instruction(HloInstruction(Op.TUPLE, bn.shape, parts))


def _expand_grad(e: _Emitter, bn: HloInstruction) -> HloInstruction:
    x, scale, mean, var, dy = (e.wide(o) for o in bn.operands)
    var_eps, rsqrt = e.rsqrt_var_eps(var)
    centered = e.op(Op.SUBTRACT, x, e.spread(mean))
    sum_dy_centered = e.total(e.op(Op.MULTIPLY, dy, centered))
    d_offset = e.total(dy)
    d_scale = e.op(Op.MULTIPLY, sum_dy_centered, rsqrt)
    i4 = e.op(Op.MULTIPLY, e.spread(sum_dy_centered), centered)
    i5 = e.op(Op.DIVIDE, i4, e.spread(var_eps))
    i1 = e.op(Op.MULTIPLY, dy, e.constant(float(e.count), full=True))
    i6 = e.op(Op.SUBTRACT, e.op(Op.SUBTRACT, i1, e.spread(d_offset)), i5)
    factor = e.op(Op.DIVIDE, e.op(Op.MULTIPLY, scale, rsqrt), e.constant(float(e.count)))
    dx = e.op(Op.MULTIPLY, e.spread(factor), i6)
    shapes = bn.shape.tuple_shapes
    parts = [e.narrow(v, s) for v, s in zip((dx, d_scale, d_offset), shapes, strict=True)]
    return e.computation.add_instruction(HloInstruction(Op.TUPLE, bn.shape, parts))


_EXPANSIONS = {
    Op.BATCH_NORM_INFERENCE: _expand_inference,
    Op.BATCH_NORM_TRAINING: _expand_training,
    Op.BATCH_NORM_GRAD: _expand_grad,
}


def _expandable(instruction: HloInstruction) -> bool:
    if instruction.opcode not in _EXPANSIONS or not instruction.operand(0).shape.is_static:
        return False
    return all(
        o.shape.element_type.is_float and o.shape.element_type.bit_width >= 8
        for o in instruction.operands
    )


class BatchNormExpander(ExpanderPass):
    """Batch norm as reductions and elementwise ops (XLA's formulas, see the module docstring)."""

    name = "batch-norm-expander"
    opcodes = frozenset(_EXPANSIONS)

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if not _expandable(instruction):
            return None
        emitter = _Emitter(instruction.parent.parent, instruction)
        return _EXPANSIONS[instruction.opcode](emitter, instruction)


__all__ = ["BatchNormExpander", "scalar_add_computation"]
