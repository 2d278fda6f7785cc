"""Literal: values of every element type, physical layouts, equality and tolerance."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.layout import (
    COMBINE_DIMENSION,
    Layout,
    PaddingValue,
    Tile,
    linear_index,
    physical_element_count,
)
from xlapy.literal import Literal, default_tolerance
from xlapy.shape import Shape
from xlapy.types import ARRAY_TYPES, PrimitiveType

P = PrimitiveType
FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- helpers -------------------------------------------------------------------------


def random_values(element_type: PrimitiveType, dims: tuple[int, ...], seed: int) -> np.ndarray:
    """Arbitrary bit patterns of a type (NaNs with payloads, infs, -0, subnormals)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(dims, dtype=np.int64))
    if element_type.is_pred:
        return rng.integers(0, 2, n).astype(np.bool_).reshape(dims)
    if element_type.is_sub_byte:
        raw = rng.integers(0, 1 << element_type.bit_width, n).astype(np.uint8)
        return raw.view(element_type.dtype).reshape(dims)
    size = element_type.dtype.itemsize
    return rng.integers(0, 256, n * size, dtype=np.uint8).view(element_type.dtype).reshape(dims)


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


SPECIALS = [0.0, -0.0, 1.0, -1.5, math.inf, -math.inf, math.nan, -math.nan, 1e-30, 3e38]


dims_strategy = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@st.composite
def layouts(draw, dims: tuple[int, ...]) -> Layout:
    """Random valid layouts: permutations, padding and multi-level tiles with '*'."""
    rank = len(dims)
    m2m = tuple(draw(st.permutations(range(rank))))
    padded: tuple[int, ...] = ()
    if rank and draw(st.booleans()):
        padded = tuple(d + draw(st.integers(0, 2)) for d in dims)
    pad_value = draw(st.sampled_from([PaddingValue.ZERO_PAD, PaddingValue.ONE_PAD]))
    tiles = []
    width = rank
    for _ in range(draw(st.integers(0, 2)) if rank else 0):
        k = draw(st.integers(1, width))
        entries = [draw(st.sampled_from([1, 2, 3, COMBINE_DIMENSION])) for _ in range(k - 1)]
        entries.append(draw(st.integers(1, 3)))
        tiles.append(Tile(tuple(entries)))
        width += k - 2 * entries.count(COMBINE_DIMENSION)  # each * merges two bounds
    return Layout(m2m, tuple(tiles), padded_dimensions=padded, padding_value=pad_value)


# -- numpy round trip ----------------------------------------------------------------


@pytest.mark.parametrize("element_type", ARRAY_TYPES, ids=str)
@FAST
@given(dims=dims_strategy, seed=st.integers(0, 2**32 - 1))
def test_numpy_round_trip_is_bit_exact(element_type, dims, seed):
    values = random_values(element_type, dims, seed)
    lit = Literal.from_numpy(values)
    assert lit.shape == Shape.array(element_type, dims)
    assert lit.element_type == element_type
    back = lit.to_numpy()
    assert same_bits(back, values)
    assert lit.data.shape == (values.size,)


@pytest.mark.parametrize("element_type", [t for t in ARRAY_TYPES if t.is_float], ids=str)
def test_special_float_values_survive(element_type):
    with np.errstate(all="ignore"):
        values = np.array(SPECIALS).astype(element_type.dtype).reshape(2, 5)
    for layout in ([1, 0], [0, 1], Layout((0, 1), (Tile((2, 2)),))):
        assert same_bits(Literal.from_numpy(values, layout).to_numpy(), values)


def test_default_layout_shares_memory_and_is_read_only():
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    lit = Literal.from_numpy(values)
    assert np.shares_memory(lit.data, values)
    assert np.shares_memory(lit.to_numpy(), values)
    assert not lit.data.flags.writeable
    with pytest.raises(ValueError):
        lit.data[0] = 1
    transposed = Literal.from_numpy(values.T)  # not contiguous: copied, still right
    assert np.array_equal(transposed.to_numpy(), values.T)


