"""What the algebraic simplifier's rules share: value tests, shape tests, builders.

Values. A rule asks about the single value of a *splat*: a constant whose
elements all have one bit pattern, or a broadcast of one. The tests are per
element type, because identities are: ``x + 0`` is ``x`` for integers but not
for floats (``-0 + 0 = +0``), ``x + (-0)`` is ``x`` for floats, and so on.

Shapes. A replacement must have the very shape of the instruction it replaces,
layout included (:func:`same_shape`); the one relaxation is that an array shape
without a layout (HLO text that wrote none) means the default layout, as XLA's
parser reads it.

Builders. A rule creates instructions only when it returns one of them, so a
rule that does not fire leaves the computation untouched (otherwise a fixed
point pipeline would see a change every round).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

import numpy as np

from ...hlo.instruction import HloInstruction
from ...layout import Layout
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType

Op = HloOpcode
Rule = Callable[[HloInstruction], HloInstruction | None]
RuleTable = dict[HloOpcode, tuple[Rule, ...]]


# -- shapes ---------------------------------------------------------------------------------


def _layout_of(shape: Shape) -> Layout:
    return shape.layout if shape.layout is not None else Layout.default(shape.rank)


def same_shape(a: Shape, b: Shape) -> bool:
    """Equal, layouts included; a missing array layout counts as the default one."""
    if a == b:
        return True
    if a.is_tuple or b.is_tuple:
        return (
            a.is_tuple
            and b.is_tuple
            and len(a.tuple_shapes) == len(b.tuple_shapes)
            and all(same_shape(x, y) for x, y in zip(a.tuple_shapes, b.tuple_shapes, strict=True))
        )
    if not (a.is_array and b.is_array) or not a.compatible(b):
        return False
    return a.dynamic_dimensions == b.dynamic_dimensions and _layout_of(a) == _layout_of(b)


def if_same(candidate: HloInstruction | None, i: HloInstruction) -> HloInstruction | None:
    """``candidate`` if it can stand for ``i`` shape-wise (layout included), else None."""
    if candidate is None or not same_shape(candidate.shape, i.shape):
        return None
    return candidate


def shape_like(i: HloInstruction, element_type: PrimitiveType, dims: Sequence[int]) -> Shape:
    """An array shape for a helper instruction: the default layout if ``i`` has one."""
    layout: Any = None if i.shape.layout is None else Layout.default(len(dims))
    return Shape.array(element_type, dims, layout)


# -- element type kinds ---------------------------------------------------------------------


def element_type(i: HloInstruction) -> PrimitiveType:
    return i.shape.element_type


def is_exact_kind(et: PrimitiveType) -> bool:
    """Integers (signed or not) and pred: arithmetic without rounding, NaN or signed zero."""
    return et.is_integral or et.is_pred


@cache
def has_negative_zero(et: PrimitiveType) -> bool:
    """Whether the float type has a -0 (the FNUZ types and e8m0 do not)."""
    with np.errstate(all="ignore"):
        value = np.array(-0.0, dtype=np.float64).astype(et.dtype).astype(np.float64)
    return bool(value == 0 and np.signbit(value))


@cache
def has_infinity(et: PrimitiveType) -> bool:
    with np.errstate(all="ignore"):
        value = np.array(np.inf, dtype=np.float64).astype(et.dtype).astype(np.float64)
    return bool(np.isinf(value))


def _int_range(et: PrimitiveType) -> tuple[int, int]:
    if et.is_pred:
        return 0, 1
    bits = et.bit_width
    if et.is_signed_integral:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


# -- splat values ---------------------------------------------------------------------------


def splat_scalar(i: HloInstruction) -> HloInstruction | None:
    """The scalar ``s`` when ``i`` is ``broadcast(s)`` of a scalar (any instruction)."""
    if i.opcode is Op.BROADCAST and i.operand(0).shape.is_array and i.operand(0).shape.rank == 0:
        return i.operand(0)
    return None


def uniform(i: HloInstruction) -> np.ndarray | None:
    """The one value (a 0-d array of the element dtype) of a constant whose elements share
    one bit pattern, or of a broadcast of such a constant; None otherwise."""
    while i.opcode is Op.BROADCAST:
        i = i.operand(0)
    literal = i.literal
    if i.opcode is not Op.CONSTANT or not isinstance(literal, Literal) or not i.shape.is_array:
        return None
    values = np.ascontiguousarray(literal.to_numpy()).reshape(-1)
    if values.size == 0:
        return None
    if values.size > 1:
        bits = values.view(np.uint8).reshape(values.size, values.dtype.itemsize)
        if not bool((bits == bits[0]).all()):
            return None
    return np.array(values[0])


def _real(v: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(v).astype(np.float64)


def is_int_value(v: np.ndarray | None, et: PrimitiveType, n: int) -> bool:
    """An integer or pred splat equal to ``n``."""
    if v is None or not is_exact_kind(et):
        return False
    return int(v) == n


def is_float_value(v: np.ndarray | None, et: PrimitiveType, x: float) -> bool:
    """A float splat equal to ``x`` (a zero of either sign counts for ``x == 0``)."""
    return v is not None and et.is_float and bool(_real(v) == x)


def is_zero_of_sign(v: np.ndarray | None, et: PrimitiveType, negative: bool) -> bool:
    """A float zero with the given sign (a complex zero: both parts)."""
    if v is None:
        return False
    if et.is_complex:
        parts = [np.real(v), np.imag(v)]
        return all(bool(p == 0) and bool(np.signbit(p)) == negative for p in parts)
    if not et.is_float:
        return False
    value = _real(v)
    return bool(value == 0) and bool(np.signbit(value)) == negative


def is_float_zero_identity(v: np.ndarray | None, et: PrimitiveType, negative: bool) -> bool:
    """The zero ``z`` with ``x + z == x`` (``negative``) or ``x - z == x`` for every float
    ``x``: -0 resp. +0, or either zero when the type has no -0 anyway."""
    if et.is_float and not has_negative_zero(et):
        return is_float_value(v, et, 0.0)
    return is_zero_of_sign(v, et, negative)


def is_all_ones(v: np.ndarray | None, et: PrimitiveType) -> bool:
    """Every bit set: -1 for signed integers, the maximum for unsigned ones, true."""
    if v is None or not is_exact_kind(et):
        return False
    if et.is_pred:
        return bool(v)
    return int(v) == (-1 if et.is_signed_integral else _int_range(et)[1])


def is_extreme(v: np.ndarray | None, et: PrimitiveType, lowest: bool) -> bool:
    """The lowest (or highest) value of the type: ``max(x, lowest) == x`` for every ``x``."""
    if v is None:
        return False
    if is_exact_kind(et):
        low, high = _int_range(et)
        return int(v) == (low if lowest else high)
    if not et.is_float:
        return False
    value = _real(v)
    if has_infinity(et):
        return bool(value == (-np.inf if lowest else np.inf))
    finfo = np.finfo(et.dtype)
    return bool(value == float(finfo.min if lowest else finfo.max))


# -- builders -------------------------------------------------------------------------------


def add(i: HloInstruction, instruction: HloInstruction) -> HloInstruction:
    """Add ``instruction`` to ``i``'s computation."""
    return i.parent.add_instruction(instruction)


