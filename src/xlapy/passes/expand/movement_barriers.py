"""Identity ops that only matter to a scheduler or a partitioner become their operand.

``OptimizationBarrierRemover`` replaces ``opt-barrier(x)`` and
``add-dependency(x, token)`` by ``x``. Both exist to constrain scheduling
(keep a value from being moved across the barrier, order a value after a token);
values in HLO are pure, so a backend that keeps every instruction's data
dependencies and runs side effects in their token order computes the same
results without them.

``ShardingAnnotationRemover`` does the same for XLA's sharding annotations
(custom calls that an SPMD partitioner reads and that are identities without one):
GSPMD's ``Sharding``, ``SPMDFullToShardShape`` and ``SPMDShardToFullShape``, and
the ``xla.sdy.*`` calls of Shardy's round trip through HLO text (what
``jax.jit(f).lower(x).compiler_ir('hlo')`` writes for a sharded program):
``xla.sdy.GlobalToLocalShape`` / ``xla.sdy.LocalToGlobalShape`` around a
``shard_map`` body (called as ``xla.sdy.manual_computation_body``, which runs
as any call), ``xla.sdy.FuncResultSharding``, ``xla.sdy.PropagationBarrier`` and
``xla.sdy.ShardingGroup``. Each is its operand(s) where the shapes agree, which
they do when every manual axis has size 1 (one device); a call that changes the
shape (a global value cut into local shards) needs the SPMD partitioner, and
the pass says so instead of computing something else.
"""

from __future__ import annotations

from ...custom_call import SHARDING_ANNOTATIONS
from ...errors import UnimplementedError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
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


# Shardy's round-trip custom calls (XLA's service/spmd/shardy/constants.h).
SDY_ROUND_TRIP_TARGETS = (
    "xla.sdy.GlobalToLocalShape",
    "xla.sdy.LocalToGlobalShape",
    "xla.sdy.FuncResultSharding",
    "xla.sdy.PropagationBarrier",
    "xla.sdy.ShardingGroup",
)
# The calls that convert between a global value and its shard.
_SHAPE_CHANGING = frozenset(
    {
        "SPMDFullToShardShape",
        "SPMDShardToFullShape",
        "xla.sdy.GlobalToLocalShape",
        "xla.sdy.LocalToGlobalShape",
    }
)
ANNOTATION_TARGETS = frozenset(SHARDING_ANNOTATIONS) | frozenset(SDY_ROUND_TRIP_TARGETS)


def _needs_partitioner(instruction: HloInstruction, operand: Shape, result: Shape) -> None:
    target = instruction.custom_call_target
    if target in _SHAPE_CHANGING and not same_shape(operand, result):
        raise UnimplementedError(
            f"custom-call {target} {instruction.name} turns {operand} into {result}: the "
            "program runs a manual computation (shard_map) over a mesh of several devices, "
            "which needs the SPMD partitioner; partitioning is not implemented yet "
            "(lowered on a 1-device mesh, the program runs)"
        )


class ShardingAnnotationRemover(ExpanderPass):
    """Sharding annotations (GSPMD's ``Sharding``, ``SPMDFullToShardShape``,
    ``SPMDShardToFullShape``; Shardy's ``xla.sdy.*``) become their operand(s) where the
    shape is unchanged: without an SPMD partitioner they are identities, and a backend
    need not call them. A shard/global conversion that changes the shape is an
    ``UnimplementedError`` (it needs the partitioner)."""

    name = "sharding-annotation-remover"
    opcodes = frozenset({Op.CUSTOM_CALL})
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if instruction.custom_call_target not in ANNOTATION_TARGETS:
            return None
        shape = instruction.shape
        operands = instruction.operands
        if shape.is_tuple and not shape.tuple_shapes and instruction.custom_call_target in (
            "xla.sdy.ShardingGroup",
        ):  # fmt: skip
            return instruction.parent.add_instruction(HloInstruction(Op.TUPLE, shape, []))
        if len(operands) == 1 and not (shape.is_tuple and not operands[0].shape.is_tuple):
            _needs_partitioner(instruction, operands[0].shape, shape)
            return operand_if_same_shape(instruction)
        if shape.is_tuple and len(shape.tuple_shapes) == len(operands) > 0:
            for operand, element in zip(operands, shape.tuple_shapes, strict=True):
                _needs_partitioner(instruction, operand.shape, element)
                if not same_shape(operand.shape, element):
                    return None
            return instruction.parent.add_instruction(
                HloInstruction(Op.TUPLE, shape, list(operands))
            )
        return None


__all__ = [
    "ANNOTATION_TARGETS",
    "SDY_ROUND_TRIP_TARGETS",
    "OptimizationBarrierRemover",
    "ShardingAnnotationRemover",
]
