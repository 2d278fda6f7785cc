"""Shape rules of slice, pad, gather and scatter.

The worked examples of operation_semantics.md and the StableHLO spec, one
invalid call per gather/scatter constraint, JAX's shapes as a second oracle
and property tests of slice and pad sizes against numpy.
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
from xlapy.types import PrimitiveType
from xlapy.xla_data import PaddingConfig

S = Shape.parse
ADD_F32 = ProgramShape([S("f32[]"), S("f32[]")], S("f32[]"))
ADD_S64 = ProgramShape([S("s64[]"), S("s64[]")], S("s64[]"))


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


def f32(dims) -> str:
    return "f32[" + ",".join(map(str, dims)) + "]"


# -- slice --------------------------------------------------------------------------------


def slice_(operand: str, *triples):
    return infer(Op.SLICE, [operand], {"slice": tuple(triples)})


def test_slice_spec_examples():
    # Slice({0,1,2,3,4}, {2}, {4}) -> {2.0, 3.0}
    assert same(slice_("f32[5]", (2, 4, 1)), "f32[2]")
    # Slice(b[4x3], {2,1}, {4,3}) -> {{7,8},{10,11}}
    assert same(slice_("f32[4,3]", (2, 4, 1), (1, 3, 1)), "f32[2,2]")
    # StableHLO: [3,4] from [1,2] to [3,4] -> [2,2]
    assert same(slice_("s64[3,4]", (1, 3, 1), (2, 4, 1)), "s64[2,2]")


def test_slice_strides_and_empty_ranges():
    assert same(slice_("f32[10]", (1, 10, 3)), "f32[3]")  # 1, 4, 7
    assert same(slice_("f32[10]", (0, 10, 4)), "f32[3]")  # 0, 4, 8
    assert same(slice_("f32[4]", (2, 2, 1)), "f32[0]")
    assert same(slice_("f32[]"), "f32[]")


def test_slice_errors():
    fails(Op.SLICE, ["f32[4]"], {"slice": ((3, 2, 1),)}, message="start must be <= the limit")
    fails(Op.SLICE, ["f32[4]"], {"slice": ((0, 5, 1),)}, message="limit must be <= 4")
    fails(Op.SLICE, ["f32[4]"], {"slice": ((-1, 2, 1),)}, message="start must be >= 0")
    fails(Op.SLICE, ["f32[4]"], {"slice": ((0, 2, 0),)}, message="stride must be >= 1")
    fails(Op.SLICE, ["f32[4,2]"], {"slice": ((0, 2, 1),)}, message="rank 2")
    fails(Op.SLICE, ["f32[4]"], {"slice": 3}, message="triple per dimension")
    fails(Op.SLICE, ["f32[4]"], {}, message="slice=")


_slice_dim = st.integers(0, 9).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(0, n), st.integers(1, 4)).map(
        lambda t: (t[0], min(t[1], t[2]), max(t[1], t[2]), t[3])
    )
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_slice_dim, max_size=4))
def test_slice_sizes_match_numpy(dims):
    operand = Shape.array(PrimitiveType.F32, [d[0] for d in dims])
    out = infer_shape(Op.SLICE, [operand], {"slice": tuple(d[1:] for d in dims)})
    want = np.empty([d[0] for d in dims])[tuple(slice(a, b, s) for _, a, b, s in dims)].shape
    assert out.dimensions == want


def test_slice_of_a_dynamic_dimension():
    # A bounded dynamic dimension stays dynamic unless a single element is taken.
    assert str(slice_("f32[<=6,3]", (0, 6, 1), (0, 2, 1))).startswith("f32[<=6,2]")
    assert str(slice_("f32[<=6]", (1, 4, 1))).startswith("f32[<=3]")
    assert str(slice_("f32[<=6]", (2, 3, 1))).startswith("f32[1]")
    # An unbounded one has no limit to check, and the slice fixes its size.
    assert str(slice_("f32[?]", (0, 4, 1))).startswith("f32[4]")


# -- pad ------------------------------------------------------------------------------------


def pad(operand: str, value: str, *triples):
    return infer(Op.PAD, [operand, value], {"padding": PaddingConfig.from_triples(triples)})


def test_pad_stablehlo_example():
    # [2,3] padded low (0, 1), high (2, 1), interior (1, 2) -> [5, 9]
    assert same(pad("s32[2,3]", "s32[]", (0, 2, 1), (1, 1, 2)), "s32[5,9]")


def test_pad_edge_and_interior_examples():
    assert same(pad("f32[3]", "f32[]", (0, 0, 0)), "f32[3]")  # a no-op
    assert same(pad("f32[3]", "f32[]", (1, 2, 0)), "f32[6]")
    assert same(pad("f32[3]", "f32[]", (0, 0, 1)), "f32[5]")
    assert same(pad("f32[3]", "f32[]", (-1, -1, 0)), "f32[1]")  # negative removes
    # Interior padding happens first, then negative edge padding removes from it.
    assert same(pad("f32[3]", "f32[]", (-1, -1, 2)), "f32[5]")
    assert same(pad("f32[0]", "f32[]", (2, 1, 5)), "f32[3]")
    assert same(pad("f32[2,3]", "f32[]", (1, 1, 0), (0, 0, 1)), "f32[4,5]")


def test_pad_errors():
    cfg = {"padding": PaddingConfig.from_triples([(0, 0, 0)])}
    fails(Op.PAD, ["f32[3]", "f32[1]"], cfg, message="padding value must be a scalar")
    fails(Op.PAD, ["f32[3]", "s32[]"], cfg, message="element type s32.*operand has f32")
    fails(Op.PAD, ["f32[3,2]", "f32[]"], cfg, message="rank 2")
    fails(
        Op.PAD,
        ["f32[3]", "f32[]"],
        {"padding": PaddingConfig.from_triples([(-2, -2, 0)])},
        message="would have size -1",
    )
    fails(Op.PAD, ["f32[3]", "f32[]"], {"padding": [(0, 0, 0)]}, message="PaddingConfig")
    with pytest.raises(InvalidArgumentError, match="interior_padding"):
        PaddingConfig.from_triples([(0, 0, -1)])  # rejected before it reaches the rule


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 6), st.integers(-4, 4), st.integers(-4, 4), st.integers(0, 3)),
        min_size=1,
        max_size=3,
    )
)
def test_pad_sizes_match_numpy(dims):
    """Pad with numpy (interior by strided assignment, edges by np.pad or slicing);
    where numpy would have to cut more than there is, the rule must refuse."""
    want = [_numpy_padded_length(*d) for d in dims]
    operand = Shape.array(PrimitiveType.F32, [d[0] for d in dims])
    args = ([operand, S("f32[]")], {"padding": PaddingConfig.from_triples([d[1:] for d in dims])})
    if None in want:
        with pytest.raises(InvalidArgumentError, match="negative edge padding"):
            infer_shape(Op.PAD, *args)
    else:
        assert list(infer_shape(Op.PAD, *args).dimensions) == want


def _numpy_padded_length(n: int, low: int, high: int, interior: int) -> int | None:
    spread = np.zeros(n + max(n - 1, 0) * interior)
    spread[:: interior + 1] = np.ones(n)
    padded = np.pad(spread, (max(low, 0), max(high, 0)))
    cut_low, cut_high = max(-low, 0), max(-high, 0)
    if cut_low + cut_high > len(padded):
        return None
    return len(padded[cut_low : len(padded) - cut_high])


def test_pad_matches_jax():
    jax = pytest.importorskip("jax", reason="JAX is the second oracle for pad shapes")
    from jax import lax

    config = [(1, -2, 2), (0, 3, 0), (-1, -1, 1)]
    want = jax.eval_shape(
        lambda x: lax.pad(x, np.float32(0), config), jax.ShapeDtypeStruct((4, 2, 5), np.float32)
    ).shape
    assert pad("f32[4,2,5]", "f32[]", *config).dimensions == want


# -- gather ----------------------------------------------------------------------------------


def gather(operand, indices, **dn):
    return infer(Op.GATHER, [operand, indices], dn)


def test_gather_informal_example_batch_dynamic_slice():
    # 5 slices of shape [8,6] from a [16,11] array, positions in an s64[5,2].
    out = gather(
        "f32[16,11]",
        "s64[5,2]",
        offset_dims=(1, 2),
        collapsed_slice_dims=(),
        start_index_map=(0, 1),
        index_vector_dim=1,
        slice_sizes=(8, 6),
    )
    assert same(out, "f32[5,8,6]")


def test_gather_informal_example_multidimensional_indices():
    # The same with indices [4,5,2]: G0, G1 are batch dimensions.
    out = gather(
        "f32[16,11]",
        "s64[4,5,2]",
        offset_dims=(2, 3),
        collapsed_slice_dims=(),
        start_index_map=(0, 1),
        index_vector_dim=2,
        slice_sizes=(8, 6),
    )
    assert same(out, "f32[4,5,8,6]")


def test_gather_informal_example_gather_nd():
    # tf.gather_nd: index vectors of one element pick whole rows, slice_sizes [1,11].
    out = gather(
        "f32[16,11]",
        "s32[4,5,1]",
        offset_dims=(2,),
        collapsed_slice_dims=(0,),
        start_index_map=(0,),
        index_vector_dim=2,
        slice_sizes=(1, 11),
    )
    assert same(out, "f32[4,5,11]")


def test_gather_offset_dims_can_be_anywhere():
    # offset_dims choose where the slice dimensions go; the rest are batch dims.
    out = gather(
        "f32[16,11]",
        "s32[4,5,2]",
        offset_dims=(0, 2),
        collapsed_slice_dims=(),
        start_index_map=(0, 1),
        index_vector_dim=2,
        slice_sizes=(8, 6),
    )
    assert same(out, "f32[8,4,6,5]")


def test_gather_implicit_trailing_index_vector():
    # index_vector_dim == rank(start_indices): scalar indices, as for a [6,7] -> [6,7,1].
    out = gather(
        "f32[10,3]",
        "s32[6,7]",
        offset_dims=(2,),
        collapsed_slice_dims=(0,),
        start_index_map=(0,),
        index_vector_dim=2,
        slice_sizes=(1, 3),
    )
    assert same(out, "f32[6,7,3]")


def test_gather_index_vector_dim_in_the_middle():
    out = gather(
        "f32[10,9]",
        "s32[3,2,4]",
        offset_dims=(2,),
        collapsed_slice_dims=(0,),
        start_index_map=(0, 1),
        index_vector_dim=1,
        slice_sizes=(1, 5),
    )
    assert same(out, "f32[3,4,5]")


STABLEHLO_GATHER = dict(
    offset_dims=(3, 4),
    collapsed_slice_dims=(1,),
    operand_batching_dims=(0,),
    start_indices_batching_dims=(1,),
    start_index_map=(2, 1),
    index_vector_dim=3,
    slice_sizes=(1, 1, 2, 2),
)


def test_gather_stablehlo_example_with_batching_dims():
    assert same(gather("s32[2,3,4,2]", "s64[2,2,3,2]", **STABLEHLO_GATHER), "s32[2,2,3,2,2]")


def test_gather_dynamic_dimensions():
    out = gather(
        "f32[<=8,3]",
        "s32[<=5,1]",
        offset_dims=(1, 2),
        collapsed_slice_dims=(),
        start_index_map=(1,),
        index_vector_dim=1,
        slice_sizes=(8, 2),
    )
    assert str(out).startswith("f32[<=5,<=8,2]")


GATHER_OK = dict(
    offset_dims=(1,),
    collapsed_slice_dims=(0,),
    start_index_map=(0,),
    index_vector_dim=1,
    slice_sizes=(1, 4),
)


@pytest.mark.parametrize(
    "operand, indices, changes, message",
    [
        ("f32[3,4]", "f32[2,1]", {}, "integer element type"),
        (
            "f32[3,4]",
            "s32[2,1]",
            {"index_vector_dim": 3},
            r"index_vector_dim=3 must be in \[0, 2\]",
        ),
        ("f32[3,4]", "s32[2,1]", {"slice_sizes": (1,)}, "one slice size per operand dimension"),
        ("f32[3,4]", "s32[2,1]", {"collapsed_slice_dims": ()}, "account for 1 of 2"),  # C1
        (
            "f32[3,4,5]",
            "s32[2,1]",
            {"offset_dims": (2, 1), "slice_sizes": (1, 4, 5)},
            "offset_dims .* sorted",
        ),  # C4
        (
            "f32[3,4,5]",
            "s32[2,1]",
            {"offset_dims": (1, 1), "slice_sizes": (1, 4, 5)},
            "offset_dims .* repeats",
        ),  # C4
        ("f32[3,4]", "s32[2,1]", {"offset_dims": (2,)}, r"offset_dims \[2\] has 2.*\[0, 2\)"),  # C5
        ("f32[3,4]", "s32[2,1]", {"collapsed_slice_dims": (2,)}, "collapsed_slice_dims .* outside"),
        ("f32[3,4]", "s32[2,1]", {"slice_sizes": (2, 4)}, r"collapsed.*slice_sizes\[0\]=2"),  # C9
        ("f32[3,4]", "s32[2,2]", {"start_index_map": (0, 0)}, "start_index_map .* repeats"),  # C18
        ("f32[3,4]", "s32[2,1]", {"start_index_map": (2,)}, "start_index_map .* outside"),  # C19
        (
            "f32[3,4]",
            "s32[2,2]",
            {},
            "start_index_map .* has 1 entries but the index vectors",
        ),  # C3
        ("f32[3,4]", "s32[2,1]", {"slice_sizes": (1, 5)}, r"slice_sizes\[1\]=5 must be in \[0, 4"),
        ("f32[3,4]", "s32[2,1]", {"slice_sizes": (1, -1)}, r"slice_sizes\[1\]=-1"),  # C21
        (
            "f32[3,4,5]",
            "s32[2,1]",
            {"collapsed_slice_dims": (1, 0), "offset_dims": (1,), "slice_sizes": (1, 1, 5)},
            "collapsed_slice_dims .* sorted",
        ),  # C7
        (
            "f32[3,4]",
            "s32[2,1]",
            {"collapsed_slice_dims": (0, 0), "offset_dims": ()},
            "collapsed_slice_dims .* repeats",
        ),  # C6
    ],
)
def test_gather_constraint_violations(operand, indices, changes, message):
    fails(Op.GATHER, [operand, indices], {**GATHER_OK, **changes}, message=message)


# Valid: operand dimension 0 pairs with index dimension 0, dimension 1 is indexed.
GATHER_BATCHED = dict(
    operand_batching_dims=(0,),
    start_indices_batching_dims=(0,),
    collapsed_slice_dims=(1,),
    offset_dims=(1,),
    start_index_map=(1,),
    index_vector_dim=1,
    slice_sizes=(1, 1, 4),
)
# Valid with two batching dimensions.
GATHER_BATCHED_2 = dict(
    operand_batching_dims=(0, 1),
    start_indices_batching_dims=(0, 1),
    start_index_map=(2,),
    collapsed_slice_dims=(),
    offset_dims=(2, 3),
    index_vector_dim=2,
    slice_sizes=(1, 1, 3, 4),
)


@pytest.mark.parametrize(
    "operand, changes, message",
    [
        ("f32[2,3,4]", {"collapsed_slice_dims": (0,)}, "share dimension"),  # C6 across lists
        ("f32[2,3,4]", {"operand_batching_dims": (3,)}, "operand_batching_dims .* outside"),  # C11
        ("f32[2,3,4]", {"slice_sizes": (2, 1, 4)}, r"batching.*slice_sizes\[0\]=2"),  # C12
        ("f32[2,3,4]", {"start_indices_batching_dims": (2,)}, "indices_batching_dims .* outside"),
        ("f32[2,3,4]", {"start_indices_batching_dims": (1,)}, "contains index_vector_dim=1"),  # C15
        ("f32[2,3,4]", {"start_indices_batching_dims": ()}, "same length"),  # C16
        ("f32[5,3,4]", {}, "has size 5 but its partner.*has size 2"),  # C17
        ("f32[2,3,4]", {"start_index_map": (0,)}, "start_index_map .* share"),  # C18
        ("f32[2,2,3,4]", {"operand_batching_dims": (1, 0)}, "operand_batching_dims .* sorted"),
        ("f32[2,2,3,4]", {"start_indices_batching_dims": (1, 1)}, "batching_dims .* repeats"),
    ],
)
def test_gather_batching_constraint_violations(operand, changes, message):
    base, indices = (GATHER_BATCHED, "s32[2,1]")
    if operand == "f32[2,2,3,4]":
        base, indices = (GATHER_BATCHED_2, "s32[2,2,1]")
    valid = {"s32[2,1]": ("f32[2,3,4]", "f32[2,4]"), "s32[2,2,1]": ("f32[2,2,3,4]", "f32[2,2,3,4]")}
    assert same(gather(valid[indices][0], indices, **base), valid[indices][1])
    fails(Op.GATHER, [operand, indices], {**base, **changes}, message=message)


def test_gather_needs_its_attributes():
    attrs = dict(GATHER_OK)
    del attrs["slice_sizes"]
    fails(Op.GATHER, ["f32[3,4]", "s32[2,1]"], attrs, message="slice_sizes=")
    attrs = dict(GATHER_OK)
    del attrs["index_vector_dim"]
    fails(Op.GATHER, ["f32[3,4]", "s32[2,1]"], attrs, message="index_vector_dim=")
    fails(Op.GATHER, ["f32[3,4]"], GATHER_OK, message="takes 2 operands")


@pytest.mark.parametrize(
    "operand, indices, offset, collapsed, start_map, slices, obatch, ibatch",
    [
        ((16, 11), (5, 2), (1, 2), (), (0, 1), (8, 6), (), ()),
        ((16, 11), (4, 5, 2), (2, 3), (), (0, 1), (8, 6), (), ()),
        ((16, 11), (4, 5, 1), (2,), (0,), (0,), (1, 11), (), ()),
        ((16, 11), (4, 5, 2), (0, 2), (), (0, 1), (8, 6), (), ()),
        ((2, 3, 4, 2), (2, 2, 3, 2), (3, 4), (1,), (2, 1), (1, 1, 2, 2), (0,), (1,)),
        ((7, 3, 5), (3, 7, 2), (2,), (1,), (1, 2), (1, 1, 4), (0,), (1,)),
    ],
)
def test_gather_matches_jax(operand, indices, offset, collapsed, start_map, slices, obatch, ibatch):
    jax = pytest.importorskip("jax", reason="JAX is the second oracle for gather shapes")
    from jax import lax

    dn = lax.GatherDimensionNumbers(
        offset_dims=offset,
        collapsed_slice_dims=collapsed,
        start_index_map=start_map,
        operand_batching_dims=obatch,
        start_indices_batching_dims=ibatch,
    )
    want = jax.eval_shape(
        lambda x, i: lax.gather(x, i, dn, slices, mode="clip"),
        jax.ShapeDtypeStruct(operand, np.float32),
        jax.ShapeDtypeStruct(indices, np.int32),
    ).shape
    out = gather(
        f32(operand),
        "s32[" + ",".join(map(str, indices)) + "]",
        offset_dims=offset,
        collapsed_slice_dims=collapsed,
        start_index_map=start_map,
        operand_batching_dims=obatch,
        start_indices_batching_dims=ibatch,
        index_vector_dim=len(indices) - 1,
        slice_sizes=slices,
    )
    assert out.dimensions == want


# -- scatter ---------------------------------------------------------------------------------


STABLEHLO_SCATTER = dict(
    update_window_dims=(3, 4),
    inserted_window_dims=(1,),
    input_batching_dims=(0,),
    scatter_indices_batching_dims=(1,),
    scatter_dims_to_operand_dims=(2, 1),
    index_vector_dim=3,
)


def scatter(operands, attrs, to_apply=ADD_F32):
    return infer(Op.SCATTER, operands, attrs, {"to_apply": to_apply})


def test_scatter_stablehlo_example_with_batching_dims():
    out = scatter(["s64[2,3,4,2]", "s64[2,2,3,2]", "s64[2,2,3,2,2]"], STABLEHLO_SCATTER, ADD_S64)
    assert same(out, "s64[2,3,4,2]")


SCATTER_ROWS = dict(
    update_window_dims=(1,),
    inserted_window_dims=(0,),
    scatter_dims_to_operand_dims=(0,),
    index_vector_dim=1,
)


def test_scatter_rows():
    # The inverse of gather's gather_nd example: whole rows, updates [G, 3].
    assert same(scatter(["f32[5,3]", "s32[2,1]", "f32[2,3]"], SCATTER_ROWS), "f32[5,3]")
    # Implicit trailing index vector: indices s32[2] with index_vector_dim 1.
    assert same(scatter(["f32[5,3]", "s32[2]", "f32[2,3]"], SCATTER_ROWS), "f32[5,3]")
    # Windows smaller than the operand are fine.
    assert same(scatter(["f32[5,3]", "s32[2]", "f32[2,2]"], SCATTER_ROWS), "f32[5,3]")


def test_scatter_informal_windows():
    # Scattering [8,6] windows into [16,11] at 5 positions (the gather example reversed).
    attrs = dict(
        update_window_dims=(1, 2),
        inserted_window_dims=(),
        scatter_dims_to_operand_dims=(0, 1),
        index_vector_dim=1,
    )
    assert same(scatter(["f32[16,11]", "s64[5,2]", "f32[5,8,6]"], attrs), "f32[16,11]")


def test_variadic_scatter():
    add2 = ProgramShape([S("f32[]"), S("s32[]"), S("f32[]"), S("s32[]")], S("(f32[], s32[])"))
    out = scatter(["f32[5,3]", "s32[5,3]", "s32[2,1]", "f32[2,3]", "s32[2,3]"], SCATTER_ROWS, add2)
    assert same(out, "(f32[5,3], s32[5,3])")


ROWS = ["f32[5,3]", "s32[2,1]", "f32[2,3]"]


@pytest.mark.parametrize(
    "operands, changes, message",
    [
        (["f32[5,3]", "f32[2,1]", "f32[2,3]"], {}, "integer element type"),  # I2
        (ROWS, {"index_vector_dim": 3}, r"index_vector_dim=3 must be in \[0, 2\]"),  # C22
        (ROWS, {"inserted_window_dims": ()}, "account for 1 of 2"),  # C2
        (ROWS, {"update_window_dims": (2,)}, r"update_window_dims \[2\] has 2.*\[0, 2\)"),  # C8
        (ROWS, {"inserted_window_dims": (2,)}, "inserted_window_dims .* outside"),  # C11
        (ROWS, {"scatter_dims_to_operand_dims": (0, 1)}, "has 2 entries but the index vectors"),
        (ROWS, {"scatter_dims_to_operand_dims": (2,)}, "scatter_dims_to_operand_dims .* outside"),
        (["f32[5,3]", "s32[2,1]", "f32[2,3,1]"], {}, "updates have rank 3 but must have rank 2"),
        (["f32[5,3]", "s32[2,1]", "f32[2,4]"], {}, "size 4, more than the 3"),  # C4
        (["f32[5,3]", "s32[2,1]", "f32[3,3]"], {}, "has size 3 but the matching batch.*size 2"),
        (["f32[5,3]", "s32[2,1]", "s32[2,3]"], {}, "updates 0 has element type s32"),  # C6
        (["f32[5,3]", "s32[2,1]"], {}, "odd number"),  # C5
        (
            ["f32[5,3,4]", "s32[2,1]", "f32[2,3,4]"],
            {"update_window_dims": (2, 1)},
            "update_window_dims .* sorted",
        ),  # C7
        (
            ["f32[5,3,4]", "s32[2,1]", "f32[2,3,4]"],
            {"update_window_dims": (1, 1)},
            "update_window_dims .* repeats",
        ),  # C7
        (
            ["f32[5,3,4]", "s32[2,1]", "f32[2,4]"],
            {"inserted_window_dims": (1, 0)},
            "inserted_window_dims .* sorted",
        ),  # C10
        (
            ["f32[5,3]", "s32[2,1]", "f32[2]"],
            {"inserted_window_dims": (0, 0), "update_window_dims": ()},
            "inserted_window_dims .* repeats",
        ),  # C9
        (
            ["f32[5,3]", "s32[2,2]", "f32[2]"],
            {
                "scatter_dims_to_operand_dims": (0, 0),
                "inserted_window_dims": (0, 1),
                "update_window_dims": (),
            },
            "scatter_dims_to_operand_dims .* repeats",
        ),  # C20
    ],
)
def test_scatter_constraint_violations(operands, changes, message):
    fails(Op.SCATTER, operands, {**SCATTER_ROWS, **changes}, {"to_apply": ADD_F32}, message)


# Valid: operand dimension 0 pairs with index dimension 0, dimension 1 is indexed.
SCATTER_BATCHED = dict(
    update_window_dims=(1,),
    inserted_window_dims=(1,),
    input_batching_dims=(0,),
    scatter_indices_batching_dims=(0,),
    scatter_dims_to_operand_dims=(1,),
    index_vector_dim=1,
)
# Valid with two batching dimensions.
SCATTER_BATCHED_2 = dict(
    update_window_dims=(2,),
    inserted_window_dims=(2,),
    input_batching_dims=(0, 1),
    scatter_indices_batching_dims=(0, 1),
    scatter_dims_to_operand_dims=(2,),
    index_vector_dim=2,
)


@pytest.mark.parametrize(
    "operand, changes, message",
    [
        ("f32[2,3,4]", {"inserted_window_dims": (0,)}, "share dimension"),  # C9 across lists
        ("f32[2,3,4]", {"input_batching_dims": (3,)}, "input_batching_dims .* outside"),  # C13
        ("f32[2,3,4]", {"scatter_indices_batching_dims": (2,)}, "indices_batching_dims .* outside"),
        ("f32[2,3,4]", {"scatter_indices_batching_dims": (1,)}, "contains index_vector_dim=1"),
        ("f32[2,3,4]", {"scatter_indices_batching_dims": ()}, "same length"),  # C17
        ("f32[5,3,4]", {}, "has size 5 but its partner.*has size 2"),  # C18
        ("f32[2,3,4]", {"scatter_dims_to_operand_dims": (0,)}, "to_operand_dims .* share"),  # C20
        ("f32[2,2,3,4]", {"input_batching_dims": (1, 0)}, "input_batching_dims .* sorted"),  # C12
        ("f32[2,2,3,4]", {"scatter_indices_batching_dims": (1, 1)}, "batching_dims .* repeats"),
    ],
)
def test_scatter_batching_constraint_violations(operand, changes, message):
    base, operands = (SCATTER_BATCHED, [operand, "s32[2,1]", "f32[2,4]"])
    if operand == "f32[2,2,3,4]":
        base, operands = (SCATTER_BATCHED_2, [operand, "s32[2,2,1]", "f32[2,2,4]"])
    valid = [operands[0].replace("5", "2"), *operands[1:]]
    assert same(scatter(valid, base), valid[0])
    fails(Op.SCATTER, operands, {**base, **changes}, {"to_apply": ADD_F32}, message)


def test_scatter_update_computation_and_variadic_errors():
    fails(
        Op.SCATTER,
        ROWS,
        SCATTER_ROWS,
        {"to_apply": ProgramShape([S("f32[]")], S("f32[]"))},
        "must take 2 scalar parameters",
    )  # C23
    fails(
        Op.SCATTER,
        ROWS,
        SCATTER_ROWS,
        {"to_apply": ProgramShape([S("s32[]"), S("s32[]")], S("s32[]"))},
        "accumulat",
    )  # C23
    fails(
        Op.SCATTER,
        ["f32[5,3]", "f32[4,3]", "s32[2,1]", "f32[2,3]", "f32[2,3]"],
        SCATTER_ROWS,
        {"to_apply": ADD_F32},
        "all operands must have the same dimensions",
    )  # C1
    fails(
        Op.SCATTER,
        ["f32[5,3]", "f32[5,3]", "s32[2,1]", "f32[2,3]", "f32[2,2]"],
        SCATTER_ROWS,
        {"to_apply": ADD_F32},
        "all updates must have the same dimensions",
    )  # C3
    fails(Op.SCATTER, ROWS, SCATTER_ROWS, {}, "to_apply=")


@pytest.mark.parametrize(
    "operand, indices, updates, window, inserted, sdod, obatch, ibatch",
    [
        ((5, 3), (2, 1), (2, 3), (1,), (0,), (0,), (), ()),
        ((16, 11), (5, 2), (5, 8, 6), (1, 2), (), (0, 1), (), ()),
        ((16, 11), (4, 5, 2), (4, 8, 5, 6), (1, 3), (), (0, 1), (), ()),
        ((2, 3, 4, 2), (2, 2, 3, 2), (2, 2, 3, 2, 2), (3, 4), (1,), (2, 1), (0,), (1,)),
    ],
)
def test_scatter_matches_jax(operand, indices, updates, window, inserted, sdod, obatch, ibatch):
    jax = pytest.importorskip("jax", reason="JAX is the second oracle for scatter shapes")
    from jax import lax

    dn = lax.ScatterDimensionNumbers(
        update_window_dims=window,
        inserted_window_dims=inserted,
        scatter_dims_to_operand_dims=sdod,
        operand_batching_dims=obatch,
        scatter_indices_batching_dims=ibatch,
    )
    want = jax.eval_shape(
        lambda x, i, u: lax.scatter_add(x, i, u, dn),
        jax.ShapeDtypeStruct(operand, np.float32),
        jax.ShapeDtypeStruct(indices, np.int32),
        jax.ShapeDtypeStruct(updates, np.float32),
    ).shape
    out = scatter(
        [f32(operand), "s32[" + ",".join(map(str, indices)) + "]", f32(updates)],
        dict(
            update_window_dims=window,
            inserted_window_dims=inserted,
            scatter_dims_to_operand_dims=sdod,
            input_batching_dims=obatch,
            scatter_indices_batching_dims=ibatch,
            index_vector_dim=len(indices) - 1,
        ),
    )
    assert out.dimensions == want


# -- attributes as the HLO parser types them (lines JAX 0.10.2 printed) ------------------


@pytest.mark.parametrize(
    "opcode, operands, attrs, result",
    [
        (Op.PAD, ["f32[4,6]", "f32[]"], {"padding": "1_-1_1x0_2_0"}, "f32[7,8]"),
        (Op.SLICE, ["f32[4,6]"], {"slice": "{[1:3:1], [0:6:2]}"}, "f32[2,3]"),
        (Op.SLICE, ["f32[4,6]"], {"slice": "{[1:3], [0:6]}"}, "f32[2,6]"),
        (
            Op.GATHER,
            ["f32[4,6]", "s32[5,1]"],
            {
                "offset_dims": "{1}",
                "collapsed_slice_dims": "{0}",
                "start_index_map": "{0}",
                "index_vector_dim": "1",
                "slice_sizes": "{1,6}",
            },
            "f32[5,6]",
        ),
        (
            Op.SCATTER,
            ["f32[4,6]", "s32[5,1]", "f32[5,6]"],
            {
                "update_window_dims": "{1}",
                "inserted_window_dims": "{0}",
                "scatter_dims_to_operand_dims": "{0}",
                "index_vector_dim": "1",
            },
            "f32[4,6]",
        ),
    ],
)
def test_rules_take_parsed_attributes(opcode, operands, attrs, result):
    from xlapy.hlo.attributes import parse_attribute

    typed = {name: parse_attribute(opcode, name, text) for name, text in attrs.items()}
    assert same(infer(opcode, operands, typed, {"to_apply": ADD_F32}), result)


def test_pad_keeps_an_unbounded_dimension_unbounded():
    assert str(pad("f32[?,3]", "f32[]", (1, 1, 0), (1, 1, 0))).startswith("f32[?,5]")