def test_rank_zero_and_zero_size():
    lit = Literal.from_numpy(np.float32(2.5))
    assert lit.shape == Shape.scalar(P.F32) and lit.to_numpy() == 2.5
    assert lit.get(()) == np.float32(2.5)
    empty = Literal.from_numpy(np.zeros((3, 0, 2), np.int8), [0, 2, 1])
    assert empty.to_numpy().shape == (3, 0, 2)
    assert empty.data.size == 0 and empty.byte_size() == 0


def test_non_native_byte_order_is_accepted():
    values = np.array([1.5, -2.0], dtype=">f4")
    lit = Literal.from_numpy(values)
    assert lit.element_type == P.F32 and list(lit.to_numpy()) == [1.5, -2.0]


# -- layouts ---------------------------------------------------------------------------


@FAST
@given(data=st.data(), dims=dims_strategy, seed=st.integers(0, 2**16))
def test_relayout_keeps_values_and_matches_index_math(data, dims, seed):
    values = random_values(P.F32, dims, seed)
    first = data.draw(layouts(dims))
    second = data.draw(layouts(dims))
    lit = Literal.from_numpy(values, first)
    assert same_bits(lit.to_numpy(), values)
    moved = lit.relayout(second)
    assert moved.shape.layout == second
    assert same_bits(moved.to_numpy(), values)
    assert moved.equal(lit)
    buffer = moved.data
    assert buffer.size == physical_element_count(dims, second)
    used = np.zeros(buffer.size, bool)
    for index in np.ndindex(*dims):
        position = linear_index(dims, second, index)
        assert buffer[position].tobytes() == values[index].tobytes()
        used[position] = True
    pad = {PaddingValue.ZERO_PAD: 0.0, PaddingValue.ONE_PAD: 1.0}[second.padding_value]
    if second.tiles or second.padded_dimensions:
        assert np.all(buffer[~used] == pad)


def test_seed_001_minor_to_major_examples():
    a, b, c, d, e, f = 1, 2, 3, 4, 5, 6
    values = np.array([[a, b, c], [d, e, f]], np.int32)
    assert list(Literal.from_numpy(values, [0, 1]).data) == [a, d, b, e, c, f]
    assert list(Literal.from_numpy(values, [1, 0]).data) == [a, b, c, d, e, f]
    padded = Layout((0, 1), padded_dimensions=(3, 5))
    assert list(Literal.from_numpy(values, padded).data) == [
        a, d, 0, b, e, 0, c, f, 0, 0, 0, 0, 0, 0, 0,
    ]  # fmt: skip


