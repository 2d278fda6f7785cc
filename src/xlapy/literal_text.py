"""XLA's literal text, both directions: the parser here, the printer in
``xlapy.literal_format`` (below ``xlapy.literal``, whose ``str`` it is) and
re-exported.

The printer reproduces ``Literal::ToString`` and the oneline, shape-less form
that HLO text puts inside ``constant(...)`` character for character (checked
against the XLA inside jaxlib 0.10.2):

* rank 1 ``{1, 2, 3}``; rank >= 2 nests braces, spacing the innermost ones
  ``{ { 1, 2 }, { 3, 4 } }`` (no inner spaces when a row has <= 1 element) and,
  above rank 3, tagging sub-arrays with ``/*i0=1*/`` comments;
* floats as C ``%.*g``: f32 tries 6 significant digits, f64 15, and falls back
  to 9 / 17 when that does not round-trip; every other float type uses its
  ``max_digits10`` (f16 5, bf16 4, f8e4m3* and f8e3m4 3, f8e5m2*, f8e8m0fnu and
  f4e2m1fn 2). So ``3`` not ``3.0``, ``1e-08``, ``-0``, ``inf``, ``-nan``, and
  ``nan(0x1)`` for a NaN whose payload is not the plain quiet NaN (types with
  IEEE infinities only);
* pred as ``true``/``false`` for a scalar but ``1``/``0`` inside arrays;
* complex as ``(re, im)``; tuples as ``( a, b )``; tokens as ``token``.

The parser accepts what XLA's HLO parser accepts for a literal body: blanks
and ``/*...*/`` comments anywhere, optional commas, ``true``/``false`` and
integers for pred, integers or decimals (``1``, ``1.``, ``2.5e-3``), ``inf``,
``-inf``, ``nan``, ``-nan`` and ``nan(0x..)`` for floats, ``(re, im)`` for
complex, and ``{...}`` (an elided constant, read as zeros). Values out of a
type's range are errors as in XLA (after rounding to the type). Two places
where xlapy deliberately differs: ``-0`` reads as negative zero (XLA's lexer
turns it into +0, so its text does not round-trip), and a NaN payload in the
real part of a complex value is not copied to the imaginary part.
"""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np

from .errors import InvalidArgumentError, ParseError, UnimplementedError
from .layout import Layout
from .literal import MAX_RANK, Literal
from .literal_format import (
    DOUBLE_QUIET_PAYLOAD,
    FLOAT_FACTS,
    UINT_OF_SIZE,
    element_kind,
    format_element,
    format_literal,
)
from .shape import MAX_TUPLE_DEPTH, Shape, parse_shape_at
from .types import PrimitiveType

P = PrimitiveType

# -- parsing -------------------------------------------------------------------------

_SPACE = re.compile(r"(?:\s+|/\*.*?\*/)*", re.S)
_VALUE = re.compile(
    r"(?P<neg>-)?(?:(?P<nan>nan)(?:\((?P<payload>0x[0-9a-fA-F]+)\))?|(?P<inf>inf)"
    r"|(?P<num>[0-9]+(?P<frac>\.[0-9]*)?(?P<exp>[eE][+-]?[0-9]+)?))(?![A-Za-z0-9_.])"
    r"|(?P<bool>true|false)(?![A-Za-z0-9_])"
)
_WORD = re.compile(r"[A-Za-z0-9_.+\-]+(?:\([^)\s]*\))?|\S")
_ELIDED = re.compile(r"\{(?:\s|/\*.*?\*/)*\.\.\.(?:\s|/\*.*?\*/)*\}", re.S)
_SHAPE_HEAD = re.compile(r"[a-z][a-z0-9]*\[[^\]]*\]")


