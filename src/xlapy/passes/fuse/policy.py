"""What may be fused, and what fusing costs: the facts the fusion passes decide by.

Three questions, kept apart so that each has one answer:

* *Can the backend emit it inside a fused loop?* ``default_can_emit`` is the
  loop emitter's repertoire: elementwise ops, the movement ops it can generate
  per element, constants, and reduce (only as a root, which the passes
  enforce). The passes take this predicate as a parameter so that a backend
  can tighten it (element types it has no code for, say).
* *Is it expensive?* A duplicated or re-read expensive producer adds real
  work, so these are never computed twice (XLA's ``IsExpensive``: divide,
  power, remainder, transcendental functions, any reduce).
* *Does a consumer read an operand's elements more than once?* A broadcast
  reads each element of its operand once per copy; fusing an expensive
  producer into it would recompute the producer that many times.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Container

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode

Op = HloOpcode

# Non-elementwise ops the loop emitter generates per element of their output.
MOVEMENT = frozenset(
    {
        Op.BROADCAST,
        Op.RESHAPE,
        Op.BITCAST,
        Op.TRANSPOSE,
        Op.SLICE,
        Op.CONCATENATE,
        Op.PAD,
        Op.IOTA,
        Op.REVERSE,
        Op.DYNAMIC_SLICE,
        Op.CONSTANT,
    }
)

# Elementwise ops whose per-element cost is high enough that computing them twice
# (duplicated into two consumers, or re-read through a broadcast) costs real time.
EXPENSIVE = frozenset(
    {
        Op.DIVIDE,
        Op.POWER,
        Op.REMAINDER,
        Op.EXPONENTIAL,
        Op.EXPONENTIAL_MINUS_ONE,
        Op.LOG,
        Op.LOG_PLUS_ONE,
        Op.TANH,
        Op.LOGISTIC,
        Op.SINE,
        Op.COSINE,
        Op.TAN,
        Op.ATAN2,
        Op.ERF,
        Op.SQRT,
        Op.RSQRT,
        Op.CBRT,
        Op.REDUCE,
    }
)

CanEmit = Callable[[HloInstruction], bool]


# -- can the emitter generate it ---------------------------------------------------------


def _arrays_only(instruction: HloInstruction) -> bool:
    return instruction.shape.is_array and all(o.shape.is_array for o in instruction.operands)


def _plain_bitcast(instruction: HloInstruction) -> bool:
    """A bitcast the emitter reads as a reshape: same element type, default layouts."""
    if not _arrays_only(instruction):
        return False
    operand = instruction.operand(0)
    for shape in (instruction.shape, operand.shape):
        layout = shape.layout
        if layout is not None and tuple(layout.minor_to_major) != tuple(
            reversed(range(shape.rank))
        ):
            return False
    return instruction.shape.element_type == operand.shape.element_type


def _scalar_reducer(computation: HloComputation | None) -> bool:
    """A reducer the emitter inlines per element: scalar elementwise code only."""
    if computation is None:
        return False
    for instruction in computation.instructions:
        op = instruction.opcode
        if op in (Op.TUPLE, Op.GET_TUPLE_ELEMENT):
            continue
        if not instruction.shape.is_scalar:
            return False
        if not (op in (Op.PARAMETER, Op.CONSTANT) or (op.is_elementwise and op is not Op.MAP)):
            return False
    return True


def _emittable_reduce(instruction: HloInstruction) -> bool:
    shape = instruction.shape
    leaves = shape.tuple_shapes if shape.is_tuple else [shape]
    return (
        all(s.is_array for s in leaves)
        and all(o.shape.is_array for o in instruction.operands)
        and _scalar_reducer(instruction.to_apply)
    )


# One rule per opcode the emitter knows besides plain elementwise ops.
_CAN_EMIT: dict[HloOpcode, Callable[[HloInstruction], bool]] = {
    **{op: _arrays_only for op in MOVEMENT},
    Op.BITCAST: _plain_bitcast,
    Op.REDUCE: _emittable_reduce,
}


def _element_types(instruction: HloInstruction) -> list:
    shapes = [instruction.shape, *(o.shape for o in instruction.operands)]
    out = []
    for shape in shapes:
        out.extend(s.element_type for s in (shape.tuple_shapes if shape.is_tuple else [shape]))
    return out


def default_can_emit(instruction: HloInstruction) -> bool:
    """Whether the CPU loop emitter can generate ``instruction`` inside a fusion.

    Elementwise ops (not ``map``, which calls a computation), the movement ops
    of ``MOVEMENT`` (a bitcast only when it is a plain reshape), and reduce with
    a scalar reducer (the passes put a reduce only at a fusion's root), on every
    element type, complex ones included.
    """
    op = instruction.opcode
    rule = _CAN_EMIT.get(op)
    if rule is None:
        if not op.is_elementwise or op.calls_computations or op.may_have_side_effect:
            return False
        rule = _arrays_only
    return rule(instruction)


# -- cost -----------------------------------------------------------------------------------


def is_expensive(instruction: HloInstruction) -> bool:
    """Whether computing ``instruction`` twice would add noticeable work.

    A fusion is as expensive as the most expensive thing it contains.
    """
    if instruction.opcode is Op.FUSION:
        return any(is_expensive(i) for i in instruction.fused_computation.instructions)
    return instruction.opcode in EXPENSIVE


def _broadcast_reuses(consumer: HloInstruction, index: int) -> bool:
    return consumer.shape.element_count() > consumer.operand(index).shape.element_count()


def _scalar_operands_reused(consumer: HloInstruction, index: int) -> bool:
    # pad's padding value, dynamic-slice's start indices: read for many output elements.
    return index >= 1 and consumer.shape.element_count() > 1


def _reduce_reuses(consumer: HloInstruction, index: int) -> bool:
    # The inputs are read once each; the init values once per output element.
    inputs = consumer.operand_count // 2
    if index < inputs:
        return False
    shape = consumer.shape.tuple_shapes[0] if consumer.shape.is_tuple else consumer.shape
    return shape.element_count() > 1


def _never(consumer: HloInstruction, index: int) -> bool:
    return False


def _fusion_reuses(consumer: HloInstruction, index: int) -> bool:
    fused = consumer.fused_computation
    parameter = next(p for p in fused.parameters if p.parameter_number == index)
    return value_reused(parameter)


# Whether the consumer reads the elements of operand ``index`` more than once.
_REUSES: dict[HloOpcode, Callable[[HloInstruction, int], bool]] = {
    Op.BROADCAST: _broadcast_reuses,
    Op.PAD: _scalar_operands_reused,
    Op.DYNAMIC_SLICE: _scalar_operands_reused,
    Op.REDUCE: _reduce_reuses,
    Op.FUSION: _fusion_reuses,
    Op.TUPLE: _never,
    **{
        op: _never
        for op in (
            Op.RESHAPE,
            Op.BITCAST,
            Op.TRANSPOSE,
            Op.SLICE,
            Op.CONCATENATE,
            Op.REVERSE,
        )
    },
}


def reuses_elements(consumer: HloInstruction, index: int) -> bool:
    """Whether ``consumer`` reads elements of its operand ``index`` more than once.

    Unknown opcodes answer yes: a wrong yes only forgoes a fusion.
    """
    op = consumer.opcode
    if op.is_elementwise and op is not Op.MAP:
        return False
    rule = _REUSES.get(op)
    return True if rule is None else rule(consumer, index)


def _same_index(user: HloInstruction, value: HloInstruction) -> bool:
    """``user`` reads ``value`` at its own output index (so the emitter's per-index cache
    serves every such read with one computation)."""
    op = user.opcode
    if op is Op.TUPLE:
        return True
    if op is Op.REDUCE:
        return all(k < user.operand_count // 2 for k, o in enumerate(user.operands) if o is value)
    return op.is_elementwise and user.shape.dimensions == value.shape.dimensions


def users_first(
    value: HloInstruction, known: Container[HloInstruction] = ()
) -> list[HloInstruction]:
    """``value`` and everything computed from it, each after all of its users, not
    descending into ``known`` ones (iterative: fused chains can be longer than Python's
    recursion limit)."""
    order: list[HloInstruction] = []
    seen = {id(value)}
    stack = [(value, iter(value.users))]
    while stack:
        node, pending = stack[-1]
        for user in pending:
            if id(user) not in seen and user not in known:
                seen.add(id(user))
                stack.append((user, iter(user.users)))
                break
        else:
            stack.pop()
            order.append(node)
    return order


# Per fused computation, ``value_reused`` of its non-parameter instructions. Fusing
# only adds producers above parameters, which leaves these answers valid; the edits
# that give an existing instruction new users call ``forget_reuse``.
_reused: weakref.WeakKeyDictionary[HloComputation, dict[HloInstruction, bool]] = (
    weakref.WeakKeyDictionary()
)


def forget_reuse(
    fused: HloComputation | None = None, gained_users: HloInstruction | None = None
) -> None:
    """Drop cached ``value_reused`` answers: of every computation (no ``fused``), of all of
    ``fused``, or only those that depend on ``gained_users``'s users (its own and its
    operands', transitively) when that instruction is the one that gained users."""
    if fused is None:
        _reused.clear()
        return
    known = _reused.get(fused)
    if not known:
        return
    if gained_users is None:
        del _reused[fused]
        return
    stack = [gained_users]
    while stack:
        node = stack.pop()
        if known.pop(node, None) is not None:
            stack.extend(node.operands)
        elif node is gained_users:
            stack.extend(node.operands)


def value_reused(value: HloInstruction) -> bool:
    """Whether a value inside a fused computation is computed more than once per element
    of it: read through a broadcast, or at different indices by different users."""
    known = _reused.setdefault(value.parent, {}) if value.parent is not None else {}
    flags: dict[HloInstruction, bool] = {}
    for v in users_first(value, known):
        users = v.users
        if len(users) > 1 and not all(_same_index(u, v) for u in users):
            flag = True
        else:
            flag = any(
                flags.get(u, known.get(u, False))
                or any(reuses_elements(u, k) for k, o in enumerate(u.operands) if o is v)
                for u in users
            )
        flags[v] = flag
        if v.opcode is not Op.PARAMETER:
            known[v] = flag
    return flags[value]


__all__ = [
    "EXPENSIVE",
    "MOVEMENT",
    "CanEmit",
    "default_can_emit",
    "forget_reuse",
    "is_expensive",
    "reuses_elements",
    "users_first",
    "value_reused",
]
