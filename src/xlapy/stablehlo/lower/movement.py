"""Lowerings of the movement family: constants, iota, broadcasts, reshapes, slices, padding,
tuples, dimension sizes, barriers and tokens, and the ``dynamic_*`` forms of these.

HLO shapes are static (or bounded), so the ``dynamic_*`` ops are imported
when their shape operands are known at import time (constants, or values
folding to constants): they then are the static op they denote. A shape
computed at run time is reported as unsupported instead of guessed.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from ...xla_data import PaddingConfig
from .. import ast
from .attrs import attr, int_attr, ints
from .core import Ctx, lowering, results_of
from .errors import invalid


@lowering("stablehlo.constant", "mhlo.constant")
def _constant(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    value = attr(op, "value")
    if not isinstance(value, ast.DenseElements):
        raise invalid(op, f"the value must be a dense<...> literal, got {value!r}")
    literal = value.literal
    declared = ctx.result_shape(op)
    if literal.shape.without_layout() != declared.without_layout():
        if literal.shape.dimensions == declared.dimensions:
            literal = literal.convert(declared.element_type)
        else:
            raise invalid(op, f"the value has shape {literal.shape}, the result is {declared}")
    return [ops.ConstantLiteral(ctx.builder, literal)]


def _iota(ctx: Ctx, op: ast.Operation, dimensions: Sequence[int]) -> XlaOp:
    element_type = ctx.result_shape(op).element_type
    shape = Shape.array(element_type, list(dimensions))
    return ops.Iota(ctx.builder, shape, int_attr(op, "iota_dimension", 0))


@lowering("stablehlo.iota", "mhlo.iota")
def _iota_op(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [_iota(ctx, op, ctx.result_shape(op).dimensions)]


@lowering("stablehlo.dynamic_iota", "mhlo.dynamic_iota")
def _dynamic_iota(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [_iota(ctx, op, ctx.known_ints(op.operands[0], op, "output_shape"))]


def broadcast_in_dim(
    op: ast.Operation, x: XlaOp, dimensions: Sequence[int], mapping: Sequence[int]
) -> XlaOp:
    """The spec's broadcast_in_dim from HLO's stricter broadcast.

    HLO's broadcast maps operand dimensions in increasing order and never
    stretches a dimension; StableHLO allows any order and stretches size-1
    dimensions. So: transpose into order, reshape the stretched size-1
    dimensions away, then broadcast.
    """
    shape = x.shape
    dims = tuple(int(d) for d in dimensions)
    mapping = [int(m) for m in mapping]
    if len(mapping) != shape.rank:
        raise invalid(
            op, f"broadcast_dimensions {mapping} must have one entry per operand dimension "
            f"(operand {shape})",
        )  # fmt: skip
    for i, m in enumerate(mapping):
        if not 0 <= m < len(dims) or shape.dimensions[i] not in (1, dims[m]):
            raise invalid(
                op, f"operand dimension {i} (size {shape.dimensions[i]}) cannot broadcast to "
                f"result dimension {m} of {list(dims)}",
            )  # fmt: skip
    order = sorted(range(len(mapping)), key=lambda i: mapping[i])
    if order != list(range(len(mapping))):
        x = ops.Transpose(x, order)
        mapping = [mapping[i] for i in order]
    sizes = x.shape.dimensions
    keep = [i for i, d in enumerate(sizes) if d == dims[mapping[i]]]
    if len(keep) != len(sizes):
        x = ops.Reshape(x, [sizes[i] for i in keep])
        mapping = [mapping[i] for i in keep]
    if x.shape.dimensions == dims and mapping == list(range(len(dims))):
        return x
    return ops.BroadcastInDim(x, dims, mapping)


@lowering("stablehlo.broadcast_in_dim", "mhlo.broadcast_in_dim")
def _broadcast_in_dim(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    dims = ctx.result_shape(op).dimensions
    return [broadcast_in_dim(op, x, dims, ints(op, "broadcast_dimensions"))]


@lowering("stablehlo.broadcast", "mhlo.broadcast")
def _broadcast(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.Broadcast(x, ints(op, "broadcast_sizes"))]


@lowering("stablehlo.dynamic_broadcast_in_dim", "mhlo.dynamic_broadcast_in_dim")
def _dynamic_broadcast_in_dim(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x = ctx.value(op.operands[0], op)
    dims = ctx.known_ints(op.operands[1], op, "output_dimensions")
    return [broadcast_in_dim(op, x, dims, ints(op, "broadcast_dimensions"))]


@lowering("stablehlo.reshape", "mhlo.reshape")
def _reshape(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.Reshape(x, ctx.result_shape(op).dimensions)]


@lowering("stablehlo.dynamic_reshape", "mhlo.dynamic_reshape")
def _dynamic_reshape(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x = ctx.value(op.operands[0], op)
    return [ops.Reshape(x, ctx.known_ints(op.operands[1], op, "output_shape"))]


@lowering("stablehlo.transpose", "mhlo.transpose")
def _transpose(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.Transpose(x, ints(op, "permutation"))]


@lowering("stablehlo.reverse", "mhlo.reverse")
def _reverse(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.Rev(x, ints(op, "dimensions"))]


@lowering("stablehlo.slice", "mhlo.slice")
def _slice(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    starts = ints(op, "start_indices")
    strides = ints(op, "strides", None) or (1,) * len(starts)
    return [ops.Slice(x, starts, ints(op, "limit_indices"), strides)]


@lowering("stablehlo.concatenate", "mhlo.concatenate")
def _concatenate(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [ops.ConcatInDim(ctx.builder, ctx.operands(op), int_attr(op, "dimension"))]


def _pad(x: XlaOp, value: XlaOp, low: Sequence[int], high: Sequence[int],
         interior: Sequence[int]) -> XlaOp:  # fmt: skip
    config = PaddingConfig.from_triples(zip(low, high, interior, strict=True))
    return ops.Pad(x, value, config)


@lowering("stablehlo.pad", "mhlo.pad")
def _pad_op(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x, value = ctx.operands(op)
    rank = x.shape.rank
    low = ints(op, "edge_padding_low")
    high = ints(op, "edge_padding_high")
    interior = ints(op, "interior_padding", None) or (0,) * rank
    if not len(low) == len(high) == len(interior) == rank:
        raise invalid(op, f"the paddings need one entry per dimension of the operand {x.shape}")
    return [_pad(x, value, low, high, interior)]


@lowering("stablehlo.dynamic_pad", "mhlo.dynamic_pad")
def _dynamic_pad(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x = ctx.value(op.operands[0], op)
    value = ctx.value(op.operands[1], op)
    low = ctx.known_ints(op.operands[2], op, "edge_padding_low")
    high = ctx.known_ints(op.operands[3], op, "edge_padding_high")
    interior = ctx.known_ints(op.operands[4], op, "interior_padding")
    return [_pad(x, value, low, high, interior)]


@lowering("stablehlo.tuple", "mhlo.tuple")
def _tuple(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [ops.Tuple(ctx.builder, ctx.operands(op))]


@lowering("stablehlo.get_tuple_element", "mhlo.get_tuple_element")
def _get_tuple_element(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.GetTupleElement(x, int_attr(op, "index"))]


@lowering("stablehlo.get_dimension_size", "mhlo.get_dimension_size")
def _get_dimension_size(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    size = ops.GetDimensionSize(x, int_attr(op, "dimension"))
    target = ctx.result_shape(op).element_type
    return [size if size.shape.element_type == target else ops.ConvertElementType(size, target)]


@lowering("stablehlo.set_dimension_size", "mhlo.set_dimension_size")
def _set_dimension_size(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    x, size = ctx.operands(op)
    return [ops.SetDimensionSize(x, size, int_attr(op, "dimension"))]


# -- barriers and tokens ------------------------------------------------------------------------


@lowering("stablehlo.optimization_barrier", "mhlo.optimization_barrier")
def _optimization_barrier(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    operands = ctx.operands(op)
    if not operands:
        return []
    return results_of(ctx, ops.OptimizationBarrier(ctx.pack(operands)), op)


@lowering("stablehlo.after_all", "mhlo.after_all")
def _after_all(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    tokens = ctx.operands(op)
    return [ops.AfterAll(ctx.builder, tokens) if tokens else ops.CreateToken(ctx.builder)]


@lowering("stablehlo.create_token", "mhlo.create_token")
def _create_token(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return [ops.CreateToken(ctx.builder)]


__all__ = ["broadcast_in_dim"]
