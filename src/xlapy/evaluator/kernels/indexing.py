"""Evaluator kernels of the indexing family: gather, scatter and the dynamic slices.

Gather and scatter are computed for all index vectors at once: the dimension numbers are
turned into one integer index array per operand dimension (numpy advanced
indexing does the rest), so batching dimensions, ``index_vector_dim ==
rank`` and arbitrary offset placements all go through the same few lines.

Out-of-bounds starts follow XLA: gather clamps each start so the whole slice
fits; scatter skips every update window that does not fit entirely, even the
part of it that would land inside (operation_semantics.md words this per
element, but XLA:CPU skips whole windows, and the oracle tests pin that).
Colliding scatter updates are applied in XLA's order, scatter index major and
window index minor (the updates' row-major order when the window dimensions
are trailing, the usual case); the oracle tests check this order with a
non-commutative update computation. dynamic-slice and dynamic-update-slice
clamp their starts the same way as gather, so they never fail at run time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ..core import EvalContext, Value, c_contiguous, call_scalar, index_scalar, kernel


def _simple_update(computation: HloComputation) -> Op | None:
    """``ADD``/``MULTIPLY``/... for ``p0 op p1``, ``PARAMETER`` for ``return p1``, else None.

    Such update computations are applied with numpy's unbuffered ``ufunc.at``,
    which applies repeated indices one after another in order: exactly the
    sequential semantics, without one round per collision.
    """
    params = computation.parameters
    root = computation.root
    if len(params) != 2 or params[0].shape != params[1].shape or root.shape != params[0].shape:
        return None
    if root is params[1]:
        return Op.PARAMETER
    if root.opcode in _UFUNCS and list(root.operands) == list(params):
        return root.opcode
    return None


_UFUNCS = {Op.ADD: np.add, Op.MULTIPLY: np.multiply, Op.MAXIMUM: np.maximum, Op.MINIMUM: np.minimum}
# numpy kinds for which ufunc.at computes what the elementwise kernels compute.
_UFUNC_KINDS = {Op.ADD: "iufc", Op.MULTIPLY: "iufc", Op.MAXIMUM: "iu", Op.MINIMUM: "iu"}


def _scatter_simple(
    computation: HloComputation, flat: np.ndarray, targets: np.ndarray, update: np.ndarray
) -> bool:
    """Apply a one-operand scatter with numpy alone when the computation allows it."""
    simple = _simple_update(computation)
    dtype = flat.dtype
    if simple is None or computation.parameters[0].shape.element_type.dtype != dtype:
        return False
    update = np.asarray(update, dtype=dtype)
    if simple is Op.PARAMETER:  # the last update to each target wins
        last = np.unique(targets[::-1], return_index=True)[1]
        keep = targets.size - 1 - last
        flat[targets[keep]] = update[keep]
        return True
    if dtype.kind not in _UFUNC_KINDS[simple]:
        return False
    _UFUNCS[simple].at(flat, targets, update)
    return True


def scatter_updates(
    ctx: EvalContext,
    computation: HloComputation,
    flat_inputs: list[np.ndarray],
    targets: np.ndarray,
    flat_updates: list[np.ndarray],
) -> None:
    """Combine ``flat_updates[k][j]`` into ``flat_inputs[k][targets[j]]`` in place, in j order.

    Updates to distinct targets are independent, so they run as one batched
    call; the j-th update to a target waits for the (j-1)-th: round r applies
    every target's r-th update at once.
    """
    if targets.size == 0:
        return
    if len(flat_inputs) == 1 and _scatter_simple(
        computation, flat_inputs[0], targets, flat_updates[0]
    ):
        return
    order = np.argsort(targets, kind="stable")
    ordered = targets[order]
    count = ordered.size
    first = np.ones(count, dtype=bool)
    first[1:] = ordered[1:] != ordered[:-1]
    group_start = np.maximum.accumulate(np.where(first, np.arange(count), 0))
    rank = np.arange(count) - group_start
    for r in range(int(rank.max()) + 1):
        chosen = order[rank == r]
        where = targets[chosen]
        accumulators = [x[where] for x in flat_inputs]
        new = call_scalar(ctx, computation, accumulators + [u[chosen] for u in flat_updates])
        for x, v in zip(flat_inputs, new, strict=True):
            x[where] = v


# -- index vectors -------------------------------------------------------------------


def _as_int64(indices: np.ndarray) -> np.ndarray:
    """Indices of any integer type as int64; u64 beyond int64 saturates (it clamps anyway)."""
    if indices.dtype == np.uint64:
        return np.minimum(indices, np.uint64(2**62)).astype(np.int64)
    return indices.astype(np.int64)


def _index_vectors(indices: Value, index_vector_dim: int) -> np.ndarray:
    """The start indices with the index vector as the last axis (batch axes first)."""
    array = _as_int64(np.asarray(indices))
    if index_vector_dim == array.ndim:
        array = array[..., None]
    return np.moveaxis(array, index_vector_dim, -1)


def _batch_coordinate(batch_shape: tuple[int, ...], axis: int) -> np.ndarray:
    """Each batch position's coordinate along ``axis``, shaped to broadcast over the batch."""
    shape = [1] * len(batch_shape)
    shape[axis] = batch_shape[axis]
    return np.arange(batch_shape[axis], dtype=np.int64).reshape(shape)


