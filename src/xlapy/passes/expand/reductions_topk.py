"""``TopkDecomposer``: topk as a sort and slices, for a backend with a sort.

Why: topk is a sort and a slice; a backend with a sort
needs nothing else. ``topk(x), k, largest`` becomes
``sort(x, iota), dimensions={last}, is_stable=true`` with a comparator that
orders by ``GT`` (``LT`` for the smallest), floats in TOTALORDER (NaN above
+inf, +0 above -0), then slices of the first ``k`` values and indices. A
stable sort keeps equal values in index order, so ties go to the lower index,
as topk's do. Complex operands are left alone (they have no order).
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...layout import Layout
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, ComparisonType
from ..creation import make_get_tuple_element
from ..rewrite import ExpanderPass

Op = HloOpcode
P = PrimitiveType


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
        element = make_get_tuple_element(sort, index)
        window = tuple((0, k if d == last else n, 1) for d, n in enumerate(x.shape.dimensions))
        # topk's own shapes (layouts included) for what replaces it, not inferred ones
        parts.append(
            computation.add_instruction(
                HloInstruction(Op.SLICE, shape, [element], attributes={"slice": window})
            )
        )
    return computation.add_instruction(HloInstruction(Op.TUPLE, topk.shape, parts))


class TopkDecomposer(ExpanderPass):
    """topk as a stable sort with indices, then slices."""

    name = "topk-decomposer"
    opcodes = frozenset({Op.TOPK})
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return decompose_topk(instruction.parent.parent, instruction)


__all__ = ["TopkDecomposer", "decompose_topk", "topk_comparator"]
