"""``GatherExpander``: a gather the backend has no kernel for, as a loop over its
start indices (as XLA's GatherExpander does).

Why: a gather is, index after index, a dynamic slice of the operand: the start
index vector placed by ``start_index_map`` (other dimensions start at 0),
clamped so the slice fits (dynamic-slice clamps the same way), the collapsed
dimensions dropped. A while loop writes slice ``i`` into row ``i`` of a
``[N, window...]`` buffer; a reshape and a transpose then put the batch and
offset dimensions where the gather's result has them. Gathers with batching
dimensions are left to the backend's kernels. The loop is built with the builder
and spliced in place of the gather.
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...hlo.instruction import HloInstruction
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
S64 = PrimitiveType.S64


def parameter(builder: XlaBuilder, number: int, value: HloInstruction, name: str) -> XlaOp:
    """A parameter of ``value``'s element type and dimensions (default layout)."""
    shape = Shape.array(value.shape.element_type, value.shape.dimensions)
    return ops.Parameter(builder, number, shape, name)


def index_rows(indices: XlaOp, vector_dim: int) -> tuple[XlaOp, int, int]:
    """``indices`` as [N, K] (the index vector last, one row per start index), with N and K."""
    dims = list(indices.shape.dimensions)
    if vector_dim == len(dims):  # an implicit index vector of one
        dims.append(1)
        indices = ops.Reshape(indices, dims)
    perm = [d for d in range(len(dims)) if d != vector_dim] + [vector_dim]
    k = dims[vector_dim]
    n = math.prod(dims[d] for d in perm[:-1])
    return ops.Reshape(ops.Transpose(indices, perm), [n, k]), n, k


def expansion(gather: HloInstruction) -> XlaComputation | None:
    operand, indices = gather.operands
    numbers = gather.gather_dimension_numbers
    if numbers.operand_batching_dims or numbers.start_indices_batching_dims:
        return None
    offset_dims = list(numbers.offset_dims)
    collapsed = list(numbers.collapsed_slice_dims)
    sizes = list(gather.slice_sizes)
    et = operand.shape.element_type
    dims = list(operand.shape.dimensions)
    out = list(gather.shape.dimensions)
    b = XlaBuilder(f"{gather.name}_expanded")
    table = parameter(b, 0, operand, "operand")
    starts_param = parameter(b, 1, indices, "indices")
    if math.prod(out) == 0:
        return b.build(ops.Broadcast(ops.ConstantLiteral(b, Literal.scalar(0, et)), out))
    rows, n_total, k = index_rows(starts_param, numbers.index_vector_dim)
    batch = [n for d, n in enumerate(indices.shape.dimensions) if d != numbers.index_vector_dim]
    window = [sizes[d] for d in range(len(dims)) if d not in collapsed]
    acc = [n_total, *window]
    empty = ops.Broadcast(ops.ConstantLiteral(b, Literal.scalar(0, et)), acc)
    init = ops.Tuple(b, [ops.ConstantR0(b, 0, S64), rows, empty, table])
    unsigned = indices.shape.element_type.is_unsigned_integral

    def cond(state: XlaOp) -> XlaOp:
        i = ops.GetTupleElement(state, 0)
        return ops.Lt(i, ops.ConstantR0(state.builder, n_total, S64))

    def body(state: XlaOp) -> XlaOp:
        sb = state.builder
        i, rows, written, table = (ops.GetTupleElement(state, j) for j in range(4))
        zero = ops.ConstantR0(sb, 0, S64)
        row = ops.DynamicSlice(rows, [i, zero], [1, k])
        starts = [zero] * len(dims)
        for j, d in enumerate(numbers.start_index_map):
            value = ops.Reshape(ops.Slice(row, [0, j], [1, j + 1], [1, 1]), [])
            if unsigned:  # clamp while still unsigned: a huge index must not wrap negative
                most = ops.ConstantR0(sb, dims[d], indices.shape.element_type)
                value = ops.Min(value, most)
            starts[d] = ops.ConvertElementType(value, S64)
        piece = ops.Reshape(ops.DynamicSlice(table, starts, sizes), [1, *window])
        written = ops.DynamicUpdateSlice(written, piece, [i, *[zero] * len(window)])
        return ops.Tuple(sb, [ops.Add(i, ops.ConstantR0(sb, 1, S64)), rows, written, table])

    loop = ops.While(cond, body, init)
    spread = ops.Reshape(ops.GetTupleElement(loop, 2), [*batch, *window])
    # Result dimension p: offset dims take the window in order, the others the batch.
    order, b_next, w_next = [], 0, len(batch)
    for p in range(len(out)):
        if p in offset_dims:
            order.append(w_next)
            w_next += 1
        else:
            order.append(b_next)
            b_next += 1
    return b.build(ops.Transpose(spread, order))


def expand_gather(gather: HloInstruction) -> HloInstruction | None:
    built = expansion(gather)
    return None if built is None else splice_computation(gather, built)


class GatherExpander(ExpanderPass):
    """Expands the gathers ``keep`` does not keep (the backend's fast kernel's)."""

    name = "gather-expander"
    opcodes = frozenset({Op.GATHER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_gather(instruction)
