"""Shape rules of reduce, reduce-window, select-and-scatter, map, sort and top-k.

Every worked example of operation_semantics.md (and the StableHLO spec's) for
these ops, three or more invalid calls per op, JAX's shapes as a second
oracle, and a property test of the window formula against numpy.
"""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy.shape_inference.indexing  # noqa: F401  (registers the rules)
import xlapy.shape_inference.reductions  # noqa: F401
from xlapy.errors import InvalidArgumentError
from xlapy.opcode import HloOpcode as Op
from xlapy.shape import ProgramShape, Shape
from xlapy.shape_inference import infer_shape
from xlapy.xla_data import Padding, Window, make_padding

S = Shape.parse


def sig(params: str, result: str) -> ProgramShape:
    """A program shape from text: sig("f32[], f32[]", "f32[]")."""
    return ProgramShape([S(p) for p in params.split(", ") if p], S(result))


ADD_F32 = sig("f32[], f32[]", "f32[]")
ADD_S64 = sig("s64[], s64[]", "s64[]")
GE_F32 = sig("f32[], f32[]", "pred[]")
LT_F32 = sig("f32[], f32[]", "pred[]")


def infer(opcode, operands, attrs=None, comps=None):
    return infer_shape(opcode, [S(o) for o in operands], attrs, comps)


def same(shape: Shape, text: str) -> bool:
    return shape.compatible(S(text))


def fails(opcode, operands, attrs=None, comps=None, message=""):
    with pytest.raises(InvalidArgumentError) as info:
        infer(opcode, operands, attrs, comps)
    text = str(info.value)
    assert text.startswith(f"{opcode.value}:"), text
    for o in operands:
        assert str(S(o)) in text, text
    assert re.search(message, text), text
    return text


# -- reduce -----------------------------------------------------------------------------


def reduce(operand: str, dims, reducer=ADD_F32, init="f32[]"):
    return infer(Op.REDUCE, [operand, init], {"dimensions": dims}, {"to_apply": reducer})


@pytest.mark.parametrize(
    "operand, dims, result",
    [
        ("f32[4]", [0], "f32[]"),  # [10, 11, 12, 13] reduced to one value
        ("f32[2,3]", [0], "f32[3]"),  # the 2-D matrix example, both ways
        ("f32[2,3]", [1], "f32[2]"),
        ("f32[4,2,3]", [0], "f32[2,3]"),  # the 3-D example: | 4 8 12 | 16 20 24 |
        ("f32[4,2,3]", [2], "f32[4,2]"),  # | 6 15 | x4
        ("f32[4,2,3]", [0, 1], "f32[3]"),  # [20, 28, 36]
        ("f32[4,2,3]", [2, 0, 1], "f32[]"),  # 84; dimensions are unordered
        ("f32[4,2,3]", [], "f32[4,2,3]"),
    ],
)
def test_reduce_spec_examples(operand, dims, result):
    assert same(reduce(operand, dims), result)


def test_reduce_stablehlo_example():
    out = infer(Op.REDUCE, ["s64[1,6]", "s64[]"], {"dimensions": [1]}, {"to_apply": ADD_S64})
    assert same(out, "s64[1]")


def test_variadic_reduce_argmax():
    argmax = sig("f32[], s32[], f32[], s32[]", "(f32[], s32[])")
    out = infer(
        Op.REDUCE,
        ["f32[7]", "s32[7]", "f32[]", "s32[]"],
        {"dimensions": [0]},
        {"to_apply": argmax},
    )
    assert same(out, "(f32[], s32[])")
    out = infer(
        Op.REDUCE,
        ["f32[5,7]", "s32[5,7]", "f32[]", "s32[]"],
        {"dimensions": [1]},
        {"to_apply": argmax},
    )
    assert same(out, "(f32[5], s32[5])")


def test_reduce_result_takes_the_reducer_types():
    # A bf16 input accumulated in f32 (XLA allows fp-precision differences).
    out = infer(Op.REDUCE, ["bf16[8,4]", "f32[]"], {"dimensions": [0]}, {"to_apply": ADD_F32})
    assert same(out, "f32[4]")


