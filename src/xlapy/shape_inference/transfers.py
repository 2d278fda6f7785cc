"""Shape rules of point-to-point transfers and host feeds: send, recv, infeed, outfeed.

The data shapes of recv and infeed are taken from the declared shape, as XLA
takes them from the instruction; send/recv carry a (data, u32[], token[])
context tuple.
"""

from __future__ import annotations

from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ._core import InferenceContext, array_shape, rule
from .control import compatible

_U32 = array_shape(PrimitiveType.U32, [])
_TOKEN = Shape.token()


# -- send, recv, infeed, outfeed --------------------------------------------------------------


def _expect_token(ctx: InferenceContext, index: int) -> None:
    if index >= len(ctx.operands) or not ctx.operands[index].is_token:
        got = ctx.operands[index] if index < len(ctx.operands) else "nothing"
        ctx.fail(f"operand {index} must be a token, got {got}")


def _transfer_tuple(ctx: InferenceContext, t: Shape, what: str) -> Shape:
    """The data shape of a (data, u32[], token[]) send/recv context."""
    parts = t.tuple_shapes if t.is_tuple else ()
    if len(parts) != 3 or not compatible(parts[1], _U32) or not parts[2].is_token:
        ctx.fail(f"{what} must be a (data, u32[], token[]) tuple, got {t}")
    return parts[0]


@rule(Op.SEND)
def _send(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    _expect_token(ctx, 1)
    return Shape.tuple([ctx.operands[0], _U32, _TOKEN])


@rule(Op.SEND_DONE)
def _send_done(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    _transfer_tuple(ctx, ctx.operands[0], "the operand (a send)")
    return _TOKEN


@rule(Op.RECV)
def _recv(ctx: InferenceContext) -> Shape:
    """(data, u32[], token[]), the data shape as declared."""
    ctx.expect_operand_count(1)
    _expect_token(ctx, 0)
    declared = ctx.declared_shape()
    _transfer_tuple(ctx, declared, "the result")
    return declared


@rule(Op.RECV_DONE)
def _recv_done(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    return Shape.tuple([_transfer_tuple(ctx, ctx.operands[0], "the operand (a recv)"), _TOKEN])


def _contains_token(shape: Shape) -> bool:
    if shape.is_tuple:
        return any(_contains_token(s) for s in shape.tuple_shapes)
    return shape.is_token


@rule(Op.INFEED)
def _infeed(ctx: InferenceContext) -> Shape:
    """(data, token[]), the data shape as declared."""
    ctx.expect_operand_count(1)
    _expect_token(ctx, 0)
    declared = ctx.declared_shape()
    parts = declared.tuple_shapes if declared.is_tuple else ()
    if len(parts) != 2 or not parts[1].is_token or _contains_token(parts[0]):
        ctx.fail(f"the result must be a (data, token[]) tuple with token-free data, got {declared}")
    return declared


@rule(Op.OUTFEED)
def _outfeed(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    _expect_token(ctx, 1)
    stated = ctx.attr("outfeed_shape", None)
    if stated is not None and not compatible(stated, ctx.operands[0]):
        ctx.fail(f"outfeed_shape {stated} must match the data operand {ctx.operands[0]}")
    return _TOKEN
