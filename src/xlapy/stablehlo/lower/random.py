"""Lowerings of the random family: rng (uniform, normal) and rng_bit_generator."""

from __future__ import annotations

from ... import ops
from ...builder import XlaOp
from ...xla_data import RandomAlgorithm
from .. import ast
from .attrs import enum_attr
from .core import Ctx, lowering
from .errors import invalid


@lowering("stablehlo.rng", "mhlo.rng")
def _rng(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    a, b, _ = ctx.operands(op)
    shape = ctx.result_shape(op)
    distribution = enum_attr(op, "rng_distribution")
    if distribution == "UNIFORM":
        return [ops.RngUniform(a, b, shape)]
    if distribution == "NORMAL":
        return [ops.RngNormal(a, b, shape)]
    raise invalid(op, f"unknown rng_distribution {distribution}")


@lowering("stablehlo.rng_bit_generator", "mhlo.rng_bit_generator")
def _rng_bit_generator(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (state,) = ctx.operands(op)
    name = enum_attr(op, "rng_algorithm", "DEFAULT")
    if f"RNG_{name}" not in RandomAlgorithm.__members__:
        raise invalid(op, f"unknown rng_algorithm {name}")
    declared = ctx.result_shape(op, 1)
    pair = ops.RngBitGenerator(RandomAlgorithm[f"RNG_{name}"], state, declared)
    new_state, bits = ctx.unpack(pair, 2)
    if bits.shape.element_type != declared.element_type:
        bits = ops.BitcastConvertType(bits, declared.element_type)
    return [new_state, bits]


__all__: list[str] = []
