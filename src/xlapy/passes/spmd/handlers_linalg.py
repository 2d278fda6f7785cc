"""Partitioning of dot, convolution and reduce: the ops that combine elements across
a dimension, so a tiled contracting/reduced dimension needs an all-reduce.

Dot: the operands run locally when every device holds matching batch and
contracting tiles of both; the local dot is then a partial sum over the
contracting tiles, summed by one all-reduce among the devices that hold the
same output tile (Megatron's row-parallel layer), and nothing is exchanged when
the contracting dims are whole (the column-parallel layer). Operands that do not
match are resharded to match first: the larger keeps its tiling and the other
follows it.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from .context import Partitioning, Value
from .dim_maps import DotDims, conv_operand_to_out, dot_dims, invert, reduce_operand_to_out
from .handlers import HANDLERS, replicate
from .tiling import Tiling

Op = HloOpcode


def _uneven(tiling: Tiling, dims, sizes) -> list[int]:
    return [d for d in dims if tiling.counts[d] > 1 and sizes[d] % tiling.counts[d]]


def _dot_output(dims: DotDims, lhs: Tiling, rhs: Tiling, rank: int) -> Tiling | None:
    """The tiling of the local dot's result, or None when the operands do not match."""
    lc, rc = lhs.coords(), rhs.coords()
    for a, b in zip(
        dims.lhs_batch + dims.lhs_contracting, dims.rhs_batch + dims.rhs_contracting, strict=True
    ):
        if lhs.counts[a] != rhs.counts[b] or not np.array_equal(lc[:, a], rc[:, b]):
            return None
    coords = np.zeros((lhs.num_devices, rank), dtype=np.int64)
    counts = [1] * rank
    for source, tiling, mapping in ((lc, lhs, dims.lhs_to_out()), (rc, rhs, dims.rhs_to_out())):
        for d, out in enumerate(mapping):
            if out is not None and tiling.counts[d] > 1:
                coords[:, out] = source[:, d]
                counts[out] = tiling.counts[d]
    try:
        return Tiling.from_coords(coords, counts)
    except InvalidArgumentError:
        return None


def _follow(leader: Tiling, leader_dims, follower_dims, follower_rank: int) -> Tiling | None:
    """A tiling of the other operand that matches ``leader`` on the paired dims."""
    mapping: list[int | None] = [None] * leader.rank
    for a, b in zip(leader_dims, follower_dims, strict=True):
        mapping[a] = b
    try:
        return leader.project(mapping, follower_rank)
    except InvalidArgumentError:
        return None


def _dot_operands(
    p: Partitioning, instruction: HloInstruction, dims: DotDims
) -> tuple[Tiling, Tiling, Tiling]:
    lhs_op, rhs_op = instruction.operands[:2]
    lhs, rhs = p.tiling(lhs_op), p.tiling(rhs_op)
    rank = instruction.shape.rank
    sizes = (lhs_op.shape.dimensions, rhs_op.shape.dimensions)
    lhs = lhs.gathered(_uneven(lhs, dims.lhs_contracting, sizes[0]))
    rhs = rhs.gathered(_uneven(rhs, dims.rhs_contracting, sizes[1]))
    attempts = [(lhs, rhs), (lhs, rhs.gathered(dims.rhs_free)), (lhs.gathered(dims.lhs_free), rhs)]
    lhs_pairs = dims.lhs_batch + dims.lhs_contracting
    rhs_pairs = dims.rhs_batch + dims.rhs_contracting
    leader_first = lhs.tile_count >= rhs.tile_count
    follow_rhs = _follow(lhs.keep_only(lhs_pairs), lhs_pairs, rhs_pairs, rhs.rank)
    follow_lhs = _follow(rhs.keep_only(rhs_pairs), rhs_pairs, lhs_pairs, lhs.rank)
    followers = [(lhs, follow_rhs), (follow_lhs, rhs)]
    attempts += followers if leader_first else followers[::-1]
    for a, b in attempts:
        if a is None or b is None:
            continue
        out = _dot_output(dims, a, b, rank)
        if out is not None:
            return a, b, out
    n = p.num_devices
    full_l, full_r = Tiling.replicated(lhs.rank, n), Tiling.replicated(rhs.rank, n)
    return full_l, full_r, Tiling.replicated(rank, n)


