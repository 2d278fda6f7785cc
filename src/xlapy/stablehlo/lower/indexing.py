"""Lowerings of the indexing family: gather, scatter and the dynamic slices.

``dynamic_gather`` and ``real_dynamic_slice`` take their sizes (and bounds)
as operands, which HLO needs static: they are imported when those operands
are known at import time, as the static ``gather`` and ``slice`` they denote.
A scatter's update region becomes the HLO computation it calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...builder import XlaOp
from ...xla_data import GatherDimensionNumbers, ScatterDimensionNumbers
from .. import ast
from .attrs import bool_attr, field_ints, fields, ints
from .core import Ctx, lowering, region, results_of
from .errors import invalid


def _gather(ctx: Ctx, op: ast.Operation, operand: XlaOp, indices: XlaOp,
            slice_sizes: Sequence[int]) -> XlaOp:  # fmt: skip
    dn = fields(op, "dimension_numbers", "stablehlo.gather")
    numbers = GatherDimensionNumbers(
        offset_dims=field_ints(dn, "offset_dims"),
        collapsed_slice_dims=field_ints(dn, "collapsed_slice_dims"),
        start_index_map=field_ints(dn, "start_index_map"),
        index_vector_dim=int(dn.get("index_vector_dim", 0)),
        operand_batching_dims=field_ints(dn, "operand_batching_dims"),
        start_indices_batching_dims=field_ints(dn, "start_indices_batching_dims"),
    )
    return ops.Gather(operand, indices, numbers, slice_sizes, bool_attr(op, "indices_are_sorted"))


@lowering("stablehlo.gather", "mhlo.gather")
def _gather_op(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operand, indices = ctx.operands(op)
    return [_gather(ctx, op, operand, indices, ints(op, "slice_sizes"))]


@lowering("stablehlo.dynamic_gather", "mhlo.dynamic_gather")
def _dynamic_gather(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operand = ctx.value(op.operands[0], op)
    indices = ctx.value(op.operands[1], op)
    sizes = ctx.known_ints(op.operands[2], op, "slice_sizes")
    return [_gather(ctx, op, operand, indices, sizes)]


@lowering("stablehlo.scatter", "mhlo.scatter")
def _scatter(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    values = ctx.operands(op)
    if len(values) % 2 == 0:
        raise invalid(op, f"needs N inputs, the indices and N updates, got {len(values)} operands")
    n = len(values) // 2
    inputs, indices, updates = values[:n], values[n], values[n + 1 :]
    name = "scatter_dimension_numbers"
    if name not in op.attributes and "dimension_numbers" in op.attributes:
        name = "dimension_numbers"
    dn = fields(op, name, "stablehlo.scatter")
    numbers = ScatterDimensionNumbers(
        update_window_dims=field_ints(dn, "update_window_dims"),
        inserted_window_dims=field_ints(dn, "inserted_window_dims"),
        scatter_dims_to_operand_dims=field_ints(dn, "scatter_dims_to_operand_dims"),
        index_vector_dim=int(dn.get("index_vector_dim", 0)),
        input_batching_dims=field_ints(dn, "input_batching_dims"),
        scatter_indices_batching_dims=field_ints(dn, "scatter_indices_batching_dims"),
    )
    update = ctx.computation(region(op), op, "update_computation")
    scattered = ops.Scatter(
        inputs if n > 1 else inputs[0],
        indices,
        updates if n > 1 else updates[0],
        update,
        numbers,
        bool_attr(op, "indices_are_sorted"),
        bool_attr(op, "unique_indices"),
    )
    return results_of(ctx, scattered, op)


# -- dynamic slices ----------------------------------------------------------------------------


@lowering("stablehlo.real_dynamic_slice", "mhlo.real_dynamic_slice")
def _real_dynamic_slice(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x = ctx.value(op.operands[0], op)
    starts = ctx.known_ints(op.operands[1], op, "start_indices")
    limits = ctx.known_ints(op.operands[2], op, "limit_indices")
    strides = ctx.known_ints(op.operands[3], op, "strides")
    return [ops.Slice(x, starts, limits, strides)]


@lowering("stablehlo.dynamic_slice", "mhlo.dynamic_slice")
def _dynamic_slice(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x, *starts = ctx.operands(op)
    return [ops.DynamicSlice(x, starts, ints(op, "slice_sizes"))]


@lowering("stablehlo.dynamic_update_slice", "mhlo.dynamic_update_slice")
def _dynamic_update_slice(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x, update, *starts = ctx.operands(op)
    return [ops.DynamicUpdateSlice(x, update, starts)]


__all__: list[str] = []
