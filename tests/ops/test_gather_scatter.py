"""Gather and Scatter as builder ops.

The spec's gather examples (batched dynamic slices, multi-dimensional batches,
tf.gather_nd), index vectors in every position, batching dimensions, and the
scatter counterparts (scatter-add with repeated indices, overwrite, window
updates, variadic scatter), each checked for the inferred shape, the text
round trip through xlapy's HLO parser and the real XLA's results against
numpy; then invalid calls, reported at build() or at the call.
"""

from collections.abc import Callable

import numpy as np
import pytest

import xlapy
from xlapy import computations as C
from xlapy import ops
from xlapy.builder import XlaBuilder, XlaOp
from xlapy.errors import InvalidArgumentError
from xlapy.ops import indexing as R
from xlapy.testing.builders import built, run, shape_is
from xlapy.xla_data import GatherDimensionNumbers as GDN
from xlapy.xla_data import ScatterDimensionNumbers as SDN

S = xlapy.Shape.parse
F32, S32 = xlapy.F32, xlapy.S32


def params(*shapes: str) -> Callable[[XlaBuilder], tuple]:
    return lambda b: tuple(ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes))


def check_invalid(
    make: Callable[[XlaBuilder], tuple], call: Callable[..., XlaOp], *fragments: str
) -> None:
    """``call(b, *make(b))`` is invalid: recorded for build(), or raised at once.

    ``call`` is a lambda written on the line of the op call the message must name.
    """
    where = f"[at {__file__}:{call.__code__.co_firstlineno}]"
    b = XlaBuilder("invalid")
    result = call(b, *make(b))
    assert isinstance(result, XlaOp) and result.instruction is None
    with pytest.raises(InvalidArgumentError) as deferred:
        b.build()
    b = XlaBuilder("invalid_now")
    b.set_die_immediately_on_error(True)
    args = make(b)
    with pytest.raises(InvalidArgumentError) as immediate:
        call(b, *args)
    for info in (deferred, immediate):
        for fragment in (*fragments, where):
            assert fragment in str(info.value), f"{fragment!r} not in {info.value}"


# -- Gather ------------------------------------------------------------------------------------


def test_gather_spec_examples_batched_dynamic_slices_and_gather_nd():
    b = XlaBuilder("gathers")
    x = ops.Parameter(b, 0, S("f32[16,11]"), "operand")
    starts = ops.Parameter(b, 1, S("s32[5,2]"), "starts")
    starts2d = ops.Parameter(b, 2, S("s32[4,5,2]"), "starts2d")
    rows = ops.Parameter(b, 3, S("s32[2,3,1]"), "rows")
    # Five [8,6] slices at (X, Y) positions: a batched dynamic slice.
    five = R.Gather(x, starts, GDN([1, 2], [], [0, 1], 1), [8, 6])
    # The same with a [4,5] batch of positions.
    batch = R.Gather(x, starts2d, GDN([2, 3], [], [0, 1], 2), [8, 6], indices_are_sorted=False)
    # tf.gather_nd: each index picks a whole row; dimension 0 is collapsed.
    nd = R.Gather(x, rows, GDN(offset_dims=[2], collapsed_slice_dims=[0], start_index_map=[0],
                               index_vector_dim=2), [1, 11])  # fmt: skip
    shape_is(five, "f32[5,8,6]")
    shape_is(batch, "f32[4,5,8,6]")
    shape_is(nd, "f32[2,3,11]")
    rng = np.random.default_rng(10)
    operand = rng.normal(size=(16, 11)).astype(np.float32)
    pos = np.stack([rng.integers(0, 9, 5), rng.integers(0, 6, 5)], axis=1).astype(np.int32)
    pos2d = np.stack([rng.integers(0, 9, (4, 5)), rng.integers(0, 6, (4, 5))], axis=2).astype(
        np.int32
    )
    row_ids = rng.integers(0, 16, (2, 3, 1)).astype(np.int32)
    outs = run(built(b, five, batch, nd), operand, pos, pos2d, row_ids)

    def window(p):
        return operand[p[0] : p[0] + 8, p[1] : p[1] + 6]

    np.testing.assert_array_equal(outs[0], np.stack([window(p) for p in pos]))
    expected = np.stack([np.stack([window(p) for p in line]) for line in pos2d])
    np.testing.assert_array_equal(outs[1], expected)
    np.testing.assert_array_equal(outs[2], np.take(operand, row_ids[..., 0], axis=0))


def test_gather_index_vector_positions_constants_and_flags():
    b = XlaBuilder("gather_ivd")
    x = ops.Parameter(b, 0, S("f32[5,3]"), "x")
    # Scalar indices: index_vector_dim equal to the indices' rank (an implicit trailing 1).
    take = R.Gather(x, np.array([4, 0, 2, 2], np.int32), GDN([1], [0], [0], 1), [1, 3])
    # The index vector leading: indices [2, 3] hold three (row, column) pairs by column.
    pairs = np.array([[0, 4, 1], [2, 0, 1]], np.int32)
    points = R.Gather(x, pairs, GDN([], [0, 1], [0, 1], 0), [1, 1], indices_are_sorted=True)
    shape_is(take, "f32[4,3]")
    shape_is(points, "f32[3]")
    c = built(b, take, points)
    text = c.to_hlo_text()
    assert "indices_are_sorted=true" in text and text.count("indices_are_sorted") == 1
    operand = np.arange(15, dtype=np.float32).reshape(5, 3)
    outs = run(c, operand)
    np.testing.assert_array_equal(outs[0], np.take(operand, [4, 0, 2, 2], axis=0))
    np.testing.assert_array_equal(outs[1], operand[pairs[0], pairs[1]])


