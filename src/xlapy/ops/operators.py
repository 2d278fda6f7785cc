"""XlaOp's Python operators: ``a + b`` is ``ops.Add(a, b)``, ``a @ b`` is ``ops.Dot(a, b)``.

The operators are ops, and ops build on ``xlapy.builder``, so ``XlaOp`` cannot
name them itself; importing ``xlapy.ops`` (which every way into xlapy does)
attaches them here. A Python number on either side becomes a constant of the
other operand's element type; ``==`` stays identity (use ``ops.Eq``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..builder import XlaOp
from .elementwise import (
    Abs,
    Add,
    And,
    Div,
    Ge,
    Gt,
    Le,
    Lt,
    Mul,
    Neg,
    Not,
    Or,
    Pow,
    Rem,
    ShiftLeft,
    ShiftRightArithmetic,
    Sub,
    Xor,
)
from .linalg import Dot

Binary = Callable[[Any, Any], XlaOp]


def _forward(fn: Binary) -> Callable[[XlaOp, Any], XlaOp]:
    def operator(self: XlaOp, other: Any) -> XlaOp:
        return fn(self, other)

    return operator


def _reflected(fn: Binary) -> Callable[[XlaOp, Any], XlaOp]:
    def operator(self: XlaOp, other: Any) -> XlaOp:
        return fn(other, self)

    return operator


# Python's operator -> the op; the reflected form (__radd__) exists where Python has one.
_BINARY: dict[str, Binary] = {
    "add": Add,
    "sub": Sub,
    "mul": Mul,
    "truediv": Div,
    "mod": Rem,
    "pow": Pow,
    "matmul": Dot,
    "and": And,
    "or": Or,
    "xor": Xor,
}
_FORWARD_ONLY: dict[str, Binary] = {
    "lt": Lt,
    "le": Le,
    "gt": Gt,
    "ge": Ge,
    "lshift": ShiftLeft,
    "rshift": ShiftRightArithmetic,
}
_UNARY: dict[str, Callable[[XlaOp], XlaOp]] = {"invert": Not, "neg": Neg, "abs": Abs}

for _name, _fn in _BINARY.items():
    setattr(XlaOp, f"__{_name}__", _forward(_fn))
    setattr(XlaOp, f"__r{_name}__", _reflected(_fn))
for _name, _fn in _FORWARD_ONLY.items():
    setattr(XlaOp, f"__{_name}__", _forward(_fn))
for _name, _fn in _UNARY.items():
    setattr(XlaOp, f"__{_name}__", _fn)
del _name, _fn

__all__: list[str] = []
