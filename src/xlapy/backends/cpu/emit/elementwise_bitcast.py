"""bitcast-convert: the same bits seen as another element type.

Between equal widths it is elementwise (``elemental.convert.bitcast_convert``).
Between widths, XLA splits a wide element into narrower pieces along a new minor
dimension, lowest bits first, or packs such a minor dimension into one wide
element. Every internal buffer is row-major and this machine is little-endian,
so when both types take whole bytes the result's bytes are the operand's bytes:
one copy. Sub-byte types (s4, u2, f4e2m1fn, ...) occupy a byte each in memory,
so there the bits are shifted into place element by element. A complex element is its
(re, im) pair's bits, real part in the low half.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..buffers import Slot
from ..elemental.convert import bits_of
from ..ir_support import for_range, i64, typed_pointer
from ..llvm_types import NotEmittable, llvm_type
from .loops import PARALLEL_MIN_ELEMENTS, Kernel, emit_single
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


@thunk_emitter(Op.BITCAST_CONVERT)
def _bitcast_convert(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    (operand,) = instruction.operands
    src, dst = operand.shape.element_type, instruction.shape.element_type
    for et in (src, dst):
        if et.is_pred:
            raise NotEmittable(f"bitcast-convert of {et.hlo_name}")
        llvm_type(et)
    if src.bit_width == dst.bit_width:
        emit_single(fe, instruction)
        return
    out = fe.value(instruction)
    if not isinstance(out, Slot):
        raise NotEmittable("bitcast-convert into a tuple")
    count = instruction.shape.element_count()
    if count == 0:
        return
    if src.bit_width % 8 == 0 and dst.bit_width % 8 == 0 and sys.byteorder == "little":
        fe.m.memcpy(fe.b, fe.pointer(out), fe.pointer(fe.value(operand)), out.byte_size)
        return
    if src.bit_width > dst.bit_width:
        _split(fe, instruction, operand.shape.element_count(), src, dst)
    else:
        _pack(fe, instruction, count, src, dst)


def _exact_bits(b: ir.IRBuilder, v: ir.Value, et: PrimitiveType) -> ir.Value:
    """The element's bits as an integer of exactly its width (``i4`` for s4)."""
    bits = bits_of(b, v, et)
    width = ir.IntType(et.bit_width)
    return b.trunc(bits, width) if bits.type.width > et.bit_width else bits


def _as_element(b: ir.IRBuilder, bits: ir.Value, et: PrimitiveType) -> ir.Value:
    """An integer holding ``et``'s bits as the element's storage value."""
    target = llvm_type(et)
    if isinstance(target, ir.IntType):
        return b.zext(bits, target) if target.width > bits.type.width else bits
    return b.bitcast(bits, target)


def _split(
    fe: FunctionEmitter, instruction: HloInstruction, n: int, src: PrimitiveType, dst: PrimitiveType
) -> None:
    """Each wide element ``i`` becomes ``ratio`` narrow elements, lowest bits first."""
    ratio = src.bit_width // dst.bit_width
    kernel = Kernel(fe, f"bitcast_split_{instruction.name}", 2)
    b = kernel.b
    source = typed_pointer(b, kernel.buffers[0], src)
    target = typed_pointer(b, kernel.buffers[1], dst)
    wide = ir.IntType(src.bit_width)
    narrow = ir.IntType(dst.bit_width)
    with for_range(b, kernel.start, kernel.stop, "i") as i:
        bits = _exact_bits(b, b.load(b.gep(source, [i])), src)
        base = b.mul(i, i64(ratio))
        for k in range(ratio):
            piece = b.trunc(b.lshr(bits, ir.Constant(wide, k * dst.bit_width)), narrow)
            b.store(_as_element(b, piece, dst), b.gep(target, [b.add(base, i64(k))]))
    _run(fe, kernel, instruction, n, n * ratio)


def _pack(
    fe: FunctionEmitter, instruction: HloInstruction, n: int, src: PrimitiveType, dst: PrimitiveType
) -> None:
    """``ratio`` narrow elements, lowest bits first, become each wide element ``j``."""
    ratio = dst.bit_width // src.bit_width
    kernel = Kernel(fe, f"bitcast_pack_{instruction.name}", 2)
    b = kernel.b
    source = typed_pointer(b, kernel.buffers[0], src)
    target = typed_pointer(b, kernel.buffers[1], dst)
    wide = ir.IntType(dst.bit_width)
    with for_range(b, kernel.start, kernel.stop, "j") as j:
        base = b.mul(j, i64(ratio))
        acc: ir.Value = ir.Constant(wide, 0)
        for k in range(ratio):
            bits = _exact_bits(b, b.load(b.gep(source, [b.add(base, i64(k))])), src)
            piece = b.shl(b.zext(bits, wide), ir.Constant(wide, k * src.bit_width))
            acc = b.or_(acc, piece)
        b.store(_as_element(b, acc, dst), b.gep(target, [j]))
    _run(fe, kernel, instruction, n, n * ratio)


def _run(
    fe: FunctionEmitter, kernel: Kernel, instruction: HloInstruction, n: int, work: int
) -> None:
    kernel.finish()
    (operand,) = instruction.operands
    pointers = [fe.pointer(fe.value(operand)), fe.pointer(fe.value(instruction))]
    fe.call_kernel(kernel.function, pointers, n, work >= PARALLEL_MIN_ELEMENTS)
