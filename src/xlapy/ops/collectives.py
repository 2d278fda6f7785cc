"""Cross-device ops: all-reduce, all-gather, reduce-scatter, all-to-all, permutes and
broadcasts, replica and partition ids, send/recv, infeed and outfeed.

The signatures are XLA's C++ free functions (xla_builder.h) with snake_case
keywords. The HLO they emit is the HLO XLA's builder emits, because that is
what the interpreter, the real XLA and HLO dumps all agree on: a tuple
operand is split into get-tuple-elements feeding one variadic collective; the
array form of AllToAll is an HLO all-to-all on the split dimension wrapped in
reshape/transpose/reshape; Send and Recv are send+send-done and
recv+recv-done pairs; Infeed and Outfeed thread an implicit token through the
builder, so that feeds without explicit tokens stay ordered.

Attributes are stored in the order XLA prints them (channel_id,
replica_groups, constrain_layout, ...), and optional ones only when XLA would
print them, so built and parsed modules print identically.

Where the number of participants is not stated by ``replica_groups`` (an empty
list means "every replica"), the shard or split count given to the op is the
only source of the result shape, and it is checked against the groups when
they do state it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..builder import XlaBuilder, XlaComputation, XlaOp
from ..errors import InvalidArgumentError, UnimplementedError
from ..hlo.opcode import HloOpcode as Op
from ..layout import Layout
from ..shape import Shape
from ..shape_inference.collectives import all_to_all_result_shape
from ..types import PrimitiveType
from ..xla_data_sharding import (
    ChannelHandle,
    ChannelType,
    CollectiveDeviceList,
    IotaReplicaGroupList,
    ReplicaGroup,
    SourceTarget,
)
from ._support import builder_op, int_tuple, shape_of

ReplicaGroups = (
    Sequence[ReplicaGroup] | Sequence[Sequence[int]] | CollectiveDeviceList | IotaReplicaGroupList
)
Reducer = XlaComputation | Callable[..., Any]

# -- argument coercion ------------------------------------------------------------------------


def _device_list(replica_groups: Any, op_name: str) -> CollectiveDeviceList:
    """``replica_groups`` in any of the forms XLA's overloads take, as one device list."""
    if replica_groups is None:
        return CollectiveDeviceList()
    if isinstance(replica_groups, CollectiveDeviceList):
        return replica_groups
    if isinstance(replica_groups, IotaReplicaGroupList):
        return CollectiveDeviceList(iota_replica_group_list=replica_groups)
    try:
        groups = [
            g if isinstance(g, ReplicaGroup) else ReplicaGroup(tuple(int(i) for i in g))
            for g in replica_groups
        ]
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: replica_groups must be a list of replica id lists such as "
            f"[[0, 1], [2, 3]], a CollectiveDeviceList or an IotaReplicaGroupList, "
            f"got {replica_groups!r}"
        ) from None
    return CollectiveDeviceList(tuple(groups))


def _channel_id(channel_id: Any, op_name: str) -> int | None:
    """The channel number to store; a handle of 0 means "no channel", as in XLA's protos."""
    if channel_id is None:
        return None
    handle = channel_id.handle if isinstance(channel_id, ChannelHandle) else channel_id
    if isinstance(handle, bool) or not isinstance(handle, int) or handle < 0:
        raise InvalidArgumentError(
            f"{op_name}: channel_id must be a ChannelHandle or a non-negative integer, "
            f"got {channel_id!r}"
        )
    return handle or None


def _channel_handle(handle: Any, expected: ChannelType, op_name: str) -> ChannelHandle:
    if isinstance(handle, int) and not isinstance(handle, bool):
        handle = ChannelHandle(handle, expected)
    if not isinstance(handle, ChannelHandle):
        raise InvalidArgumentError(f"{op_name}: expected a ChannelHandle, got {handle!r}")
    if handle.type != expected:
        words = expected.name.lower().replace("_", "-")
        raise InvalidArgumentError(
            f"{op_name} must use a {words} channel, got a {handle.type.name} channel handle"
        )
    return handle


def _shape(value: Any, op_name: str, what: str = "shape") -> Shape:
    """A user-given shape, default layouts filled in where it states none (as Parameter does)."""
    if isinstance(value, str):
        value = Shape.parse(value)
    if not isinstance(value, Shape):
        raise InvalidArgumentError(f"{op_name}: {what} must be a Shape, got {value!r}")
    return _fill_layouts(value)


def _fill_layouts(shape: Shape) -> Shape:
    if shape.is_tuple:
        return Shape.tuple(_fill_layouts(s) for s in shape.tuple_shapes)
    if shape.is_array and shape.layout is None:
        return shape.with_default_layout()
    return shape


def _layout(layout: Layout | Sequence[int], op_name: str) -> Layout:
    if isinstance(layout, Layout):
        return layout
    return Layout(int_tuple(layout, "layout", op_name))


