"""Control flow and data movement emitted whole: while, conditional, call, copy, dynamic-update-slice.

A while loop keeps its state in its own buffers: the init value is copied in,
the condition and body are native functions called on them, and the body's
results (written to a scratch region of the arena) are copied back each
iteration, because a body may read one state element after it has produced
another (XLA's copy insertion solves the same problem).

A while loop can run forever, and native code never returns to Python by
itself, so a loop polls for interrupts: it counts iterations down in a
register and, when the count runs out, calls the runtime's
``xlapy_poll_interrupt``, which sets the next count so that it is called about
once a millisecond and lets Python run its pending signal handlers about every
50 ms (``runtime.native_runtime``). If a handler raised (Ctrl-C's ``KeyboardInterrupt``),
the loop hands the exception to the run through an :class:`InterruptThunk` and
returns its non-zero status, which the executable raises. On a tight loop that
costs a decrement and a branch per iteration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot, leaves
from ..ir_support import i64, pointer_table
from ..llvm_types import I8, I8_PTR_PTR, I32, I64, NotEmittable
from ..runtime.fallback import InterruptThunk
from ..runtime.native_runtime import POLL_MAX_STRIDE, POLL_STATE_WORDS
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


def _copy_tree(fe: FunctionEmitter, destination: list[Slot], source: list[Slot]) -> None:
    for dst, src in zip(destination, source, strict=True):
        if dst is src or (
            dst.kind == src.kind == "arena" and dst.offset == src.offset and dst.kind == "arena"
        ):
            continue
        fe.m.memcpy(fe.b, fe.pointer(dst), fe.pointer(src), dst.byte_size)


@thunk_emitter(Op.WHILE)
def _while(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    body = instruction.attribute("body")
    condition = instruction.attribute("condition")
    body_fn = fe.m.computation_function(body)
    condition_fn = fe.m.computation_function(condition)
    state = leaves(fe.value(instruction))
    _copy_tree(fe, state, leaves(fe.value(instruction.operand(0))))
    slots = [-(-max(64, s.byte_size) // 64) * 64 for s in state]
    scratch = fe.m.reserve(sum(slots), align=64)
    pred_offset = fe.m.reserve(1)
    b = fe.b
    state_table = pointer_table(b, [fe.pointer(s) for s in state], "while_state")
    scratch_pointers = []
    offset = scratch
    for slot in slots:
        scratch_pointers.append(b.gep(fe.arena_base, [i64(offset)]))
        offset += slot
    scratch_table = pointer_table(b, scratch_pointers, "while_scratch")
    pred_pointer = b.gep(fe.arena_base, [i64(pred_offset)])
    pred_table = pointer_table(b, [pred_pointer], "while_pred")
    poll_state = b.bitcast(
        b.gep(fe.arena_base, [i64(fe.m.reserve(8 * POLL_STATE_WORDS))]), I64.as_pointer()
    )
    # The countdown carries over from the loop's last run (a nested loop of few trips
    # polls as rarely as one long loop); the first run's arena holds anything.
    saved = b.load(poll_state)
    unusable = b.icmp_unsigned(">=", b.sub(saved, i64(1)), i64(POLL_MAX_STRIDE))
    countdown = b.select(unusable, i64(1), saved)
    # Two loops, so that the inner one, which runs ``countdown`` trips, calls nothing
    # but the loop's own functions and LLVM may keep its state in registers.
    outer = fe.function.append_basic_block("while.outer")
    head = fe.function.append_basic_block("while.head")
    step = fe.function.append_basic_block("while.body")
    poll = fe.function.append_basic_block("while.poll")
    polled = fe.function.append_basic_block("while.polled")
    interrupted = fe.function.append_basic_block("while.interrupted")
    done = fe.function.append_basic_block("while.done")
    before = b.block
    b.branch(outer)
    b.position_at_end(outer)
    trips = b.phi(I64, "trips")
    trips.add_incoming(countdown, before)
    b.branch(head)
    b.position_at_end(head)
    left = b.phi(I64, "countdown")
    left.add_incoming(trips, outer)
    fe.check(b.call(condition_fn, [fe.ctx, state_table, pred_table, fe.arena_base]))
    b.cbranch(b.icmp_unsigned("!=", b.load(pred_pointer), I8(0)), step, done)
    b.position_at_end(step)
    fe.check(b.call(body_fn, [fe.ctx, state_table, scratch_table, fe.arena_base]))
    for s, pointer in zip(state, scratch_pointers, strict=True):
        fe.m.memcpy(b, fe.pointer(s), pointer, s.byte_size)
    left_next = b.sub(left, i64(1))
    left.add_incoming(left_next, b.block)
    b.cbranch(b.icmp_unsigned("==", left_next, i64(0)), poll, head)
    _emit_poll(fe, instruction, poll_state, poll, polled, interrupted)
    b.position_at_end(polled)
    trips.add_incoming(b.load(poll_state), polled)
    b.branch(outer)
    b.position_at_end(done)
    b.store(left, poll_state)


def _emit_poll(
    fe: FunctionEmitter,
    instruction: HloInstruction,
    poll_state: ir.Value,
    poll: ir.Block,
    polled: ir.Block,
    interrupted: ir.Block,
) -> None:
    """``poll``: ask the runtime whether a signal handler raised; go on to ``polled`` if
    not, else hand the exception to the run and return a non-zero status."""
    b = fe.b
    module = fe.m.ir
    function = module.globals.get("xlapy_poll_interrupt")
    if function is None:
        function = ir.Function(
            module, ir.FunctionType(I32, [I64.as_pointer()]), "xlapy_poll_interrupt"
        )
    b.position_at_end(poll)
    raised = b.call(function, [poll_state])
    b.cbranch(b.icmp_unsigned("!=", raised, I32(0)), interrupted, polled)
    b.position_at_end(interrupted)
    thunk_id = len(fe.m.thunks)
    fe.m.thunks.append(InterruptThunk(instruction))
    exception = b.bitcast(b.gep(poll_state, [i64(4)]), I8_PTR_PTR)
    status = b.call(fe.m.fallback_function, [fe.ctx, i64(thunk_id), exception])
    # The thunk always raises, so the status is not 0; a run that somehow lost it
    # still must not go on as if the loop had finished.
    b.ret(b.select(b.icmp_unsigned("==", status, I32(0)), I32(1), status))


@thunk_emitter(Op.CONDITIONAL)
def _conditional(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    branches = instruction.attribute("branch_computations")
    if branches is None:
        branches = [
            instruction.attribute("true_computation"),
            instruction.attribute("false_computation"),
        ]
    branches = list(branches)
    functions = [fe.m.computation_function(c) for c in branches]
    b = fe.b
    selector_slot = fe.value(instruction.operand(0))
    if not isinstance(selector_slot, Slot):
        raise NotEmittable("conditional selector is not an array")
    et = instruction.operand(0).shape.element_type
    raw = b.load(
        b.bitcast(fe.pointer(selector_slot), (I8 if et.hlo_name == "pred" else I32).as_pointer())
    )
    if et.hlo_name == "pred":
        index = b.select(b.icmp_unsigned("!=", raw, I8(0)), I32(0), I32(1))
    else:
        in_range = b.and_(
            b.icmp_signed(">=", raw, I32(0)), b.icmp_signed("<", raw, I32(len(branches)))
        )
        index = b.select(in_range, raw, I32(len(branches) - 1))
    results = pointer_table(b, fe.leaf_pointers(instruction), "cond_results")
    done = fe.function.append_basic_block("cond.done")
    blocks = [fe.function.append_basic_block(f"cond.branch{k}") for k in range(len(branches))]
    switch = b.switch(index, blocks[-1])
    for k, block in enumerate(blocks):
        switch.add_case(I32(k), block)
    for k, (block, function) in enumerate(zip(blocks, functions, strict=True)):
        b.position_at_end(block)
        args = pointer_table(b, fe.leaf_pointers(instruction.operand(k + 1)), f"cond_args{k}")
        fe.check(b.call(function, [fe.ctx, args, results, fe.arena_base]))
        b.branch(done)
    b.position_at_end(done)


@thunk_emitter(Op.CALL)
def _call(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    function = fe.m.computation_function(instruction.to_apply)
    b = fe.b
    args = pointer_table(b, fe.operand_leaf_pointers(instruction), "call_args")
    results = pointer_table(b, fe.leaf_pointers(instruction), "call_results")
    fe.check(b.call(function, [fe.ctx, args, results, fe.arena_base]))


@thunk_emitter(Op.COPY)
def _copy(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    _copy_tree(fe, leaves(fe.value(instruction)), leaves(fe.value(instruction.operand(0))))
