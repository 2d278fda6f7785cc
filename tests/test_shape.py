"""Shapes: construction, HLO text in both directions, equality flavours, sizes, errors."""

import pytest
from hypothesis import given, settings

import xlapy
from xlapy import Layout, Shape
from xlapy.errors import InvalidArgumentError, ParseError
from xlapy.shape import UNBOUNDED_SIZE
from xlapy.testing.strategies import array_shapes, shapes


def test_array_defaults_to_major_to_minor():
    s = Shape.array(xlapy.F32, [2, 3])
    assert str(s) == "f32[2,3]{1,0}"
    assert s.rank == 2 and s.dimensions == (2, 3) and s.element_count() == 6
    assert s.byte_size() == 24
    assert s.layout == Layout((1, 0))


@pytest.mark.parametrize(
    "text",
    [
        "f32[2,3]{1,0}",
        "f32[2,3]{0,1}",
        "f32[2,3]",
        "f32[]",
        "pred[0]{0}",
        "(f32[2]{0}, s32[])",
        "()",
        "((f32[]), (token[], bf16[3]{0}))",
        "token[]",
        "opaque[]",
        "f32[<=10]{0}",
        "s32[<=4,3]{1,0}",
        "f32[?,3]{1,0}",
        "f32[3,5]{1,0:T(2,2)}",
        "bf16[8,128]{1,0:T(8,128)(2,1)}",
        "s4[16]{0:E(4)}",
        "f32[4]{0:S(1)}",
        "f32[2,3]{0,1:PAD(3,5)}",
        "f32[2,3]{1,0:PAD(3,5;LOWEST_PAD)}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "f8e4m3fn[2]{0}",
        "c128[1,1]{0,1}",
        "u2[7]{0}",
        "f32[3]{0:L(s32)P(s64)}",
    ],
)
def test_text_round_trips(text):
    assert str(Shape.parse(text)) == text


def test_parse_accepts_spacing_and_index_comments():
    s = Shape.parse("( f32[2] {0},  s32[] , /*index=2*/pred[1]{0} )")
    assert str(s) == "(f32[2]{0}, s32[], pred[1]{0})"
    assert Shape.parse("f32[]{}") == Shape.scalar(xlapy.F32)


def test_long_tuples_carry_index_comments_as_xla_prints_them():
    text = "(f32[], s32[], f32[], f32[], f32[], /*index=5*/pred[], f32[])"
    assert str(Shape.parse(text)) == text
    assert len(Shape.parse(text).tuple_shapes) == 7


def test_tuples_and_tokens():
    t = Shape.tuple([Shape.array(xlapy.F32, [2]), Shape.scalar(xlapy.S32)])
    assert t.is_tuple and len(t.tuple_shapes) == 2
    assert str(t) == "(f32[2]{0}, s32[])"
    assert t.byte_size() == 16  # one pointer per element, as XLA's ByteSizeOf
    assert str(Shape.token()) == "token[]" and Shape.token().is_token
    with pytest.raises(InvalidArgumentError, match="not a tuple shape"):
        _ = Shape.scalar(xlapy.F32).tuple_shapes
    with pytest.raises(InvalidArgumentError, match="only arrays have a rank"):
        _ = t.rank


def test_dynamic_dimensions():
    s = Shape.parse("f32[<=10,3]{1,0}")
    assert s.is_dynamic_dimension(0) and not s.is_dynamic_dimension(1)
    assert not s.is_static and s.dimensions == (10, 3)
    assert s.element_count() == 30  # bounds count for storage
    u = Shape.parse("f32[?]")
    assert u.dimensions == (UNBOUNDED_SIZE,) and u.is_unbounded_dynamic
    with pytest.raises(InvalidArgumentError, match="unbounded"):
        u.byte_size()
    assert not s.equal(Shape.array(xlapy.F32, [10, 3]))
    assert s.equal(Shape.array(xlapy.F32, [10, 3]), ignore_dynamic_dimensions=True)


