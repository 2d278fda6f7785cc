"""Dynamic dimensions: ``get-dimension-size``, ``set-dimension-size``, ``dynamic-reshape``.

These run after ``passes/expand/dynamic_padder``, which has turned every dynamic size
into an ``s32[]`` value and every buffer into one of its bound: what reaches here is
at the bound. ``get-dimension-size`` is then the bound, ``set-dimension-size`` passes
its operand through after checking the size, and ``dynamic-reshape`` lays the leading
elements out in the dynamic sizes in the leading corner of the bound; only the error
path of those checks calls into Python, to raise the interpreter's error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import for_range, i64, typed_pointer
from ..llvm_types import I32, I64, NotEmittable, llvm_type
from ..runtime.fallback import FallbackThunk, emit_host_call
from .loops import PARALLEL_MIN_ELEMENTS, Kernel
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


@thunk_emitter(Op.GET_DIMENSION_SIZE)
def _get_dimension_size(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    (dim,) = instruction.attribute("dimensions")
    bound = instruction.operand(0).shape.dimensions[int(dim)]
    fe.b.store(ir.Constant(I32, bound), fe.scalar_output(instruction))


@thunk_emitter(Op.SET_DIMENSION_SIZE)
def _set_dimension_size(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    operand, size = instruction.operands
    out, source = fe.value(instruction), fe.value(operand)
    if not isinstance(out, Slot) or not isinstance(source, Slot):
        raise NotEmittable("set-dimension-size of a tuple")
    (dim,) = instruction.attribute("dimensions")
    bound = operand.shape.dimensions[int(dim)]
    b = fe.b
    et = size.shape.element_type
    value = b.load(typed_pointer(b, fe.pointer(fe.value(size)), et))
    if et.is_unsigned_integral:
        wide = b.zext(value, I64) if value.type.width < 64 else value
        bad = b.icmp_unsigned(">", wide, i64(bound))
    else:
        wide = b.sext(value, I64) if value.type.width < 64 else value
        bad = b.or_(b.icmp_signed("<", wide, i64(0)), b.icmp_signed(">", wide, i64(bound)))
    with b.if_then(bad, likely=False):
        # The interpreter's kernel raises the error that names the size and the bound.
        emit_host_call(fe, instruction, FallbackThunk(instruction, "set-dimension-size error"))
    if out.byte_size and out is not source:
        fe.m.memcpy(b, fe.pointer(out), fe.pointer(source), out.byte_size)


def _load_index(fe: FunctionEmitter, instruction: HloInstruction) -> ir.Value:
    """A scalar integer operand as an i64 (sign or zero extended by its type)."""
    b = fe.b
    et = instruction.shape.element_type
    value = b.load(typed_pointer(b, fe.pointer(fe.value(instruction)), et))
    if value.type.width >= 64:
        return value
    return b.zext(value, I64) if et.is_unsigned_integral or et.is_pred else b.sext(value, I64)


@thunk_emitter(Op.DYNAMIC_RESHAPE)
def _dynamic_reshape(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """The operand's leading elements laid out in the dynamic sizes, in the leading
    corner of the result's bounds; zeros elsewhere (the interpreter's layout)."""
    operand = instruction.operand(0)
    out, source = fe.value(instruction), fe.value(operand)
    if not isinstance(out, Slot) or not isinstance(source, Slot):
        raise NotEmittable("dynamic-reshape of a tuple")
    et = instruction.shape.element_type
    llvm_type(et)
    bounds = list(instruction.shape.dimensions)
    b = fe.b
    sizes = [_load_index(fe, s) for s in instruction.operands[1:]]
    bad = ir.Constant(ir.IntType(1), 0)
    count = i64(1)
    for size, bound in zip(sizes, bounds, strict=True):
        outside = b.or_(b.icmp_signed("<", size, i64(0)), b.icmp_signed(">", size, i64(bound)))
        bad = b.or_(bad, outside)
        count = b.mul(count, size)
    bad = b.or_(bad, b.icmp_signed(">", count, i64(operand.shape.element_count())))
    with b.if_then(bad, likely=False):
        emit_host_call(fe, instruction, FallbackThunk(instruction, "dynamic-reshape error"))
    total = instruction.shape.element_count()
    if total == 0:
        return
    table = b.gep(fe.arena_base, [i64(fe.m.reserve(8 * len(sizes)))])
    typed_table = b.bitcast(table, I64.as_pointer())
    for d, size in enumerate(sizes):
        b.store(size, b.gep(typed_table, [i64(d)]))
    kernel = Kernel(fe, f"dynamic_reshape_{instruction.name}", 3)
    kb = kernel.b
    x = typed_pointer(kb, kernel.buffers[0], et)
    y = typed_pointer(kb, kernel.buffers[1], et)
    dynamic = [
        kb.load(kb.gep(kb.bitcast(kernel.buffers[2], I64.as_pointer()), [i64(d)]))
        for d in range(len(bounds))
    ]
    zero = ir.Constant(llvm_type(et), 0 if isinstance(llvm_type(et), ir.IntType) else 0.0)
    with for_range(kb, kernel.start, kernel.stop, "n") as n:
        rest, inside, linear, stride = n, ir.Constant(ir.IntType(1), 1), i64(0), i64(1)
        for d in reversed(range(len(bounds))):
            index = kb.urem(rest, i64(bounds[d])) if d else rest
            rest = kb.udiv(rest, i64(bounds[d]))
            inside = kb.and_(inside, kb.icmp_signed("<", index, dynamic[d]))
            linear = kb.add(linear, kb.mul(index, stride))
            stride = kb.mul(stride, dynamic[d])
        if operand.shape.element_count() == 0:
            # Nothing can be inside (the sizes' product is at most 0), and the load of
            # element 0 that the lanes outside make would read an empty buffer.
            kb.store(zero, kb.gep(y, [n]))
        else:
            safe = kb.select(inside, linear, i64(0))
            value = kb.load(kb.gep(x, [safe]))
            kb.store(kb.select(inside, value, zero), kb.gep(y, [n]))
    kernel.finish()
    pointers = [fe.pointer(source), fe.pointer(out), table]
    fe.call_kernel(kernel.function, pointers, total, total >= PARALLEL_MIN_ELEMENTS)
