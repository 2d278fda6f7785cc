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

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ..creation import make, make_get_tuple_element, make_transpose, make_tuple
from ..rewrite import ExpanderPass

Op = HloOpcode


def move_sort_dimension(sort: HloInstruction) -> HloInstruction | None:
    """The sort rewritten to sort its last dimension (None: already does, or dynamic)."""
    (dim,) = (int(d) for d in sort.attribute("dimensions"))
    operands = list(sort.operands)
    rank = operands[0].shape.rank
    if dim == rank - 1 or not all(o.shape.is_array and o.shape.is_static for o in operands):
        return None
    perm = [d for d in range(rank) if d != dim] + [dim]
    inverse = [perm.index(d) for d in range(rank)]
    moved = [make_transpose(o, perm) for o in operands]
    shapes = [m.shape for m in moved]
    new_sort = make(
        Op.SORT,
        moved,
        {"dimensions": (rank - 1,), "is_stable": bool(sort.attribute("is_stable", False))},
        computations={"to_apply": sort.to_apply},
    )
    if not sort.shape.is_tuple:
        return make_transpose(new_sort, inverse)
    parts = [
        make_transpose(make_get_tuple_element(new_sort, index), inverse)
        for index in range(len(shapes))
    ]
    return make_tuple(parts)


class SortDimensionMover(ExpanderPass):
    name = "sort-dimension-mover"
    opcodes = frozenset({Op.SORT})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        value = move_sort_dimension(instruction)
        return value
