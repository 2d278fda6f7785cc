"""Ops that read or write an operand at runtime indices: Gather, Scatter,
DynamicSlice and DynamicUpdateSlice (the ``indexing`` family of ``xlapy.opcode``).

Signatures follow XLA's C++ free functions (xla_builder.h) with snake_case
keyword names. Indices may be ops or, for Gather and Scatter, numpy arrays and
nested lists (made constants); the dimension numbers become HLO's separate
attributes through :func:`xlapy.hlo.typed_attributes.to_attributes`, so the
builder writes exactly what ``instruction.gather_dimension_numbers`` reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..builder import XlaBuilder, XlaOp, builder_op, shape_of
from ..hlo.typed_attributes import to_attributes
from ..opcode import HloOpcode as Op
from ..types import PrimitiveType
from ..xla_data import GatherDimensionNumbers, ScatterDimensionNumbers
from ._support import (
    Computation,
    array_ops,
    as_op,
    fail,
    index_list,
    int_tuple,
    scalar_parameter,
    set_flags,
)
from .elementwise import ConvertElementType
from .movement import Reshape, Slice

# -- dynamic slices ----------------------------------------------------------------------------


@builder_op("DynamicSlice")
def DynamicSlice(operand: XlaOp, start_indices: Sequence[Any], slice_sizes: Sequence[int]) -> XlaOp:
    """A box of ``slice_sizes`` at runtime ``start_indices`` (clamped into bounds)."""
    starts = _start_index_ops(operand, start_indices, "DynamicSlice")
    return operand.builder.add_instruction(
        Op.DYNAMIC_SLICE, [operand, *starts],
        attributes={"dynamic_slice_sizes": int_tuple(slice_sizes, "slice_sizes", "DynamicSlice")},
        op_name="DynamicSlice",
    )  # fmt: skip


@builder_op("DynamicUpdateSlice")
def DynamicUpdateSlice(operand: XlaOp, update: XlaOp, start_indices: Sequence[Any]) -> XlaOp:
    """``operand`` with ``update`` written at runtime ``start_indices`` (clamped)."""
    starts = _start_index_ops(operand, start_indices, "DynamicUpdateSlice")
    return operand.builder.add_instruction(
        Op.DYNAMIC_UPDATE_SLICE, [operand, update, *starts], op_name="DynamicUpdateSlice"
    )


def _start_index_ops(operand: XlaOp, start_indices: Any, op_name: str) -> list[XlaOp]:
    """Start indices as scalar ops: a list of scalars, or one vector op (XLA's old form)."""
    builder = operand.builder
    if isinstance(start_indices, XlaOp):
        vector = shape_of(start_indices)
        if vector.rank == 0:
            return [start_indices]
        return [
            Reshape(Slice(start_indices, [i], [i + 1]), []) for i in range(vector.dimensions[0])
        ]
    ops = [as_op(s, None, op_name, builder) for s in start_indices]
    types = {shape_of(o).element_type for o in ops}
    if len(types) > 1:  # Python ints become s32; widen to the ops' common type
        target = next((t for t in types if t != PrimitiveType.S32), PrimitiveType.S32)
        ops = [
            o if shape_of(o).element_type == target else ConvertElementType(o, target) for o in ops
        ]
    return ops


# -- Gather, Scatter -------------------------------------------------------------------------


def _index_op(indices: Any, like_builder: XlaBuilder, op_name: str) -> XlaOp:
    """Start or scatter indices; a numpy array or nested list becomes a constant."""
    return as_op(indices, None, op_name, like_builder)


@builder_op("Gather")
def Gather(
    input: XlaOp,  # noqa: A002  (XLA's name)
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> XlaOp:
    """Stitch together slices of ``input`` at ``start_indices`` (spec: Gather).

    The dimension numbers become HLO's separate attributes (offset_dims,
    collapsed_slice_dims, start_index_map, the batching dimensions when there
    are any, and index_vector_dim).
    """
    (operand,) = array_ops(input, "input", "Gather")
    indices = _index_op(start_indices, operand.builder, "Gather")
    operands = [operand, indices]
    if not isinstance(dimension_numbers, GatherDimensionNumbers):
        fail(
            "Gather",
            f"dimension_numbers must be a GatherDimensionNumbers, got "
            f"{type(dimension_numbers).__name__}",
            operands,
        )
    attributes = to_attributes(dimension_numbers)
    attributes["slice_sizes"] = index_list(slice_sizes, "slice_sizes", "Gather", operands)
    set_flags(attributes, indices_are_sorted=indices_are_sorted)
    return operand.builder.add_instruction(
        Op.GATHER, operands, attributes=attributes, op_name="Gather"
    )


@builder_op("Scatter")
def Scatter(
    input: XlaOp | Sequence[XlaOp],  # noqa: A002  (XLA's name)
    scatter_indices: Any,
    updates: XlaOp | Sequence[XlaOp],
    update_computation: Computation,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Combine ``updates`` into slices of ``input`` at ``scatter_indices`` (spec: Scatter).

    ``update_computation`` takes (current, update) scalars (N of each for N
    inputs) and returns the new value(s). One input gives an array; lists of
    N inputs and N updates (C++'s variadic overload) give a tuple.
    """
    inputs = array_ops(input, "input", "Scatter")
    builder = inputs[0].builder
    update_ops = array_ops(updates, "updates", "Scatter")
    indices = _index_op(scatter_indices, builder, "Scatter")
    operands = [*inputs, indices, *update_ops]
    if len(inputs) != len(update_ops):
        fail(
            "Scatter",
            f"got {len(inputs)} input(s) but {len(update_ops)} updates; give one updates "
            f"array per input",
            operands,
        )
    if not isinstance(dimension_numbers, ScatterDimensionNumbers):
        fail(
            "Scatter",
            f"dimension_numbers must be a ScatterDimensionNumbers, got "
            f"{type(dimension_numbers).__name__}",
            operands,
        )
    attributes = to_attributes(dimension_numbers)
    set_flags(attributes, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    to_apply = builder.computation_arg(
        update_computation,
        [scalar_parameter(x) for x in inputs] + [scalar_parameter(u) for u in update_ops],
        "Scatter",
        "update_computation",
    )
    return builder.add_instruction(
        Op.SCATTER,
        operands,
        attributes=attributes,
        computations={"to_apply": to_apply},
        op_name="Scatter",
    )


__all__ = ["DynamicSlice", "DynamicUpdateSlice", "Gather", "Scatter"]