def test_reduce_keeps_dynamic_dimensions():
    assert str(reduce("f32[<=5,3]", [1])).startswith("f32[<=5]")


def test_reduce_errors():
    fails(Op.REDUCE, ["f32[2,3]", "f32[]"], {"dimensions": [2]}, {"to_apply": ADD_F32}, "outside")
    fails(
        Op.REDUCE, ["f32[2,3]", "f32[]"], {"dimensions": [1, 1]}, {"to_apply": ADD_F32}, "repeats"
    )
    fails(
        Op.REDUCE,
        ["f32[2,3]", "f32[]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], f32[], f32[]", "f32[]")},
        r"must take 2 scalar parameters",
    )
    fails(
        Op.REDUCE,
        ["f32[2,3]", "f32[2]"],
        {"dimensions": [0]},
        {"to_apply": ADD_F32},
        "init value 0 must be a scalar",
    )
    fails(
        Op.REDUCE,
        ["f32[2,3]", "s32[]"],
        {"dimensions": [0]},
        {"to_apply": ADD_F32},
        "init value 0 is s32",
    )
    fails(
        Op.REDUCE,
        ["s32[2,3]", "f32[]"],
        {"dimensions": [0]},
        {"to_apply": ADD_F32},
        "input 0 has element type s32",
    )
    fails(
        Op.REDUCE,
        ["f32[2,3]", "f32[]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], f32[]", "f32[2]")},
        "must return scalars",
    )
    fails(
        Op.REDUCE,
        ["f32[2]", "s32[3]", "f32[]", "s32[]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], s32[], f32[], s32[]", "(f32[], s32[])")},
        "same dimensions",
    )
    fails(
        Op.REDUCE,
        ["f32[2]", "s32[2]", "f32[]", "s32[]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], s32[], f32[], s32[]", "f32[]")},
        "must return a tuple of 2",
    )
    fails(
        Op.REDUCE, ["f32[2]", "f32[]", "f32[]"], {"dimensions": [0]}, {"to_apply": ADD_F32}, "even"
    )
    fails(Op.REDUCE, ["f32[2]", "f32[]"], {"dimensions": [0]}, {}, "to_apply")


# -- reduce-window ------------------------------------------------------------------------


def reduce_window(operand: str, window: Window, init="f32[]", reducer=ADD_F32):
    return infer(Op.REDUCE_WINDOW, [operand, init], {"window": window}, {"to_apply": reducer})


def test_reduce_window_spec_example_2x3():
    # Input [4x6], window and strides [2x3], VALID: one value per 2x3 block.
    assert same(reduce_window("f32[4,6]", Window.make([2, 3], [2, 3])), "f32[2,2]")


def test_reduce_window_stride_figure():
    # The two stride figures: a window of 2 over 5 elements, stride 1 and 2.
    assert same(reduce_window("f32[5]", Window.make([2], [1])), "f32[4]")
    assert same(reduce_window("f32[5]", Window.make([2], [2])), "f32[2]")


def test_reduce_window_padding_example():
    # Window 3, stride 2 over [10000, 1000, 100, 10, 1]: VALID gives [100, 1],
    # SAME pads one MAX_FLOAT at each end and gives [1000, 10, 1].
    valid = make_padding([5], [3], [2], Padding.VALID)
    same_ = make_padding([5], [3], [2], Padding.SAME)
    assert same_ == ((1, 1),)
    assert same(reduce_window("f32[5]", Window.make([3], [2], valid)), "f32[2]")
    assert same(reduce_window("f32[5]", Window.make([3], [2], same_)), "f32[3]")


def test_reduce_window_stablehlo_example_with_dilations():
    window = Window.make([2, 1], [4, 1], [(2, 1), (0, 0)], lhs_dilation=[2, 1], rhs_dilation=[3, 1])
    out = infer(Op.REDUCE_WINDOW, ["s64[3,2]", "s64[]"], {"window": window}, {"to_apply": ADD_S64})
    assert same(out, "s64[2,2]")


