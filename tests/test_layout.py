"""Layouts and index math: the worked examples of the spec, and properties for all layouts."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy import Layout
from xlapy.errors import InvalidArgumentError
from xlapy.layout import (
    linear_index,
    multi_index,
    physical_bounds,
    physical_element_count,
    physical_positions,
)
from xlapy.testing.strategies import dimensions, layouts


def lay_out(values, layout, fill="0"):
    """The physical buffer of a 2-D array of letters, as the spec draws it."""
    values = np.array(values)
    buf = np.full(physical_element_count(values.shape, layout), fill, dtype=object)
    buf[physical_positions(values.shape, layout).ravel()] = values.ravel()
    return " ".join(buf)


ABC = [["a", "b", "c"], ["d", "e", "f"]]


def test_seed_column_major_example():
    assert lay_out(ABC, Layout((0, 1))) == "a d b e c f"


def test_seed_row_major_example():
    assert lay_out(ABC, Layout((1, 0))) == "a b c d e f"


def test_seed_padded_example():
    layout = Layout((0, 1), padded_dimensions=(3, 5))
    assert lay_out(ABC, layout) == "a d 0 b e 0 c f 0 0 0 0 0 0 0"


def test_default_layout_is_major_to_minor():
    assert Layout.default(3).minor_to_major == (2, 1, 0)
    assert Layout.default(0).minor_to_major == ()
    assert str(Layout.default(2)) == "{1,0}"


def test_tiled_layout_figure1():
    # F32[3,5]{1,0:T(2,2)}: element (2,3) lands at linear position 17.
    layout = Layout((1, 0), tiles=[(2, 2)])
    assert linear_index((3, 5), layout, (2, 3)) == 17
    assert physical_bounds((3, 5), layout) == [2, 3, 2, 2]
    # Tiles in row-major order, elements row-major within a tile; padding fills the rest.
    expected = [
        [0, 1, 4, 5, 8],
        [2, 3, 6, 7, 10],
        [12, 13, 16, 17, 20],
    ]
    assert physical_positions((3, 5), layout).tolist() == expected


def test_repeated_tiling_figure2():
    # 4x8 tiled by (2,4) then (2,1): pairs of rows interleave inside each 2x4 tile.
    layout = Layout((1, 0), tiles=[(2, 4), (2, 1)])
    pos = physical_positions((4, 8), layout)
    assert pos[0, :4].tolist() == [0, 2, 4, 6]
    assert pos[1, :4].tolist() == [1, 3, 5, 7]
    assert pos[0, 4:8].tolist() == [8, 10, 12, 14]
    assert pos[2, 0] == 16
    assert sorted(pos.ravel().tolist()) == list(range(32))


def test_alternative_bf16_packing_example():
    # 8x8 tiled by (2,4)(2,1,1,1): element (6,5) sits at position 51.
    layout = Layout((1, 0), tiles=[(2, 4), (2, 1, 1, 1)])
    assert linear_index((8, 8), layout, (6, 5)) == 51


def test_combined_dimensions():
    # F32[2,7,8,11,10] tiled by (*,*,2,*,3) behaves like F32[112,110] tiled by (2,3).
    dims = (2, 7, 8, 11, 10)
    layout = Layout((4, 3, 2, 1, 0), tiles=[(-1, -1, 2, -1, 3)])
    flat = Layout((1, 0), tiles=[(2, 3)])
    assert physical_bounds(dims, layout) == physical_bounds((112, 110), flat)
    idx = (1, 3, 5, 7, 9)
    row = (1 * 7 + 3) * 8 + 5
    col = 7 * 10 + 9
    assert linear_index(dims, layout, idx) == linear_index((112, 110), flat, (row, col))
    assert str(layout) == "{4,3,2,1,0:T(*,*,2,*,3)}"


def test_multi_index_inverts_linear_index():
    layout = Layout((0, 1), padded_dimensions=(3, 5))
    assert multi_index((2, 3), layout, 4) == (1, 1)
    with pytest.raises(InvalidArgumentError, match="padding"):
        multi_index((2, 3), layout, 2)
    assert multi_index((2, 3), Layout((1, 0)), 4) == (1, 1)


def test_bad_layouts_are_rejected():
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        Layout((0, 0))
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        Layout((0, 2))
    with pytest.raises(InvalidArgumentError, match="padded_dimensions"):
        Layout((1, 0), padded_dimensions=(3,))
    with pytest.raises(InvalidArgumentError, match="smaller than the dimension size"):
        physical_positions((4, 2), Layout((1, 0), padded_dimensions=(3, 2)))
    with pytest.raises(InvalidArgumentError, match="positive"):
        Layout((0,), tiles=[(0,)])
    with pytest.raises(InvalidArgumentError, match="most minor entry"):
        physical_positions((4, 4), Layout((1, 0), tiles=[(2, -1)]))
    with pytest.raises(InvalidArgumentError, match="out of bounds"):
        linear_index((2, 3), Layout((1, 0)), (2, 0))


@st.composite
def dims_and_layout(draw):
    dims = draw(dimensions(max_rank=4, max_size=5))
    return dims, draw(layouts(dims))


@settings(max_examples=300, deadline=None)
@given(dims_and_layout())
def test_positions_are_an_injection_into_the_buffer(case):
    dims, layout = case
    pos = physical_positions(dims, layout)
    total = physical_element_count(dims, layout)
    assert pos.shape == tuple(dims)
    flat = pos.ravel()
    assert len(np.unique(flat)) == flat.size
    assert flat.size == 0 or (flat.min() >= 0 and flat.max() < total)
    assert total >= int(np.prod(dims, dtype=np.int64))


@settings(max_examples=200, deadline=None)
@given(dims_and_layout(), st.data())
def test_scalar_and_vector_index_math_agree(case, data):
    dims, layout = case
    if 0 in dims:
        return
    idx = tuple(data.draw(st.integers(0, d - 1)) for d in dims)
    lin = linear_index(dims, layout, idx)
    assert lin == physical_positions(dims, layout)[idx]
    assert multi_index(dims, layout, lin) == idx


@settings(max_examples=100, deadline=None)
@given(dimensions(max_rank=4, max_size=5, min_rank=1), st.data())
def test_plain_layouts_are_permuted_row_major(dims, data):
    m2m = tuple(data.draw(st.permutations(range(len(dims)))))
    pos = physical_positions(dims, Layout(m2m))
    # A plain layout is a transpose of row-major order over the physical dimensions.
    major_to_minor = m2m[::-1]
    expected = np.arange(int(np.prod(dims))).reshape([dims[d] for d in major_to_minor])
    expected = np.transpose(expected, np.argsort(major_to_minor))
    assert np.array_equal(pos, expected)
