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
from .fusion_support import clone_body
from .pass_base import HloPass

Op = HloOpcode


def inline_call(call: HloInstruction) -> HloInstruction:
    """Replace ``call`` by a copy of its callee's body; returns the copy of the root."""
    caller: HloComputation = call.parent
    callee: HloComputation = call.to_apply
    result = clone_body(callee, caller, list(call.operands))
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


def _elementwise_scalar_body(computation: HloComputation) -> bool:
    return all(
        i.shape.is_scalar and (i.opcode.is_elementwise or i.opcode in (Op.PARAMETER, Op.CONSTANT))
        for i in computation.instructions
    )


def inline_map(instruction: HloInstruction) -> HloInstruction:
    """``map(xs..., to_apply=f)`` with ``f`` a scalar elementwise computation becomes
    ``f``'s ops applied to the whole arrays (constants broadcast to the map's shape)."""
    caller: HloComputation = instruction.parent
    shape = instruction.shape
    mapping: dict[int, HloInstruction] = {}
    for inner in instruction.to_apply.post_order():
        if inner.opcode is Op.PARAMETER:
            mapping[id(inner)] = instruction.operand(inner.parameter_number)
            continue
        inner_shape = shape.with_element_type(inner.shape.element_type)
        if inner.opcode is Op.CONSTANT:
            constant = caller.add_instruction(inner.clone([]))
            value = HloInstruction(
                Op.BROADCAST, inner_shape, [constant], attributes={"dimensions": ()}
            )
        else:
            value = inner.clone([mapping[id(o)] for o in inner.operands], shape=inner_shape)
        mapping[id(inner)] = caller.add_instruction(value)
    result = mapping[id(instruction.to_apply.root)]
    instruction.replace_all_uses_with(result)
    if caller.root is instruction:
        caller.root = result
    caller.remove_instruction(instruction)
    caller.sort_topologically()
    return result


class MapInliner(HloPass):
    """``map`` of an elementwise scalar computation becomes elementwise ops on arrays, which
    fuse like any others (the backend has no loop for ``map`` itself)."""

    name = "map-inliner"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for instruction in list(computation.instructions):
                if (
                    instruction.opcode is Op.MAP
                    and instruction.parent is computation
                    and instruction.shape.is_array
                    and not instruction.control_successors
                    and not instruction.control_predecessors
                    and _elementwise_scalar_body(instruction.to_apply)
                    and all(
                        o.shape.dimensions == instruction.shape.dimensions
                        for o in instruction.operands
                    )
                ):
                    inline_map(instruction)
                    changed = True
        return changed