def test_gather_with_batching_dimensions():
    b = XlaBuilder("gather_batching")
    x = ops.Parameter(b, 0, S("f32[2,5,3]"), "x")
    idx = ops.Parameter(b, 1, S("s32[2,4,1]"), "idx")
    dn = GDN(
        offset_dims=[2],
        collapsed_slice_dims=[1],
        start_index_map=[1],
        index_vector_dim=2,
        operand_batching_dims=[0],
        start_indices_batching_dims=[0],
    )
    g = R.Gather(x, idx, dn, [1, 1, 3])
    shape_is(g, "f32[2,4,3]")
    c = built(b, g)
    assert "operand_batching_dims={0}, start_indices_batching_dims={0}" in c.to_hlo_text()
    rng = np.random.default_rng(11)
    operand = rng.normal(size=(2, 5, 3)).astype(np.float32)
    rows = rng.integers(0, 5, (2, 4, 1)).astype(np.int32)
    (out,) = run(c, operand, rows)
    np.testing.assert_array_equal(out, np.stack([operand[k][rows[k, :, 0]] for k in range(2)]))


def test_gather_invalid_calls():
    dn = GDN([1], [0], [0], 1)
    check_invalid(
        params("f32[5,3]", "s32[4,1]"),
        lambda b, x, i: R.Gather(x, i, dn, [1]),
        "Gather:",
        "f32[5,3]",
        "s32[4,1]",
        "slice_sizes [1]",
    )
    check_invalid(
        params("f32[5,3]", "f32[4,1]"),
        lambda b, x, i: R.Gather(x, i, dn, [1, 3]),
        "Gather:",
        "f32[4,1]",
        "integer element type",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]"),
        lambda b, x, i: R.Gather(x, i, {"offset_dims": [1]}, [1, 3]),
        "Gather:",
        "f32[5,3]",
        "GatherDimensionNumbers",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]"),
        lambda b, x, i: R.Gather(x, i, dn, [2, 3]),
        "Gather:",
        "s32[4,1]",
        "collapsed_slice_dims",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,2]"),
        lambda b, x, i: R.Gather(x, i, dn, [1, 3]),
        "Gather:",
        "s32[4,2]",
        "start_index_map [0]",
    )


# -- Scatter -----------------------------------------------------------------------------------


ROWS = SDN(update_window_dims=[1], inserted_window_dims=[0], scatter_dims_to_operand_dims=[0],
           index_vector_dim=1)  # fmt: skip


def test_scatter_add_overwrite_and_scalar_indices_against_numpy():
    b = XlaBuilder("scatters")
    x = ops.Parameter(b, 0, S("f32[5,3]"), "x")
    idx = ops.Parameter(b, 1, S("s32[4,1]"), "idx")
    upd = ops.Parameter(b, 2, S("f32[4,3]"), "upd")
    v = ops.Parameter(b, 3, S("s32[6]"), "v")
    added = R.Scatter(x, idx, upd, C.add(F32), ROWS)
    unique = np.array([[3], [0]], np.int32)
    overwritten = R.Scatter(
        x, unique, ops.Slice(upd, [0, 0], [2, 3], [1, 1]), lambda old, new: new, ROWS,
        indices_are_sorted=False, unique_indices=True,
    )  # fmt: skip
    # Scalar indices into a vector: index_vector_dim is the indices' rank.
    counts = R.Scatter(
        v, np.array([1, 4, 1, 1], np.int32), ops.Broadcast(ops.ConstantR0(b, 1, S32), [4]),
        lambda a, c: a + c, SDN([], [0], [0], 1),
    )  # fmt: skip
    shape_is(added, "f32[5,3]")
    shape_is(overwritten, "f32[5,3]")
    shape_is(counts, "s32[6]")
    c = built(b, added, overwritten, counts)
    assert "unique_indices=true" in c.to_hlo_text()
    rng = np.random.default_rng(12)
    operand = rng.integers(-4, 4, (5, 3)).astype(np.float32)
    rows = np.array([[1], [3], [1], [4]], np.int32)  # row 1 twice: both updates add up
    updates = rng.integers(-4, 4, (4, 3)).astype(np.float32)
    vector = np.arange(6, dtype=np.int32)
    outs = run(c, operand, rows, updates, vector)
    expected = operand.copy()
    np.add.at(expected, rows[:, 0], updates)
    np.testing.assert_array_equal(outs[0], expected)
    expected = operand.copy()
    expected[unique[:, 0]] = updates[:2]
    np.testing.assert_array_equal(outs[1], expected)
    expected = vector.copy()
    np.add.at(expected, [1, 4, 1, 1], 1)
    np.testing.assert_array_equal(outs[2], expected)


