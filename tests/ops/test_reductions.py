"""Reduce, ReduceWindow, SelectAndScatter, Map, Sort and TopK as builder ops.

For each op: the spec's worked examples, the inferred shape, a text round trip
through xlapy's HLO parser, results from the real XLA (the oracle) against
numpy computed independently, Python callables and XlaComputation reducers,
Python numbers as init values, and invalid calls that must fail at build()
by default and at the call in die-immediately mode, naming the op, the
shapes and the file:line of the call. Oracle runs are bundled (several ops
per computation) because each XLA compile costs ~50-100 ms.
"""

from collections.abc import Callable

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import xlapy
from xlapy import computations as C
from xlapy import ops
from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.ops import reductions as R
from xlapy.testing.builders import built, run, shape_is
from xlapy.xla_data import Padding

S = xlapy.Shape.parse
F32, S32 = xlapy.F32, xlapy.S32


# -- helpers ---------------------------------------------------------------------------------


def check_invalid(
    make: Callable[[XlaBuilder], tuple], call: Callable[..., XlaOp], *fragments: str
) -> str:
    """``call(b, *make(b))`` is invalid: recorded for build(), or raised at once.

    ``call`` is a one-line lambda, so its first line is the line of the op call
    the message must point at.
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
        message = str(info.value)
        for fragment in (*fragments, where):
            assert fragment in message, f"{fragment!r} not in {message!r}"
    return str(immediate.value)


def params(*shapes: str) -> Callable[[XlaBuilder], tuple]:
    return lambda b: tuple(ops.Parameter(b, i, S(s), f"p{i}") for i, s in enumerate(shapes))


def max_computation() -> XlaComputation:
    """The spec's hand-built reducer: parameters y then x, Max(y, x)."""
    b = XlaBuilder("max")
    y = ops.Parameter(b, 0, S("f32[]"), "y")
    x = ops.Parameter(b, 1, S("f32[]"), "x")
    return b.build(ops.Max(y, x))


def argmax_computation() -> XlaComputation:
    """The spec's variadic reducer f(max, argmax, value, index), built by hand."""
    b = XlaBuilder("argmax")
    m = ops.Parameter(b, 0, S("f32[]"), "max")
    i = ops.Parameter(b, 1, S("s32[]"), "argmax")
    v = ops.Parameter(b, 2, S("f32[]"), "value")
    j = ops.Parameter(b, 3, S("s32[]"), "index")
    take = ops.Ge(v, m)
    return b.build(ops.Tuple(b, [ops.Select(take, v, m), ops.Select(take, j, i)]))