def test_tiled_layout_example_element_2_3_at_17():
    values = np.arange(15, dtype=np.float32).reshape(3, 5)
    layout = Layout((1, 0), (Tile((2, 2)),))
    lit = Literal.from_numpy(values, layout)
    assert lit.data.size == 24  # 2x3 tiles of 2x2
    assert lit.data[17] == values[2, 3]
    for i, j in np.ndindex(3, 5):  # the formula of tiled_layout.md, written out
        tile = (i // 2) * 3 + j // 2
        assert lit.data[tile * 4 + (i % 2) * 2 + j % 2] == values[i, j]
    assert lit.get((2, 3)) == values[2, 3]


@pytest.mark.parametrize(
    ("element_type", "pad", "expected"),
    [
        (P.F32, PaddingValue.ONE_PAD, 1.0),
        (P.F32, PaddingValue.LOWEST_PAD, -np.inf),
        (P.F32, PaddingValue.HIGHEST_PAD, np.inf),
        (P.S8, PaddingValue.LOWEST_PAD, -128),
        (P.U16, PaddingValue.HIGHEST_PAD, 65535),
        (P.F8E4M3FN, PaddingValue.HIGHEST_PAD, 448.0),
        (P.PRED, PaddingValue.HIGHEST_PAD, True),
        (P.S32, PaddingValue.ZERO_PAD, 0),
    ],
)
def test_padding_holds_the_padding_value(element_type, pad, expected):
    layout = Layout((1, 0), padded_dimensions=(2, 3), padding_value=pad)
    lit = Literal.from_numpy(np.zeros((1, 2), element_type.dtype), layout)
    data = lit.data.astype(np.float64)
    assert list(data[[0, 1]]) == [0, 0]
    assert np.all(data[2:] == float(expected))
    fresh = Literal(Shape.array(element_type, (1, 2), layout))
    assert same_bits(fresh.data, lit.data)


def test_complex_lowest_padding_is_unimplemented():
    layout = Layout((0,), padded_dimensions=(3,), padding_value=PaddingValue.LOWEST_PAD)
    with pytest.raises(UnimplementedError, match="complex"):
        Literal(Shape.array(P.C64, (2,), layout))


def test_relayout_accepts_sequences_shapes_and_tuples():
    values = np.arange(6, dtype=np.int16).reshape(2, 3)
    lit = Literal.from_numpy(values)
    assert list(lit.relayout([0, 1]).data) == [0, 3, 1, 4, 2, 5]
    assert lit.relayout(Shape.array(P.S16, (2, 3), [0, 1])).shape.layout == Layout((0, 1))
    pair = Literal.make_tuple([lit, Literal.scalar(1, P.F32)])
    target = Shape.tuple([Shape.array(P.S16, (2, 3), [0, 1]), Shape.scalar(P.F32)])
    moved = pair.relayout(target)
    assert moved.shape == target and moved == pair
    with pytest.raises(InvalidArgumentError, match="tuple Shape"):
        pair.relayout([1, 0])
    with pytest.raises(InvalidArgumentError):
        lit.relayout([0, 0])


def test_shape_without_layout_gets_the_default():
    lit = Literal(Shape.array(P.F32, (2, 3), None))
    assert lit.shape.layout == Layout((1, 0))
    assert np.array_equal(lit.to_numpy(), np.zeros((2, 3), np.float32))


def test_byte_size_follows_the_shape():
    assert (
        Literal.from_numpy(
            np.zeros((3, 5), np.float32), Layout((1, 0), (Tile((2, 2)),))
        ).byte_size()
        == 96
    )
    packed = Literal(Shape.array(P.S4, (3,), Layout((0,), element_size_in_bits=4)))
    assert packed.byte_size() == 2 and packed.data.size == 3
    pair = Literal.make_tuple([np.zeros(2, np.float64), Literal.token()])
    assert pair.byte_size() == 16


# -- construction -------------------------------------------------------------------------


def test_explicit_buffer_in_physical_order():
    shape = Shape.array(P.F32, (2, 3), [0, 1])
    lit = Literal(shape, np.array([0, 3, 1, 4, 2, 5], np.float32))
    assert np.array_equal(lit.to_numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (np.zeros(5, np.float32), "1-D buffer of 6 elements"),
        (np.zeros(6, np.float64), "dtype float64"),
        (np.zeros((2, 3), np.float32), "1-D buffer"),
        ([0.0] * 6, "numpy array"),
    ],
)
def test_bad_buffers_are_rejected(data, message):
    with pytest.raises(InvalidArgumentError, match=message):
        Literal(Shape.array(P.F32, (2, 3)), data)


def test_bad_construction():
    with pytest.raises(InvalidArgumentError, match="tuple"):
        Literal(Shape.tuple([Shape.scalar(P.F32)]), np.zeros(1, np.float32))
    with pytest.raises(InvalidArgumentError, match="Shape"):
        Literal("f32[2]")
    with pytest.raises(UnimplementedError, match="opaque"):
        Literal(Shape.opaque())
    with pytest.raises(InvalidArgumentError, match="no numpy|element type"):
        Literal.from_numpy(np.array(["a"]))


