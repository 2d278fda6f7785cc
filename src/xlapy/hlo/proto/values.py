"""The attribute values of ``xla_data.proto`` (``xlapy.xla_data``) as proto messages.

Most of xlapy's attribute types are dataclasses whose field names are the proto's
(``GatherDimensionNumbers``, ``Window``, ``OpSharding``...): :func:`dataclass_to_proto`
and :func:`dataclass_from_proto` move those field by field, with :data:`NESTED`
saying which dataclass a nested message becomes. The few whose shapes differ
(frontend attributes as a map, result accuracy as a oneof, meshes, device lists,
domains) have their own pair of functions below.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from ...errors import InvalidArgumentError, UnimplementedError
from ...xla_data import (
    AxisRef,
    CollectiveDeviceList,
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FrontendAttributes,
    GatherDimensionNumbers,
    IotaReplicaGroupList,
    Mesh,
    MeshAxesReplicaGroupList,
    OpMetadata,
    OpSharding,
    OutputOperandAliasing,
    PaddingConfig,
    PaddingConfigDimension,
    ReplicaGroup,
    ResultAccuracy,
    ResultAccuracyMode,
    ScatterDimensionNumbers,
    SourceTarget,
    Statistic,
    StatisticsViz,
    Window,
    WindowDimension,
)
from ...xla_data_sharding import DomainMetadata
from .schema import new_message

# dataclass -> {field: dataclass of the nested message(s)}.
NESTED: dict[type, dict[str, type]] = {
    PaddingConfig: {"dimensions": PaddingConfigDimension},
    Window: {"dimensions": WindowDimension},
    StatisticsViz: {"statistics": Statistic},
    OpSharding: {"tuple_shardings": OpSharding, "metadata": OpMetadata},
}
# Plain dataclasses and their message names.
MESSAGE_OF: dict[type, str] = {
    PaddingConfig: "xla.PaddingConfig",
    Window: "xla.Window",
    ConvolutionDimensionNumbers: "xla.ConvolutionDimensionNumbers",
    DotDimensionNumbers: "xla.DotDimensionNumbers",
    GatherDimensionNumbers: "xla.GatherDimensionNumbers",
    ScatterDimensionNumbers: "xla.ScatterDimensionNumbers",
    OpMetadata: "xla.OpMetadata",
    StatisticsViz: "xla.StatisticsViz",
    OutputOperandAliasing: "xla.OutputOperandAliasing",
    SourceTarget: "xla.SourceTarget",
    ReplicaGroup: "xla.ReplicaGroup",
    IotaReplicaGroupList: "xla.IotaReplicaGroupListProto",
}


def dataclass_to_proto(value: Any, proto: Any | None = None) -> Any:
    """Copy a field-for-field dataclass into ``proto`` (a new message when None)."""
    if isinstance(value, OpSharding):
        return sharding_to_proto(value, proto)
    if proto is None:
        proto = new_message(MESSAGE_OF[type(value)])
    nested = NESTED.get(type(value), {})
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.name not in proto.DESCRIPTOR.fields_by_name:
            if item != f.default:
                raise UnimplementedError(
                    f"{type(value).__name__}.{f.name}={item!r} has no field in "
                    f"{proto.DESCRIPTOR.full_name}"
                )
            continue
        target = getattr(proto, f.name)
        if f.name in nested:
            for element in item:
                dataclass_to_proto(element, target.add())
        elif isinstance(item, (tuple, list)):
            target.extend(int(x) if isinstance(x, enum.Enum) else x for x in item)
        else:
            setattr(proto, f.name, int(item) if isinstance(item, enum.Enum) else item)
    return proto


def dataclass_from_proto(proto: Any, cls: type) -> Any:
    """The ``cls`` dataclass of ``proto``; a set field ``cls`` has no place for raises.

    Every field the two share is read, zero values included: proto3 does not mark
    them as set, and the dataclass's own defaults need not be zero.
    """
    if cls is OpSharding:
        return sharding_from_proto(proto)
    nested = NESTED.get(cls, {})
    names = {f.name for f in dataclasses.fields(cls)}
    for descriptor, _ in proto.ListFields():
        if descriptor.name not in names:
            raise UnimplementedError(
                f"{proto.DESCRIPTOR.full_name} field {descriptor.name} is set; xlapy's "
                f"{cls.__name__} has no place for it"
            )
    kwargs: dict[str, Any] = {}
    for name in names:
        descriptor = proto.DESCRIPTOR.fields_by_name.get(name)
        if descriptor is None:
            continue
        value = getattr(proto, name)
        if name in nested:
            kwargs[name] = tuple(dataclass_from_proto(v, nested[name]) for v in value)
        elif descriptor.is_repeated:
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = value
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"invalid {proto.DESCRIPTOR.full_name}: {e}") from None


# -- sharding ---------------------------------------------------------------------


def sharding_to_proto(sharding: OpSharding, proto: Any | None = None) -> Any:
    if proto is None:
        proto = new_message("xla.OpSharding")
    for f in dataclasses.fields(sharding):
        item = getattr(sharding, f.name)
        if f.name == "tuple_shardings":
            for element in item:
                sharding_to_proto(element, proto.tuple_shardings.add())
        elif f.name == "metadata":
            for element in item:
                dataclass_to_proto(element, proto.metadata.add())
        elif f.name not in proto.DESCRIPTOR.fields_by_name:
            if item != f.default:
                raise UnimplementedError(f"OpSharding.{f.name}={item!r} has no proto field")
        elif isinstance(item, (tuple, list)):
            getattr(proto, f.name).extend(int(x) for x in item)
        else:
            setattr(proto, f.name, int(item))
    return proto


def sharding_from_proto(proto: Any) -> OpSharding:
    if proto.HasField("named_sharding"):
        raise UnimplementedError(
            "OpSharding.named_sharding (Shardy's NamedShardingProto) is not supported by xlapy"
        )
    if proto.HasField("tile_shape"):
        raise UnimplementedError("OpSharding.tile_shape (a deprecated field) is not supported")
    kwargs: dict[str, Any] = {}
    for descriptor, value in proto.ListFields():
        name = descriptor.name
        if name == "tuple_shardings":
            kwargs[name] = tuple(sharding_from_proto(v) for v in value)
        elif name == "metadata":
            kwargs[name] = tuple(dataclass_from_proto(v, OpMetadata) for v in value)
        elif descriptor.is_repeated:
            kwargs[name] = tuple(value)
        else:
            kwargs[name] = value
    try:
        return OpSharding(**kwargs)
    except (TypeError, ValueError) as e:
        raise InvalidArgumentError(f"invalid xla.OpSharding: {e}") from None


def domain_to_protos(domain: DomainMetadata) -> tuple[Any, Any]:
    """(entry, exit) shardings of a sharding domain; other domain kinds have no proto form."""
    if domain.kind != "sharding":
        raise UnimplementedError(
            f"domain kind {domain.kind!r}: HloInstructionProto holds only sharding domains"
        )
    return sharding_to_proto(domain.entry_sharding), sharding_to_proto(domain.exit_sharding)


def domain_from_protos(entry: Any, exit_: Any) -> DomainMetadata:
    return DomainMetadata("sharding", sharding_from_proto(entry), sharding_from_proto(exit_))


# -- frontend attributes, result accuracy, metadata ------------------------------------


def frontend_attributes_to_proto(attributes: FrontendAttributes, proto: Any) -> None:
    for key, value in attributes.map:
        proto.map[key] = value


def frontend_attributes_from_proto(proto: Any) -> FrontendAttributes:
    return FrontendAttributes(dict(proto.map))


def result_accuracy_to_proto(accuracy: ResultAccuracy, proto: Any) -> None:
    if accuracy.mode is not None:
        proto.mode = int(accuracy.mode)
    else:
        proto.tolerance.atol = accuracy.atol
        proto.tolerance.rtol = accuracy.rtol
        proto.tolerance.ulps = accuracy.ulps


def result_accuracy_from_proto(proto: Any) -> ResultAccuracy:
    if proto.WhichOneof("specs") == "tolerance":
        t = proto.tolerance
        return ResultAccuracy.tolerance(t.atol, t.rtol, t.ulps)
    return ResultAccuracy(ResultAccuracyMode(proto.mode))


# -- collective device lists -------------------------------------------------------------


def mesh_to_proto(mesh: Mesh, proto: Any) -> None:
    for name, size in zip(mesh.axis_names, mesh.axis_sizes, strict=True):
        proto.axes.add(name=name, size=size)


def mesh_from_proto(proto: Any) -> Mesh:
    if len(proto.device_ids) or proto.HasField("iota_transform"):
        raise UnimplementedError(
            "MeshProto with explicit device_ids or an iota_transform is not supported by xlapy"
        )
    return Mesh(tuple(a.name for a in proto.axes), tuple(a.size for a in proto.axes))


def axis_ref_to_proto(ref: AxisRef, proto: Any) -> None:
    proto.mesh_axis_index = ref.axis
    if ref.is_sub_axis:
        proto.sub_axis_info.pre_size = ref.pre_size
        proto.sub_axis_info.size = ref.size


def axis_ref_from_proto(proto: Any) -> AxisRef:
    if proto.HasField("sub_axis_info"):
        info = proto.sub_axis_info
        return AxisRef(proto.mesh_axis_index, info.pre_size, info.size)
    return AxisRef(proto.mesh_axis_index)


def device_list_to_proto(devices: CollectiveDeviceList, instruction: Any) -> None:
    """Write ``replica_groups=`` into the instruction proto's ``replica_group_list`` oneof."""
    if devices.iota_replica_group_list is not None:
        dataclass_to_proto(devices.iota_replica_group_list, instruction.iota_collective_device_list)
    elif devices.mesh_axes_replica_group_list is not None:
        groups = devices.mesh_axes_replica_group_list
        target = instruction.mesh_axes_replica_group_list
        mesh_to_proto(groups.mesh, target.mesh)
        for ref in groups.axes:
            axis_ref_to_proto(ref, target.axes.add())
    else:
        target = instruction.collective_device_list
        target.SetInParent()
        for group in devices.replica_groups:
            target.replica_groups.add().replica_ids.extend(group.replica_ids)