def np_reduce_window(x, init, ufunc, sizes, strides, pads, base=None, dil=None):
    """Reduce-window by the spec's definition: dilate, pad with init, slide, fold."""
    base = base or [1] * x.ndim
    dil = dil or [1] * x.ndim
    dilated = np.full([(n - 1) * d + 1 for n, d in zip(x.shape, base, strict=True)], init, x.dtype)
    dilated[tuple(slice(None, None, d) for d in base)] = x
    padded = np.pad(dilated, pads, constant_values=init)
    spans = [(s - 1) * d + 1 for s, d in zip(sizes, dil, strict=True)]
    shape = [
        max((p - e) // st + 1, 0) for p, e, st in zip(padded.shape, spans, strides, strict=True)
    ]
    out = np.empty(shape, x.dtype)
    for idx in np.ndindex(*shape):
        window = padded[
            tuple(
                slice(i * st, i * st + e, d)
                for i, st, e, d in zip(idx, strides, spans, dil, strict=True)
            )
        ]
        out[idx] = ufunc.reduce(window.ravel(), initial=init)
    return out


# -- Reduce ----------------------------------------------------------------------------------


def test_user_example_reduce_with_a_python_reducer():
    b = XlaBuilder("sum0")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    reduce = getattr(ops, "Reduce", R.Reduce)  # ops re-exports it once the lead wires it in
    r = reduce(x, 0.0, lambda a, b: a + b, [0])
    shape_is(r, "f32[3]")
    (out,) = run(built(b, r), np.array([[1, 2, 3], [4, 5, 6]], np.float32))
    np.testing.assert_array_equal(out, [5, 7, 9])


def test_reduce_spec_examples_2d_and_3d():
    b = XlaBuilder("spec_reduce")
    m = ops.Parameter(b, 0, S("f32[2,3]"), "m")
    v = ops.Parameter(b, 1, S("f32[4,2,3]"), "v")
    add = C.add(F32)
    results = [
        R.Reduce(m, 0.0, add, [0]),
        R.Reduce(m, 0.0, lambda a, b: a + b, [1]),
        R.Reduce(v, 0.0, add, [0]),
        R.Reduce(v, 0.0, add, [2]),
        R.Reduce(v, 0.0, add, [0, 1]),
        R.Reduce(v, 0, add, [1, 0]),  # an int init takes the operand's type; order is free
        R.ReduceAll(v, 0.0, add),
    ]
    for op, text in zip(
        results,
        ["f32[3]", "f32[2]", "f32[2,3]", "f32[4,2]", "f32[3]", "f32[3]", "f32[]"],
        strict=True,
    ):
        shape_is(op, text)
    matrix = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    cube = np.broadcast_to(matrix, (4, 2, 3)).astype(np.float32)
    outs = run(built(b, *results), matrix, cube)
    expected = [
        [5, 7, 9],
        [6, 15],
        [[4, 8, 12], [16, 20, 24]],
        [[6, 15]] * 4,
        [20, 28, 36],
        [20, 28, 36],
        84,
    ]
    for out, exp in zip(outs, expected, strict=True):
        np.testing.assert_array_equal(out, np.asarray(exp, np.float32))
    # ... and numpy agrees with the spec's numbers.
    np.testing.assert_array_equal(np.add.reduce(cube, axis=(0, 1)), expected[4])


def test_variadic_reduce_argmax_callable_and_computation():
    b = XlaBuilder("argmax")
    x = ops.Parameter(b, 0, S("f32[3,5]"), "x")
    iota = ops.Iota(b, S("s32[3,5]"), 1)

    def f(m, i, v, j):  # the spec's f: keep the later (value, index) when value >= max
        take = v >= m
        return ops.Select(take, v, m), ops.Select(take, j, i)

    traced = R.Reduce(b, [x, iota], [float("-inf"), 0], f, [1])
    handmade = R.Reduce(b, [x, iota], [-np.inf, -1], argmax_computation(), [1])
    shape_is(traced, "(f32[3], s32[3])")
    shape_is(handmade, "(f32[3], s32[3])")
    values = np.random.default_rng(0).permutation(15).reshape(3, 5).astype(np.float32)
    outs = run(built(b, traced, handmade), values)
    for out_max, out_arg in (outs[0:2], outs[2:4]):
        np.testing.assert_array_equal(out_max, values.max(axis=1))
        np.testing.assert_array_equal(out_arg, values.argmax(axis=1))


def test_variadic_reduce_of_one_operand_and_tuple_reducer():
    b = XlaBuilder("one")
    x = ops.Parameter(b, 0, S("s32[4]"), "x")
    plain = R.Reduce(b, [x], [0], C.add(S32), [0])
    one_tuple = R.Reduce(b, x, 0, lambda a, v: (a + v,), [0])  # a 1-tuple reducer, as XLA allows
    shape_is(plain, "s32[]")
    shape_is(one_tuple, "(s32[])")
    built(b, plain, one_tuple)


def test_reduce_integer_and_pred_reducers_against_numpy():
    b = XlaBuilder("int_reduce")
    n = ops.Parameter(b, 0, S("s32[3,4]"), "n")
    p = ops.Parameter(b, 1, S("pred[3,4]"), "p")
    results = [
        R.Reduce(n, 1, C.mul(S32), [1]),
        R.Reduce(n, np.iinfo(np.int32).min, C.max(S32), [0]),
        R.Reduce(p, False, C.or_(xlapy.PRED), [1]),
        R.Reduce(p, True, C.and_(xlapy.PRED), [1]),
    ]
    ints = np.arange(1, 13, dtype=np.int32).reshape(3, 4) - 6
    bools = np.array([[1, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]], bool)
    outs = run(built(b, *results), ints, bools)
    np.testing.assert_array_equal(outs[0], np.multiply.reduce(ints, axis=1))
    np.testing.assert_array_equal(outs[1], np.maximum.reduce(ints, axis=0))
    np.testing.assert_array_equal(outs[2], bools.any(axis=1))
    np.testing.assert_array_equal(outs[3], bools.all(axis=1))


def test_reduce_invalid_calls():
    add = C.add(F32)
    check_invalid(
        params("f32[2,3]"),
        lambda b, x: R.Reduce(x, 0.0, add, [2]),
        "Reduce:",
        "f32[2,3]",
        "dimensions [2]",
    )
    check_invalid(
        params("f32[2,3]", "s32[]"),
        lambda b, x, i: R.Reduce(x, i, add, [0]),
        "Reduce:",
        "f32[2,3]",
        "s32[]",
        "init value 0",
    )
    check_invalid(
        params("f32[2,3]"),
        lambda b, x: R.Reduce(x, 0.0, C.mul(S32), [0]),
        "Reduce:",
        "f32[2,3]",
        "to_apply",
    )
    check_invalid(
        params("f32[2,3]", "s32[2,3]"),
        lambda b, x, y: R.Reduce(b, [x, y], [0.0], add, [0]),
        "Reduce:",
        "f32[2,3]",
        "s32[2,3]",
        "2 operand(s) but 1 init value(s)",
    )
    check_invalid(
        params("f32[2,3]", "f32[3,2]"),
        lambda b, x, y: R.Reduce(b, [x, y], [0.0, 0.0], lambda a, c, u, v: (a + u, c + v), [0]),
        "Reduce:",
        "f32[2,3]",
        "f32[3,2]",
        "same dimensions",
    )
    check_invalid(
        params("f32[2,3]"),
        lambda b, x: R.ReduceAll(x, 0.0, lambda a, c: a < c),
        "Reduce:",
        "f32[2,3]",
        "pred[]",
    )


def test_reduce_error_inside_a_traced_reducer():
    message = check_invalid(
        params("f32[2,3]"),
        lambda b, x: R.Reduce(x, 0.0, lambda a, c: ops.And(a, c), [0]),
        "Reduce: while tracing the computation",
        "And:",
        "f32[]",
    )
    assert message.count("[at ") >= 1


# -- ReduceWindow ----------------------------------------------------------------------------


def test_reduce_window_spec_max_pool_2x3():
    b = XlaBuilder("reduce_window_2x3")
    x = ops.Parameter(b, 0, S("f32[4,6]"), "input")
    lowest = float(np.finfo(np.float32).min)
    with_hand_max = R.ReduceWindow(x, lowest, max_computation(), [2, 3], [2, 3], Padding.VALID)
    with_lambda = R.ReduceWindow(x, -np.inf, lambda a, c: ops.Max(a, c), [2, 3], [2, 3], "VALID")
    shape_is(with_hand_max, "f32[2,2]")
    shape_is(with_lambda, "f32[2,2]")
    c = built(b, with_hand_max, with_lambda)
    assert "window={size=2x3 stride=2x3}" in c.to_hlo_text()
    values = np.random.default_rng(1).normal(size=(4, 6)).astype(np.float32)
    expected = sliding_window_view(values, (2, 3))[::2, ::3].max(axis=(2, 3))
    for out in run(c, values):
        np.testing.assert_array_equal(out, expected)


def test_reduce_window_spec_padding_example_valid_and_same():
    b = XlaBuilder("min_window")
    x = ops.Parameter(b, 0, S("f32[5]"), "x")
    big = float(np.finfo(np.float32).max)
    valid = R.ReduceWindow(x, big, C.min(F32), [3], [2], Padding.VALID)
    same = R.ReduceWindow(x, big, C.min(F32), [3], [2], Padding.SAME)
    shape_is(valid, "f32[2]")
    shape_is(same, "f32[3]")
    outs = run(built(b, valid, same), np.array([10000, 1000, 100, 10, 1], np.float32))
    np.testing.assert_array_equal(outs[0], [100, 1])
    np.testing.assert_array_equal(outs[1], [1000, 10, 1])


def test_reduce_window_general_padding_and_dilations():
    b = XlaBuilder("general")
    x = ops.Parameter(b, 0, S("f32[5,4]"), "x")
    cases = [
        ([2, 2], [1, 2], [], [], [(1, 0), (0, 1)]),
        ([2, 3], [2, 1], [2, 1], [1, 2], [(0, 1), (2, 2)]),
        ([3, 1], [1, 1], [1, 3], [2, 1], [(1, 1), (0, 0)]),
    ]
    results = [
        R.ReduceWindowWithGeneralPadding(x, 0.0, C.add(F32), sizes, strides, base, dil, pads)
        for sizes, strides, base, dil, pads in cases
    ]
    values = np.random.default_rng(2).integers(-5, 5, size=(5, 4)).astype(np.float32)
    expected = [
        np_reduce_window(values, 0, np.add, sizes, strides, pads, base, dil)
        for sizes, strides, base, dil, pads in cases
    ]
    for op, exp in zip(results, expected, strict=True):
        assert op.shape.dimensions == exp.shape
    outs = run(built(b, *results), values)
    for out, exp in zip(outs, expected, strict=True):
        np.testing.assert_array_equal(out, exp)


def test_variadic_reduce_window():
    b = XlaBuilder("variadic_window")
    x = ops.Parameter(b, 0, S("f32[6]"), "x")
    n = ops.Parameter(b, 1, S("s32[6]"), "n")
    r = R.ReduceWindow(
        [x, n], [0.0, 0], lambda a, c, u, v: (a + u, ops.Max(c, v)), [3], [1], Padding.VALID
    )
    shape_is(r, "(f32[4], s32[4])")
    g = R.ReduceWindowWithGeneralPadding(
        [x, n], [0.0, 0], lambda a, c, u, v: (a + u, c + v), [2], [2], [], [], [(1, 1)]
    )
    shape_is(g, "(f32[4], s32[4])")
    built(b, r, g)


def test_reduce_window_invalid_calls():
    add = C.add(F32)
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindow(x, 0.0, add, [2], [2], Padding.VALID),
        "ReduceWindow:",
        "f32[4,6]",
        "window_dimensions [2] has 1 entries",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindow(x, 0.0, add, [2, 2], [1, 0], Padding.SAME),
        "ReduceWindow:",
        "f32[4,6]",
        "window_strides[1]=0",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindow(x, 0.0, add, [2, 2], [1, 1], "FULL"),
        "ReduceWindow:",
        "f32[4,6]",
        "Padding.SAME or Padding.VALID",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindowWithGeneralPadding(
            x, 0.0, add, [2, 2], [1, 1], [], [], [(1, 1)]
        ),
        "ReduceWindowWithGeneralPadding:",
        "f32[4,6]",
        "1 (low, high) pairs",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindow(x, 0.0, add, [2.0, 2], [1, 1], Padding.VALID),
        "ReduceWindow:",
        "f32[4,6]",
        "window_dimensions must be a sequence of integers",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindowWithGeneralPadding(x, 0.0, add, [2, 2], [1, 1], [], [], "SAME"),
        "ReduceWindowWithGeneralPadding:",
        "(low, high) pairs",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindow(x, 0, C.add(S32), [2, 2], [1, 1], Padding.VALID),
        "ReduceWindow:",
        "f32[4,6]",
        "s32[]",
    )
    check_invalid(
        params("f32[4,6]"),
        lambda b, x: R.ReduceWindowWithGeneralPadding(
            x, 0.0, add, [2, 2], [1, 1], [], [], [(-9, 0), (0, 0)]
        ),  # noqa: E501
        "ReduceWindowWithGeneralPadding:",
        "f32[4,6]",
        "negative padding",
    )


