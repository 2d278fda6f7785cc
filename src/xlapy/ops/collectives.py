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

from collections.abc import Callable, Sequence
from typing import Any

from ..builder import XlaBuilder, XlaComputation, XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError, UnimplementedError
from ..hlo.computation import HloComputation
from ..layout import Layout
from ..opcode import HloOpcode as Op
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
from ._support import (
    int_tuple,
)
from .elementwise import Add, Or

ReplicaGroups = (
    Sequence[ReplicaGroup] | Sequence[Sequence[int]] | CollectiveDeviceList | IotaReplicaGroupList
)
Reducer = XlaComputation | Callable[..., Any]
Pairs = Sequence[tuple[int, int]] | Sequence[SourceTarget]

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
    except (TypeError, ValueError, InvalidArgumentError) as e:
        raise InvalidArgumentError(
            f"{op_name}: replica_groups must be a list of replica id lists such as "
            f"[[0, 1], [2, 3]], a CollectiveDeviceList or an IotaReplicaGroupList, "
            f"got {replica_groups!r} ({e})"
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


def checked_channel_handle(handle: Any, expected: ChannelType, op_name: str, data: Shape) -> ChannelHandle:
    """A handle of the ``expected`` type (XLA rejects e.g. a host channel for Send)."""
    if isinstance(handle, int) and not isinstance(handle, bool):
        handle = ChannelHandle(handle, expected)
    if not isinstance(handle, ChannelHandle):
        raise InvalidArgumentError(
            f"{op_name}: expected a ChannelHandle, got {handle!r} (data shape {data})"
        )
    if handle.type != expected:
        words = expected.name.lower().replace("_", "-")
        raise InvalidArgumentError(
            f"{op_name} must use a {words} channel, got a {handle.type.name} channel handle "
            f"(data shape {data})"
        )
    return handle


def user_shape(value: Any, op_name: str, what: str = "shape") -> Shape:
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


def builder_argument(value: Any, op_name: str) -> XlaBuilder:
    if not isinstance(value, XlaBuilder):
        raise InvalidArgumentError(
            f"{op_name}: the first argument must be the XlaBuilder to build with, got "
            f"{type(value).__name__}"
        )
    return value


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


def _as_ops(values: Any, op_name: str) -> list[XlaOp]:
    """A list of operands, each an XlaOp (lists are where a stray value can hide)."""
    ops = list(values)
    for i, op in enumerate(ops):
        if not isinstance(op, XlaOp):
            raise InvalidArgumentError(
                f"{op_name}: operand {i} must be an XlaOp, got {type(op).__name__}"
            )
    if not ops:
        raise InvalidArgumentError(f"{op_name}: needs at least one operand")
    return ops


def _split_tuple(operand: XlaOp, op_name: str) -> tuple[list[XlaOp], bool]:
    """A tuple operand as one get-tuple-element per element, as XLA's builder feeds collectives."""
    shape = shape_of(operand)
    if not shape.is_tuple:
        return [operand], False
    if not shape.tuple_shapes:
        raise UnimplementedError(f"{op_name}: a 0-element tuple operand is not supported")
    return [tuple_element(operand, i, op_name) for i in range(len(shape.tuple_shapes))], True


def tuple_element(op: XlaOp, index: int, op_name: str) -> XlaOp:
    return op.builder.add_instruction(
        Op.GET_TUPLE_ELEMENT, [op], attributes={"index": index}, op_name=op_name
    )


def _arrays_only(parts: Sequence[XlaOp], op_name: str) -> list[Shape]:
    shapes = [shape_of(p) for p in parts]
    for i, shape in enumerate(shapes):
        if not shape.is_array:
            listed = ", ".join(map(str, shapes))
            raise InvalidArgumentError(
                f"{op_name}: operand {i} must be an array, got {shape} (operand shapes: {listed})"
            )
    return shapes


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


def _fitting_layout(layout: Layout | Sequence[int], shape: Shape, op_name: str) -> Layout:
    """``layout`` checked against the array ``shape`` it will pin (before any op is added)."""
    layout = _layout(layout, op_name)
    if not shape.is_array or layout.rank != shape.rank:
        raise InvalidArgumentError(
            f"{op_name}: layout {layout} does not fit {shape} (an array of the layout's rank)"
        )
    return layout


def _reducer(
    operand: XlaOp, parts: Sequence[XlaOp], computation: Reducer, op_name: str
) -> HloComputation:
    scalar = Shape.scalar(shape_of(parts[0]).element_type)
    return operand.builder.computation_arg(computation, [scalar, scalar], op_name, "computation")


# -- all-reduce, all-gather, reduce-scatter ---------------------------------------------------


def _all_reduce(
    operands: Sequence[XlaOp], operand_was_tuple: bool, computation: Reducer, replica_groups: Any,
    channel_id: Any, shape_with_layout: Shape | None, use_global_device_ids: bool | None,
    op_name: str,
) -> XlaOp:  # fmt: skip
    builder = operands[0].builder
    shapes = _arrays_only(operands, op_name)
    _same_element_type(operands, op_name)
    pinned = None
    if shape_with_layout is not None:
        pinned = _shape_with_layout(shapes, shape_with_layout, op_name)
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
        computations={"to_apply": to_apply}, op_name=op_name, result_layout=pinned,
    )  # fmt: skip
    if operand_was_tuple and len(operands) == 1:  # XLA keeps a 1-tuple a tuple
        return builder.add_instruction(Op.TUPLE, [result], op_name=op_name)
    return result


