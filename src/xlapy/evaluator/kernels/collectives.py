"""Evaluator kernels of the collectives family: collectives and replica/partition ids.

Each collective gathers its group's values through the device hub (see
``xlapy.distributed.hub``) and then computes its result with numpy, in group
order, so every device of a group computes the same thing. A program run on
one device (no hub) is its own group of one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...distributed.groups import group_of, instruction_groups
from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ..core import EvalContext, Value, kernel


def _groups_of(
    ctx: EvalContext, instruction: HloInstruction, has_global_ids: bool = True
) -> list[list[int]]:
    d = ctx.device
    return instruction_groups(instruction, d.num_replicas, d.num_partitions, has_global_ids)


def _exchange(
    ctx: EvalContext, instruction: HloInstruction, value: Any, group: list[int]
) -> list[Any]:
    """Every group member's ``value``, in group order."""
    hub = ctx.device.collectives
    me = ctx.device.index
    if hub is None:
        if group != [me]:
            raise InvalidArgumentError(
                f"{instruction.opcode.value} {instruction.name}: group {group} needs "
                f"{len(group)} devices; compile with num_replicas/num_partitions to run it"
            )
        return [value]
    site = instruction.name
    count = hub.occurrence(me, site)
    return hub.exchange(
        (site, count, tuple(group)),
        group,
        me,
        value,
        f"{instruction.opcode.value} {instruction.name}",
    )


def _operands(operands: list[Value]) -> tuple[list[np.ndarray], bool]:
    """The arrays of a (possibly variadic, tuple-shaped) collective and whether it was a tuple."""
    if len(operands) == 1 and isinstance(operands[0], tuple):
        return list(operands[0]), True
    return list(operands), len(operands) > 1


def _pack(arrays: list[np.ndarray], as_tuple: bool) -> Value:
    return tuple(arrays) if as_tuple else arrays[0]


def _reduce(ctx: EvalContext, instruction: HloInstruction, values: list[np.ndarray]) -> np.ndarray:
    computation = instruction.to_apply
    acc = values[0]
    for v in values[1:]:
        acc = ctx.call_batched(computation, [acc, v])
    return np.asarray(acc)


