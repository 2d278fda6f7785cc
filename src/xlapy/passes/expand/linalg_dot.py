"""``DotCanonicalizer``: dots in the forms a GEMM backend takes directly.

``DotCanonicalizer``. Why: BLAS multiplies, per batch element, row-major
matrices; a dot whose operand has its batch dimensions elsewhere than in front,
or its free and contracting dimensions interleaved, cannot be handed to it
as it is. This pass transposes such an operand (only such an operand) into
``[batch..., free..., contracting...]`` (left-hand side) or
``[batch..., contracting..., free...]`` (right-hand side), batch and
contracting dimensions in the order that pairs them with the other side's, free
ones in their original order, and renumbers the dot's dimensions. The result
is the same dot: the same products summed for the same output positions (only
the order of the sum may change, which the spec leaves open). Done for dots of
the types BLAS has (f32, f64, c64, c128, all three shapes of one type); integer
dots run as loops that take any form. It never undoes itself with the
algebraic simplifier, which folds a transpose into a dot only when the operand
then already is in such a form.
"""

from __future__ import annotations

from collections.abc import Callable

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...types import PrimitiveType
from ..creation import make_transpose
from ..rewrite import ExpanderPass
from ..simplify.algebraic_simplifier_dot import blas_form

Op = HloOpcode
P = PrimitiveType
BLAS_TYPES = frozenset({P.F32, P.F64, P.C64, P.C128})


def canonicalize_dot(dot: HloInstruction, any_types: bool = False) -> HloInstruction | None:
    """A copy of ``dot`` over operands BLAS takes as they are (None if they already are);
    ``any_types``: whatever its types (a backend's GEMM for other types, as the CPU's
    int8 GEMM)."""
    lhs, rhs = dot.operands
    et = dot.shape.element_type
    blas = et in BLAS_TYPES and lhs.shape.element_type == et and rhs.shape.element_type == et
    if not (blas or any_types):
        return None
    numbers = dot.dot_dimension_numbers
    lb, lc = list(numbers.lhs_batch_dimensions), list(numbers.lhs_contracting_dimensions)
    rb, rc = list(numbers.rhs_batch_dimensions), list(numbers.rhs_contracting_dimensions)
    lhs_ok = blas_form(lhs.shape.rank, lb, lc)
    rhs_ok = blas_form(rhs.shape.rank, rb, rc)
    if lhs_ok and rhs_ok:
        return None  # both batch lists are then 0..nb-1
    nb, nc = len(lb), len(lc)
    operands, attributes = [lhs, rhs], {}
    if not lhs_ok:
        free = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
        operands[0] = make_transpose(lhs, lb + free + lc)
        attributes["lhs_batch_dims"] = tuple(range(nb))
        attributes["lhs_contracting_dims"] = tuple(range(nb + len(free), nb + len(free) + nc))
    if not rhs_ok:
        free = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
        operands[1] = make_transpose(rhs, rb + rc + free)
        attributes["rhs_batch_dims"] = tuple(range(nb))
        attributes["rhs_contracting_dims"] = tuple(range(nb, nb + nc))
    new = dot.clone(operands)
    for name, value in attributes.items():
        if value or new.has_attribute(name):
            new.set_attribute(name, value)
    return dot.parent.add_instruction(new)


class DotCanonicalizer(ExpanderPass):
    """Transposes dot operands BLAS cannot take into a form it can (see the docstring)."""

    name = "dot-canonicalizer"
    opcodes = frozenset({Op.DOT})
    skip_control_edges = True

    def __init__(
        self,
        keep: Callable[[HloInstruction], bool] | None = None,
        gemm_takes: Callable[[HloInstruction], bool] | None = None,
    ) -> None:
        """``gemm_takes``: dots of other types than BLAS's that the backend's GEMM takes
        in these forms too."""
        super().__init__(keep)
        self.gemm_takes = gemm_takes or (lambda dot: False)

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return canonicalize_dot(instruction, self.gemm_takes(instruction))


__all__ = ["BLAS_TYPES", "DotCanonicalizer", "canonicalize_dot"]
