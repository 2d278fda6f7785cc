"""Low-level reading and writing of HLO attribute value text.

Every attribute value is parsed from its own text (the parser hands over the
text after ``name=``), so errors carry offsets into that value, which the HLO
parser can shift to the position in the whole line. Strings use C escapes
exactly as XLA's ``absl::CEscape`` writes them (octal for bytes outside
printable ASCII, ``\\'`` for quotes) so that printed text matches XLA's.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..errors import ParseError

T = TypeVar("T")

_WS = re.compile(r"\s*")
_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class Cursor:
    """A position in one attribute value's text, with the small lexer the syntaxes share."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    # -- errors -------------------------------------------------------------------
    def error(self, message: str, offset: int | None = None) -> ParseError:
        return ParseError(message, text=self.text, offset=self.pos if offset is None else offset)

    def found(self) -> str:
        """How the text at the cursor reads in an error message."""
        if self.pos >= len(self.text):
            return "the end of the value"
        return repr(self.text[self.pos : self.pos + 12])

    def fail(self, expected: str) -> ParseError:
        return self.error(f"expected {expected}, found {self.found()}")

    # -- tokens -------------------------------------------------------------------
    def skip_ws(self) -> None:
        self.pos = _WS.match(self.text, self.pos).end()

    def at_end(self) -> bool:
        self.skip_ws()
        return self.pos >= len(self.text)

    def peek(self, token: str) -> bool:
        self.skip_ws()
        return self.text.startswith(token, self.pos)

    def eat(self, token: str) -> bool:
        if self.peek(token):
            self.pos += len(token)
            return True
        return False

    def expect(self, token: str, expected: str | None = None) -> None:
        if not self.eat(token):
            raise self.fail(expected or repr(token))

    def expect_end(self, what: str) -> None:
        if not self.at_end():
            raise self.error(f"unexpected {self.found()} after {what}")

    def integer(self, expected: str = "an integer") -> int:
        self.skip_ws()
        m = _INT.match(self.text, self.pos)
        if not m:
            raise self.fail(expected)
        self.pos = m.end()
        return int(m.group())

    def nonneg_integer(self, expected: str = "a non-negative integer") -> int:
        start = self.pos
        value = self.integer(expected)
        if value < 0:
            raise self.error(f"expected {expected}, found {value}", offset=start)
        return value

    def number(self, expected: str = "a number") -> float:
        self.skip_ws()
        m = _FLOAT.match(self.text, self.pos)
        if not m:
            raise self.fail(expected)
        self.pos = m.end()
        return float(m.group())

    def identifier(self, expected: str = "a name") -> str:
        self.skip_ws()
        m = _IDENT.match(self.text, self.pos)
        if not m:
            raise self.fail(expected)
        self.pos = m.end()
        return m.group()

    def keyword(self, choices: Iterable[str], expected: str) -> str:
        """One of ``choices`` (longest match wins, so rng_three_fry beats rng)."""
        self.skip_ws()
        for word in sorted(choices, key=len, reverse=True):
            end = self.pos + len(word)
            if self.text.startswith(word, self.pos) and not _continues_word(self.text, end):
                self.pos = end
                return word
        raise self.fail(expected)

    def boolean(self) -> bool:
        return self.keyword(("true", "false"), "true or false") == "true"

    def string(self) -> str:
        """A double-quoted C-escaped string."""
        self.skip_ws()
        start = self.pos
        if not self.text.startswith('"', start):
            raise self.fail('a "quoted string"')
        i = start + 1
        while i < len(self.text):
            c = self.text[i]
            if c == "\\":
                i += 2
                continue
            if c == '"':
                self.pos = i + 1
                return c_unescape(self.text[start + 1 : i], self, start + 1)
            i += 1
        raise self.error("unterminated string: no closing '\"'", offset=start)

    def balanced(self, open_: str = "{", close: str = "}") -> str:
        """The raw text of a bracketed group (brackets included), skipping over strings."""
        self.skip_ws()
        start = self.pos
        if not self.text.startswith(open_, start):
            raise self.fail(repr(open_))
        depth = 0
        i = start
        while i < len(self.text):
            c = self.text[i]
            if c == '"':
                self.pos = i
                self.string()
                i = self.pos
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return self.text[start : i + 1]
            i += 1
        raise self.error(f"unbalanced {open_!r}: no matching {close!r}", offset=start)

    def delimited(
        self,
        item: Callable[[Cursor], T],
        open_: str = "{",
        close: str = "}",
        what: str = "list",
        sep: str = ",",
    ) -> list[T]:
        """``open_ item (sep item)* close``, possibly empty."""
        self.expect(open_, f"{open_!r} to start the {what}")
        out: list[T] = []
        if self.eat(close):
            return out
        while True:
            out.append(item(self))
            if self.eat(sep):
                continue
            self.expect(close, f"{sep!r} or {close!r} in the {what}")
            return out


