"""How the dimensions of an op's operands map onto the dimensions of its result.

Why: propagation (which dims of the result inherit an operand's tiling, and back)
and the partitioner (which tiling each operand must have for the op to run on
its local pieces) ask the same question of the same ops; answering it once here
keeps the two in agreement. Each function returns, per operand dim, the result
dim it becomes (or None when the dim does not survive).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...hlo.instruction import HloInstruction


@dataclass(frozen=True)
class DotDims:
    """A dot's dims: result = batch dims, then lhs free dims, then rhs free dims."""

    lhs_batch: tuple[int, ...]
    rhs_batch: tuple[int, ...]
    lhs_contracting: tuple[int, ...]
    rhs_contracting: tuple[int, ...]
    lhs_free: tuple[int, ...]
    rhs_free: tuple[int, ...]

    def lhs_to_out(self) -> list[int | None]:
        """Result dim of each lhs dim (None for contracting dims)."""
        return _to_out(self.lhs_batch, self.lhs_free, len(self.lhs_batch), self._lhs_rank)

    def rhs_to_out(self) -> list[int | None]:
        start = len(self.lhs_batch) + len(self.lhs_free)
        return _to_out(self.rhs_batch, self.rhs_free, start, self._rhs_rank)

    @property
    def _lhs_rank(self) -> int:
        return len(self.lhs_batch) + len(self.lhs_contracting) + len(self.lhs_free)

    @property
    def _rhs_rank(self) -> int:
        return len(self.rhs_batch) + len(self.rhs_contracting) + len(self.rhs_free)


def _to_out(
    batch: Sequence[int], free: Sequence[int], free_start: int, rank: int
) -> list[int | None]:
    mapping: list[int | None] = [None] * rank
    for i, d in enumerate(batch):
        mapping[d] = i
    for i, d in enumerate(free):
        mapping[d] = free_start + i
    return mapping


def dot_dims(instruction: HloInstruction) -> DotDims:
    dnums = instruction.dot_dimension_numbers
    lhs_rank, rhs_rank = (o.shape.rank for o in instruction.operands[:2])
    lb, rb = tuple(dnums.lhs_batch_dimensions), tuple(dnums.rhs_batch_dimensions)
    lc, rc = tuple(dnums.lhs_contracting_dimensions), tuple(dnums.rhs_contracting_dimensions)
    lf = tuple(d for d in range(lhs_rank) if d not in lb and d not in lc)
    rf = tuple(d for d in range(rhs_rank) if d not in rb and d not in rc)
    return DotDims(lb, rb, lc, rc, lf, rf)


def conv_operand_to_out(instruction: HloInstruction, operand: int) -> list[int | None]:
    """Convolution: the input's batch dim and the kernel's output-feature dim map through."""
    dnums = instruction.convolution_dimension_numbers
    rank = instruction.operand(operand).shape.rank
    mapping: list[int | None] = [None] * rank
    if operand == 0:
        if int(instruction.attribute("batch_group_count", 1) or 1) == 1:
            mapping[dnums.input_batch_dimension] = dnums.output_batch_dimension
    elif int(instruction.attribute("feature_group_count", 1) or 1) == 1:
        mapping[dnums.kernel_output_feature_dimension] = dnums.output_feature_dimension
    return mapping


def reduce_operand_to_out(rank: int, reduced: Sequence[int]) -> list[int | None]:
    mapping: list[int | None] = []
    kept = 0
    for d in range(rank):
        if d in reduced:
            mapping.append(None)
        else:
            mapping.append(kept)
            kept += 1
    return mapping


def broadcast_operand_to_out(dimensions: Sequence[int]) -> list[int | None]:
    return [int(d) for d in dimensions]


def invert(mapping: Sequence[int | None], rank: int) -> list[int | None]:
    """The mapping the other way: result dim -> operand dim."""
    inverse: list[int | None] = [None] * rank
    for i, target in enumerate(mapping):
        if target is not None:
            inverse[target] = i
    return inverse


__all__ = [
    "DotDims",
    "broadcast_operand_to_out",
    "conv_operand_to_out",
    "dot_dims",
    "invert",
    "reduce_operand_to_out",
]