@pytest.mark.parametrize(
    ("value", "element_type"),
    [
        (True, P.PRED),
        (7, P.S32),
        (2**31, P.S64),
        (-(2**40), P.S64),
        (1.5, P.F32),
        (1 + 2j, P.C64),
        ([1, 2.5], P.F32),
        ([[True, False]], P.PRED),
        ([1, 2**33], P.S64),
        ([], P.F32),
        (np.float16(1), P.F16),
        (np.arange(3, dtype=np.uint8), P.U8),
    ],
)
def test_from_value_picks_xla_client_types(value, element_type):
    lit = Literal.from_value(value)
    assert lit.element_type == element_type
    assert np.array_equal(lit.to_numpy(), np.asarray(value, dtype=element_type.dtype))


def test_from_value_tuples_and_overrides():
    lit = Literal.from_value(([1.0, 2.0], (3, True)))
    assert lit.shape == Shape.parse("(f32[2]{0}, (s32[], pred[]))")
    assert lit.tuple_elements[1].tuple_elements[1].to_numpy() == np.True_
    assert Literal.from_value([1, 2], P.BF16).element_type == P.BF16
    assert Literal.from_value(np.arange(3), P.F8E5M2).element_type == P.F8E5M2
    assert list(Literal.from_value([-8, 7], P.S4).to_numpy().astype(int)) == [-8, 7]
    with pytest.raises(InvalidArgumentError, match="out of range for s4"):
        Literal.from_value([8], P.S4)
    with pytest.raises(InvalidArgumentError, match="s64"):
        Literal.from_value(2**64)
    assert Literal.from_value(2**64 - 1, P.U64).get(()) == np.uint64(2**64 - 1)
    with pytest.raises(InvalidArgumentError, match="complex"):
        Literal.from_value(np.array([1j]), P.F32)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ([[1, 2, 3], [4, 5]], r"nesting level 1, element \[1\] is a list of length 2 but"),
        ([[1, 2], 3], r"nesting level 1, element \[1\] is a scalar but element \[0\] is a list"),
        ([[[1], [2]], [[1], [2, 3]]], r"nesting level 2, element \[1\]\[1\] is a list of length 2"),
        (
            [[[1, 2]], [[1, 2, 3]]],
            r"level 2, element \[1\]\[0\] is a list of length 3 but element \[0\]\[0\]",
        ),
        ([(1, 2)], "Python tuple inside a nested list"),
        (["a"], "has type str"),
    ],
)
def test_ragged_and_bad_nested_lists(value, message):
    with pytest.raises(InvalidArgumentError, match=message):
        Literal.from_value(value)


def test_tuple_token_scalar_zeros_accessors():
    pair = Literal.make_tuple([1.5, [1, 2]])
    assert pair.is_tuple and len(pair.tuple_elements) == 2
    assert pair.to_numpy()[1].tolist() == [1, 2]
    with pytest.raises(InvalidArgumentError, match="data buffer"):
        _ = pair.data
    token = Literal.token()
    assert token.is_token and token.to_numpy() is None and token == Literal.token()
    with pytest.raises(InvalidArgumentError, match="not a tuple"):
        _ = Literal.scalar(1, P.S8).tuple_elements
    assert Literal.scalar(3, P.U2).get(()) == ml_dtypes.uint2(3)
    with pytest.raises(InvalidArgumentError, match="one value"):
        Literal.scalar([1, 2], P.S32)
    zeros = Literal.zeros(Shape.parse("(f32[2], s8[], token[])"))
    assert zeros.tuple_elements[0] == Literal.from_value([0.0, 0.0])
    assert zeros.tuple_elements[2].is_token
    lit = Literal.from_value([[1, 2], [3, 4]])
    assert lit.get((1, 0)) == 3 and lit.dimensions == (2, 2) and lit.element_count() == 4
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        lit.get((2, 0))


# -- equality and tolerance ------------------------------------------------------------------


