"""Evaluator kernels of the transfers family: data in and out of the program.

infeed and outfeed use the device's queues, which the client fills and drains.
send and recv meet in a mailbox per channel and receiving device on the
execution's hub (a private one-device hub when the program runs alone, so a
send and a recv of one program still meet); who sends to whom follows XLA's
``_xla_send_recv_source_target_pairs`` rules (``distributed.p2p``): a recv on a
device that no pair targets returns zeros at once, a send from a device that is no
pair's source does nothing. Host transfers (``is_host_transfer=true``, XLA's
SendToHost / RecvFromHost) go through the device's ``HostChannels``, which the
client feeds and drains by channel (``Executable.send_to_device`` /
``Executable.recv_from_device``).
"""

from __future__ import annotations

import queue
from typing import Any

import numpy as np

from ...distributed import CollectiveHub
from ...distributed.p2p import channel_of, is_host_transfer, recv_source, send_target
from ...errors import DeadlineExceededError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...shape import Shape
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
# Device-to-device peers follow XLA's rules (``distributed.p2p``): a device that is no
# pair's target gets zeros at once, a device that is no pair's source sends nothing.
# Host transfers (``is_host_transfer=true``) use the device's ``HostChannels``.


def _hub(ctx: EvalContext, instruction: HloInstruction) -> Any:
    hub = ctx.device.collectives
    if hub is None:
        # One device: a private hub, so a send and recv in one program still meet.
        with ctx.device.lock:
            if ctx.device.local_hub is None:
                ctx.device.local_hub = CollectiveHub(1, timeout=1.0)
            return ctx.device.local_hub
    return hub


def _host_channels(ctx: EvalContext, instruction: HloInstruction) -> Any:
    channels = ctx.device.host_channels
    if channels is None:
        raise ctx.fail(
            instruction,
            f"a host transfer on channel {channel_of(instruction)}, but this execution has no "
            "host channels (run it through a compiled executable, which feeds them with "
            "send_to_device / recv_from_device)",
        )
    return channels


def _zeros(shape: Shape) -> Value:
    if shape.is_tuple:
        return tuple(_zeros(s) for s in shape.tuple_shapes)
    if shape.is_token:
        return TOKEN
    return np.zeros(shape.dimensions, dtype=shape.element_type.dtype)


def _mailbox(instruction: HloInstruction, device: int) -> tuple[str, int, int]:
    return ("channel", channel_of(instruction), device)


@kernel(Op.SEND)
def _send(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Posts the data to the target's mailbox (or the host's channel); never waits."""
    if is_host_transfer(instruction):
        _host_channels(ctx, instruction).put_to_host(
            channel_of(instruction), copy_value(operands[0])
        )
    else:
        target = send_target(ctx.device, instruction)
        if target is not None:
            _hub(ctx, instruction).post(_mailbox(instruction, target), copy_value(operands[0]))
    return (operands[0], np.uint32(0).reshape(()), TOKEN)


@kernel(Op.SEND_DONE)
def _send_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return TOKEN


@kernel(Op.RECV)
def _recv(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The source's data (waiting for it), the host's, or zeros when nobody sends here."""
    shape = instruction.shape.tuple_shapes[0]
    what = f"recv {instruction.name}"
    if is_host_transfer(instruction):
        item = _host_channels(ctx, instruction).get_from_host(channel_of(instruction), what)
        value = value_of_shape(item, shape, f"{what} (from the host)")
    elif recv_source(ctx.device, instruction) is None:
        value = _zeros(shape)
    else:
        hub = _hub(ctx, instruction)
        value = hub.take(_mailbox(instruction, ctx.device.index), what)
    return (value, np.uint32(0).reshape(()), TOKEN)


@kernel(Op.RECV_DONE)
def _recv_done(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    value, _, _ = operands[0]
    return (value, TOKEN)


__all__ = ["INFEED_TIMEOUT_SECONDS"]
