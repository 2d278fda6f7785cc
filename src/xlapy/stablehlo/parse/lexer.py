"""A reading position over MLIR text, shared by the StableHLO parser's parts.

The parser reads characters straight from the source string with anchored
regular expressions rather than from a token list: MLIR's grammar is context
dependent (``2x3xf32`` inside ``tensor<...>`` is a dimension list, ``x`` in
``[b, 0]x[0, i]`` is a separator, ``->`` inside ``#stablehlo.conv<...>`` does
not close the ``<``), so no single tokenization fits every place. Every
position is an offset into the *whole* original text, even when only one
``// -----`` section is read, so that errors report the line of the file.
"""

from __future__ import annotations

import re

from ...errors import ParseError

_WS = re.compile(r"(?:[ \t\r\n]+|//[^\n]*)*")
BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")
# An SSA use: %name or %name#index (result `index` of a multi-result op).
SSA_USE = re.compile(r"%([A-Za-z0-9_$.\-]+)(?:#([0-9]+))?")
SSA_DEF = re.compile(r"%([A-Za-z0-9_$.\-]+)(?::([0-9]+))?")
BLOCK_ID = re.compile(r"\^[A-Za-z0-9_$.\-]+")
SYMBOL = re.compile(r'@(?:([A-Za-z_][A-Za-z0-9_$.\-]*)|"((?:[^"\\\n]|\\.)*)")')
STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
NUMBER = re.compile(r"[-+]?(?:0x[0-9A-Fa-f]+|[0-9]+(?:\.[0-9]*(?:[eE][-+]?[0-9]+)?)?)")
INTEGER = re.compile(r"[-+]?(?:0x[0-9A-Fa-f]+|[0-9]+)(?![.0-9A-Za-z_])")
_ID_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_$.")
_FOUND = re.compile(r"[A-Za-z0-9_$.%@#!^\-]+|\S")
_ESCAPE = re.compile(r"\\(?:([0-9A-Fa-f]{2})|(.))", re.S)
_SIMPLE_ESCAPES = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\"}
_OPENERS = {"<": ">", "(": ")", "[": "]", "{": "}"}


def unescape(body: str) -> str:
    """The value of an MLIR string literal's body: ``\\n \\t \\" \\\\`` and ``\\XX`` bytes.

    Bytes that are not UTF-8 survive as surrogate escapes so that nothing is lost.
    """
    if "\\" not in body:
        return body
    out = bytearray()
    last = 0
    for m in _ESCAPE.finditer(body):
        out += body[last : m.start()].encode("utf-8", "surrogateescape")
        if m.group(1) is not None:
            out.append(int(m.group(1), 16))
        else:
            simple = _SIMPLE_ESCAPES.get(m.group(2))
            if simple is None:
                raise ValueError(f"unknown escape sequence '\\{m.group(2)}' in a string")
            out += simple
        last = m.end()
    out += body[last:].encode("utf-8", "surrogateescape")
    return out.decode("utf-8", "surrogateescape")


# How deep attributes ([...], {...}), dense literals and regions may nest: the reader
# recurses once per level, so deeper text is a ParseError rather than a RecursionError.
# Real programs nest a handful of levels.
MAX_NESTING = 64