class _Reader:
    """A cursor over the text that knows how to point at what is wrong."""

    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos

    def skip(self) -> str:
        """Skip blanks/comments; return the next character ('' at the end)."""
        self.pos = _SPACE.match(self.text, self.pos).end()
        if self.text.startswith("/*", self.pos):
            raise self.error("unterminated /* comment")
        return self.text[self.pos : self.pos + 1]

    def found(self, pos: int | None = None) -> str:
        pos = self.pos if pos is None else pos
        if pos >= len(self.text):
            return "the end of the text"
        return repr(_WORD.match(self.text, pos).group())

    def error(self, message: str, pos: int | None = None) -> ParseError:
        return ParseError(message, text=self.text, offset=self.pos if pos is None else pos)

    def expect(self, char: str, what: str) -> None:
        if self.skip() != char:
            raise self.error(f"expected {char!r} {what}, found {self.found()}")
        self.pos += 1

    def value_token(self, what: str) -> re.Match:
        self.skip()
        m = _VALUE.match(self.text, self.pos)
        if m is None:
            raise self.error(f"expected {what}, found {self.found()}")
        self.pos = m.end()
        return m


def _int_token(digits: str) -> int:
    """``int(digits)``; a number too long for ``int()`` (4300 digits) is out of every
    type's range anyway, so it reads as one that is just out of range."""
    if len(digits) > 48:
        return 2**200 if not digits.startswith("-") else -(2**200)
    return int(digits)


class _IntCollector:
    def __init__(self, element_type: PrimitiveType, reader: _Reader) -> None:
        self.element_type, self.reader = element_type, reader
        info = ml_dtypes.iinfo(element_type.dtype)
        self.lo, self.hi = int(info.min), int(info.max)
        self.values: list[int] = []

    def parse(self) -> None:
        start = self.reader.pos
        m = self.reader.value_token(f"an integer for {self.element_type}")
        if m["num"] is None or m["frac"] is not None or m["exp"] is not None:
            raise self.reader.error(
                f"expected an integer for {self.element_type}, found {m.group()!r}", start
            )
        value = _int_token(m.group())
        if not self.lo <= value <= self.hi:
            raise self.reader.error(
                f"value {value} is out of range for {self.element_type}, namely "
                f"[{self.lo}, {self.hi}]",
                start,
            )
        self.values.append(value)

    def build(self) -> np.ndarray:
        wide = np.uint64 if self.element_type.is_unsigned_integral else np.int64
        return np.array(self.values, dtype=wide).astype(self.element_type.dtype)


class _PredCollector:
    def __init__(self, element_type: PrimitiveType, reader: _Reader) -> None:
        self.reader = reader
        self.values: list[bool] = []

    def parse(self) -> None:
        start = self.reader.pos
        m = self.reader.value_token("true, false or an integer for pred")
        if m["bool"] is not None:
            self.values.append(m["bool"] == "true")
        elif m["num"] is not None and m["frac"] is None and m["exp"] is None:
            self.values.append(_int_token(m.group()) != 0)
        else:
            raise self.reader.error(
                f"expected true, false or an integer for pred, found {m.group()!r}", start
            )

    def build(self) -> np.ndarray:
        return np.array(self.values, dtype=np.bool_)