def test_equality_flavours():
    a = Shape.parse("f32[2,3]{1,0}")
    b = Shape.parse("f32[2,3]{0,1}")
    c = Shape.parse("f32[2,3]")
    assert a != b and a != c and a == Shape.array(xlapy.F32, [2, 3])
    assert a.compatible(b) and a.compatible(c)
    assert a.equal(b, ignore_layout=True)
    assert not a.compatible(Shape.parse("f16[2,3]{1,0}"))
    assert a.compatible_ignoring_fp_precision(Shape.parse("f16[2,3]{1,0}"))
    assert a.compatible_ignoring_element_type(Shape.parse("s8[2,3]"))
    assert a.same_dimensions(Shape.parse("pred[2,3]"))
    assert not a.compatible(Shape.parse("f32[3,2]"))
    assert hash(a) == hash(Shape.array(xlapy.F32, [2, 3]))
    assert Shape.tuple([a]).compatible(Shape.tuple([b]))
    assert not Shape.tuple([a]).compatible(a)


def test_byte_sizes():
    assert Shape.parse("f32[3,5]{1,0:T(2,2)}").byte_size() == 4 * 24  # padded to whole tiles
    assert Shape.parse("f32[2,3]{0,1:PAD(3,5)}").byte_size() == 4 * 15
    assert Shape.parse("s4[16]{0:E(4)}").byte_size() == 8  # packed
    assert Shape.parse("s4[16]{0}").byte_size() == 16  # one element a byte
    assert Shape.parse("pred[3]").byte_size() == 3
    assert Shape.parse("c128[2]").byte_size() == 32
    assert Shape.token().byte_size() == 0


def test_derived_shapes():
    s = Shape.parse("f32[2,3]{0,1}")
    assert str(s.with_default_layout()) == "f32[2,3]{1,0}"
    assert str(s.without_layout()) == "f32[2,3]"
    assert str(s.with_element_type(xlapy.S8)) == "s8[2,3]{0,1}"
    assert str(s.with_layout([1, 0])) == "f32[2,3]{1,0}"
    assert s.dimension(-1) == 3
    t = Shape.parse("(f32[2], (s32[3]))")
    assert str(t.with_default_layout()) == "(f32[2]{0}, (s32[3]{0}))"


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("f32[2,", 7, "expected a dimension size"),
        ("f32[2,3", 8, "expected ']'"),
        ("f33[2]", 1, "unknown element type 'f33'"),
        ("f32[2,3]{0,0}", 9, "not a permutation"),
        ("f32[2,3]{1,0", 13, "expected '}'"),
        ("f32[2]{0} x", 11, "unexpected text"),
        ("(f32[2], s32[]", 15, "expected ')'"),
        ("f32[-1]", 5, "negative"),
        ("f32[2,3]{1}", 9, "has 1 dimensions but the array has 2"),
        ("", 1, "expected a shape"),
        ("token[2]", 1, "takes no dimensions"),
        ("f32[2]{0:T(0)}", 10, "bad layout annotation"),
    ],
)
def test_parse_errors_point_at_the_problem(text, column, message):
    with pytest.raises(ParseError) as info:
        Shape.parse(text)
    err = info.value
    assert message in str(err)
    assert err.line == 1
    assert err.column == column, str(err)
    assert "^" in str(err)


def test_construction_errors():
    with pytest.raises(InvalidArgumentError, match="negative size"):
        Shape.array(xlapy.F32, [-2])
    with pytest.raises(InvalidArgumentError, match="not a permutation"):
        Shape.array(xlapy.F32, [2, 3], [0, 0])
    with pytest.raises(InvalidArgumentError, match="array element type"):
        Shape.array(xlapy.TOKEN, [2])
    with pytest.raises(InvalidArgumentError, match="has 3 dimensions but the array has 2"):
        Shape.array(xlapy.F32, [2, 3], [2, 1, 0])


@settings(max_examples=300, deadline=None)
@given(shapes())
def test_any_shape_round_trips_through_text(shape):
    text = str(shape)
    again = Shape.parse(text)
    assert again == shape
    assert str(again) == text


@settings(max_examples=100, deadline=None)
@given(array_shapes(layout="none"))
def test_shapes_without_layout_round_trip(shape):
    assert Shape.parse(str(shape)) == shape
    # Scalars always carry their trivial layout; other arrays keep its absence.
    assert (shape.layout is None) == (shape.rank > 0)