class Scanner:
    """The text, the current offset and the end of the section being read."""

    def __init__(self, text: str, start: int = 0, end: int | None = None) -> None:
        self.text = text
        self.pos = start
        self.end = len(text) if end is None else end
        self._line_pos = 0  # incremental line counting: ops are read in text order
        self._line_no = 1

    # -- errors and positions ------------------------------------------------------------
    def error(self, message: str, pos: int | None = None) -> ParseError:
        """A ParseError at ``pos``; one at the end of the input points just after the last
        text instead, so that the message can show that line and a caret."""
        pos = self.pos if pos is None else pos
        if not self.text[pos : self.end].strip():
            pos = len(self.text[:pos].rstrip())
        return ParseError(message, text=self.text, offset=pos)

    def found(self) -> str:
        """What stands at the current position, for 'expected X, found Y' messages."""
        p = self.skip()
        if p >= self.end:
            return "end of input"
        m = _FOUND.match(self.text, p, self.end)
        return repr(m.group(0)) if m else "end of input"

    def line_column(self, pos: int) -> tuple[int, int]:
        if pos < self._line_pos:
            self._line_pos, self._line_no = 0, 1
        self._line_no += self.text.count("\n", self._line_pos, pos)
        self._line_pos = pos
        return self._line_no, pos - self.text.rfind("\n", 0, pos)

    # -- reading -------------------------------------------------------------------------
    def skip(self) -> int:
        """Skips whitespace and ``//`` comments; returns the new position."""
        self.pos = _WS.match(self.text, self.pos, self.end).end()
        return self.pos

    def peek(self) -> str:
        p = self.skip()
        return self.text[p] if p < self.end else ""

    def at(self, s: str) -> bool:
        p = self.skip()
        return self.text.startswith(s, p, self.end)

    def eat(self, s: str) -> bool:
        if self.at(s):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, what: str | None = None) -> None:
        if not self.eat(s):
            raise self.error(f"expected {what or repr(s)}, found {self.found()}")

    def at_word(self, word: str) -> bool:
        p = self.skip()
        q = p + len(word)
        return self.text.startswith(word, p, self.end) and (
            q >= self.end or self.text[q] not in _ID_CHARS
        )

    def eat_word(self, word: str) -> bool:
        if self.at_word(word):
            self.pos += len(word)
            return True
        return False

    def expect_word(self, word: str) -> None:
        if not self.eat_word(word):
            raise self.error(f"expected '{word}', found {self.found()}")

    def match(self, regex: re.Pattern[str]) -> re.Match[str] | None:
        p = self.skip()
        m = regex.match(self.text, p, self.end)
        if m is not None:
            self.pos = m.end()
        return m

    def bare_id(self, what: str = "an identifier") -> str:
        m = self.match(BARE_ID)
        if m is None:
            raise self.error(f"expected {what}, found {self.found()}")
        return m.group(0)

    def integer(self, what: str = "an integer") -> int:
        m = self.match(INTEGER)
        if m is None:
            raise self.error(f"expected {what}, found {self.found()}")
        token = m.group(0)
        if len(token) > 48:  # beyond any integer type (and int() refuses 4300 digits)
            raise self.error(
                f"integer {token[:20]}... has {len(token)} digits, too many", m.start()
            )
        return int(token, 0) if "x" in token else int(token)

    def string(self, what: str = "a string") -> str:
        start = self.skip()
        m = self.match(STRING)
        if m is None:
            if self.text.startswith('"', start, self.end):
                raise self.error("unterminated string (a string ends on its line)", start)
            raise self.error(f"expected {what}, found {self.found()}")
        try:
            return unescape(m.group(1))
        except ValueError as e:
            raise self.error(str(e), start) from None

    def balanced(self) -> str:
        """Reads a bracketed body starting at an opener (``<([{``) and returns its text.

        Strings are skipped whole and ``->`` never closes a ``<``, as in MLIR's
        reading of dialect attribute and type bodies.
        """
        text, start = self.text, self.skip()
        if start >= self.end or text[start] not in _OPENERS:
            raise self.error(f"expected '<', '(', '[' or '{{', found {self.found()}")
        stack = [_OPENERS[text[start]]]
        p = start + 1
        while stack:
            if p >= self.end:
                raise self.error(f"unbalanced '{text[start]}': no closing '{stack[0]}'", start)
            c = text[p]
            if c == '"':
                m = STRING.match(text, p, self.end)
                if m is None:
                    raise self.error("unterminated string", p)
                p = m.end()
                continue
            if c in _OPENERS:
                stack.append(_OPENERS[c])
            elif c == ">" and text[p - 1] == "-":
                pass
            elif c in ">)]}":
                if c != stack[-1]:
                    raise self.error(f"expected '{stack[-1]}', found '{c}'", p)
                stack.pop()
            p += 1
        self.pos = p
        return text[start:p]

    def skip_location(self) -> None:
        """Skips a trailing ``loc(...)`` annotation: locations carry no meaning here."""
        if self.at_word("loc"):
            self.pos += 3
            if not self.at("("):
                raise self.error(f"expected '(' after 'loc', found {self.found()}")
            self.balanced()