def new(
    i: HloInstruction,
    opcode: HloOpcode,
    operands: Sequence[HloInstruction],
    attributes: dict[str, Any] | None = None,
    shape: Shape | None = None,
) -> HloInstruction:
    """A new instruction next to ``i``, of ``i``'s shape unless told otherwise."""
    instruction = HloInstruction(
        opcode, i.shape if shape is None else shape, list(operands), attributes=attributes or {}
    )
    return add(i, instruction)


def scalar_constant(i: HloInstruction, value: object, et: PrimitiveType) -> HloInstruction:
    return add(i, HloInstruction.create_constant(Literal.scalar(value, et)))


def splat_of(i: HloInstruction, scalar: HloInstruction) -> HloInstruction:
    """``scalar`` broadcast to ``i``'s shape (the scalar itself when ``i`` is a scalar)."""
    if i.shape.rank == 0 and same_shape(scalar.shape, i.shape):
        return scalar
    return new(i, Op.BROADCAST, [scalar], {"dimensions": ()})


def splat(i: HloInstruction, value: object) -> HloInstruction:
    """A broadcast constant of ``i``'s shape with every element ``value``."""
    return splat_of(i, scalar_constant(i, value, element_type(i)))


def zeros(i: HloInstruction) -> HloInstruction:
    et = element_type(i)
    return splat(i, False if et.is_pred else 0)


def all_ones(i: HloInstruction) -> HloInstruction:
    et = element_type(i)
    return splat(i, True if et.is_pred else (-1 if et.is_signed_integral else _int_range(et)[1]))


__all__ = [
    "Op",
    "Rule",
    "RuleTable",
    "add",
    "all_ones",
    "element_type",
    "has_infinity",
    "has_negative_zero",
    "if_same",
    "is_all_ones",
    "is_exact_kind",
    "is_extreme",
    "is_float_value",
    "is_float_zero_identity",
    "is_int_value",
    "is_zero_of_sign",
    "new",
    "same_shape",
    "scalar_constant",
    "shape_like",
    "splat",
    "splat_of",
    "splat_scalar",
    "uniform",
    "zeros",
]
