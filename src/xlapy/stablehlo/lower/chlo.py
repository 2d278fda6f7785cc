"""CHLO, the "client HLO" ops JAX emits for functions that are not HLO ops:
inverse trigonometric and hyperbolic functions, special functions, top_k, and
the implicitly broadcasting binary ops.

They lower as XLA lowers them: through the client library's decompositions
(:mod:`xlapy.lib.math`, the counterpart of xla/hlo/builder/lib/math.cc), so an
imported ``chlo.lgamma`` is the same HLO a builder user gets from
``lib.math.Lgamma``; ``top_k`` becomes HLO's own ``topk``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...builder import XlaOp
from ...errors import UnimplementedError
from ...lib import math as libmath
from ...xla_data import ComparisonDirection, ComparisonType
from .. import ast
from .attrs import attr, enum_attr, int_attr, ints
from .core import Ctx, lowering
from .errors import invalid
from .movement import broadcast_in_dim


def _library(name: str, fallback=None):
    """The lib.math function ``name``, looked up when used (the library grows)."""

    def get():
        fn = getattr(libmath, name, None)
        if fn is None:
            if fallback is None:
                raise UnimplementedError(f"xlapy.lib.math has no {name} yet")
            return fallback
        return fn

    return get


_UNARY = {
    "acos": _library("Acos"),
    "acosh": _library("Acosh"),
    "asin": _library("Asin"),
    "asinh": _library("Asinh"),
    "atan": _library("Atan"),
    "atanh": _library("Atanh"),
    "bessel_i0e": _library("BesselI0e"),
    "bessel_i1e": _library("BesselI1e"),
    "cosh": _library("Cosh", ops.Cosh),
    "digamma": _library("Digamma"),
    "erf": _library("Erf", ops.Erf),
    "erf_inv": _library("ErfInv"),
    "erfc": _library("Erfc"),
    "is_inf": _library("IsInf"),
    "is_neg_inf": _library("IsNegInf"),
    "is_pos_inf": _library("IsPosInf"),
    "lgamma": _library("Lgamma"),
    "sinh": _library("Sinh"),
    "tan": _library("Tan", ops.Tan),
}

_BINARY = {
    "next_after": _library("NextAfter"),
    "polygamma": _library("Polygamma"),
    "zeta": _library("Zeta"),
}


def _unary(get):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        (x,) = ctx.operands(op)
        return [get()(x)]

    return lower


def _binary(get):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        lhs, rhs = ctx.operands(op)
        return [get()(lhs, rhs)]

    return lower


for _name, _get in _UNARY.items():
    lowering(f"chlo.{_name}")(_unary(_get))
for _name, _get in _BINARY.items():
    lowering(f"chlo.{_name}")(_binary(_get))


@lowering("chlo.conj")
def _conj(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    if not x.shape.element_type.is_complex:
        return [x]
    return [ops.Complex(ops.Real(x), ops.Neg(ops.Imag(x)))]


@lowering("chlo.square")
def _square(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    return [ops.Mul(x, x)]


@lowering("chlo.top_k")
def _top_k(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    pair = ops.TopK(x, int_attr(op, "k"))
    values, indices = ctx.unpack(pair, 2)
    target = ctx.result_shape(op, 1).element_type
    if indices.shape.element_type != target:
        indices = ops.ConvertElementType(indices, target)
    return [values, indices]


@lowering("chlo.constant")
def _constant(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    value = attr(op, "value")
    if not isinstance(value, ast.DenseElements):
        raise invalid(op, f"the value must be a dense<...> literal, got {value!r}")
    return [ops.ConstantLiteral(ctx.builder, value.literal)]


@lowering("chlo.constant_like")
def _constant_like(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    value = attr(op, "value")
    shape = ctx.result_shape(op)
    if isinstance(value, ast.DenseElements):
        scalar = ops.ConstantLiteral(ctx.builder, value.literal.convert(shape.element_type))
    else:
        scalar = ops.Constant(ctx.builder, value, shape.element_type)
    if scalar.shape.rank:
        scalar = ops.Reshape(scalar, [])
    return [ops.Broadcast(scalar, x.shape.dimensions)]


# -- broadcasting binary ops ---------------------------------------------------------------


def _broadcast_to(op: ast.Operation, x: XlaOp, dims: Sequence[int], mapping=None) -> XlaOp:
    """``x`` broadcast numpy-style (trailing dimensions aligned) or by ``mapping``."""
    rank = x.shape.rank
    if mapping is None:
        mapping = list(range(len(dims) - rank, len(dims)))
    return broadcast_in_dim(op, x, dims, mapping)


def _broadcast_operands(ctx: Ctx, op: ast.Operation, values: list[XlaOp]) -> list[XlaOp]:
    dims = ctx.result_shape(op).dimensions
    mapping = ints(op, "broadcast_dimensions", None)
    out = []
    for x in values:
        # broadcast_dimensions maps the lower-rank operand (XLA's convention).
        use = mapping if mapping and x.shape.rank < len(dims) else None
        out.append(_broadcast_to(op, x, dims, use))
    return out


def _broadcasting(fn):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        lhs, rhs = _broadcast_operands(ctx, op, ctx.operands(op))
        return [fn(lhs, rhs)]

    return lower


_BROADCASTING = {
    "add": ops.Add,
    "and": ops.And,
    "atan2": ops.Atan2,
    "complex": ops.Complex,
    "divide": ops.Div,
    "maximum": ops.Max,
    "minimum": ops.Min,
    "multiply": ops.Mul,
    "or": ops.Or,
    "power": ops.Pow,
    "remainder": ops.Rem,
    "shift_left": ops.ShiftLeft,
    "shift_right_arithmetic": ops.ShiftRightArithmetic,
    "shift_right_logical": ops.ShiftRightLogical,
    "subtract": ops.Sub,
    "xor": ops.Xor,
}

for _name, _fn in _BROADCASTING.items():
    lowering(f"chlo.broadcast_{_name}")(_broadcasting(_fn))
for _name, _get in _BINARY.items():
    lowering(f"chlo.broadcast_{_name}")(_broadcasting(lambda lhs, rhs, _get=_get: _get()(lhs, rhs)))


@lowering("chlo.broadcast_compare")
def _broadcast_compare(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs, rhs = ctx.operands(op)
    dims = ctx.result_shape(op).dimensions
    mapping = ints(op, "broadcast_dimensions", None)
    lhs = _broadcast_to(op, lhs, dims, mapping if mapping and lhs.shape.rank < len(dims) else None)
    rhs = _broadcast_to(op, rhs, dims, mapping if mapping and rhs.shape.rank < len(dims) else None)
    direction = enum_attr(op, "comparison_direction")
    if direction not in ComparisonDirection.__members__:
        raise invalid(op, f"unknown comparison_direction {direction}")
    kind = enum_attr(op, "compare_type", None)
    compare_type = ComparisonType[kind] if kind and kind != "NOTYPE" else None
    return [ops.Compare(lhs, rhs, ComparisonDirection[direction], compare_type=compare_type)]


@lowering("chlo.broadcast_select")
def _broadcast_select(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    pred, on_true, on_false = ctx.operands(op)
    dims = ctx.result_shape(op).dimensions
    return [
        ops.Select(
            _broadcast_to(op, pred, dims),
            _broadcast_to(op, on_true, dims),
            _broadcast_to(op, on_false, dims),
        )
    ]


__all__: list[str] = []
