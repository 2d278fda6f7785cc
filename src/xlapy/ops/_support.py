"""What every op function shares: operand coercion, broadcasting, argument checks.

Each public op is wrapped by :func:`xlapy.builder.builder_op`: an ``XlaError``
raised while building is recorded on the builder with the file:line of the
user's call (or raised at once in die-immediately mode) and the op returns a
*failed* ``XlaOp``; ops applied to failed ops fail quietly, so only the first
error is reported, as in XLA.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from ..builder import (
    XlaBuilder,
    XlaComputation,
    XlaOp,
    find_builder,
    shape_of,
)
from ..errors import InvalidArgumentError
from ..literal import Literal
from ..opcode import HloOpcode
from ..shape import Shape
from ..shape_inference import broadcast_binary_shapes


def as_op(value: Any, like: XlaOp | None, op_name: str, builder: XlaBuilder) -> XlaOp:
    """``value`` as an op of ``builder``; numbers take the element type of ``like``."""
    if isinstance(value, XlaOp):
        return value
    if isinstance(value, (bool, int, float, complex, np.generic, np.ndarray, Literal)):
        element_type = None
        if like is not None and like.instruction is not None and like.shape.is_array:
            element_type = like.shape.element_type
        return builder.add_constant(value, element_type)
    raise InvalidArgumentError(
        f"{op_name}: expected an XlaOp or a number, got {type(value).__name__}"
    )


def operand_pair(lhs: Any, rhs: Any, op_name: str) -> tuple[XlaOp, XlaOp]:
    builder = find_builder([lhs, rhs], {})
    if builder is None:
        raise InvalidArgumentError(f"{op_name}: at least one operand must be an XlaOp")
    lhs_op = lhs if isinstance(lhs, XlaOp) else None
    rhs_op = rhs if isinstance(rhs, XlaOp) else None
    return as_op(lhs, rhs_op, op_name, builder), as_op(rhs, lhs_op, op_name, builder)


def require_op(value: Any, what: str, op_name: str) -> XlaOp:
    """``value`` if it is an op that was built; a clear error for anything else.

    A failed op ends the call quietly (its error is already recorded).
    """
    if not isinstance(value, XlaOp):
        raise InvalidArgumentError(
            f"{op_name}: {what} must be an XlaOp, got {type(value).__name__}"
        )
    shape_of(value)
    return value


def broadcast_in_dim(
    op: XlaOp, dimensions: Sequence[int], mapping: Sequence[int], op_name: str
) -> XlaOp:
    """Broadcast ``op`` to ``dimensions``; its dimension i goes to ``mapping[i]``.

    Size-1 dimensions that must grow are reshaped away first, then one HLO
    broadcast does the rest (XLA's AddBroadcastSequence).
    """
    shape = shape_of(op)
    dims = list(shape.dimensions)
    if dims == list(dimensions):
        return op
    keep = [i for i, d in enumerate(dims) if d == dimensions[mapping[i]]]
    builder = op.builder
    if len(keep) != len(dims):
        reshaped = Shape.array(shape.element_type, [dims[i] for i in keep])
        op = builder.add_instruction(HloOpcode.RESHAPE, [op], declared=reshaped, op_name=op_name)
    target = Shape.array(shape.element_type, list(dimensions))
    return builder.add_instruction(
        HloOpcode.BROADCAST,
        [op],
        attributes={"dimensions": tuple(mapping[i] for i in keep)},
        declared=target,
        op_name=op_name,
    )


def broadcast_operands(
    lhs: XlaOp, rhs: XlaOp, broadcast_dimensions: Sequence[int] | None, op_name: str
) -> tuple[XlaOp, XlaOp]:
    """Apply the spec's implicit broadcasting so that both operands have one shape."""
    result, lhs_map, rhs_map = broadcast_binary_shapes(
        op_name, shape_of(lhs), shape_of(rhs), broadcast_dimensions
    )
    return (
        broadcast_in_dim(lhs, result, lhs_map, op_name),
        broadcast_in_dim(rhs, result, rhs_map, op_name),
    )


# -- arguments of ops that take lists of operands and called computations -------------

# A called computation: built, or a Python function traced over scalar parameters.
Computation = XlaComputation | Callable[..., Any]


def fail(op_name: str, message: str, operands: Sequence[Any]) -> NoReturn:
    """Raise with the same form as shape inference: op, problem, operand shapes."""
    shapes = ", ".join(
        str(shape_of(op)) if isinstance(op, XlaOp) else type(op).__name__ for op in operands
    )
    raise InvalidArgumentError(f"{op_name}: {message} (operand shapes: {shapes or 'none'})")


def as_list(values: Any) -> list[Any]:
    """A sequence argument as a list; a lone value (an op, a number) as a list of one."""
    return list(values) if isinstance(values, (list, tuple)) else [values]


def array_ops(values: Any, what: str, op_name: str) -> list[XlaOp]:
    """``values`` (one op or a sequence of ops) as a non-empty list of array ops."""
    ops = as_list(values)
    if not ops:
        raise InvalidArgumentError(f"{op_name}: needs at least one {what}")
    for i, op in enumerate(ops):
        if not isinstance(op, XlaOp):
            fail(op_name, f"{what} {i} must be an XlaOp, got {type(op).__name__}", ops)
    for i, op in enumerate(ops):
        if not shape_of(op).is_array:
            fail(op_name, f"{what} {i} must be an array, got {shape_of(op)}", ops)
    return ops


def scalar_parameter(op: XlaOp) -> Shape:
    """The scalar parameter a called computation receives for ``op``'s elements."""
    return Shape.scalar(shape_of(op).element_type)


def index_list(values: Any, what: str, op_name: str, operands: Sequence[Any]) -> tuple[int, ...]:
    """A sequence of integers (a lone integer counts as a sequence of one).

    ``operator.index`` rejects floats: a dimension of 1.5 is a mistake, not 1.
    """
    try:
        return (operator.index(values),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        fail(op_name, f"{what} must be a sequence of integers, got {values!r}", operands)


def index_value(value: Any, what: str, op_name: str, operands: Sequence[Any]) -> int:
    try:
        return operator.index(value)
    except TypeError:
        fail(op_name, f"{what} must be an integer, got {value!r}", operands)


def set_flags(attributes: dict[str, Any], **flags: bool) -> dict[str, Any]:
    """Set the boolean attributes that are true: XLA's printer leaves out false ones."""
    attributes.update({name: True for name, value in flags.items() if value})
    return attributes


def int_tuple(values: Any, what: str, op_name: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: {what} must be a sequence of integers, got {values!r}"
        ) from None
