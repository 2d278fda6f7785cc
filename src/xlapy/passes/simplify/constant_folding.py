"""Constant folding: an instruction whose operands are all constants becomes a constant.

Why: work that does not depend on the inputs should be done once, at compile
time, and the constants it produces feed the algebraic simplifier (``x * c``
where ``c`` turns out to be 1).

The value comes from the evaluator (``xlapy.evaluator.evaluate_instruction``), so folding has
exactly the semantics of running the program (integer division by zero,
``INT_MIN / -1``, NaN propagation, rounding of every element type). A
get-tuple-element of a tuple constant becomes the element's constant.

Not folded:

* instructions with side effects or random results, parameters, and the ops
  whose value depends on the device (``replica-id``, ``partition-id``);
* ``iota`` and broadcasts that grow their operand: they are cheap to compute
  and folding them only turns a scalar into a large constant (a broadcast that
  only adds or removes size-1 dimensions is folded);
* results of more than ``MAX_ELEMENTS`` elements, tuples, tokens, dynamic shapes;
* control flow, calls, fusions and custom calls (inlining exposes what calls
  compute; the rest is not worth evaluating at compile time);
* instructions the kernel rejects (an error the program would report when run).
"""

from __future__ import annotations

from ...evaluator import evaluate_instruction
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...literal import Literal
from ...opcode import HloOpcode
from ..pass_base import HloPass
from .dce import has_control_edges, has_side_effect

Op = HloOpcode
MAX_ELEMENTS = 1 << 20
_NEVER = frozenset(
    {
        Op.PARAMETER,
        Op.CONSTANT,
        Op.IOTA,
        Op.RNG_BIT_GENERATOR,
        Op.REPLICA_ID,
        Op.PARTITION_ID,
        Op.TUPLE,
        Op.WHILE,
        Op.CONDITIONAL,
        Op.CALL,
        Op.CUSTOM_CALL,
        Op.FUSION,
        Op.MAP,
        Op.AFTER_ALL,
        Op.ADD_DEPENDENCY,
        Op.OPT_BARRIER,
        Op.DOMAIN,
        Op.GET_DIMENSION_SIZE,
        Op.SET_DIMENSION_SIZE,
    }
)


def _is_constant_array(instruction: HloInstruction) -> bool:
    return (
        instruction.opcode is Op.CONSTANT
        and instruction.shape.is_array
        and isinstance(instruction.literal, Literal)
    )


def is_foldable(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` is worth and safe to evaluate now (see the module docstring)."""
    op, shape = instruction.opcode, instruction.shape
    if op in _NEVER or not shape.is_array or not shape.is_static or instruction.operand_count == 0:
        return False
    if shape.element_count() > MAX_ELEMENTS or has_control_edges(instruction):
        return False
    if not all(_is_constant_array(o) for o in instruction.operands):
        return False
    if op is Op.BROADCAST and shape.element_count() > instruction.operand(0).shape.element_count():
        return False
    return not has_side_effect(instruction)


def fold(instruction: HloInstruction) -> HloInstruction | None:
    """A constant with the value of ``instruction`` (None if the evaluator cannot say now,
    e.g. a value the program reports as an error only when run)."""
    literal = evaluate_instruction(instruction, [o.literal for o in instruction.operands])
    return None if literal is None else constant_like(instruction, literal)


def constant_like(instruction: HloInstruction, literal: Literal) -> HloInstruction:
    """A constant of ``literal`` with exactly ``instruction``'s shape (layout or none)."""
    shape = instruction.shape
    if shape.has_layout and literal.shape.layout != shape.layout:
        literal = literal.relayout(shape.layout)
    return HloInstruction(Op.CONSTANT, shape, name=instruction.name, literal=literal)


def _tuple_element(instruction: HloInstruction) -> HloInstruction | None:
    """get-tuple-element of a tuple constant: the element as a constant."""
    source = instruction.operand(0)
    literal = source.literal
    if source.opcode is not Op.CONSTANT or not isinstance(literal, Literal):
        return None
    element = literal.tuple_elements[instruction.tuple_index]
    if not instruction.shape.is_array or not element.shape.compatible(instruction.shape):
        return None
    return constant_like(instruction, element)


def fold_computation(computation: HloComputation) -> bool:
    changed = False
    for instruction in computation.post_order():
        if instruction.parent is not computation:
            continue
        if instruction.opcode is Op.GET_TUPLE_ELEMENT and not has_control_edges(instruction):
            constant = _tuple_element(instruction)
        elif is_foldable(instruction):
            constant = fold(instruction)
        else:
            continue
        if constant is None:
            continue
        name = instruction.name
        computation.replace_instruction(instruction, constant)
        constant.name = name  # free again now that the folded instruction is gone
        changed = True
    return changed


class ConstantFolding(HloPass):
    """Evaluates instructions of constants with the evaluator."""

    name = "constant-folding"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            if computation.is_fusion_computation:
                continue
            changed |= fold_computation(computation)
        return changed


__all__ = ["MAX_ELEMENTS", "ConstantFolding", "fold", "fold_computation", "is_foldable"]