def test_variadic_reduce_window():
    reducer = sig("f32[], s32[], f32[], s32[]", "(f32[], s32[])")
    out = infer(
        Op.REDUCE_WINDOW,
        ["f32[4,6]", "s32[4,6]", "f32[]", "s32[]"],
        {"window": Window.make([2, 2], [1, 2])},
        {"to_apply": reducer},
    )
    assert same(out, "(f32[3,3], s32[3,3])")


def test_reduce_window_errors():
    w2 = Window.make([2])
    fails(Op.REDUCE_WINDOW, ["f32[4,6]", "f32[]"], {"window": w2}, {"to_apply": ADD_F32}, "rank 2")
    fails(
        Op.REDUCE_WINDOW,
        ["f32[4]", "f32[]"],
        {"window": Window.make([2], padding=[(-3, -2)])},
        {"to_apply": ADD_F32},
        "removes more than",
    )
    fails(
        Op.REDUCE_WINDOW,
        ["f32[4]", "f32[]"],
        {"window": {"size": 2}},
        {"to_apply": ADD_F32},
        "must be a Window",
    )
    fails(
        Op.REDUCE_WINDOW,
        ["f32[4]", "f32[]"],
        {"window": w2},
        {"to_apply": GE_F32},
        "accumulator",
    )
    fails(
        Op.REDUCE_WINDOW,
        ["f32[4]", "f32[3]", "f32[]", "f32[]"],
        {"window": w2},
        {"to_apply": sig("f32[], f32[], f32[], f32[]", "(f32[], f32[])")},
        "same dimensions",
    )
    fails(Op.REDUCE_WINDOW, ["f32[4]", "f32[]"], {}, {"to_apply": ADD_F32}, "window=")


def _numpy_window_count(size, wsize, stride, lo, hi, base_dil, win_dil) -> int:
    """Count window positions by building the dilated, padded base with numpy."""
    base = np.arange(size, dtype=np.int64) + 1
    dilated = np.zeros((size - 1) * base_dil + 1 if size else 0, dtype=np.int64)
    dilated[::base_dil] = base
    padded = np.pad(dilated, (max(lo, 0), max(hi, 0)))
    padded = padded[max(-lo, 0) : len(padded) - max(-hi, 0)]
    span = (wsize - 1) * win_dil + 1
    if span > len(padded):
        return 0
    views = np.lib.stride_tricks.sliding_window_view(padded, span)
    return len(views[::stride])


_window_dim = st.tuples(
    st.integers(0, 7),  # base size
    st.integers(1, 4),  # window size
    st.integers(1, 3),  # stride
    st.integers(-3, 3),  # padding low
    st.integers(-3, 3),  # padding high
    st.integers(1, 3),  # base (lhs) dilation
    st.integers(1, 3),  # window (rhs) dilation
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_window_dim, min_size=1, max_size=3))
def test_reduce_window_sizes_match_numpy(dims):
    operand = Shape.array(Shape.parse("f32[]").element_type, [d[0] for d in dims])
    window = Window.make(
        [d[1] for d in dims],
        [d[2] for d in dims],
        [(d[3], d[4]) for d in dims],
        lhs_dilation=[d[5] for d in dims],
        rhs_dilation=[d[6] for d in dims],
    )
    dilated_padded = [d[3] + ((d[0] - 1) * d[5] + 1 if d[0] else 0) + d[4] for d in dims]
    if min(dilated_padded) < 0:
        with pytest.raises(InvalidArgumentError, match="removes more than"):
            infer_shape(
                Op.REDUCE_WINDOW, [operand, S("f32[]")], {"window": window}, {"to_apply": ADD_F32}
            )
        return
    out = infer_shape(
        Op.REDUCE_WINDOW, [operand, S("f32[]")], {"window": window}, {"to_apply": ADD_F32}
    )
    assert list(out.dimensions) == [_numpy_window_count(*d) for d in dims]


