"""Dead code elimination: instructions nothing needs, and computations nothing calls.

An instruction stays if it is a root, a parameter, has (or may have) a side
effect, or takes part in control ordering; everything whose value no kept
instruction reads goes. Computations that no instruction calls any more
(inlined calls, fused-away producers) are removed too, except the entry.
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode
_NONDETERMINISTIC = frozenset({Op.RNG, Op.RNG_GET_AND_UPDATE_STATE, Op.RNG_BIT_GENERATOR})


def is_removable(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` can go when nothing reads it."""
    op = instruction.opcode
    if op is Op.PARAMETER or instruction.is_root:
        return False
    if op.may_have_side_effect or op in _NONDETERMINISTIC:
        return False  # random ops advance the generator's state, which later ones see
    if op is Op.CUSTOM_CALL and instruction.attribute("custom_call_has_side_effect"):
        return False
    return not instruction.control_predecessors and not instruction.control_successors


def remove_dead_instructions(computation: HloComputation) -> bool:
    changed = False
    for instruction in reversed(computation.post_order()):
        if instruction.user_count == 0 and is_removable(instruction):
            computation.remove_instruction(instruction)
            changed = True
    return changed


def remove_dead_computations(module: HloModule) -> bool:
    called: set[int] = set()
    stack = [module.entry]
    while stack:
        computation = stack.pop()
        if id(computation) in called:
            continue
        called.add(id(computation))
        for instruction in computation.instructions:
            stack.extend(instruction.called_computations())
    dead = [c for c in module.computations if id(c) not in called]
    for computation in dead:
        module.detach_computation(computation)
    return bool(dead)


class DeadCodeElimination(HloPass):
    name = "dce"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            changed |= remove_dead_instructions(computation)
        changed |= remove_dead_computations(module)
        return changed
