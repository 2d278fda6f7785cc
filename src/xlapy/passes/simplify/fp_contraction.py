"""f16 multiply-adds rounded once, as XLA:CPU's LLVM backend contracts them into FMAs.

Why: XLA:CPU compiles with LLVM's floating-point contraction on (``fp-contract=fast``),
so a multiply whose only use is an add or a subtract becomes one fused multiply-add with
a single rounding. For f16 (computed in f32 on x86 and rounded to f16) that is
observable: jax 0.10.2 on XLA:CPU gives ``h * h + 1`` rounded once, and ``a * b + c``,
``a * b - c``, ``c - a * b``, ``-(a * b) + c`` and ``(a * b) * c + d`` (the last multiply)
likewise, on every element; a multiply with two uses is rounded (``m = a * b; (m + c) *
(m - d)``), and so is one that reaches the add through a convert or a reverse. With two
multiplies, ``a * b + c * d``, the left one is fused and the right one rounded. This is
not ``xla_allow_excess_precision``'s doing (XLA gives the same with the flag off); xlapy
puts it under the same option because it is the other half of "f16 chains keep more
precision than per-op rounding".

The rewrite, for f16 only: ``add(multiply(a, b), c)`` becomes
``convert<f16>(add<f32>(multiply<f32>(a', b'), c'))`` with ``x' = convert<f32>(x)``.
The product of two f16 values is exact in f32 (11 + 11 significant bits), so f32's
multiply-then-add rounds exactly as an f32 FMA does, and the result is rounded to f16
once, as XLA's is. (For f32 and f64 XLA contracts too; no wider type makes that exact, so
xlapy leaves them rounded per op, within the 1-ULP tolerance of any comparison.)
"""

from __future__ import annotations

from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...types import PrimitiveType
from ..creation import make_binary, make_convert, make_unary
from ..pass_base import HloPass
from ..rewrite import rewrite_instructions
from .dce import remove_dead_instructions

Op = HloOpcode
LOW = PrimitiveType.F16
HIGH = PrimitiveType.F32
ADDS = frozenset({Op.ADD, Op.SUBTRACT})


def _single_use(instruction: HloInstruction, user: HloInstruction) -> bool:
    """Used once, by ``user`` (an add of ``m`` with itself uses ``m`` twice)."""
    return instruction.users == (user,) and user.operands.count(instruction) == 1


def _contractible(operand: HloInstruction, add: HloInstruction) -> list[HloInstruction] | None:
    """The chain ``[multiply]`` or ``[multiply, negate]`` that LLVM folds into ``add``'s FMA,
    or None."""
    chain: list[HloInstruction] = []
    user = add
    if operand.opcode is Op.NEGATE and _single_use(operand, user):
        chain.append(operand)
        user, operand = operand, operand.operand(0)
    if operand.opcode is not Op.MULTIPLY or not _single_use(operand, user):
        return None
    if operand.shape.element_type != LOW:
        return None
    return [operand, *chain]


def _wide(instruction: HloInstruction) -> HloInstruction:
    return make_convert(instruction, HIGH)


def _contract(add: HloInstruction) -> HloInstruction | None:
    """``add``/``subtract`` of an f16 multiply, computed in f32 and rounded once."""
    if add.shape.element_type != LOW or not add.shape.is_array:
        return None
    for index in (0, 1):  # LLVM tries the first operand first
        chain = _contractible(add.operand(index), add)
        if chain is not None:
            break
    else:
        return None
    multiply, *rest = chain
    value = make_binary(Op.MULTIPLY, _wide(multiply.operand(0)), _wide(multiply.operand(1)))
    for negate in rest:
        value = make_unary(negate.opcode, value)
    other = _wide(add.operand(1 - index))
    operands = (value, other) if index == 0 else (other, value)
    return make_convert(make_binary(add.opcode, *operands), LOW)


class FpContraction(HloPass):
    """Rounds an f16 multiply feeding an add or subtract once, as XLA:CPU's FMA
    contraction does (see the module doc)."""

    name = "fp-contraction-f16"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            if rewrite_instructions(computation, ADDS, lambda i: False, _contract):
                changed = True
                remove_dead_instructions(computation)  # the multiplies folded in
        return changed


__all__ = ["FpContraction"]
