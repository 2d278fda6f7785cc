"""Shape inference: the single source of truth for the result shape of every op.

One rule per opcode (``_core.RULES``), grouped by family in the modules of
this package. The builder, the HLO parser and the verifier all call
:func:`infer_shape`; nothing else decides what shape an op produces.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import UnimplementedError
from ..opcode import COMPUTATION_ATTRIBUTES, HloOpcode
from ..shape import ProgramShape, Shape
from . import (  # noqa: F401  (the modules register their rules)
    collectives,
    control,
    elementwise,
    indexing,
    linalg,
    movement,
    random,
    reductions,
    transfers,
)
from ._core import RULES, InferenceContext, rule
from .elementwise import broadcast_binary_shapes


def infer_shape(
    opcode: HloOpcode,
    operands: Sequence[Shape],
    attributes: Mapping[str, Any] | None = None,
    computations: Mapping[str, ProgramShape | Sequence[ProgramShape]] | None = None,
    *,
    declared: Shape | None = None,
    op_name: str | None = None,
) -> Shape:
    """The result shape of ``opcode`` applied to ``operands``.

    ``attributes`` are named and typed as in HLO text (``dimensions``,
    ``window``, ...); ``computations`` maps called-computation attribute names
    (``to_apply``, ``body``, ``branch_computations``) to program shapes;
    ``declared`` is the result shape stated by the caller, needed by ops whose
    result is not a function of the operands (reshape, broadcast, convert).
    Raises ``InvalidArgumentError`` naming ``op_name`` (default: the HLO
    opcode), the operand shapes and what would be valid.
    """
    fn = RULES.get(opcode)
    if fn is None:
        raise UnimplementedError(f"no shape rule for opcode {opcode.value} yet")
    ctx = InferenceContext(
        opcode, tuple(operands), attributes or {}, computations or {}, declared, op_name
    )
    return fn(ctx)


def has_rule(opcode: HloOpcode) -> bool:
    return opcode in RULES


# Attributes that do not influence the result shape; rules never see them.
_NOT_FOR_SHAPES = frozenset(
    {"metadata", "sharding", "frontend_attributes", "backend_config", "statistics", "origin"}
)


def infer_instruction_shape(instruction: Any) -> Shape:
    """The shape ``instruction``'s opcode, operands and attributes imply.

    Adapts an ``HloInstruction`` to :func:`infer_shape` (called computations
    become program shapes); the parser and the verifier compare the result with
    the shape the instruction states.
    """
    attributes: dict[str, Any] = {}
    computations: dict[str, Any] = {}
    for name, value in instruction.attributes.items():
        if name in COMPUTATION_ATTRIBUTES:
            if isinstance(value, (list, tuple)):
                computations[name] = [c.program_shape for c in value]
            else:
                computations[name] = value.program_shape
        elif name not in _NOT_FOR_SHAPES:
            attributes[name] = value
    return infer_shape(
        instruction.opcode,
        [operand.shape for operand in instruction.operands],
        attributes,
        computations,
        declared=instruction.shape,
        op_name=f"{instruction.opcode.value} {instruction.name}",
    )


__all__ = [
    "InferenceContext",
    "RULES",
    "broadcast_binary_shapes",
    "has_rule",
    "infer_instruction_shape",
    "infer_shape",
    "rule",
]
