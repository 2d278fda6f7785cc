"""Building fusion instructions: wrap, pull a producer in, merge two fusions.

A fusion instruction calls a fused computation whose parameters stand for
the fusion's operands, one parameter per distinct operand, numbered in
operand order. Every edit here ends in ``_tidy``, which restores those
invariants (drops parameters nothing reads, merges parameters of the same
operand, renumbers) and recomputes the fusion's shape and kind, so the passes
never renumber anything by hand; ``finish_fusions`` tidies up for reading once
a pass is done (dead code, order, parameter names).

Pulling a producer in clones it (or, for a producer that is itself a fusion,
its whole fused computation) into the fused computation in place of the
parameter that stood for it; the producer's operands become operands of the
fusion, reusing a parameter when the fusion already reads that value. An
identical clone already in the fused computation is reused rather than
cloned twice. With ``keep_output`` the producer's value also becomes an
output of the fusion (a multi-output fusion: the root is a tuple and users
read their part with get-tuple-element), so the producer can go even though
others read it.
"""

from __future__ import annotations

import weakref

from ...errors import InternalError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ...xla_data import FusionKind
from ..simplify.dce import is_removable
from .policy import forget_reuse

Op = HloOpcode

# Per fused computation, the outside instructions it already computes and their
# fused copies: a producer read again (through a later-fused user) is not cloned
# twice. Weak keys, so a removed computation takes its entry with it.
_computed_in: weakref.WeakKeyDictionary[HloComputation, dict[HloInstruction, HloInstruction]] = (
    weakref.WeakKeyDictionary()
)
_parameters_of: weakref.WeakKeyDictionary[HloComputation, list[HloInstruction]] = (
    weakref.WeakKeyDictionary()
)


def create_fusion(instruction: HloInstruction, kind: FusionKind) -> HloInstruction:
    """Replace ``instruction`` by a fusion that computes just it; returns the fusion."""
    computation = instruction.parent
    module = computation.parent
    if instruction.opcode is Op.FUSION:
        raise InternalError(f"{instruction.name} is already a fusion")
    parameters: dict[int, HloInstruction] = {}
    operands: list[HloInstruction] = []
    for operand in instruction.operands:
        if id(operand) not in parameters:
            parameters[id(operand)] = HloInstruction.create_parameter(
                len(operands), operand.shape, name=f"param_{len(operands)}"
            )
            operands.append(operand)
    clone = instruction.clone([parameters[id(o)] for o in instruction.operands])
    fused = HloComputation("fused_computation", [*parameters.values(), clone], root=clone)
    module.add_computation(fused)  # claims a unique name: fused_computation.1, ...
    fusion = HloInstruction(
        Op.FUSION,
        instruction.shape,
        operands,
        name="fusion",
        attributes={"kind": kind, "calls": fused},
    )
    computation.replace_instruction(instruction, fusion)
    return fusion


def is_multi_output(fusion: HloInstruction) -> bool:
    return fusion.fused_computation.root.opcode is Op.TUPLE


def fusion_outputs(fusion: HloInstruction) -> list[HloInstruction]:
    """The fused values the fusion returns: the root, or the root tuple's elements."""
    root = fusion.fused_computation.root
    return list(root.operands) if root.opcode is Op.TUPLE else [root]


def parameter_of(fusion: HloInstruction, operand: HloInstruction) -> HloInstruction:
    """The fused parameter that stands for ``operand``."""
    for number, outer in enumerate(fusion.operands):
        if outer is operand:
            return _parameters(fusion)[number]
    raise InternalError(f"{operand.name} is not an operand of {fusion.name}")


