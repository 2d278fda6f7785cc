"""Global numpy arrays to per-device shards and back, by a sharding.

Why: a partitioned program takes one piece of every argument per device and
returns one piece of every result per device. Whoever runs it (the tests, and
``Executable.__call__`` for sharded programs) must cut the global arrays the way
the entry shardings say and glue the results back the way the output shardings
say. Uneven dimensions are padded at the high end to ``tiles * ceil(dim / tiles)``
with zeros, as XLA's partitioner expects its parameters, and the padding is cut
off on the way back. Pure numpy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import InvalidArgumentError
from ...xla_data_sharding import OpSharding, OpShardingType
from .tiling import Tiling, from_op_sharding


def _tiling(sharding: OpSharding | Tiling | None, rank: int, num_devices: int) -> Tiling:
    if isinstance(sharding, Tiling):
        return sharding
    return from_op_sharding(sharding, rank, num_devices)


def _tile_slices(tiling: Tiling, device: int, shard: Sequence[int]) -> tuple[slice, ...]:
    coords = tiling.coords()[device]
    return tuple(slice(int(c) * s, (int(c) + 1) * s) for c, s in zip(coords, shard, strict=False))


def shard_array(
    array: np.ndarray, sharding: OpSharding | Tiling | None, num_devices: int
) -> list[np.ndarray]:
    """One piece of ``array`` per device, as ``sharding`` lays it out (padded if uneven)."""
    array = np.asarray(array)
    if isinstance(sharding, OpSharding) and sharding.type is OpShardingType.TUPLE:
        raise InvalidArgumentError(
            "shard_array takes an array sharding; shard tuple leaves one by one"
        )
    tiling = _tiling(sharding, array.ndim, num_devices)
    if tiling.manual:
        raise InvalidArgumentError("a manual sharding says nothing about how to cut a global array")
    shard = tiling.shard_dims(array.shape)
    padded_dims = [s * c for s, c in zip(shard, tiling.counts, strict=True)]
    if list(padded_dims) != list(array.shape):
        pad = [(0, p - d) for p, d in zip(padded_dims, array.shape, strict=True)]
        array = np.pad(array, pad)
    return [np.array(array[_tile_slices(tiling, d, shard)], copy=True) for d in range(num_devices)]


def assemble_shards(
    pieces: Sequence[np.ndarray],
    sharding: OpSharding | Tiling | None,
    global_dims: Sequence[int],
) -> np.ndarray:
    """The global array from one piece per device (the inverse of :func:`shard_array`).

    Devices holding the same tile must agree; a disagreement is a partitioner bug
    and raises rather than picking one.
    """
    global_dims = tuple(int(d) for d in global_dims)
    tiling = _tiling(sharding, len(global_dims), len(pieces))
    if tiling.maximal_device is not None:
        return np.asarray(pieces[tiling.maximal_device])
    shard = tiling.shard_dims(global_dims)
    padded = [s * c for s, c in zip(shard, tiling.counts, strict=True)]
    first = np.asarray(pieces[0])
    result = np.zeros(padded, dtype=first.dtype)
    written = np.zeros(tiling.counts, dtype=bool)
    for device, piece in enumerate(pieces):
        piece = np.asarray(piece)
        if tuple(piece.shape) != tuple(shard):
            raise InvalidArgumentError(
                f"device {device} returned a piece of shape {list(piece.shape)}; the sharding "
                f"gives shards of {list(shard)} for the global shape {list(global_dims)}"
            )
        coords = tuple(int(c) for c in tiling.coords()[device][:-1])
        where = _tile_slices(tiling, device, shard)
        if written[coords]:
            if not np.array_equal(result[where], piece, equal_nan=piece.dtype.kind in "fc"):
                raise InvalidArgumentError(
                    f"devices holding tile {list(coords)} disagree (device {device} differs)"
                )
        else:
            result[where] = piece
            written[coords] = True
    return result[tuple(slice(0, d) for d in global_dims)]


__all__ = ["assemble_shards", "shard_array"]
