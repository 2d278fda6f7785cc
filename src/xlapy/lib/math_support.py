"""What the math library's functions share: typed constants, polynomials, upcasting,
operand checks, and the two pieces of control flow the iterative functions need.

Every function of :mod:`xlapy.lib.math` is built from ordinary ops through the
builder, as XLA's client library (xla/hlo/builder/lib/math.cc) is, so nothing
here adds an HLO opcode: loops are ``ops.While`` and "any element still
converging" is an ``ops.ReduceAll`` with ``or``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import ml_dtypes
import numpy as np

from .. import ops
from ..builder import XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError
from ..types import ARRAY_TYPES, PrimitiveType

F = TypeVar("F", bound=Callable[..., Any])

F32, F64 = PrimitiveType.F32, PrimitiveType.F64

# Narrow floats have too few bits for the intermediate results (XLA's DoWithUpcastToF32).
_UPCAST = frozenset(t for t in ARRAY_TYPES if t.is_float and t.bit_width <= 16)


def math_function(name: str) -> Callable[[F], F]:
    """The builder's error policy for a library function (first error recorded, op fails)."""
    return builder_op(name)


# -- types ---------------------------------------------------------------------------------


def element_type(x: XlaOp) -> PrimitiveType:
    return shape_of(x).element_type


def finfo(t: PrimitiveType) -> ml_dtypes.finfo:
    """Limits of a float type or of a complex type's parts (ml_dtypes knows bf16 and f8s too)."""
    return ml_dtypes.finfo(t.component_type.dtype)


def require_float(name: str, x: XlaOp, complex_ok: bool = False) -> PrimitiveType:
    """The element type of ``x``; an error unless it is a float (or complex, if allowed)."""
    shape = shape_of(x)
    if not shape.is_array:
        raise InvalidArgumentError(f"{name}: the operand must be an array, got {shape}")
    t = shape.element_type
    if t.is_float or (complex_ok and t.is_complex):
        return t
    kinds = "floating-point or complex" if complex_ok else "real-valued floating-point"
    raise InvalidArgumentError(f"Operands to {name} must be {kinds}, but got {t.hlo_name}")


def same_operands(name: str, *args: Any) -> list[XlaOp]:
    """Operands of a multi-argument function as ops of one shape and one float type.

    Python numbers become constants of the type of the ops; an op of rank 0 is
    broadcast to the others' shape (XLA's own versions require equal shapes).
    """
    builder = next((a.builder for a in args if isinstance(a, XlaOp)), None)
    if builder is None:
        raise InvalidArgumentError(f"{name}: at least one operand must be an XlaOp")
    like = next(a for a in args if isinstance(a, XlaOp))
    t = require_float(name, like)
    out = [a if isinstance(a, XlaOp) else ops.Constant(builder, a, t) for a in args]
    shapes = [shape_of(o) for o in out]
    dims = max((s.dimensions for s in shapes), key=len)
    for i, (o, s) in enumerate(zip(out, shapes, strict=True)):
        if s.element_type != t:
            raise InvalidArgumentError(
                f"Arguments to {name} must have equal element types; got "
                f"{', '.join(str(s) for s in shapes)}"
            )
        if s.dimensions != dims:
            if s.rank != 0:
                raise InvalidArgumentError(
                    f"Arguments to {name} must have equal shapes; got "
                    f"{', '.join(str(s) for s in shapes)}"
                )
            out[i] = ops.Broadcast(o, dims)
    return out


# -- constants -------------------------------------------------------------------------------


def scalar(like: XlaOp, value: Any, t: PrimitiveType | None = None) -> XlaOp:
    """A rank-0 constant of ``like``'s element type (or ``t``)."""
    t = t or element_type(like)
    return ops.Constant(like.builder, np.asarray(value, dtype=t.dtype), t)


def full_like(like: XlaOp, value: Any, t: PrimitiveType | None = None) -> XlaOp:
    """``value`` broadcast to ``like``'s shape (selects need operands of equal shapes)."""
    return ops.Broadcast(scalar(like, value, t), shape_of(like).dimensions)


