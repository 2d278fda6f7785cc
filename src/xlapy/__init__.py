"""xlapy: XLA, the domain-specific compiler for linear algebra, in Python.

The top level re-exports what a user touches first: element types, shapes,
layouts, literals and the error classes. See docs/architecture.md for the map.
"""

from . import errors, types
from .errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    ParseError,
    UnimplementedError,
    XlaError,
)
from .layout import Layout, PaddingValue, Tile
from .literal import Literal
from .shape import Shape
from .types import *  # noqa: F403  (PRED, S32, F32, ... as top-level constants)
from .types import PrimitiveType

__version__ = "0.1.0"

__all__ = [
    "errors",
    "DeadlineExceededError",
    "InvalidArgumentError",
    "Layout",
    "Literal",
    "PaddingValue",
    "ParseError",
    "PrimitiveType",
    "Shape",
    "Tile",
    "UnimplementedError",
    "XlaError",
    *types.__all__,
]