def _starts(
    vectors: np.ndarray,
    index_map: Sequence[int],
    operand_batching: Sequence[int],
    indices_batching: Sequence[int],
    index_vector_dim: int,
    rank: int,
) -> list[np.ndarray]:
    """Per operand dimension, the (unclamped) start of every batch position's window."""
    batch_shape = vectors.shape[:-1]
    starts = [np.zeros(batch_shape, dtype=np.int64) for _ in range(rank)]
    for k, d in enumerate(index_map):
        starts[d] = vectors[..., k]
    for o, i in zip(operand_batching, indices_batching, strict=True):
        axis = i if i < index_vector_dim else i - 1
        starts[o] = np.broadcast_to(_batch_coordinate(batch_shape, axis), batch_shape)
    return starts


# -- gather ---------------------------------------------------------------------------


@kernel(Op.GATHER)
def _gather(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    operand = np.asarray(operands[0])
    rank = operand.ndim
    dn = instruction.gather_dimension_numbers
    index_vector_dim = dn.index_vector_dim
    slice_sizes = list(instruction.slice_sizes)
    offset_dims = list(dn.offset_dims)
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    vectors = _index_vectors(operands[1], index_vector_dim)
    batch_shape = vectors.shape[:-1]
    nb = len(batch_shape)
    starts = _starts(
        vectors,
        list(dn.start_index_map),
        list(dn.operand_batching_dims),
        list(dn.start_indices_batching_dims),
        index_vector_dim,
        rank,
    )
    result_shape = instruction.shape.dimensions
    if int(np.prod(result_shape, dtype=np.int64)) == 0 or operand.size == 0:
        return np.zeros(result_shape, dtype=operand.dtype)
    index = []
    for d in range(rank):
        start = np.clip(starts[d], 0, operand.shape[d] - slice_sizes[d])
        offset_shape = [1] * rank
        offset_shape[d] = slice_sizes[d]
        offsets = np.arange(slice_sizes[d], dtype=np.int64).reshape([1] * nb + offset_shape)
        index.append(start.reshape(batch_shape + (1,) * rank) + offsets)
    # Gathered as [batch..., slice...]; drop the size-1 collapsed/batching dimensions.
    kept = [d for d in range(rank) if d not in dropped]
    full = operand[tuple(index)].reshape(batch_shape + tuple(slice_sizes[d] for d in kept))
    batch_axes = iter(range(nb))
    perm = [
        nb + offset_dims.index(p) if p in offset_dims else next(batch_axes)
        for p in range(len(result_shape))
    ]
    return c_contiguous(np.transpose(full, perm))


# -- scatter --------------------------------------------------------------------------


@kernel(Op.SCATTER)
def _scatter(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    n = (len(operands) - 1) // 2
    inputs = [np.array(x, order="C") for x in operands[:n]]  # C-order copies: the results
    updates = [np.asarray(u) for u in operands[n + 1 :]]
    shape, rank = inputs[0].shape, inputs[0].ndim
    dn = instruction.scatter_dimension_numbers
    index_vector_dim = dn.index_vector_dim
    window_dims = list(dn.update_window_dims)
    inserted = set(dn.inserted_window_dims)
    operand_batching = list(dn.input_batching_dims)
    vectors = _index_vectors(operands[n], index_vector_dim)
    batch_shape = vectors.shape[:-1]
    nb = len(batch_shape)
    starts = _starts(
        vectors,
        list(dn.scatter_dims_to_operand_dims),
        operand_batching,
        list(dn.scatter_indices_batching_dims),
        index_vector_dim,
        rank,
    )
    # Updates as [scatter..., window...]: flattened, that is XLA's application order.
    scatter_dims = [d for d in range(updates[0].ndim) if d not in window_dims]
    perm = scatter_dims + window_dims
    window_shape = tuple(updates[0].shape[d] for d in window_dims)
    mapped = [d for d in range(rank) if d not in inserted and d not in operand_batching]
    window_size = [1] * rank
    for k, d in enumerate(mapped):
        window_size[d] = window_shape[k]
    valid = np.ones(batch_shape, dtype=bool)
    for d in range(rank):
        valid &= (starts[d] >= 0) & (starts[d] <= shape[d] - window_size[d])
    strides = np.cumprod((1,) + shape[::-1][:-1], dtype=np.int64)[::-1] if rank else ()
    nw = len(window_shape)
    target = np.zeros(batch_shape + (1,) * nw, dtype=np.int64)
    for d in range(rank):
        target = target + starts[d].reshape(batch_shape + (1,) * nw) * strides[d]
        if d in mapped:
            k = mapped.index(d)
            offset_shape = [1] * (nb + nw)
            offset_shape[nb + k] = window_shape[k]
            target = target + np.arange(window_shape[k], dtype=np.int64).reshape(
                offset_shape
            ) * int(strides[d])
    full_shape = batch_shape + window_shape
    target = np.broadcast_to(target, full_shape).reshape(-1)
    keep = np.broadcast_to(valid.reshape(batch_shape + (1,) * nw), full_shape).reshape(-1)
    flat_updates = [np.transpose(u, perm).reshape(-1)[keep] for u in updates]
    flat_inputs = [x.reshape(-1) for x in inputs]  # views into the result arrays
    scatter_updates(ctx, instruction.to_apply, flat_inputs, target[keep], flat_updates)
    return inputs[0] if not instruction.shape.is_tuple else tuple(inputs)


# -- dynamic-slice and dynamic-update-slice --------------------------------------------


def clamp_starts(starts: list[int], bounds: tuple[int, ...], sizes: tuple[int, ...]) -> list[int]:
    """Clamp so the whole window fits: the spec's rule, which never fails at run time."""
    return [min(max(s, 0), max(b - n, 0)) for s, b, n in zip(starts, bounds, sizes, strict=True)]


@kernel(Op.DYNAMIC_SLICE)
def _dynamic_slice(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    x = np.asarray(operands[0])
    sizes = tuple(int(s) for s in instruction.attributes["dynamic_slice_sizes"])
    starts = clamp_starts([index_scalar(v) for v in operands[1:]], x.shape, sizes)
    index = tuple(slice(s, s + n) for s, n in zip(starts, sizes, strict=True))
    return np.array(x[index])


@kernel(Op.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    result = np.array(operands[0])  # a copy: operands may be shared with other users
    update = np.asarray(operands[1])
    starts = clamp_starts([index_scalar(v) for v in operands[2:]], result.shape, update.shape)
    index = tuple(slice(s, s + n) for s, n in zip(starts, update.shape, strict=True))
    result[index] = update
    return result


__all__ = ["clamp_starts", "scatter_updates"]
