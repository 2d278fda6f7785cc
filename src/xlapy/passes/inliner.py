"""Inlining: a ``call`` becomes the instructions of the computation it calls.

Fusion and every other pass then see across the former call boundary. Each
call site gets its own copy, so callees shared between call sites stay
correct; the callee itself is removed by dead code elimination once unused.
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode


def inline_call(call: HloInstruction) -> HloInstruction:
    """Replace ``call`` by a copy of its callee's body; returns the copy of the root."""
    caller: HloComputation = call.parent
    callee: HloComputation = call.to_apply
    mapping: dict[int, HloInstruction] = {}
    for instruction in callee.post_order():
        if instruction.opcode is Op.PARAMETER:
            mapping[id(instruction)] = call.operand(instruction.parameter_number)
            continue
        clone = instruction.clone([mapping[id(o)] for o in instruction.operands])
        caller.add_instruction(clone)
        mapping[id(instruction)] = clone
    result = mapping[id(callee.root)]
    call.replace_all_uses_with(result)
    if caller.root is call:
        caller.root = result
    for predecessor in call.control_predecessors:
        call.remove_control_predecessor(predecessor)
    caller.remove_instruction(call)
    caller.sort_topologically()
    return result


def _has_side_effects(computation: HloComputation) -> bool:
    return any(i.opcode.may_have_side_effect for i in computation.instructions)


class CallInliner(HloPass):
    name = "call-inliner"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for instruction in list(computation.instructions):
                if (
                    instruction.opcode is Op.CALL
                    and instruction.parent is computation
                    and not instruction.control_successors
                    and not _has_side_effects(instruction.to_apply)
                ):
                    inline_call(instruction)
                    changed = True
        return changed
