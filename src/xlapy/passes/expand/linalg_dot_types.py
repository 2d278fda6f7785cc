"""``DotTypeWidener``: a dot whose types a GEMM or integer loop does not take as they
are (f16, bf16 and 8-bit float operands, mixed operand types, a result type other
than the operands') becomes a dot in the accumulation type between converts.

Why: the interpreter, like XLA:CPU, computes such a dot in a wider type and rounds
once at the end: floats narrower than 32 bits and mixed float types accumulate in
f32 (f64 when any type is f64), integers in 64 bits. Converting the operands to
that type (exact: every narrower value is representable), taking the dot there
(BLAS for f32/f64) and converting the result once is that computation, with the
same single rounding. For integer results the dot can even stay in the result's
width: products and sums wrap modulo 2^width whatever width they were computed in.

Left alone: dots the backend takes directly (f32/f64 or integer with all three
types equal), complex dots, and pred results.

``IntegerDotToFloat``: a dot of narrow integers (8 and 16 bits, and the sub-byte types)
into an integer result is taken as a float GEMM. Why: the GEMM is where the machine's
vector throughput is, and the float dot is exact here, not an approximation: every
operand converts exactly, and while ``k * max|a| * max|b|`` stays within the float's
integer range (2^24 for f32, 2^53 for f64) every product and every partial sum is an
integer the float holds exactly, in any order of summation. The exact sum then goes to
s64 and on to the result type, which wraps modulo 2^width as the integer dot does. An
s8 x s8 dot takes f32 up to k = 1024 and f64 beyond; a product that could exceed 2^53
keeps the integer loop. A backend with a GEMM of its own for some of these dots keeps
them with the pass's ``keep`` (the CPU's int8 GEMM with VNNI).

``LinalgTypeWidener``: cholesky and triangular-solve of f16, bf16 and 8-bit floats
run in f32 between converts, as the interpreter computes them (LAPACK and BLAS
have no narrower types).
"""

from __future__ import annotations

from collections.abc import Callable

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...types import PrimitiveType
from ..creation import make, make_convert
from ..rewrite import ExpanderPass

Op = HloOpcode
P = PrimitiveType


def compute_type(lhs: PrimitiveType, rhs: PrimitiveType, out: PrimitiveType) -> PrimitiveType:
    """The type the dot is taken in (see the module docstring)."""
    types = (lhs, rhs, out)
    if any(t.is_float for t in types):
        return P.F64 if P.F64 in types else P.F32
    return out if out.is_integral else P.S64


def _converted(value: HloInstruction, et: PrimitiveType) -> HloInstruction:
    if value.shape.element_type == et:
        return value
    return make_convert(value, et)


def widen_dot(dot: HloInstruction) -> HloInstruction | None:
    lhs, rhs = dot.operands
    types = (lhs.shape.element_type, rhs.shape.element_type, dot.shape.element_type)
    if any(t.is_complex for t in types) or types[2].is_pred or not dot.shape.is_array:
        return None
    wide = compute_type(*types)
    if types == (wide, wide, wide):
        return None
    attributes = {k: v for k, v in dot.attributes.items() if k != "precision_config"}
    widened = make(Op.DOT, [_converted(lhs, wide), _converted(rhs, wide)], attributes)
    return _converted(widened, types[2])


_EXACT_FLOATS = ((P.F32, 1 << 24), (P.F64, 1 << 53))


def _magnitude(et: PrimitiveType) -> int | None:
    """The largest |value| of a narrow integer type (None for wider ones)."""
    if not et.is_integral or et.bit_width > 16:
        return None
    return (1 << et.bit_width) - 1 if et.is_unsigned_integral else 1 << (et.bit_width - 1)


def integer_dot_as_float(dot: HloInstruction) -> HloInstruction | None:
    lhs, rhs = dot.operands
    out = dot.shape.element_type
    if not (dot.shape.is_array and out.is_integral and not out.is_pred):
        return None
    bounds = [_magnitude(o.shape.element_type) for o in (lhs, rhs)]
    if None in bounds or any(o.shape.element_type.is_pred for o in (lhs, rhs)):
        return None
    numbers = dot.dot_dimension_numbers
    k = 1
    for d in numbers.lhs_contracting_dimensions:
        k *= lhs.shape.dimensions[d]
    largest = k * bounds[0] * bounds[1]
    wide = next((et for et, limit in _EXACT_FLOATS if largest <= limit), None)
    if wide is None:
        return None
    attributes = {k: v for k, v in dot.attributes.items() if k != "precision_config"}
    product = make(Op.DOT, [make_convert(lhs, wide), make_convert(rhs, wide)], attributes)
    return _converted(make_convert(product, P.S64), out)


class _Replacing(ExpanderPass):
    """Replaces each instruction by what ``rewrite`` builds beside it."""

    rewrite: Callable[[HloInstruction], HloInstruction | None]

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        value = self.rewrite(instruction)
        return value


class DotTypeWidener(_Replacing):
    name = "dot-type-widener"
    opcodes = frozenset({Op.DOT})
    rewrite = staticmethod(widen_dot)


_LAPACK_TYPES = frozenset({P.F32, P.F64, P.C64, P.C128})


def widen_linalg(instruction: HloInstruction) -> HloInstruction | None:
    et = instruction.shape.element_type
    if not instruction.shape.is_array or et in _LAPACK_TYPES or not et.is_float:
        return None
    operands = [_converted(o, P.F32) for o in instruction.operands]
    widened = make(instruction.opcode, operands, dict(instruction.attributes))
    return _converted(widened, et)


class IntegerDotToFloat(_Replacing):
    name = "integer-dot-to-float"
    opcodes = frozenset({Op.DOT})
    rewrite = staticmethod(integer_dot_as_float)


class LinalgTypeWidener(_Replacing):
    name = "linalg-type-widener"
    opcodes = frozenset({Op.CHOLESKY, Op.TRIANGULAR_SOLVE})
    rewrite = staticmethod(widen_linalg)
