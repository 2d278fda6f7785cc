"""Emitting the per-device program: offsets from ``partition-id``, collectives, resharding.

Why: every partitioning rule needs the same few moves: "which slice of this
dimension does my device hold" (a table of offsets indexed by ``partition-id``,
as XLA's partitioner builds it), "gather this dimension from my group"
(``all-gather``), "sum partial results" (``all-reduce``), "move the tiled
dimension" (``all-to-all``), and above all :meth:`LocalBuilder.reshard`, which
turns a local piece tiled one way into the piece tiled another way, by the
cheapest of: nothing, a local dynamic-slice, an all-to-all, or all-gathers then a
dynamic-slice. Collectives use ``use_global_device_ids`` with a fresh
``channel_id`` each, so their replica groups name partitions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import PaddingConfig
from ...xla_data_sharding import CollectiveDeviceList, ReplicaGroup
from ..creation import make, make_concatenate, make_convert, make_pad, make_reshape, make_slice
from .tiling import Tiling

Op = HloOpcode


@dataclass
class ReportEntry:
    """One line of the partitioning report: what was done to an instruction and why."""

    instruction: str
    action: str
    reason: str

    def __str__(self) -> str:
        return f"{self.instruction}: {self.action} ({self.reason})"


def device_groups(groups: Sequence[Sequence[int]]) -> CollectiveDeviceList:
    return CollectiveDeviceList([ReplicaGroup([int(d) for d in g]) for g in groups])


class LocalBuilder:
    """Adds instructions to the per-device entry computation; see the module docstring."""

    def __init__(self, module: HloModule, computation: HloComputation, num_devices: int) -> None:
        self.module = module
        self.computation = computation
        self.num_devices = num_devices
        self.report: list[ReportEntry] = []
        self._channel = max(
            (int(i.attribute("channel_id") or 0) for i in module.instructions()), default=0
        )
        self._partition_id: HloInstruction | None = None
        self._tables: dict[tuple[int, ...], HloInstruction] = {}
        self._reducers: dict[tuple[str, PrimitiveType], HloComputation] = {}

    # -- bookkeeping ---------------------------------------------------------------------
    def note(self, instruction: str, action: str, reason: str) -> None:
        self.report.append(ReportEntry(instruction, action, reason))

    def next_channel(self) -> int:
        self._channel += 1
        return self._channel

    def constant(self, value: object, element_type: PrimitiveType) -> HloInstruction:
        literal = Literal.from_value(np.asarray(value, dtype=element_type.dtype), element_type)
        return make(
            Op.CONSTANT, [], declared=literal.shape, computation=self.computation, literal=literal
        )

    def partition_id(self) -> HloInstruction:
        if self._partition_id is None:
            pid = make(
                Op.PARTITION_ID,
                [],
                declared=Shape.scalar(PrimitiveType.U32),
                computation=self.computation,
            )
            self._partition_id = make_convert(pid, PrimitiveType.S32)
        return self._partition_id

    def per_device(self, values: Sequence[int]) -> HloInstruction:
        """An s32[] holding ``values[partition-id]``: a constant table read at my id."""
        key = tuple(int(v) for v in values)
        if key not in self._tables:
            if len(set(key)) == 1:
                self._tables[key] = self.constant(key[0], PrimitiveType.S32)
            else:
                table = self.constant(np.asarray(key, dtype=np.int32), PrimitiveType.S32)
                picked = make(
                    Op.DYNAMIC_SLICE, [table, self.partition_id()], {"dynamic_slice_sizes": (1,)}
                )
                self._tables[key] = make_reshape(picked, [])
        return self._tables[key]

    def reducer(self, opcode: HloOpcode, element_type: PrimitiveType) -> HloComputation:
        """A scalar ``opcode`` computation (add, maximum...) for all-reduce."""
        key = (opcode.value, element_type)
        if key not in self._reducers:
            scalar = Shape.scalar(element_type)
            a = HloInstruction.create_parameter(0, scalar, "a")
            b = HloInstruction.create_parameter(1, scalar, "b")
            body = HloComputation(f"spmd_{opcode.value}_{element_type.name.lower()}", [a, b])
            root = make(opcode, [a, b], computation=body)
            body.root = root
            self._reducers[key] = self.module.add_computation(body)
        return self._reducers[key]

    # -- local data movement -------------------------------------------------------------
    def pad_high(self, value: HloInstruction, dims: Sequence[int]) -> HloInstruction:
        """``value`` padded with zeros at the high end of each dim up to ``dims``."""
        current = value.shape.dimensions
        if tuple(current) == tuple(dims):
            return value
        zero = self.constant(0, value.shape.element_type)
        config = PaddingConfig.from_triples(
            [(0, int(t) - int(c), 0) for c, t in zip(current, dims, strict=True)]
        )
        return make_pad(value, zero, config)

    def slice_to(self, value: HloInstruction, dims: Sequence[int]) -> HloInstruction:
        """The leading ``dims`` of ``value`` (cuts off the padding of uneven tiles)."""
        if tuple(value.shape.dimensions) == tuple(dims):
            return value
        return make_slice(value, [0] * len(dims), list(dims))

    def take_tiles(
        self, value: HloInstruction, tiling: Tiling, dims_to_cut: Sequence[int]
    ) -> HloInstruction:
        """My tile, by ``tiling``, along ``dims_to_cut`` of a value that holds them whole
        (a local dynamic-slice at offsets read from ``partition-id``)."""
        if not dims_to_cut:
            return value
        shard = list(value.shape.dimensions)
        padded = list(value.shape.dimensions)
        for d in dims_to_cut:
            size = -(-value.shape.dimensions[d] // tiling.counts[d])
            shard[d] = size
            padded[d] = size * tiling.counts[d]
        value = self.pad_high(value, padded)
        coords = tiling.coords()
        starts = [
            self.per_device(coords[:, d] * shard[d]) if d in dims_to_cut else self.per_device([0])
            for d in range(value.shape.rank)
        ]
        return make(Op.DYNAMIC_SLICE, [value, *starts], {"dynamic_slice_sizes": tuple(shard)})

    # -- collectives ------------------------------------------------------------------------
    def all_gather(
        self, value: HloInstruction, tiling: Tiling, dim: int, global_size: int
    ) -> HloInstruction:
        groups = tiling.groups_along([dim])
        gathered = make(
            Op.ALL_GATHER,
            [value],
            {
                "channel_id": self.next_channel(),
                "replica_groups": device_groups(groups),
                "dimensions": (dim,),
                "use_global_device_ids": True,
            },
        )
        dims = list(gathered.shape.dimensions)
        dims[dim] = global_size
        return self.slice_to(gathered, dims)

    def all_reduce(
        self,
        value: HloInstruction,
        groups: Sequence[Sequence[int]],
        opcode: HloOpcode = Op.ADD,
        computation: HloComputation | None = None,
    ) -> HloInstruction:
        """Combine ``value`` over each group by ``computation`` (default: a scalar ``opcode``)."""
        reducer = computation or self.reducer(opcode, value.shape.element_type)
        return make(
            Op.ALL_REDUCE,
            [value],
            {
                "channel_id": self.next_channel(),
                "replica_groups": device_groups(groups),
                "use_global_device_ids": True,
            },
            computations={"to_apply": reducer},
        )

    def reduce_scatter(
        self, value: HloInstruction, groups: Sequence[Sequence[int]], dim: int
    ) -> HloInstruction:
        """Sum ``value`` over each group; member j keeps chunk j along ``dim``."""
        return make(
            Op.REDUCE_SCATTER,
            [value],
            {
                "channel_id": self.next_channel(),
                "replica_groups": device_groups(groups),
                "use_global_device_ids": True,
                "dimensions": (dim,),
            },
            computations={"to_apply": self.reducer(Op.ADD, value.shape.element_type)},
        )

    def all_to_all(
        self, value: HloInstruction, groups: Sequence[Sequence[int]], split: int, concat: int
    ) -> HloInstruction:
        """Split ``value`` along ``split`` into one chunk per group member, exchange, and
        concatenate what arrives along ``concat``."""
        n = len(groups[0])
        size = value.shape.dimensions[split] // n
        chunks = []
        for k in range(n):
            starts = [0] * value.shape.rank
            limits = list(value.shape.dimensions)
            starts[split], limits[split] = k * size, (k + 1) * size
            chunks.append(make_slice(value, starts, limits))
        exchanged = make(
            Op.ALL_TO_ALL,
            chunks,
            {"channel_id": self.next_channel(), "replica_groups": device_groups(groups)},
        )
        parts = [make(Op.GET_TUPLE_ELEMENT, [exchanged], {"index": k}) for k in range(n)]
        return make_concatenate(parts, concat)

    # -- resharding ---------------------------------------------------------------------------
    def reshard(
        self, value: HloInstruction, src: Tiling, dst: Tiling, global_dims: Sequence[int], name: str
    ) -> HloInstruction:
        """``value`` (my piece by ``src``) as my piece by ``dst``."""
        if src.manual or dst.manual:
            return value
        if src.same_as(dst):
            return value
        moved = self._try_all_to_all(value, src, dst, global_dims)
        if moved is not None:
            self.note(name, "all-to-all", f"the tiled dimension moves: {src} -> {dst}")
            return moved
        gather = [d for d in range(src.rank) if src.counts[d] > 1 and not src.dim_agrees(dst, d)]
        current = src
        for d in gather:
            value = self.all_gather(value, current, d, int(global_dims[d]))
            current = current.gathered([d])
        if gather:
            self.note(name, f"all-gather dims {gather}", f"resharding {src} -> {dst}")
        cut = [d for d in range(dst.rank) if dst.counts[d] > 1 and current.counts[d] == 1]
        return self.take_tiles(value, dst, cut)

    def _try_all_to_all(
        self, value: HloInstruction, src: Tiling, dst: Tiling, global_dims: Sequence[int]
    ) -> HloInstruction | None:
        moved_from = [
            d for d in range(src.rank) if src.counts[d] > 1 and not src.dim_agrees(dst, d)
        ]
        moved_to = [d for d in range(dst.rank) if dst.counts[d] > 1 and not src.dim_agrees(dst, d)]
        if len(moved_from) != 1 or len(moved_to) != 1 or moved_from == moved_to:
            return None
        a, b = moved_from[0], moved_to[0]
        n = src.counts[a]
        if dst.counts[b] != n or dst.counts[a] != 1 or src.counts[b] != 1:
            return None
        if global_dims[a] % n or global_dims[b] % n:
            return None
        sc, dc = src.coords(), dst.coords()
        if not np.array_equal(sc[:, a], dc[:, b]):
            return None
        groups = src.groups_along([a])
        # Every member of a group must land in the same group of dst at its position.
        for group in groups:
            if [int(dc[d, b]) for d in group] != list(range(n)):
                return None
            others = [x for x in range(src.rank) if x not in (a, b)]
            if len({tuple(dc[d, others]) for d in group}) != 1:
                return None
        return self.all_to_all(value, groups, split=b, concat=a)


__all__ = ["LocalBuilder", "ReportEntry", "device_groups"]
