"""Halo exchange: a slice along a tiled dimension without gathering the dimension.

Why: slicing ``x[1:13]`` of an ``x[16]`` tiled over 4 devices needs, on each
device, its own tile shifted by a few elements: the neighbours' edges (the
halos), not the whole array. As XLA's partitioner does for windowed ops, each
device sends the edge its neighbour needs with ``collective-permute`` (to the
previous device for the right halo, the next one for the left halo), joins
[left halo, own tile, right halo] and takes its output tile with a
``dynamic-slice`` at an offset read from ``partition-id``. Used when the halos
are no wider than a tile; otherwise the dimension is gathered.
"""

from __future__ import annotations

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...xla_data_sharding import SourceTarget
from ..creation import make, make_concatenate, make_slice
from .context import Partitioning
from .tiling import Tiling

Op = HloOpcode


def _permute(
    p: Partitioning, value: HloInstruction, pairs: list[tuple[int, int]]
) -> HloInstruction:
    return make(
        Op.COLLECTIVE_PERMUTE,
        [value],
        {
            "channel_id": p.builder.next_channel(),
            "source_target_pairs": tuple(SourceTarget(s, t) for s, t in pairs),
        },
    )


def _edge(value: HloInstruction, dim: int, width: int, *, high: bool) -> HloInstruction:
    dims = list(value.shape.dimensions)
    starts = [0] * len(dims)
    limits = list(dims)
    if high:
        starts[dim] = dims[dim] - width
    else:
        limits[dim] = width
    return make_slice(value, starts, limits)


def halo_slice(
    p: Partitioning, instruction: HloInstruction
) -> tuple[HloInstruction, Tiling] | None:
    """The slice by halo exchange, or None when it does not apply (see the docstring)."""
    operand = instruction.operand(0)
    dims = operand.shape.dimensions
    window = instruction.attribute("slice")
    touched = [d for d, w in enumerate(window) if tuple(w) != (0, dims[d], 1)]
    current = p.tiling(operand)
    if len(touched) != 1 or current.manual:
        return None
    (d,) = touched
    start, limit, stride = window[d]
    n = current.counts[d]
    if stride != 1 or n == 1:
        return None
    q = -(-dims[d] // n)
    m = -(-(limit - start) // n)
    left = max(0, max(q * k - (start + m * k) for k in range(n)))
    right = max(0, max(start + m * k + m - q * (k + 1) for k in range(n)))
    if left > q or right > q:
        return None
    local = p.local[operand]
    groups = current.groups_along([d])
    parts = []
    if left:
        pairs = [(g[i], g[i + 1]) for g in groups for i in range(n - 1)]
        parts.append(_permute(p, _edge(local, d, left, high=True), pairs))
    parts.append(local)
    if right:
        pairs = [(g[i + 1], g[i]) for g in groups for i in range(n - 1)]
        parts.append(_permute(p, _edge(local, d, right, high=False), pairs))
    joined = make_concatenate(parts, d) if len(parts) > 1 else local
    coords = current.coords()[:, d]
    offsets = [int(start + m * k - q * k + left) for k in coords]
    starts = [p.builder.per_device(offsets if x == d else [0]) for x in range(len(dims))]
    sizes = list(joined.shape.dimensions)
    sizes[d] = m
    result = make(Op.DYNAMIC_SLICE, [joined, *starts], {"dynamic_slice_sizes": tuple(sizes)})
    p.builder.note(
        instruction.name,
        f"halo exchange on dim {d} (left {left}, right {right})",
        "the slice cuts a tiled dimension",
    )
    return result, current


__all__ = ["halo_slice"]
