"""A cursor over HLO text: the token-level reading the HLO parser is built on.

HLO text is whitespace-insensitive (XLA lexes it into tokens), so the cursor
skips blanks and comments before every token. Errors are raised as
``ParseError`` with the absolute offset into the whole text, so that the message
shows line, column, the offending line and a caret no matter which layer
(shape, literal, attribute) found the problem.
"""

from __future__ import annotations

import re

from ..errors import ParseError

# Blanks, /* block */ comments and // line comments, any number of them.
_SKIP = re.compile(r"(?:\s+|/\*.*?\*/|//[^\n]*)*", re.S)
# Instruction, computation and module names; '%' is an optional sigil.
_NAME = re.compile(r"%?([A-Za-z_][A-Za-z0-9_.\-]*)")
# Attribute names may contain '-' (control-predecessors) but no '.'.
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]*")
_OPCODE = re.compile(r"[A-Za-z][A-Za-z0-9\-]*")
_INT = re.compile(r"[-+]?\d+")

_OPENERS = {"(": ")", "{": "}", "[": "]"}
_CLOSERS = frozenset(")}]")

_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "\\": "\\",
    '"': '"',
    "'": "'",
    "?": "?",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
}


class Cursor:
    """Reading position in one HLO text; every method skips leading blanks and comments."""

    __slots__ = ("text", "pos")

    def __init__(self, text: str, pos: int = 0) -> None:
        self.text = text
        self.pos = pos

    # -- errors -------------------------------------------------------------
    def error(self, message: str, offset: int | None = None) -> ParseError:
        """A ParseError located at ``offset`` (default: the current position)."""
        return ParseError(message, text=self.text, offset=self.pos if offset is None else offset)

    def found(self, offset: int | None = None) -> str:
        """How to name what sits at ``offset`` in an error message."""
        at = self.pos if offset is None else offset
        if at >= len(self.text):
            return "the end of the text"
        token = re.match(r"[A-Za-z0-9_.%\-]+|\S", self.text[at:])
        return repr(token.group()) if token else repr(self.text[at])

    # -- positioning --------------------------------------------------------
    def skip(self) -> int:
        """Move past blanks and comments; return the new position."""
        self.pos = _SKIP.match(self.text, self.pos).end()
        return self.pos

    def at_end(self) -> bool:
        return self.skip() >= len(self.text)

    def peek(self, literal: str) -> bool:
        """True if ``literal`` comes next (after blanks), without consuming it."""
        return self.text.startswith(literal, self.skip())

    def peek_char(self) -> str:
        """The next significant character, or '' at the end."""
        pos = self.skip()
        return self.text[pos] if pos < len(self.text) else ""

    def eat(self, literal: str) -> bool:
        """Consume ``literal`` if it comes next."""
        if self.peek(literal):
            self.pos += len(literal)
            return True
        return False

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

    # -- tokens -------------------------------------------------------------
    def name(self, what: str) -> tuple[str, int]:
        """A name with optional '%'; returns it without the sigil, and its offset."""
        start = self.skip()
        m = _NAME.match(self.text, start)
        if not m:
            raise self.error(f"expected {what}, found {self.found()}")
        self.pos = m.end()
        return m.group(1), start

    def attribute_name(self) -> tuple[str, int]:
        start = self.skip()
        m = _ATTRIBUTE_NAME.match(self.text, start)
        if not m:
            raise self.error(f"expected an attribute name after ',', found {self.found()}")
        self.pos = m.end()
        return m.group(), start

    def opcode(self) -> tuple[str, int]:
        start = self.skip()
        m = _OPCODE.match(self.text, start)
        if not m:
            raise self.error(f"expected an opcode after the shape, found {self.found()}")
        self.pos = m.end()
        return m.group(), start

    def integer(self, what: str) -> tuple[int, int]:
        start = self.skip()
        m = _INT.match(self.text, start)
        if not m:
            raise self.error(f"expected {what} (an integer), found {self.found()}")
        self.pos = m.end()
        return int(m.group()), start

    def string(self, what: str) -> tuple[str, int]:
        """A double-quoted string with C escapes, decoded."""
        start = self.skip()
        if not self.text.startswith('"', start):
            raise self.error(f"expected {what} (a quoted string), found {self.found()}")
        end = _string_end(self.text, start)
        if end < 0:
            raise self.error("unterminated string: the closing '\"' is missing", start)
        self.pos = end
        return unescape(self.text[start + 1 : end - 1]), start

    def raw_value(self, what: str) -> tuple[str, int]:
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
                end = _string_end(text, i)
                if end < 0:
                    raise self.error("unterminated string: the closing '\"' is missing", i)
                i = end
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
            raise self.error(f"expected a value for {what}, found {self.found(start)}", start)
        self.pos = start + len(value)
        return value, start


def _string_end(text: str, start: int) -> int:
    """Offset just past the string literal opening at ``start``, or -1 if unterminated."""
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            return i + 1
        i += 1
    return -1


def unescape(body: str) -> str:
    """Decode the C escapes (absl::CUnescape) of a string literal's body."""
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    n = len(body)
    while i < n:
        c = body[i]
        if c != "\\" or i + 1 >= n:
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ESCAPES:
            out.append(_ESCAPES[e])
            i += 2
        elif e in "01234567":
            m = re.match(r"[0-7]{1,3}", body[i + 1 :])
            out.append(chr(int(m.group(), 8)))
            i += 1 + len(m.group())
        elif e == "x":
            m = re.match(r"[0-9a-fA-F]+", body[i + 2 :])
            if m is None:
                out.append("\\x")
                i += 2
            else:
                out.append(chr(int(m.group(), 16) & 0xFF))
                i += 2 + len(m.group())
        else:
            out.append(e)
            i += 2
    text = "".join(out)
    # Escaped bytes (\303\251) encode UTF-8; decode them back when they form valid UTF-8.
    if any(0x80 <= ord(ch) <= 0xFF for ch in text):
        try:
            return text.encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            return text
    return text


def escape(text: str) -> str:
    """Encode ``text`` the way absl::CEscape does, for printing a string literal."""
    out: list[str] = []
    for byte in text.encode("utf-8"):
        c = chr(byte)
        if c == "\n":
            out.append("\\n")
        elif c == "\r":
            out.append("\\r")
        elif c == "\t":
            out.append("\\t")
        elif c == '"':
            out.append('\\"')
        elif c == "'":
            out.append("\\'")
        elif c == "\\":
            out.append("\\\\")
        elif byte < 0x20 or byte >= 0x7F:
            out.append(f"\\{byte:03o}")
        else:
            out.append(c)
    return "".join(out)


def quote(text: str) -> str:
    return '"' + escape(text) + '"'


def remap_error(error: ParseError, value_text: str, value_offset: int, text: str) -> ParseError:
    """Re-anchor an error raised while reading ``value_text`` into the whole ``text``."""
    if error.line is None:
        return ParseError(error.message, text=text, offset=value_offset)
    lines = value_text.split("\n")
    inner = sum(len(line) + 1 for line in lines[: error.line - 1]) + (error.column or 1) - 1
    return ParseError(error.message, text=text, offset=value_offset + min(inner, len(value_text)))


__all__ = ["Cursor", "escape", "quote", "remap_error", "unescape"]