def fuse_producer(
    fusion: HloInstruction, producer: HloInstruction, *, keep_output: bool = False
) -> HloInstruction:
    """Pull ``producer`` (an operand of ``fusion``) into the fused computation.

    Returns the fused value now standing for the producer. The producer is
    removed when nothing else reads it; with ``keep_output`` its other users
    read it from the fusion instead, so it is always removed.
    """
    parameter = parameter_of(fusion, producer)
    fused = fusion.fused_computation
    known = _computed_in.setdefault(fused, {})
    value = known.get(producer)
    if value is None or value.parent is not fused:
        value = _clone_into(fusion, producer)
        known[producer] = value
    if value.user_count or value is fused.root:
        forget_reuse(fused, value)  # an existing value gains users
    parameter.replace_all_uses_with(value)
    if keep_output:
        index = add_outputs(fusion, [value])
        _redirect_to_output(producer, fusion, index)
    _tidy(fusion, _contains_reduce(producer))
    _remove_if_dead(producer)
    return value


def finish_fusion(fusion: HloInstruction) -> None:
    """Once a pass is done with ``fusion``: drop dead fused code, order the fused
    computation for reading, and name the parameters this module made after their
    numbers again (``param_2``).

    Kept out of the per-edit ``_tidy`` because each of these walks the whole fused
    computation, which made fusing long chains quadratic.
    """
    fused = fusion.fused_computation
    for instruction in reversed(fused.post_order()):
        if (
            instruction.user_count == 0
            and instruction is not fused.root
            and instruction.opcode is not Op.PARAMETER
        ):
            fused.remove_instruction(instruction)
    for parameter in fused.parameters:
        name = f"param_{parameter.parameter_number}"
        base = parameter.name.split(".")[0]
        if base.startswith("param_") and base != name:  # ours, renumbered since
            _rename_parameter(parameter, name)
    fused.sort_topologically()
    _computed_in.pop(fused, None)
    _parameters_of.pop(fused, None)
    forget_reuse(fused)


def finish_fusions(computation: HloComputation) -> None:
    """``finish_fusion`` for every fusion of ``computation``, which is sorted too."""
    for instruction in computation.instructions:
        if instruction.opcode is Op.FUSION and instruction.fusion_kind in ("kLoop", "kInput"):
            finish_fusion(instruction)
    computation.sort_topologically()


def merge_fusions(into: HloInstruction, other: HloInstruction) -> None:
    """Make ``into`` compute ``other``'s outputs too (siblings; neither reads the other)."""
    values = _inline_outputs(into, other)
    first = add_outputs(into, values)
    if is_multi_output(other):
        for user in list(other.users):
            index = user.tuple_index
            user.replace_operand(other, into)
            user.set_attribute("index", first + index)
    else:
        _redirect_to_output(other, into, first)
    _tidy(into, _contains_reduce(other))
    remove_instruction(other)


def add_outputs(fusion: HloInstruction, values: list[HloInstruction]) -> int:
    """Append fused ``values`` to the fusion's outputs; returns the index of the first.

    A single-output fusion becomes multi-output: its users (and the root slot)
    read element 0 through a new get-tuple-element.
    """
    fused = fusion.fused_computation
    forget_reuse(fused)
    was_multi = is_multi_output(fusion)
    outputs = fusion_outputs(fusion)
    old_root = fused.root
    elements = outputs + values
    root = HloInstruction(Op.TUPLE, Shape.tuple([v.shape for v in elements]), elements)
    fused.add_instruction(root, name="tuple")
    fused.root = root
    if was_multi and old_root.user_count == 0:
        fused.remove_instruction(old_root)
    if not was_multi:
        users, was_root = list(fusion.users), fusion.is_root
        fusion.shape = root.shape
        element = get_tuple_element(fusion, 0)
        for user in users:
            user.replace_operand(fusion, element)
        if was_root:
            fusion.parent.root = element
    fusion.shape = root.shape
    return len(outputs)


def get_tuple_element(fusion: HloInstruction, index: int) -> HloInstruction:
    """A new get-tuple-element of a multi-output fusion, added next to it."""
    shape = fusion.shape.tuple_shapes[index]
    element = HloInstruction(
        Op.GET_TUPLE_ELEMENT, shape, [fusion], name="get-tuple-element", attributes={"index": index}
    )
    return fusion.parent.add_instruction(element)