@pytest.mark.parametrize(
    "shape, sizes, strides, padding, lhs, rhs",
    [
        ((4, 6), (2, 3), (2, 3), ((0, 0), (0, 0)), (1, 1), (1, 1)),
        ((5,), (3,), (2,), ((1, 1),), (1,), (1,)),
        ((3, 2), (2, 1), (4, 1), ((2, 1), (0, 0)), (2, 1), (3, 1)),
        ((7, 9, 4), (3, 2, 1), (2, 3, 1), ((1, 2), (0, 1), (0, 0)), (1, 2, 1), (2, 1, 1)),
        ((6,), (2,), (1,), ((-1, -2),), (1,), (1,)),
    ],
)
def test_reduce_window_matches_jax(shape, sizes, strides, padding, lhs, rhs):
    jax = pytest.importorskip("jax", reason="JAX is the second oracle for window shapes")
    from jax import lax

    want = jax.eval_shape(
        lambda x: lax.reduce_window(x, 0.0, lax.add, sizes, strides, padding, lhs, rhs),
        jax.ShapeDtypeStruct(shape, np.float32),
    ).shape
    window = Window.make(sizes, strides, padding, lhs_dilation=lhs, rhs_dilation=rhs)
    operand = "f32[" + ",".join(map(str, shape)) + "]"
    assert reduce_window(operand, window).dimensions == tuple(want)


# -- select-and-scatter -------------------------------------------------------------------


def select_and_scatter(operand, source, window, init="f32[]", select=GE_F32, scatter=ADD_F32):
    return infer(
        Op.SELECT_AND_SCATTER,
        [operand, source, init],
        {"window": window},
        {"select": select, "scatter": scatter},
    )


def test_select_and_scatter_figure():
    # The max-pool gradient figure: operand [4,6], 2x3 windows, source [2,2].
    out = select_and_scatter("f32[4,6]", "f32[2,2]", Window.make([2, 3], [2, 3]))
    assert same(out, "f32[4,6]")
    # Overlapping windows (figure 2): stride 2 over width 6 with size 3 gives 2.
    assert same(select_and_scatter("f32[4,6]", "f32[3,2]", Window.make([2, 3], [1, 2])), "f32[4,6]")


def test_select_and_scatter_stablehlo_example():
    out = select_and_scatter(
        "s64[4,2]",
        "s64[2,2]",
        Window.make([3, 1], [2, 1], [(0, 1), (0, 0)]),
        init="s64[]",
        select=sig("s64[], s64[]", "pred[]"),
        scatter=ADD_S64,
    )
    assert same(out, "s64[4,2]")


def test_select_and_scatter_errors():
    w = Window.make([2, 3], [2, 3])
    ops = ["f32[4,6]", "f32[2,2]", "f32[]"]
    fails(
        Op.SELECT_AND_SCATTER,
        ["f32[4,6]", "f32[3,2]", "f32[]"],
        {"window": w},
        {"select": GE_F32, "scatter": ADD_F32},
        r"source has dimensions \[3, 2\] but the window yields \[2, 2\]",
    )
    fails(
        Op.SELECT_AND_SCATTER,
        ops,
        {"window": w},
        {"select": ADD_F32, "scatter": ADD_F32},
        "select must return pred",
    )
    fails(
        Op.SELECT_AND_SCATTER,
        ops,
        {"window": w},
        {"select": sig("s32[], s32[]", "pred[]"), "scatter": ADD_F32},
        "select parameter 0",
    )
    fails(
        Op.SELECT_AND_SCATTER,
        ops,
        {"window": w},
        {"select": GE_F32, "scatter": GE_F32},
        "scatter",
    )
    fails(
        Op.SELECT_AND_SCATTER,
        ops,
        {"window": Window.make([2, 3], [2, 3], lhs_dilation=[2, 1])},
        {"select": GE_F32, "scatter": ADD_F32},
        "dilated",
    )
    fails(
        Op.SELECT_AND_SCATTER,
        ["f32[4,6]", "f32[2,2]", "f32[1]"],
        {"window": w},
        {"select": GE_F32, "scatter": ADD_F32},
        "init value must be a scalar",
    )


