"""Constant folding: an instruction of constants is replaced by its value.

The value comes from the interpreter's kernel for the instruction, so folding
has exactly the semantics of running the program. Not folded: instructions
with side effects or random results, and broadcasts and iotas (cheap to
compute, and folding them would only turn a scalar into a large constant), or
results of more than ``MAX_ELEMENTS`` elements.
"""

from __future__ import annotations

from ..errors import XlaError
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode
MAX_ELEMENTS = 1 << 16
_SKIP = frozenset(
    {
        Op.PARAMETER,
        Op.CONSTANT,
        Op.BROADCAST,
        Op.IOTA,
        Op.RNG,
        Op.RNG_BIT_GENERATOR,
        Op.RNG_GET_AND_UPDATE_STATE,
        Op.TUPLE,
        Op.GET_TUPLE_ELEMENT,
        Op.WHILE,
        Op.CONDITIONAL,
        Op.CALL,
        Op.CUSTOM_CALL,
        Op.FUSION,
        Op.AFTER_ALL,
        Op.PARTITION_ID,
        Op.REPLICA_ID,
    }
)


def _foldable(instruction: HloInstruction) -> bool:
    op = instruction.opcode
    if op in _SKIP or op.may_have_side_effect or not instruction.shape.is_array:
        return False
    if instruction.shape.is_dynamic if hasattr(instruction.shape, "is_dynamic") else False:
        return False
    if instruction.shape.element_count() > MAX_ELEMENTS or instruction.control_successors:
        return False
    return all(o.opcode is Op.CONSTANT and o.shape.is_array for o in instruction.operands) and (
        instruction.operand_count > 0
    )


def fold(instruction: HloInstruction) -> HloInstruction | None:
    """A constant with the value of ``instruction`` (None if the kernel cannot say)."""
    from ..backends.interpreter.evaluator import (
        KERNELS,
        DeviceContext,
        EvalContext,
        literal_from_value,
        value_from_literal,
    )

    kernel = KERNELS.get(instruction.opcode)
    if kernel is None:
        return None
    try:
        values = [value_from_literal(o.literal) for o in instruction.operands]
        result = kernel(EvalContext(DeviceContext()), instruction, values)
        literal = literal_from_value(result, instruction.shape)
    except XlaError:
        return None  # e.g. an out-of-range value the program reports only at run time
    return HloInstruction.create_constant(literal, name=instruction.name)


class ConstantFolding(HloPass):
    name = "constant-folding"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            if computation.is_fusion_computation:
                continue
            for instruction in computation.post_order():
                if instruction.parent is None or not _foldable(instruction):
                    continue
                constant = fold(instruction)
                if constant is None:
                    continue
                computation.replace_instruction(instruction, constant)
                changed = True
        return changed