class _FloatCollector:
    """Floats go through double like XLA: parse, round to the type, range-check."""

    def __init__(self, element_type: PrimitiveType, reader: _Reader) -> None:
        self.element_type, self.reader = element_type, reader
        self.facts = FLOAT_FACTS[element_type]
        self.values: list[float] = []
        self.offsets: list[int] = []
        self.nan_bits: list[tuple[int, int]] = []  # (index, raw bits) for NaN payloads

    def parse(self) -> None:
        self.read_value(f"a number for {self.element_type}")

    def read_value(self, what: str) -> None:
        start = self.reader.pos
        m = self.reader.value_token(what)
        negative = m["neg"] is not None
        if m["bool"] is not None:
            raise self.reader.error(f"expected {what}, found {m['bool']!r}", start)
        if m["nan"] is not None:
            self._nan(negative, m["payload"], start)
        elif m["inf"] is not None:
            if not (self.facts.has_inf or self.facts.has_nan):
                raise self.reader.error(f"{self.element_type} cannot represent inf", start)
            self.values.append(-math.inf if negative else math.inf)
        else:
            value = float(m.group())
            if math.isinf(value):
                raise self.reader.error(
                    f"value {m.group()} is out of range for a double (+/-1.79769e+308)", start
                )
            self.values.append(value)
        self.offsets.append(start)

    def _nan(self, negative: bool, payload_text: str | None, start: int) -> None:
        facts = self.facts
        if not facts.has_nan:
            raise self.reader.error(f"{self.element_type} cannot represent nan", start)
        payload = int(payload_text, 16) if payload_text else None
        if payload == 0:
            raise self.reader.error("a NaN payload must be nonzero (nan(0x0) would be inf)", start)
        if payload == DOUBLE_QUIET_PAYLOAD:
            payload = None
        if payload is not None:
            if not facts.payload_bits:
                raise self.reader.error(
                    f"NaN payload 0x{payload:x}: {self.element_type} does not support payloads",
                    start,
                )
            largest = (1 << facts.payload_bits) - 1
            if payload > largest:
                raise self.reader.error(
                    f"NaN payload 0x{payload:x} is out of range for {self.element_type} "
                    f"(0x{largest:x})",
                    start,
                )
            exponent = ((1 << facts.exponent_bits) - 1) << facts.mantissa_bits
            bits = (int(negative) << (facts.width - 1)) | exponent | payload
            self.nan_bits.append((len(self.values), bits))
        self.values.append(-math.nan if negative else math.nan)

    def build(self) -> np.ndarray:
        dtype = self.element_type.dtype
        values = np.array(self.values, dtype=np.float64)
        with np.errstate(all="ignore"):
            converted = values.astype(dtype)
            back = converted.astype(np.float64)
        facts = self.facts
        bad = (
            np.isfinite(values)
            & ~np.isfinite(back)
            & ((values > facts.highest) | (values < facts.lowest))
        )
        if bad.any():
            start = self.offsets[int(np.argmax(bad))]
            raise self.reader.error(
                f"value {_VALUE.match(self.reader.text, start).group()} is out of range for "
                f"{self.element_type}, namely [{facts.lowest:g}, {facts.highest:g}]",
                start,
            )
        if self.element_type == P.F8E8M0FNU:
            _round_e8m0_bottom(values, converted)
        if self.nan_bits:
            raw = converted.view(UINT_OF_SIZE[converted.dtype.itemsize])
            for index, bits in self.nan_bits:
                raw[index] = bits
        return converted


def _round_e8m0_bottom(values: np.ndarray, converted: np.ndarray) -> None:
    """Round into f8e8m0fnu's two lowest values to nearest (ties up, as elsewhere).

    ml_dtypes (and so XLA) rounds everything in (2**-127, 2**-126) up, so the
    printed "5.9e-39" of 2**-127 would not read back; xlapy keeps it exact.
    """
    low = (values > 0) & (values < 2.0**-126)
    if low.any():
        raw = converted.view(np.uint8)
        raw[low] = np.where(values[low] < 1.5 * 2.0**-127, 0, 1).astype(np.uint8)


class _ComplexCollector:
    def __init__(self, element_type: PrimitiveType, reader: _Reader) -> None:
        self.element_type, self.reader = element_type, reader
        part = element_type.component_type
        self.real = _FloatCollector(part, reader)
        self.imag = _FloatCollector(part, reader)

    def parse(self) -> None:
        self.reader.expect("(", f"to start a {self.element_type} value such as (1, 2)")
        self.real.read_value(f"the real part of a {self.element_type} value")
        self.reader.expect(",", "between the real and imaginary parts")
        self.imag.read_value(f"the imaginary part of a {self.element_type} value")
        self.reader.expect(")", f"to close the {self.element_type} value")

    def build(self) -> np.ndarray:
        real, imag = self.real.build(), self.imag.build()
        out = np.empty(real.shape, self.element_type.dtype)
        out.real, out.imag = real, imag
        return out