def _shape_with_layout(shapes: Sequence[Shape], value: Any, op_name: str) -> Shape:
    """The result with the layout(s) of ``value``, which must have the result's shape."""
    pinned = user_shape(value, op_name, "shape_with_layout")
    result = shapes[0] if len(shapes) == 1 else Shape.tuple(shapes)
    if pinned.is_tuple and len(pinned.tuple_shapes) == 1 and result.is_array:
        pinned = pinned.tuple_shapes[0]  # XLA accepts a 1-tuple for an array result
    if not pinned.compatible(result):
        raise InvalidArgumentError(
            f"{op_name}: shape_with_layout {pinned} must be compatible with the result {result}"
        )
    return pinned


@builder_op("AllReduce")
def AllReduce(
    operand: XlaOp, computation: Reducer, replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None, shape_with_layout: Shape | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:  # fmt: skip
    """Reduce ``operand`` (an array or a tuple of arrays) with ``computation`` across each
    replica group; every member gets the result."""
    parts, was_tuple = _split_tuple(operand, "AllReduce")
    return _all_reduce(
        parts, was_tuple, computation, replica_groups, channel_id, shape_with_layout,
        use_global_device_ids, "AllReduce",
    )  # fmt: skip


@builder_op("AllReduceTuple")
def AllReduceTuple(
    operands: Sequence[XlaOp], computation: Reducer, replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None, shape_with_layout: Shape | None = None,
    use_global_device_ids: bool | None = None,
) -> XlaOp:  # fmt: skip
    """One variadic all-reduce of several arrays (a tuple result)."""
    operands = _as_ops(operands, "AllReduceTuple")
    return _all_reduce(
        operands, len(operands) == 1, computation, replica_groups, channel_id,
        shape_with_layout, use_global_device_ids, "AllReduceTuple",
    )  # fmt: skip


@builder_op("CrossReplicaSum")
def CrossReplicaSum(operand: XlaOp, replica_groups: ReplicaGroups = ()) -> XlaOp:
    """All-reduce with addition (logical or for pred), as XLA builds it."""
    parts, was_tuple = _split_tuple(operand, "CrossReplicaSum")
    combine = Or if shape_of(parts[0]).element_type == PrimitiveType.PRED else Add

    def sum(x: XlaOp, y: XlaOp) -> XlaOp:  # noqa: A001  (XLA names the computation "sum")
        return combine(x, y)

    return _all_reduce(parts, was_tuple, sum, replica_groups, None, None, None, "CrossReplicaSum")


def _resizing_collective(
    opcode: Op, parts: Sequence[XlaOp], dimension: Any, shard_count: Any, what: str,
    replica_groups: Any, channel_id: Any, layout: Any, use_global_device_ids: bool | None,
    op_name: str, to_apply: Any = None,
) -> XlaOp:  # fmt: skip
    """all-gather (dimension times shard_count) or reduce-scatter (divided by it)."""
    shapes = _arrays_only(parts, op_name)
    dim = _dimension(dimension, what, op_name, shapes[0])
    count = _positive(shard_count, "shard_count", op_name, shapes[0])
    devices = _device_list(replica_groups, op_name)
    channel = _channel_id(channel_id, op_name)
    global_ids = bool(use_global_device_ids)
    _check_group_size(count, "shard_count", devices, channel, global_ids, op_name, shapes[0])
    gather = opcode is Op.ALL_GATHER
    results = []
    for s in shapes:
        dims = list(s.dimensions)
        if dim >= len(dims) or (not gather and dims[dim] % count):
            raise InvalidArgumentError(
                f"{op_name}: {what} {dim} of operand {s} must exist"
                + ("" if gather else f" and be divisible by shard_count {count}")
            )
        dims[dim] = dims[dim] * count if gather else dims[dim] // count
        results.append(Shape.array(s.element_type, dims))
    declared = results[0] if len(results) == 1 else Shape.tuple(results)
    if layout is not None:
        layout = _fitting_layout(layout, declared, op_name)
    attributes = _group_attributes(channel, devices)
    if layout is not None:
        attributes["constrain_layout"] = True
    if gather:  # XLA prints all-gather's dimensions before use_global_device_ids...
        attributes["dimensions"] = (dim,)
    if global_ids:
        attributes["use_global_device_ids"] = True
    attributes["dimensions"] = (dim,)  # ...and reduce-scatter's after
    result = parts[0].builder.add_instruction(
        opcode, list(parts), attributes=attributes,
        computations={"to_apply": to_apply} if to_apply is not None else None,
        declared=declared, op_name=op_name, result_layout=layout,
    )  # fmt: skip
    return result


@builder_op("AllGather")
def AllGather(
    operand: XlaOp, all_gather_dimension: int, shard_count: int,
    replica_groups: ReplicaGroups = (), channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None, use_global_device_ids: bool | None = None,
) -> XlaOp:  # fmt: skip
    """Concatenate the operands of a replica group along ``all_gather_dimension`` (in group
    order); that dimension grows ``shard_count`` times. A tuple operand gathers each element."""
    parts, _ = _split_tuple(operand, "AllGather")
    return _resizing_collective(
        Op.ALL_GATHER, parts, all_gather_dimension, shard_count, "all_gather_dimension",
        replica_groups, channel_id, layout, use_global_device_ids, "AllGather",
    )  # fmt: skip


@builder_op("AllGatherTuple")
def AllGatherTuple(
    operands: Sequence[XlaOp], all_gather_dimension: int, shard_count: int,
    replica_groups: ReplicaGroups = (), channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None, use_global_device_ids: bool | None = None,
) -> XlaOp:  # fmt: skip
    """One variadic all-gather of several arrays."""
    operands = _as_ops(operands, "AllGatherTuple")
    return _resizing_collective(
        Op.ALL_GATHER, operands, all_gather_dimension, shard_count, "all_gather_dimension",
        replica_groups, channel_id, layout, use_global_device_ids, "AllGatherTuple",
    )  # fmt: skip


@builder_op("ReduceScatter")
def ReduceScatter(
    operand: XlaOp, computation: Reducer, scatter_dimension: int, shard_count: int,
    replica_groups: ReplicaGroups = (), channel_id: ChannelHandle | int | None = None,
    layout: Layout | Sequence[int] | None = None, use_global_device_ids: bool | None = None,
) -> XlaOp:  # fmt: skip
    """All-reduce, then member i of each group keeps block i of ``shard_count`` blocks along
    ``scatter_dimension``."""
    parts, _ = _split_tuple(operand, "ReduceScatter")
    _arrays_only(parts, "ReduceScatter")
    _same_element_type(parts, "ReduceScatter")
    to_apply = _reducer(operand, parts, computation, "ReduceScatter")
    return _resizing_collective(
        Op.REDUCE_SCATTER, parts, scatter_dimension, shard_count, "scatter_dimension",
        replica_groups, channel_id, layout, use_global_device_ids, "ReduceScatter", to_apply,
    )  # fmt: skip


# -- all-to-all -------------------------------------------------------------------------------


@builder_op("AllToAll")
def AllToAll(
    operand: XlaOp, split_dimension: int, concat_dimension: int, split_count: int,
    replica_groups: ReplicaGroups = (), layout: Layout | Sequence[int] | None = None,
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:  # fmt: skip
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
    try:
        result_shape = all_to_all_result_shape(shape, split, concat, count)
    except InvalidArgumentError as e:  # named after the HLO opcode; name the builder op
        raise InvalidArgumentError(str(e).replace(Op.ALL_TO_ALL.value, op_name, 1)) from None
    devices = _device_list(replica_groups, op_name)
    channel = _channel_id(channel_id, op_name)
    _check_group_size(count, "split_count", devices, None, False, op_name, shape)
    if layout is not None:
        layout = _layout(layout, op_name)
        if layout.rank != shape.rank:
            raise InvalidArgumentError(
                f"{op_name}: the layout {layout} must be compatible with the operand {shape}"
            )
        return _all_to_all_via_tuple(operand, split, concat, count, devices, layout, channel)
    if split != concat and not shape.is_static:
        raise UnimplementedError(
            f"{op_name}: dynamic operand shapes are not supported, got {shape}"
        )
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
    operand: XlaOp, split: int, concat: int, count: int, devices: CollectiveDeviceList,
    layout: Layout, channel: int | None, op_name: str = "AllToAll",
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
    exchanged = _all_to_all_tuple(slices, devices, layout, channel, op_name)
    received = [tuple_element(exchanged, i, op_name) for i in range(count)]
    return builder.add_instruction(
        Op.CONCATENATE, received, attributes={"dimensions": (concat,)}, op_name=op_name
    )


def _all_to_all_tuple(
    operands: Sequence[XlaOp], replica_groups: Any, layout: Any, channel_id: Any, op_name: str
) -> XlaOp:
    builder = operands[0].builder
    if layout is not None:
        layout = _layout(layout, op_name)
        for i, shape in enumerate(_arrays_only(operands, op_name)):
            if layout.rank != shape.rank:
                raise InvalidArgumentError(
                    f"{op_name}: the layout {layout} must be compatible with the operands' "
                    f"shape; operand {i} has shape {shape}"
                )
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    if layout is not None:
        attributes["constrain_layout"] = True
    return builder.add_instruction(
        Op.ALL_TO_ALL, list(operands), attributes=attributes, op_name=op_name,
        result_layout=layout,
    )  # fmt: skip


@builder_op("AllToAllTuple")
def AllToAllTuple(
    operands: Sequence[XlaOp], replica_groups: ReplicaGroups = (),
    layout: Layout | Sequence[int] | None = None, channel_id: ChannelHandle | int | None = None,
) -> XlaOp:  # fmt: skip
    """Operand i goes to group member i; the result is the tuple of the arrived blocks."""
    operands = _as_ops(operands, "AllToAllTuple")
    return _all_to_all_tuple(operands, replica_groups, layout, channel_id, "AllToAllTuple")


@builder_op("RaggedAllToAll")
def RaggedAllToAll(
    input: XlaOp, input_offsets: XlaOp, send_sizes: XlaOp, output: XlaOp,  # noqa: A002
    output_offsets: XlaOp, recv_sizes: XlaOp, replica_groups: ReplicaGroups = (),
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:  # fmt: skip
    """All-to-all of ragged slices of ``input`` into ``output`` (whose shape is the result).

    The arguments are in the spec's order; HLO's ragged-all-to-all takes
    ``(input, output, input_offsets, send_sizes, output_offsets, recv_sizes)``.
    """
    op_name = "RaggedAllToAll"
    attributes = _group_attributes(
        _channel_id(channel_id, op_name), _device_list(replica_groups, op_name)
    )
    operands = _as_ops(
        [input, output, input_offsets, send_sizes, output_offsets, recv_sizes], op_name
    )
    return operands[0].builder.add_instruction(
        Op.RAGGED_ALL_TO_ALL, operands, attributes=attributes, op_name=op_name
    )


# -- permutes and broadcasts ------------------------------------------------------------------


def _pairs(source_target_pairs: Any, op_name: str, shapes: str) -> tuple[SourceTarget, ...]:
    try:
        return tuple(
            p if isinstance(p, SourceTarget) else SourceTarget(*(int(i) for i in p))
            for p in source_target_pairs
        )
    except (TypeError, ValueError, InvalidArgumentError) as e:
        raise InvalidArgumentError(
            f"{op_name}: source_target_pairs must be (source, target) pairs of replica ids "
            f"such as [(0, 1), (1, 0)], got {source_target_pairs!r} ({e}; operands {shapes})"
        ) from None


def _collective_permute(
    operands: Sequence[XlaOp], source_target_pairs: Any, channel_id: Any, op_name: str
) -> XlaOp:
    attributes: dict[str, Any] = {}
    channel = _channel_id(channel_id, op_name)
    if channel is not None:
        attributes["channel_id"] = channel
    shapes = ", ".join(str(shape_of(o)) for o in operands)
    attributes["source_target_pairs"] = _pairs(source_target_pairs, op_name, shapes)
    return operands[0].builder.add_instruction(
        Op.COLLECTIVE_PERMUTE, list(operands), attributes=attributes, op_name=op_name
    )


@builder_op("CollectivePermute")
def CollectivePermute(
    operand: XlaOp, source_target_pairs: Pairs, channel_id: ChannelHandle | int | None = None
) -> XlaOp:
    """Each source sends ``operand`` to its target; a replica no pair targets gets zeros."""
    return _collective_permute([operand], source_target_pairs, channel_id, "CollectivePermute")


@builder_op("MultiCollectivePermute")
def MultiCollectivePermute(
    operands: Sequence[XlaOp], source_target_pairs: Pairs,
    channel_id: ChannelHandle | int | None = None,
) -> XlaOp:  # fmt: skip
    """One collective-permute of several arrays (XLA requires more than one)."""
    operands = _as_ops(operands, "MultiCollectivePermute")
    if len(operands) < 2:
        shapes = ", ".join(str(shape_of(o)) for o in operands)
        raise InvalidArgumentError(
            f"MultiCollectivePermute: needs at least two operands, got {len(operands)} ({shapes})"
        )
    return _collective_permute(operands, source_target_pairs, channel_id, "MultiCollectivePermute")


@builder_op("CollectiveBroadcast")
def CollectiveBroadcast(
    operand: XlaOp | Sequence[XlaOp], replica_groups: ReplicaGroups,
    channel_id: ChannelHandle | int | None = None, has_dynamic_root: bool = False,
) -> XlaOp:  # fmt: skip
    """The first member of each replica group sends its operand to the rest of the group;
    replicas in no group get zeros."""
    op_name = "CollectiveBroadcast"
    if has_dynamic_root:
        raise UnimplementedError(f"{op_name}: has_dynamic_root=True is not supported yet")
    operands = _as_ops([operand] if isinstance(operand, XlaOp) else operand, op_name)
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
    return builder_argument(builder, "ReplicaId").add_instruction(Op.REPLICA_ID, [], op_name="ReplicaId")


@builder_op("PartitionId")
def PartitionId(builder: XlaBuilder) -> XlaOp:
    """This partition's id, a u32 scalar in [0, partition count)."""
    return builder_argument(builder, "PartitionId").add_instruction(
        Op.PARTITION_ID, [], op_name="PartitionId"
    )


__all__ = [
    "AllGather", "AllGatherTuple", "AllReduce", "AllReduceTuple", "AllToAll", "AllToAllTuple",
    "CollectiveBroadcast", "CollectivePermute", "CrossReplicaSum", "MultiCollectivePermute",
    "PartitionId", "RaggedAllToAll", "ReduceScatter", "ReplicaId",
]  # fmt: skip
