"""Ops that make, move and reshape data: parameters, constants, broadcasts, reshapes,
slices, concatenation, padding, iota, tuples, dynamic shapes.

Signatures follow XLA's C++ free functions (xla_builder.h) with snake_case
keyword names; where C++ takes the builder first (Parameter, Constant, Iota,
ConcatInDim, Tuple), so do these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..builder import XlaBuilder, XlaOp, builder_op, primitive_type, shape_of
from ..errors import InvalidArgumentError
from ..literal import Literal
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import PaddingConfig
from ._support import (
    as_op,
    int_tuple,
)

# -- parameters and constants ----------------------------------------------------------------


@builder_op("Parameter")
def Parameter(
    builder: XlaBuilder,
    parameter_number: int,
    shape: Shape | str,
    name: str = "",
    replicated_at_leaf_buffers: Sequence[bool] | None = None,
) -> XlaOp:
    """Input ``parameter_number`` of the computation (numbers must be 0..N-1)."""
    return builder.add_parameter(parameter_number, shape, name, replicated_at_leaf_buffers)


@builder_op("ConstantLiteral")
def ConstantLiteral(builder: XlaBuilder, literal: Literal) -> XlaOp:
    """A constant holding ``literal``."""
    if not isinstance(literal, Literal):
        raise InvalidArgumentError(f"ConstantLiteral: expected a Literal, got {literal!r}")
    return builder.add_constant(literal)


@builder_op("Constant")
def Constant(builder: XlaBuilder, value: Any, element_type: PrimitiveType | None = None) -> XlaOp:
    """A constant from a Literal, a numpy array, a Python number or nested lists."""
    if element_type is not None:
        element_type = primitive_type(element_type, "Constant")
    return builder.add_constant(value, element_type)


@builder_op("ConstantR0")
def ConstantR0(builder: XlaBuilder, value: Any, element_type: PrimitiveType | None = None) -> XlaOp:
    if np.ndim(value) != 0:
        raise InvalidArgumentError(f"ConstantR0: expected a scalar, got shape {np.shape(value)}")
    return Constant(builder, value, element_type)


@builder_op("ConstantR1")
def ConstantR1(
    builder: XlaBuilder, values: Any, element_type: PrimitiveType | None = None
) -> XlaOp:
    if np.ndim(values) != 1:
        raise InvalidArgumentError(f"ConstantR1: expected a vector, got shape {np.shape(values)}")
    return Constant(builder, values, element_type)


@builder_op("ConstantR2")
def ConstantR2(
    builder: XlaBuilder, values: Any, element_type: PrimitiveType | None = None
) -> XlaOp:
    if np.ndim(values) != 2:
        raise InvalidArgumentError(f"ConstantR2: expected a matrix, got shape {np.shape(values)}")
    return Constant(builder, values, element_type)


@builder_op("Iota")
def Iota(
    builder: XlaBuilder, shape: Shape | PrimitiveType, iota_dimension: int | None = 0
) -> XlaOp:
    """Values counting up along ``iota_dimension``; ``Iota(b, F32, n)`` is a vector 0..n-1."""
    if isinstance(shape, PrimitiveType):  # the Iota(builder, type, size) overload
        shape = Shape.array(shape, [int(iota_dimension or 0)])
        iota_dimension = 0
    if isinstance(shape, str):
        shape = Shape.parse(shape)
    return builder.add_instruction(
        Op.IOTA,
        [],
        attributes={"iota_dimension": int(iota_dimension)},
        declared=shape,
        op_name="Iota",
    )


# -- broadcast and reshape ------------------------------------------------------------------


@builder_op("Broadcast")
def Broadcast(operand: XlaOp, broadcast_sizes: Sequence[int]) -> XlaOp:
    """New major dimensions of ``broadcast_sizes`` in front of the operand's."""
    shape = shape_of(operand)
    sizes = int_tuple(broadcast_sizes, "broadcast_sizes", "Broadcast")
    result = Shape.array(shape.element_type, sizes + shape.dimensions)
    dims = tuple(range(len(sizes), len(sizes) + shape.rank))
    return operand.builder.add_instruction(
        Op.BROADCAST, [operand], attributes={"dimensions": dims}, declared=result,
        op_name="Broadcast",
    )  # fmt: skip


@builder_op("BroadcastInDim")
def BroadcastInDim(
    operand: XlaOp, out_dim_size: Sequence[int], broadcast_dimensions: Sequence[int]
) -> XlaOp:
    """Broadcast to ``out_dim_size``; operand dimension i becomes broadcast_dimensions[i]."""
    shape = shape_of(operand)
    result = Shape.array(
        shape.element_type, int_tuple(out_dim_size, "out_dim_size", "BroadcastInDim")
    )
    dims = int_tuple(broadcast_dimensions, "broadcast_dimensions", "BroadcastInDim")
    return operand.builder.add_instruction(
        Op.BROADCAST, [operand], attributes={"dimensions": dims}, declared=result,
        op_name="BroadcastInDim",
    )  # fmt: skip