def _positive(value: Any, what: str, op_name: str, shape: Shape) -> int:
    count = int(value)
    if count <= 0:
        raise InvalidArgumentError(
            f"{op_name}: {what} must be positive, got {count} (operand {shape})"
        )
    return count


def _dimension(value: Any, what: str, op_name: str, shape: Shape) -> int:
    dim = int(value)
    if not 0 <= dim < shape.rank:
        raise InvalidArgumentError(
            f"{op_name}: {what} {dim} is out of range for operand {shape} (rank {shape.rank})"
        )
    return dim


def _split_tuple(operand: XlaOp, op_name: str) -> tuple[list[XlaOp], bool]:
    """A tuple operand as one get-tuple-element per element, as XLA's builder feeds collectives."""
    shape = shape_of(operand)
    if not shape.is_tuple:
        return [operand], False
    if not shape.tuple_shapes:
        raise UnimplementedError(f"{op_name}: a 0-element tuple operand is not supported")
    parts = [
        operand.builder.add_instruction(
            Op.GET_TUPLE_ELEMENT, [operand], attributes={"index": i}, op_name=op_name
        )
        for i in range(len(shape.tuple_shapes))
    ]
    return parts, True


def _same_element_type(parts: Sequence[XlaOp], op_name: str) -> None:
    types = [shape_of(p).element_type for p in parts]
    if len(set(types)) > 1:
        shapes = ", ".join(str(shape_of(p)) for p in parts)
        raise UnimplementedError(
            f"{op_name}: all the elements of a tuple operand must have the same element type, "
            f"got ({shapes})"
        )


def _group_attributes(channel: int | None, devices: CollectiveDeviceList) -> dict[str, Any]:
    attributes: dict[str, Any] = {}
    if channel is not None:
        attributes["channel_id"] = channel
    attributes["replica_groups"] = devices
    return attributes


def _check_group_size(
    count: int, what: str, devices: CollectiveDeviceList, channel: int | None,
    global_ids: bool, op_name: str, shape: Shape,
) -> None:  # fmt: skip
    """``count`` must be the group size, except that cross-replica-and-partition groups
    (a channel without global ids) also span the partitions, so it is a multiple then."""
    groups = devices.groups()
    if not groups:
        return
    size = len(groups[0])
    spans_partitions = channel is not None and not global_ids
    if count == size or (spans_partitions and count % size == 0):
        return
    raise InvalidArgumentError(
        f"{op_name}: {what} {count} does not match the replica group size {size} "
        f"(replica_groups {[list(g) for g in groups]}, operand {shape})"
    )


def _with_layout(op: XlaOp, layout: Layout | Sequence[int], op_name: str) -> None:
    """Pin the result layout (shape inference produces default layouts)."""
    shape = op.instruction.shape
    layout = _layout(layout, op_name)
    if not shape.is_array or layout.rank != shape.rank:
        raise InvalidArgumentError(
            f"{op_name}: layout {layout} does not fit the result {shape} (it needs an array "
            "result of the layout's rank)"
        )
    op.instruction.shape = shape.with_layout(layout)


def _reducer(operand: XlaOp, parts: Sequence[XlaOp], computation: Reducer, op_name: str):
    scalar = Shape.scalar(shape_of(parts[0]).element_type)
    return operand.builder.computation_arg(computation, [scalar, scalar], op_name, "computation")


# -- all-reduce, all-gather, reduce-scatter ---------------------------------------------------


def _all_reduce(
    operands: Sequence[XlaOp], operand_was_tuple: bool, computation: Reducer, replica_groups: Any,
    channel_id: Any, shape_with_layout: Shape | None, use_global_device_ids: bool | None,
    op_name: str,
) -> XlaOp:  # fmt: skip
    builder = operands[0].builder
    _same_element_type(operands, op_name)
    to_apply = _reducer(operands[0], operands, computation, op_name)
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    if shape_with_layout is not None:
        attributes["constrain_layout"] = True
    if use_global_device_ids:
        attributes["use_global_device_ids"] = True
    result = builder.add_instruction(
        Op.ALL_REDUCE, list(operands), attributes=attributes,
        computations={"to_apply": to_apply}, op_name=op_name,
    )  # fmt: skip
    if shape_with_layout is not None:
        _apply_shape_layout(
            result, _shape(shape_with_layout, op_name, "shape_with_layout"), op_name
        )
    if operand_was_tuple and len(operands) == 1:  # XLA keeps a 1-tuple a tuple
        return builder.add_instruction(Op.TUPLE, [result], op_name=op_name)
    return result


def _apply_shape_layout(op: XlaOp, with_layout: Shape, op_name: str) -> None:
    shape = op.instruction.shape
    if with_layout.is_tuple and len(with_layout.tuple_shapes) == 1 and shape.is_array:
        with_layout = with_layout.tuple_shapes[0]
    if not with_layout.compatible(shape):
        raise InvalidArgumentError(
            f"{op_name}: shape_with_layout {with_layout} must be compatible with the result {shape}"
        )
    op.instruction.shape = with_layout


