"""The importer's errors: each names the MLIR op and line it is about.

Every lowering module raises these, and the lowering driver (``core``) wraps
what the builder raises in them; kept apart so that the op families and the
driver share them without importing one another.
"""

from __future__ import annotations

import re

from ...errors import InvalidArgumentError, UnimplementedError, XlaError
from .. import ast

_BUILDER_LOCATION = re.compile(r"\s*\[at [^\]]*\]")


def where(op: ast.Operation) -> str:
    return f"{op.name} at line {op.line}"


def unsupported(op: ast.Operation, what: str | None = None) -> UnimplementedError:
    """The error for a construct the importer does not handle, naming it and its line."""
    detail = f": {what}" if what else ""
    error = UnimplementedError(f"{where(op)} is not supported yet{detail}")
    error.stablehlo_location = (op.name, op.line)  # type: ignore[attr-defined]
    return error


def invalid(op: ast.Operation, message: str) -> InvalidArgumentError:
    error = InvalidArgumentError(f"{where(op)}: {message}")
    error.stablehlo_location = (op.name, op.line)  # type: ignore[attr-defined]
    return error


def located(error: XlaError, op: ast.Operation) -> XlaError:
    """``error`` with the op and line prepended (once: the innermost op wins)."""
    if getattr(error, "stablehlo_location", None):
        return error
    message = _BUILDER_LOCATION.sub("", str(error))
    try:
        relocated = type(error)(f"{where(op)}: {message}")
    except TypeError:  # an error class with a different constructor
        relocated = XlaError(f"{where(op)}: {message}")
    relocated.stablehlo_location = (op.name, op.line)  # type: ignore[attr-defined]
    return relocated


__all__ = ["invalid", "located", "unsupported", "where"]
