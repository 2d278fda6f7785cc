"""``ScatterExpander``: a scatter the backend has no kernel for, as a loop over its
scatter indices (as XLA's ScatterExpander does).

Why: a scatter applies, index after index in the spec's order, the update
computation to a window of the operand and that index's window of updates.
Written as a while loop whose body dynamic-slices the window, combines it with
the updates through ``map`` of the update computation (inlined into elementwise
ops later) and dynamic-update-slices it back, it runs natively and in the same
order as the interpreter, so repeated indices give its result. A window that
does not fit the operand is skipped whole: the body writes back what it read
(dynamic slices clamp the same way on both sides), so such an index changes
nothing, as the spec says.

The indices are first arranged as ``[N, K]`` (index vector last) and the updates
as ``[N, window...]`` (scatter dimensions first, flattened). Scatters with
several operands or batching dimensions are left to the backend's kernels. The loop
is built with the builder and spliced in place of the scatter.
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...types import PrimitiveType
from ..rewrite import ExpanderPass, as_xla_computation, splice_computation
from .indexing_gather import index_rows, parameter

Op = HloOpcode
S64 = PrimitiveType.S64


def expansion(scatter: HloInstruction) -> XlaComputation | None:
    if scatter.operand_count != 3 or not scatter.shape.is_array:
        return None
    operand, indices, updates = scatter.operands
    numbers = scatter.scatter_dimension_numbers
    if numbers.input_batching_dims or numbers.scatter_indices_batching_dims:
        return None
    window_dims = list(numbers.update_window_dims)
    to_operand = list(numbers.scatter_dims_to_operand_dims)
    ivd = numbers.index_vector_dim
    dims = list(operand.shape.dimensions)
    rank = len(dims)
    idx_dims = list(indices.shape.dimensions)
    if ivd == len(idx_dims):
        idx_dims = [*idx_dims, 1]
    k = idx_dims[ivd]
    n_total = math.prod(n for d, n in enumerate(idx_dims) if d != ivd)
    upd_dims = list(updates.shape.dimensions)
    scatter_dims = [d for d in range(len(upd_dims)) if d not in window_dims]
    window = [upd_dims[d] for d in window_dims]
    mapped = [d for d in range(rank) if d not in numbers.inserted_window_dims]
    if len(mapped) != len(window) or k != len(to_operand):
        return None
    full_window = [1] * rank
    for j, d in enumerate(mapped):
        full_window[d] = window[j]
    b = XlaBuilder(f"{scatter.name}_expanded")
    x = parameter(b, 0, operand, "operand")
    starts_param = parameter(b, 1, indices, "indices")
    ups = parameter(b, 2, updates, "updates")
    if n_total == 0 or any(w > n for w, n in zip(full_window, dims, strict=True)):
        # No index, or no window fits the operand (every index skipped): the operand.
        return b.build(ops.Copy(x))
    rows, _, _ = index_rows(starts_param, ivd)
    uperm = scatter_dims + window_dims
    ups = ops.Reshape(ops.Transpose(ups, uperm), [n_total, *window])
    combine = as_xla_computation(scatter.to_apply)

    def cond(state: XlaOp) -> XlaOp:
        return ops.Lt(ops.GetTupleElement(state, 0), ops.ConstantR0(state.builder, n_total, S64))

    def body(state: XlaOp) -> XlaOp:
        sb = state.builder
        i, x, rows, ups = (ops.GetTupleElement(state, j) for j in range(4))
        zero = ops.ConstantR0(sb, 0, S64)
        row = ops.DynamicSlice(rows, [i, zero], [1, k])
        starts = [zero] * rank
        fits = None
        for j, d in enumerate(to_operand):
            start = ops.ConvertElementType(
                ops.Reshape(ops.Slice(row, [0, j], [1, j + 1], [1, 1]), []), S64
            )
            limit = ops.ConstantR0(sb, dims[d] - full_window[d], S64)
            ok = ops.And(ops.Ge(start, zero), ops.Le(start, limit))
            fits = ok if fits is None else ops.And(fits, ok)
            starts[d] = start
        if fits is None:  # no index components: the one window at the origin fits
            fits = ops.ConstantR0(sb, True, PrimitiveType.PRED)
        current = ops.DynamicSlice(x, starts, full_window)
        piece = ops.DynamicSlice(ups, [i, *[zero] * len(window)], [1, *window])
        update = ops.Reshape(piece, full_window)
        combined = ops.Map(sb, [current, update], combine, list(range(rank)))
        chosen = ops.Select(ops.Broadcast(fits, full_window), combined, current)
        written = ops.DynamicUpdateSlice(x, chosen, starts)
        return ops.Tuple(sb, [ops.Add(i, ops.ConstantR0(sb, 1, S64)), written, rows, ups])

    init = ops.Tuple(b, [ops.ConstantR0(b, 0, S64), x, rows, ups])
    return b.build(ops.GetTupleElement(ops.While(cond, body, init), 1))


def expand_scatter(scatter: HloInstruction) -> HloInstruction | None:
    built = expansion(scatter)
    return None if built is None else splice_computation(scatter, built)


class ScatterExpander(ExpanderPass):
    """Expands the scatters ``keep`` does not keep (the backend's fast kernel's)."""

    name = "scatter-expander"
    opcodes = frozenset({Op.SCATTER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_scatter(instruction)
