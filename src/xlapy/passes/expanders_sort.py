"""``SortDimensionMover``: a sort along any dimension as a sort along the last one,
between transposes, for backends whose sort kernel sorts rows (the CPU backend's).

Why: sorting along dimension ``d`` orders every line along ``d`` independently;
moving ``d`` last (a transpose of every operand), sorting the rows and moving it
back gives the same lines in the same order, the comparator and stability
unchanged. The transposes are copies the fusion pass can merge with neighbours;
for a backend that sorts rows, they cost two passes over the data, far less
than the sort.
"""

from __future__ import annotations

from ..hlo.instruction import HloInstruction
from ..layout import Layout
from ..opcode import HloOpcode
from ..shape import Shape
from .expansion import ExpanderPass

Op = HloOpcode


def _transposed(value: HloInstruction, perm: list[int]) -> HloInstruction:
    shape = value.shape
    layout = None if shape.layout is None else Layout.default(shape.rank)
    result = Shape.array(shape.element_type, [shape.dimensions[d] for d in perm], layout)
    return value.parent.add_instruction(
        HloInstruction(Op.TRANSPOSE, result, [value], attributes={"dimensions": tuple(perm)})
    )


def move_sort_dimension(sort: HloInstruction) -> HloInstruction | None:
    """The sort rewritten to sort its last dimension (None: already does, or dynamic)."""
    (dim,) = (int(d) for d in sort.attribute("dimensions"))
    operands = list(sort.operands)
    rank = operands[0].shape.rank
    if dim == rank - 1 or not all(o.shape.is_array and o.shape.is_static for o in operands):
        return None
    perm = [d for d in range(rank) if d != dim] + [dim]
    inverse = [perm.index(d) for d in range(rank)]
    moved = [_transposed(o, perm) for o in operands]
    shapes = [m.shape for m in moved]
    computation = sort.parent
    new_sort = computation.add_instruction(
        HloInstruction(
            Op.SORT,
            Shape.tuple(shapes) if sort.shape.is_tuple else shapes[0],
            moved,
            attributes={
                "dimensions": (rank - 1,),
                "is_stable": bool(sort.attribute("is_stable", False)),
                "to_apply": sort.to_apply,
            },
        )
    )
    if not sort.shape.is_tuple:
        return _transposed(new_sort, inverse)
    parts = []
    for index, shape in enumerate(shapes):
        element = computation.add_instruction(
            HloInstruction(Op.GET_TUPLE_ELEMENT, shape, [new_sort], attributes={"index": index})
        )
        parts.append(_transposed(element, inverse))
    return computation.add_instruction(
        HloInstruction(Op.TUPLE, Shape.tuple([p.shape for p in parts]), parts)
    )


class SortDimensionMover(ExpanderPass):
    name = "sort-dimension-mover"
    opcodes = frozenset({Op.SORT})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        value = move_sort_dimension(instruction)
        if value is not None:
            instruction.parent.replace_instruction(instruction, value)
        return value
