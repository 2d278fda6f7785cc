"""Expanders for dot and topk: forms a GEMM-and-sort backend takes directly.

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

``TopkDecomposer``. Why: topk is a sort and a slice; a backend with a sort
needs nothing else. ``topk(x), k, largest`` becomes
``sort(x, iota), dimensions={last}, is_stable=true`` with a comparator that
orders by ``GT`` (``LT`` for the smallest), floats in TOTALORDER (NaN above
+inf, +0 above -0), then slices of the first ``k`` values and indices. A
stable sort keeps equal values in index order, so ties go to the lower index,
as topk's do. Complex operands are left alone (they have no order).
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..layout import Layout
from ..opcode import HloOpcode
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import ComparisonDirection, ComparisonType
from .algebraic_simplifier_dot import blas_form
from .algebraic_simplifier_support import ints
from .pass_base import HloPass

Op = HloOpcode
P = PrimitiveType
BLAS_TYPES = frozenset({P.F32, P.F64, P.C64, P.C128})


def _dims(dot: HloInstruction, name: str) -> list[int]:
    return ints(dot.attribute(name))


def _permuted(value: HloInstruction, perm: list[int]) -> HloInstruction:
    shape = value.shape
    dims = [shape.dimensions[d] for d in perm]
    layout = None if shape.layout is None else Layout.default(len(dims))
    transposed = Shape.array(shape.element_type, dims, layout)
    return value.parent.add_instruction(
        HloInstruction(Op.TRANSPOSE, transposed, [value], attributes={"dimensions": tuple(perm)})
    )


def canonicalize_dot(dot: HloInstruction) -> HloInstruction | None:
    """A copy of ``dot`` over operands BLAS takes as they are (None if they already are)."""
    lhs, rhs = dot.operands
    et = dot.shape.element_type
    if et not in BLAS_TYPES or lhs.shape.element_type != et or rhs.shape.element_type != et:
        return None
    lb, lc = _dims(dot, "lhs_batch_dims"), _dims(dot, "lhs_contracting_dims")
    rb, rc = _dims(dot, "rhs_batch_dims"), _dims(dot, "rhs_contracting_dims")
    lhs_ok = blas_form(lhs.shape.rank, lb, lc)
    rhs_ok = blas_form(rhs.shape.rank, rb, rc)
    if lhs_ok and rhs_ok:
        return None  # both batch lists are then 0..nb-1
    nb, nc = len(lb), len(lc)
    operands, attributes = [lhs, rhs], {}
    if not lhs_ok:
        free = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
        operands[0] = _permuted(lhs, lb + free + lc)
        attributes["lhs_batch_dims"] = tuple(range(nb))
        attributes["lhs_contracting_dims"] = tuple(range(nb + len(free), nb + len(free) + nc))
    if not rhs_ok:
        free = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
        operands[1] = _permuted(rhs, rb + rc + free)
        attributes["rhs_batch_dims"] = tuple(range(nb))
        attributes["rhs_contracting_dims"] = tuple(range(nb, nb + nc))
    new = dot.clone(operands)
    for name, value in attributes.items():
        if value or new.has_attribute(name):
            new.set_attribute(name, value)
    return dot.parent.add_instruction(new)


class DotCanonicalizer(HloPass):
    """Transposes dot operands BLAS cannot take into a form it can (see the docstring)."""

    name = "dot-canonicalizer"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            for dot in computation.post_order():
                if dot.opcode is not Op.DOT or dot.control_predecessors or dot.control_successors:
                    continue
                new = canonicalize_dot(dot)
                if new is not None:
                    computation.replace_instruction(dot, new)
                    changed = True
            if changed:
                computation.sort_topologically()
        return changed


# -- topk -----------------------------------------------------------------------------------


def topk_comparator(module: HloModule, et: PrimitiveType, largest: bool) -> HloComputation:
    """``(a, b, i, j) -> a > b`` (``<`` for the smallest) in TOTALORDER for floats."""
    scalar = Shape.scalar(et)
    index = Shape.scalar(P.S32)
    params = [
        HloInstruction.create_parameter(0, scalar, name="a"),
        HloInstruction.create_parameter(1, scalar, name="b"),
        HloInstruction.create_parameter(2, index, name="i"),
        HloInstruction.create_parameter(3, index, name="j"),
    ]
    attributes: dict[str, object] = {
        "direction": ComparisonDirection.GT if largest else ComparisonDirection.LT
    }
    if et.is_float:
        attributes["type"] = ComparisonType.TOTALORDER
    root = HloInstruction(
        Op.COMPARE, Shape.scalar(P.PRED), params[:2], name="before", attributes=attributes
    )
    name = f"topk_{'gt' if largest else 'lt'}_{et.hlo_name}"
    return module.add_computation(HloComputation(name, [*params, root], root=root))


def decompose_topk(module: HloModule, topk: HloInstruction) -> HloInstruction | None:
    """sort + slices standing for ``topk`` (None for operands without an order)."""
    x = topk.operand(0)
    et = x.shape.element_type
    if et.is_complex or not x.shape.is_static or x.shape.rank == 0:
        return None
    computation: HloComputation = topk.parent
    last = x.shape.rank - 1
    k = int(topk.attribute("k"))
    largest = bool(topk.attribute("largest", True))
    layout = None if x.shape.layout is None else Layout.default(x.shape.rank)
    indices_shape = Shape.array(P.S32, x.shape.dimensions, layout)
    iota = computation.add_instruction(
        HloInstruction(Op.IOTA, indices_shape, attributes={"iota_dimension": last})
    )
    sort = computation.add_instruction(
        HloInstruction(
            Op.SORT,
            Shape.tuple([x.shape, indices_shape]),
            [x, iota],
            attributes={
                "dimensions": (last,),
                "is_stable": True,
                "to_apply": topk_comparator(module, et, largest),
            },
        )
    )
    parts = []
    for index, shape in enumerate(topk.shape.tuple_shapes):
        element_shape = sort.shape.tuple_shapes[index]
        element = computation.add_instruction(
            HloInstruction(Op.GET_TUPLE_ELEMENT, element_shape, [sort], attributes={"index": index})
        )
        window = tuple((0, k if d == last else n, 1) for d, n in enumerate(x.shape.dimensions))
        parts.append(
            computation.add_instruction(
                HloInstruction(Op.SLICE, shape, [element], attributes={"slice": window})
            )
        )
    return computation.add_instruction(HloInstruction(Op.TUPLE, topk.shape, parts))


class TopkDecomposer(HloPass):
    """topk as a stable sort with indices, then slices."""

    name = "topk-decomposer"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for topk in list(computation.instructions):
                if topk.opcode is not Op.TOPK or topk.parent is not computation:
                    continue
                if topk.control_predecessors or topk.control_successors:
                    continue
                replacement = decompose_topk(module, topk)
                if replacement is None:
                    continue
                computation.replace_instruction(topk, replacement)
                computation.sort_topologically()
                changed = True
        return changed


__all__ = [
    "BLAS_TYPES",
    "DotCanonicalizer",
    "TopkDecomposer",
    "canonicalize_dot",
    "decompose_topk",
    "topk_comparator",
]
