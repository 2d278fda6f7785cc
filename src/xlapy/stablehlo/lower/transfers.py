"""Lowerings of the transfers family: send/recv (device or host) and infeed/outfeed.

A send or recv to or from the host is HLO's host transfer (one array, a
channel of the host kind); between devices it keeps StableHLO's channel.
"""

from __future__ import annotations

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from ...xla_data_sharding import ChannelHandle, ChannelType
from .. import ast
from .attrs import bool_attr, channel_handle, string_attr
from .core import Ctx, lowering
from .errors import invalid, unsupported


def _handle(op: ast.Operation, expected: ChannelType) -> ChannelHandle:
    handle = channel_handle(op)
    if handle is None:
        raise invalid(op, "needs a channel_handle")
    return ChannelHandle(handle[0], expected)


@lowering("stablehlo.send", "mhlo.send")
def _send(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    *data, token = ctx.operands(op)
    if op.attributes.get("source_target_pairs"):
        raise unsupported(op, "send with source_target_pairs")
    if bool_attr(op, "is_host_transfer"):
        if len(data) != 1:
            raise unsupported(op, f"host sends of {len(data)} values (one array only)")
        handle = _handle(op, ChannelType.DEVICE_TO_HOST)
        return [ops.SendToHost(data[0], token, data[0].shape, handle)]
    handle = _handle(op, ChannelType.DEVICE_TO_DEVICE)
    return [ops.SendWithToken(ctx.pack(data), token, handle)]


@lowering("stablehlo.recv", "mhlo.recv")
def _recv(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (token,) = ctx.operands(op)
    if op.attributes.get("source_target_pairs"):
        raise unsupported(op, "recv with source_target_pairs")
    shapes = [ctx.result_shape(op, i) for i in range(len(op.results) - 1)]
    data = shapes[0] if len(shapes) == 1 else Shape.tuple(shapes)
    if bool_attr(op, "is_host_transfer"):
        if len(shapes) != 1:
            raise unsupported(op, f"host receives of {len(shapes)} values (one array only)")
        done = ops.RecvFromHost(token, data, _handle(op, ChannelType.HOST_TO_DEVICE))
    else:
        done = ops.RecvWithToken(token, data, _handle(op, ChannelType.DEVICE_TO_DEVICE))
    return _data_and_token(ctx, done, len(shapes))


def _data_and_token(ctx: Ctx, pair: XlaOp, count: int) -> list[XlaOp]:
    """(data, token) as the results: the data's elements when there are several."""
    value, token = ctx.unpack(pair, 2)
    data = [value] if count == 1 else ctx.unpack(value, count)
    return [*data, token]


@lowering("stablehlo.infeed", "mhlo.infeed")
def _infeed(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (token,) = ctx.operands(op)
    shapes = [ctx.result_shape(op, i) for i in range(len(op.results) - 1)]
    data = shapes[0] if len(shapes) == 1 else Shape.tuple(shapes)
    config = string_attr(op, "infeed_config", "")
    return _data_and_token(ctx, ops.InfeedWithToken(token, data, config), len(shapes))


@lowering("stablehlo.outfeed", "mhlo.outfeed")
def _outfeed(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    *data, token = ctx.operands(op)
    value = ctx.pack(data)
    config = string_attr(op, "outfeed_config", "")
    return [ops.OutfeedWithToken(value, token, value.shape.with_default_layout(), config)]


__all__: list[str] = []
