"""Common subexpression elimination: one instruction for each distinct computation.

Two instructions are the same when opcode, shape (layout included), operands,
attributes (called computations by identity) and constant values agree.
Instructions with side effects or random results are never merged.
"""

from __future__ import annotations

from typing import Any

from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode
_NEVER = frozenset({Op.PARAMETER, Op.RNG, Op.RNG_GET_AND_UPDATE_STATE, Op.RNG_BIT_GENERATOR})


def _attribute_key(value: Any) -> Any:
    if hasattr(value, "instructions") and hasattr(value, "root"):
        return ("computation", id(value))
    if isinstance(value, (list, tuple)):
        return tuple(_attribute_key(v) for v in value)
    try:
        hash(value)
        return value
    except TypeError:
        return repr(value)


def _key(instruction: HloInstruction) -> Any:
    literal = None
    if instruction.opcode is Op.CONSTANT:
        literal = str(instruction.literal)
    attributes = tuple(
        (k, _attribute_key(v))
        for k, v in instruction.attributes.items()
        if k not in ("metadata", "statistics", "frontend_attributes")
    )
    return (
        instruction.opcode,
        str(instruction.shape),
        tuple(id(o) for o in instruction.operands),
        attributes,
        literal,
    )


def _mergeable(instruction: HloInstruction) -> bool:
    op = instruction.opcode
    if op in _NEVER or op.may_have_side_effect:
        return False
    return not instruction.control_predecessors and not instruction.control_successors


class CommonSubexpressionElimination(HloPass):
    name = "cse"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            seen: dict[Any, HloInstruction] = {}
            for instruction in computation.post_order():
                if not _mergeable(instruction):
                    continue
                key = _key(instruction)
                first = seen.get(key)
                if first is None:
                    seen[key] = instruction
                    continue
                instruction.replace_all_uses_with(first)
                if computation.root is instruction:
                    computation.root = first
                computation.remove_instruction(instruction)
                changed = True
        return changed