# -- SelectAndScatter ------------------------------------------------------------------------


def test_select_and_scatter_overlapping_windows_add_up():
    # The spec's figure (2): overlapping windows both select the 9; 2 + 6 = 8 lands there.
    b = XlaBuilder("sas_overlap")
    x = ops.Parameter(b, 0, S("f32[5]"), "x")
    source = ops.Parameter(b, 1, S("f32[2]"), "source")
    r = R.SelectAndScatter(x, lambda a, c: a >= c, [3], [2], Padding.VALID, source, 0, C.add(F32))
    shape_is(r, "f32[5]")
    (out,) = run(built(b, r), np.array([1, 3, 9, 2, 4], np.float32), np.array([2, 6], np.float32))
    np.testing.assert_array_equal(out, [0, 0, 8, 0, 0])


def test_select_and_scatter_max_pool_gradient_against_numpy():
    b = XlaBuilder("sas")
    x = ops.Parameter(b, 0, S("f32[4,6]"), "x")
    source = ops.Parameter(b, 1, S("f32[2,2]"), "source")
    same_source = ops.Parameter(b, 2, S("f32[2,3]"), "same_source")
    valid = R.SelectAndScatter(x, C.gt(F32), [2, 3], [2, 3], Padding.VALID, source, 0.0, C.add(F32))
    same = R.SelectAndScatter(
        x, lambda a, c: a >= c, [3, 3], [2, 2], Padding.SAME, same_source, 0.0, C.add(F32)
    )
    general = R.SelectAndScatterWithGeneralPadding(
        x, lambda a, c: a >= c, [2, 3], [2, 3], [(0, 0), (0, 0)], source, 0.0, C.add(F32)
    )
    for op in (valid, same, general):
        shape_is(op, "f32[4,6]")
    rng = np.random.default_rng(3)
    values = rng.permutation(24).reshape(4, 6).astype(np.float32)
    src = rng.integers(1, 9, size=(2, 2)).astype(np.float32)
    src_same = rng.integers(1, 9, size=(2, 3)).astype(np.float32)

    def reference(sizes, strides, pads, source_values):
        padded = np.pad(values, pads, constant_values=-np.inf)
        out = np.zeros_like(padded)
        for idx in np.ndindex(*source_values.shape):
            corner = [i * s for i, s in zip(idx, strides, strict=True)]
            window = padded[tuple(slice(c, c + w) for c, w in zip(corner, sizes, strict=True))]
            pos = np.unravel_index(np.argmax(window), window.shape)
            out[tuple(c + p for c, p in zip(corner, pos, strict=True))] += source_values[idx]
        return out[tuple(slice(lo, lo + n) for (lo, _), n in zip(pads, values.shape, strict=True))]

    outs = run(built(b, valid, same, general), values, src, src_same)
    np.testing.assert_array_equal(outs[0], reference([2, 3], [2, 3], [(0, 0)] * 2, src))
    np.testing.assert_array_equal(outs[1], reference([3, 3], [2, 2], [(0, 1), (0, 1)], src_same))
    np.testing.assert_array_equal(outs[2], outs[0])


