"""Split a large full reduction into row partials and a small final reduction.

``max(x)`` over 16M elements is one long loop on one core. Seen as a reduction
of ``x`` reshaped to ``[K, N/K]`` over its rows (K independent row
reductions, which the backend spreads over the cores and vectorizes), followed
by a reduction of the K partials, it runs at the speed of all cores. The spec
leaves the order of a reduction open, so this is a valid way to compute it;
XLA does the same ("tree reduction").
"""

from __future__ import annotations

from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from ..shape import Shape
from .pass_base import HloPass

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


class ReductionSplitter(HloPass):
    name = "reduction-splitter"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            if computation.is_fusion_computation:
                continue
            for reduce in list(computation.instructions):
                rows = _splittable(reduce)
                if rows is None:
                    continue
                operand, init = reduce.operands
                et = operand.shape.element_type
                count = operand.shape.element_count()
                matrix = computation.add_instruction(
                    HloInstruction(Op.RESHAPE, Shape.array(et, [rows, count // rows]), [operand])
                )
                partial = computation.add_instruction(
                    HloInstruction(
                        Op.REDUCE,
                        Shape.array(et, [rows]),
                        [matrix, init],
                        attributes={"dimensions": (1,), "to_apply": reduce.to_apply},
                    )
                )
                final = HloInstruction(
                    Op.REDUCE,
                    reduce.shape,
                    [partial, init],
                    attributes={"dimensions": (0,), "to_apply": reduce.to_apply},
                )
                computation.add_instruction(final)
                computation.replace_instruction(reduce, final)
                computation.sort_topologically()
                changed = True
        return changed
