"""``RngExpander``: the stateful ``rng`` op as the ops it is made of, as XLA's
RngExpander does, so a backend needs no ``rng`` of its own.

Why: ``rng(a, b), distribution=rng_uniform`` is, in the interpreter's (and XLA's)
definition, a Philox draw keyed by a constant from the device's 128-bit counter
(taken and advanced with ``rng-get-and-update-state``), turned into numbers by
integer and float arithmetic. Written out as those ops it runs natively and
gives the interpreter's bits:

* floats: the top mantissa-many bits scaled into [0, 1) (in f32, or f64 for an
  f64 result), times ``b - a`` plus ``a``, converted to the result type; a value
  that rounds up to ``b`` becomes the next float below ``b`` (when ``a < b``);
* integers: ``a + (bits mod (b - a))`` in unsigned arithmetic of the draw's
  width (a remainder by zero is the dividend, as XLA's), then the result type's
  low bits;
* pred: ``a`` (the counter still advances).

The normal distribution (Box-Muller through log, sqrt, sine and cosine) is left
to the interpreter's kernel: native transcendental functions round differently
from numpy's by an ULP or two, and ``a + b * z`` cancels such a difference into
a large relative one when the result is near zero (an expansion was tried: 1
element in 10,000 of N(3, 2) missed the interpreter's value by 1e-4 relative).
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...evaluator.kernels.random import RNG_KEY  # the interpreter's: one key for every rng
from ...hlo.instruction import HloInstruction
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import RandomAlgorithm, RandomDistribution
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
P = PrimitiveType


def scalar(b: XlaBuilder, value: float | int, t: PrimitiveType) -> XlaOp:
    return ops.ConstantLiteral(b, Literal.scalar(value, t))


def uniform_floats(
    a: XlaOp, b_: XlaOp, bits: XlaOp, t: PrimitiveType, dims: list[int], width: int
) -> XlaOp:
    b = a.builder
    wide = P.F64 if t == P.F64 else P.F32
    mantissa = wide.exponent_mantissa_bits[1]
    u = P.U64 if width == 64 else P.U32
    raw = {16: P.U16, 32: P.U32, 64: P.U64}[t.bit_width]
    sign = 1 << (t.bit_width - 1)
    top = ops.ShiftRightLogical(bits, ops.Broadcast(scalar(b, width - mantissa, u), dims))
    scales = ops.Broadcast(scalar(b, 2.0**-mantissa, wide), dims)
    unit = ops.Mul(ops.ConvertElementType(top, wide), scales)
    lo = ops.ConvertElementType(a, wide)
    hi = ops.ConvertElementType(b_, wide)
    spans = ops.Broadcast(ops.Sub(hi, lo), dims)
    shifted = ops.Add(ops.Mul(unit, spans), ops.Broadcast(lo, dims))
    values = ops.ConvertElementType(shifted, t)
    # The next float below b, by its bits (-0 and +0 step to the smallest negative).
    limit = ops.ConvertElementType(b_, t)
    bits_b = ops.BitcastConvertType(limit, raw)
    one = scalar(b, 1, raw)
    zero = scalar(b, 0, t)
    stepped = ops.Select(ops.Gt(limit, zero), ops.Sub(bits_b, one), ops.Add(bits_b, one))
    below_bits = ops.Select(ops.Eq(limit, zero), scalar(b, sign | 1, raw), stepped)
    below = ops.BitcastConvertType(below_bits, t)
    ordered = ops.Lt(ops.ConvertElementType(a, t), limit)
    reached = ops.Ge(values, ops.Broadcast(limit, dims))
    clamp = ops.And(reached, ops.Broadcast(ordered, dims))
    return ops.Select(clamp, ops.Broadcast(below, dims), values)


def uniform_ints(
    a: XlaOp, b_: XlaOp, bits: XlaOp, t: PrimitiveType, dims: list[int], width: int
) -> XlaOp:
    u = P.U64 if width == 64 else P.U32
    narrow = {8: P.U8, 16: P.U16, 32: P.U32, 64: P.U64}[t.bit_width]
    ua = ops.ConvertElementType(a, u)
    ub = ops.ConvertElementType(b_, u)
    dist = ops.Rem(bits, ops.Broadcast(ops.Sub(ub, ua), dims))
    half = ops.ShiftRightLogical(dist, ops.Broadcast(scalar(a.builder, 1, u), dims))
    rest = ops.Sub(dist, half)
    total = ops.Add(ops.Add(ops.Broadcast(ua, dims), half), rest)
    low = total if narrow == u else ops.ConvertElementType(total, narrow)
    return ops.Copy(low) if narrow == t else ops.BitcastConvertType(low, t)


def expansion(instruction: HloInstruction) -> XlaComputation | None:
    """A computation ``(a, b) -> rng's value``, or None to leave the instruction alone."""
    t = instruction.shape.element_type
    dims = list(instruction.shape.dimensions)
    distribution = RandomDistribution(instruction.attribute("distribution"))
    if distribution is not RandomDistribution.RNG_UNIFORM or not instruction.shape.is_array:
        return None
    if not (t.is_pred or t.is_integral or t in (P.F16, P.BF16, P.F32, P.F64)):
        return None
    if t.is_integral and t.bit_width < 8:
        return None
    width = 64 if t.bit_width == 64 else 32
    u = P.U64 if width == 64 else P.U32
    bound = Shape.array(instruction.operand(0).shape.element_type, [])
    b = XlaBuilder(f"{instruction.name}_expanded")
    a = ops.Parameter(b, 0, bound, "a")
    b_ = ops.Parameter(b, 1, bound, "b")
    counter = b.add_instruction(
        Op.RNG_GET_AND_UPDATE_STATE, [], attributes={"delta": math.prod(dims) * (width // 32)},
        op_name="RngGetAndUpdateState",
    )  # fmt: skip
    key = ops.ConstantLiteral(b, Literal.from_value([RNG_KEY], P.U64))
    state = ops.ConcatInDim(b, [key, counter], 0)
    bits = ops.GetTupleElement(ops.RngBitGenerator(RandomAlgorithm.RNG_PHILOX, state,
                                                   Shape.array(u, dims)), 1)  # fmt: skip
    if t.is_pred:
        value = ops.Broadcast(a, dims)
    elif t.is_float:
        value = uniform_floats(a, b_, bits, t, dims, width)
    else:
        value = uniform_ints(a, b_, bits, t, dims, width)
    return b.build(value)


def expand_rng(instruction: HloInstruction) -> HloInstruction | None:
    built = expansion(instruction)
    return None if built is None else splice_computation(instruction, built)


class RngExpander(ExpanderPass):
    name = "rng-expander"
    opcodes = frozenset({Op.RNG})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_rng(instruction)
