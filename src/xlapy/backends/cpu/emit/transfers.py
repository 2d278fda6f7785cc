"""Host transfers: ``infeed``, ``outfeed``, ``send`` and ``recv``.

The device's queues and the channels' mailboxes are host objects, so the native
code calls into the runtime (the queue kernels shared with the interpreter) to
dequeue into, or enqueue a copy of, its buffers, as XLA:CPU calls its runtime's
infeed and outfeed functions. They are listed in ``executable.host_callbacks``,
as calls that are part of what the program means, not in ``fallback_ops``.
Who a send reaches and who a recv hears follow XLA's rules (``distributed.p2p``),
in the kernels; host transfers use the executable's ``HostChannels``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....distributed.checks import check_collective
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..runtime.fallback import HostTransferThunk, emit_host_call
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


@thunk_emitter(Op.INFEED, Op.OUTFEED, Op.SEND, Op.SEND_DONE, Op.RECV, Op.RECV_DONE)
def _host_transfer(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    options = fe.m.options
    # At compile time: send/recv pairs naming a missing replica or partition.
    check_collective(instruction, options.num_replicas, options.num_partitions)
    fe.m.host_callbacks.add(instruction.opcode.value)
    emit_host_call(fe, instruction, HostTransferThunk(instruction, "host transfer"))
