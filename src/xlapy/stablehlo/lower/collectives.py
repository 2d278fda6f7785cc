"""Lowerings of the collectives family: collectives and replica/partition ids.

StableHLO chooses a collective's process groups from ``channel_handle`` and
``use_global_device_ids`` exactly as HLO chooses its group mode from
``channel_id`` and ``use_global_device_ids``, with a handle of 0 meaning "no
channel"; so the attributes carry over as they are. Shard and split counts,
which HLO needs stated, follow from the declared result types.
"""

from __future__ import annotations

import numpy as np

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from ...types import PrimitiveType
from .. import ast
from .attrs import (
    bool_attr,
    channel_id,
    int_attr,
    pairs,
    replica_groups,
)
from .core import Ctx, lowering
from .errors import invalid, unsupported


def _global_ids(op: ast.Operation) -> bool | None:
    return True if bool_attr(op, "use_global_device_ids") else None


@lowering("stablehlo.all_reduce", "mhlo.all_reduce")
def _all_reduce(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operands = ctx.operands(op)
    reducer = ctx.computation(op.regions[0], op, "computation")
    groups, channel, global_ids = replica_groups(op), channel_id(op), _global_ids(op)
    if len(operands) == 1:
        return [ops.AllReduce(operands[0], reducer, groups, channel, None, global_ids)]
    value = ops.AllReduceTuple(operands, reducer, groups, channel, None, global_ids)
    return ctx.unpack(value, len(operands))


def _count(op: ast.Operation, small: Shape, large: Shape, dim: int, what: str) -> int:
    if not (0 <= dim < small.rank) or small.dimensions[dim] == 0:
        raise invalid(op, f"{what} {dim} is not a non-empty dimension of {small}")
    count, rest = divmod(large.dimensions[dim], small.dimensions[dim])
    if rest or count < 1:
        raise invalid(op, f"{large} is not a whole multiple of {small} along dimension {dim}")
    return count


@lowering("stablehlo.all_gather", "mhlo.all_gather")
def _all_gather(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operands = ctx.operands(op)
    dim = int_attr(op, "all_gather_dim")
    count = _count(op, operands[0].shape, ctx.result_shape(op), dim, "all_gather_dim")
    groups, channel, global_ids = replica_groups(op), channel_id(op), _global_ids(op)
    if len(operands) == 1:
        return [ops.AllGather(operands[0], dim, count, groups, channel, None, global_ids)]
    value = ops.AllGatherTuple(operands, dim, count, groups, channel, None, global_ids)
    return ctx.unpack(value, len(operands))


@lowering("stablehlo.reduce_scatter", "mhlo.reduce_scatter")
def _reduce_scatter(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (operand,) = ctx.operands(op)
    dim = int_attr(op, "scatter_dimension")
    count = _count(op, ctx.result_shape(op), operand.shape, dim, "scatter_dimension")
    reducer = ctx.computation(op.regions[0], op, "computation")
    return [
        ops.ReduceScatter(
            operand,
            reducer,
            dim,
            count,
            replica_groups(op),
            channel_id(op),
            None,
            _global_ids(op),
        )  # fmt: skip
    ]


@lowering("stablehlo.all_to_all", "mhlo.all_to_all")
def _all_to_all(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    split = int_attr(op, "split_dimension")
    concat = int_attr(op, "concat_dimension")
    count = int_attr(op, "split_count")
    groups, channel = replica_groups(op), channel_id(op)
    # Variadic all_to_all exchanges each operand independently, with the same groups.
    return [ops.AllToAll(x, split, concat, count, groups, None, channel) for x in ctx.operands(op)]


@lowering("stablehlo.collective_permute", "mhlo.collective_permute")
def _collective_permute(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (operand,) = ctx.operands(op)
    source_target = pairs(op, "source_target_pairs", 0)
    return [ops.CollectivePermute(operand, source_target, channel_id(op))]


@lowering("stablehlo.collective_broadcast", "mhlo.collective_broadcast")
def _collective_broadcast(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    if bool_attr(op, "has_dynamic_root"):
        raise unsupported(op, "has_dynamic_root (a root chosen at run time)")
    (operand,) = ctx.operands(op)
    return [ops.CollectiveBroadcast(operand, replica_groups(op), channel_id(op))]


@lowering("stablehlo.collective_reduce")
def _collective_reduce(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    """An all-reduce whose result only each group's first member keeps (others get zeros)."""
    if bool_attr(op, "has_dynamic_root"):
        raise unsupported(op, "has_dynamic_root")
    if channel_id(op) is not None:
        raise unsupported(op, "cross-partition groups (a channel_handle above 0)")
    (operand,) = ctx.operands(op)
    groups = replica_groups(op)
    if not groups:
        raise invalid(op, "needs replica_groups")
    reducer = ctx.computation(op.regions[0], op, "computation")
    reduced = ops.AllReduce(operand, reducer, groups)
    size = max(max(g) for g in groups) + 1
    roots = np.zeros([size], np.bool_)
    for group in groups:
        roots[group[0]] = True
    table = ops.Constant(ctx.builder, roots)
    replica = ops.ConvertElementType(ops.ReplicaId(ctx.builder), PrimitiveType.S32)
    is_root = ops.Reshape(ops.DynamicSlice(table, [replica], [1]), [])
    zeros = ops.Broadcast(ops.Constant(ctx.builder, 0, operand.shape.element_type),
                          operand.shape.dimensions)  # fmt: skip
    return [ops.Select(is_root, reduced, zeros)]


@lowering("stablehlo.replica_id", "mhlo.replica_id")
def _replica_id(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [ops.ReplicaId(ctx.builder)]


@lowering("stablehlo.partition_id", "mhlo.partition_id")
def _partition_id(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [ops.PartitionId(ctx.builder)]


__all__: list[str] = []
