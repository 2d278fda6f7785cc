"""The exception hierarchy of xlapy.

Every public entry point raises one of these, never a bare ``ValueError`` or an
internal traceback, so that callers can catch ``XlaError`` and nothing else.
The classes mirror the status codes XLA itself returns (absl::Status), which is
what users of XLA and JAX already know how to read.
"""

from __future__ import annotations


class XlaError(Exception):
    """Base class of every error xlapy raises on purpose."""


class InvalidArgumentError(XlaError, ValueError):
    """A call, a shape or a value that the operation does not accept.

    Messages name the operation, the shapes involved and what would be valid.
    Also a ``ValueError`` so that generic Python code catching that still works.
    """


class ParseError(XlaError, ValueError):
    """Malformed text input (shapes, literals, HLO, StableHLO).

    Carries the position so that tools can point at it; ``str()`` shows the
    offending line with a caret under the column.
    """

    def __init__(
        self,
        message: str,
        *,
        text: str | None = None,
        line: int | None = None,
        column: int | None = None,
        offset: int | None = None,
    ) -> None:
        if text is not None and offset is not None and line is None:
            line, column = _line_column(text, offset)
        self.message = message
        self.line = line
        self.column = column
        self.source_line = None
        if text is not None and line is not None:
            lines = text.splitlines() or [""]
            if 1 <= line <= len(lines):
                self.source_line = lines[line - 1]
        super().__init__(self._render())

    def _render(self) -> str:
        if self.line is None:
            return self.message
        where = f"{self.line}:{self.column}"
        out = f"{where}: {self.message}"
        if self.source_line is not None and self.column is not None:
            out += f"\n  {self.source_line}\n  {' ' * (self.column - 1)}^"
        return out


def _line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset into ``text``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    line_start = text.rfind("\n", 0, offset) + 1
    return line, offset - line_start + 1


class UnimplementedError(XlaError, NotImplementedError):
    """A valid request that xlapy does not support yet; the message says what."""


class ResourceExhaustedError(XlaError, MemoryError):
    """Out of memory or another finite resource."""


class DeadlineExceededError(XlaError, TimeoutError):
    """A wait that took too long, e.g. a collective some replica never joined."""


class InternalError(XlaError, RuntimeError):
    """A broken invariant inside xlapy: always a bug in xlapy, never the user's."""


class NotFoundError(XlaError, LookupError):
    """A named thing (custom-call target, handle, computation) does not exist."""


class FailedPreconditionError(XlaError, RuntimeError):
    """The system is not in the state the call needs (e.g. a deleted buffer)."""


class UnauthenticatedError(XlaError, PermissionError):
    """A request to the service without valid credentials (no token, or a wrong one)."""


class PermissionDeniedError(XlaError, PermissionError):
    """An authenticated request for something its caller may not touch (another
    session's handles)."""


class UnavailableError(XlaError, ConnectionError):
    """The service cannot be reached, or went away mid-call; retrying may succeed."""


__all__ = [
    "XlaError",
    "InvalidArgumentError",
    "ParseError",
    "UnimplementedError",
    "ResourceExhaustedError",
    "DeadlineExceededError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "UnavailableError",
    "InternalError",
    "NotFoundError",
    "FailedPreconditionError",
]
