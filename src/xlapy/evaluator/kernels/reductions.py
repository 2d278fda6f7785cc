"""Evaluator kernels of the reductions family: reduce, reduce-window, select-and-scatter, sort.

Every kernel calls its computation on whole arrays (``call_scalar``, batched
when the computation is elementwise) a logarithmic number of times rather
than once per element:

* reduce and reduce-window reduce pairwise: adjacent pairs are combined in
  one batched call, halving the data each round, and the init value is
  combined once at the end. The spec lets the reduction tree be any tree, so
  float sums may differ from XLA's (sequential or vectorized) order in the
  last bits; reducers that are only associative up to ties (argmax) see
  their operands in index order, lower indices on the left. Reduce-windows
  too large to stack every window's elements (long cumulative sums) fold
  the window elements in one at a time instead, after the init value.
* sort is a bottom-up merge sort whose merges are batched binary searches
  (each element finds its place in the other run), checked against the
  sequential merge in one more call; merges where a comparator that is not a
  strict weak order (NaN under ``LT``) makes them disagree run step by step,
  so the result is always the CPU backend's permutation. A comparator that
  is a single ``compare`` of one operand's pair sorts with numpy directly.
* select-and-scatter visits window elements in order, carrying a selected
  value per window, and scatters with the scatter kernel's collision rules.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, ComparisonType, Window
from ..core import EvalContext, Value, c_contiguous, call_scalar, kernel
from .indexing import scatter_updates
from .movement import pad_array


def _owned(array: np.ndarray) -> np.ndarray:
    """A contiguous, writable array: results of batched calls may be broadcast views."""
    array = c_contiguous(array)
    return array if array.flags.writeable else array.copy()


def _pack(instruction: HloInstruction, results: list[np.ndarray]) -> Value:
    arrays = [_owned(r) for r in results]
    return tuple(arrays) if instruction.shape.is_tuple else arrays[0]


def _param_dtype(computation: HloComputation, index: int) -> np.dtype:
    return computation.parameters[index].shape.element_type.dtype


# -- reduce ---------------------------------------------------------------------------


def reduce_last_axis(
    ctx: EvalContext,
    computation: HloComputation,
    arrays: list[np.ndarray],
    inits: list[np.ndarray],
) -> list[np.ndarray]:
    """Reduce N same-shaped arrays along their last axis, pairwise; one array per result."""
    n = len(arrays)
    batch = arrays[0].shape[:-1]
    count = arrays[0].shape[-1]
    inits = [
        np.broadcast_to(np.asarray(v, dtype=_param_dtype(computation, i)), batch)
        for i, v in enumerate(inits)
    ]
    if count == 0:
        return [np.array(v) for v in inits]
    values = [np.asarray(a, dtype=_param_dtype(computation, n + i)) for i, a in enumerate(arrays)]
    if any(_param_dtype(computation, i) != v.dtype for i, v in enumerate(values)):
        # Inputs narrower than the accumulators (bf16 into f32): partial results must
        # not pass through the input parameters, so fold in order instead.
        results = inits
        for k in range(count):
            results = call_scalar(ctx, computation, results + [v[..., k] for v in values])
        return results
    while count > 1:
        half = count // 2
        left = [v[..., 0 : 2 * half : 2] for v in values]
        right = [v[..., 1 : 2 * half : 2] for v in values]
        combined = call_scalar(ctx, computation, left + right)
        if count % 2:  # the odd one out joins the next round, still last
            combined = [
                np.concatenate([c, v[..., -1:].astype(c.dtype)], axis=-1)
                for c, v in zip(combined, values, strict=True)
            ]
        values, count = combined, half + count % 2
    return call_scalar(ctx, computation, inits + [v[..., 0] for v in values])


def _split(operands: list[Value]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    n = len(operands) // 2
    return [np.asarray(o) for o in operands[:n]], [np.asarray(o) for o in operands[n:]]


@kernel(Op.REDUCE)
def _reduce(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    inputs, inits = _split(operands)
    dims = [int(d) for d in instruction.attributes.get("dimensions", ())]
    shape = inputs[0].shape
    kept = [d for d in range(len(shape)) if d not in dims]
    kept_shape = tuple(shape[d] for d in kept)
    count = int(np.prod([shape[d] for d in dims], dtype=np.int64))
    moved = [np.transpose(x, kept + dims).reshape(kept_shape + (count,)) for x in inputs]
    return _pack(instruction, reduce_last_axis(ctx, instruction.to_apply, moved, inits))


# -- windows --------------------------------------------------------------------------


def _window_views(padded: np.ndarray, window: Window, out_shape: Sequence[int]) -> list[np.ndarray]:
    """For each window element (row-major over the window), its value at every output position."""
    views = []
    for offsets in itertools.product(*(range(wd.size) for wd in window.dimensions)):
        index = []
        for k, wd, out in zip(offsets, window.dimensions, out_shape, strict=True):
            start = k * wd.window_dilation
            index.append(
                slice(start, start + (out - 1) * wd.stride + 1 if out else start, wd.stride)
            )
        views.append(padded[tuple(index)])
    return views


def _padding(window: Window) -> list[tuple[int, int, int]]:
    """Base dilation is interior padding; both are filled like the edges."""
    return [(wd.padding_low, wd.padding_high, wd.base_dilation - 1) for wd in window.dimensions]


def _result_dims(instruction: HloInstruction) -> tuple[int, ...]:
    shape = instruction.shape
    return (shape.tuple_shapes[0] if shape.is_tuple else shape).dimensions


# Above this many (window element, output) pairs, reduce-window accumulates window
# elements one by one instead of stacking them all for the pairwise tree (a cumulative
# sum over n elements, as JAX emits it, has n^2 pairs).
_STACK_LIMIT = 1 << 22


@kernel(Op.REDUCE_WINDOW)
def _reduce_window(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Pad (and dilate) with the init values, then reduce every window's elements.

    Padding holds the init value, as the spec says; window reversal only
    changes the order the elements are visited in, which a reduction may
    choose anyway.
    """
    inputs, inits = _split(operands)
    computation = instruction.to_apply
    window = instruction.attributes["window"]
    out_shape = _result_dims(instruction)
    if inputs[0].ndim == 0:  # a rank-0 window holds the one element
        stacked = [x.reshape(1) for x in inputs]
        return _pack(instruction, reduce_last_axis(ctx, computation, stacked, inits))
    views = []
    for i, (x, init) in enumerate(zip(inputs, inits, strict=True)):
        accumulator = _param_dtype(computation, i)
        padded = pad_array(x.astype(accumulator), init.astype(accumulator), _padding(window))
        views.append(_window_views(padded, window, out_shape))
    pairs = len(views[0]) * int(np.prod(out_shape, dtype=np.int64))
    if pairs <= _STACK_LIMIT:
        stacked = [np.stack(v, axis=-1) for v in views]
        return _pack(instruction, reduce_last_axis(ctx, computation, stacked, inits))
    results = [
        np.broadcast_to(np.asarray(v, dtype=_param_dtype(computation, i)), out_shape)
        for i, v in enumerate(inits)
    ]
    for element in zip(*views, strict=True):
        results = call_scalar(ctx, computation, results + list(element))
    return _pack(instruction, results)


