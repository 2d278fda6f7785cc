"""How element types live in LLVM: one representation, both in memory and in registers.

Every array element is loaded and stored as the LLVM type below and kept in a
register as the same type, so a load needs no conversion:

- ``pred`` is an ``i8`` holding 0 or 1 (as in memory); comparisons produce ``i1``
  and are widened before they become values.
- integers are ``iN`` of their storage width; signedness is the element type's,
  not the LLVM type's. Sub-byte integers (s2, s4, u2, u4) take one byte: ml_dtypes
  keeps the value in the low bits with the bits above clear (-1 in s4 is 0x0F),
  and ignores the high bits when reading; ``elemental`` reads and writes that form.
- ``f16`` is ``half``, ``f32`` ``float``, ``f64`` ``double``; ``bf16`` and the
  8-bit floats are their bit patterns (``i16``, ``i8``); arithmetic converts them
  to ``float`` and rounds back to nearest even, which is exact for one operation.
- ``c64`` is ``<2 x float>`` and ``c128`` ``<2 x double>``: (re, im), numpy's interleaved
  pairs (``elemental.complex``). Movement code loads and stores one as one value; loop
  kernels read and write its parts separately (``ir_support.load_element``), which
  LLVM's vectorizer can widen.

An emitter that meets something it cannot compile raises :class:`NotEmittable`;
the compiler then runs that instruction through the interpreter's kernel
(``executable.fallback_ops`` lists these), so coverage grows without ever
trading away correctness.
"""

from __future__ import annotations

from llvmlite import ir

from ...types import ARRAY_TYPES, PrimitiveType

P = PrimitiveType


class NotEmittable(Exception):  # noqa: N818  (a signal between emitters and the compiler)
    """This instruction has no native emitter (yet); run it through the interpreter."""


I1 = ir.IntType(1)
I8 = ir.IntType(8)
I16 = ir.IntType(16)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F16 = ir.HalfType()
F32 = ir.FloatType()
F64 = ir.DoubleType()
I8_PTR = I8.as_pointer()
VOID = ir.VoidType()
C64 = ir.VectorType(F32, 2)
C128 = ir.VectorType(F64, 2)

_BY_TYPE: dict[PrimitiveType, ir.Type] = {
    P.PRED: I8,
    P.S2: I8,
    P.S4: I8,
    P.S8: I8,
    P.S16: I16,
    P.S32: I32,
    P.S64: I64,
    P.U2: I8,
    P.U4: I8,
    P.U8: I8,
    P.U16: I16,
    P.U32: I32,
    P.U64: I64,
    P.F16: F16,
    P.BF16: I16,
    P.F32: F32,
    P.F64: F64,
    P.C64: C64,
    P.C128: C128,
}
# The 8-bit (and smaller) float types are bit patterns in one byte.
for _t in ARRAY_TYPES:
    if _t.is_float and _t not in _BY_TYPE and getattr(_t, "bit_width", 0) <= 8:
        _BY_TYPE[_t] = I8


def llvm_type(element_type: PrimitiveType) -> ir.Type:
    """The LLVM type of one element, in memory and in registers."""
    try:
        return _BY_TYPE[element_type]
    except KeyError:
        raise NotEmittable(f"no native representation for {element_type.hlo_name}") from None


def is_native(element_type: PrimitiveType) -> bool:
    return element_type in _BY_TYPE


def pointer_to(element_type: PrimitiveType) -> ir.PointerType:
    return llvm_type(element_type).as_pointer()


# -- the native calling conventions -------------------------------------------------------
# Every computation's function (``codegen``), every loop kernel (``emit.loops``, run over a
# range by ``xlapy_parallel_for``) and the call into Python (``runtime.fallback``) share
# these signatures; they live here so that the emitters and the code generator that calls
# them agree without importing one another.
I8_PTR_PTR = I8_PTR.as_pointer()
COMPUTATION_TYPE = ir.FunctionType(I32, [I8_PTR, I8_PTR_PTR, I8_PTR_PTR, I8_PTR])
KERNEL_TYPE = ir.FunctionType(VOID, [I8_PTR_PTR, I64, I64])
FALLBACK_TYPE = ir.FunctionType(I32, [I8_PTR, I64, I8_PTR_PTR])
