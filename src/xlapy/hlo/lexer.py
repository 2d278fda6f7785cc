"""Cursors over HLO text: the token-level reading the HLO parser is built on.

HLO text is whitespace-insensitive (XLA lexes it into tokens), so a cursor
skips blanks and comments before every token. Errors are raised as
``ParseError`` with the absolute offset into the whole text, so that the message
shows line, column, the offending line and a caret no matter which layer
(shape, literal, attribute) found the problem. :class:`TextCursor` is what the
module reader (:class:`Cursor`) and the attribute value reader
(``attributes_text.Cursor``) share; the C string escapes below are the only
definition of HLO string escaping.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from ..errors import ParseError

T = TypeVar("T")

# Blanks, /* block */ comments and // line comments, any number of them.
_SKIP = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
# Instruction, computation and module names; '%' is an optional sigil.
_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
# Attribute names may contain '-' (control-predecessors) but no '.'.
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")
_INT = re.compile(r"[-+]?\d+")

# Integers in HLO text are int64 (XLA's lexer), or uint64 for some unsigned values.
_INT_MIN, _INT_MAX = -(2**63), 2**64 - 1

_OPENERS = {"(": ")", "{": "}", "[": "]"}
_CLOSERS = frozenset(")}]")


class TextCursor:
    """A position in a text, with what every reader of HLO text needs.

    Blanks and comments are skipped before every token, as XLA's lexer does;
    errors are ``ParseError`` at an offset into ``text``. :class:`Cursor` reads
    whole modules; the attribute value syntaxes (``attributes_text.Cursor``)
    read one value each.
    """

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    def error(self, message: str, offset: int | None = None) -> ParseError:
        """A ParseError located at ``offset`` (default: the current position)."""
        return ParseError(message, text=self.text, offset=self.pos if offset is None else offset)

    def int_value(self, digits: str, offset: int, what: str) -> int:
        """``int(digits)``, or a ``ParseError`` at ``offset`` when it lies outside what
        XLA's lexer reads (int64, or uint64 for unsigned values)."""
        if len(digits) > 22 or not _INT_MIN <= int(digits) <= _INT_MAX:
            shown = digits if len(digits) <= 30 else digits[:20] + "..."
            raise self.error(
                f"{what} {shown} does not fit in 64 bits (integers in HLO text are int64)",
                offset,
            )
        return int(digits)

    def skip(self) -> int:
        """Move past blanks and comments; return the new position."""
        self.pos = _SKIP.match(self.text, self.pos).end()
        return self.pos

    def at_end(self) -> bool:
        return self.skip() >= len(self.text)

    def peek(self, literal: str) -> bool:
        """True if ``literal`` comes next (after blanks), without consuming it."""
        return self.text.startswith(literal, self.skip())

    def eat(self, literal: str) -> bool:
        """Consume ``literal`` if it comes next."""
        if self.peek(literal):
            self.pos += len(literal)
            return True
        return False

    def match(self, pattern: re.Pattern[str]) -> re.Match[str] | None:
        """Consume ``pattern`` if it matches after blanks; None (nothing consumed) if not."""
        m = pattern.match(self.text, self.skip())
        if m is not None:
            self.pos = m.end()
        return m

    def quoted(self) -> tuple[str, int]:
        """The C-escaped string in double (or single) quotes at the cursor, and its offset."""
        start = self.skip()
        if self.text[start : start + 1] not in ('"', "'"):
            raise self.error(f'expected a "quoted string", found {self.found()}')
        self.pos = self._past_string(start)
        return c_unescape(self.text[start + 1 : self.pos - 1], self, start + 1), start

    def _past_string(self, start: int) -> int:
        """The offset just past the quoted string that opens at ``start``."""
        end = string_end(self.text, start)
        if end < 0:
            raise self.error("unterminated string: the closing quote is missing", start)
        return end

    def balanced(self, open_: str = "{", close: str = "}") -> str:
        """The raw text of a bracketed group (brackets included), skipping over strings."""
        start = self.skip()
        text = self.text
        if not text.startswith(open_, start):
            raise self.error(f"expected {open_!r}, found {self.found()}", start)
        depth = 0
        i = start
        while i < len(text):
            c = text[i]
            if c == '"':
                i = self._past_string(i)
                continue
            if c == open_:
                depth += 1
            elif c == close:
                depth -= 1
                if depth == 0:
                    self.pos = i + 1
                    return text[start : i + 1]
            i += 1
        raise self.error(f"unbalanced {open_!r}: no matching {close!r}", start)

    def found(self, offset: int | None = None) -> str:
        """How to name what sits at ``offset`` in an error message."""
        at = self.pos if offset is None else offset
        if at >= len(self.text):
            return "the end of the text"
        token = re.match(r"[A-Za-z0-9_.%\-]+|\S", self.text[at:])
        return repr(token.group()) if token else repr(self.text[at])


