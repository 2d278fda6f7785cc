"""Evaluator kernels of the transfers family: data in and out of the program.

infeed and outfeed use the device's queues, which the client fills and drains.
send and recv meet in a mailbox per channel and receiving device on the
execution's hub (a private one-device hub when the program runs alone, so a
send and a recv of one program still meet).
"""

from __future__ import annotations

import queue
from typing import Any

import numpy as np

from ...distributed import CollectiveHub
from ...errors import DeadlineExceededError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ..core import TOKEN, EvalContext, Value, copy_value, kernel, value_of_shape

INFEED_TIMEOUT_SECONDS = 30.0

# -- infeed and outfeed --------------------------------------------------------------------


@kernel(Op.INFEED)
def _infeed(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """(data, token): the next item of the device's infeed queue, checked against the shape."""
    data_shape = instruction.shape.tuple_shapes[0]
    feed = ctx.device.infeed
    if feed is None:
        raise ctx.fail(instruction, "this execution has no infeed queue")
    try:
        item = feed.get(timeout=INFEED_TIMEOUT_SECONDS)
    except queue.Empty:
        raise DeadlineExceededError(
            f"infeed {instruction.name}: no data arrived within {INFEED_TIMEOUT_SECONDS:g} s; "
            f"put a value of shape {data_shape} on the executable's infeed queue first"
        ) from None
    return (value_of_shape(item, data_shape, f"infeed {instruction.name}"), TOKEN)


@kernel(Op.OUTFEED)
def _outfeed(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Puts a copy of the data (numpy arrays, tuples nested) on the device's outfeed queue."""
    feed = ctx.device.outfeed
    if feed is None:
        raise ctx.fail(instruction, "this execution has no outfeed queue")
    feed.put(copy_value(operands[0]))
    return TOKEN


# -- send / recv: a mailbox per channel and receiving device -------------------------------


def _channel(instruction: HloInstruction) -> int:
    return int(instruction.attributes.get("channel_id", 0) or 0)


def _targets(ctx: EvalContext, instruction: HloInstruction) -> list[int]:
    """Devices a send goes to: from ``_xla_send_recv_source_target_pairs``, else itself."""
    pairs = _pairs(instruction)
    me = ctx.device.index
    return [t for s, t in pairs if s == me] if pairs else [me]


def _pairs(instruction: HloInstruction) -> list[tuple[int, int]]:
    attributes = instruction.attributes.get("frontend_attributes") or {}
    text = dict(attributes).get("_xla_send_recv_source_target_pairs") if attributes else None
    if not text:
        return []
    numbers = [int(x) for x in text.replace("{", " ").replace("}", " ").replace(",", " ").split()]
    return list(zip(numbers[0::2], numbers[1::2], strict=True))


def _hub(ctx: EvalContext, instruction: HloInstruction) -> Any:
    hub = ctx.device.collectives
    if hub is None:
        # One device: a private hub, so a send and recv in one program still meet.
        with ctx.device.lock:
            if ctx.device.local_hub is None:
                ctx.device.local_hub = CollectiveHub(1, timeout=1.0)
            return ctx.device.local_hub
    return hub


@kernel(Op.SEND)
def _send(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    hub = _hub(ctx, instruction)
    for target in _targets(ctx, instruction):
        hub.post(("channel", _channel(instruction), target), operands[0])
    return (operands[0], np.uint32(0).reshape(()), TOKEN)


@kernel(Op.SEND_DONE)
def _send_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return TOKEN


@kernel(Op.RECV)
def _recv(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    hub = _hub(ctx, instruction)
    value = hub.take(
        ("channel", _channel(instruction), ctx.device.index), f"recv {instruction.name}"
    )
    return (value, np.uint32(0).reshape(()), TOKEN)


@kernel(Op.RECV_DONE)
def _recv_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    value, _, _ = operands[0]
    return (value, TOKEN)


__all__ = ["INFEED_TIMEOUT_SECONDS"]
