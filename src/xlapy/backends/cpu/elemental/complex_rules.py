"""The elemental rules of instructions with a complex operand or result, per opcode.

The formulas live in two modules: ``complex`` (XLA's own) and ``complex_inverse``
(Kahan's, for the functions XLA:CPU has no formula for), which builds on the first;
this module puts both in one table for ``elemental``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from . import complex as cplx
from .complex_inverse import INVERSE

Op = HloOpcode
Values = Sequence[ir.Value]
Types = list[PrimitiveType]
Rule = Callable[[ir.IRBuilder, HloInstruction, Values, Types], "ir.Value | None"]

UNARY: dict[HloOpcode, Callable[[ir.IRBuilder, ir.Value], ir.Value]] = {**cplx.UNARY, **INVERSE}
BINARY = cplx.BINARY


def _complex(b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types):
    return cplx.compose(b, operands[0], operands[1])


def _part(index: int) -> Rule:
    def rule(b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types):
        return cplx.parts(b, operands[0])[index] if types[0].is_complex else None

    return rule


def _abs_rule(b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types):
    return cplx.absolute(b, operands[0])


def _unary(b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types):
    if instruction.shape.element_type != types[0]:
        return None
    return UNARY[instruction.opcode](b, operands[0])


def _binary(b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types):
    if not instruction.shape.element_type == types[0] == types[1]:
        return None
    return cplx.BINARY[instruction.opcode](b, operands[0], operands[1])


# Rules of instructions with a complex operand or result; each returns None where the
# generic rule applies (select, compare, a real part of a real number...).
RULES: dict[HloOpcode, Rule] = {
    **{op: _unary for op in UNARY},
    **{op: _binary for op in cplx.BINARY},
    Op.COMPLEX: _complex,
    Op.REAL: _part(0),
    Op.IMAG: _part(1),
    Op.ABS: _abs_rule,
}


__all__ = ["BINARY", "RULES", "UNARY"]
