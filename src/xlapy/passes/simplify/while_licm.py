"""While-loop invariant code motion: compute once what every iteration recomputes.

Why: a loop body often computes something from values the loop never changes
(a weight's transpose, an exponential of a parameter); done once before the
loop it costs one evaluation instead of one per iteration.

A state element is *invariant* when the body's root passes
``get-tuple-element(param, k)`` straight through at position ``k``. A body
instruction is invariant when all its operands are (constants and iotas
are). Invariant values that are worth it are computed before the loop from the
initial state and carried in new state elements; the body reads them from the
state instead. As in XLA, an instruction is worth hoisting only if it does real
work and does not grow the data:

* not worth on its own: constants, iotas, broadcasts, reshapes, bitcasts,
  transposes, slices, reverses, copies, tuples and get-tuple-elements (cheaper
  to recompute than to carry; they are hoisted only as inputs of something that
  is worth it);
* not worth: results larger than their operands together (a bigger state);
* never hoisted: instructions with side effects or random results, control flow,
  calls, fusions, custom calls, anything with control edges.

Only loops whose body and condition no other instruction calls, whose state is
a tuple and whose parameters are read only through get-tuple-element are
rewritten (the state's shape changes).
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...shape import Shape
from ..creation import make_get_tuple_element
from ..pass_base import HloPass
from .dce import has_control_edges, has_side_effect

Op = HloOpcode
_NEVER = frozenset(
    {
        Op.PARAMETER,
        Op.WHILE,
        Op.CONDITIONAL,
        Op.CALL,
        Op.FUSION,
        Op.CUSTOM_CALL,
        Op.AFTER_ALL,
        Op.ADD_DEPENDENCY,
        Op.OPT_BARRIER,
        Op.DOMAIN,
        Op.RNG_BIT_GENERATOR,
    }
)
_NOT_WORTH_ALONE = frozenset(
    {
        Op.CONSTANT,
        Op.IOTA,
        Op.BROADCAST,
        Op.RESHAPE,
        Op.BITCAST,
        Op.TRANSPOSE,
        Op.SLICE,
        Op.REVERSE,
        Op.COPY,
        Op.TUPLE,
        Op.GET_TUPLE_ELEMENT,
    }
)


def _byte_size(shape: Shape) -> int:
    if shape.is_tuple:
        return sum(_byte_size(s) for s in shape.tuple_shapes)
    return shape.byte_size() if shape.is_array else 0


def _passed_through(body: HloComputation) -> set[int]:
    """Indices of the state elements the body hands on unchanged."""
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


def invariant_instructions(body: HloComputation) -> list[HloInstruction]:
    """Every loop-invariant instruction of ``body``, in post order."""
    param = body.parameter(0)
    elements = _passed_through(body)
    invariant: set[int] = set()
    order: list[HloInstruction] = []
    for instruction in body.post_order():
        op = instruction.opcode
        if instruction is body.root or op in _NEVER or has_control_edges(instruction):
            continue
        if op is Op.GET_TUPLE_ELEMENT and instruction.operand(0) is param:
            ok = instruction.tuple_index in elements
        elif instruction.operand_count == 0:
            ok = op in (Op.CONSTANT, Op.IOTA)
        else:
            ok = all(id(o) in invariant for o in instruction.operands)
        if ok and not has_side_effect(instruction):
            invariant.add(id(instruction))
            order.append(instruction)
    return order


def _worth_hoisting(instruction: HloInstruction) -> bool:
    if instruction.opcode in _NOT_WORTH_ALONE or not instruction.shape.is_array:
        return False
    grown = _byte_size(instruction.shape)
    return grown <= sum(_byte_size(o.shape) for o in instruction.iter_operands_unique())


def plan_hoisting(body: HloComputation) -> tuple[list[HloInstruction], list[HloInstruction]]:
    """(instructions to compute before the loop, in order; those of them to carry)."""
    invariant = invariant_instructions(body)
    hoisted: set[int] = set()
    for instruction in reversed(invariant):  # users before operands
        if _worth_hoisting(instruction) or any(id(u) in hoisted for u in instruction.users):
            hoisted.add(id(instruction))
    order = [i for i in invariant if id(i) in hoisted]
    carried = [
        i for i in order if _worth_hoisting(i) and any(id(u) not in hoisted for u in i.users)
    ]
    return order, carried


def _gte(shape: Shape, source: HloInstruction, index: int) -> HloInstruction:
    """Element ``index`` of the loop's initial state, with the shape the loop gives it
    (which the initial state's may differ from in layout)."""
    return HloInstruction(Op.GET_TUPLE_ELEMENT, shape, [source], attributes={"index": index})


def hoist_invariants(module: HloModule, loop: HloInstruction) -> bool:
    """Move ``loop``'s invariant values before it; True if anything moved."""
    caller: HloComputation = loop.parent
    body, condition = loop.attribute("body"), loop.attribute("condition")
    if not loop.shape.is_tuple or body is condition or has_control_edges(loop):
        return False
    if len(module.callers(body)) != 1 or len(module.callers(condition)) != 1:
        return False
    param, cond_param = body.parameter(0), condition.parameter(0)
    if any(u.opcode is not Op.GET_TUPLE_ELEMENT for u in (*param.users, *cond_param.users)):
        return False
    order, carried = plan_hoisting(body)
    if not carried:
        return False
    init = loop.operand(0)
    old_shapes = list(loop.shape.tuple_shapes)
    count = len(old_shapes)
    # Before the loop: the invariant values, computed from the initial state.
    outside: dict[int, HloInstruction] = {}
    for instruction in order:
        if instruction.opcode is Op.GET_TUPLE_ELEMENT and instruction.operand(0) is param:
            value = _gte(instruction.shape, init, instruction.tuple_index)
        else:
            value = instruction.clone([outside[id(o)] for o in instruction.operands])
        outside[id(instruction)] = caller.add_instruction(value)
    new_shape = Shape.tuple([*old_shapes, *(c.shape for c in carried)])
    elements = [caller.add_instruction(_gte(s, init, k)) for k, s in enumerate(old_shapes)]
    new_init = caller.add_instruction(
        HloInstruction(Op.TUPLE, new_shape, [*elements, *(outside[id(c)] for c in carried)])
    )
    # The body and the condition take the longer state; the body reads the carried values.
    param.shape = new_shape
    cond_param.shape = new_shape
    old_root = body.root
    reads = []
    for j, value in enumerate(carried):
        read = make_get_tuple_element(param, count + j)
        value.replace_all_uses_with(read)
        reads.append(read)
    # The state's shape as the loop declares it (layouts included), which the root's
    # operands need not infer exactly.
    body.root = body.add_instruction(
        HloInstruction(Op.TUPLE, new_shape, [*old_root.operands, *reads])
    )
    if old_root.user_count == 0:
        body.remove_instruction(old_root)
    new_loop = caller.add_instruction(loop.clone([new_init], shape=new_shape))
    results = [make_get_tuple_element(new_loop, k) for k in range(count)]
    # The loop's own shape, not the one its elements infer: its users expect that one.
    old_result = caller.add_instruction(HloInstruction(Op.TUPLE, loop.shape, results))
    loop.replace_all_uses_with(old_result)
    name = loop.name
    caller.remove_instruction(loop)
    new_loop.name = name
    for computation in (caller, body, condition):
        computation.sort_topologically()
    return True


class WhileLoopInvariantCodeMotion(HloPass):
    """Computes loop-invariant values of while bodies once, before the loop."""

    name = "while-licm"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for loop in list(computation.instructions):
                if loop.opcode is Op.WHILE and loop.parent is computation:
                    changed |= hoist_invariants(module, loop)
        return changed


__all__ = [
    "WhileLoopInvariantCodeMotion",
    "hoist_invariants",
    "invariant_instructions",
    "plan_hoisting",
]