@builder_op("Reshape")
def Reshape(operand: XlaOp, *args: Sequence[int], **kwargs: Any) -> XlaOp:
    """``Reshape(operand, new_sizes)`` or ``Reshape(operand, dimensions, new_sizes)``.

    The three-argument form first transposes by ``dimensions`` (XLA's
    reshape with a dimension order), then reshapes row-major.
    """
    if len(args) == 2:
        dimensions, new_sizes = args
    elif len(args) == 1:
        dimensions, new_sizes = kwargs.pop("dimensions", None), args[0]
    else:
        dimensions = kwargs.pop("dimensions", None)
        new_sizes = kwargs.pop("new_sizes", None)
    if kwargs:
        raise InvalidArgumentError(f"Reshape: unexpected arguments {sorted(kwargs)}")
    if new_sizes is None:
        raise InvalidArgumentError("Reshape: new_sizes (the result dimensions) is required")
    shape = shape_of(operand)
    sizes = int_tuple(new_sizes, "new_sizes", "Reshape")
    if dimensions is not None:
        perm = int_tuple(dimensions, "dimensions", "Reshape")
        if perm != tuple(range(shape.rank)):
            operand = Transpose(operand, perm)
    result = Shape.array(shape.element_type, sizes)
    return operand.builder.add_instruction(
        Op.RESHAPE, [operand], declared=result, op_name="Reshape"
    )


