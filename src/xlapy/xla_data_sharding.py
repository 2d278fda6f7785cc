"""Sharding and collective attribute types of ``xla_data.proto``.

Split from :mod:`xlapy.xla_data` (which re-exports everything here) because
shardings and device lists share the iota device-list machinery and are large
enough to deserve their own module.
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ._xla_data_util import enum_field, fail, int_tuple, unique
from .errors import InvalidArgumentError

if TYPE_CHECKING:
    from .xla_data import OpMetadata


class ChannelType(enum.IntEnum):
    CHANNEL_TYPE_INVALID = 0
    DEVICE_TO_DEVICE = 1
    DEVICE_TO_HOST = 2
    HOST_TO_DEVICE = 3


class OpShardingType(enum.IntEnum):
    """OpSharding.Type."""

    REPLICATED = 0
    MAXIMAL = 1
    TUPLE = 2
    OTHER = 3
    MANUAL = 4
    UNKNOWN = 5
    UNREDUCED = 6


class ShardGroupType(enum.IntEnum):
    """OpSharding.ShardGroupType: ``shard_as`` is a hard constraint, ``shard_like`` soft."""

    AS = 0
    LIKE = 1


class CollectiveOpGroupMode(enum.Enum):
    """How a collective's replica_groups ids are interpreted (HLO ``mode=``)."""

    CROSS_REPLICA = "cross_replica"
    CROSS_PARTITION = "cross_partition"
    CROSS_REPLICA_AND_PARTITION = "cross_replica_and_partition"
    FLATTENED_ID = "flattened_id"

    @staticmethod
    def of(
        has_channel_id: bool, use_global_device_ids: bool, has_global_ids: bool = True
    ) -> CollectiveOpGroupMode:
        """XLA's GetCollectiveOpGroupMode: what a collective's attributes imply.

        ``has_global_ids`` is false for ops without ``use_global_device_ids``
        (collective-permute, collective-broadcast), where a channel means
        cross-partition.
        """
        if not has_channel_id:
            if use_global_device_ids:
                raise InvalidArgumentError("use_global_device_ids=true needs a channel_id")
            return CollectiveOpGroupMode.CROSS_REPLICA
        if not has_global_ids:
            return CollectiveOpGroupMode.CROSS_PARTITION
        if use_global_device_ids:
            return CollectiveOpGroupMode.FLATTENED_ID
        return CollectiveOpGroupMode.CROSS_REPLICA_AND_PARTITION


# -- collectives -----------------------------------------------------------------


@dataclass(frozen=True)
class ReplicaGroup:
    replica_ids: Sequence[int] = ()

    def __post_init__(self) -> None:
        int_tuple(self, "replica_ids")
        unique(self, "replica_ids")


@dataclass(frozen=True)
class IotaReplicaGroupList:
    """Replica groups as rows of iota(prod(reshape)) reshaped, transposed, then regrouped.

    ``[2,2]<=[4]`` is {{0,1},{2,3}}; ``[2,2]<=[2,2]T(1,0)`` is {{0,2},{1,3}}.
    """

    num_replica_groups: int
    num_devices_per_group: int
    iota_reshape_dims: Sequence[int] = ()
    iota_transpose_perm: Sequence[int] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_replica_groups", int(self.num_replica_groups))
        object.__setattr__(self, "num_devices_per_group", int(self.num_devices_per_group))
        int_tuple(self, "iota_reshape_dims")
        int_tuple(self, "iota_transpose_perm")
        if not self.iota_reshape_dims:
            object.__setattr__(
                self, "iota_reshape_dims", (self.num_replica_groups * self.num_devices_per_group,)
            )
        if not self.iota_transpose_perm:
            object.__setattr__(
                self, "iota_transpose_perm", tuple(range(len(self.iota_reshape_dims)))
            )
        _check_iota(self, self.num_replica_groups * self.num_devices_per_group)

    def groups(self) -> tuple[tuple[int, ...], ...]:
        ids = _iota_devices(self.iota_reshape_dims, self.iota_transpose_perm)
        return tuple(
            tuple(int(v) for v in row)
            for row in ids.reshape(self.num_replica_groups, self.num_devices_per_group)
        )


