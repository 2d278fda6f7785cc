"""What the elemental modules share: calls of LLVM intrinsics and libm, constants, and the
register form of integer values.

Integer values follow ``llvm_types``: ``iN`` of the storage width. Sub-byte integers (s2,
s4, u2, u4) take one byte and ml_dtypes stores only their low bits, with the bits above
clear (an s4 -1 is the byte 0x0F, not 0xFF), and reads a byte by its low bits alone.
Emitters here therefore *read* a sub-byte value by its low bits (sign-extending them for
signed types, so that a byte holding either form works) and *write* ml_dtypes' form, so
that results match numpy's arrays byte for byte. ``pred`` is an ``i8`` 0 or 1.
"""

from __future__ import annotations

from collections.abc import Sequence

from llvmlite import ir

from ....types import PrimitiveType
from ..llvm_types import F16, F32, F64, I8, NotEmittable

P = PrimitiveType


def check_type(et: PrimitiveType) -> None:
    """Raise :class:`NotEmittable` for element types without a native representation."""
    if not (et.is_pred or et.is_integral or et.is_float or et.is_complex):
        raise NotEmittable(f"{et.hlo_name} is not an element type of elementwise code")


def const(ty: ir.Type, value: int | float) -> ir.Constant:
    """A constant of ``ty``; integers are taken modulo 2^width (so -1 is all ones)."""
    if isinstance(ty, ir.IntType):
        return ir.Constant(ty, int(value) & ((1 << ty.width) - 1))
    return ir.Constant(ty, float(value))


# The function attribute by which LLVM takes 512-bit vectors where the CPU has them.
WIDE_VECTORS = '"prefer-vector-width"="512"'


def mark_compute_heavy(function: ir.Function) -> None:
    """Ask LLVM for 512-bit vectors in ``function``, which computes a polynomial
    approximation per element.

    Why: LLVM's tuning for Intel's AVX-512 cores prefers 256-bit vectors (older ones
    lower their clock for 512-bit code), which halves the elements per instruction
    of loops bound by arithmetic rather than memory: exp of 4M floats took 1.37 ms
    in 512-bit code and 1.87 ms in 256-bit code (2 cores, Emerald Rapids), XLA 1.76.
    Streaming loops gained nothing and gathers lost, so only these functions are
    marked. A CPU without AVX-512 keeps its vectors; other targets ignore the
    attribute. (llvmlite's attribute set admits only its enum attributes, hence
    ``set.add``.) LLVM reads the attribute of the function a loop ends up in: a
    kernel marked so is therefore never inlined (``emit.loops.Kernel.finish``), so
    that its loops, and the order its reductions add in, are the same in the JIT, an
    AOT object and any caller, and other kernels keep theirs.
    """
    set.add(function.attributes, WIDE_VECTORS)


def _mangle(ty: ir.Type) -> str:
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    return {str(F16): "f16", str(F32): "f32", str(F64): "f64"}[str(ty)]


def intrinsic(
    b: ir.IRBuilder, name: str, types: Sequence[ir.Type], args: Sequence[ir.Value]
) -> ir.Value:
    """Call LLVM intrinsic ``name`` overloaded on ``types`` (the first is the result type).

    Declared by hand with the arguments' types: llvmlite's ``declare_intrinsic`` guesses
    one-argument signatures for intrinsics it does not know (``llvm.maximum``,
    ``llvm.ctlz``, ``llvm.fptosi.sat``).
    """
    module = b.block.function.module
    mangled = name + "".join("." + _mangle(t) for t in types)
    fn = module.globals.get(mangled)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(types[0], [a.type for a in args]), mangled)
    return b.call(fn, list(args))


def unary_intrinsic(b: ir.IRBuilder, name: str, x: ir.Value) -> ir.Value:
    """``llvm.<name>`` on one float (fabs, floor, sqrt...)."""
    return intrinsic(b, f"llvm.{name}", [x.type], [x])


def libm(b: ir.IRBuilder, symbol: str, args: Sequence[ir.Value]) -> ir.Value:
    """A call of libm's ``symbol`` (the exact C name: ``tan`` for double, ``tanf`` for
    float), which the JIT resolves from the process's libm."""
    ty = args[0].type
    module = b.block.function.module
    fn = module.globals.get(symbol)
    if fn is None:
        fn = ir.Function(module, ir.FunctionType(ty, [ty] * len(args)), symbol)
        fn.attributes.add("nounwind")
    return b.call(fn, list(args))


def to_i8(b: ir.IRBuilder, flag: ir.Value) -> ir.Value:
    """An ``i1`` as a pred value (i8 0/1)."""
    return b.zext(flag, I8)


def is_true(b: ir.IRBuilder, pred: ir.Value) -> ir.Value:
    """A pred value (any nonzero byte counts) as an ``i1``."""
    return b.icmp_unsigned("!=", pred, ir.Constant(pred.type, 0))


# -- integers ----------------------------------------------------------------------------


def int_bounds(et: PrimitiveType) -> tuple[int, int]:
    """(min, max) of an integer type; pred counts as the unsigned byte 0..1."""
    if et.is_pred:
        return 0, 1
    w = et.bit_width
    if et.is_signed_integral:
        return -(1 << (w - 1)), (1 << (w - 1)) - 1
    return 0, (1 << w) - 1


def int_value(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """A loaded integer as its value in the register: sub-byte types sign- or
    zero-extended from their low bits (whatever the bits above hold)."""
    width = et.bit_width
    if et.is_pred or width >= 8:
        return v
    if et.is_signed_integral:
        shift = const(v.type, 8 - width)
        return b.ashr(b.shl(v, shift), shift)
    return b.and_(v, const(v.type, (1 << width) - 1))


def int_bits(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """The value's bits as an unsigned number of its width (sub-byte: the low bits)."""
    width = et.bit_width
    if et.is_pred or width >= 8:
        return v
    return b.and_(v, const(v.type, (1 << width) - 1))


def int_store(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """A computed integer (wrapped to ``et``'s width) in ml_dtypes' storage form; pred
    is "nonzero", as XLA:CPU's ``int8_t(x) OP int8_t(y) != 0``."""
    if et.is_pred:
        return to_i8(b, b.icmp_unsigned("!=", v, ir.Constant(v.type, 0)))
    return int_bits(b, v, et)


__all__ = [
    "check_type",
    "const",
    "int_bits",
    "int_bounds",
    "int_store",
    "int_value",
    "intrinsic",
    "is_true",
    "libm",
    "to_i8",
    "unary_intrinsic",
]
