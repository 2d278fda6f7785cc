"""Split a large full reduction into row partials and a small final reduction.

``max(x)`` over 16M elements is one long loop on one core. Seen as a reduction
of ``x`` reshaped to ``[K, N/K]`` over its rows (K independent row
reductions, which the backend spreads over the cores and vectorizes), followed
by a reduction of the K partials, it runs at the speed of all cores. The spec
leaves the order of a reduction open, so this is a valid way to compute it;
XLA does the same ("tree reduction").
"""

from __future__ import annotations

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ..creation import make, make_reshape
from ..rewrite import ExpanderPass

Op = HloOpcode
MIN_ELEMENTS = 1 << 20
_ROWS = (256, 128, 64, 32, 16)


def _split_rows(count: int) -> int | None:
    for rows in _ROWS:
        if count % rows == 0 and count // rows >= 4096:
            return rows
    return None


def _splittable(reduce: HloInstruction) -> int | None:
    if reduce.opcode is not Op.REDUCE or reduce.operand_count != 2 or not reduce.shape.is_scalar:
        return None
    operand, init = reduce.operands
    reducer = reduce.to_apply
    params = [p.shape for p in reducer.parameters]
    et = operand.shape.element_type
    if any(p.element_type != et for p in params) or reduce.shape.element_type != et:
        return None
    count = operand.shape.element_count()
    if count < MIN_ELEMENTS or not init.shape.is_scalar:
        return None
    return _split_rows(count)


class ReductionSplitter(ExpanderPass):
    name = "reduction-splitter"
    opcodes = frozenset({Op.REDUCE})
    skip_fusions = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        rows = _splittable(instruction)
        if rows is None:
            return None
        operand, init = instruction.operands
        count = operand.shape.element_count()
        reducer = {"to_apply": instruction.to_apply}
        matrix = make_reshape(operand, [rows, count // rows])
        partial = make(Op.REDUCE, [matrix, init], {"dimensions": (1,)}, computations=reducer)
        return make(Op.REDUCE, [partial, init], {"dimensions": (0,)}, computations=reducer)