def remove_instruction(instruction: HloInstruction) -> None:
    """Remove an unused instruction, and the fused computation of a fusion."""
    computation = instruction.parent
    called = instruction.fused_computation
    computation.remove_instruction(instruction)
    if called is not None:
        called.fusion_instruction = None
        computation.parent.remove_computation(called)


def _remove_if_dead(instruction: HloInstruction) -> None:
    """Remove ``instruction`` if nothing reads it, then its operands that this leaves
    unread (a duplicated producer whose last outside user was just fused is dead)."""
    stack = [instruction]
    while stack:
        node = stack.pop()
        if node.parent is None or node.user_count or not _removable(node):
            continue
        operands = list(node.iter_operands_unique())
        remove_instruction(node)
        stack.extend(operands)


def _removable(instruction: HloInstruction) -> bool:
    if instruction.opcode is Op.FUSION and instruction.fusion_kind in ("kLoop", "kInput"):
        # Loop and input fusions hold fusible (pure) code only.
        return not (
            instruction.is_root
            or instruction.control_predecessors
            or instruction.control_successors
        )
    return is_removable(instruction)


def reachable(source: HloInstruction, target: HloInstruction) -> bool:
    """Whether a path of uses (or control edges) leads from ``source`` to ``target``."""
    seen = {id(source)}
    stack = [source]
    while stack:
        node = stack.pop()
        for nxt in (*node.users, *node.control_successors):
            if nxt is target:
                return True
            if id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return False


# -- internals -----------------------------------------------------------------------------


def _parameter_for(fusion: HloInstruction, outer: HloInstruction) -> HloInstruction:
    """The parameter reading ``outer``, made (with a new operand) if there is none yet."""
    parameters = _parameters(fusion)
    for number, operand in enumerate(fusion.operands):
        if operand is outer:
            return parameters[number]
    number = fusion.operand_count
    parameter = HloInstruction.create_parameter(number, outer.shape, name=f"param_{number}")
    fusion.fused_computation.add_instruction(parameter)
    fusion.append_operand(outer)
    parameters.append(parameter)
    return parameter


def _parameters(fusion: HloInstruction) -> list[HloInstruction]:
    """The fused parameters by number, cached: ``HloComputation.parameters`` scans every
    instruction, which made each fusion step cost the size of the fusion."""
    fused = fusion.fused_computation
    cached = _parameters_of.get(fused)
    if (
        cached is None
        or len(cached) != fusion.operand_count
        or any(p.parent is not fused or p.parameter_number != k for k, p in enumerate(cached))
    ):
        cached = list(fused.parameters)
        _parameters_of[fused] = cached
    return cached


def _clone_into(fusion: HloInstruction, producer: HloInstruction) -> HloInstruction:
    """The producer's value inside ``fusion``'s computation, cloned from outside."""
    if producer.opcode is Op.FUSION:
        (value,) = _inline_outputs(fusion, producer)
        return value
    operands = [_parameter_for(fusion, o) for o in producer.operands]
    return _clone_or_reuse(fusion.fused_computation, producer, operands)


def _inline_outputs(fusion: HloInstruction, other: HloInstruction) -> list[HloInstruction]:
    """Clone ``other``'s fused computation into ``fusion``'s; returns its outputs there."""
    forget_reuse(fusion.fused_computation)
    mapping: dict[int, HloInstruction] = {}
    inner = other.fused_computation
    for parameter in inner.parameters:
        outer = other.operand(parameter.parameter_number)
        mapping[id(parameter)] = _parameter_for(fusion, outer)
    for instruction in inner.post_order():
        if instruction.opcode is Op.PARAMETER:
            continue
        if instruction.opcode is Op.TUPLE and instruction is inner.root:
            continue
        operands = [mapping[id(o)] for o in instruction.operands]
        mapping[id(instruction)] = _clone_or_reuse(fusion.fused_computation, instruction, operands)
    return [mapping[id(v)] for v in fusion_outputs(other)]


