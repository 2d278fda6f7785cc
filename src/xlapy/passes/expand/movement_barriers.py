"""Identity ops that only matter to a scheduler or a partitioner become their operand.

``OptimizationBarrierRemover`` replaces ``opt-barrier(x)`` and
``add-dependency(x, token)`` by ``x``. Both exist to constrain scheduling
(keep a value from being moved across the barrier, order a value after a token);
values in HLO are pure, so a backend that keeps every instruction's data
dependencies and runs side effects in their token order computes the same
results without them.

``ShardingAnnotationRemover`` does the same for XLA's sharding annotations
(custom calls that an SPMD partitioner reads and that are identities without one).
"""

from __future__ import annotations

from ...custom_call import SHARDING_ANNOTATIONS
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ..rewrite import ExpanderPass
from ..simplify.algebraic_simplifier_support import same_shape

Op = HloOpcode

_BARRIERS = frozenset({Op.OPT_BARRIER, Op.ADD_DEPENDENCY})


def operand_if_same_shape(instruction: HloInstruction) -> HloInstruction | None:
    """The first operand, where it has the instruction's shape (else None: kept)."""
    value = instruction.operand(0)
    return value if same_shape(value.shape, instruction.shape) else None


class OptimizationBarrierRemover(ExpanderPass):
    """opt-barrier and add-dependency become their (first) operand."""

    name = "optimization-barrier-remover"
    opcodes = _BARRIERS
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return operand_if_same_shape(instruction)


class ShardingAnnotationRemover(ExpanderPass):
    """XLA's sharding annotations (custom calls ``Sharding``, ``SPMDFullToShardShape``,
    ``SPMDShardToFullShape`` of an unchanged shape) become their operand: without an
    SPMD partitioner they are identities, and a native backend need not call them."""

    name = "sharding-annotation-remover"
    opcodes = frozenset({Op.CUSTOM_CALL})
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if instruction.custom_call_target not in SHARDING_ANNOTATIONS:
            return None
        if instruction.operand_count != 1:
            return None
        return operand_if_same_shape(instruction)


__all__ = ["OptimizationBarrierRemover", "ShardingAnnotationRemover"]