def test_select_and_scatter_invalid_calls():
    add, ge = C.add(F32), (lambda a, c: a >= c)
    check_invalid(
        params("f32[4,6]", "f32[3,3]"),
        lambda b, x, s: R.SelectAndScatter(x, ge, [2, 3], [2, 3], Padding.VALID, s, 0.0, add),
        "SelectAndScatter:",
        "f32[4,6]",
        "f32[3,3]",
        "source",
    )
    check_invalid(
        params("f32[4,6]", "f32[2,2]"),
        lambda b, x, s: R.SelectAndScatter(x, add, [2, 3], [2, 3], Padding.VALID, s, 0.0, add),
        "SelectAndScatter:",
        "f32[4,6]",
        "f32[2,2]",
        "select must return pred[]",
    )
    check_invalid(
        params("f32[4,6]", "f32[2,2]"),
        lambda b, x, s: R.SelectAndScatter(x, ge, [2, 3], [2, 3], Padding.VALID, s, 0, C.add(S32)),
        "SelectAndScatter:",
        "f32[4,6]",
        "f32[2,2]",
        "scatter",
    )
    check_invalid(
        params("f32[4,6]", "f32[2,2]", "f32[2]"),
        lambda b, x, s, i: R.SelectAndScatter(x, ge, [2, 3], [2, 3], Padding.VALID, s, i, add),
        "SelectAndScatter:",
        "f32[2]",
        "scalar",
    )
    check_invalid(
        params("f32[4,6]", "f32[2,2]"),
        lambda b, x, s: R.SelectAndScatterWithGeneralPadding(
            x, ge, [2, 3], [2, 3], [(0, 0)], s, 0.0, add
        ),  # noqa: E501
        "SelectAndScatterWithGeneralPadding:",
        "f32[4,6]",
        "1 (low, high) pairs",
    )


