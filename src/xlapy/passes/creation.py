"""Instruction-creation helpers for passes (XLA's hlo_creation_utils): each makes one
instruction whose shape shape inference gives, and adds it to its operands' computation.

Why: a pass that writes ``HloInstruction(Op.TRANSPOSE, <shape it worked out>, ...)``
states a shape that nothing checks; a slip becomes a wrong program found (if at
all) by the verifier much later. Here the shape comes from
:func:`xlapy.shape_inference.infer_shape`, the rule the builder, the parser and
the verifier use, so a bad operand fails at once with the shape-inference error.
The results have default layouts (none where the operands have none); a pass that must give an instruction another
layout constructs it itself (and says why).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.typed_attributes import to_attributes
from ..literal import Literal
from ..opcode import HloOpcode
from ..shape import Shape
from ..shape_inference import infer_shape
from ..types import PrimitiveType
from ..xla_data import ComparisonDirection, DotDimensionNumbers, PaddingConfig

Op = HloOpcode


def make(
    opcode: HloOpcode,
    operands: Sequence[HloInstruction],
    attributes: Mapping[str, Any] | None = None,
    *,
    computations: Mapping[str, HloComputation | Sequence[HloComputation]] | None = None,
    declared: Shape | None = None,
    computation: HloComputation | None = None,
    name: str | None = None,
    literal: Literal | None = None,
) -> HloInstruction:
    """An ``opcode`` instruction of the inferred shape, added to ``computation`` (default:
    the first operand's). ``declared`` is the shape for the ops whose result is not a
    function of the operands (reshape, broadcast, iota, ...), as in ``infer_shape``."""
    attributes = dict(attributes or {})
    computations = dict(computations or {})
    program_shapes = {
        key: (
            [c.program_shape for c in value]
            if isinstance(value, (list, tuple))
            else value.program_shape
        )
        for key, value in computations.items()
    }
    shape = infer_shape(
        opcode, [o.shape for o in operands], attributes, program_shapes, declared=declared
    )
    arrays = [o.shape for o in operands if o.shape.is_array]
    if arrays and all(a.layout is None for a in arrays):
        shape = shape.without_layout()  # a module not laid out yet stays so
    for key, value in computations.items():
        attributes[key] = list(value) if isinstance(value, (list, tuple)) else value
    parent = computation if computation is not None else operands[0].parent
    if parent is None:
        raise ValueError(f"make {opcode.value}: no computation to add it to")
    instruction = HloInstruction(
        opcode, shape, list(operands), name=name, attributes=attributes, literal=literal
    )
    return parent.add_instruction(instruction)


def make_unary(opcode: HloOpcode, operand: HloInstruction) -> HloInstruction:
    return make(opcode, [operand])


def make_binary(opcode: HloOpcode, lhs: HloInstruction, rhs: HloInstruction) -> HloInstruction:
    return make(opcode, [lhs, rhs])


def make_compare(
    direction: ComparisonDirection, lhs: HloInstruction, rhs: HloInstruction
) -> HloInstruction:
    return make(Op.COMPARE, [lhs, rhs], {"direction": direction})


def make_select(
    pred: HloInstruction, on_true: HloInstruction, on_false: HloInstruction
) -> HloInstruction:
    return make(Op.SELECT, [pred, on_true, on_false])


def make_convert(operand: HloInstruction, element_type: PrimitiveType) -> HloInstruction:
    declared = operand.shape.with_element_type(element_type)
    return make(Op.CONVERT, [operand], declared=declared)


def make_bitcast_convert(operand: HloInstruction, element_type: PrimitiveType) -> HloInstruction:
    dims = operand.shape.dimensions
    return make(Op.BITCAST_CONVERT, [operand], declared=Shape.array(element_type, dims))


def make_broadcast(
    operand: HloInstruction, shape_or_dims: Shape | Sequence[int], dimensions: Sequence[int]
) -> HloInstruction:
    """``operand`` broadcast to ``shape_or_dims`` (a shape, or dimensions of its element
    type), its dimension i going to ``dimensions[i]``."""
    declared = _array(operand, shape_or_dims)
    return make(Op.BROADCAST, [operand], {"dimensions": tuple(dimensions)}, declared=declared)


def make_reshape(operand: HloInstruction, shape_or_dims: Shape | Sequence[int]) -> HloInstruction:
    return make(Op.RESHAPE, [operand], declared=_array(operand, shape_or_dims))


def make_transpose(operand: HloInstruction, permutation: Sequence[int]) -> HloInstruction:
    return make(Op.TRANSPOSE, [operand], {"dimensions": tuple(permutation)})


def make_slice(
    operand: HloInstruction,
    starts: Sequence[int],
    limits: Sequence[int],
    strides: Sequence[int] | None = None,
) -> HloInstruction:
    strides = strides or [1] * len(starts)
    window = tuple(zip(starts, limits, strides, strict=True))
    return make(Op.SLICE, [operand], {"slice": window})


def make_concatenate(operands: Sequence[HloInstruction], dimension: int) -> HloInstruction:
    return make(Op.CONCATENATE, list(operands), {"dimensions": (int(dimension),)})


def make_pad(
    operand: HloInstruction, value: HloInstruction, config: PaddingConfig
) -> HloInstruction:
    return make(Op.PAD, [operand, value], {"padding": config})


def make_dot(
    lhs: HloInstruction, rhs: HloInstruction, dnums: DotDimensionNumbers
) -> HloInstruction:
    return make(Op.DOT, [lhs, rhs], to_attributes(dnums))


def make_get_tuple_element(operand: HloInstruction, index: int) -> HloInstruction:
    return make(Op.GET_TUPLE_ELEMENT, [operand], {"index": int(index)})


def make_tuple(
    elements: Sequence[HloInstruction], computation: HloComputation | None = None
) -> HloInstruction:
    return make(Op.TUPLE, list(elements), computation=computation)


def make_constant(
    computation: HloComputation, literal: Literal, name: str | None = None
) -> HloInstruction:
    return make(
        Op.CONSTANT, [], declared=literal.shape, computation=computation, name=name, literal=literal
    )


def make_iota(computation: HloComputation, shape: Shape, dimension: int) -> HloInstruction:
    return make(
        Op.IOTA, [], {"iota_dimension": int(dimension)}, declared=shape, computation=computation
    )


def _array(operand: HloInstruction, shape_or_dims: Shape | Sequence[int]) -> Shape:
    if isinstance(shape_or_dims, Shape):
        return shape_or_dims
    return Shape.array(operand.shape.element_type, list(shape_or_dims))


__all__ = [
    "make",
    "make_binary",
    "make_bitcast_convert",
    "make_broadcast",
    "make_compare",
    "make_concatenate",
    "make_constant",
    "make_convert",
    "make_dot",
    "make_get_tuple_element",
    "make_iota",
    "make_pad",
    "make_reshape",
    "make_select",
    "make_slice",
    "make_transpose",
    "make_tuple",
    "make_unary",
]