def device_list_from_proto(instruction: Any) -> CollectiveDeviceList | None:
    """``replica_groups=`` of an instruction proto (any of its three forms, or the legacy
    ``replica_groups`` field), or None when it has none."""
    which = instruction.WhichOneof("replica_group_list")
    legacy = tuple(ReplicaGroup(tuple(g.replica_ids)) for g in instruction.replica_groups)
    if which is None:
        return CollectiveDeviceList(legacy) if legacy else None
    if legacy:
        raise InvalidArgumentError(
            f"instruction {instruction.name!r} sets both replica_groups and {which}"
        )
    if which == "collective_device_list":
        groups = instruction.collective_device_list.replica_groups
        return CollectiveDeviceList(tuple(ReplicaGroup(tuple(g.replica_ids)) for g in groups))
    if which == "iota_collective_device_list":
        return CollectiveDeviceList(
            iota_replica_group_list=dataclass_from_proto(
                instruction.iota_collective_device_list, IotaReplicaGroupList
            )
        )
    source = instruction.mesh_axes_replica_group_list
    return CollectiveDeviceList(
        mesh_axes_replica_group_list=MeshAxesReplicaGroupList(
            mesh_from_proto(source.mesh), tuple(axis_ref_from_proto(a) for a in source.axes)
        )
    )


__all__ = [
    "dataclass_from_proto",
    "dataclass_to_proto",
    "device_list_from_proto",
    "device_list_to_proto",
    "domain_from_protos",
    "domain_to_protos",
    "frontend_attributes_from_proto",
    "frontend_attributes_to_proto",
    "result_accuracy_from_proto",
    "result_accuracy_to_proto",
    "sharding_from_proto",
    "sharding_to_proto",
]