_COLLECTORS = {
    "pred": _PredCollector,
    "sint": _IntCollector,
    "uint": _IntCollector,
    "float": _FloatCollector,
    "complex": _ComplexCollector,
}


def _skip_elided(reader: _Reader) -> bool:
    """XLA prints large constants as ``{...}``; its parser reads them as filler."""
    reader.skip()
    m = _ELIDED.match(reader.text, reader.pos)
    if m:
        reader.pos = m.end()
    return m is not None


def _parse_array(reader: _Reader, shape: Shape) -> Literal:
    et = shape.element_type
    collector = _COLLECTORS[element_kind(et)](et, reader)
    dims = shape.dimensions
    rank = len(dims)
    elided = False
    if rank == 0:
        if reader.skip() == "{":
            raise reader.error(f"expected a scalar value for {shape}, found '{{'")
        collector.parse()
    elif _skip_elided(reader):
        elided = True
    else:
        if rank > MAX_RANK:
            raise reader.error(
                f"a literal of {shape} has rank {rank}; literals hold at most {MAX_RANK} "
                "dimensions (numpy's limit)"
            )
        reader.expect("{", f"to start the rank-{rank} array literal of {shape}")
        _parse_nested(reader, shape, collector, 0, [])
    if elided:
        values = np.zeros(dims, et.dtype)
    else:
        values = collector.build().reshape(dims)
    lit = Literal.from_numpy(values, shape.layout or Layout.default(rank))
    if shape.is_static:
        return lit
    return Literal(Shape(et, dims, shape.dynamic_dimensions, lit.shape.layout), lit.data)


def _parse_nested(
    reader: _Reader, shape: Shape, collector: object, level: int, path: list[int]
) -> None:
    """The inside of one ``{`` ... ``}`` at ``level`` (the ``{`` is already read)."""
    dims = shape.dimensions
    size, leaf = dims[level], level == len(dims) - 1
    where = f" (in element {{{','.join(map(str, path))}}})" if path else ""
    count = 0
    while True:
        char = reader.skip()
        if not char:
            wanted = "a value or '}'" if leaf and count < size else "'}'"
            raise reader.error(
                f"expected {wanted} to close dimension {level}{where}, found the end of the text"
            )
        if char == "}":
            if count != size:
                raise reader.error(
                    f"expected {size} elements in dimension {level}{where}, found {count}"
                )
            reader.pos += 1
            return
        if count == size:
            raise reader.error(
                f"expected {size} elements in dimension {level}{where}, found more "
                f"(next: {reader.found()})"
            )
        if leaf:
            if char == "{":
                raise reader.error(
                    f"expected a value, found '{{': {shape} has rank {len(dims)}, so its "
                    f"braces nest {len(dims)} deep"
                )
            collector.parse()
        else:
            if char != "{":
                raise reader.error(
                    f"expected '{{' to start a sub-array of dimension {level + 1}{where} "
                    f"({shape} has rank {len(dims)}), found {reader.found()}"
                )
            reader.pos += 1
            path.append(count)
            _parse_nested(reader, shape, collector, level + 1, path)
            path.pop()
        count += 1
        if reader.skip() == ",":
            reader.pos += 1


def _parse_tuple(reader: _Reader, shape: Shape) -> Literal:
    shapes = shape.tuple_shapes
    if _skip_elided(reader):
        return Literal(shape)
    reader.expect("(", f"to start the tuple literal of {shape}")
    elements = []
    for i, element_shape in enumerate(shapes):
        if reader.skip() == ")":
            raise reader.error(f"expected {len(shapes)} tuple elements, found {i}")
        if i:
            reader.expect(",", "between tuple elements")
        elements.append(_parse_body(reader, element_shape))
    if reader.skip() == ",":
        raise reader.error(f"expected {len(shapes)} tuple elements, found more")
    reader.expect(")", f"to close the tuple literal of {shape}")
    return Literal.make_tuple(elements)


