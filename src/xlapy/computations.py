"""Common scalar computations: the reducers and comparators most programs need.

``xlapy.computations.add(xlapy.F32)`` is the ``f32[] + f32[]`` reducer that
``Reduce``, ``ReduceWindow``, ``Scatter`` or ``AllReduce`` take, and
``lt(xlapy.F32)`` is the comparator ``Sort`` takes; these are XLA's
``CreateScalarAddComputation``, ``CreateScalarLtComputation`` and friends
(lib/arithmetic.h, lib/comparators.h).

Each computation is built once per (name, element types) and cached: a
program that reduces a hundred arrays with ``add(F32)`` embeds one reducer
per builder, not a hundred (the builder copies an ``XlaComputation`` in once
per builder, keyed by identity). Cached computations are shared, so treat
them as immutable.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .builder import XlaBuilder, XlaComputation, XlaOp, primitive_type
from .errors import InvalidArgumentError
from .ops.elementwise import Add, And, Max, Min, Mul, Or, Xor
from .ops.movement import Parameter
from .ops.reductions import sort_comparator
from .shape import Shape
from .types import PrimitiveType

# An element type: xlapy.F32, np.float32 or "f32".
ElementType = PrimitiveType | type | str | Any

_lock = threading.Lock()


def _element_type(value: Any, name: str) -> PrimitiveType:
    element_type = primitive_type(value, f"computations.{name}")
    if not element_type.is_array_type:
        raise InvalidArgumentError(
            f"computations.{name}: {element_type.hlo_name} is not an array element type; "
            "scalar computations need pred, an integer, a float or a complex type"
        )
    return element_type


def _binary(
    name: str, element_type: PrimitiveType, body: Callable[[XlaOp, XlaOp], XlaOp]
) -> XlaComputation:
    builder = XlaBuilder(f"{name}_{element_type.hlo_name}")
    builder.set_die_immediately_on_error(True)
    scalar = Shape.scalar(element_type)
    lhs = Parameter(builder, 0, scalar, "lhs")
    rhs = Parameter(builder, 1, scalar, "rhs")
    return builder.build(body(lhs, rhs))


def _public(name: str) -> str:
    """The function's name in this module (``and_``, ``or_`` avoid the keywords)."""
    return f"{name}_" if name in ("and", "or") else name


@functools.cache
def _cached_binary(name: str, element_type: PrimitiveType) -> XlaComputation:
    if name in ("and", "or", "xor") and not (element_type.is_pred or element_type.is_integral):
        raise InvalidArgumentError(
            f"computations.{_public(name)}: {element_type.hlo_name} has no bitwise or logical "
            f"{name}; use pred or an integer type"
        )
    if name in ("max", "min") and element_type.is_complex:
        raise InvalidArgumentError(
            f"computations.{name}: {element_type.hlo_name} values have no order to take the "
            f"{name}imum of"
        )
    bodies: dict[str, Callable[[XlaOp, XlaOp], XlaOp]] = {
        # pred has no arithmetic in XLA: its "sum" is Or and its "product" is And,
        # as in CreateScalarAddComputation / CreateScalarMultiplyComputation.
        "add": Or if element_type.is_pred else Add,
        "mul": And if element_type.is_pred else Mul,
        # XLA's maximum and minimum propagate NaN, so max(f32) reduces [1, NaN] to NaN.
        "max": Max,
        "min": Min,
        "and": And,
        "or": Or,
        "xor": Xor,
    }
    return _binary(name, element_type, bodies[name])


def _binary_computation(name: str, element_type: ElementType) -> XlaComputation:
    resolved = _element_type(element_type, _public(name))
    with _lock:
        return _cached_binary(name, resolved)


def add(element_type: ElementType) -> XlaComputation:
    """``(T, T) -> T`` sum; for pred it is logical or, as in XLA."""
    return _binary_computation("add", element_type)


def mul(element_type: ElementType) -> XlaComputation:
    """``(T, T) -> T`` product; for pred it is logical and, as in XLA."""
    return _binary_computation("mul", element_type)


def max(element_type: ElementType) -> XlaComputation:  # noqa: A001  (XLA's name)
    """``(T, T) -> T`` maximum; a NaN operand gives NaN (XLA's maximum semantics)."""
    return _binary_computation("max", element_type)


def min(element_type: ElementType) -> XlaComputation:  # noqa: A001  (XLA's name)
    """``(T, T) -> T`` minimum; a NaN operand gives NaN (XLA's minimum semantics)."""
    return _binary_computation("min", element_type)


def and_(element_type: ElementType) -> XlaComputation:
    """``(T, T) -> T`` logical (pred) or bitwise (integers) and."""
    return _binary_computation("and", element_type)


def or_(element_type: ElementType) -> XlaComputation:
    """``(T, T) -> T`` logical (pred) or bitwise (integers) or."""
    return _binary_computation("or", element_type)


def xor(element_type: ElementType) -> XlaComputation:
    """``(T, T) -> T`` logical (pred) or bitwise (integers) exclusive or."""
    return _binary_computation("xor", element_type)


# -- comparators -----------------------------------------------------------------------
# Sort's own default comparator (xlapy.ops.reductions.sort_comparator), cached there.


def _comparator(name: str, element_types: ElementType | Sequence[ElementType]) -> XlaComputation:
    if isinstance(element_types, (list, tuple)):
        if not element_types:
            raise InvalidArgumentError(
                f"computations.{name}: needs at least one element type (one per sort operand)"
            )
        resolved = tuple(_element_type(t, name) for t in element_types)
    else:
        resolved = (_element_type(element_types, name),)
    return sort_comparator(name, resolved)


def lt(element_types: ElementType | Sequence[ElementType]) -> XlaComputation:
    """Ascending sort comparator (XLA's CreateScalarLtComputation).

    With one element type it takes ``(T, T) -> pred``; with a list of N types
    (one per sort operand) it takes 2N parameters and orders by the first
    operand only, the others riding along. Floats use the total order, NaNs last.
    """
    return _comparator("lt", element_types)


def gt(element_types: ElementType | Sequence[ElementType]) -> XlaComputation:
    """Descending sort comparator (XLA's CreateScalarGtComputation); see :func:`lt`."""
    return _comparator("gt", element_types)


__all__ = ["add", "and_", "gt", "lt", "max", "min", "mul", "or_", "xor"]
