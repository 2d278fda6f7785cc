"""Point-to-point and host transfers: send/recv over channels, infeed and outfeed.

Send and Recv emit send+send-done and recv+recv-done pairs as XLA's builder
does; Infeed and Outfeed without explicit tokens are chained through the
builder's last feed token, so that feeds stay in program order.
"""

from __future__ import annotations

from typing import Any

from ..builder import XlaBuilder, XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data_sharding import ChannelHandle, ChannelType
from .collectives import builder_argument, checked_channel_handle, tuple_element, user_shape

# -- channels: send and recv ------------------------------------------------------------------

D2D = ChannelType.DEVICE_TO_DEVICE


def CreateChannelHandle(
    builder: XlaBuilder, channel_type: ChannelType = ChannelType.DEVICE_TO_DEVICE
) -> ChannelHandle:
    """A channel handle not yet handed out by this builder (or its parents), as XLA's
    ``XlaBuilder::CreateChannelHandle`` makes them."""
    return ChannelHandle(builder_argument(builder, "CreateChannelHandle").next_channel_id(), channel_type)


def _send(operand: XlaOp, token: XlaOp, handle: ChannelHandle, host: bool, op_name: str,
          shape: Shape | None = None) -> XlaOp:  # fmt: skip
    builder = operand.builder
    attributes: dict[str, Any] = {"channel_id": handle.handle}
    if host:
        attributes["is_host_transfer"] = True
    data = shape if shape is not None else shape_of(operand)
    send = builder.add_instruction(
        Op.SEND, [operand, token], attributes=attributes,
        declared=Shape.tuple([data, Shape.scalar(PrimitiveType.U32), Shape.token()]),
        op_name=op_name,
    )  # fmt: skip
    return builder.add_instruction(Op.SEND_DONE, [send], attributes=attributes, op_name=op_name)


def _recv(token: XlaOp, shape: Shape, handle: ChannelHandle, host: bool, op_name: str) -> XlaOp:
    builder = token.builder
    attributes: dict[str, Any] = {"channel_id": handle.handle}
    if host:
        attributes["is_host_transfer"] = True
    recv = builder.add_instruction(
        Op.RECV, [token], attributes=attributes,
        declared=Shape.tuple([shape, Shape.scalar(PrimitiveType.U32), Shape.token()]),
        op_name=op_name,
    )  # fmt: skip
    return builder.add_instruction(Op.RECV_DONE, [recv], attributes=attributes, op_name=op_name)


def _new_token(builder: XlaBuilder, op_name: str) -> XlaOp:
    return builder.add_instruction(Op.AFTER_ALL, [], op_name=op_name)


@builder_op("Send")
def Send(
    operand: XlaOp,
    token_or_handle: XlaOp | ChannelHandle,
    channel_handle: ChannelHandle | None = None,
) -> XlaOp:
    """``Send(operand, channel_handle)`` (XLA's form: a fresh token) or
    ``Send(operand, token, channel_handle)``: send+send-done; returns send-done's token."""
    if isinstance(token_or_handle, XlaOp):
        if channel_handle is None:
            raise InvalidArgumentError("Send: with a token, a channel_handle is required")
        handle = checked_channel_handle(channel_handle, D2D, "Send", shape_of(operand))
        return _send(operand, token_or_handle, handle, False, "Send")
    if channel_handle is not None:
        raise InvalidArgumentError(
            "Send: give Send(operand, token, handle) or Send(operand, handle)"
        )
    handle = checked_channel_handle(token_or_handle, D2D, "Send", shape_of(operand))
    return _send(operand, _new_token(operand.builder, "Send"), handle, False, "Send")


@builder_op("SendWithToken")
def SendWithToken(operand: XlaOp, token: XlaOp, channel_handle: ChannelHandle) -> XlaOp:
    """Send ``operand`` on a device-to-device channel after ``token``; returns a token."""
    handle = checked_channel_handle(channel_handle, D2D, "SendWithToken", shape_of(operand))
    return _send(operand, token, handle, False, "SendWithToken")


@builder_op("Recv")
def Recv(
    builder: XlaBuilder,
    token_or_shape: XlaOp | Shape,
    shape_or_handle: Shape | ChannelHandle,
    channel_handle: ChannelHandle | None = None,
) -> XlaOp:
    """``Recv(builder, shape, channel_handle)`` (XLA's form) returns the received data;
    ``Recv(builder, token, shape, channel_handle)`` returns recv-done's (data, token)."""
    builder_argument(builder, "Recv")
    if isinstance(token_or_shape, XlaOp):
        if channel_handle is None:
            raise InvalidArgumentError("Recv: with a token, a channel_handle is required")
        shape = user_shape(shape_or_handle, "Recv")
        handle = checked_channel_handle(channel_handle, D2D, "Recv", shape)
        return _recv(token_or_shape, shape, handle, False, "Recv")
    if channel_handle is not None:
        raise InvalidArgumentError(
            "Recv: give Recv(builder, shape, handle) or Recv(builder, token, shape, handle)"
        )
    shape = user_shape(token_or_shape, "Recv")
    handle = checked_channel_handle(shape_or_handle, D2D, "Recv", shape)
    done = _recv(_new_token(builder, "Recv"), shape, handle, False, "Recv")
    return tuple_element(done, 0, "Recv")


@builder_op("RecvWithToken")
def RecvWithToken(token: XlaOp, shape: Shape, channel_handle: ChannelHandle) -> XlaOp:
    """Receive data of ``shape`` on a device-to-device channel; returns (data, token)."""
    shape = user_shape(shape, "RecvWithToken")
    handle = checked_channel_handle(channel_handle, D2D, "RecvWithToken", shape)
    return _recv(token, shape, handle, False, "RecvWithToken")