# -- map ------------------------------------------------------------------------------


def test_map_stablehlo_example():
    out = infer(
        Op.MAP,
        ["s64[2,2]", "s64[2,2]"],
        {"dimensions": [0, 1]},
        {"to_apply": sig("s64[], s64[]", "s64[]")},
    )
    assert same(out, "s64[2,2]")


def test_map_result_type_comes_from_the_computation():
    out = infer(
        Op.MAP,
        ["f32[3]", "s32[3]", "f32[3]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], s32[], f32[]", "pred[]")},
    )
    assert same(out, "pred[3]")
    assert same(infer(Op.MAP, ["f32[]"], {}, {"to_apply": sig("f32[]", "u8[]")}), "u8[]")


def test_map_errors():
    fn = sig("f32[], f32[]", "f32[]")
    fails(Op.MAP, ["f32[2]", "f32[3]"], {"dimensions": [0]}, {"to_apply": fn}, "same dimensions")
    fails(Op.MAP, ["f32[2]"], {"dimensions": [0]}, {"to_apply": fn}, "one scalar per operand")
    fails(
        Op.MAP,
        ["f32[2]", "s32[2]"],
        {"dimensions": [0]},
        {"to_apply": fn},
        "parameter 1 is f32.*must be s32",
    )
    fails(
        Op.MAP,
        ["f32[2]", "f32[2]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], f32[]", "f32[2]")},
        "return a scalar",
    )
    fails(
        Op.MAP, ["f32[2,3]"], {"dimensions": [1]}, {"to_apply": sig("f32[]", "f32[]")}, "in order"
    )


# -- sort -----------------------------------------------------------------------------------


def test_sort_single_operand():
    out = infer(Op.SORT, ["f32[5]"], {"dimensions": [0]}, {"to_apply": LT_F32})
    assert same(out, "f32[5]")
    # A matrix sorted along columns (0) or rows (1) keeps its shape.
    for d in (0, 1):
        assert same(
            infer(Op.SORT, ["f32[3,4]"], {"dimensions": [d]}, {"to_apply": LT_F32}), "f32[3,4]"
        )


def test_sort_spec_three_operands():
    # operand0 = [3, 1], operand1 = [42, 50], operand2 = [-3.0, 1.1] -> a tuple of three.
    cmp = sig("s32[], s32[], s32[], s32[], f32[], f32[]", "pred[]")
    out = infer(Op.SORT, ["s32[2]", "s32[2]", "f32[2]"], {"dimensions": [0]}, {"to_apply": cmp})
    assert same(out, "(s32[2], s32[2], f32[2])")


def test_sort_stablehlo_example():
    cmp = sig("s64[], s64[], s64[], s64[]", "pred[]")
    out = infer(
        Op.SORT, ["s64[2,3]", "s64[2,3]"], {"dimensions": [0], "is_stable": True}, {"to_apply": cmp}
    )
    assert same(out, "(s64[2,3], s64[2,3])")


def test_sort_errors():
    fails(Op.SORT, ["f32[5]"], {"dimensions": [1]}, {"to_apply": LT_F32}, "outside")
    fails(Op.SORT, ["f32[5]"], {"dimensions": [0]}, {"to_apply": ADD_F32}, "return pred")
    fails(
        Op.SORT,
        ["f32[5]", "s32[5]"],
        {"dimensions": [0]},
        {"to_apply": LT_F32},
        "must take 4 scalar parameters",
    )
    fails(
        Op.SORT,
        ["f32[5]", "s32[5]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], f32[], f32[], f32[]", "pred[]")},
        "parameter 2 is f32.*operand 1",
    )
    fails(
        Op.SORT,
        ["f32[5]", "s32[4]"],
        {"dimensions": [0]},
        {"to_apply": sig("f32[], f32[], s32[], s32[]", "pred[]")},
        "same dimensions",
    )
    fails(Op.SORT, ["f32[5,2]"], {"dimensions": [0, 1]}, {"to_apply": LT_F32}, "the one dimension")