def test_equality_is_bitwise_and_ignores_layout():
    a = Literal.from_numpy(np.array([[1.0, np.nan], [0.0, 2.0]], np.float32))
    assert a == Literal.from_numpy(a.to_numpy(), [0, 1])
    assert hash(a) == hash(a.relayout([0, 1]))
    negative_zero = Literal.from_value(np.array([[1.0, np.nan], [-0.0, 2.0]], np.float32))
    assert a != negative_zero
    payload = a.to_numpy().copy()
    payload.view(np.uint32)[0, 1] = 0x7FC00001
    assert a != Literal.from_numpy(payload)
    assert a != Literal.from_value(np.array([1.0, np.nan, 0.0, 2.0], np.float32))
    assert a != Literal.from_value(a.to_numpy().astype(np.float64))
    assert (a == 3) is False
    assert a.first_mismatch(negative_zero, exact=True).startswith("at index {1,0}: 0 vs -0")


def test_near_tolerances():
    def f32(*v):
        return Literal.from_value(np.array(v, np.float32))

    assert f32(1.0, np.nan, np.inf).near(f32(1.0 + 2e-6, np.nan, np.inf))
    assert not f32(1.0).near(f32(1.001))
    assert f32(1.0).near(f32(1.001), rtol=1e-2)
    assert not f32(np.nan).near(f32(1.0))
    assert not f32(np.inf).near(f32(-np.inf))
    assert not f32(np.inf).near(f32(3e38))
    assert f32(0.0).near(f32(-0.0))
    bf16 = Literal.from_value([1.0, 100.0], P.BF16)
    assert bf16.near(Literal.from_value([1.0078125, 100.5], P.BF16))
    assert not Literal.from_value([1, 2]).near(Literal.from_value([1, 3]))
    c = Literal.from_value(np.array([1 + 1j, complex(np.nan, 1)], np.complex64))
    assert c.near(Literal.from_value(np.array([1 + 1.000001j, complex(np.nan, 1)], np.complex64)))
    assert not c.near(Literal.from_value(np.array([1 + 2j, complex(np.nan, 1)], np.complex64)))
    message = f32(1, 2, 3).first_mismatch(f32(1, 2, 4))
    assert message.startswith("at index {2}: 3 vs 4") and "1 of 3" in message
    assert "shapes differ" in f32(1, 2).first_mismatch(f32(1, 2, 3))
    pair = Literal.make_tuple([f32(1), f32(2)])
    assert pair.first_mismatch(Literal.make_tuple([f32(1), f32(5)])).startswith(
        "tuple element {1}: at index {0}"
    )


@pytest.mark.parametrize("element_type", ARRAY_TYPES, ids=str)
def test_default_tolerances_are_defined_for_every_type(element_type):
    rtol, atol = default_tolerance(element_type)
    if element_type.is_float or element_type.is_complex:
        assert 0 < rtol < 2.5 and 0 < atol
    else:
        assert (rtol, atol) == (0.0, 0.0)
    assert rtol <= 1e-5 or element_type not in (P.F32, P.F64, P.C64, P.C128)


def test_convert():
    values = Literal.from_value(np.array([1.7, -2.5, np.nan, 1e10, -1e10], np.float32))
    assert values.convert(P.S32).to_numpy().tolist() == [1, -2, 0, 2**31 - 1, -(2**31)]
    assert values.convert(P.U8).to_numpy().tolist() == [1, 0, 0, 255, 0]
    assert values.convert(P.PRED).to_numpy().tolist() == [True, True, True, True, True]
    assert Literal.from_value([1, 2]).convert(P.BF16) == Literal.from_value([1.0, 2.0], P.BF16)
    with pytest.raises(UnimplementedError, match="c64 to f32"):
        Literal.from_value(1j).convert(P.F32)
    moved = Literal.from_numpy(np.ones((2, 2), np.int8), [0, 1]).convert(P.F32)
    assert moved.shape.layout == Layout((0, 1))
