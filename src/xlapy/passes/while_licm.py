"""While-loop invariant code motion: compute once what every iteration recomputes.

A value of the loop body that depends only on loop-invariant state elements
(elements the body passes through unchanged) and constants is the same in
every iteration. Such values are computed before the loop, from the initial
state, and carried in new state elements; the body reads them instead. Only
values worth it move: not constants, broadcasts of scalars or iotas (cheaper
to recompute than to carry), nothing with side effects or random numbers, and
only loops whose body and condition are called by that loop alone.
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from ..shape import Shape
from .pass_base import HloPass

Op = HloOpcode
_NEVER = frozenset(
    {Op.RNG, Op.RNG_BIT_GENERATOR, Op.RNG_GET_AND_UPDATE_STATE, Op.PARAMETER, Op.TUPLE}
)
_TOO_CHEAP = frozenset(
    {Op.CONSTANT, Op.BROADCAST, Op.IOTA, Op.GET_TUPLE_ELEMENT, Op.RESHAPE, Op.BITCAST}
)


def _invariant_elements(body: HloComputation) -> set[int]:
    root, param = body.root, body.parameter(0)
    if root.opcode is not Op.TUPLE:
        return set()
    return {
        k
        for k, element in enumerate(root.operands)
        if element.opcode is Op.GET_TUPLE_ELEMENT
        and element.operand(0) is param
        and element.tuple_index == k
    }


def _hoistable(body: HloComputation) -> tuple[list[HloInstruction], list[HloInstruction]]:
    """(every invariant instruction in order, the ones to carry in the state)."""
    param = body.parameter(0)
    elements = _invariant_elements(body)
    invariant: dict[int, HloInstruction] = {}
    order: list[HloInstruction] = []
    for instruction in body.post_order():
        op = instruction.opcode
        if instruction is body.root or op in _NEVER or op.may_have_side_effect:
            continue
        if instruction.control_predecessors or instruction.control_successors:
            continue
        if op is Op.GET_TUPLE_ELEMENT and instruction.operand(0) is param:
            if instruction.tuple_index in elements:
                invariant[id(instruction)] = instruction
                order.append(instruction)
            continue
        if all(id(o) in invariant for o in instruction.operands) and (
            instruction.operand_count or op is Op.CONSTANT
        ):
            invariant[id(instruction)] = instruction
            order.append(instruction)
    carried = [
        i
        for i in order
        if i.opcode not in _TOO_CHEAP
        and i.shape.is_array
        and any(id(u) not in invariant for u in i.users)
    ]
    return order, carried


class WhileLoopInvariantCodeMotion(HloPass):
    name = "while-licm"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for loop in list(computation.instructions):
                if loop.opcode is Op.WHILE and loop.parent is computation:
                    changed |= self._hoist(module, computation, loop)
        return changed

    def _hoist(self, module: HloModule, caller: HloComputation, loop: HloInstruction) -> bool:
        body, condition = loop.attribute("body"), loop.attribute("condition")
        if not loop.shape.is_tuple or body is condition:
            return False
        if len(module.callers(body)) != 1 or len(module.callers(condition)) != 1:
            return False
        order, carried = _hoistable(body)
        if not carried:
            return False
        param = body.parameter(0)
        old_shapes = list(loop.shape.tuple_shapes)
        count = len(old_shapes)
        init = loop.operand(0)
        # Before the loop: the invariant values, computed from the initial state.
        outside: dict[int, HloInstruction] = {}
        for instruction in order:
            if instruction.opcode is Op.GET_TUPLE_ELEMENT and instruction.operand(0) is param:
                value = HloInstruction(
                    Op.GET_TUPLE_ELEMENT,
                    instruction.shape,
                    [init],
                    attributes={"index": instruction.tuple_index},
                )
            else:
                value = instruction.clone([outside[id(o)] for o in instruction.operands])
            outside[id(instruction)] = caller.add_instruction(value)
        new_shape = Shape.tuple([*old_shapes, *(c.shape for c in carried)])
        elements = [
            caller.add_instruction(
                HloInstruction(Op.GET_TUPLE_ELEMENT, s, [init], attributes={"index": k})
            )
            for k, s in enumerate(old_shapes)
        ]
        new_init = caller.add_instruction(
            HloInstruction(Op.TUPLE, new_shape, [*elements, *(outside[id(c)] for c in carried)])
        )
        # The body and condition take the longer state; the body reads the carried values.
        param.shape = new_shape
        condition.parameter(0).shape = new_shape
        root = body.root
        extras = []
        for j, value in enumerate(carried):
            read = body.add_instruction(
                HloInstruction(
                    Op.GET_TUPLE_ELEMENT, value.shape, [param], attributes={"index": count + j}
                )
            )
            value.replace_all_uses_with(read)
            extras.append(read)
        new_root = body.add_instruction(
            HloInstruction(Op.TUPLE, new_shape, [*root.operands, *extras])
        )
        body.root = new_root
        new_loop = caller.add_instruction(loop.clone([new_init], shape=new_shape))
        results = [
            caller.add_instruction(
                HloInstruction(Op.GET_TUPLE_ELEMENT, s, [new_loop], attributes={"index": k})
            )
            for k, s in enumerate(old_shapes)
        ]
        old_result = caller.add_instruction(HloInstruction(Op.TUPLE, loop.shape, results))
        loop.replace_all_uses_with(old_result)
        if caller.root is loop:
            caller.root = old_result
        caller.remove_instruction(loop)
        for computation in (caller, body, condition):
            computation.sort_topologically()
        return True