def test_scatter_windows_and_variadic():
    b = XlaBuilder("scatter_windows")
    x = ops.Parameter(b, 0, S("f32[4,6]"), "x")
    n = ops.Parameter(b, 1, S("s32[4,6]"), "n")
    corners = ops.Parameter(b, 2, S("s32[2,2]"), "corners")
    upd = ops.Parameter(b, 3, S("f32[2,2,3]"), "upd")
    nupd = ops.Parameter(b, 4, S("s32[2,2,3]"), "nupd")
    windows = SDN([1, 2], [], [0, 1], 1)
    # Two [2,3] windows added at (row, column) corners.
    single = R.Scatter(x, corners, upd, C.add(F32), windows)
    # Variadic: a sum for the f32 input and a maximum for the s32 one, in one pass.
    both = R.Scatter([x, n], corners, [upd, nupd], lambda a, m, u, k: (a + u, ops.Max(m, k)),
                     windows)  # fmt: skip
    shape_is(single, "f32[4,6]")
    shape_is(both, "(f32[4,6], s32[4,6])")
    rng = np.random.default_rng(13)
    operand = rng.integers(-4, 4, (4, 6)).astype(np.float32)
    ints = rng.integers(-4, 4, (4, 6)).astype(np.int32)
    starts = np.array([[0, 1], [1, 3]], np.int32)  # the windows overlap at (1, 3)
    updates = rng.integers(-4, 4, (2, 2, 3)).astype(np.float32)
    int_updates = rng.integers(-4, 8, (2, 2, 3)).astype(np.int32)
    outs = run(built(b, single, both), operand, ints, starts, updates, int_updates)
    added, maxed = operand.copy(), ints.copy()
    for (r, c), u, k in zip(starts, updates, int_updates, strict=True):
        added[r : r + 2, c : c + 3] += u
        np.maximum(maxed[r : r + 2, c : c + 3], k, out=maxed[r : r + 2, c : c + 3])
    np.testing.assert_array_equal(outs[0], added)
    np.testing.assert_array_equal(outs[1], added)
    np.testing.assert_array_equal(outs[2], maxed)


def test_scatter_with_batching_dimensions():
    b = XlaBuilder("scatter_batching")
    x = ops.Parameter(b, 0, S("f32[2,5]"), "x")
    idx = ops.Parameter(b, 1, S("s32[2,3,1]"), "idx")
    upd = ops.Parameter(b, 2, S("f32[2,3]"), "upd")
    dn = SDN(
        update_window_dims=[],
        inserted_window_dims=[1],
        scatter_dims_to_operand_dims=[1],
        index_vector_dim=2,
        input_batching_dims=[0],
        scatter_indices_batching_dims=[0],
    )
    r = R.Scatter(x, idx, upd, C.add(F32), dn)
    shape_is(r, "f32[2,5]")
    c = built(b, r)
    assert "input_batching_dims={0}, scatter_indices_batching_dims={0}" in c.to_hlo_text()
    operand = np.zeros((2, 5), np.float32)
    positions = np.array([[[0], [4], [0]], [[2], [2], [3]]], np.int32)
    updates = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    (out,) = run(c, operand, positions, updates)
    expected = operand.copy()
    for k in range(2):
        np.add.at(expected[k], positions[k, :, 0], updates[k])
    np.testing.assert_array_equal(out, expected)


def test_scatter_invalid_calls():
    add = C.add(F32)
    check_invalid(
        params("f32[5,3]", "s32[4,1]", "f32[4,2,3]"),
        lambda b, x, i, u: R.Scatter(x, i, u, add, ROWS),
        "Scatter:",
        "f32[5,3]",
        "f32[4,2,3]",
        "rank",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]", "f32[4,3]"),
        lambda b, x, i, u: R.Scatter(x, i, u, C.add(S32), ROWS),
        "Scatter:",
        "f32[5,3]",
        "to_apply",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]", "f32[4,3]"),
        lambda b, x, i, u: R.Scatter([x, x], i, [u], add, ROWS),
        "Scatter:",
        "s32[4,1]",
        "2 input(s) but 1 updates",
    )
    check_invalid(
        params("f32[5,3]", "f32[4,1]", "f32[4,3]"),
        lambda b, x, i, u: R.Scatter(x, i, u, add, ROWS),
        "Scatter:",
        "f32[4,1]",
        "integer element type",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]", "f32[4,3]"),
        lambda b, x, i, u: R.Scatter(x, i, u, add, GDN([1], [0], [0], 1)),
        "Scatter:",
        "f32[4,3]",
        "ScatterDimensionNumbers",
    )
    check_invalid(
        params("f32[5,3]", "s32[4,1]", "f32[5,3]"),
        lambda b, x, i, u: R.Scatter(x, i, u, add, ROWS),
        "Scatter:",
        "f32[5,3]",
        "batch dimension",
    )
