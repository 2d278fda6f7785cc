"""Lowerings of the reductions family: reduce, reduce_window, select_and_scatter, sort.

The region becomes the HLO computation the op calls, with the region's block
arguments (0-d tensors, i.e. scalars) as its parameters. Variadic forms give
HLO tuples, whose elements are the op's results.
"""

from __future__ import annotations

from ... import ops
from ...builder import XlaOp
from .. import ast
from .attrs import bool_attr, int_attr, ints, pairs
from .core import Ctx, lowering, region, results_of
from .errors import invalid


@lowering("stablehlo.reduce", "mhlo.reduce")
def _reduce(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    values = ctx.operands(op)
    if len(values) % 2:
        raise invalid(op, f"needs as many init values as inputs, got {len(values)} operands")
    n = len(values) // 2
    body = ctx.computation(region(op), op, "body")
    reduced = ops.Reduce(ctx.builder, values[:n], values[n:], body, ints(op, "dimensions"))
    return results_of(ctx, reduced, op)


@lowering("stablehlo.reduce_window", "mhlo.reduce_window")
def _reduce_window(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    values = ctx.operands(op)
    if len(values) % 2:
        raise invalid(op, f"needs as many init values as inputs, got {len(values)} operands")
    n = len(values) // 2
    rank = values[0].shape.rank
    body = ctx.computation(region(op), op, "body")
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
    select = ctx.computation(region(op, 0), op, "select")
    scatter = ctx.computation(region(op, 1), op, "scatter")
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
    comparator = ctx.computation(region(op), op, "comparator")
    dimension = int_attr(op, "dimension", -1)
    if dimension < 0:
        dimension += inputs[0].shape.rank
    is_stable = bool_attr(op, "is_stable")
    return results_of(ctx, ops.Sort(inputs, comparator, dimension, is_stable), op)


__all__: list[str] = []