def _parse_token(reader: _Reader, shape: Shape) -> Literal:
    reader.skip()
    if not re.match(r"token(?![A-Za-z0-9_])", reader.text[reader.pos :]):
        raise reader.error(f"expected 'token' for a token literal, found {reader.found()}")
    reader.pos += len("token")
    return Literal.token()


def _parse_body(reader: _Reader, shape: Shape) -> Literal:
    if shape.is_tuple:
        return _parse_tuple(reader, shape)
    if shape.is_token:
        return _parse_token(reader, shape)
    if not shape.is_array:
        raise UnimplementedError(f"literals of {shape} are not supported")
    if shape.is_unbounded_dynamic:
        raise UnimplementedError(f"literals of unbounded dynamic shape {shape} are not supported")
    return _parse_array(reader, shape)


def parse_literal_at(text: str, pos: int, shape: Shape) -> tuple[Literal, int]:
    """Parse a literal body (what ``constant(...)`` holds) of ``shape`` at ``pos``.

    Returns the literal and the position just after it; the HLO parser calls
    this in the middle of an instruction.
    """
    if not isinstance(shape, Shape):
        raise InvalidArgumentError(f"parse_literal_at needs a Shape, got {type(shape).__name__}")
    reader = _Reader(text, pos)
    lit = _parse_body(reader, shape)
    return lit, reader.pos


def _parse_full(reader: _Reader, depth: int = 0) -> Literal:
    """A literal with its shape(s), as ``Literal::ToString`` writes it; ``depth`` counts
    the tuples around it (at most ``MAX_TUPLE_DEPTH``)."""
    char = reader.skip()
    if char == "(":
        if depth >= MAX_TUPLE_DEPTH:
            raise reader.error(
                f"tuple literals nest more than {MAX_TUPLE_DEPTH} deep, the most xlapy "
                "supports (flatten the tuple)"
            )
        reader.pos += 1
        elements = []
        while reader.skip() != ")":
            if elements:
                reader.expect(",", "between tuple elements")
            elements.append(_parse_full(reader, depth + 1))
        reader.pos += 1
        return Literal.make_tuple(elements)
    if re.match(r"token(?![A-Za-z0-9_\[])", reader.text[reader.pos :]):
        reader.pos += len("token")
        return Literal.token()
    m = _SHAPE_HEAD.match(reader.text, reader.pos)
    if m is None:
        raise reader.error(
            f"expected a literal such as f32[2] {{1, 2}} or ( ... ), found {reader.found()}"
        )
    end = m.end()
    if reader.text.startswith("{", end):  # a layout written against the shape
        close = reader.text.find("}", end)
        end = len(reader.text) if close < 0 else close + 1
    shape, shape_end = parse_shape_at(reader.text[:end], reader.pos)
    reader.pos = shape_end
    if not shape.is_static and reader.text.startswith("(", reader.pos):
        close = reader.text.find(")", reader.pos)
        sizes_text = reader.text[reader.pos + 1 : close if close >= 0 else len(reader.text)]
        try:
            sizes = tuple(int(s) for s in sizes_text.split(","))
        except ValueError:
            raise reader.error(
                f"expected dynamic sizes such as (2,3), found ({sizes_text})"
            ) from None
        if sizes != shape.dimensions:
            raise UnimplementedError(
                f"dynamic sizes {sizes} smaller than the bounds of {shape} are not supported"
            )
        reader.pos = close + 1
    return _parse_body(reader, shape)


def parse_literal(text: str) -> Literal:
    """Read a literal with its shape prefix, e.g. ``f32[2] {1, 2}`` or ``s32[] 3``."""
    if not isinstance(text, str):
        raise InvalidArgumentError(f"parse_literal needs a string, got {type(text).__name__}")
    reader = _Reader(text, 0)
    lit = _parse_full(reader)
    if reader.skip():
        raise reader.error(f"unexpected text after the literal: {reader.found()}")
    return lit


__all__ = ["format_element", "format_literal", "parse_literal", "parse_literal_at"]
