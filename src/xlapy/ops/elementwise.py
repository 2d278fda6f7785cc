"""Elementwise ops: unary functions, binary arithmetic, comparisons, select, clamp, converts,
and Map (a scalar computation applied elementwise).

Binary ops take an optional ``broadcast_dimensions`` and follow the spec's
broadcasting (scalars, degenerate dimensions, explicit dimension mapping); the
HLO they produce has explicit broadcasts, as XLA's builder emits.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..builder import XlaBuilder, XlaOp, builder_op, primitive_type, shape_of
from ..errors import InvalidArgumentError, UnimplementedError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import ComparisonDirection, ComparisonType
from ._support import (
    Computation,
    array_ops,
    as_list,
    as_op,
    broadcast_in_dim,
    broadcast_operands,
    index_list,
    operand_pair,
    require_op,
    scalar_parameter,
)

# -- unary ---------------------------------------------------------------------------------

_UNARY = {
    "Abs": Op.ABS,
    "Cbrt": Op.CBRT,
    "Ceil": Op.CEIL,
    "Clz": Op.COUNT_LEADING_ZEROS,
    "Cos": Op.COSINE,
    "Cosh": Op.COSH,
    "Erf": Op.ERF,
    "Exp": Op.EXPONENTIAL,
    "Expm1": Op.EXPONENTIAL_MINUS_ONE,
    "Floor": Op.FLOOR,
    "Imag": Op.IMAG,
    "IsFinite": Op.IS_FINITE,
    "Log": Op.LOG,
    "Log1p": Op.LOG_PLUS_ONE,
    "Logistic": Op.LOGISTIC,
    "Neg": Op.NEGATE,
    "Not": Op.NOT,
    "PopulationCount": Op.POPCNT,
    "Real": Op.REAL,
    "Round": Op.ROUND_NEAREST_AFZ,
    "RoundNearestAfz": Op.ROUND_NEAREST_AFZ,
    "RoundNearestEven": Op.ROUND_NEAREST_EVEN,
    "Rsqrt": Op.RSQRT,
    "Sign": Op.SIGN,
    "Sin": Op.SINE,
    "Sqrt": Op.SQRT,
    "Tan": Op.TAN,
    "Tanh": Op.TANH,
    "Copy": Op.COPY,
}


def _make_unary(name: str, opcode: Op):
    @builder_op(name)
    def unary(operand: XlaOp) -> XlaOp:
        operand = require_op(operand, "operand", name)
        return operand.builder.add_instruction(opcode, [operand], op_name=name)

    unary.__name__ = unary.__qualname__ = name
    unary.__doc__ = f"Elementwise ``{opcode.value}`` (spec: Element-wise unary functions)."
    return unary


for _name, _opcode in _UNARY.items():
    globals()[_name] = _make_unary(_name, _opcode)

# -- binary --------------------------------------------------------------------------------

_BINARY = {
    "Add": Op.ADD,
    "Sub": Op.SUBTRACT,
    "Mul": Op.MULTIPLY,
    "Div": Op.DIVIDE,
    "Rem": Op.REMAINDER,
    "Pow": Op.POWER,
    "Max": Op.MAXIMUM,
    "Min": Op.MINIMUM,
    "And": Op.AND,
    "Or": Op.OR,
    "Xor": Op.XOR,
    "ShiftLeft": Op.SHIFT_LEFT,
    "ShiftRightArithmetic": Op.SHIFT_RIGHT_ARITHMETIC,
    "ShiftRightLogical": Op.SHIFT_RIGHT_LOGICAL,
    "Atan2": Op.ATAN2,
    "Complex": Op.COMPLEX,
}


def _binary(
    name: str,
    opcode: Op,
    lhs: Any,
    rhs: Any,
    broadcast_dimensions: Sequence[int] | None,
    attributes: dict[str, Any] | None = None,
) -> XlaOp:
    lhs, rhs = operand_pair(lhs, rhs, name)
    lhs, rhs = broadcast_operands(lhs, rhs, broadcast_dimensions, name)
    return lhs.builder.add_instruction(opcode, [lhs, rhs], attributes=attributes, op_name=name)


def _make_binary(name: str, opcode: Op):
    @builder_op(name)
    def binary(lhs: Any, rhs: Any, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
        return _binary(name, opcode, lhs, rhs, broadcast_dimensions)

    binary.__name__ = binary.__qualname__ = name
    binary.__doc__ = (
        f"Elementwise ``{opcode.value}`` with the spec's broadcasting "
        "(``broadcast_dimensions`` maps the lower-rank operand into the higher-rank one)."
    )
    return binary


for _name, _opcode in _BINARY.items():
    globals()[_name] = _make_binary(_name, _opcode)

# -- comparisons ---------------------------------------------------------------------------


@builder_op("Compare")
def Compare(
    lhs: Any,
    rhs: Any,
    direction: ComparisonDirection | str,
    broadcast_dimensions: Sequence[int] = (),
    compare_type: ComparisonType | str | None = None,
) -> XlaOp:
    """Elementwise comparison giving pred; ``compare_type`` TOTALORDER orders NaNs too."""
    if isinstance(direction, str):
        direction = ComparisonDirection[direction.upper()]
    attributes: dict[str, Any] = {"direction": direction}
    if compare_type is not None:
        if isinstance(compare_type, str):
            compare_type = ComparisonType[compare_type.upper()]
        attributes["type"] = compare_type
    return _binary("Compare", Op.COMPARE, lhs, rhs, broadcast_dimensions, attributes)


def _make_compare(name: str, direction: ComparisonDirection, total_order: bool):
    @builder_op(name)
    def compare(lhs: Any, rhs: Any, broadcast_dimensions: Sequence[int] = ()) -> XlaOp:
        attributes: dict[str, Any] = {"direction": direction}
        if total_order:
            attributes["type"] = ComparisonType.TOTALORDER
        return _binary(name, Op.COMPARE, lhs, rhs, broadcast_dimensions, attributes)

    compare.__name__ = compare.__qualname__ = name
    order = " in the total order -NaN < -Inf < ... < +Inf < +NaN" if total_order else ""
    compare.__doc__ = f"Elementwise ``{direction.name}`` comparison{order}, giving pred."
    return compare


for _direction in ComparisonDirection:
    _cap = _direction.name.capitalize()
    globals()[_cap] = _make_compare(_cap, _direction, False)
    globals()[f"{_cap}TotalOrder"] = _make_compare(f"{_cap}TotalOrder", _direction, True)

# -- ternary and conversions ---------------------------------------------------------------


@builder_op("Select")
def Select(pred: XlaOp, on_true: Any, on_false: Any) -> XlaOp:
    """Elementwise choice by ``pred`` (a scalar pred selects whole operands)."""
    on_true, on_false = operand_pair(on_true, on_false, "Select")
    pred = as_op(pred, None, "Select", on_true.builder)
    return pred.builder.add_instruction(Op.SELECT, [pred, on_true, on_false], op_name="Select")


@builder_op("Clamp")
def Clamp(min: Any, operand: XlaOp, max: Any) -> XlaOp:  # noqa: A002  (spec's names)
    """``min(max(operand, min), max)``; ``min`` and ``max`` may be scalars."""
    builder = operand.builder
    lo = as_op(min, operand, "Clamp", builder)
    hi = as_op(max, operand, "Clamp", builder)
    return builder.add_instruction(Op.CLAMP, [lo, operand, hi], op_name="Clamp")


def _typed_result(operand: XlaOp, new_element_type: Any, op_name: str) -> Shape:
    shape = shape_of(operand)
    target = primitive_type(new_element_type, op_name)
    return Shape.array(target, shape.dimensions, dynamic_dimensions=shape.dynamic_dimensions)


@builder_op("ConvertElementType")
def ConvertElementType(operand: XlaOp, new_element_type: PrimitiveType) -> XlaOp:
    """Value conversion (float to int truncates toward zero and saturates)."""
    declared = _typed_result(operand, new_element_type, "ConvertElementType")
    return operand.builder.add_instruction(
        Op.CONVERT, [operand], declared=declared, op_name="ConvertElementType"
    )


@builder_op("BitcastConvertType")
def BitcastConvertType(operand: XlaOp, new_element_type: PrimitiveType) -> XlaOp:
    """Reinterpret the bits; a width change adds or removes a minor dimension."""
    shape = shape_of(operand)
    target = primitive_type(new_element_type, "BitcastConvertType")
    dims = list(shape.dimensions)
    src, dst = shape.element_type.bit_width, target.bit_width
    if src > dst and dst:
        dims.append(src // dst)
    elif src < dst and dims:
        dims.pop()
    declared = Shape.array(target, dims)
    return operand.builder.add_instruction(
        Op.BITCAST_CONVERT, [operand], declared=declared, op_name="BitcastConvertType"
    )


@builder_op("ReducePrecision")
def ReducePrecision(operand: XlaOp, exponent_bits: int, mantissa_bits: int) -> XlaOp:
    """Round to a narrower float format and back (spec: ReducePrecision)."""
    return operand.builder.add_instruction(
        Op.REDUCE_PRECISION,
        [operand],
        attributes={"exponent_bits": int(exponent_bits), "mantissa_bits": int(mantissa_bits)},
        op_name="ReducePrecision",
    )


# -- map ------------------------------------------------------------------------------------


@builder_op("Map")
def Map(
    builder: XlaBuilder,
    operands: Sequence[Any],
    computation: Computation,
    dimensions: Sequence[int] | None,
    static_operands: Sequence[XlaOp] = (),
) -> XlaOp:
    """Apply a scalar ``computation`` elementwise across ``operands`` (spec: Map).

    ``dimensions`` must be all of them in order (None: all). Scalar operands
    (and Python numbers) are broadcast to the others' shape first, as XLA's
    builder does. ``static_operands`` are unsupported, as in XLA.
    """
    if static_operands:
        raise UnimplementedError(
            "Map: static_operands are not supported (neither does XLA); use the values "
            "inside the computation instead"
        )
    values = as_list(operands)
    if not values:
        raise InvalidArgumentError("Map: needs at least one operand")
    like = next((v for v in values if isinstance(v, XlaOp)), None)
    inputs = [as_op(v, like, "Map", builder) for v in values]
    inputs = array_ops(inputs, "operand", "Map")
    # The highest-rank operand gives the shape the scalars are broadcast to.
    target = max((shape_of(x) for x in inputs), key=lambda s: s.rank)
    inputs = [
        broadcast_in_dim(x, target.dimensions, [], "Map")
        if shape_of(x).rank == 0 and target.rank > 0
        else x
        for x in inputs
    ]
    if dimensions is None:
        dims = tuple(range(target.rank))
    else:
        dims = index_list(dimensions, "dimensions", "Map", inputs)
    to_apply = builder.computation_arg(
        computation, [scalar_parameter(x) for x in inputs], "Map", "computation"
    )
    return builder.add_instruction(
        Op.MAP,
        inputs,
        attributes={"dimensions": dims},
        computations={"to_apply": to_apply},
        op_name="Map",
    )


__all__ = (
    list(_UNARY)
    + list(_BINARY)
    + [d.name.capitalize() for d in ComparisonDirection]
    + [f"{d.name.capitalize()}TotalOrder" for d in ComparisonDirection]
    + ["Compare", "Select", "Clamp", "ConvertElementType", "BitcastConvertType", "ReducePrecision"]
    + ["Map"]
)