# -- Map ---------------------------------------------------------------------------------------


def test_map_three_operands_scalars_and_a_new_element_type():
    b = XlaBuilder("map")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    y = ops.Parameter(b, 1, S("f32[2,3]"), "y")
    n = ops.Parameter(b, 2, S("s32[2,3]"), "n")
    fma = ops.Map(b, [x, y, n], lambda a, c, k: a * c + ops.ConvertElementType(k, F32), [0, 1])
    scaled = ops.Map(b, [x, 2.0], C.mul(F32), None)  # a Python number is broadcast
    positive = ops.Map(b, [x], lambda a: a > 0, [0, 1])  # the result takes the function's type
    shape_is(fma, "f32[2,3]")
    shape_is(scaled, "f32[2,3]")
    shape_is(positive, "pred[2,3]")
    rng = np.random.default_rng(4)
    xs, ys = rng.normal(size=(2, 2, 3)).astype(np.float32)
    ns = rng.integers(-3, 3, size=(2, 3)).astype(np.int32)
    outs = run(built(b, fma, scaled, positive), xs, ys, ns)
    np.testing.assert_allclose(outs[0], xs * ys + ns, rtol=1e-6)
    np.testing.assert_array_equal(outs[1], xs * 2)
    np.testing.assert_array_equal(outs[2], xs > 0)


