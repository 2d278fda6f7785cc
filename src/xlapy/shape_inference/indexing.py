"""Shape rules of the ops that read or write an array at runtime indices: dynamic-slice,
dynamic-update-slice, gather, scatter.

Gather and scatter carry many dimension numbers whose constraints interact;
each constraint of the StableHLO spec (C1..C25, also enforced by XLA's
ShapeInference) is checked on its own, with a message naming the attribute,
the offending value and what would be valid, because "invalid gather" is all
a user would otherwise learn. The dimension numbers arrive as separate
attributes, named as HLO text names them (``offset_dims``, ``slice_sizes``,
``update_window_dims``, ...); the lists that XLA's HLO printer omits when
empty (the batching dimensions) default to empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..opcode import HloOpcode as Op
from ..shape import Shape
from ._core import InferenceContext, array_shape, rule
from .reductions import check_reducer


def _check_sorted(ctx: InferenceContext, dims: Sequence[int], what: str) -> None:
    if list(dims) != sorted(dims):
        ctx.fail(f"{what} {list(dims)} must be sorted in ascending order")


def _check_unique(ctx: InferenceContext, dims: Sequence[int], what: str) -> None:
    if len(set(dims)) != len(dims):
        ctx.fail(f"{what} {list(dims)} repeats a dimension; each may appear once")


def _check_in_range(ctx: InferenceContext, dims: Sequence[int], bound: int, what: str) -> None:
    for d in dims:
        if not 0 <= d < bound:
            ctx.fail(f"{what} {list(dims)} has {d}, outside the valid range [0, {bound})")


# -- dynamic-slice, dynamic-update-slice -------------------------------------------


def _check_start_indices(ctx: InferenceContext, operands: tuple[Shape, ...], rank: int) -> None:
    """Start indices: one integer scalar per dimension, all of one type (XLA's form)."""
    if len(operands) != rank:
        ctx.fail(f"needs {rank} scalar start indices (one per dimension), got {len(operands)}")
    types = set()
    for s in operands:
        if not (s.is_array and s.is_scalar and s.element_type.is_integral):
            ctx.fail(f"start indices must be integer scalars, got {s}")
        types.add(s.element_type)
    if len(types) > 1:
        ctx.fail("start indices must all have the same integer type")


@rule(Op.DYNAMIC_SLICE)
def _dynamic_slice(ctx: InferenceContext) -> Shape:
    x = ctx.array(0)
    _check_start_indices(ctx, ctx.operands[1:], x.rank)
    sizes = ctx.int_list("dynamic_slice_sizes")
    if len(sizes) != x.rank:
        ctx.fail(f"dynamic_slice_sizes {sizes} must have {x.rank} entries")
    for d, (size, bound) in enumerate(zip(sizes, x.dimensions, strict=True)):
        if not 0 <= size <= bound:
            ctx.fail(
                f"slice size {size} in dimension {d} must be in [0, {bound}] (the operand's size)"
            )
    return array_shape(x.element_type, sizes)


@rule(Op.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(ctx: InferenceContext) -> Shape:
    x, update = ctx.array(0), ctx.array(1, "update")
    _check_start_indices(ctx, ctx.operands[2:], x.rank)
    if update.element_type != x.element_type:
        ctx.fail(
            f"update has element type {update.element_type.hlo_name}, operand has "
            f"{x.element_type.hlo_name}; they must match"
        )
    if update.rank != x.rank:
        ctx.fail(f"update has rank {update.rank}, operand has rank {x.rank}; they must match")
    for d, (u, n) in enumerate(zip(update.dimensions, x.dimensions, strict=True)):
        if u > n:
            ctx.fail(f"update size {u} exceeds the operand size {n} in dimension {d}")
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


# -- gather ------------------------------------------------------------------------


def _index_batch_dims(
    ctx: InferenceContext, indices: Shape, index_vector_dim: int, what: str
) -> tuple[list[int], list[bool], int]:
    """The batch dimensions of an index array and the length of its index vectors.

    An ``index_vector_dim`` equal to the rank means an implicit trailing
    dimension of size 1 (scalar indices).
    """
    if not indices.element_type.is_integral:
        ctx.fail(f"{what} must have an integer element type, got {indices}")
    if not 0 <= index_vector_dim <= indices.rank:
        ctx.fail(
            f"index_vector_dim={index_vector_dim} must be in [0, {indices.rank}] for {what} "
            f"of rank {indices.rank} ({indices.rank} means a trailing index vector of size 1)"
        )
    dims, dynamic = list(indices.dimensions), list(indices.dynamic_dimensions)
    if index_vector_dim == indices.rank:
        dims.append(1)
        dynamic.append(False)
    vector = dims.pop(index_vector_dim)
    dynamic.pop(index_vector_dim)
    return dims, dynamic, vector


def _check_batching_dims(
    ctx: InferenceContext,
    operand: Shape,
    indices: Shape,
    index_vector_dim: int,
    operand_dims: Sequence[int],
    operand_what: str,
    indices_dims: Sequence[int],
    indices_what: str,
) -> None:
    """Batching dimensions pair operand and index dimensions of equal size."""
    _check_sorted(ctx, operand_dims, operand_what)
    _check_in_range(ctx, operand_dims, operand.rank, operand_what)
    _check_unique(ctx, indices_dims, indices_what)
    _check_in_range(ctx, indices_dims, indices.rank, indices_what)
    if index_vector_dim in indices_dims:
        ctx.fail(
            f"{indices_what} {list(indices_dims)} contains index_vector_dim={index_vector_dim}; "
            f"the index vector dimension cannot be a batching dimension"
        )
    if len(operand_dims) != len(indices_dims):
        ctx.fail(
            f"{operand_what} {list(operand_dims)} and {indices_what} {list(indices_dims)} must "
            f"have the same length; they pair up one to one"
        )
    for o, i in zip(operand_dims, indices_dims, strict=True):
        if operand.dimensions[o] != indices.dimensions[i]:
            ctx.fail(
                f"batching dimension {o} of the operand has size {operand.dimensions[o]} but "
                f"its partner, dimension {i} of the indices, has size {indices.dimensions[i]}; "
                f"they must be equal"
            )


def _check_index_map(
    ctx: InferenceContext,
    index_map: Sequence[int],
    what: str,
    vector: int,
    operand_rank: int,
    operand_batching: Sequence[int],
    batching_what: str,
) -> None:
    if len(index_map) != vector:
        ctx.fail(
            f"{what} {list(index_map)} has {len(index_map)} entries but the index vectors "
            f"have {vector} elements; it must map each index vector element to an operand "
            f"dimension"
        )
    _check_in_range(ctx, index_map, operand_rank, what)
    _check_unique(ctx, index_map, what)
    both = sorted(set(index_map) & set(operand_batching))
    if both:
        ctx.fail(
            f"{what} {list(index_map)} and {batching_what} {list(operand_batching)} share "
            f"dimension(s) {both}; a batching dimension cannot also be indexed"
        )


@dataclass(frozen=True)
class _DimensionNumberNames:
    """How gather and scatter name the dimension numbers they have in common."""

    window: str  # operand dimensions that stay in the result (or come from the updates)
    window_kind: str
    dropped: str  # operand dimensions of size 1 that the slices leave out
    dropped_kind: str
    operand_batching: str
    indices_batching: str
    index_map: str


_GATHER_NAMES = _DimensionNumberNames(
    "offset_dims",
    "an offset dimension",
    "collapsed_slice_dims",
    "collapsed",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
)
_SCATTER_NAMES = _DimensionNumberNames(
    "update_window_dims",
    "a window dimension",
    "inserted_window_dims",
    "inserted",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims",
)


def _check_dimension_numbers(
    ctx: InferenceContext,
    names: _DimensionNumberNames,
    operand: Shape,
    indices: Shape,
    index_vector_dim: int,
    vector: int,
    *,
    window: tuple[Sequence[int], int],
    dropped: Sequence[int],
    operand_batching: Sequence[int],
    indices_batching: Sequence[int],
    index_map: Sequence[int],
) -> None:
    """The constraints gather and scatter share (StableHLO C1..C14 of each).

    ``window`` is the window (offset) dimensions with the rank they index
    into: the result's for gather, the updates' for scatter.
    """
    window_dims, window_bound = window
    accounted = len(window_dims) + len(dropped) + len(operand_batching)
    if accounted != operand.rank:
        ctx.fail(
            f"every operand dimension must be {names.window_kind}, {names.dropped_kind} or "
            f"batching: {names.window} {list(window_dims)}, {names.dropped} {list(dropped)} and "
            f"{names.operand_batching} {list(operand_batching)} account for {accounted} of "
            f"{operand.rank}"
        )
    _check_sorted(ctx, window_dims, names.window)
    _check_unique(ctx, window_dims, names.window)
    _check_in_range(ctx, window_dims, window_bound, names.window)

    _check_sorted(ctx, dropped, names.dropped)
    _check_in_range(ctx, dropped, operand.rank, names.dropped)
    _check_unique(ctx, dropped, names.dropped)
    both = sorted(set(dropped) & set(operand_batching))
    if both:
        ctx.fail(
            f"{names.dropped} {list(dropped)} and {names.operand_batching} "
            f"{list(operand_batching)} share dimension(s) {both}; a dimension is either "
            f"{names.dropped_kind} or batching"
        )
    _check_unique(ctx, operand_batching, names.operand_batching)
    _check_batching_dims(
        ctx,
        operand,
        indices,
        index_vector_dim,
        operand_batching,
        names.operand_batching,
        indices_batching,
        names.indices_batching,
    )
    _check_index_map(
        ctx,
        index_map,
        names.index_map,
        vector,
        operand.rank,
        operand_batching,
        names.operand_batching,
    )


@rule(Op.GATHER)
def _gather(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    operand = ctx.array(0, "operand")
    indices = ctx.array(1, "start indices")
    offset_dims = ctx.int_list("offset_dims", [])
    collapsed = ctx.int_list("collapsed_slice_dims", [])
    index_map = ctx.int_list("start_index_map", [])
    operand_batching = ctx.int_list("operand_batching_dims", [])
    indices_batching = ctx.int_list("start_indices_batching_dims", [])
    index_vector_dim = int(ctx.attr("index_vector_dim"))
    slice_sizes = ctx.int_list("slice_sizes")

    batch_sizes, batch_dynamic, vector = _index_batch_dims(
        ctx, indices, index_vector_dim, "the start indices"
    )
    if len(slice_sizes) != operand.rank:
        ctx.fail(
            f"slice_sizes {slice_sizes} has {len(slice_sizes)} entries but the operand has "
            f"rank {operand.rank}; give one slice size per operand dimension"
        )
    result_rank = len(offset_dims) + len(batch_sizes)
    _check_dimension_numbers(
        ctx,
        _GATHER_NAMES,
        operand,
        indices,
        index_vector_dim,
        vector,
        window=(offset_dims, result_rank),
        dropped=collapsed,
        operand_batching=operand_batching,
        indices_batching=indices_batching,
        index_map=index_map,
    )

    for d, (size, bound) in enumerate(zip(slice_sizes, operand.dimensions, strict=True)):
        if not 0 <= size <= bound:
            ctx.fail(
                f"slice_sizes[{d}]={size} must be in [0, {bound}], the operand's size in "
                f"dimension {d}"
            )
    for dims, what in (
        (collapsed, "collapsed_slice_dims"),
        (operand_batching, "operand_batching_dims"),
    ):
        for d in dims:
            if slice_sizes[d] > 1:
                ctx.fail(
                    f"dimension {d} is in {what} {list(dims)} but slice_sizes[{d}]="
                    f"{slice_sizes[d]}; only slices of size 0 or 1 can be dropped"
                )

    kept = [d for d in range(operand.rank) if d not in collapsed and d not in operand_batching]
    sizes: list[int] = []
    dynamic: list[bool] = []
    offsets = iter(kept)
    batches = iter(zip(batch_sizes, batch_dynamic, strict=True))
    for i in range(result_rank):
        if i in offset_dims:
            d = next(offsets)
            sizes.append(slice_sizes[d])
            # Gathering all of a dynamic dimension keeps it dynamic.
            dynamic.append(
                operand.dynamic_dimensions[d] and slice_sizes[d] == operand.dimensions[d]
            )
        else:
            size, dyn = next(batches)
            sizes.append(size)
            dynamic.append(dyn)
    return array_shape(operand.element_type, sizes, dynamic)


# -- scatter -----------------------------------------------------------------------


@rule(Op.SCATTER)
def _scatter(ctx: InferenceContext) -> Shape:
    count = len(ctx.operands)
    if count < 3 or count % 2 == 0:
        ctx.fail(
            f"takes N operands, the scatter indices and N updates (an odd number >= 3 of "
            f"operands), got {count}"
        )
    n = (count - 1) // 2
    inputs = [ctx.array(i, "operand") for i in range(n)]
    indices = ctx.array(n, "scatter indices")
    updates = [ctx.array(n + 1 + i, "updates") for i in range(n)]
    operand, update = inputs[0], updates[0]
    ctx.check_same_dimensions(inputs, "operand")
    ctx.check_same_dimensions(updates, "updates", plural="updates")
    for i, (x, u) in enumerate(zip(inputs, updates, strict=True)):
        if not Shape.scalar(x.element_type).compatible_ignoring_fp_precision(
            Shape.scalar(u.element_type)
        ):
            ctx.fail(
                f"updates {i} has element type {u.element_type.hlo_name} but operand {i} has "
                f"{x.element_type.hlo_name}; they must match"
            )

    window_dims = ctx.int_list("update_window_dims", [])
    inserted = ctx.int_list("inserted_window_dims", [])
    index_map = ctx.int_list("scatter_dims_to_operand_dims", [])
    operand_batching = ctx.int_list("input_batching_dims", [])
    indices_batching = ctx.int_list("scatter_indices_batching_dims", [])
    index_vector_dim = int(ctx.attr("index_vector_dim"))

    batch_sizes, _, vector = _index_batch_dims(
        ctx, indices, index_vector_dim, "the scatter indices"
    )
    _check_dimension_numbers(
        ctx,
        _SCATTER_NAMES,
        operand,
        indices,
        index_vector_dim,
        vector,
        window=(window_dims, update.rank),
        dropped=inserted,
        operand_batching=operand_batching,
        indices_batching=indices_batching,
        index_map=index_map,
    )

    expected_rank = len(window_dims) + len(batch_sizes)
    if update.rank != expected_rank:
        ctx.fail(
            f"the updates have rank {update.rank} but must have rank {expected_rank}: "
            f"{len(window_dims)} window dimensions plus the {len(batch_sizes)} batch "
            f"dimensions of the scatter indices"
        )
    kept = [d for d in range(operand.rank) if d not in inserted and d not in operand_batching]
    windows = iter(kept)
    batches = iter(batch_sizes)
    for i, size in enumerate(update.dimensions):
        if i in window_dims:
            d = next(windows)
            if size > operand.dimensions[d]:
                ctx.fail(
                    f"update window dimension {i} has size {size}, more than the "
                    f"{operand.dimensions[d]} of operand dimension {d} it maps to"
                )
        else:
            expected = next(batches)
            if size != expected:
                ctx.fail(
                    f"update scatter dimension {i} has size {size} but the matching batch "
                    f"dimension of the scatter indices has size {expected}; they must be equal"
                )

    check_reducer(
        ctx,
        ctx.computation("to_apply"),
        [Shape.scalar(x.element_type) for x in inputs],
        [u.element_type for u in updates],
    )
    results = [array_shape(x.element_type, x.dimensions, x.dynamic_dimensions) for x in inputs]
    return results[0] if n == 1 else Shape.tuple(results)
