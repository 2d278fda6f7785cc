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

from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode
from ..types import PrimitiveType
from ..xla_data import RandomDistribution
from .expansion import ExpanderPass, splice

Op = HloOpcode
P = PrimitiveType
RNG_KEY = 0x5EED_0F_C0FFEE_5EED  # the interpreter's (kernels/rng.py): one key for every rng


def _shape(t: PrimitiveType, dims: tuple[int, ...]) -> str:
    return f"{t.hlo_name}[{','.join(map(str, dims))}]"


def _float_text(t: PrimitiveType, dims: tuple[int, ...], width: int) -> list[str]:
    wide = P.F64 if t == P.F64 else P.F32
    mantissa = wide.exponent_mantissa_bits[1]
    u = P.U64 if width == 64 else P.U32
    n = _shape(wide, dims)
    out = _shape(t, dims)
    raw = {16: P.U16, 32: P.U32, 64: P.U64}[t.bit_width]
    sign = 1 << (t.bit_width - 1)
    return [
        f"  shift = {_shape(u, ())} constant({width - mantissa})",
        f"  shifts = {_shape(u, dims)} broadcast(shift), dimensions={{}}",
        f"  top = {_shape(u, dims)} shift-right-logical(bits, shifts)",
        f"  topf = {n} convert(top)",
        f"  scale = {_shape(wide, ())} constant({2.0**-mantissa!r})",
        f"  scales = {n} broadcast(scale), dimensions={{}}",
        f"  unit = {n} multiply(topf, scales)",
        f"  lo = {_shape(wide, ())} convert(a)",
        f"  hi = {_shape(wide, ())} convert(b)",
        f"  span = {_shape(wide, ())} subtract(hi, lo)",
        f"  spans = {n} broadcast(span), dimensions={{}}",
        f"  los = {n} broadcast(lo), dimensions={{}}",
        f"  scaled = {n} multiply(unit, spans)",
        f"  shifted = {n} add(scaled, los)",
        f"  values = {out} convert(shifted)",
        # The next float below b, by its bits (-0 and +0 step to the smallest negative).
        f"  limit = {_shape(t, ())} convert(b)",
        f"  bits_b = {_shape(raw, ())} bitcast-convert(limit)",
        f"  one = {_shape(raw, ())} constant(1)",
        f"  down = {_shape(raw, ())} subtract(bits_b, one)",
        f"  up = {_shape(raw, ())} add(bits_b, one)",
        f"  tiny = {_shape(raw, ())} constant({sign | 1})",
        f"  zero = {_shape(t, ())} constant(0)",
        "  positive = pred[] compare(limit, zero), direction=GT",
        "  is_zero = pred[] compare(limit, zero), direction=EQ",
        f"  stepped = {_shape(raw, ())} select(positive, down, up)",
        f"  below_bits = {_shape(raw, ())} select(is_zero, tiny, stepped)",
        f"  below = {_shape(t, ())} bitcast-convert(below_bits)",
        f"  a_t = {_shape(t, ())} convert(a)",
        "  ordered = pred[] compare(a_t, limit), direction=LT",
        f"  limits = {out} broadcast(limit), dimensions={{}}",
        f"  reached = pred[{','.join(map(str, dims))}] compare(values, limits), direction=GE",
        f"  ordereds = pred[{','.join(map(str, dims))}] broadcast(ordered), dimensions={{}}",
        f"  clamp = pred[{','.join(map(str, dims))}] and(reached, ordereds)",
        f"  belows = {out} broadcast(below), dimensions={{}}",
        f"  ROOT result = {out} select(clamp, belows, values)",
    ]


def _int_text(t: PrimitiveType, dims: tuple[int, ...], width: int) -> list[str]:
    u = P.U64 if width == 64 else P.U32
    s, v = _shape(u, ()), _shape(u, dims)
    narrow = {8: P.U8, 16: P.U16, 32: P.U32, 64: P.U64}[t.bit_width]
    lines = [
        f"  ua = {s} convert(a)",
        f"  ub = {s} convert(b)",
        f"  span = {s} subtract(ub, ua)",
        f"  spans = {v} broadcast(span), dimensions={{}}",
        f"  dist = {v} remainder(bits, spans)",
        f"  one = {s} constant(1)",
        f"  ones = {v} broadcast(one), dimensions={{}}",
        f"  half = {v} shift-right-logical(dist, ones)",
        f"  rest = {v} subtract(dist, half)",
        f"  uas = {v} broadcast(ua), dimensions={{}}",
        f"  partial = {v} add(uas, half)",
        f"  sum = {v} add(partial, rest)",
    ]
    if narrow == u:
        last = "sum"
    else:
        lines.append(f"  low = {_shape(narrow, dims)} convert(sum)")
        last = "low"
    if narrow == t:
        lines.append(f"  ROOT result = {_shape(t, dims)} copy({last})")
    else:
        lines.append(f"  ROOT result = {_shape(t, dims)} bitcast-convert({last})")
    return lines


def expansion_text(instruction: HloInstruction) -> str | None:
    """HLO text of a computation ``(a, b) -> rng's value``, or None to leave it alone."""
    t = instruction.shape.element_type
    dims = tuple(instruction.shape.dimensions)
    distribution = RandomDistribution(instruction.attribute("distribution"))
    if distribution is not RandomDistribution.RNG_UNIFORM or not instruction.shape.is_array:
        return None
    if not (t.is_pred or t.is_integral or t in (P.F16, P.BF16, P.F32, P.F64)):
        return None
    if t.is_integral and t.bit_width < 8:
        return None
    width = 64 if t.bit_width == 64 else 32
    u = P.U64 if width == 64 else P.U32
    operand = _shape(instruction.operand(0).shape.element_type, ())
    head = [
        f"  a = {operand} parameter(0)",
        f"  b = {operand} parameter(1)",
        f"  counter = u64[2] rng-get-and-update-state(), delta={math.prod(dims) * (width // 32)}",
        f"  key = u64[1] constant({{{RNG_KEY}}})",
        "  state = u64[3] concatenate(key, counter), dimensions={0}",
        f"  draw = (u64[3], {_shape(u, dims)}) rng-bit-generator(state), algorithm=rng_philox",
        f"  bits = {_shape(u, dims)} get-tuple-element(draw), index=1",
    ]
    if t.is_pred:
        body = [f"  ROOT result = {_shape(t, dims)} broadcast(a), dimensions={{}}"]
    elif t.is_float:
        body = _float_text(t, dims, width)
    else:
        body = _int_text(t, dims, width)
    return "HloModule rng_expansion\n\nENTRY rng {\n" + "\n".join(head + body) + "\n}\n"


def expand_rng(instruction: HloInstruction) -> HloInstruction | None:
    text = expansion_text(instruction)
    return None if text is None else splice(instruction, text)


class RngExpander(ExpanderPass):
    name = "rng-expander"
    opcodes = frozenset({Op.RNG})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_rng(instruction)
