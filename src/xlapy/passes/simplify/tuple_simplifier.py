"""Tuple simplification: take tuples apart where they are built.

Why: inlining, loop-invariant code motion and the async unwrapper wrap values
in tuples only to unwrap them again; a backend would materialize every such
tuple (a table of pointers) for nothing.

Two rules, both exact for every shape:

* ``get-tuple-element(tuple(a0, a1, ...), index=k)`` is ``ak``;
* ``tuple(get-tuple-element(x, 0), ..., get-tuple-element(x, n-1))`` that lists
  every element of ``x`` in order is ``x``.

A replacement must have the replaced instruction's shape, layouts included.
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ..pass_base import HloPass
from .algebraic_simplifier_support import if_same
from .dce import has_control_edges

Op = HloOpcode


def element_of_tuple(instruction: HloInstruction) -> HloInstruction | None:
    """``ak`` for ``get-tuple-element(tuple(a0, ...), index=k)``."""
    source = instruction.operand(0)
    if source.opcode is not Op.TUPLE:
        return None
    return if_same(source.operand(instruction.tuple_index), instruction)


def rebuilt_tuple(instruction: HloInstruction) -> HloInstruction | None:
    """``x`` for ``tuple(gte(x, 0), ..., gte(x, n-1))`` over all of ``x``'s elements."""
    elements = instruction.operands
    if not elements or any(e.opcode is not Op.GET_TUPLE_ELEMENT for e in elements):
        return None
    source = elements[0].operand(0)
    if not source.shape.is_tuple or len(source.shape.tuple_shapes) != len(elements):
        return None
    for k, element in enumerate(elements):
        if element.operand(0) is not source or element.tuple_index != k:
            return None
    return if_same(source, instruction)


_RULES = {Op.GET_TUPLE_ELEMENT: element_of_tuple, Op.TUPLE: rebuilt_tuple}


def simplify_tuples(computation: HloComputation) -> bool:
    changed = False
    for instruction in computation.post_order():
        rule = _RULES.get(instruction.opcode)
        if rule is None or instruction.parent is not computation:
            continue
        if instruction.user_count == 0 and not instruction.is_root:
            continue  # dead: dead code elimination removes it
        if has_control_edges(instruction):
            continue
        replacement = rule(instruction)
        if replacement is not None:
            instruction.replace_all_uses_with(replacement)
            computation.remove_instruction(instruction)
            changed = True
    return changed


class TupleSimplifier(HloPass):
    """Removes tuples that are taken apart right away, and re-tuplings of a whole tuple."""

    name = "tuple-simplifier"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            changed |= simplify_tuples(computation)
        return changed


__all__ = ["TupleSimplifier", "element_of_tuple", "rebuilt_tuple", "simplify_tuples"]
