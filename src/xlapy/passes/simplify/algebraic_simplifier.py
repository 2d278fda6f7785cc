"""Algebraic simplification: rewrites that remove work without changing any result.

Why: programs as front ends write them (and as inlining and expansion leave
them) are full of ``x * 1``, ``transpose(transpose(x))``, reshapes of reshapes,
slices that re-form what they sliced, and dots behind explicit transposes;
each costs a loop or a copy that a backend would otherwise run.

One table maps an opcode to its rules (:data:`RULES`, merged from the family
modules ``algebraic_simplifier_arith`` (elementwise), ``_movement`` and
``_dot`` (dot and reduce), whose docstrings list every rule with the element
types it holds for). A rule looks at one instruction and returns the
instruction that can stand for it, or None. Every rule is exact for the types
it accepts (bit for bit, signed zeros, infinities and INT_MIN included; NaN
stays NaN); a replacement must have the very same shape, layout included,
which the driver checks.

The driver visits each computation (fusion computations excepted) in post
order, so operands are simplified before their users, and simplifies what a
rule built before moving on; replaced instructions are removed when nothing
else needs them. Instructions with control edges are left alone.
"""

from __future__ import annotations

from ...errors import InternalError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ..pass_base import HloPass
from . import algebraic_simplifier_arith, algebraic_simplifier_dot, algebraic_simplifier_movement
from .algebraic_simplifier_support import Rule, RuleTable, same_shape, uniform
from .dce import has_control_edges, is_removable

Op = HloOpcode


def _merge(*tables: RuleTable) -> RuleTable:
    merged: dict[HloOpcode, tuple[Rule, ...]] = {}
    for table in tables:
        for opcode, rules in table.items():
            merged[opcode] = merged.get(opcode, ()) + rules
    return merged


RULES: RuleTable = _merge(
    algebraic_simplifier_arith.RULES,
    algebraic_simplifier_movement.RULES,
    algebraic_simplifier_dot.RULES,
)
# How many times what a rule built is simplified again before moving on.
_MAX_CHAIN = 8


def simplify_instruction(instruction: HloInstruction) -> HloInstruction | None:
    """The first replacement a rule offers for ``instruction`` (None if none fires)."""
    if has_control_edges(instruction):
        return None
    for rule in RULES.get(instruction.opcode, ()):
        replacement = rule(instruction)
        if replacement is None or replacement is instruction:
            continue
        if not same_shape(replacement.shape, instruction.shape):
            raise InternalError(
                f"algebraic simplifier rule {rule.__name__} replaced {instruction.name} "
                f"({instruction.shape}) by {replacement.name} ({replacement.shape})"
            )
        return replacement
    return None


def simplify_computation(computation: HloComputation) -> bool:
    changed = False
    for instruction in computation.post_order():
        current: HloInstruction | None = instruction
        for _ in range(_MAX_CHAIN):
            if current is None or current.parent is not computation:
                break
            if current.user_count == 0 and not current.is_root:
                break  # dead: dead code elimination removes it
            replacement = simplify_instruction(current)
            if replacement is None:
                break
            current.replace_all_uses_with(replacement)
            if is_removable(current) and current.user_count == 0:
                computation.remove_instruction(current)
            changed = True
            current = replacement
    if changed:
        computation.sort_topologically()
    return changed


class AlgebraicSimplifier(HloPass):
    """Applies the rule table (see the module docstring) to every instruction."""

    name = "algebraic-simplifier"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            if not computation.is_fusion_computation:
                changed |= simplify_computation(computation)
        return changed


__all__ = [
    "RULES",
    "AlgebraicSimplifier",
    "simplify_computation",
    "simplify_instruction",
    "uniform",
]
