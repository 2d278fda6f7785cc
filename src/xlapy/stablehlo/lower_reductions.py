"""Ops that apply a region: reduce, reduce_window, select_and_scatter, sort, map,
and gather/scatter.

The region becomes the HLO computation the op calls, with the region's block
arguments (0-d tensors, i.e. scalars) as its parameters. Variadic forms give
HLO tuples, whose elements are the op's results.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import ops
from ..builder import XlaOp
from ..xla_data import GatherDimensionNumbers, ScatterDimensionNumbers
from . import ast
from .lower import Ctx, invalid, lowering
from .lower_attrs import bool_attr, field_ints, fields, int_attr, ints, pairs
from .lower_control import results_of


def _region(op: ast.Operation, index: int = 0) -> ast.Region:
    if len(op.regions) <= index:
        raise invalid(op, f"needs {index + 1} region(s), got {len(op.regions)}")
    return op.regions[index]


@lowering("stablehlo.reduce", "mhlo.reduce")
def _reduce(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    values = ctx.operands(op)
    if len(values) % 2:
        raise invalid(op, f"needs as many init values as inputs, got {len(values)} operands")
    n = len(values) // 2
    body = ctx.computation(_region(op), op, "body")
    reduced = ops.Reduce(ctx.builder, values[:n], values[n:], body, ints(op, "dimensions"))
    return results_of(ctx, reduced, op)


@lowering("stablehlo.reduce_window", "mhlo.reduce_window")
def _reduce_window(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    values = ctx.operands(op)
    if len(values) % 2:
        raise invalid(op, f"needs as many init values as inputs, got {len(values)} operands")
    n = len(values) // 2
    rank = values[0].shape.rank
    body = ctx.computation(_region(op), op, "body")
    inputs, inits = values[:n], values[n:]
    windowed = ops.ReduceWindowWithGeneralPadding(
        inputs if n > 1 else inputs[0],
        inits if n > 1 else inits[0],
        body,
        ints(op, "window_dimensions"),
        ints(op, "window_strides", None) or (1,) * rank,
        ints(op, "base_dilations", None) or (),
        ints(op, "window_dilations", None) or (),
        pairs(op, "padding", rank),
    )
    return results_of(ctx, windowed, op)


@lowering("stablehlo.select_and_scatter", "mhlo.select_and_scatter")
def _select_and_scatter(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operand, source, init = ctx.operands(op)
    rank = operand.shape.rank
    select = ctx.computation(_region(op, 0), op, "select")
    scatter = ctx.computation(_region(op, 1), op, "scatter")
    return [
        ops.SelectAndScatterWithGeneralPadding(
            operand,
            select,
            ints(op, "window_dimensions", None) or (1,) * rank,
            ints(op, "window_strides", None) or (1,) * rank,
            pairs(op, "padding", rank),
            source,
            init,
            scatter,
        )
    ]


@lowering("stablehlo.sort", "mhlo.sort")
def _sort(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    inputs = ctx.operands(op)
    comparator = ctx.computation(_region(op), op, "comparator")
    dimension = int_attr(op, "dimension", -1)
    if dimension < 0:
        dimension += inputs[0].shape.rank
    is_stable = bool_attr(op, "is_stable")
    return results_of(ctx, ops.Sort(inputs, comparator, dimension, is_stable), op)


@lowering("stablehlo.map", "mhlo.map")
def _map(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    inputs = ctx.operands(op)
    computation = ctx.computation(_region(op), op, "computation")
    dims = ints(op, "dimensions", None)
    return [ops.Map(ctx.builder, inputs, computation, dims)]


# -- gather and scatter ---------------------------------------------------------------------


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
    update = ctx.computation(_region(op), op, "update_computation")
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


__all__: list[str] = []
