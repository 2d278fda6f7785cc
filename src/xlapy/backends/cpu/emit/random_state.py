"""The device's random-number state: ``rng-get-and-update-state``.

The 128-bit counter lives in the run context every native function receives
(``runtime.fallback.RunContext``), so the native code reads and advances it in place
as the interpreter's kernel does; the expanded ``rng`` ops read it through this.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import i64
from ..llvm_types import I8_PTR, NotEmittable
from ..runtime.fallback import CONTEXT_OFFSETS
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
I128 = ir.IntType(128)


@thunk_emitter(Op.RNG_GET_AND_UPDATE_STATE)
def _rng_get_and_update_state(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """The device's 128-bit counter (as u64[2], low word first), then advanced by delta."""
    out = fe.value(instruction)
    if not isinstance(out, Slot) or instruction.shape.dimensions != (2,):
        raise NotEmittable(f"rng-get-and-update-state of shape {instruction.shape}")
    b = fe.b
    slot = b.gep(fe.ctx, [i64(CONTEXT_OFFSETS["rng_state"])])
    words = b.bitcast(b.load(b.bitcast(slot, I8_PTR.as_pointer())), I128.as_pointer())
    old = b.load(words, align=8)
    delta = int(instruction.attribute("delta", 0)) & ((1 << 128) - 1)
    b.store(b.add(old, ir.Constant(I128, delta)), words, align=8)
    b.store(old, b.bitcast(fe.pointer(out), I128.as_pointer()), align=8)