def _contracting_groups(dims: DotDims, lhs: Tiling, out: Tiling) -> list[list[int]]:
    """Devices holding the same output tile, one per contracting tile, for the all-reduce."""
    counts = [lhs.counts[d] for d in dims.lhs_contracting]
    coords = lhs.coords()
    out_coords = out.coords()[:, :-1]
    by_tile: dict[tuple, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for device in range(lhs.num_devices):
        contracting = int(
            np.ravel_multi_index([coords[device, d] for d in dims.lhs_contracting], counts)
        )
        by_tile[tuple(out_coords[device])][contracting].append(device)
    groups = []
    for per_tile in by_tile.values():
        members = [per_tile[c] for c in range(int(np.prod(counts)))]
        groups.extend([list(column) for column in zip(*members, strict=True)])
    return groups


def _scatter_dimension(
    groups: list[list[int]], out: Tiling, target: Tiling, dims: tuple[int, ...]
) -> int | None:
    """The dim a reduce-scatter over ``groups`` can leave tiled as ``target`` wants, if any:
    the member at position j of each group must hold tile j of it, the rest as ``out``."""
    size = len(groups[0])
    candidates = [
        d
        for d in range(out.rank)
        if out.counts[d] == 1 and target.counts[d] == size and dims[d] % size == 0
    ]
    if len(candidates) != 1 or target.rank != out.rank:
        return None
    (d,) = candidates
    oc, tc = out.coords(), target.coords()
    others = [x for x in range(out.rank) if x != d]
    if not np.array_equal(oc[:, others], tc[:, others]):
        return None
    for group in groups:
        if [int(tc[device, d]) for device in group] != list(range(size)):
            return None
    return d


def _dot(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    dims = dot_dims(instruction)
    lhs, rhs, out = _dot_operands(p, instruction, dims)
    l_local = p.operand_as(instruction.operand(0), lhs, instruction.name)
    r_local = p.operand_as(instruction.operand(1), rhs, instruction.name)
    local = p.remake(instruction, [l_local, r_local])
    if any(lhs.counts[d] > 1 for d in dims.lhs_contracting):
        groups = _contracting_groups(dims, lhs, out)
        target = p.target(instruction)
        scatter = _scatter_dimension(groups, out, target, instruction.shape.dimensions)
        if scatter is not None:
            local = p.builder.reduce_scatter(local, groups, scatter)
            p.builder.note(
                instruction.name,
                "partial dot + reduce-scatter",
                "the contracting dimensions are tiled and the result is tiled",
            )
            return local, target
        local = p.builder.all_reduce(local, groups)
        p.builder.note(
            instruction.name, "partial dot + all-reduce", "the contracting dimensions are tiled"
        )
    if (
        out.is_replicated
        and (p.is_tiled(instruction.operand(0)) or p.is_tiled(instruction.operand(1)))
        and not any(lhs.counts[d] > 1 for d in dims.lhs_contracting)
    ):
        p.builder.note(
            instruction.name, "ran on whole operands", "no matching tiling of the operands"
        )
    return local, out


def _convolution(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    target = p.target(instruction)
    rank = instruction.shape.rank
    maps = [conv_operand_to_out(instruction, i) for i in (0, 1)]
    kept = [out for m in maps for out in m if out is not None]
    out = target.keep_only(kept)
    locals_ = []
    for index, mapping in enumerate(maps):
        operand = instruction.operand(index)
        needed = out.project(invert(mapping, rank), operand.shape.rank)
        locals_.append(p.operand_as(operand, needed, instruction.name))
    if not target.same_as(out):
        p.builder.note(
            instruction.name,
            "spatial/input-feature dims whole",
            "only batch and output feature are partitioned",
        )
    return p.remake(instruction, locals_), out


def _reduce(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    if not instruction.shape.is_array:
        return replicate(p, instruction, "variadic reduce")
    operand, init = instruction.operands
    reduced = list(instruction.dimensions)
    current = p.tiling(operand)
    current = current.gathered(_uneven(current, reduced, operand.shape.dimensions))
    local = p.operand_as(operand, current, instruction.name)
    local_init = p.replicated(init, instruction.name)
    result = p.remake(instruction, [local, local_init])
    out = current.project(
        reduce_operand_to_out(operand.shape.rank, reduced), instruction.shape.rank
    )
    tiled = [d for d in reduced if current.counts[d] > 1]
    if tiled:
        result = p.builder.all_reduce(
            result, current.groups_along(tiled), computation=instruction.to_apply
        )
        p.builder.note(
            instruction.name, "local reduce + all-reduce", f"reduced dims {tiled} are tiled"
        )
    return result, out


HANDLERS.update({Op.DOT: _dot, Op.CONVOLUTION: _convolution, Op.REDUCE: _reduce})

__all__ = ["HANDLERS"]
