"""dynamic-update-slice: written in place when its operand's buffer dies there.

Buffer assignment lets the output take over the operand's buffer when nothing
reads the operand afterwards (``can_run_in_place``), so a loop that updates a
slice of a large array each iteration moves only the slice. Otherwise the
operand is copied first. Start indices are clamped so the update fits, as the
spec says.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import Index, checked_index, i64, typed_pointer
from ..llvm_types import NotEmittable, llvm_type
from .generators import buffer_reader, start_index
from .loops import Kernel, nest
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


@thunk_emitter(Op.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    operand, update = instruction.operand(0), instruction.operand(1)
    out = fe.value(instruction)
    source = fe.value(operand)
    if not isinstance(out, Slot) or not isinstance(source, Slot):
        raise NotEmittable("dynamic-update-slice of a tuple")
    et = instruction.shape.element_type
    llvm_type(et)  # NotEmittable for types without a native representation
    starts = list(instruction.operands[2:])
    for s in starts:
        t = s.shape.element_type
        if not t.is_integral or t.bit_width < 8:
            raise NotEmittable(f"start indices of type {t.hlo_name}")
    dims, update_dims = operand.shape.dimensions, update.shape.dimensions
    kernel = Kernel(fe, f"dus_{instruction.name}", 3 + len(starts))
    try:
        b = kernel.b
        read = buffer_reader(kernel.buffers[1], et, update_dims)
        target = typed_pointer(b, kernel.buffers[2], et)
        offsets = []
        for k, s in enumerate(starts):
            raw = b.load(typed_pointer(b, kernel.buffers[3 + k], s.shape.element_type))
            offsets.append(start_index(b, raw, s.shape.element_type, dims[k] - update_dims[k]))

        def body(index: Index) -> None:
            multi = index.multi(b)
            position = Index(dims, multi=[b.add(m, o) for m, o in zip(multi, offsets, strict=True)])
            linear = checked_index(b, position.linear(b), math.prod(dims)) if dims else None
            destination = b.gep(target, [linear]) if dims else target
            b.store(read(b, index), destination)

        if math.prod(update_dims) == 0:
            n = 0  # nothing to write: the kernel is never called
        elif not update_dims:
            body(Index((), multi=[]))
            n = 1
        else:
            nest(b, update_dims, kernel.start, kernel.stop, body)
            n = update_dims[0]
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    if fe.buffers.in_place.get(id(instruction)) != 0:
        fe.m.memcpy(fe.b, fe.pointer(out), fe.pointer(source), out.byte_size)
    pointers = [fe.pointer(source), fe.pointer(fe.value(update)), fe.pointer(out)]
    pointers += [fe.pointer(fe.value(s)) for s in starts]
    fe.call_kernel(kernel.function, pointers, n, False)


del i64
