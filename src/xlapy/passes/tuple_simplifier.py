"""Tuple simplification: get-tuple-element of a tuple is the element; a tuple that
rebuilds another tuple from all its elements, in order, is that tuple."""

from __future__ import annotations

from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode


def _rebuilt_tuple(instruction: HloInstruction) -> HloInstruction | None:
    elements = instruction.operands
    if not elements or any(e.opcode is not Op.GET_TUPLE_ELEMENT for e in elements):
        return None
    source = elements[0].operand(0)
    if not source.shape.is_tuple or len(source.shape.tuple_shapes) != len(elements):
        return None
    for k, element in enumerate(elements):
        if element.operand(0) is not source or element.tuple_index != k:
            return None
    return source if source.shape == instruction.shape else None


class TupleSimplifier(HloPass):
    name = "tuple-simplifier"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            for instruction in computation.post_order():
                if instruction.parent is None or (
                    instruction.user_count == 0 and not instruction.is_root
                ):
                    continue
                replacement = None
                if instruction.opcode is Op.GET_TUPLE_ELEMENT:
                    source = instruction.operand(0)
                    if source.opcode is Op.TUPLE:
                        candidate = source.operand(instruction.tuple_index)
                        if candidate.shape == instruction.shape:
                            replacement = candidate
                elif instruction.opcode is Op.TUPLE:
                    replacement = _rebuilt_tuple(instruction)
                if replacement is not None and not instruction.control_successors:
                    instruction.replace_all_uses_with(replacement)
                    if computation.root is instruction:
                        computation.root = replacement
                    changed = True
        return changed
