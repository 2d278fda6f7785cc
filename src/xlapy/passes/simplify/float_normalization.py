"""bf16 results that XLA:CPU never rounds: the part of XLA's ``FloatNormalization`` that
``xla_allow_excess_precision`` makes observable.

Why: XLA:CPU has no bf16 arithmetic. Its ``FloatNormalization`` pass (with a
``FloatSupport(BF16)`` that supports bf16 only in data-carrying ops: convert, tuple,
get-tuple-element, call, while, conditional, custom-call, ...) rewrites every other bf16
instruction to compute in f32 on upcast operands and converts the result back to bf16.
With ``xla_allow_excess_precision`` (XLA's default) it skips that last rounding for the
users that are converts to f32: they read the f32 result directly. Found with jax 0.10.2
on XLA:CPU: ``(b @ b.T).astype(f32)`` for bf16 ``b`` gives the unrounded f32 dot,
``(b * b + 1).astype(f32)`` rounds ``b * b`` to bf16 but not the sum; with
``--xla_allow_excess_precision=false`` both are rounded.

The pass does what XLA's does: ``op<bf16>(x, ...)`` becomes
``convert<bf16>(op<f32>(convert<f32>(x), ...))``, and a ``convert<f32>`` of it reads
``op<f32>``. xlapy's emitters and the evaluator compute a bf16 op in f32 and round it
anyway, so only the skipped roundings change values; normalizing every op (rather than
only those under a convert) keeps the pass idempotent: nothing bf16 is left to normalize,
and the converts it adds are never mistaken for the user's.

Left alone: ops with called computations (reduce, sort, map, scatter, ...; XLA re-types
their computations too, xlapy does not yet), tuple-shaped ops, ops without operands, and
the ops FloatNormalization itself skips.
"""

from __future__ import annotations

from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...types import PrimitiveType
from ..creation import make_convert
from ..pass_base import HloPass
from ..rewrite import rewrite_instructions
from .dce import has_side_effect

Op = HloOpcode
ALL_OPCODES = frozenset(HloOpcode)
LOW = PrimitiveType.BF16
HIGH = PrimitiveType.F32

# Instructions FloatNormalization leaves in bf16 (FloatSupport's low-precision ops and the
# ones its visitor never rewrites): their bf16 results are what they carry, not a rounding.
KEPT_IN_LOW_PRECISION = frozenset({
    Op.PARAMETER, Op.CONSTANT, Op.CONVERT, Op.BITCAST_CONVERT, Op.BITCAST, Op.TUPLE,
    Op.GET_TUPLE_ELEMENT, Op.CALL, Op.CONDITIONAL, Op.WHILE, Op.CUSTOM_CALL, Op.FUSION,
    Op.DOMAIN, Op.OPTIMIZATION_BARRIER,
})

# Ops that only move or pick bf16 values: computed in f32 they give the same bits (XLA's
# FloatSupport::EffectiveOperandPrecisionIsOutputPrecision), so the convert pair around
# them would change nothing but the code (and a chain of them makes LLVM's optimizer
# crawl: minutes for an 8-element argmax).
VALUE_PRESERVING = frozenset({
    Op.BROADCAST, Op.RESHAPE, Op.TRANSPOSE, Op.SLICE, Op.REVERSE, Op.COPY, Op.CONCATENATE,
    Op.PAD, Op.DYNAMIC_SLICE, Op.DYNAMIC_UPDATE_SLICE, Op.GATHER, Op.SELECT,
})


def computes_in_high_precision(instruction: HloInstruction) -> bool:
    """Whether XLA:CPU computes this bf16 instruction in f32 and rounds only its result."""
    opcode = instruction.opcode
    return (
        instruction.shape.is_array
        and instruction.shape.element_type == LOW
        and opcode not in KEPT_IN_LOW_PRECISION
        and opcode not in VALUE_PRESERVING
        and not has_side_effect(instruction)
        and instruction.operand_count > 0
        and not instruction.called_computations()
        and all(o.shape.is_array for o in instruction.operands)
    )


def _normalize(op: HloInstruction) -> HloInstruction | None:
    """``convert<bf16>(op<f32>(convert<f32>(operands)))`` for a bf16 ``op`` XLA:CPU computes
    in f32; its users that convert it to f32 read ``op<f32>`` itself, unrounded."""
    if not computes_in_high_precision(op):
        return None
    operands = [make_convert(o, HIGH) if o.shape.element_type == LOW else o
                for o in op.operands]
    wide = op.parent.add_instruction(
        op.clone(operands, shape=op.shape.with_element_type(HIGH), name=f"{op.name}.f32"))
    for user in op.users:
        if user.opcode is Op.CONVERT and user.shape.element_type == HIGH:
            op.parent.replace_instruction(user, wide)
    return make_convert(wide, LOW)


class FloatNormalization(HloPass):
    """Computes every bf16 op in f32 and rounds it to bf16, except for the users that
    convert it to f32, as XLA:CPU's FloatNormalization with ``xla_allow_excess_precision``
    (see the module doc)."""

    name = "float-normalization-bf16"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            if rewrite_instructions(computation, ALL_OPCODES, lambda i: False, _normalize):
                changed = True
        return changed


__all__ = ["KEPT_IN_LOW_PRECISION", "FloatNormalization", "computes_in_high_precision"]
