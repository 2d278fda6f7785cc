"""A sharding in the one normal form the SPMD passes reason with.

Why: ``OpSharding`` spells the same layout several ways (replicated, maximal,
``devices=[..]`` with or without ``last_tile_dim_replicate``, ``last_tile_dims``,
iota or explicit device lists). Propagation and partitioning only need to know
which tile of the array each device holds, so every array sharding becomes a
:class:`Tiling`: a device array shaped ``tile_counts + (replication,)``, where
``devices[c0, .., cr-1, k]`` is the k-th device holding tile ``(c0, .., cr-1)``.
Replicated is all tile counts 1; manual (inside a ``shard_map`` body) is a flag.
Pure numpy: no HLO here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...errors import InvalidArgumentError, UnimplementedError
from ...hlo.attributes_sharding import format_sharding
from ...xla_data_sharding import OpSharding, OpShardingType


@dataclass(frozen=True, eq=False)
class Tiling:
    """Which tile of an array each device holds; see the module docstring."""

    devices: np.ndarray
    manual: bool = False
    maximal_device: int | None = None
    _coords: np.ndarray | None = field(default=None, repr=False, compare=False)

    # -- construction --------------------------------------------------------------
    @staticmethod
    def replicated(rank: int, num_devices: int) -> Tiling:
        return Tiling(np.arange(num_devices).reshape((1,) * rank + (num_devices,)))

    @staticmethod
    def manual_of(rank: int, num_devices: int) -> Tiling:
        return Tiling(np.arange(num_devices).reshape((1,) * rank + (num_devices,)), manual=True)

    @staticmethod
    def from_coords(coords: np.ndarray, counts: Sequence[int]) -> Tiling:
        """The tiling where device ``d`` holds tile ``coords[d]`` (each tile equally often)."""
        counts = tuple(int(c) for c in counts)
        tiles = math.prod(counts)
        num_devices = coords.shape[0]
        if num_devices % tiles:
            raise InvalidArgumentError(
                f"{num_devices} devices cannot hold {tiles} tiles ({list(counts)}) equally"
            )
        rep = num_devices // tiles
        flat = (
            np.ravel_multi_index(tuple(coords.T), counts) if counts else np.zeros(num_devices, int)
        )
        order = np.argsort(flat, kind="stable")
        if not np.array_equal(np.bincount(flat, minlength=tiles), np.full(tiles, rep)):
            raise InvalidArgumentError(f"the devices do not hold the {tiles} tiles equally often")
        return Tiling(order.reshape(counts + (rep,)))

    # -- queries ---------------------------------------------------------------------
    @property
    def rank(self) -> int:
        return self.devices.ndim - 1

    @property
    def counts(self) -> tuple[int, ...]:
        return tuple(int(c) for c in self.devices.shape[:-1])

    @property
    def replication(self) -> int:
        return int(self.devices.shape[-1])

    @property
    def num_devices(self) -> int:
        return int(self.devices.size)

    @property
    def is_replicated(self) -> bool:
        return not self.manual and all(c == 1 for c in self.counts)

    @property
    def tile_count(self) -> int:
        return math.prod(self.counts)

    def coords(self) -> np.ndarray:
        """``coords()[d]`` = (tile coordinates..., replica index) of device ``d``."""
        if self._coords is None:
            table = np.zeros((self.num_devices, self.devices.ndim), dtype=np.int64)
            for index in np.ndindex(self.devices.shape):
                table[self.devices[index]] = index
            object.__setattr__(self, "_coords", table)
        return self._coords

    def shard_dims(self, dims: Sequence[int]) -> tuple[int, ...]:
        """The per-device (padded) shape of an array of ``dims``."""
        return tuple(-(-int(d) // c) for d, c in zip(dims, self.counts, strict=True))

    def same_as(self, other: Tiling) -> bool:
        return (
            self.manual == other.manual
            and self.devices.shape == other.devices.shape
            and np.array_equal(self.coords()[:, :-1], other.coords()[:, :-1])
        )

    def dim_agrees(self, other: Tiling, dim: int) -> bool:
        """Both tile ``dim`` the same way and every device holds the same slice of it."""
        return self.counts[dim] == other.counts[dim] and np.array_equal(
            self.coords()[:, dim], other.coords()[:, dim]
        )

    def groups_along(self, dims: Sequence[int]) -> list[list[int]]:
        """Devices that differ only in their tile coordinates along ``dims``, each group
        ordered by those coordinates (row-major): the replica groups of a collective
        that gathers or reduces over ``dims``."""
        dims = sorted(dims)
        others = [a for a in range(self.devices.ndim) if a not in dims]
        moved = np.transpose(self.devices, others + dims)
        size = math.prod(self.devices.shape[d] for d in dims)
        return moved.reshape(-1, size).tolist()

    # -- derived tilings --------------------------------------------------------------
    def gathered(self, dims: Sequence[int]) -> Tiling:
        """This tiling after all-gathering ``dims``: those dims replicated."""
        coords = self.coords()[:, :-1].copy()
        counts = list(self.counts)
        for d in dims:
            coords[:, d] = 0
            counts[d] = 1
        return Tiling.from_coords(coords, counts)

    def keep_only(self, dims: Sequence[int]) -> Tiling:
        """This tiling replicated over every dimension not in ``dims``."""
        return self.gathered([d for d in range(self.rank) if d not in dims])

    def permuted(self, permutation: Sequence[int]) -> Tiling:
        """The tiling of ``transpose(x, permutation)`` when x is tiled by self."""
        return Tiling(np.transpose(self.devices, [*permutation, self.rank]), manual=self.manual)

    def project(self, mapping: Sequence[int | None], rank: int) -> Tiling:
        """A tiling of a rank-``rank`` array whose dim ``mapping[i]`` is tiled as this
        tiling's dim ``i`` (None: that dim's tiling is dropped: the devices along it
        become replicas)."""
        coords = self.coords()
        new = np.zeros((self.num_devices, rank), dtype=np.int64)
        counts = [1] * rank
        for i, target in enumerate(mapping):
            if target is not None:
                new[:, target] = coords[:, i]
                counts[target] = self.counts[i]
        return Tiling.from_coords(new, counts)

    def __repr__(self) -> str:
        return format_sharding(to_op_sharding(self))


# -- OpSharding <-> Tiling ----------------------------------------------------------------
def from_op_sharding(sharding: OpSharding | None, rank: int, num_devices: int) -> Tiling:
    """The Tiling of an array sharding; unknown (None) reads as replicated."""
    kind = OpShardingType.REPLICATED if sharding is None else sharding.type
    if kind in (OpShardingType.REPLICATED, OpShardingType.UNKNOWN):
        return Tiling.replicated(rank, num_devices)
    if kind is OpShardingType.MAXIMAL:
        device = int(sharding.device_assignment().ravel()[0])
        base = Tiling.replicated(rank, num_devices)
        return Tiling(base.devices, maximal_device=device)
    if kind is OpShardingType.MANUAL:
        return Tiling.manual_of(rank, num_devices)
    if kind is not OpShardingType.OTHER:
        raise UnimplementedError(
            f"the SPMD partitioner takes replicated, maximal, manual and tiled array "
            f"shardings, not {kind.name}"
        )
    devices = sharding.device_assignment()
    dims = list(devices.shape)
    trailing = 1 if sharding.replicate_on_last_tile_dim else len(sharding.last_tile_dims)
    if any(t is not OpShardingType.REPLICATED for t in sharding.last_tile_dims):
        raise UnimplementedError(
            f"partially manual shardings (last_tile_dims={[t.name for t in sharding.last_tile_dims]})"
            " are not supported by the SPMD partitioner; make every mesh axis manual"
        )
    if len(dims) - trailing != rank:
        raise InvalidArgumentError(
            f"sharding {dims} tiles {len(dims) - trailing} dimensions of a rank-{rank} array"
        )
    if devices.size != num_devices or set(devices.ravel().tolist()) != set(range(num_devices)):
        raise InvalidArgumentError(
            f"the sharding uses devices {sorted(devices.ravel().tolist())}; the partitioned "
            f"program runs on {num_devices} partitions (0..{num_devices - 1}); every "
            "sharding must name each of them once"
        )
    rep = math.prod(dims[rank:])
    return Tiling(devices.reshape(tuple(dims[:rank]) + (rep,)))


def to_op_sharding(tiling: Tiling) -> OpSharding:
    """The OpSharding XLA would print for ``tiling``."""
    if tiling.manual:
        return OpSharding.manual()
    if tiling.maximal_device is not None:
        return OpSharding.maximal(tiling.maximal_device)
    if tiling.is_replicated:
        return OpSharding.replicated()
    rep = tiling.replication
    dims = tiling.counts + ((rep,) if rep > 1 else ())
    flat = [int(d) for d in tiling.devices.ravel()]
    if flat == list(range(len(flat))):
        return OpSharding.tiled(dims, last_tile_dim_replicate=rep > 1)
    return OpSharding.tiled(dims, flat, last_tile_dim_replicate=rep > 1)


__all__ = ["Tiling", "from_op_sharding", "to_op_sharding"]