def _continues_word(text: str, end: int) -> bool:
    return end < len(text) and (text[end].isalnum() or text[end] == "_")


# -- strings ------------------------------------------------------------------------

_SIMPLE_ESCAPES = {"n": 10, "r": 13, "t": 9, '"': 34, "'": 39, "\\": 92, "?": 63, "a": 7,
                   "b": 8, "f": 12, "v": 11}
_ESCAPE_OUT = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}


def c_escape(value: str) -> str:
    """Escape as absl::CEscape does, byte by byte over the UTF-8 encoding."""
    out = []
    for b in value.encode("utf-8", "surrogateescape"):
        if b in _ESCAPE_OUT:
            out.append(_ESCAPE_OUT[b])
        elif 0x20 <= b < 0x7F:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)


def c_unescape(body: str, cursor: Cursor | None = None, offset: int = 0) -> str:
    """Undo C escapes; bytes that are not valid UTF-8 survive as surrogates."""
    out = bytearray()
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[nxt])
            i += 2
        elif nxt and nxt in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            out.append(int(m.group(), 8) & 0xFF)
            i += 1 + len(m.group())
        elif nxt == "x" and re.match(r"[0-9A-Fa-f]", body[i + 2 : i + 3]):
            m = re.match(r"[0-9A-Fa-f]+", body[i + 2 :])
            out.append(int(m.group(), 16) & 0xFF)
            i += 2 + len(m.group())
        else:
            message = f"unknown escape sequence '\\{nxt}' in the string"
            if cursor is not None:
                raise cursor.error(message, offset=offset + i)
            raise ParseError(message, text=body, offset=i)
    return out.decode("utf-8", "surrogateescape")


def quote(value: str) -> str:
    return f'"{c_escape(value)}"'


def string_or_dict(value: str) -> str:
    """XLA writes text that looks like a {dict} bare and quotes everything else."""
    if value.startswith("{") and value.endswith("}"):
        return value
    return quote(value)


def parse_string_or_dict(cur: Cursor) -> str:
    if cur.peek("{"):
        return cur.balanced()
    return cur.string()


# -- numbers and lists ------------------------------------------------------------


def format_float(value: float) -> str:
    """Six significant digits, as absl::StrCat prints float and double."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return f"{value:g}"


def format_int_list(values: Iterable[int]) -> str:
    return "{" + ",".join(str(int(v)) for v in values) + "}"


def parse_int_list(cur: Cursor) -> tuple[int, ...]:
    return tuple(cur.delimited(lambda c: c.integer(), what="integer list"))


def parse_int_list_list(cur: Cursor) -> tuple[tuple[int, ...], ...]:
    return tuple(cur.delimited(parse_int_list, what="list of integer lists"))


def format_int_list_list(values: Iterable[Iterable[int]]) -> str:
    return "{" + ",".join(format_int_list(v) for v in values) + "}"


def parse_x_separated(cur: Cursor, item: Callable[[Cursor], T]) -> list[T]:
    """``a x b x c`` as windows and padding configs write per-dimension values."""
    out = [item(cur)]
    while cur.text.startswith("x", cur.pos):
        cur.pos += 1
        out.append(item(cur))
    return out


def parse_sub_attributes(
    cur: Cursor, fields: dict[str, Callable[[Cursor], object]], what: str
) -> dict[str, object]:
    """``{name=value name=value}`` with blanks or commas between, as XLA's sub-attributes."""
    cur.expect("{", f"'{{' to start the {what}")
    seen: dict[str, object] = {}
    while not cur.eat("}"):
        if cur.at_end():
            raise cur.fail(f"'}}' to close the {what}")
        start = cur.pos
        name = cur.identifier(f"a {what} field name ({', '.join(fields)})")
        if name not in fields:
            raise cur.error(f"unknown {what} field {name!r}; expected one of "
                            f"{', '.join(fields)}", offset=start)
        if name in seen:
            raise cur.error(f"{what} field {name!r} given twice", offset=start)
        cur.expect("=", f"'=' after {name}")
        seen[name] = fields[name](cur)
        cur.eat(",")
    return seen


__all__ = [
    "Cursor", "c_escape", "c_unescape", "quote", "string_or_dict", "parse_string_or_dict",
    "format_float", "format_int_list", "parse_int_list", "parse_int_list_list",
    "format_int_list_list", "parse_x_separated", "parse_sub_attributes",
]
