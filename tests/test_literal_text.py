"""XLA's literal text: exact printing, round trips, and what the parser accepts or rejects.

Expected strings marked "XLA:" were printed by the XLA in jaxlib 0.10.2
(``jax.jit(...).lower().compiler_ir("hlo").as_hlo_text()`` and
``xla_client.hlo.hlo_module_from_text(...).to_string()`` with large constants).
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.errors import InvalidArgumentError, ParseError, UnimplementedError
from xlapy.layout import Layout, Tile
from xlapy.literal import Literal
from xlapy.literal_text import format_element, format_literal, parse_literal, parse_literal_at
from xlapy.shape import Shape
from xlapy.types import ARRAY_TYPES, PrimitiveType

P = PrimitiveType
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def body(value, element_type=None) -> str:
    """What HLO text puts inside constant(...)."""
    lit = value if isinstance(value, Literal) else Literal.from_value(value, element_type)
    return format_literal(lit, with_shape=False, oneline=True)


def bits(dtype, *raw) -> np.ndarray:
    size = np.dtype(dtype).itemsize
    unsigned = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    return np.array(raw, unsigned).view(dtype)


def random_values(element_type: PrimitiveType, dims: tuple[int, ...], seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(np.prod(dims, dtype=np.int64))
    if element_type.is_pred:
        return rng.integers(0, 2, n).astype(np.bool_).reshape(dims)
    if element_type.is_sub_byte:
        raw = rng.integers(0, 1 << element_type.bit_width, n).astype(np.uint8)
        return raw.view(element_type.dtype).reshape(dims)
    size = element_type.dtype.itemsize
    return rng.integers(0, 256, n * size, dtype=np.uint8).view(element_type.dtype).reshape(dims)


# -- exact XLA output ------------------------------------------------------------------


F8_SOURCE = np.array([1, 0.1, 1.5, -0.0, np.nan, np.inf, 3.3, 0.3], np.float32)


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (np.array([[1, 2], [3, 4]], np.float32), "{ { 1, 2 }, { 3, 4 } }"),
        (
            np.array(
                [1.5, -0.0, np.nan, np.inf, -np.inf, 1e-8, 1e30, 0.1, 3, 123456789], np.float32
            ),
            "{1.5, -0, nan, inf, -inf, 1e-08, 1e+30, 0.1, 3, 123456792}",
        ),
        (
            np.array([0.1, 1 / 3, 1e100, 5e-324]),
            "{0.1, 0.33333333333333331, 1e+100, 4.94065645841247e-324}",
        ),
        (np.array([1, 2.5, -0.0, np.nan], ml_dtypes.bfloat16), "{1, 2.5, -0, nan}"),
        (np.array([1, 2.5, -0.0, np.nan, 65504], np.float16), "{1, 2.5, -0, nan, 65504}"),
        (np.array(0.1, ml_dtypes.bfloat16), "0.1001"),
        (np.array(0.1, np.float16), "0.099976"),
        (np.array(1e-45, np.float32), "1.4013e-45"),
        (np.array(0.12345678901234567890, np.float32), "0.123456791"),
        (np.array([True, False]), "{1, 0}"),
        (np.array(True), "true"),
        (np.array(False), "false"),
        (
            np.array([1 + 2j, -0.5 - 1j, complex(np.nan, np.inf)], np.complex64),
            "{(1, 2), (-0.5, -1), (nan, inf)}",
        ),
        (np.array([1 + 2j], np.complex128), "{(1, 2)}"),
        (np.array(1e-320 + 2j), "(9.99988867182683e-321, 2)"),
        (
            np.arange(1, 9, dtype=np.int32).reshape(2, 2, 2),
            "{ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } }",
        ),
        (np.array(7, np.int8), "7"),
        (np.array(2**64 - 1, np.uint64), "18446744073709551615"),
        (np.array(-(2**63), np.int64), "-9223372036854775808"),
        (np.zeros((0, 3), np.float32), "{  }"),
        (np.zeros((2, 0), np.float32), "{ {}, {} }"),
        (np.zeros(0, np.float32), "{}"),
        (np.array([1, 2, 3], np.float32).reshape(1, 3, 1), "{ { {1}, {2}, {3} } }"),
        (
            np.tile(np.array([[1, 2], [3, 4]], np.float32), (2, 2, 1, 1)),
            "{ { /*i0=0*/ { /*i1=0*/ { 1, 2 }, { 3, 4 } }, { /*i1=1*/ { 1, 2 }, { 3, 4 } } }, "
            "{ /*i0=1*/ { /*i1=0*/ { 1, 2 }, { 3, 4 } }, { /*i1=1*/ { 1, 2 }, { 3, 4 } } } }",
        ),
        (
            np.tile(np.array([1, 2, 3], np.float32), (2, 1, 1, 1)),
            "{ { /*i0=0*/ { /*i1=0*/ { 1, 2, 3 } } }, { /*i0=1*/ { /*i1=0*/ { 1, 2, 3 } } } }",
        ),
        (np.array([0, 1, -1, 7, 2, 3]).astype(ml_dtypes.int4), "{0, 1, -1, 7, 2, 3}"),
        (np.array([0, 1, 15, 7, 2, 3]).astype(ml_dtypes.uint4), "{0, 1, 15, 7, 2, 3}"),
        (np.array([0, 1, -1, -2]).astype(ml_dtypes.int2), "{0, 1, -1, -2}"),
        (
            bits(np.float32, 0x7FC00001, 0xFFC00000, 0x7F800001, 0x7FFFFFFF),
            "{nan(0x400001), -nan, nan(0x1), nan(0x7fffff)}",
        ),
        (bits(np.float64, 0x7FF8000000000001, 0xFFF8000000000000), "{nan(0x8000000000001), -nan}"),
        (bits(np.float16, 0x7E01, 0xFE00, 0x7C01), "{nan(0x201), -nan, nan(0x1)}"),
        (bits(ml_dtypes.bfloat16, 0x7FC1, 0xFFC0), "{nan(0x41), -nan}"),
        (bits(ml_dtypes.float8_e5m2, 0x7F, 0xFF, 0x7D), "{nan(0x3), -nan(0x3), nan(0x1)}"),
        (bits(ml_dtypes.float8_e5m2fnuz, 0x80), "{-nan}"),
    ],
)
def test_constant_bodies_match_xla(values, expected):  # XLA: every expected string
    assert body(np.asarray(values)) == expected


@pytest.mark.parametrize(
    ("dtype", "expected"),
    [  # XLA: F8_SOURCE converted to each type by ml_dtypes
        (ml_dtypes.float8_e5m2, "{1, 0.094, 1.5, -0, nan, inf, 3.5, 0.31}"),
        (ml_dtypes.float8_e4m3, "{1, 0.102, 1.5, -0, nan, inf, 3.25, 0.312}"),
        (ml_dtypes.float8_e4m3fn, "{1, 0.102, 1.5, -0, nan, nan, 3.25, 0.312}"),
        (ml_dtypes.float8_e4m3b11fnuz, "{1, 0.102, 1.5, 0, -nan, -nan, 3.25, 0.312}"),
        (ml_dtypes.float8_e5m2fnuz, "{1, 0.094, 1.5, 0, -nan, -nan, 3.5, 0.31}"),
        (ml_dtypes.float8_e4m3fnuz, "{1, 0.102, 1.5, 0, -nan, -nan, 3.25, 0.312}"),
        (ml_dtypes.float8_e3m4, "{1, 0.0938, 1.5, -0, nan, inf, 3.25, 0.297}"),
        (ml_dtypes.float8_e8m0fnu, "{1, 0.12, 2, nan, nan, nan, 4, 0.25}"),
        (ml_dtypes.float4_e2m1fn, "{1, 0, 1.5, -0, -0, 6, 3, 0.5}"),
    ],
)
def test_small_float_types_match_xla(dtype, expected):
    with np.errstate(all="ignore"):
        assert body(F8_SOURCE.astype(dtype)) == expected


def test_tuples_and_tokens_match_xla():
    pair = Literal.from_value(([1.0, 2.0], 3))
    assert body(pair) == "( {1, 2}, 3 )"  # XLA
    assert body(Literal.from_value(([1.0, 2.0], (3, True)))) == "( {1, 2}, ( 3, true ) )"  # XLA
    assert body(Literal.make_tuple([])) == "(  )"  # XLA
    assert format_literal(pair) == "(\nf32[2] {1, 2},\ns32[] 3\n)"
    assert format_literal(pair, oneline=True) == "( f32[2] {1, 2}, s32[] 3 )"
    assert format_literal(Literal.token()) == "token"


def test_to_string_forms():
    lit = Literal.from_numpy(np.array([[1, 2], [3, 4]], np.float32), [0, 1])
    assert str(lit) == "f32[2,2] {\n  { 1, 2 },\n  { 3, 4 }\n}"
    assert repr(lit) == "Literal(f32[2,2] { { 1, 2 }, { 3, 4 } })"
    assert format_literal(lit, with_layout=True, oneline=True) == (
        "f32[2,2]{0,1} { { 1, 2 }, { 3, 4 } }"
    )
    cube = Literal.from_value(np.arange(8, dtype=np.int8).reshape(2, 2, 2))
    assert str(cube) == (
        "s8[2,2,2] {\n{\n  { 0, 1 },\n  { 2, 3 }\n},\n{\n  { 4, 5 },\n  { 6, 7 }\n}\n}"
    )
    assert str(Literal.scalar(2.5, P.F32)) == "f32[] 2.5"
    tiled = lit.relayout(Layout((1, 0), (Tile((2, 1)),)))
    assert format_literal(tiled) == str(lit)  # the text is always in logical order
    assert format_element(np.float32(0.1), P.F32) == "0.1"
    assert format_element(True, P.PRED) == "true"


# -- round trips -----------------------------------------------------------------------


@pytest.mark.parametrize("element_type", ARRAY_TYPES, ids=str)
@FAST
@given(
    dims=st.lists(st.integers(0, 3), min_size=0, max_size=5).map(tuple),
    seed=st.integers(0, 2**32 - 1),
    oneline=st.booleans(),
)
def test_text_round_trip_is_bit_exact(element_type, dims, seed, oneline):
    lit = Literal.from_numpy(random_values(element_type, dims, seed))
    text = format_literal(lit, with_shape=False, oneline=oneline)
    back, end = parse_literal_at(text, 0, lit.shape)
    assert end == len(text)
    assert back.equal(lit), (text, format_literal(back))
    full = parse_literal(format_literal(lit, oneline=oneline))
    assert full.equal(lit) and full.shape == lit.shape


@st.composite
def literals(draw, depth: int = 0) -> Literal:
    if depth < 2 and draw(st.integers(0, 3)) == 0:
        return Literal.make_tuple(draw(st.lists(literals(depth + 1), max_size=3)))
    if draw(st.integers(0, 9)) == 0:
        return Literal.token()
    element_type = draw(st.sampled_from(ARRAY_TYPES))
    dims = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    return Literal.from_numpy(random_values(element_type, dims, draw(st.integers(0, 2**16))))


@FAST
@given(lit=literals(), oneline=st.booleans())
def test_tuple_text_round_trip(lit, oneline):
    text = format_literal(lit, with_shape=False, oneline=oneline)
    back, end = parse_literal_at(text, 0, lit.shape)
    assert end == len(text) and back.equal(lit)
    assert parse_literal(format_literal(lit, oneline=oneline)).equal(lit)


def test_parse_into_a_non_default_layout():
    shape = Shape.parse("f32[3,5]{1,0:T(2,2)}")
    lit, _ = parse_literal_at("{ {0,1,2,3,4}, {5,6,7,8,9}, {10,11,12,13,14} }", 0, shape)
    assert lit.shape == shape and lit.data[17] == 13.0
    assert np.array_equal(lit.to_numpy(), np.arange(15, dtype=np.float32).reshape(3, 5))
    padded = Shape.array(P.S32, (2,), Layout((0,), (Tile((4,)),)))
    assert list(parse_literal_at("{7, 8}", 0, padded)[0].data) == [7, 8, 0, 0]


# -- what the parser accepts -------------------------------------------------------------


def parse(text: str, shape: str) -> Literal:
    lit, end = parse_literal_at(text, 0, Shape.parse(shape))
    assert end == len(text.rstrip())
    return lit


@pytest.mark.parametrize(
    ("text", "shape", "expected"),
    [
        ("{ {1, 2},\n  {3, 4} }", "f32[2,2]", [[1, 2], [3, 4]]),
        ("{{1 2} {3 4}}", "s32[2,2]", [[1, 2], [3, 4]]),  # XLA: commas are optional
        ("{1, 2,}", "f32[2]", [1, 2]),  # XLA: trailing comma
        ("{ /*c*/ 1 /* x */, 2 }", "f32[2]", [1, 2]),
        ("{ { /*i0=0*/ { /*i1=0*/ {1} } } }", "s8[1,1,1,1]", [[[[1]]]]),
        ("1.", "f32[]", 1.0),  # XLA
        ("1e+2", "f32[]", 100.0),  # XLA
        ("1E2", "f64[]", 100.0),  # XLA
        ("1e-50", "f32[]", 0.0),  # XLA: underflow is not an error
        ("449", "f8e4m3fn[]", 448.0),  # XLA: in range after rounding
        ("7", "f4e2m1fn[]", 6.0),  # XLA
        ("3", "f8e8m0fnu[]", 4.0),  # XLA
        ("2", "pred[]", True),  # XLA: nonzero integers are true
        ("{true, 0}", "pred[2]", [True, False]),
        ("18446744073709551615", "u64[]", 2**64 - 1),
        ("-9223372036854775808", "s64[]", -(2**63)),
        ("-8", "s4[]", -8),
        ("(1, -2.5)", "c64[]", 1 - 2.5j),
        ("{(1,2), (3, 4)}", "c128[2]", [1 + 2j, 3 + 4j]),
        ("{...}", "f32[1000]", np.zeros(1000)),
        ("{ ... }", "s32[2,3]", np.zeros((2, 3))),
        ("{inf, -inf}", "f32[2]", [np.inf, -np.inf]),
        ("{5.9e-39, 8.9e-39, 1.2e-38}", "f8e8m0fnu[3]", [2.0**-127, 2.0**-126, 2.0**-126]),
        ("-inf", "f8e4m3fn[]", np.nan),  # XLA: no infinities, so NaN
    ],
)
def test_parser_accepts(text, shape, expected):
    lit = parse(text, shape)
    np.testing.assert_array_equal(lit.to_numpy().astype(np.complex128), np.asarray(expected))


def test_parser_special_values_keep_their_bits():
    f32 = parse("{-0, nan, -nan, nan(0x1), -nan(0x7fffff), nan(0x400000)}", "f32[6]")
    assert f32.to_numpy().view(np.uint32).tolist() == [
        0x80000000, 0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF, 0x7FC00000,
    ]  # fmt: skip
    assert parse("nan(0x1)", "f8e5m2[]").to_numpy().view(np.uint8) == 0x7D  # XLA
    assert parse("nan(0x2)", "f8e5m2[]").to_numpy().view(np.uint8) == 0x7E  # XLA: plain nan
    assert parse("-nan", "f8e4m3fn[]").to_numpy().view(np.uint8) == 0xFF
    assert parse("nan", "f8e4m3fnuz[]").to_numpy().view(np.uint8) == 0x80
    assert parse("-0", "s32[]").to_numpy() == 0
    c = parse("(nan(0x3), -inf)", "c64[]").to_numpy()
    assert c.real.view(np.uint32) == 0x7F800003 and c.imag == -np.inf


def test_parse_literal_at_stops_after_the_literal():
    text = '  c = f32[2] constant({1, 2}), metadata={op_name="x"}'
    start = text.index("(") + 1
    lit, end = parse_literal_at(text, start, Shape.parse("f32[2]"))
    assert text[end:].startswith("), metadata")
    assert lit == Literal.from_value([1.0, 2.0])
    tup, end = parse_literal_at("( {1, 2}, 3 ) rest", 0, Shape.parse("(f32[2], s32[])"))
    assert tup == Literal.from_value(([1.0, 2.0], 3)) and end == len("( {1, 2}, 3 )")
    elided, _ = parse_literal_at("{...}", 0, Shape.parse("(f32[2], s32[])"))
    assert elided == Literal.zeros(Shape.parse("(f32[2], s32[])"))
    token, _ = parse_literal_at("token", 0, Shape.token())
    assert token.is_token


def test_parse_literal_full_forms():
    assert parse_literal("f32[2] {1, 2}") == Literal.from_value([1.0, 2.0])
    assert parse_literal("  pred[] true\n") == Literal.scalar(True, P.PRED)
    layout = parse_literal("f32[2,2]{0,1} {{1,2},{3,4}}")
    assert layout.shape.layout == Layout((0, 1)) and layout.get((0, 1)) == 2
    nested = parse_literal("(\nf32[2] {1, 2},\n(\ns32[] 3,\ntoken\n)\n)")
    assert nested.shape == Shape.parse("(f32[2]{0}, (s32[], token[]))")
    dynamic = parse_literal("f32[<=2](2) {1, 2}")
    assert dynamic.shape.dynamic_dimensions == (True,)
    assert format_literal(dynamic) == "f32[<=2](2) {1, 2}"
    with pytest.raises(UnimplementedError, match="dynamic sizes"):
        parse_literal("f32[<=3](2) {1, 2}")


# -- what the parser rejects -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shape", "message", "column"),
    [
        (
            "{ {1, 2, 3}, {4, 5} }",
            "f32[2,3]",
            "expected 3 elements in dimension 1 (in element {1}), found 2",
            19,
        ),
        ("{1, 2, 3}", "f32[2]", "expected 2 elements in dimension 0, found more", 8),
        ("{ {1, 2} }", "f32[2,2]", "expected 2 elements in dimension 0, found 1", 10),
        ("{1, 2", "f32[2]", "expected '}' to close dimension 0, found the end of the text", 6),
        ("{1, 2", "f32[3]", "expected a value or '}' to close dimension 0, found the end", 6),
        ("{ {1, 2}, {3, 4}", "f32[2,2]", "expected '}' to close dimension 0, found the end", 17),
        ("{ {1, 2}, {3", "f32[2,2]", "close dimension 1 (in element {1}), found the end", 13),
        ("", "f32[]", "expected a number for f32, found the end of the text", 1),
        ("1, 2}", "f32[2]", "expected '{' to start the rank-1 array literal", 1),
        ("{1, x}", "f32[2]", "expected a number for f32, found 'x'", 5),
        ("{1, 2x}", "s32[2]", "expected an integer for s32, found '2x'", 5),
        ("{1, 2.5}", "s32[2]", "expected an integer for s32, found '2.5'", 5),
        ("{1, true}", "s32[2]", "expected an integer for s32, found 'true'", 5),
        ("1.5", "pred[]", "expected true, false or an integer for pred", 1),
        ("{ {1}, 2 }", "f32[2,1]", "expected '{' to start a sub-array of dimension 1", 8),
        ("{ {1}, {{2}} }", "f32[2,1]", "so its braces nest 2 deep", 9),
        ("{1}", "f32[]", "expected a scalar value for f32[], found '{'", 1),
        ("{(1, 2)}", "f32[1]", "expected a number for f32, found '('", 2),
        ("{1}", "c64[1]", "expected '(' to start a c64 value", 2),
        ("(1 2)", "c64[]", "expected ',' between the real and imaginary parts", 4),
        ("200", "s8[]", "value 200 is out of range for s8, namely [-128, 127]", 1),
        ("-1", "u8[]", "out of range for u8, namely [0, 255]", 1),
        ("8", "s4[]", "out of range for s4, namely [-8, 7]", 1),
        ("{1, 65520}", "f16[2]", "value 65520 is out of range for f16, namely [-65504, 65504]", 5),
        ("480", "f8e4m3fn[]", "value 480 is out of range for f8e4m3fn", 1),
        ("1e40", "f32[]", "value 1e40 is out of range for f32", 1),
        ("1e400", "f64[]", "out of range for a double", 1),
        ("0", "f8e8m0fnu[]", "value 0 is out of range for f8e8m0fnu", 1),
        ("(1e39, 0)", "c64[]", "value 1e39 is out of range for f32", 2),
        ("nan(0x0)", "f32[]", "payload must be nonzero", 1),
        ("nan(0x800000)", "f32[]", "NaN payload 0x800000 is out of range for f32 (0x7fffff)", 1),
        ("nan(0x1)", "f8e4m3fn[]", "f8e4m3fn does not support payloads", 1),
        ("nan", "f4e2m1fn[]", "f4e2m1fn cannot represent nan", 1),
        ("NaN", "f32[]", "expected a number for f32, found 'NaN'", 1),
        ("+1", "s32[]", "expected an integer for s32, found '+1'", 1),
        (".5", "f32[]", "expected a number for f32, found '.5'", 1),
        ("{1 /* never closed", "f32[2]", "unterminated /* comment", 4),
        ("{...}", "f32[]", "expected a scalar value", 1),
        ("{ {...} }", "f32[1,2]", "expected a number for f32, found '...'", 4),
        ("( {1, 2} )", "(f32[2], s32[])", "expected 2 tuple elements, found 1", 10),
        ("( 1, 2, 3 )", "(s32[], s32[])", "expected 2 tuple elements, found more", 7),
        ("{1, 2}", "(f32[2])", "expected '(' to start the tuple literal", 1),
        ("tok", "token[]", "expected 'token' for a token literal, found 'tok'", 1),
    ],
)
def test_parser_rejects(text, shape, message, column):
    with pytest.raises(ParseError) as info:
        parse_literal_at(text, 0, Shape.parse(shape))
    assert message in info.value.message
    assert (info.value.line, info.value.column) == (1, column)


def test_errors_point_at_the_right_line_and_column():
    text = "f32[2,3] {\n  { 1, 2, 3 },\n  { 4, 5 }\n}"
    with pytest.raises(ParseError) as info:
        parse_literal(text)
    assert info.value.message == "expected 3 elements in dimension 1 (in element {1}), found 2"
    assert (info.value.line, info.value.column) == (3, 10)
    assert info.value.source_line == "  { 4, 5 }"
    assert "3:10" in str(info.value) and "^" in str(info.value)
    with pytest.raises(ParseError) as info:
        parse_literal("f32[2] {1, 2} extra")
    assert "unexpected text after the literal: 'extra'" in info.value.message
    assert info.value.column == 15
    with pytest.raises(ParseError, match="expected a literal such as"):
        parse_literal("{1, 2}")
    with pytest.raises(ParseError):
        parse_literal("f32[2")
    with pytest.raises(InvalidArgumentError):
        parse_literal_at("1", 0, "f32[]")


# -- the real XLA as an oracle (skipped without jaxlib) --------------------------------------


def _xla_reprint(shape: Shape, text: str) -> str:
    """Parse a constant with the XLA in jaxlib and print it back with every value."""
    hlo = pytest.importorskip("jax._src.lib").xla_client.hlo
    module = hlo.hlo_module_from_text(
        f"HloModule m\nENTRY e {{\n  ROOT c = {shape} constant({text})\n}}\n"
    )
    options = hlo.HloPrintOptions()
    options.print_large_constants = True
    printed = module.to_string(options)
    start = printed.index("constant(") + len("constant(")
    return printed[start : printed.index(")\n", start)]


def _xla_safe(values: np.ndarray, element_type: PrimitiveType) -> np.ndarray:
    """Avoid XLA's own round-trip bugs: complex NaN payloads and f8e8m0fnu's 2**-127."""
    if element_type.is_complex:
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(values), 0, values).astype(values.dtype)
    if element_type == P.F8E8M0FNU:
        raw = values.view(np.uint8).copy()
        raw[raw == 0] = 1
        return raw.view(values.dtype)
    return values


NEGATIVE_ZERO = re.compile(r"(?<![\w.])-0(?![\w.])")


@pytest.mark.parametrize("element_type", ARRAY_TYPES, ids=str)
def test_xla_reprints_our_text_identically(element_type):
    for seed, dims in enumerate([(), (5,), (2, 3), (2, 1, 3), (2, 2, 1, 2), (1, 0, 2)]):
        values = _xla_safe(random_values(element_type, dims, seed), element_type)
        lit = Literal.from_numpy(values)
        ours = format_literal(lit, with_shape=False, oneline=True)
        theirs = _xla_reprint(lit.shape, ours)
        # XLA's lexer reads "-0" as the integer 0, so it prints 0 back.
        assert NEGATIVE_ZERO.sub("0", ours) == theirs
