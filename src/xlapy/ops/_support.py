"""What every op function shares: error recording, operand coercion, broadcasting.

Each public op is wrapped by :func:`builder_op`: an ``XlaError`` raised while
building is recorded on the builder with the file:line of the user's call
(or raised at once in die-immediately mode) and the op returns a *failed*
``XlaOp``; ops applied to failed ops fail quietly, so only the first error
is reported, as in XLA.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from ..builder import BuildFailed, XlaBuilder, XlaOp
from ..errors import InvalidArgumentError, XlaError
from ..literal import Literal
from ..opcode import HloOpcode
from ..shape import Shape
from ..shape_inference import broadcast_binary_shapes
from ..types import PrimitiveType

F = TypeVar("F", bound=Callable[..., Any])


def _find_builder(args: Sequence[Any], kwargs: dict[str, Any]) -> XlaBuilder | None:
    stack = list(args) + list(kwargs.values())
    while stack:
        value = stack.pop(0)
        if isinstance(value, XlaBuilder):
            return value
        if isinstance(value, XlaOp):
            return value.builder
        if isinstance(value, (list, tuple)):
            stack.extend(value)
    return None


def builder_op(name: str) -> Callable[[F], F]:
    """Wrap an op function with the builder's error policy (module docstring)."""

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            builder = _find_builder(args, kwargs)
            if builder is None:
                raise InvalidArgumentError(
                    f"{name}: needs an XlaOp operand or an XlaBuilder argument to build with"
                )
            if builder.first_error is not None and not builder._die_immediately:
                return builder.failed_op()
            try:
                return fn(*args, **kwargs)
            except BuildFailed:
                return builder.failed_op()
            except XlaError as error:
                builder.report_error(builder._located(error))
                return builder.failed_op()

        wrapper.op_name = name  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def constant_op(builder: XlaBuilder, value: Any, element_type: PrimitiveType | None) -> XlaOp:
    """A constant from a Python or numpy value, in ``element_type`` when given."""
    if isinstance(value, Literal):
        literal = value
    else:
        if element_type is not None and not isinstance(value, np.ndarray):
            value = np.asarray(value, dtype=element_type.dtype)
        elif element_type is not None:
            value = value.astype(element_type.dtype)
        literal = Literal.from_value(value)
    return builder.add_instruction(
        HloOpcode.CONSTANT, [], declared=literal.shape, literal=literal, op_name="Constant"
    )


def as_op(value: Any, like: XlaOp | None, op_name: str, builder: XlaBuilder) -> XlaOp:
    """``value`` as an op of ``builder``; numbers take the element type of ``like``."""
    if isinstance(value, XlaOp):
        return value
    if isinstance(value, (bool, int, float, complex, np.generic, np.ndarray, Literal)):
        element_type = None
        if like is not None and like.instruction is not None and like.shape.is_array:
            element_type = like.shape.element_type
        return constant_op(builder, value, element_type)
    raise InvalidArgumentError(
        f"{op_name}: expected an XlaOp or a number, got {type(value).__name__}"
    )


def operand_pair(lhs: Any, rhs: Any, op_name: str) -> tuple[XlaOp, XlaOp]:
    builder = _find_builder([lhs, rhs], {})
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


def shape_of(op: XlaOp) -> Shape:
    if op.instruction is None:
        raise BuildFailed()
    return op.instruction.shape


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


def int_tuple(values: Any, what: str, op_name: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in values)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: {what} must be a sequence of integers, got {values!r}"
        ) from None


def primitive_type(value: Any, op_name: str) -> PrimitiveType:
    """An element type from a PrimitiveType, a numpy dtype or an HLO name."""
    if isinstance(value, PrimitiveType):
        return value
    if isinstance(value, str):
        return PrimitiveType.from_hlo_name(value)
    try:
        return PrimitiveType.from_dtype(value)
    except InvalidArgumentError:
        raise InvalidArgumentError(
            f"{op_name}: {value!r} is not an element type (use e.g. xlapy.F32 or np.float32)"
        ) from None