def select(pred: XlaOp, on_true: Any, on_false: Any) -> XlaOp:
    """``Select`` that accepts a number on either side (broadcast to the other's shape)."""
    if not isinstance(on_true, XlaOp):
        on_true = full_like(on_false, on_true)
    if not isinstance(on_false, XlaOp):
        on_false = full_like(on_true, on_false)
    return ops.Select(pred, on_true, on_false)


def polynomial(x: XlaOp, coefficients: Sequence[float]) -> XlaOp:
    """Horner's rule; ``coefficients`` from the highest power down."""
    result = full_like(x, coefficients[0])
    for c in coefficients[1:]:
        result = result * x + c
    return result


def chebyshev(x: XlaOp, coefficients: Sequence[float]) -> XlaOp:
    """Clenshaw's recurrence for Cephes' ``chbevl`` (coefficients highest order first)."""
    b0 = full_like(x, 0.0)
    b1 = b0
    b2 = b0
    for c in coefficients:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + c
    return (b0 - b2) * 0.5


# -- bit-level helpers -------------------------------------------------------------------------

_UINT = {16: PrimitiveType.U16, 32: PrimitiveType.U32, 64: PrimitiveType.U64}


def sign_bit(x: XlaOp) -> XlaOp:
    """pred: the sign bit is set (true for -0.0 and negative NaNs, unlike ``x < 0``)."""
    t = element_type(x)
    u = _UINT[t.bit_width]
    bits = ops.BitcastConvertType(x, u)
    mask = scalar(bits, 1 << (t.bit_width - 1))
    return ops.Ne(ops.And(bits, mask), scalar(bits, 0))


def copysign(magnitude: XlaOp, sign: XlaOp) -> XlaOp:
    """``|magnitude|`` with the sign bit of ``sign``."""
    mag = ops.Abs(magnitude)
    return ops.Select(sign_bit(sign), -mag, mag)


# -- upcasting -------------------------------------------------------------------------------


def with_upcast(
    fn: Callable[..., XlaOp], *args: XlaOp, upcast: frozenset[PrimitiveType] = _UPCAST
) -> XlaOp:
    """``fn(*args)``, computed in f32 when the (shared) element type is a narrow float."""
    t = element_type(args[0])
    if t not in upcast:
        return fn(*args)
    result = fn(*(ops.ConvertElementType(a, F32) for a in args))
    return ops.ConvertElementType(result, t)


# -- control flow ------------------------------------------------------------------------------


def _unpack(state: XlaOp, n: int) -> list[XlaOp]:
    return [ops.GetTupleElement(state, i) for i in range(n)]


def while_loop(
    condition: Callable[[list[XlaOp]], XlaOp],
    body: Callable[[list[XlaOp]], Sequence[XlaOp]],
    init: Sequence[XlaOp],
    name: str,
) -> list[XlaOp]:
    """``ops.While`` over a list of values (XLA's WhileLoopHelper).

    ``condition`` and ``body`` see the values as ops of their own sub-builders,
    so everything they use must travel in the state; constants they make are
    their own.
    """
    n = len(init)

    def cond_fn(p: XlaOp) -> XlaOp:
        return condition(_unpack(p, n))

    def body_fn(p: XlaOp) -> XlaOp:
        return ops.Tuple(p.builder, list(body(_unpack(p, n))))

    cond_fn.__name__ = f"{name}_condition"
    body_fn.__name__ = f"{name}_body"
    result = ops.While(cond_fn, body_fn, ops.Tuple(init[0].builder, list(init)))
    return _unpack(result, n)


def _or(a: XlaOp, b: XlaOp) -> XlaOp:
    return ops.Or(a, b)


def reduce_any(pred: XlaOp) -> XlaOp:
    """pred[]: some element of ``pred`` is true."""
    if shape_of(pred).rank == 0:
        return pred
    return ops.ReduceAll(pred, np.bool_(False), _or)