def test_map_invalid_calls():
    add = C.add(F32)
    check_invalid(
        params("f32[2,3]", "f32[3,2]"),
        lambda b, x, y: ops.Map(b, [x, y], add, [0, 1]),
        "Map:",
        "f32[2,3]",
        "f32[3,2]",
        "same dimensions",
    )
    check_invalid(
        params("f32[2,3]"),
        lambda b, x: ops.Map(b, [x], lambda a: -a, [0]),
        "Map:",
        "f32[2,3]",
        "dimensions [0]",
    )
    check_invalid(
        params("f32[2,3]", "f32[2,3]", "f32[2,3]"),
        lambda b, x, y, z: ops.Map(b, [x, y, z], add, [0, 1]),
        "Map:",
        "f32[2,3]",
        "f32[2,3]",
        "f32[2,3]",
        "takes 2 parameters",
    )
    check_invalid(
        params("f32[2,3]", "s32[2,3]"),
        lambda b, x, n: ops.Map(b, [x, n], add, [0, 1]),
        "Map:",
        "s32[2,3]",
        "parameter 1",
    )
    b = XlaBuilder("static")
    b.set_die_immediately_on_error(True)
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    with pytest.raises(UnimplementedError, match="static_operands"):
        ops.Map(b, [x], lambda a: a, [0], static_operands=[x])


# -- Sort and TopK ------------------------------------------------------------------------------


def test_sort_spec_example_three_operands():
    b = XlaBuilder("sort3")
    k = ops.ConstantR1(b, np.array([3, 1], np.int32))
    v = ops.ConstantR1(b, np.array([42, 50], np.int32))
    f = ops.ConstantR1(b, np.array([-3.0, 1.1], np.float32))
    r = R.Sort([k, v, f], lambda a, c, *_rest: a < c)
    shape_is(r, "(s32[2], s32[2], f32[2])")
    outs = run(built(b, r))
    np.testing.assert_array_equal(outs[0], [1, 3])
    np.testing.assert_array_equal(outs[1], [50, 42])
    np.testing.assert_array_equal(outs[2], np.array([1.1, -3.0], np.float32))