@builder_op("SendToHost")
def SendToHost(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape, channel_handle: ChannelHandle
) -> XlaOp:
    """Send an array to the host on a device-to-host channel; returns a token."""
    op_name = "SendToHost"
    shape = user_shape(shape_with_layout, op_name, "shape_with_layout")
    operand_shape = shape_of(operand)
    if not operand_shape.is_array:
        raise InvalidArgumentError(f"{op_name} only supports array shapes, got {operand_shape}")
    if not operand_shape.compatible(shape):
        raise InvalidArgumentError(
            f"{op_name}: shape {shape} must be compatible with operand shape {operand_shape}"
        )
    handle = checked_channel_handle(channel_handle, ChannelType.DEVICE_TO_HOST, op_name, shape)
    return _send(operand, token, handle, True, op_name, shape)


@builder_op("RecvFromHost")
def RecvFromHost(token: XlaOp, shape: Shape, channel_handle: ChannelHandle) -> XlaOp:
    """Receive an array from the host on a host-to-device channel; returns (data, token)."""
    op_name = "RecvFromHost"
    shape = user_shape(shape, op_name)
    if not shape.is_array:
        raise InvalidArgumentError(f"{op_name} only supports array shapes, got {shape}")
    handle = checked_channel_handle(channel_handle, ChannelType.HOST_TO_DEVICE, op_name, shape)
    return _recv(token, shape, handle, True, op_name)


# -- infeed and outfeed -----------------------------------------------------------------------


# The token each builder's token-less Infeed/Outfeed calls chain through (XLA's
# infeed_token_/outfeed_token_), so that implicit feeds keep program order.
def _feed_token(builder: XlaBuilder, kind: str, op_name: str) -> XlaOp:
    token = builder.feed_tokens.get(kind)
    return token if token is not None else _new_token(builder, op_name)


def _remember_token(builder: XlaBuilder, kind: str, token: XlaOp) -> None:
    builder.feed_tokens[kind] = token


def _infeed(token: XlaOp, shape: Shape, config: str, op_name: str) -> XlaOp:
    attributes = {"infeed_config": str(config)} if config else {}
    return token.builder.add_instruction(
        Op.INFEED, [token], attributes=attributes, declared=Shape.tuple([shape, Shape.token()]),
        op_name=op_name,
    )  # fmt: skip


@builder_op("Infeed")
def Infeed(builder: XlaBuilder, shape: Shape, config: str = "") -> XlaOp:
    """Read one value of ``shape`` from the device's infeed queue; returns the data.

    Token-less infeeds of one builder are chained through each other's
    tokens, as XLA's builder does, so they read in program order.
    """
    builder_argument(builder, "Infeed")
    shape = user_shape(shape, "Infeed")
    infeed = _infeed(_feed_token(builder, "infeed", "Infeed"), shape, config, "Infeed")
    _remember_token(builder, "infeed", tuple_element(infeed, 1, "Infeed"))
    return tuple_element(infeed, 0, "Infeed")


@builder_op("InfeedWithToken")
def InfeedWithToken(token: XlaOp, shape: Shape, config: str = "") -> XlaOp:
    """Read one value of ``shape`` after ``token``; returns the (data, token) tuple."""
    return _infeed(token, user_shape(shape, "InfeedWithToken"), config, "InfeedWithToken")


def _outfeed(
    operand: XlaOp, token: XlaOp, shape_with_layout: Any, config: str, op_name: str
) -> XlaOp:
    shape = user_shape(shape_with_layout, op_name, "shape_with_layout")
    operand_shape = shape_of(operand)
    if not operand_shape.compatible(shape):
        raise InvalidArgumentError(
            f"{op_name}: outfeed shape {shape} must be compatible with operand shape "
            f"{operand_shape}"
        )
    attributes: dict[str, Any] = {"outfeed_shape": shape}
    if config:
        attributes["outfeed_config"] = str(config)
    return operand.builder.add_instruction(
        Op.OUTFEED, [operand, token], attributes=attributes, op_name=op_name
    )


@builder_op("Outfeed")
def Outfeed(operand: XlaOp, shape_with_layout: Shape, outfeed_config: str = "") -> XlaOp:
    """Write ``operand`` to the device's outfeed queue; returns the empty tuple XLA adds.

    Token-less outfeeds of one builder are chained, as in XLA.
    """
    builder = operand.builder
    token = _feed_token(builder, "outfeed", "Outfeed")
    outfeed = _outfeed(operand, token, shape_with_layout, outfeed_config, "Outfeed")
    _remember_token(builder, "outfeed", outfeed)
    return builder.add_instruction(Op.TUPLE, [], op_name="Outfeed")


@builder_op("OutfeedWithToken")
def OutfeedWithToken(
    operand: XlaOp, token: XlaOp, shape_with_layout: Shape, outfeed_config: str = ""
) -> XlaOp:
    """Write ``operand`` to the outfeed after ``token``; returns the outfeed's token."""
    return _outfeed(operand, token, shape_with_layout, outfeed_config, "OutfeedWithToken")


__all__ = [
    "CreateChannelHandle", "Infeed", "InfeedWithToken", "Outfeed", "OutfeedWithToken", "Recv",
    "RecvFromHost", "RecvWithToken", "Send", "SendToHost", "SendWithToken",
]  # fmt: skip
