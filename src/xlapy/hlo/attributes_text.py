"""Low-level reading and writing of HLO attribute value text.

Every attribute value is parsed from its own text (the parser hands over the
text after ``name=``), so errors carry offsets into that value, which the HLO
parser can shift to the position in the whole line. The cursor shares blank
and comment skipping, quoted strings and bracket matching with the module
lexer (:mod:`xlapy.hlo.lexer`), whose C escapes (``c_escape``/``c_unescape``,
re-exported here) are the one definition of HLO string escaping.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from ..errors import ParseError
from .lexer import TextCursor, c_escape, c_unescape, quote

T = TypeVar("T")

_INT = re.compile(r"[+-]?\d+")
_FLOAT = re.compile(r"[+-]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")


class Cursor(TextCursor):
    """A position in one attribute value's text, with the small lexer the syntaxes share."""

    __slots__ = ()

    # -- errors -------------------------------------------------------------------
    def found(self, offset: int | None = None) -> str:
        """How the text at the cursor reads in an error message."""
        at = self.pos if offset is None else offset
        if at >= len(self.text):
            return "the end of the value"
        return repr(self.text[at : at + 12])

    def fail(self, expected: str) -> ParseError:
        return self.error(f"expected {expected}, found {self.found()}")

    # -- tokens -------------------------------------------------------------------
    def expect(self, token: str, expected: str | None = None) -> None:
        if not self.eat(token):
            raise self.fail(expected or repr(token))

    def expect_end(self, what: str) -> None:
        if not self.at_end():
            raise self.error(f"unexpected {self.found()} after {what}")

    def _token(self, pattern: re.Pattern[str], expected: str) -> str:
        m = self.match(pattern)
        if m is None:
            raise self.fail(expected)
        return m.group()

    def integer(self, expected: str = "an integer") -> int:
        start = self.skip()
        return self.int_value(self._token(_INT, expected), start, "integer")

    def nonneg_integer(self, expected: str = "a non-negative integer") -> int:
        start = self.skip()
        value = self.integer(expected)
        if value < 0:
            raise self.error(f"expected {expected}, found {value}", offset=start)
        return value

    def number(self, expected: str = "a number") -> float:
        return float(self._token(_FLOAT, expected))

    def identifier(self, expected: str = "a name") -> str:
        return self._token(_IDENT, expected)

    def keyword(self, choices: Iterable[str], expected: str) -> str:
        """One of ``choices`` (longest match wins, so rng_three_fry beats rng)."""
        self.skip()
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
        if not self.peek('"'):
            raise self.fail('a "quoted string"')
        return self.quoted()[0]

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
            raise cur.error(
                f"unknown {what} field {name!r}; expected one of {', '.join(fields)}", offset=start
            )
        if name in seen:
            raise cur.error(f"{what} field {name!r} given twice", offset=start)
        cur.expect("=", f"'=' after {name}")
        seen[name] = fields[name](cur)
        cur.eat(",")
    return seen


__all__ = [
    "Cursor",
    "c_escape",
    "c_unescape",
    "quote",
    "string_or_dict",
    "parse_string_or_dict",
    "format_float",
    "format_int_list",
    "parse_int_list",
    "parse_int_list_list",
    "format_int_list_list",
    "parse_x_separated",
    "parse_sub_attributes",
]
