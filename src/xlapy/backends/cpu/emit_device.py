"""Ops whose value is a fact of the running device or of a shape, not of data.

``replica-id`` and ``partition-id`` read the device from the run context that
every native function receives (``fallback.RunContext``). Dynamic dimensions
are carried at their bound, as in the interpreter: ``get-dimension-size`` is
the bound, and ``set-dimension-size`` passes its operand through after checking
the size; only the error path of that check calls into Python, to raise the
interpreter's error.

``infeed`` and ``outfeed`` are host transfers: the device's queues are host
objects, so the native code calls into the runtime (the queue kernels shared
with the interpreter) to dequeue into, or enqueue a copy of, its buffers, as
XLA:CPU calls its runtime's infeed and outfeed functions. They are listed in
``executable.host_callbacks``, as calls that are part of what the program
means, not in ``fallback_ops``.
"""

from __future__ import annotations

from llvmlite import ir

from ...hlo.instruction import HloInstruction
from ...hlo.opcode import HloOpcode
from .buffers import Slot
from .codegen import FunctionEmitter, thunk_emitter
from .fallback import CONTEXT_OFFSETS, FallbackThunk, emit_host_call
from .ir_support import i64, typed_pointer
from .llvm_types import I32, I64, NotEmittable

Op = HloOpcode


def _scalar_out(fe: FunctionEmitter, instruction: HloInstruction) -> ir.Value:
    out = fe.value(instruction)
    if not isinstance(out, Slot) or instruction.shape.element_type.bit_width != 32:
        raise NotEmittable(f"{instruction.opcode.value} of shape {instruction.shape}")
    return typed_pointer(fe.b, fe.pointer(out), instruction.shape.element_type)


def _device_field(field: str):  # noqa: ANN202
    def emit(fe: FunctionEmitter, instruction: HloInstruction) -> None:
        target = _scalar_out(fe, instruction)
        b = fe.b
        address = b.gep(fe.ctx, [i64(CONTEXT_OFFSETS[field])])
        value = b.load(b.bitcast(address, I64.as_pointer()))
        b.store(b.trunc(value, I32), target)

    return emit


thunk_emitter(Op.REPLICA_ID)(_device_field("replica_id"))
thunk_emitter(Op.PARTITION_ID)(_device_field("partition_id"))


@thunk_emitter(Op.INFEED, Op.OUTFEED)
def _host_transfer(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    fe.m.host_callbacks.add(instruction.opcode.value)
    emit_host_call(fe, instruction, FallbackThunk(instruction, "host transfer"))


@thunk_emitter(Op.GET_DIMENSION_SIZE)
def _get_dimension_size(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    (dim,) = instruction.attribute("dimensions")
    bound = instruction.operand(0).shape.dimensions[int(dim)]
    fe.b.store(ir.Constant(I32, bound), _scalar_out(fe, instruction))


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
