"""Float max/min reductions with a short dependency chain, and the same bits.

A reduce whose reducer is ``maximum`` (or ``minimum``) of its two parameters would
accumulate through ``llvm.maximum``, which is exact (NaN propagates, -0 < +0) but costs
a compare and two or three blends per vector on x86 before the ``max`` itself, all on the
accumulator's chain: a max over 16M f32 ran 2.7x XLA's time on the AVX2 path.

The same result is kept in three accumulators whose chains are one instruction each:

* the plain ``maxnum`` of the values seen, with ``nnan`` (one ``vmaxps``: what it gives
  for a NaN or for equal zeros does not matter, the flags below decide those cases);
* whether a NaN was seen (any NaN makes the result NaN), as the largest magnitude's bits;
* whether a zero of the winning sign was seen (+0 for max, -0 for min), as the smallest
  of bits that are zero only for it: when the maximum is a zero, it is +0 if any +0 was
  seen, else -0.

After the loop (:func:`result`) the three make the exact ``llvm.maximum`` of all the
values, in any order: a max/min reduction has no rounding, so the bits equal the
interpreter's (NaN's payload aside: the result is the canonical quiet NaN).
"""

from __future__ import annotations

from llvmlite import ir

from ....hlo.computation import HloComputation
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..llvm_types import llvm_type

Op = HloOpcode
_KINDS = {Op.MAXIMUM: "max", Op.MINIMUM: "min"}
_FLOATS = frozenset({PrimitiveType.F32, PrimitiveType.F64})


def minmax_kind(reducer: HloComputation) -> str | None:
    """ "max" or "min" when ``reducer`` is exactly that op of its two float parameters."""
    root = reducer.root
    params = reducer.parameters
    if root.opcode not in _KINDS or len(params) != 2 or root.shape.is_tuple:
        return None
    if root.shape.element_type not in _FLOATS or set(root.operands) != set(params):
        return None
    return _KINDS[root.opcode]


def _bits(b: ir.IRBuilder, x: ir.Value) -> tuple[ir.Value, ir.IntType]:
    width = 64 if x.type == ir.DoubleType() else 32
    return b.bitcast(x, ir.IntType(width)), ir.IntType(width)


def _call(b: ir.IRBuilder, name: str, args: list[ir.Value], fastmath: tuple = ()) -> ir.Value:
    ty = args[0].type
    suffix = {32: "i32", 64: "i64"}.get(getattr(ty, "width", 0)) or (
        "f64" if ty == ir.DoubleType() else "f32"
    )
    module = b.block.function.module
    mangled = f"{name}.{suffix}"
    function = module.globals.get(mangled)
    if function is None:
        function = ir.Function(module, ir.FunctionType(ty, [ty, ty]), mangled)
    return b.call(function, args, fastmath=fastmath)


def _flags_of(b: ir.IRBuilder, kind: str, x: ir.Value) -> tuple[ir.Value, ir.Value]:
    """(|x|'s bits, the bits that are 0 exactly for the winning zero) of ``x``."""
    bits, ty = _bits(b, x)
    sign = 1 << (ty.width - 1)
    magnitude = b.and_(bits, ty(sign - 1))
    return magnitude, bits if kind == "max" else b.xor(bits, ty(sign))


def initial(b: ir.IRBuilder, kind: str, init: ir.Value) -> list[ir.Value]:
    """The three accumulators, started from the reduce's init value: the plain max/min,
    the largest magnitude's bits (above infinity's: a NaN was seen) and the smallest of
    the bits that are zero only for the winning zero (+0 for max, -0 for min). The flags
    are integer max/min chains, so they stay in vector registers (i1 flags became AVX-512
    mask registers, too few for eight vectors in flight)."""
    return [init, *_flags_of(b, kind, init)]


def step(b: ir.IRBuilder, kind: str, state: list[ir.Value], x: ir.Value) -> list[ir.Value]:
    """The accumulators after value ``x``: three independent one-instruction chains."""
    best, magnitude, zero = state
    name = "llvm.maxnum" if kind == "max" else "llvm.minnum"
    best = _call(b, name, [best, x], fastmath=("nnan", "nsz"))
    x_magnitude, x_zero = _flags_of(b, kind, x)
    return [best, _call(b, "llvm.umax", [magnitude, x_magnitude]),
            _call(b, "llvm.umin", [zero, x_zero])]  # fmt: skip


def result(b: ir.IRBuilder, kind: str, state: list[ir.Value], et: PrimitiveType) -> ir.Value:
    """The exact reduction: NaN if any was seen; a zero carries the winning sign if a zero
    of that sign was seen; else the plain max/min."""
    best, magnitude, zero = state
    ty = llvm_type(et)
    bits = magnitude.type
    infinity = bits(0x7F800000 if bits.width == 32 else 0x7FF0000000000000)
    nan = b.icmp_unsigned(">", magnitude, infinity)
    winning_zero_seen = b.icmp_unsigned("==", zero, bits(0))
    is_zero = b.fcmp_ordered("==", best, ir.Constant(ty, 0.0))
    signed_zero = ir.Constant(ty, 0.0 if kind == "max" else -0.0)
    other_zero = ir.Constant(ty, -0.0 if kind == "max" else 0.0)
    exact = b.select(is_zero, b.select(winning_zero_seen, signed_zero, other_zero), best)
    return b.select(nan, ir.Constant(ty, float("nan")), exact)


__all__ = ["initial", "minmax_kind", "result", "step"]