def _clone_or_reuse(
    fused: HloComputation, instruction: HloInstruction, operands: list[HloInstruction]
) -> HloInstruction:
    """A clone of ``instruction`` on ``operands`` in ``fused``, or an identical one already there."""
    for candidate in _users_or_all(fused, operands):
        if _same_computation(candidate, instruction, operands):
            return candidate
    return fused.add_instruction(instruction.clone(operands))


def _users_or_all(
    fused: HloComputation, operands: list[HloInstruction]
) -> tuple[HloInstruction, ...]:
    return operands[0].users if operands else fused.instructions


def _same_computation(
    candidate: HloInstruction, instruction: HloInstruction, operands: list[HloInstruction]
) -> bool:
    if (
        candidate.opcode is not instruction.opcode
        or candidate.opcode in (Op.PARAMETER, Op.TUPLE)
        or candidate.shape != instruction.shape
        or len(candidate.operands) != len(operands)
        or any(a is not b for a, b in zip(candidate.operands, operands, strict=True))
        or candidate.attributes != instruction.attributes
    ):
        return False
    if instruction.opcode is Op.CONSTANT:
        return candidate.literal == instruction.literal
    return True


def _redirect_to_output(producer: HloInstruction, fusion: HloInstruction, index: int) -> None:
    """Users of ``producer`` other than ``fusion`` read output ``index`` of the fusion."""
    others = [u for u in producer.users if u is not fusion]
    if not others and not producer.is_root:
        return
    element = get_tuple_element(fusion, index)
    for user in others:
        user.replace_operand(producer, element)
    if producer.is_root:
        producer.parent.root = element


def _rename_parameter(parameter: HloInstruction, name: str) -> None:
    """Give a renumbered parameter a matching name (a fresh one: names are module-wide)."""
    fused = parameter.parent
    fresh = HloInstruction.create_parameter(parameter.parameter_number, parameter.shape, name=name)
    fused.add_instruction(fresh)
    parameter.replace_all_uses_with(fresh)  # the root slot too
    fused.remove_instruction(parameter)


def _contains_reduce(instruction: HloInstruction) -> bool:
    if instruction.opcode is Op.FUSION:
        return any(i.opcode is Op.REDUCE for i in instruction.fused_computation.instructions)
    return instruction.opcode is Op.REDUCE


def _tidy(fusion: HloInstruction, reduce_added: bool) -> None:
    """Restore the invariants of the module docstring after an edit."""
    fused = fusion.fused_computation
    kept: list[tuple[HloInstruction, HloInstruction]] = []
    by_operand: dict[int, HloInstruction] = {}
    for parameter in list(_parameters(fusion)):
        outer = fusion.operand(parameter.parameter_number)
        if parameter.user_count == 0 and parameter is not fused.root:
            fused.remove_instruction(parameter)
        elif id(outer) in by_operand:
            parameter.replace_all_uses_with(by_operand[id(outer)])
            fused.remove_instruction(parameter)
        else:
            by_operand[id(outer)] = parameter
            kept.append((parameter, outer))
    for number, (parameter, _) in enumerate(kept):
        parameter.parameter_number = number
    fusion.replace_operands([outer for _, outer in kept])
    _parameters_of[fused] = [parameter for parameter, _ in kept]
    fusion.shape = fused.root.shape
    if reduce_added and fusion.fusion_kind in (None, "kLoop"):
        fusion.set_attribute("kind", FusionKind.kInput)  # a reduce inside: an input fusion


__all__ = [
    "add_outputs",
    "create_fusion",
    "finish_fusion",
    "finish_fusions",
    "fuse_producer",
    "fusion_outputs",
    "get_tuple_element",
    "is_multi_output",
    "merge_fusions",
    "parameter_of",
    "reachable",
    "remove_instruction",
]