@builder_op("AllReduce")
def AllReduce(
    operand: XlaOp,
    computation: Reducer,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
    shape_with_layout: Shape | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Reduce ``operand`` (an array or a tuple of arrays) with ``computation`` across each
    replica group; every member gets the result."""
    parts, was_tuple = _split_tuple(operand, "AllReduce")
    return _all_reduce(
        parts, was_tuple, computation, replica_groups, channel_id, shape_with_layout,
        use_global_device_ids, "AllReduce",
    )  # fmt: skip


@builder_op("AllReduceTuple")
def AllReduceTuple(
    operands: Sequence[XlaOp],
    computation: Reducer,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
    shape_with_layout: Shape | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """One variadic all-reduce of several arrays (a tuple result)."""
    operands = list(operands)
    if not operands:
        raise InvalidArgumentError("AllReduceTuple: needs at least one operand")
    return _all_reduce(
        operands, len(operands) == 1, computation, replica_groups, channel_id,
        shape_with_layout, use_global_device_ids, "AllReduceTuple",
    )  # fmt: skip


@builder_op("CrossReplicaSum")
def CrossReplicaSum(operand: XlaOp, replica_groups: ReplicaGroups = ()) -> XlaOp:
    """All-reduce with addition (logical or for pred), as XLA builds it."""
    shape = shape_of(operand)
    element = shape.tuple_shapes[0] if shape.is_tuple and shape.tuple_shapes else shape
    if shape.is_tuple and not shape.tuple_shapes:
        raise UnimplementedError("CrossReplicaSum: a 0-element tuple operand is not supported")
    from .elementwise import Add, Or

    combine = Or if element.element_type == PrimitiveType.PRED else Add

    def sum(x: XlaOp, y: XlaOp) -> XlaOp:  # noqa: A001  (XLA names the computation "sum")
        return combine(x, y)

    parts, was_tuple = _split_tuple(operand, "CrossReplicaSum")
    return _all_reduce(parts, was_tuple, sum, replica_groups, None, None, None, "CrossReplicaSum")


def _all_gather(
    operands: Sequence[XlaOp], all_gather_dimension: int, shard_count: int, replica_groups: Any,
    channel_id: Any, layout: Any, use_global_device_ids: bool | None, op_name: str,
) -> XlaOp:  # fmt: skip
    builder = operands[0].builder
    shapes = [shape_of(p) for p in operands]
    for s in shapes:
        if not s.is_array:
            raise InvalidArgumentError(f"{op_name}: operands must be arrays, got {s}")
    dim = _dimension(all_gather_dimension, "all_gather_dimension", op_name, shapes[0])
    count = _positive(shard_count, "shard_count", op_name, shapes[0])
    devices = _device_list(replica_groups, op_name)
    channel = _channel_id(channel_id, op_name)
    _check_group_size(
        count, "shard_count", devices, channel, bool(use_global_device_ids), op_name, shapes[0]
    )
    gathered = []
    for s in shapes:
        dims = list(s.dimensions)
        if dim >= len(dims):
            raise InvalidArgumentError(
                f"{op_name}: all_gather_dimension {dim} is out of range for operand {s}"
            )
        dims[dim] *= count
        gathered.append(Shape.array(s.element_type, dims))
    attributes = _group_attributes(channel, devices)
    if layout is not None:
        attributes["constrain_layout"] = True
    attributes["dimensions"] = (dim,)
    if use_global_device_ids:
        attributes["use_global_device_ids"] = True
    declared = gathered[0] if len(gathered) == 1 else Shape.tuple(gathered)
    result = builder.add_instruction(
        Op.ALL_GATHER, list(operands), attributes=attributes, declared=declared, op_name=op_name
    )
    if layout is not None:
        _with_layout(result, layout, op_name)
    return result


@builder_op("AllGather")
def AllGather(
    operand: XlaOp,
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """Concatenate the operands of a replica group along ``all_gather_dimension`` (in group
    order); that dimension grows ``shard_count`` times."""
    parts, _ = _split_tuple(operand, "AllGather")
    return _all_gather(
        parts, all_gather_dimension, shard_count, replica_groups, channel_id, layout,
        use_global_device_ids, "AllGather",
    )  # fmt: skip


@builder_op("AllGatherTuple")
def AllGatherTuple(
    operands: Sequence[XlaOp],
    all_gather_dimension: int,
    shard_count: int,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """One variadic all-gather of several arrays."""
    operands = list(operands)
    if not operands:
        raise InvalidArgumentError("AllGatherTuple: needs at least one operand")
    return _all_gather(
        operands, all_gather_dimension, shard_count, replica_groups, channel_id, layout,
        use_global_device_ids, "AllGatherTuple",
    )  # fmt: skip


@builder_op("ReduceScatter")
def ReduceScatter(
    operand: XlaOp,
    computation: Reducer,
    scatter_dimension: int,
    shard_count: int,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:
    """All-reduce, then member i of each group keeps block i of ``shard_count`` blocks along
    ``scatter_dimension``."""
    op_name = "ReduceScatter"
    parts, _ = _split_tuple(operand, op_name)
    _same_element_type(parts, op_name)
    shapes = [shape_of(p) for p in parts]
    for s in shapes:
        if not s.is_array:
            raise InvalidArgumentError(f"{op_name}: operands must be arrays, got {s}")
    dim = _dimension(scatter_dimension, "scatter_dimension", op_name, shapes[0])
    count = _positive(shard_count, "shard_count", op_name, shapes[0])
    devices = _device_list(replica_groups, op_name)
    channel = _channel_id(channel_id, op_name)
    _check_group_size(
        count, "shard_count", devices, channel, bool(use_global_device_ids), op_name, shapes[0]
    )
    scattered = []
    for s in shapes:
        dims = list(s.dimensions)
        if dim >= len(dims) or dims[dim] % count:
            raise InvalidArgumentError(
                f"{op_name}: the scatter dimension {dim} of operand {s} must be divisible by "
                f"shard_count {count}"
            )
        dims[dim] //= count
        scattered.append(Shape.array(s.element_type, dims))
    to_apply = _reducer(operand, parts, computation, op_name)
    attributes = _group_attributes(channel, devices)
    if layout is not None:
        attributes["constrain_layout"] = True
    if use_global_device_ids:
        attributes["use_global_device_ids"] = True
    attributes["dimensions"] = (dim,)
    declared = scattered[0] if len(scattered) == 1 else Shape.tuple(scattered)
    result = operand.builder.add_instruction(
        Op.REDUCE_SCATTER, parts, attributes=attributes, computations={"to_apply": to_apply},
        declared=declared, op_name=op_name,
    )  # fmt: skip
    if layout is not None:
        _with_layout(result, layout, op_name)
    return result


# -- all-to-all -------------------------------------------------------------------------------


@builder_op("AllToAll")
def AllToAll(
    operand: XlaOp,
    split_dimension: int,
    concat_dimension: int,
    split_count: int,
    replica_groups: ReplicaGroups = (),
    layout: Layout | Sequence[int] | None = None,
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """Split along ``split_dimension`` into ``split_count`` blocks, send block i to group member
    i, concatenate what arrives along ``concat_dimension``.

    HLO's array all-to-all splits and concatenates along one dimension, so, as
    XLA's builder does, a different concat dimension is reached by reshaping
    the split dimension into (split_count, block), moving the count next to
    the concat dimension and merging them. With a ``layout`` XLA uses the
    tuple form (slices, a tuple all-to-all, a concatenate), and so do we.
    """
    op_name = "AllToAll"
    shape = shape_of(operand)
    if not shape.is_array:
        raise InvalidArgumentError(f"{op_name}: the operand must be an array, got {shape}")
    split = int(split_dimension)
    concat = int(concat_dimension)
    count = int(split_count)
    result_shape = all_to_all_result_shape(shape, split, concat, count)
    if layout is not None:
        return _all_to_all_via_tuple(
            operand, split, concat, count, replica_groups, layout, channel_id, op_name
        )
    devices = _device_list(replica_groups, op_name)
    channel = _channel_id(channel_id, op_name)
    _check_group_size(count, "split_count", devices, None, False, op_name, shape)
    if not devices.groups():  # XLA states the one group it means
        devices = CollectiveDeviceList((ReplicaGroup(tuple(range(count))),))
    attributes = _group_attributes(channel, devices)
    attributes["dimensions"] = (split,)
    builder = operand.builder
    exchanged = builder.add_instruction(
        Op.ALL_TO_ALL, [operand], attributes=attributes, op_name=op_name
    )
    if split == concat:
        return exchanged
    if not shape.is_static:
        raise UnimplementedError(
            f"{op_name}: dynamic operand shapes are not supported, got {shape}"
        )
    sizes: list[int] = []
    for i, size in enumerate(shape.dimensions):
        sizes += [count, size // count] if i == split else [size]
    reshaped = builder.add_instruction(
        Op.RESHAPE, [exchanged], declared=Shape.array(shape.element_type, sizes), op_name=op_name
    )
    permutation: list[int] = []
    for i in range(shape.rank):
        if i == concat:
            permutation.append(split)
        permutation.append(i + 1 if i >= split else i)
    moved = builder.add_instruction(
        Op.TRANSPOSE, [reshaped], attributes={"dimensions": tuple(permutation)}, op_name=op_name
    )
    return builder.add_instruction(Op.RESHAPE, [moved], declared=result_shape, op_name=op_name)


def _all_to_all_via_tuple(
    operand: XlaOp, split: int, concat: int, count: int, replica_groups: Any, layout: Any,
    channel_id: Any, op_name: str,
) -> XlaOp:  # fmt: skip
    builder = operand.builder
    shape = shape_of(operand)
    block = shape.dimensions[split] // count
    slices = []
    for i in range(count):
        starts, limits = [0] * shape.rank, list(shape.dimensions)
        starts[split], limits[split] = i * block, (i + 1) * block
        slices.append(
            builder.add_instruction(
                Op.SLICE,
                [operand],
                attributes={"slice": tuple(zip(starts, limits, [1] * shape.rank, strict=True))},
                op_name=op_name,
            )  # fmt: skip
        )
    exchanged = _all_to_all_tuple(slices, replica_groups, layout, channel_id, op_name)
    received = [
        builder.add_instruction(
            Op.GET_TUPLE_ELEMENT, [exchanged], attributes={"index": i}, op_name=op_name
        )
        for i in range(count)
    ]
    return builder.add_instruction(
        Op.CONCATENATE, received, attributes={"dimensions": (concat,)}, op_name=op_name
    )


def _all_to_all_tuple(
    operands: Sequence[XlaOp], replica_groups: Any, layout: Any, channel_id: Any, op_name: str
) -> XlaOp:
    builder = operands[0].builder
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    if layout is not None:
        attributes["constrain_layout"] = True
    result = builder.add_instruction(
        Op.ALL_TO_ALL, list(operands), attributes=attributes, op_name=op_name
    )
    if layout is not None:
        layout = _layout(layout, op_name)
        parts = result.instruction.shape.tuple_shapes
        for i, part in enumerate(parts):
            if layout.rank != part.rank:
                raise InvalidArgumentError(
                    f"{op_name}: the layout {layout} must be compatible with the operands' shape; "
                    f"operand {i} has shape {part}"
                )
        result.instruction.shape = Shape.tuple(p.with_layout(layout) for p in parts)
    return result


@builder_op("AllToAllTuple")
def AllToAllTuple(operand: Any, *args: Any, **kwargs: Any) -> XlaOp:
    """``AllToAllTuple(operands, replica_groups=(), layout=None, channel_id=None)``: operand i
    goes to group member i, the result is the tuple of what arrives; or
    ``AllToAllTuple(operand, split_dimension, concat_dimension, split_count, ...)``: the
    AllToAll contract through the tuple form."""
    op_name = "AllToAllTuple"
    if isinstance(operand, XlaOp):
        names = ("split_dimension", "concat_dimension", "split_count", "replica_groups",
                 "layout", "channel_id")  # fmt: skip
        values = dict(zip(names, args, strict=False)) | kwargs
        missing = [n for n in names[:3] if n not in values]
        if missing:
            raise InvalidArgumentError(f"{op_name}: missing {', '.join(missing)}")
        shape = shape_of(operand)
        split, concat = int(values["split_dimension"]), int(values["concat_dimension"])
        count = int(values["split_count"])
        all_to_all_result_shape(shape, split, concat, count)
        return _all_to_all_via_tuple(
            operand, split, concat, count, values.get("replica_groups", ()),
            values.get("layout"), values.get("channel_id"), op_name,
        )  # fmt: skip
    operands = list(operand)
    if not operands:
        raise InvalidArgumentError(f"{op_name}: needs at least one operand")
    names = ("replica_groups", "layout", "channel_id")
    values = dict(zip(names, args, strict=False)) | kwargs
    return _all_to_all_tuple(
        operands, values.get("replica_groups", ()), values.get("layout"),
        values.get("channel_id"), op_name,
    )  # fmt: skip


@builder_op("RaggedAllToAll")
def RaggedAllToAll(
    input: XlaOp,  # noqa: A002  (the spec's name)
    input_offsets: XlaOp,
    send_sizes: XlaOp,
    output: XlaOp,
    output_offsets: XlaOp,
    recv_sizes: XlaOp,
    replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """All-to-all of ragged slices of ``input`` into ``output`` (whose shape is the result).

    The arguments are in the spec's order; HLO's ragged-all-to-all takes
    ``(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)``.
    """
    op_name = "RaggedAllToAll"
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    operands = [input, output, input_offsets, send_sizes, output_offsets, recv_sizes]
    return output.builder.add_instruction(
        Op.RAGGED_ALL_TO_ALL, operands, attributes=attributes, op_name=op_name
    )


# -- permutes and broadcasts ------------------------------------------------------------------


def _pairs(source_target_pairs: Any, op_name: str) -> tuple[SourceTarget, ...]:
    try:
        return tuple(
            p if isinstance(p, SourceTarget) else SourceTarget(*(int(i) for i in p))
            for p in source_target_pairs
        )
    except TypeError:
        raise InvalidArgumentError(
            f"{op_name}: source_target_pairs must be (source, target) pairs such as "
            f"[(0, 1), (1, 0)], got {source_target_pairs!r}"
        ) from None


def _collective_permute(
    operands: Sequence[XlaOp], source_target_pairs: Any, channel_id: Any, op_name: str
) -> XlaOp:
    attributes: dict[str, Any] = {}
    channel = _channel_id(channel_id, op_name)
    if channel is not None:
        attributes["channel_id"] = channel
    attributes["source_target_pairs"] = _pairs(source_target_pairs, op_name)
    return operands[0].builder.add_instruction(
        Op.COLLECTIVE_PERMUTE, list(operands), attributes=attributes, op_name=op_name
    )


@builder_op("CollectivePermute")
def CollectivePermute(
    operand: XlaOp,
    source_target_pairs: Sequence[tuple[int, int]] | Sequence[SourceTarget],
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """Each source sends ``operand`` to its target; a replica no pair targets gets zeros."""
    return _collective_permute([operand], source_target_pairs, channel_id, "CollectivePermute")


@builder_op("MultiCollectivePermute")
def MultiCollectivePermute(
    operands: Sequence[XlaOp],
    source_target_pairs: Sequence[tuple[int, int]] | Sequence[SourceTarget],
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:
    """One collective-permute of several arrays (XLA requires more than one)."""
    operands = list(operands)
    if len(operands) < 2:
        raise InvalidArgumentError(
            f"MultiCollectivePermute: needs at least two operands, got {len(operands)}"
        )
    return _collective_permute(operands, source_target_pairs, channel_id, "MultiCollectivePermute")


@builder_op("CollectiveBroadcast")
def CollectiveBroadcast(
    operand: XlaOp | Sequence[XlaOp],
    replica_groups: ReplicaGroups,
    channel_id: ChannelHandle | int | None = None,
    has_dynamic_root: bool = False,
) -> XlaOp:
    """The first member of each replica group sends its operand to the rest of the group;
    replicas in no group get zeros."""
    op_name = "CollectiveBroadcast"
    if has_dynamic_root:
        raise UnimplementedError(f"{op_name}: has_dynamic_root=True is not supported yet")
    operands = [operand] if isinstance(operand, XlaOp) else list(operand)
    if not operands:
        raise InvalidArgumentError(f"{op_name}: needs at least one operand")
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    return operands[0].builder.add_instruction(
        Op.COLLECTIVE_BROADCAST, operands, attributes=attributes, op_name=op_name
    )


# -- ids ----------------------------------------------------------------------------------------


@builder_op("ReplicaId")
def ReplicaId(builder: XlaBuilder) -> XlaOp:
    """This replica's id, a u32 scalar in [0, replica count)."""
    return builder.add_instruction(Op.REPLICA_ID, [], op_name="ReplicaId")


@builder_op("PartitionId")
def PartitionId(builder: XlaBuilder) -> XlaOp:
    """This partition's id, a u32 scalar in [0, partition count)."""
    return builder.add_instruction(Op.PARTITION_ID, [], op_name="PartitionId")


# -- channels: send and recv ------------------------------------------------------------------

_next_channel: weakref.WeakKeyDictionary[XlaBuilder, int] = weakref.WeakKeyDictionary()


def CreateChannelHandle(
    builder: XlaBuilder, channel_type: ChannelType = ChannelType.DEVICE_TO_DEVICE
) -> ChannelHandle:
    """A channel handle not yet handed out by this builder (or its parents), as XLA's
    ``XlaBuilder::CreateChannelHandle`` makes them."""
    root = builder
    while root._parent is not None:
        root = root._parent
    handle = _next_channel.get(root, 1)
    _next_channel[root] = handle + 1
    return ChannelHandle(handle, channel_type)


def _send(operand: XlaOp, token: XlaOp, handle: ChannelHandle, host: bool, op_name: str,
          shape: Shape | None = None) -> XlaOp:  # fmt: skip
    builder = operand.builder
    attributes: dict[str, Any] = {"channel_id": handle.handle}
    if host:
        attributes["is_host_transfer"] = True
    data = shape if shape is not None else shape_of(operand)
    send = builder.add_instruction(
        Op.SEND, [operand, token], attributes=attributes,
        declared=Shape.tuple([data, Shape.scalar(PrimitiveType.U32), Shape.token()]),
        op_name=op_name,
    )  # fmt: skip
    return builder.add_instruction(Op.SEND_DONE, [send], attributes=attributes, op_name=op_name)


def _recv(token: XlaOp, shape: Shape, handle: ChannelHandle, host: bool, op_name: str) -> XlaOp:
    builder = token.builder
    attributes: dict[str, Any] = {"channel_id": handle.handle}
    if host:
        attributes["is_host_transfer"] = True
    recv = builder.add_instruction(
        Op.RECV, [token], attributes=attributes,
        declared=Shape.tuple([shape, Shape.scalar(PrimitiveType.U32), Shape.token()]),
        op_name=op_name,
    )  # fmt: skip
    return builder.add_instruction(Op.RECV_DONE, [recv], attributes=attributes, op_name=op_name)


def _new_token(builder: XlaBuilder, op_name: str) -> XlaOp:
    return builder.add_instruction(Op.AFTER_ALL, [], op_name=op_name)


@builder_op("Send")
def Send(
    operand: XlaOp,
    token_or_handle: XlaOp | ChannelHandle,
    channel_handle: ChannelHandle | None = None,
) -> XlaOp:
    """``Send(operand, channel_handle)`` (XLA's form: a fresh token) or
    ``Send(operand, token, channel_handle)``: send+send-done; returns send-done's token."""
    if isinstance(token_or_handle, XlaOp):
        if channel_handle is None:
            raise InvalidArgumentError("Send: with a token, a channel_handle is required")
        handle = _channel_handle(channel_handle, ChannelType.DEVICE_TO_DEVICE, "Send")
        return _send(operand, token_or_handle, handle, False, "Send")
    if channel_handle is not None:
        raise InvalidArgumentError(
            "Send: give Send(operand, token, handle) or Send(operand, handle)"
        )
    handle = _channel_handle(token_or_handle, ChannelType.DEVICE_TO_DEVICE, "Send")
    return _send(operand, _new_token(operand.builder, "Send"), handle, False, "Send")


@builder_op("SendWithToken")
def SendWithToken(operand: XlaOp, token: XlaOp, channel_handle: ChannelHandle) -> XlaOp:
    """Send ``operand`` on a device-to-device channel after ``token``; returns a token."""
    handle = _channel_handle(channel_handle, ChannelType.DEVICE_TO_DEVICE, "Send")
    return _send(operand, token, handle, False, "SendWithToken")


@builder_op("Recv")
def Recv(
    builder: XlaBuilder,
    token_or_shape: XlaOp | Shape,
    shape_or_handle: Shape | ChannelHandle,
    channel_handle: ChannelHandle | None = None,
) -> XlaOp:
    """``Recv(builder, shape, channel_handle)`` (XLA's form) returns the received data;
    ``Recv(builder, token, shape, channel_handle)`` returns recv-done's (data, token)."""
    if isinstance(token_or_shape, XlaOp):
        if channel_handle is None:
            raise InvalidArgumentError("Recv: with a token, a channel_handle is required")
        handle = _channel_handle(channel_handle, ChannelType.DEVICE_TO_DEVICE, "Recv")
        return _recv(token_or_shape, _shape(shape_or_handle, "Recv"), handle, False, "Recv")
    if channel_handle is not None:
        raise InvalidArgumentError(
            "Recv: give Recv(builder, shape, handle) or Recv(builder, token, shape, handle)"
        )
    shape = _shape(token_or_shape, "Recv")
    handle = _channel_handle(shape_or_handle, ChannelType.DEVICE_TO_DEVICE, "Recv")
    done = _recv(_new_token(builder, "Recv"), shape, handle, False, "Recv")
    return builder.add_instruction(
        Op.GET_TUPLE_ELEMENT, [done], attributes={"index": 0}, op_name="Recv"
    )


@builder_op("RecvWithToken")
def RecvWithToken(token: XlaOp, shape: Shape, channel_handle: ChannelHandle) -> XlaOp:
    """Receive data of ``shape`` on a device-to-device channel; returns (data, token)."""
    handle = _channel_handle(channel_handle, ChannelType.DEVICE_TO_DEVICE, "Recv")
    return _recv(token, _shape(shape, "RecvWithToken"), handle, False, "RecvWithToken")


@builder_op("SendToHost")
def SendToHost(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape, channel_handle: ChannelHandle
) -> XlaOp:
    """Send an array to the host on a device-to-host channel; returns a token."""
    op_name = "SendToHost"
    shape = _shape(shape_with_layout, op_name, "shape_with_layout")
    operand_shape = shape_of(operand)
    if not operand_shape.is_array:
        raise InvalidArgumentError(f"{op_name} only supports array shapes, got {operand_shape}")
    if not operand_shape.compatible(shape):
        raise InvalidArgumentError(
            f"{op_name}: shape {shape} must be compatible with operand shape {operand_shape}"
        )
    handle = _channel_handle(channel_handle, ChannelType.DEVICE_TO_HOST, op_name)
    return _send(operand, token, handle, True, op_name, shape)


@builder_op("RecvFromHost")
def RecvFromHost(token: XlaOp, shape: Shape, channel_handle: ChannelHandle) -> XlaOp:
    """Receive an array from the host on a host-to-device channel; returns (data, token)."""
    op_name = "RecvFromHost"
    shape = _shape(shape, op_name)
    if not shape.is_array:
        raise InvalidArgumentError(f"{op_name} only supports array shapes, got {shape}")
    handle = _channel_handle(channel_handle, ChannelType.HOST_TO_DEVICE, op_name)
    return _recv(token, shape, handle, True, op_name)


# -- infeed and outfeed -----------------------------------------------------------------------

# The token each builder's token-less Infeed/Outfeed calls chain through (XLA's
# infeed_token_/outfeed_token_), so that implicit feeds keep program order.
_feed_tokens: weakref.WeakKeyDictionary[XlaBuilder, dict[str, XlaOp]] = weakref.WeakKeyDictionary()


def _feed_token(builder: XlaBuilder, kind: str, op_name: str) -> XlaOp:
    token = _feed_tokens.get(builder, {}).get(kind)
    return token if token is not None else _new_token(builder, op_name)


def _remember_token(builder: XlaBuilder, kind: str, token: XlaOp) -> None:
    _feed_tokens.setdefault(builder, {})[kind] = token


def _infeed(token: XlaOp, shape: Shape, config: str, op_name: str) -> XlaOp:
    attributes = {"infeed_config": str(config)} if config else {}
    return token.builder.add_instruction(
        Op.INFEED, [token], attributes=attributes, declared=Shape.tuple([shape, Shape.token()]),
        op_name=op_name,
    )  # fmt: skip


@builder_op("Infeed")
def Infeed(builder: XlaBuilder, shape: Shape, config: str = "") -> XlaOp:
    """Read one value of ``shape`` from the device's infeed queue; returns the data.

    Token-less infeeds of one builder are chained through each other's
    tokens, as XLA's builder does, so they read in program order.
    """
    shape = _shape(shape, "Infeed")
    infeed = _infeed(_feed_token(builder, "infeed", "Infeed"), shape, config, "Infeed")
    token = builder.add_instruction(
        Op.GET_TUPLE_ELEMENT, [infeed], attributes={"index": 1}, op_name="Infeed"
    )
    _remember_token(builder, "infeed", token)
    return builder.add_instruction(
        Op.GET_TUPLE_ELEMENT, [infeed], attributes={"index": 0}, op_name="Infeed"
    )


@builder_op("InfeedWithToken")
def InfeedWithToken(token: XlaOp, shape: Shape, config: str = "") -> XlaOp:
    """Read one value of ``shape`` after ``token``; returns the (data, token) tuple."""
    return _infeed(token, _shape(shape, "InfeedWithToken"), config, "InfeedWithToken")


def _outfeed(operand: XlaOp, token: XlaOp, shape_with_layout: Any, config: str, op_name: str):
    shape = _shape(shape_with_layout, op_name, "shape_with_layout")
    operand_shape = shape_of(operand)
    if not operand_shape.compatible(shape):
        raise InvalidArgumentError(
            f"{op_name}: outfeed shape {shape} must be compatible with operand shape "
            f"{operand_shape}"
        )
    attributes: dict[str, Any] = {"outfeed_shape": shape}
    if config:
        attributes["outfeed_config"] = str(config)
    return operand.builder.add_instruction(
        Op.OUTFEED, [operand, token], attributes=attributes, op_name=op_name
    )


@builder_op("Outfeed")
def Outfeed(operand: XlaOp, shape_with_layout: Shape, outfeed_config: str = "") -> XlaOp:
    """Write ``operand`` to the device's outfeed queue; returns the empty tuple XLA adds.

    Token-less outfeeds of one builder are chained, as in XLA.
    """
    builder = operand.builder
    token = _feed_token(builder, "outfeed", "Outfeed")
    outfeed = _outfeed(operand, token, shape_with_layout, outfeed_config, "Outfeed")
    _remember_token(builder, "outfeed", outfeed)
    return builder.add_instruction(Op.TUPLE, [], op_name="Outfeed")


@builder_op("OutfeedWithToken")
def OutfeedWithToken(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape, outfeed_config: str = ""
) -> XlaOp:
    """Write ``operand`` to the outfeed after ``token``; returns the outfeed's token."""
    return _outfeed(operand, token, shape_with_layout, outfeed_config, "OutfeedWithToken")


__all__ = [
    "AllGather",
    "AllGatherTuple",
    "AllReduce",
    "AllReduceTuple",
    "AllToAll",
    "AllToAllTuple",
    "CollectiveBroadcast",
    "CollectivePermute",
    "CreateChannelHandle",
    "CrossReplicaSum",
    "Infeed",
    "InfeedWithToken",
    "MultiCollectivePermute",
    "Outfeed",
    "OutfeedWithToken",
    "PartitionId",
    "RaggedAllToAll",
    "Recv",
    "RecvFromHost",
    "RecvWithToken",
    "ReduceScatter",
    "ReplicaId",
    "Send",
    "SendToHost",
    "SendWithToken",
]