@dataclass(frozen=True)
class Mesh:
    """A named device mesh (XLA's ``Mesh``): axes with names and sizes.

    Devices are numbered row-major over the axes (XLA's iota mesh, written
    ``mesh['x'=2,'y'=4]``); explicit device orders (``device_ids=``) are not held.
    """

    axis_names: Sequence[str]
    axis_sizes: Sequence[int]

    def __post_init__(self) -> None:
        names = tuple(self.axis_names)
        if not all(isinstance(n, str) and n for n in names):
            raise fail("Mesh", f"axis_names={list(names)} must be non-empty strings")
        object.__setattr__(self, "axis_names", names)
        int_tuple(self, "axis_sizes")
        if not names:
            raise fail("Mesh", "a mesh needs at least one axis")
        if len(names) != len(self.axis_sizes):
            raise fail("Mesh", f"{len(names)} axis names for {len(self.axis_sizes)} axis sizes")
        if len(set(names)) != len(names):
            raise fail("Mesh", f"axis_names={list(names)} repeats a name")
        if any(size < 1 for size in self.axis_sizes):
            raise fail("Mesh", f"axis_sizes={list(self.axis_sizes)} must all be >= 1")

    @property
    def num_devices(self) -> int:
        return math.prod(self.axis_sizes)

    def axis_index(self, name: str) -> int:
        try:
            return self.axis_names.index(name)
        except ValueError:
            raise fail(
                "Mesh", f"no axis named {name!r}; the axes are {', '.join(self.axis_names)}"
            ) from None


@dataclass(frozen=True)
class AxisRef:
    """Mesh axis number ``axis``, or a sub-axis of it (XLA's ``AxisRef``).

    The sub-axis ``'x':(pre_size)size`` splits axis x of size N into
    ``[pre_size, size, N / (pre_size * size)]`` (major to minor) and names the
    middle part: ``size`` devices, ``pre_size`` apart along x.
    """

    axis: int
    pre_size: int | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "axis", int(self.axis))
        if self.axis < 0:
            raise fail("AxisRef", f"axis={self.axis} must be >= 0")
        if (self.pre_size is None) != (self.size is None):
            raise fail("AxisRef", "a sub-axis needs both pre_size and size")
        if self.pre_size is not None:
            object.__setattr__(self, "pre_size", int(self.pre_size))
            object.__setattr__(self, "size", int(self.size))
            if self.pre_size < 1:
                raise fail("AxisRef", f"sub-axis pre_size={self.pre_size} must be >= 1")
            if self.size < 2:
                raise fail("AxisRef", f"sub-axis size={self.size} must be > 1")

    @property
    def is_sub_axis(self) -> bool:
        return self.pre_size is not None

    @property
    def next_pre_size(self) -> int:
        """``pre_size * size``: where the next sub-axis of the same axis may start."""
        return self.pre_size * self.size

    def extent(self, mesh: Mesh) -> int:
        """How many devices this axis (or sub-axis) spans."""
        return self.size if self.is_sub_axis else mesh.axis_sizes[self.axis]