@builder_op("Collapse")
def Collapse(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Merge consecutive ``dimensions`` (in order) into one."""
    shape = shape_of(operand)
    dims = int_tuple(dimensions, "dimensions", "Collapse")
    if not dims:
        return operand
    if list(dims) != list(range(dims[0], dims[0] + len(dims))) or dims[-1] >= shape.rank:
        raise InvalidArgumentError(
            f"Collapse: dimensions {list(dims)} must be consecutive and increasing within "
            f"0..{shape.rank - 1} (operand shape: {shape})"
        )
    merged = int(np.prod([shape.dimensions[d] for d in dims], dtype=np.int64))
    sizes = shape.dimensions[: dims[0]] + (merged,) + shape.dimensions[dims[-1] + 1 :]
    return Reshape(operand, sizes)


@builder_op("Transpose")
def Transpose(operand: XlaOp, permutation: Sequence[int]) -> XlaOp:
    """Result dimension i is operand dimension permutation[i]."""
    return operand.builder.add_instruction(
        Op.TRANSPOSE, [operand],
        attributes={"dimensions": int_tuple(permutation, "permutation", "Transpose")},
        op_name="Transpose",
    )  # fmt: skip


@builder_op("Rev")
def Rev(operand: XlaOp, dimensions: Sequence[int]) -> XlaOp:
    """Reverse the order of elements along ``dimensions``."""
    return operand.builder.add_instruction(
        Op.REVERSE, [operand],
        attributes={"dimensions": int_tuple(dimensions, "dimensions", "Rev")},
        op_name="Rev",
    )  # fmt: skip


# -- slicing, concatenation, padding -----------------------------------------------------------


@builder_op("Slice")
def Slice(
    operand: XlaOp,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
) -> XlaOp:
    """The box [start, limit) with ``strides`` (default 1) in every dimension."""
    starts = int_tuple(start_indices, "start_indices", "Slice")
    limits = int_tuple(limit_indices, "limit_indices", "Slice")
    steps = int_tuple(strides, "strides", "Slice") if strides is not None else (1,) * len(starts)
    if not len(starts) == len(limits) == len(steps):
        raise InvalidArgumentError(
            f"Slice: start_indices {list(starts)}, limit_indices {list(limits)} and strides "
            f"{list(steps)} must have the same length (one entry per dimension)"
        )
    return operand.builder.add_instruction(
        Op.SLICE, [operand],
        attributes={"slice": tuple(zip(starts, limits, steps, strict=True))},
        op_name="Slice",
    )  # fmt: skip


@builder_op("SliceInDim")
def SliceInDim(
    operand: XlaOp, start_index: int, limit_index: int, stride: int, dimno: int
) -> XlaOp:
    """Slice one dimension, keeping the others whole."""
    shape = shape_of(operand)
    if not 0 <= dimno < shape.rank:
        raise InvalidArgumentError(
            f"SliceInDim: dimno {dimno} is outside [0, {shape.rank}) for operand {shape}"
        )
    starts = [0] * shape.rank
    limits = list(shape.dimensions)
    strides = [1] * shape.rank
    starts[dimno], limits[dimno], strides[dimno] = start_index, limit_index, stride
    return Slice(operand, starts, limits, strides)


@builder_op("ConcatInDim")
def ConcatInDim(builder: XlaBuilder, operands: Sequence[XlaOp], dimension: int) -> XlaOp:
    """Join ``operands`` along ``dimension``."""
    return builder.add_instruction(
        Op.CONCATENATE, list(operands), attributes={"dimensions": (int(dimension),)},
        op_name="ConcatInDim",
    )  # fmt: skip


@builder_op("Pad")
def Pad(operand: XlaOp, padding_value: Any, padding_config: PaddingConfig) -> XlaOp:
    """Edge (possibly negative) and interior padding with ``padding_value``."""
    if not isinstance(padding_config, PaddingConfig):
        padding_config = PaddingConfig.from_triples(padding_config)
    value = as_op(padding_value, operand, "Pad", operand.builder)
    return operand.builder.add_instruction(
        Op.PAD, [operand, value], attributes={"padding": padding_config}, op_name="Pad"
    )


# -- tuples, barriers, tokens, dynamic shapes ------------------------------------------------


@builder_op("Tuple")
def Tuple(builder: XlaBuilder, elements: Sequence[XlaOp]) -> XlaOp:
    return builder.add_instruction(Op.TUPLE, list(elements), op_name="Tuple")


@builder_op("GetTupleElement")
def GetTupleElement(tuple_data: XlaOp, index: int) -> XlaOp:
    return tuple_data.builder.add_instruction(
        Op.GET_TUPLE_ELEMENT, [tuple_data], attributes={"index": int(index)},
        op_name="GetTupleElement",
    )  # fmt: skip


@builder_op("OptimizationBarrier")
def OptimizationBarrier(operand: XlaOp) -> XlaOp:
    """Nothing moves across it: the compiler keeps computations on either side apart."""
    return operand.builder.add_instruction(Op.OPT_BARRIER, [operand], op_name="OptimizationBarrier")


@builder_op("AfterAll")
def AfterAll(builder: XlaBuilder, tokens: Sequence[XlaOp]) -> XlaOp:
    """A token ordered after all ``tokens`` (side effects before it happen first)."""
    return builder.add_instruction(Op.AFTER_ALL, list(tokens), op_name="AfterAll")


@builder_op("CreateToken")
def CreateToken(builder: XlaBuilder) -> XlaOp:
    return builder.add_instruction(Op.AFTER_ALL, [], op_name="CreateToken")


@builder_op("GetDimensionSize")
def GetDimensionSize(operand: XlaOp, dimension: int) -> XlaOp:
    """The runtime size of ``dimension`` (its bound unless dynamic), as s32."""
    return operand.builder.add_instruction(
        Op.GET_DIMENSION_SIZE, [operand], attributes={"dimensions": (int(dimension),)},
        op_name="GetDimensionSize",
    )  # fmt: skip


@builder_op("SetDimensionSize")
def SetDimensionSize(operand: XlaOp, val: Any, dimension: int) -> XlaOp:
    """Make ``dimension`` dynamic with runtime size ``val`` (at most its bound)."""
    size = as_op(val, None, "SetDimensionSize", operand.builder)
    return operand.builder.add_instruction(
        Op.SET_DIMENSION_SIZE, [operand, size], attributes={"dimensions": (int(dimension),)},
        op_name="SetDimensionSize",
    )  # fmt: skip


@builder_op("DynamicReshape")
def DynamicReshape(
    operand: XlaOp,
    dim_sizes: Sequence[Any],
    new_size_bounds: Sequence[int],
    dims_are_dynamic: Sequence[bool],
) -> XlaOp:
    """Reshape to runtime sizes ``dim_sizes`` bounded by ``new_size_bounds``."""
    shape = shape_of(operand)
    sizes = [as_op(s, None, "DynamicReshape", operand.builder) for s in dim_sizes]
    declared = Shape.array(
        shape.element_type,
        int_tuple(new_size_bounds, "new_size_bounds", "DynamicReshape"),
        dynamic_dimensions=[bool(b) for b in dims_are_dynamic],
    )
    return operand.builder.add_instruction(
        Op.DYNAMIC_RESHAPE, [operand, *sizes], declared=declared, op_name="DynamicReshape"
    )


__all__ = [
    "AfterAll", "Broadcast", "BroadcastInDim", "Collapse", "ConcatInDim", "Constant",
    "ConstantLiteral", "ConstantR0", "ConstantR1", "ConstantR2", "CreateToken",
    "DynamicReshape", "GetDimensionSize",
    "GetTupleElement", "Iota", "OptimizationBarrier", "Pad", "Parameter", "Reshape", "Rev",
    "SetDimensionSize", "Slice", "SliceInDim", "Transpose", "Tuple",
]  # fmt: skip