# -- top-k -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "operand, k, result",
    [
        ("f32[5]", 2, "(f32[2], s32[2])"),  # 1-D: values and their indices
        ("f32[3,10]", 4, "(f32[3,4], s32[3,4])"),  # [A, ..., P, Q] -> [A, ..., P, k]
        ("bf16[2,3,8]", 8, "(bf16[2,3,8], s32[2,3,8])"),
        ("s32[4]", 0, "(s32[0], s32[0])"),
    ],
)
def test_topk_spec_shapes(operand, k, result):
    out = infer(Op.TOPK, [operand], {"k": k, "largest": True})
    assert same(out, result)


def test_topk_errors():
    fails(Op.TOPK, ["f32[3,4]"], {"k": 5, "largest": True}, message=r"k=5 must be in \[0, 4\]")
    fails(Op.TOPK, ["f32[]"], {"k": 1}, message="at least one dimension")
    fails(Op.TOPK, ["f32[4]"], {"k": -1}, message="k=-1")
    fails(Op.TOPK, ["c64[4]"], {"k": 1}, message="no order")
    fails(Op.TOPK, ["f32[4]"], {}, message="k=")


def test_topk_matches_jax():
    jax = pytest.importorskip("jax", reason="JAX is the second oracle for top-k shapes")
    from jax import lax

    values, indices = jax.eval_shape(
        lambda x: lax.top_k(x, 3), jax.ShapeDtypeStruct((2, 7), np.float32)
    )
    out = infer(Op.TOPK, ["f32[2,7]"], {"k": 3, "largest": True})
    assert out.tuple_shapes[0].dimensions == values.shape
    assert out.tuple_shapes[1].dimensions == indices.shape
    assert indices.dtype == np.int32


# -- attributes as the HLO parser types them (lines JAX 0.10.2 printed) ------------------


@pytest.mark.parametrize(
    "opcode, operands, attrs, comps, result",
    [
        (
            Op.REDUCE_WINDOW,
            ["f32[4,6]", "f32[]"],
            {"window": "{size=2x3 stride=2x3 pad=1_0x0_2 lhs_dilate=1x2 rhs_dilate=2x1}"},
            {"to_apply": ADD_F32},
            "f32[2,4]",
        ),
        (
            Op.SELECT_AND_SCATTER,
            ["f32[4,6]", "f32[2,3]", "f32[]"],
            {"window": "{size=2x2 stride=2x2}"},
            {"select": GE_F32, "scatter": ADD_F32},
            "f32[4,6]",
        ),
        (
            Op.SORT,
            ["f32[4,6]"],
            {"dimensions": "{0}", "is_stable": "true"},
            {"to_apply": LT_F32},
            "f32[4,6]",
        ),
        (Op.TOPK, ["f32[4,6]"], {"k": "2", "largest": "true"}, {}, "(f32[4,2], s32[4,2])"),
        (
            Op.REDUCE,
            ["f32[4,6]", "s32[4,6]", "f32[]", "s32[]"],
            {"dimensions": "{1}"},
            {"to_apply": sig("f32[], s32[], f32[], s32[]", "(f32[], s32[])")},
            "(f32[4], s32[4])",
        ),
    ],
)
def test_rules_take_parsed_attributes(opcode, operands, attrs, comps, result):
    from xlapy.hlo.attributes import parse_attribute

    typed = {name: parse_attribute(opcode, name, text) for name, text in attrs.items()}
    assert same(infer(opcode, operands, typed, comps), result)


def test_unbounded_dimensions_stay_unbounded():
    out = reduce_window("f32[?,6]", Window.make([2, 3], [2, 3]))
    assert str(out).startswith("f32[?,2]")
    assert str(reduce("f32[?,6]", [1])).startswith("f32[?]")