@dataclass(frozen=True)
class MeshAxesReplicaGroupList:
    """Replica groups as the devices that vary over some axes of a mesh (``mesh[...] {...}``).

    There is one group per combination of the other axes (in row-major
    order), and the members of a group vary over ``axes``, the first listed
    axis the most major: ``mesh['x'=2,'y'=4] {'y'}`` is {{0,1,2,3},{4,5,6,7}},
    ``{'x'}`` is {{0,4},{1,5},{2,6},{3,7}}.
    """

    mesh: Mesh
    axes: Sequence[AxisRef] = ()

    def __post_init__(self) -> None:
        axes = tuple(self.axes)
        object.__setattr__(self, "axes", axes)
        for ref in axes:
            self._check_axis(ref)
        for i, a in enumerate(axes):
            for b in axes[i + 1 :]:
                if a.axis == b.axis:
                    self._check_apart(a, b)
        for a, b in zip(axes, axes[1:], strict=False):
            if a.axis == b.axis and a.is_sub_axis and a.next_pre_size == b.pre_size:
                raise fail(
                    "MeshAxesReplicaGroupList",
                    f"adjacent sub-axes {self._name(a)} and "
                    f"{self._name(b)} can be merged into one; XLA requires the merged form",
                )

    def _name(self, ref: AxisRef) -> str:
        name = self.mesh.axis_names[ref.axis]
        return f"{name}:({ref.pre_size}){ref.size}" if ref.is_sub_axis else name

    def _check_axis(self, ref: AxisRef) -> None:
        if ref.axis >= len(self.mesh.axis_names):
            raise fail(
                "MeshAxesReplicaGroupList",
                f"axis {ref.axis} is out of range for a mesh of {len(self.mesh.axis_names)} axes",
            )
        full = self.mesh.axis_sizes[ref.axis]
        if ref.is_sub_axis and (full % ref.next_pre_size or ref.size >= full):
            raise fail(
                "MeshAxesReplicaGroupList",
                f"sub-axis {self._name(ref)} does not fit "
                f"axis {self.mesh.axis_names[ref.axis]} of size {full}: pre_size * size "
                "must divide the size, and size must be smaller",
            )

    def _check_apart(self, a: AxisRef, b: AxisRef) -> None:
        apart = (
            a.is_sub_axis
            and b.is_sub_axis
            and not (a.next_pre_size > b.pre_size and b.next_pre_size > a.pre_size)
        )
        if apart:
            apart = max(a.pre_size, b.pre_size) % min(a.next_pre_size, b.next_pre_size) == 0
        if not apart:
            raise fail(
                "MeshAxesReplicaGroupList",
                f"axes {self._name(a)} and {self._name(b)} "
                "overlap; each device position may be grouped over once",
            )

    @property
    def num_devices_per_group(self) -> int:
        return math.prod(ref.extent(self.mesh) for ref in self.axes)

    @property
    def num_replica_groups(self) -> int:
        return self.mesh.num_devices // self.num_devices_per_group

    def groups(self) -> tuple[tuple[int, ...], ...]:
        # Split every mesh axis into the parts its sub-axes name (major to minor),
        # move the grouped parts last, in the order listed, and cut into groups.
        dims: list[int] = []
        grouped: dict[int, int] = {}  # position in self.axes -> its dimension in dims
        for axis, full in enumerate(self.mesh.axis_sizes):
            refs = sorted(
                (i for i, r in enumerate(self.axes) if r.axis == axis),
                key=lambda i: self.axes[i].pre_size or 1,
            )
            if len(refs) == 1 and not self.axes[refs[0]].is_sub_axis:
                grouped[refs[0]] = len(dims)
            if not refs or not self.axes[refs[0]].is_sub_axis:
                dims.append(full)
                continue
            covered = 1
            for i in refs:
                ref = self.axes[i]
                if ref.pre_size != covered:
                    dims.append(ref.pre_size // covered)
                grouped[i] = len(dims)
                dims.append(ref.size)
                covered = ref.next_pre_size
            if covered != full:
                dims.append(full // covered)
        last = [grouped[i] for i in range(len(self.axes))]
        perm = [d for d in range(len(dims)) if d not in last] + last
        ids = np.arange(self.mesh.num_devices, dtype=np.int64).reshape(dims).transpose(perm)
        return tuple(
            tuple(int(v) for v in row) for row in ids.reshape(-1, self.num_devices_per_group)
        )


def _check_iota(obj: object, expected_count: int) -> None:
    name = type(obj).__name__
    reshape, perm = obj.iota_reshape_dims, obj.iota_transpose_perm
    if sorted(perm) != list(range(len(reshape))):
        raise fail(
            name, f"iota_transpose_perm={list(perm)} must be a permutation of 0..{len(reshape) - 1}"
        )
    if math.prod(reshape) != expected_count:
        raise fail(
            name,
            f"iota_reshape_dims={list(reshape)} hold {math.prod(reshape)} devices "
            f"but {expected_count} are needed",
        )


def _iota_devices(reshape: Sequence[int], perm: Sequence[int]) -> np.ndarray:
    return np.arange(math.prod(reshape), dtype=np.int64).reshape(reshape).transpose(perm).ravel()


@dataclass(frozen=True)
class CollectiveDeviceList:
    """A collective's replica groups: an explicit list, the compact iota form or mesh axes."""

    replica_groups: Sequence[ReplicaGroup] = ()
    iota_replica_group_list: IotaReplicaGroupList | None = None
    mesh_axes_replica_group_list: MeshAxesReplicaGroupList | None = None

    def __post_init__(self) -> None:
        groups = tuple(
            g if isinstance(g, ReplicaGroup) else ReplicaGroup(g) for g in self.replica_groups
        )
        object.__setattr__(self, "replica_groups", groups)
        forms = [
            bool(groups),
            self.iota_replica_group_list is not None,
            self.mesh_axes_replica_group_list is not None,
        ]
        if sum(forms) > 1:
            raise fail(
                "CollectiveDeviceList",
                "give one of replica_groups, "
                "iota_replica_group_list or mesh_axes_replica_group_list, not both",
            )

    def groups(self) -> tuple[tuple[int, ...], ...]:
        """The groups as explicit id lists (empty means one group of every participant)."""
        if self.iota_replica_group_list is not None:
            return self.iota_replica_group_list.groups()
        if self.mesh_axes_replica_group_list is not None:
            return self.mesh_axes_replica_group_list.groups()
        return tuple(g.replica_ids for g in self.replica_groups)


@dataclass(frozen=True)
class ChannelHandle:
    handle: int = 0
    type: ChannelType = ChannelType.DEVICE_TO_DEVICE

    def __post_init__(self) -> None:
        object.__setattr__(self, "handle", int(self.handle))
        if self.handle < 0:
            raise fail("ChannelHandle", f"handle={self.handle} must be >= 0")
        enum_field(self, "type", ChannelType)


@dataclass(frozen=True)
class SourceTarget:
    source: int
    target: int

    def __post_init__(self) -> None:
        for name in ("source", "target"):
            v = int(getattr(self, name))
            if v < 0:
                raise fail("SourceTarget", f"{name}={v} must be a replica/device id >= 0")
            object.__setattr__(self, name, v)


# -- sharding ----------------------------------------------------------------------


@dataclass(frozen=True)
class OpSharding:
    """How a value is laid out across devices; build with the static constructors.

    Tiled shardings keep the device assignment either explicitly
    (``tile_assignment_devices``) or in the compact iota form
    (``iota_reshape_dims``/``iota_transpose_perm``), as XLA does; see
    :meth:`device_assignment` for the expanded array.
    """

    type: OpShardingType = OpShardingType.REPLICATED
    tile_assignment_dimensions: Sequence[int] = ()
    tile_assignment_devices: Sequence[int] = ()
    tuple_shardings: Sequence[OpSharding] = ()
    replicate_on_last_tile_dim: bool = False
    metadata: Sequence[OpMetadata] = ()
    last_tile_dims: Sequence[OpShardingType] = ()
    iota_reshape_dims: Sequence[int] = ()
    iota_transpose_perm: Sequence[int] = ()
    is_shard_group: bool = False
    shard_group_id: int = 0
    shard_group_type: ShardGroupType = ShardGroupType.AS

    Type = OpShardingType
    ShardGroupType = ShardGroupType

    def __post_init__(self) -> None:
        enum_field(self, "type", OpShardingType)
        enum_field(self, "shard_group_type", ShardGroupType)
        for name in (
            "tile_assignment_dimensions",
            "tile_assignment_devices",
            "iota_reshape_dims",
            "iota_transpose_perm",
        ):
            int_tuple(self, name)
        object.__setattr__(self, "tuple_shardings", tuple(self.tuple_shardings))
        object.__setattr__(self, "metadata", tuple(self.metadata))
        try:
            object.__setattr__(
                self, "last_tile_dims", tuple(OpShardingType(t) for t in self.last_tile_dims)
            )
        except ValueError:
            raise fail(
                "OpSharding",
                f"last_tile_dims={list(self.last_tile_dims)} holds an unknown sharding type",
            ) from None
        _SHARDING_CHECKS[self.type](self)

    def _check_tiled(self) -> None:
        dims = self.tile_assignment_dimensions
        if not dims:
            raise fail("OpSharding", "a tiled sharding needs tile_assignment_dimensions")
        count = math.prod(dims)
        if self.iota_reshape_dims:
            if self.tile_assignment_devices:
                raise fail("OpSharding", "give tile_assignment_devices or the iota form, not both")
            _check_iota(self, count)
        elif len(self.tile_assignment_devices) != count:
            raise fail(
                "OpSharding",
                f"tile_assignment_dimensions={list(dims)} need {count} "
                f"devices, got {len(self.tile_assignment_devices)}",
            )
        elif len(set(self.tile_assignment_devices)) != count:
            raise fail("OpSharding", "tile_assignment_devices repeats a device")
        extra = int(self.replicate_on_last_tile_dim) + len(self.last_tile_dims)
        if self.replicate_on_last_tile_dim and self.last_tile_dims:
            raise fail("OpSharding", "use replicate_on_last_tile_dim or last_tile_dims, not both")
        if extra > len(dims):
            raise fail(
                "OpSharding",
                f"{extra} subgroup dimensions but the tile assignment "
                f"has only {len(dims)} dimensions",
            )
        bad = [
            t.name
            for t in self.last_tile_dims
            if t not in (OpShardingType.REPLICATED, OpShardingType.MANUAL, OpShardingType.UNREDUCED)
        ]
        if bad:
            raise fail(
                "OpSharding",
                f"last_tile_dims may only hold REPLICATED, MANUAL or UNREDUCED, got {bad}",
            )

    def _check_maximal(self) -> None:
        if len(self.tile_assignment_devices) != 1:
            raise fail("OpSharding", "a maximal sharding names exactly one device")

    def _check_plain(self) -> None:
        if self.tile_assignment_devices or self.tile_assignment_dimensions:
            raise fail("OpSharding", f"a {self.type.name} sharding takes no devices")

    def _check_tuple(self) -> None:
        if not all(
            isinstance(s, OpSharding) and s.type is not OpShardingType.TUPLE
            for s in self.tuple_shardings
        ):
            raise fail(
                "OpSharding",
                "tuple_shardings must be non-tuple OpSharding values (one per leaf, flattened)",
            )

    # -- constructors ------------------------------------------------------------
    @staticmethod
    def replicated(metadata: Sequence[OpMetadata] = ()) -> OpSharding:
        return OpSharding(OpShardingType.REPLICATED, metadata=metadata)

    @staticmethod
    def maximal(device: int, metadata: Sequence[OpMetadata] = ()) -> OpSharding:
        return OpSharding(
            OpShardingType.MAXIMAL,
            tile_assignment_dimensions=(1,),
            tile_assignment_devices=(device,),
            metadata=metadata,
        )

    @staticmethod
    def manual(metadata: Sequence[OpMetadata] = ()) -> OpSharding:
        return OpSharding(OpShardingType.MANUAL, metadata=metadata)

    @staticmethod
    def unknown(metadata: Sequence[OpMetadata] = ()) -> OpSharding:
        return OpSharding(OpShardingType.UNKNOWN, metadata=metadata)

    @staticmethod
    def unreduced(metadata: Sequence[OpMetadata] = ()) -> OpSharding:
        return OpSharding(OpShardingType.UNREDUCED, metadata=metadata)

    @staticmethod
    def tiled(
        dimensions: Sequence[int],
        devices: Sequence[int] | None = None,
        *,
        iota_reshape_dims: Sequence[int] = (),
        iota_transpose_perm: Sequence[int] = (),
        last_tile_dim_replicate: bool = False,
        last_tile_dims: Sequence[OpShardingType] = (),
        metadata: Sequence[OpMetadata] = (),
    ) -> OpSharding:
        """Tile ``dimensions``; with no devices the assignment is iota (devices=[4]<=[4])."""
        if devices is None and not iota_reshape_dims:
            iota_reshape_dims = (math.prod(dimensions),)
        if iota_reshape_dims and not iota_transpose_perm:
            iota_transpose_perm = tuple(range(len(iota_reshape_dims)))
        return OpSharding(
            OpShardingType.OTHER,
            tile_assignment_dimensions=dimensions,
            tile_assignment_devices=devices or (),
            iota_reshape_dims=iota_reshape_dims,
            iota_transpose_perm=iota_transpose_perm,
            replicate_on_last_tile_dim=last_tile_dim_replicate,
            last_tile_dims=last_tile_dims,
            metadata=metadata,
        )

    @staticmethod
    def tuple(shardings: Sequence[OpSharding]) -> OpSharding:
        return OpSharding(OpShardingType.TUPLE, tuple_shardings=shardings)

    def with_shard_group(self, group_id: int, group_type: ShardGroupType) -> OpSharding:
        return dataclasses.replace(
            self, is_shard_group=True, shard_group_id=group_id, shard_group_type=group_type
        )

    # -- queries -------------------------------------------------------------------
    @property
    def is_iota(self) -> bool:
        return bool(self.iota_reshape_dims)

    def device_assignment(self) -> np.ndarray:
        """The device id of every tile, shaped like tile_assignment_dimensions."""
        if self.type not in (OpShardingType.OTHER, OpShardingType.MAXIMAL):
            raise fail("OpSharding", f"a {self.type.name} sharding has no tile assignment")
        if self.is_iota:
            flat = _iota_devices(self.iota_reshape_dims, self.iota_transpose_perm)
        else:
            flat = np.asarray(self.tile_assignment_devices, dtype=np.int64)
        return flat.reshape(self.tile_assignment_dimensions)


_SHARDING_CHECKS = {
    OpShardingType.REPLICATED: OpSharding._check_plain,
    OpShardingType.MANUAL: OpSharding._check_plain,
    OpShardingType.UNKNOWN: OpSharding._check_plain,
    OpShardingType.UNREDUCED: OpSharding._check_plain,
    OpShardingType.MAXIMAL: OpSharding._check_maximal,
    OpShardingType.OTHER: OpSharding._check_tiled,
    OpShardingType.TUPLE: OpSharding._check_tuple,
}


@dataclass(frozen=True)
class DomainMetadata:
    """A kDomain instruction's metadata: the sharding on each side of the boundary."""

    kind: str
    entry_sharding: OpSharding
    exit_sharding: OpSharding


__all__ = [
    "ChannelType",
    "OpShardingType",
    "ShardGroupType",
    "CollectiveOpGroupMode",
    "ReplicaGroup",
    "IotaReplicaGroupList",
    "Mesh",
    "AxisRef",
    "MeshAxesReplicaGroupList",
    "CollectiveDeviceList",
    "ChannelHandle",
    "SourceTarget",
    "OpSharding",
    "DomainMetadata",
]