class Cursor(TextCursor):
    """Reading position in one HLO module text; every method skips leading blanks and comments."""

    __slots__ = ()

    def peek_char(self) -> str:
        """The next significant character, or '' at the end."""
        pos = self.skip()
        return self.text[pos] if pos < len(self.text) else ""

    def expect(self, literal: str, context: str) -> int:
        """Consume ``literal`` or fail saying what was expected; return its offset."""
        start = self.skip()
        if not self.text.startswith(literal, start):
            raise self.error(f"expected {literal!r} {context}, found {self.found()}")
        self.pos = start + len(literal)
        return start

    def eat_keyword(self, word: str) -> bool:
        """Consume ``word`` only when it is a whole word (ENTRY, ROOT, HloModule)."""
        start = self.skip()
        end = start + len(word)
        if self.text.startswith(word, start) and not (
            end < len(self.text) and (self.text[end].isalnum() or self.text[end] in "_.-")
        ):
            self.pos = end
            return True
        return False

    def comma_list(self, close: str, item: Callable[[], T], context: str) -> list[T]:
        """``item (',' item)* close``, possibly empty; the opening bracket is already read."""
        out: list[T] = []
        if self.eat(close):
            return out
        while True:
            out.append(item())
            if not self.eat(","):
                self.expect(close, context)
                return out

    # -- tokens -------------------------------------------------------------
    def _token(self, pattern: re.Pattern[str], expected: str) -> tuple[re.Match[str], int]:
        m = self.match(pattern)
        if m is None:
            raise self.error(f"expected {expected}, found {self.found()}")
        return m, m.start()

    def name(self, what: str) -> tuple[str, int]:
        """A name with optional '%'; returns it without the sigil, and its offset."""
        m, start = self._token(_NAME, what)
        return m.group(1), start

    def attribute_name(self) -> tuple[str, int]:
        m, start = self._token(_ATTRIBUTE_NAME, "an attribute name after ','")
        return m.group(), start

    def opcode(self) -> tuple[str, int]:
        m, start = self._token(_OPCODE, "an opcode after the shape")
        return m.group(), start

    def integer(self, what: str) -> tuple[int, int]:
        m, start = self._token(_INT, f"{what} (an integer)")
        return self.int_value(m.group(), start, what), start

    def raw_value(self, what: str, expected: str = "a value") -> tuple[str, int]:
        """The verbatim text of one attribute value, up to the next top-level ','.

        The value may nest (), {} and [] and contain strings; it ends at a
        top-level comma, a newline outside any bracket, or an unmatched closing
        bracket (the '}' that ends a computation written on one line).
        """
        text = self.text
        start = self.skip()
        i = start
        stack: list[str] = []
        n = len(text)
        while i < n:
            c = text[i]
            if c == '"':
                i = self._past_string(i)
                continue
            if c in _OPENERS:
                stack.append(_OPENERS[c])
            elif c in _CLOSERS:
                if not stack:
                    break
                if c != stack[-1]:
                    raise self.error(
                        f"mismatched {c!r} in the value of {what}; expected {stack[-1]!r}", i
                    )
                stack.pop()
            elif not stack and (c == "," or c == "\n"):
                break
            i += 1
        if stack:
            raise self.error(
                f"unexpected end of the text in the value of {what}: {stack[-1]!r} is missing", n
            )
        value = text[start:i].rstrip()
        if not value:
            raise self.error(f"expected {expected} for {what}, found {self.found(start)}", start)
        self.pos = start + len(value)
        return value, start


# -- strings ------------------------------------------------------------------------
# C escapes exactly as XLA's absl::CEscape writes them and absl::CUnescape reads them.

_SIMPLE_ESCAPES = {
    "n": 10,
    "r": 13,
    "t": 9,
    '"': 34,
    "'": 39,
    "\\": 92,
    "?": 63,
    "a": 7,
    "b": 8,
    "f": 12,
    "v": 11,
}
_ESCAPE_OUT = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}


def string_end(text: str, start: int) -> int:
    """Offset just past the quoted string opening at ``start``, or -1 if there is none.

    The string is delimited by the quote character at ``start`` (" or ').
    """
    quote_char = text[start : start + 1]
    if quote_char not in ('"', "'"):
        return -1
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote_char:
            return i + 1
        i += 1
    return -1


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


def c_unescape(body: str, cursor: TextCursor | None = None, offset: int = 0) -> str:
    """Undo C escapes; bytes that are not valid UTF-8 survive as surrogates.

    An unknown escape is a ParseError, at ``offset`` + its position in ``cursor``'s text
    when a cursor is given.
    """
    if "\\" not in body:
        return body
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
    """``value`` as a double-quoted, C-escaped HLO string."""
    return f'"{c_escape(value)}"'


def remap_error(error: ParseError, value_text: str, value_offset: int, text: str) -> ParseError:
    """Re-anchor an error raised while reading ``value_text`` into the whole ``text``."""
    if error.line is None:
        return ParseError(error.message, text=text, offset=value_offset)
    lines = value_text.split("\n")
    inner = sum(len(line) + 1 for line in lines[: error.line - 1]) + (error.column or 1) - 1
    return ParseError(error.message, text=text, offset=value_offset + min(inner, len(value_text)))


__all__ = [
    "Cursor",
    "TextCursor",
    "c_escape",
    "c_unescape",
    "quote",
    "remap_error",
    "string_end",
]
