"""Common subexpression elimination: one instruction for each distinct computation.

Why: front ends and the other passes (inlining, expanders, the simplifier's
rewrites) produce the same value several times; computing it once saves work
and memory, and lets later rules see that two operands are the same value.

Two instructions are the same when their opcode, shape (layout included),
operands, attributes (called computations compared by identity, metadata
ignored) and, for constants, the shape and the bytes of the value agree
(``-0.0`` and ``+0.0`` are different constants; two NaNs with one bit pattern
are the same). Integer and ``pred`` operands of commutative ops are compared as
a set (``a + b`` is ``b + a`` exactly); float and complex ones are not, because
with two NaN operands the result's payload depends on the order.

Never merged: parameters, anything with a side effect or a random result
(:func:`xlapy.passes.dce.has_side_effect`: rng, infeed, collectives, custom
calls with side effects, async ops, control flow containing any of them), and
instructions with control edges.
"""

from __future__ import annotations

from typing import Any

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ..pass_base import HloPass
from .dce import has_control_edges, has_side_effect

Op = HloOpcode
_IGNORED_ATTRIBUTES = frozenset({"metadata", "statistics", "origin"})


def _attribute_key(value: Any) -> Any:
    if isinstance(value, HloComputation):
        return ("computation", id(value))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_attribute_key(v) for v in value))
    try:
        hash(value)
    except TypeError:
        return ("repr", repr(value))
    return (type(value).__name__, value)


def _literal_key(instruction: HloInstruction) -> Any:
    literal = instruction.literal
    if literal is None:
        return None
    data = getattr(literal, "data", None)
    if literal.shape.is_array and data is not None:
        return (str(literal.shape), data.tobytes())
    return ("text", str(literal))


def _operand_key(instruction: HloInstruction) -> tuple[int, ...]:
    ids = tuple(id(o) for o in instruction.operands)
    et = instruction.operand(0).shape.element_type if instruction.operand_count else None
    exact_commutative = et is not None and (et.is_integral or et.is_pred)
    if instruction.opcode.is_commutative and exact_commutative:
        return tuple(sorted(ids))
    return ids


def cse_key(instruction: HloInstruction) -> Any:
    """What two instructions must share to be merged."""
    attributes = tuple(
        (k, _attribute_key(v))
        for k, v in instruction.attributes.items()
        if k not in _IGNORED_ATTRIBUTES
    )
    return (
        instruction.opcode,
        instruction.shape,
        _operand_key(instruction),
        attributes,
        _literal_key(instruction),
    )


def is_mergeable(instruction: HloInstruction) -> bool:
    if instruction.opcode is Op.PARAMETER or has_control_edges(instruction):
        return False
    return not has_side_effect(instruction)


def cse_computation(computation: HloComputation) -> bool:
    changed = False
    seen: dict[Any, HloInstruction] = {}
    for instruction in computation.post_order():
        if not is_mergeable(instruction):
            continue
        key = cse_key(instruction)
        first = seen.setdefault(key, instruction)
        if first is instruction:
            continue
        instruction.replace_all_uses_with(first)
        computation.remove_instruction(instruction)
        changed = True
    return changed


class CommonSubexpressionElimination(HloPass):
    """Merges instructions that compute the same value from the same operands."""

    name = "cse"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            changed |= cse_computation(computation)
        return changed


__all__ = ["CommonSubexpressionElimination", "cse_computation", "cse_key", "is_mergeable"]
