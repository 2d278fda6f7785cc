"""Per-opcode sharding propagation rules, forward (operands -> result) and backward
(result -> one operand), as tables.

Why tables: each opcode family has one small rule, and the pass
(:mod:`.propagation`) only walks the graph and asks. A rule returns None when it
knows nothing; the pass then tries the other direction, and what stays unknown
ends replicated. Rules speak :class:`~.tiling.Tiling`, never OpSharding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from .dim_maps import (
    broadcast_operand_to_out,
    conv_operand_to_out,
    dot_dims,
    invert,
    reduce_operand_to_out,
)
from .reshape_tiling import reshape_tiling
from .tiling import Tiling

Op = HloOpcode
Forward = Callable[[HloInstruction, Sequence["Tiling | None"]], "Tiling | None"]
Backward = Callable[[HloInstruction, Tiling, int], "Tiling | None"]


def fit(tiling: Tiling, dims: Sequence[int]) -> Tiling:
    """``tiling`` with every dim tiled more times than it has elements replicated."""
    too_fine = [
        d for d, (size, count) in enumerate(zip(dims, tiling.counts, strict=True)) if count > size
    ]
    return tiling.gathered(too_fine) if too_fine else tiling


def finest(candidates: Sequence[Tiling | None]) -> Tiling | None:
    """The candidate with the most tiles (the first among equals); None if none."""
    best: Tiling | None = None
    for candidate in candidates:
        if candidate is not None and (best is None or candidate.tile_count > best.tile_count):
            best = candidate
    return best


def _map(tiling: Tiling, mapping: Sequence[int | None], rank: int) -> Tiling | None:
    try:
        return tiling.project(mapping, rank)
    except InvalidArgumentError:
        return None


# -- forward ------------------------------------------------------------------------------
def _same_shape_forward(
    instruction: HloInstruction, tilings: Sequence[Tiling | None]
) -> Tiling | None:
    rank = instruction.shape.rank
    return finest(
        [
            t
            for t, o in zip(tilings, instruction.operands, strict=True)
            if t is not None and o.shape.is_array and o.shape.rank == rank
        ]
    )


def _first_operand_forward(
    instruction: HloInstruction, tilings: Sequence[Tiling | None]
) -> Tiling | None:
    return tilings[0]


def _broadcast_forward(
    instruction: HloInstruction, tilings: Sequence[Tiling | None]
) -> Tiling | None:
    if tilings[0] is None:
        return None
    mapping = broadcast_operand_to_out(instruction.dimensions)
    return _map(tilings[0], mapping, instruction.shape.rank)


def _transpose_forward(
    instruction: HloInstruction, tilings: Sequence[Tiling | None]
) -> Tiling | None:
    return None if tilings[0] is None else tilings[0].permuted(instruction.dimensions)


def _reshape_forward(
    instruction: HloInstruction, tilings: Sequence[Tiling | None]
) -> Tiling | None:
    tiling = tilings[0]
    if tiling is None:
        return None
    source = instruction.operand(0).shape.dimensions
    return reshape_tiling(tiling, source, instruction.shape.dimensions)


def _dot_forward(instruction: HloInstruction, tilings: Sequence[Tiling | None]) -> Tiling | None:
    dims = dot_dims(instruction)
    rank = instruction.shape.rank
    lhs, rhs = tilings[0], tilings[1]
    from_lhs = None if lhs is None else _map(lhs, dims.lhs_to_out(), rank)
    from_rhs = None if rhs is None else _map(rhs, dims.rhs_to_out(), rank)
    if from_lhs is None or from_rhs is None:
        return from_lhs or from_rhs
    merged = from_lhs.coords()[:, :-1].copy()
    counts = list(from_lhs.counts)
    rhs_coords = from_rhs.coords()
    for d in range(rank):
        if counts[d] == 1 and from_rhs.counts[d] > 1:
            merged[:, d] = rhs_coords[:, d]
            counts[d] = from_rhs.counts[d]
    try:
        return Tiling.from_coords(merged, counts)
    except InvalidArgumentError:
        return finest([from_lhs, from_rhs])


def _reduce_forward(instruction: HloInstruction, tilings: Sequence[Tiling | None]) -> Tiling | None:
    if tilings[0] is None or not instruction.shape.is_array:
        return None
    mapping = reduce_operand_to_out(instruction.operand(0).shape.rank, instruction.dimensions)
    return _map(tilings[0], mapping, instruction.shape.rank)


def _conv_forward(instruction: HloInstruction, tilings: Sequence[Tiling | None]) -> Tiling | None:
    rank = instruction.shape.rank
    candidates = [
        None if t is None else _map(t, conv_operand_to_out(instruction, i), rank)
        for i, t in enumerate(tilings[:2])
    ]
    return finest(candidates)


# -- backward -----------------------------------------------------------------------------
def _same_shape_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    shape = instruction.operand(operand).shape
    return out if shape.is_array and shape.rank == out.rank else None


def _first_operand_backward(
    instruction: HloInstruction, out: Tiling, operand: int
) -> Tiling | None:
    return out if operand == 0 else None


def _broadcast_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    inverse = invert(broadcast_operand_to_out(instruction.dimensions), out.rank)
    return _map(out, inverse, instruction.operand(0).shape.rank)


def _transpose_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    perm = list(instruction.dimensions)
    inverse = [perm.index(i) for i in range(len(perm))]
    return out.permuted(inverse)


def _reshape_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    source = instruction.operand(0).shape.dimensions
    return reshape_tiling(out, instruction.shape.dimensions, source)


def _dot_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    dims = dot_dims(instruction)
    to_out = dims.lhs_to_out() if operand == 0 else dims.rhs_to_out()
    inverse = invert(to_out, out.rank)
    return _map(out, inverse, instruction.operand(operand).shape.rank)


def _reduce_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    if operand != 0 or not instruction.shape.is_array:
        return None
    rank = instruction.operand(0).shape.rank
    inverse = invert(reduce_operand_to_out(rank, instruction.dimensions), out.rank)
    return _map(out, inverse, rank)


def _conv_backward(instruction: HloInstruction, out: Tiling, operand: int) -> Tiling | None:
    if operand > 1:
        return None
    inverse = invert(conv_operand_to_out(instruction, operand), out.rank)
    return _map(out, inverse, instruction.operand(operand).shape.rank)


# -- tables ---------------------------------------------------------------------------
# Ops that keep the shape of their first operand and whose tiling may pass through
# (the partitioner falls back to gathering where the op touches a tiled dim).
_SHAPE_KEEPING = (
    Op.SLICE,
    Op.PAD,
    Op.REVERSE,
    Op.DYNAMIC_SLICE,
    Op.DYNAMIC_UPDATE_SLICE,
    Op.CONCATENATE,
)

FORWARD: dict[HloOpcode, Forward] = {
    Op.BROADCAST: _broadcast_forward,
    Op.TRANSPOSE: _transpose_forward,
    Op.RESHAPE: _reshape_forward,
    Op.DOT: _dot_forward,
    Op.REDUCE: _reduce_forward,
    Op.CONVOLUTION: _conv_forward,
    Op.COPY: _first_operand_forward,
    **{op: _first_operand_forward for op in _SHAPE_KEEPING},
}
BACKWARD: dict[HloOpcode, Backward] = {
    Op.BROADCAST: _broadcast_backward,
    Op.TRANSPOSE: _transpose_backward,
    Op.RESHAPE: _reshape_backward,
    Op.DOT: _dot_backward,
    Op.REDUCE: _reduce_backward,
    Op.CONVOLUTION: _conv_backward,
    Op.COPY: _first_operand_backward,
    Op.CONCATENATE: _same_shape_backward,
    **{op: _first_operand_backward for op in _SHAPE_KEEPING if op is not Op.CONCATENATE},
}


def forward_rule(opcode: HloOpcode) -> Forward | None:
    if opcode in FORWARD:
        return FORWARD[opcode]
    return _same_shape_forward if opcode.is_elementwise else None


def backward_rule(opcode: HloOpcode) -> Backward | None:
    if opcode in BACKWARD:
        return BACKWARD[opcode]
    return _same_shape_backward if opcode.is_elementwise else None


__all__ = ["BACKWARD", "FORWARD", "backward_rule", "finest", "fit", "forward_rule"]