@kernel(Op.SELECT_AND_SCATTER)
def _select_and_scatter(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """Select one element per window, then scatter the source values onto the selections.

    Window elements are offered in row-major order: the first one inside the
    operand is selected, and a later one replaces it when ``select(selected,
    candidate)`` is false (XLA's rule). Padding is never selected, so a
    window entirely in the padding scatters nothing.
    """
    operand, source, init = (np.asarray(o) for o in operands)
    window = instruction.attributes["window"]
    select = instruction.attributes["select"]
    triples = _padding(window)
    out_shape = source.shape
    values = _window_views(
        pad_array(operand, np.zeros((), operand.dtype), triples), window, out_shape
    )
    positions = np.arange(operand.size, dtype=np.int64).reshape(operand.shape)
    positions = _window_views(pad_array(positions, np.int64(-1), triples), window, out_shape)
    selected = np.zeros(out_shape, dtype=operand.dtype)
    where = np.full(out_shape, -1, dtype=np.int64)
    for value, position in zip(values, positions, strict=True):
        inside = position >= 0
        have = where >= 0
        take = inside & ~have
        if have.any():
            keep = call_scalar(ctx, select, [selected, value])[0].astype(bool)
            take |= inside & have & ~keep
        selected = np.where(take, value, selected)
        where = np.where(take, position, where)
    result = np.full(operand.shape, init, dtype=operand.dtype)
    chosen = where >= 0
    scatter_updates(
        ctx,
        instruction.attributes["scatter"],
        [result.reshape(-1)],
        where[chosen],
        [source[chosen]],
    )
    return result


# -- sort and top-k -------------------------------------------------------------------


def _order_key(array: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    """An array whose ascending numpy order is XLA's total order of ``array``.

    Floats go through their bits (sign-magnitude made monotonic), which orders
    -NaN < -inf < ... < -0 < +0 < ... < inf < NaN as TOTALORDER compare does.
    """
    if element_type.is_float:
        if array.dtype not in (np.float32, np.float64):
            array = array.astype(np.float32)  # exact for every narrower float
        unsigned = np.uint32 if array.dtype == np.float32 else np.uint64
        bits = array.view(unsigned)
        sign = unsigned(1) << unsigned(8 * array.itemsize - 1)
        return np.where(bits & sign, ~bits, bits | sign)
    if element_type.is_pred or element_type.is_unsigned_integral:
        return array.astype(np.uint64)
    return array.astype(np.int64)


def _stable_order(key: np.ndarray, descending: bool) -> np.ndarray:
    """Stable argsort along the last axis, either way (ties keep their index order)."""
    if not descending:
        return np.argsort(key, axis=-1, kind="stable")
    n = key.shape[-1]
    return n - 1 - np.argsort(key[..., ::-1], axis=-1, kind="stable")[..., ::-1]


def _simple_comparator(
    computation: HloComputation, element_types: Sequence[PrimitiveType]
) -> tuple[int, bool] | None:
    """(key operand, descending) when the comparator is one LT/GT compare of a pair.

    Only when numpy's order is the comparator's: integers, and floats under
    TOTALORDER (a FLOAT compare leaves NaN unordered, so it takes the general
    path, which does whatever the comparator says).
    """
    root = computation.root
    if root.opcode is not Op.COMPARE or len(root.operands) != 2:
        return None
    a, b = root.operands
    if a.opcode is not Op.PARAMETER or b.opcode is not Op.PARAMETER:
        return None
    i, j = a.parameter_number, b.parameter_number
    if i // 2 != j // 2 or i == j:
        return None
    direction = root.attributes.get("direction")
    if direction not in (ComparisonDirection.LT, ComparisonDirection.GT):
        return None
    key = i // 2
    element_type = element_types[key]
    if computation.parameters[i].shape.element_type != element_type:
        return None
    kind = root.attributes.get("type") or ComparisonType.default_for(element_type)
    if element_type.is_complex or (element_type.is_float and kind is not ComparisonType.TOTALORDER):
        return None
    if element_type.is_f8 and "FNUZ" in element_type.name:
        return None  # no negative zero: TOTALORDER is not the sign-magnitude order
    descending = direction is ComparisonDirection.GT
    if i > j:  # compare(rhs, lhs): the converse order
        descending = not descending
    return key, descending


class _Runs:
    """Where each position of a row sits in one merge pass of width ``width``.

    Pass positions ``[block, block + width)`` (the left run) merge with
    ``[block + width, block + 2 * width)`` (the right run), both cut at ``n``.
    An element lands at ``own_offset`` plus the number of elements of the other
    run that go before it.
    """

    def __init__(self, n: int, width: int) -> None:
        self.n, self.width = n, width
        self.pos = np.arange(n, dtype=np.int64)
        block = self.pos // (2 * width) * (2 * width)
        self.in_left = self.pos - block < width
        self.index = self.pos - np.where(self.in_left, block, block + width)  # within its run
        self.other_start = np.where(self.in_left, block + width, block)
        self.other_len = np.clip(np.where(self.in_left, n - block - width, n - block), 0, width)
        self.own_offset = block + self.index

    def pairs(self, other_index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(right, left) positions: each element against the other run's element
        ``other_index`` (clamped into the row)."""
        other = np.minimum(self.other_start + other_index, self.n - 1)
        return np.where(self.in_left, other, self.pos), np.where(self.in_left, self.pos, other)


def _right_first(
    ctx: EvalContext,
    comparator: HloComputation,
    values: list[np.ndarray],
    right: np.ndarray,
    left: np.ndarray,
) -> np.ndarray:
    """Whether the comparator puts the element at ``right`` strictly before the one at
    ``left`` (positions along the last axis of ``values``), in one batched call."""
    args = []
    for v in values:
        args += [np.take_along_axis(v, right, axis=-1), np.take_along_axis(v, left, axis=-1)]
    return call_scalar(ctx, comparator, args)[0].astype(bool)


def _searched_counts(
    ctx: EvalContext, comparator: HloComputation, values: list[np.ndarray], runs: _Runs
) -> np.ndarray:
    """For every element, how many of the other run's go before it, by binary search.

    Left elements count the right ones that compare strictly less; right elements
    count the left ones that do not compare greater, so ties keep left before right.
    """
    m = values[0].shape[0]
    lo = np.zeros((m, runs.n), dtype=np.int64)
    hi = np.broadcast_to(runs.other_len, (m, runs.n)).copy()
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        right_first = _right_first(ctx, comparator, values, *runs.pairs(mid))
        before = np.where(runs.in_left, right_first, ~right_first)  # the other goes first
        lo = np.where(active & before, mid + 1, lo)
        hi = np.where(active & ~before, mid, hi)


def _rows_merged_sequentially(
    ctx: EvalContext,
    comparator: HloComputation,
    values: list[np.ndarray],
    runs: _Runs,
    counts: np.ndarray,
) -> np.ndarray:
    """Per row: whether ``counts`` describe exactly the sequential merge.

    They must make a merge path (new positions a permutation, rising along each
    run), and at every element's step where both runs still have elements, the
    comparator must choose that element's run: right first for a right element,
    not for a left one. The sequential merge follows the same rule from the same
    start, so by induction it takes this path.
    """
    n = runs.n
    new_pos = runs.own_offset + counts
    permutation = (np.sort(new_pos, axis=-1) == runs.pos).all(axis=-1)
    same_run = runs.index[1:] == runs.index[:-1] + 1
    rising = (np.diff(counts, axis=-1)[:, same_run] >= 0).all(axis=-1)
    both_left = counts < runs.other_len
    right_first = _right_first(ctx, comparator, values, *runs.pairs(np.minimum(counts, n - 1)))
    chosen = ~both_left | (right_first != runs.in_left)
    return permutation & rising & chosen.all(axis=-1)


def _stepped_merge(
    ctx: EvalContext,
    comparator: HloComputation,
    values: list[np.ndarray],
    perm: np.ndarray,
    runs: _Runs,
) -> np.ndarray:
    """The sequential merge of one pass, one step of every merge per batched call.

    For comparators that are not strict weak orders, where the binary searches
    can disagree with it (up to ``2 * width`` calls, while both runs have heads).
    """
    m, n = perm.shape
    starts = np.arange(0, n, 2 * runs.width, dtype=np.int64)
    mid = np.minimum(starts + runs.width, n)
    hi = np.minimum(starts + 2 * runs.width, n)
    i = np.broadcast_to(starts, (m, starts.size)).copy()  # left run heads
    j = np.broadcast_to(mid, (m, starts.size)).copy()  # right run heads
    k = i.copy()  # next output position
    out = np.empty_like(perm)
    while True:
        row, merge = np.nonzero((i < mid) & (j < hi))
        if row.size == 0:
            break
        left, right = i[row, merge], j[row, merge]
        args = []
        for v in values:
            args += [v[row, right], v[row, left]]
        take_right = call_scalar(ctx, comparator, args)[0].astype(bool)
        out[row, k[row, merge]] = perm[row, np.where(take_right, right, left)]
        i[row, merge] += ~take_right
        j[row, merge] += take_right
        k[row, merge] += 1
    # One run of each merge is used up: the other's rest follows in order.
    merge_of = runs.pos // (2 * runs.width)
    head = np.where(runs.in_left, i[:, merge_of], j[:, merge_of])
    row, position = np.nonzero(runs.pos >= head)
    out[row, (k[:, merge_of] + runs.pos - head)[row, position]] = perm[row, position]
    return out


def _merge_sort(ctx: EvalContext, comparator: HloComputation, rows: list[np.ndarray]) -> np.ndarray:
    """A stable permutation of each row (axis -1), calling the comparator in batches.

    The result is defined as the CPU backend's (``emit_sort``): merge passes of
    width 1, 2, 4, ..., where a merge takes the right run's head first only if
    the comparator says it is strictly less than the left run's head. For a
    strict weak order that is the stable sort; for any other comparator (NaN
    keys under a FLOAT ``LT``) it is still a permutation of the row, the same
    for every operand and on both backends.

    A pass merges every run pair at once by binary searches
    (:func:`_searched_counts`), which agree with the sequential merge wherever
    the comparator is consistent; one more batched call checks that
    (:func:`_rows_merged_sequentially`), and the rows where it fails merge step
    by step (:func:`_stepped_merge`).
    """
    m, n = rows[0].shape
    perm = np.broadcast_to(np.arange(n, dtype=np.int64), (m, n)).copy()
    width = 1
    while width < n:
        values = [np.take_along_axis(r, perm, axis=-1) for r in rows]
        runs = _Runs(n, width)
        counts = _searched_counts(ctx, comparator, values, runs)
        good = _rows_merged_sequentially(ctx, comparator, values, runs, counts)
        merged = np.empty_like(perm)
        if good.any():
            placed = np.empty_like(perm[good])
            np.put_along_axis(placed, (runs.own_offset + counts)[good], perm[good], axis=-1)
            merged[good] = placed
        if not good.all():
            bad = ~good
            merged[bad] = _stepped_merge(ctx, comparator, [v[bad] for v in values], perm[bad], runs)
        perm = merged
        width *= 2
    return perm


@kernel(Op.SORT)
def _sort(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Sort every operand by the comparator along one dimension; always stable."""
    arrays = [np.asarray(o) for o in operands]
    (dim,) = instruction.attributes["dimensions"]
    moved = [np.moveaxis(a, dim, -1) for a in arrays]
    batch, n = moved[0].shape[:-1], moved[0].shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    rows = [a.reshape(count, n) for a in moved]
    comparator = instruction.to_apply
    types = [op.shape.element_type for op in instruction.operands]
    if rows[0].size == 0 or n <= 1:
        perm = np.broadcast_to(np.arange(n, dtype=np.int64), rows[0].shape)
    elif (simple := _simple_comparator(comparator, types)) is not None:
        key, descending = simple
        perm = _stable_order(_order_key(rows[key], types[key]), descending)
    else:
        perm = _merge_sort(ctx, comparator, rows)
    results = [
        np.moveaxis(np.take_along_axis(r, perm, axis=-1).reshape(batch + (n,)), -1, dim)
        for r in rows
    ]
    return _pack(instruction, results)


@kernel(Op.TOPK)
def _topk(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The k largest (or smallest) along the last axis; ties go to the lower index.

    Floats are ordered by TOTALORDER, so NaN counts as the largest value (and
    -NaN the smallest), and +0 above -0.
    """
    x = np.asarray(operands[0])
    k = int(instruction.attributes["k"])
    largest = bool(instruction.attributes.get("largest", True))
    element_type = instruction.operands[0].shape.element_type
    order = _stable_order(_order_key(x, element_type), descending=largest)[..., :k]
    values = np.take_along_axis(x, order, axis=-1)
    return (c_contiguous(values), order.astype(np.int32))


__all__ = ["reduce_last_axis"]