def test_sort_stable_multi_operand_default_and_descending():
    b = XlaBuilder("sorts")
    keys = ops.Parameter(b, 0, S("s32[3,8]"), "keys")
    x = ops.Parameter(b, 1, S("f32[3,8]"), "x")
    iota = ops.Iota(b, S("s32[3,8]"), 1)
    stable = R.Sort([keys, iota], C.lt([S32, S32]), is_stable=True)
    default = R.Sort(x)  # one operand, no list, default comparator: ascending, NaN last
    columns = R.Sort(x, C.gt(F32), dimension=0)
    shape_is(stable, "(s32[3,8], s32[3,8])")
    shape_is(default, "f32[3,8]")
    shape_is(columns, "f32[3,8]")
    c = built(b, stable, default, columns)
    assert "is_stable=true" in c.to_hlo_text()
    rng = np.random.default_rng(5)
    key_values = rng.integers(0, 3, size=(3, 8)).astype(np.int32)
    values = rng.normal(size=(3, 8)).astype(np.float32)
    values[1, 2] = np.nan
    outs = run(c, key_values, values)
    order = np.argsort(key_values, axis=1, kind="stable")
    np.testing.assert_array_equal(outs[0], np.take_along_axis(key_values, order, axis=1))
    np.testing.assert_array_equal(outs[1], order)
    np.testing.assert_array_equal(outs[2], np.sort(values, axis=1))  # numpy puts NaN last too
    # Descending in the total order: NaN is the largest, so it comes first.
    np.testing.assert_array_equal(outs[3], np.flip(np.sort(values, axis=0), axis=0))


def test_topk_largest_and_smallest():
    b = XlaBuilder("topk")
    x = ops.Parameter(b, 0, S("f32[3,6]"), "x")
    top = R.TopK(x, 2)
    bottom = R.TopK(x, 3, largest=False)
    shape_is(top, "(f32[3,2], s32[3,2])")
    shape_is(bottom, "(f32[3,3], s32[3,3])")
    c = built(b, top, bottom)
    assert "largest=false" in c.to_hlo_text()
    values = np.array([[1, 5, 5, 2, 0, 3], [0, 0, 0, 0, 0, 0], [6, 5, 4, 3, 2, 1]], np.float32)
    outs = run(c, values)
    down = np.argsort(-values, axis=1, kind="stable")[:, :2]  # ties: the lower index first
    up = np.argsort(values, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(outs[1], down)
    np.testing.assert_array_equal(outs[0], np.take_along_axis(values, down, axis=1))
    np.testing.assert_array_equal(outs[3], up)
    np.testing.assert_array_equal(outs[2], np.take_along_axis(values, up, axis=1))


def test_sort_invalid_calls():
    check_invalid(
        params("f32[3,4]"),
        lambda b, x: R.Sort(x, None, dimension=2),
        "Sort:",
        "f32[3,4]",
        "dimensions [2]",
    )
    check_invalid(
        params("f32[3,4]"),
        lambda b, x: R.Sort(x, lambda a, c: a - c),
        "Sort:",
        "f32[3,4]",
        "pred[]",
    )
    check_invalid(
        params("f32[3,4]", "s32[4,3]"),
        lambda b, x, y: R.Sort([x, y]),
        "Sort:",
        "f32[3,4]",
        "s32[4,3]",
        "same dimensions",
    )
    check_invalid(
        params("f32[3,4]"),
        lambda b, x: R.Sort(x, C.lt(S32)),
        "Sort:",
        "f32[3,4]",
        "comparator parameter 0",
    )


def test_topk_invalid_calls():
    check_invalid(params("f32[3,4]"), lambda b, x: R.TopK(x, 5), "TopK:", "f32[3,4]", "k=5")
    check_invalid(params("f32[]"), lambda b, x: R.TopK(x, 1), "TopK:", "f32[]", "dimension")
    check_invalid(params("c64[4]"), lambda b, x: R.TopK(x, 1), "TopK:", "c64[4]", "no order")
    check_invalid(params("f32[4]"), lambda b, x: R.TopK(x, "two"), "TopK:", "f32[4]", "k must")


def test_failed_operands_fail_quietly_and_the_first_error_wins():
    b = XlaBuilder("chain")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    bad = R.Reduce(x, 0.0, C.add(F32), [7])
    later = R.Sort(R.ReduceWindow(bad, 0.0, C.add(F32), [1], [1], Padding.VALID))
    assert later.instruction is None
    with pytest.raises(InvalidArgumentError, match=r"Reduce: dimensions \[7\]"):
        b.build()