@kernel(Op.ALL_REDUCE, Op.ALL_REDUCE_START)
def _all_reduce(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    arrays, as_tuple = _operands(operands)
    group = group_of(ctx.device.index, _groups_of(ctx, instruction), instruction.name)
    gathered = _exchange(ctx, instruction, arrays, group)
    results = [_reduce(ctx, instruction, [g[i] for g in gathered]) for i in range(len(arrays))]
    return _pack(results, as_tuple)


@kernel(Op.ALL_GATHER)
def _all_gather(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    arrays, as_tuple = _operands(operands)
    (dim,) = instruction.attributes["dimensions"]
    group = group_of(ctx.device.index, _groups_of(ctx, instruction), instruction.name)
    gathered = _exchange(ctx, instruction, arrays, group)
    results = [np.concatenate([g[i] for g in gathered], axis=dim) for i in range(len(arrays))]
    return _pack(results, as_tuple)


@kernel(Op.REDUCE_SCATTER)
def _reduce_scatter(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    arrays, as_tuple = _operands(operands)
    (dim,) = instruction.attributes["dimensions"]
    group = group_of(ctx.device.index, _groups_of(ctx, instruction), instruction.name)
    gathered = _exchange(ctx, instruction, arrays, group)
    position = group.index(ctx.device.index)
    results = []
    for i in range(len(arrays)):
        total = _reduce(ctx, instruction, [g[i] for g in gathered])
        results.append(np.split(total, len(group), axis=dim)[position])
    return _pack(results, as_tuple)


@kernel(Op.ALL_TO_ALL)
def _all_to_all(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    # all-to-all has no use_global_device_ids: with a channel it is cross-partition.
    groups = _groups_of(ctx, instruction, has_global_ids=False)
    group = group_of(ctx.device.index, groups, instruction.name)
    position = group.index(ctx.device.index)
    dims = instruction.attributes.get("dimensions")
    if dims:  # array form: split along the dimension, chunk i to member i, concatenate back
        (dim,) = dims
        chunks = np.split(np.asarray(operands[0]), len(group), axis=dim)
        gathered = _exchange(ctx, instruction, chunks, group)
        return np.concatenate([g[position] for g in gathered], axis=dim)
    # tuple form: operand i goes to member i; result j comes from member j
    gathered = _exchange(ctx, instruction, list(operands), group)
    return tuple(g[position] for g in gathered)


@kernel(Op.RAGGED_ALL_TO_ALL)
def _ragged_all_to_all(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """Member i sends input[input_offsets[j] : +send_sizes[j]] to member j, written there at
    output_offsets[j] (offsets are in the receiver's output)."""
    data, output, in_offsets, send_sizes, out_offsets, _recv_sizes = (
        np.asarray(o) for o in operands
    )
    group = group_of(ctx.device.index, _groups_of(ctx, instruction), instruction.name)
    position = group.index(ctx.device.index)
    in_offsets, send_sizes, out_offsets = (
        a.reshape(len(group), -1) for a in (in_offsets, send_sizes, out_offsets)
    )
    gathered = _exchange(ctx, instruction, (data, in_offsets, send_sizes, out_offsets), group)
    result = np.array(output, copy=True)
    for sender_data, offsets, sizes, targets in gathered:
        for update in range(offsets.shape[1]):
            start, size = int(offsets[position, update]), int(sizes[position, update])
            at = int(targets[position, update])
            result[at : at + size] = sender_data[start : start + size]
    return result


@kernel(Op.COLLECTIVE_BROADCAST)
def _collective_broadcast(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    groups = _groups_of(ctx, instruction, has_global_ids=False)
    if not any(ctx.device.index in g for g in groups):
        return np.zeros_like(np.asarray(operands[0]))  # devices in no group receive zeros
    group = group_of(ctx.device.index, groups, instruction.name)
    gathered = _exchange(ctx, instruction, operands[0], group)
    return gathered[0]


@kernel(Op.COLLECTIVE_PERMUTE)
def _collective_permute(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """Each target receives its source's value; devices nobody sends to get zeros."""
    d = ctx.device
    cross_partition = instruction.attributes.get("channel_id") is not None
    # Pairs name partitions (with a channel) or replicas; the rest of the id stays fixed.
    if cross_partition:
        domain = [d.replica_id * d.num_partitions + p for p in range(d.num_partitions)]
        my_id = d.partition_id
    else:
        domain = [r * d.num_partitions + d.partition_id for r in range(d.num_replicas)]
        my_id = d.replica_id
    value = operands[0]
    gathered = _exchange(ctx, instruction, value, domain) if ctx.device.collectives else [value]
    for pair in instruction.attributes.get("source_target_pairs", ()):
        if pair.target == my_id:
            return gathered[pair.source]
    return np.zeros_like(np.asarray(value))


@kernel(Op.REPLICA_ID)
def _replica_id(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return np.uint32(ctx.device.replica_id).reshape(())


@kernel(Op.PARTITION_ID)
def _partition_id(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return np.uint32(ctx.device.partition_id).reshape(())


@kernel(Op.ALL_GATHER_START, Op.COLLECTIVE_PERMUTE_START)
def _tuple_start(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Starts whose value is (operand, result, contexts...): compute now, done unpacks."""
    synchronous = _all_gather if instruction.opcode is Op.ALL_GATHER_START else _collective_permute
    result = synchronous(ctx, instruction, operands)
    if not instruction.shape.is_tuple:
        return result
    contexts = [
        np.zeros(s.dimensions, dtype=s.element_type.dtype)
        for s in instruction.shape.tuple_shapes[2:]
    ]
    operand = operands[0] if len(operands) == 1 else tuple(operands)
    return (operand, result, *contexts)


@kernel(Op.ALL_REDUCE_DONE, Op.ALL_GATHER_DONE, Op.COLLECTIVE_PERMUTE_DONE)
def _collective_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The start computed the result; done hands it over (element 1 of a tuple start)."""
    value = operands[0]
    return (
        value[1]
        if isinstance(value, tuple) and instruction.opcode is not Op.ALL_REDUCE_DONE
        else value
    )
