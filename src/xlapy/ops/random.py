"""Random numbers: the stateful ``rng`` (uniform and normal) and the functional
``rng-bit-generator``.

``RngUniform``/``RngNormal`` draw from a generator the backend owns, so two
runs may differ; ``RngBitGenerator`` is a pure function of the state it is
given and returns the next state, which is what makes it reproducible and why
it is the one JAX uses.
"""

from __future__ import annotations

from typing import Any

from ..builder import XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import RandomAlgorithm, RandomDistribution
from ._support import (
    operand_pair,
)


def _result_shape(shape: Any, op_name: str) -> Shape:
    """The requested shape; arrays without a layout get the default one, as Parameter does."""
    if isinstance(shape, str):
        shape = Shape.parse(shape)
    if not isinstance(shape, Shape):
        raise InvalidArgumentError(f"{op_name}: shape must be a Shape, got {shape!r}")
    if shape.is_array and shape.layout is None:
        shape = shape.with_default_layout()
    return shape


def _rng(distribution: RandomDistribution, a: Any, b: Any, shape: Any, op_name: str) -> XlaOp:
    a, b = operand_pair(a, b, op_name)
    declared = _result_shape(shape, op_name)
    if not declared.is_array:
        raise InvalidArgumentError(
            f"{op_name}: the result shape must be an array, got {declared} "
            f"(parameters {shape_of(a)}, {shape_of(b)})"
        )
    return a.builder.add_instruction(
        Op.RNG, [a, b], attributes={"distribution": distribution}, declared=declared,
        op_name=op_name,
    )  # fmt: skip


@builder_op("RngUniform")
def RngUniform(a: XlaOp | float, b: XlaOp | float, shape: Shape) -> XlaOp:
    """Values of ``shape`` uniform over [a, b) (scalar parameters of the result's type).

    A Python number on one side takes the other parameter's type.
    """
    return _rng(RandomDistribution.RNG_UNIFORM, a, b, shape, "RngUniform")


@builder_op("RngNormal")
def RngNormal(mu: XlaOp | float, sigma: XlaOp | float, shape: Shape) -> XlaOp:
    """Values of ``shape`` from N(mu, sigma) (floating-point scalar parameters)."""
    return _rng(RandomDistribution.RNG_NORMAL, mu, sigma, shape, "RngNormal")


def _algorithm(algorithm: Any, state: Shape) -> RandomAlgorithm:
    """A RandomAlgorithm from the enum, its value, or a name such as "three_fry"."""
    if isinstance(algorithm, str):
        name = algorithm.strip().upper()
        name = name if name.startswith("RNG_") else f"RNG_{name}"
        try:
            return RandomAlgorithm[name]
        except KeyError:
            pass
    else:
        try:
            return RandomAlgorithm(algorithm)
        except ValueError:
            pass
    choices = ", ".join(a.name.lower() for a in RandomAlgorithm)
    raise InvalidArgumentError(
        f"RngBitGenerator: unknown algorithm {algorithm!r}; use one of {choices} "
        f"(initial state {state})"
    )


_UNSIGNED_BY_WIDTH = {
    t.bit_width: t
    for t in (PrimitiveType.U2, PrimitiveType.U4, PrimitiveType.U8, PrimitiveType.U16,
              PrimitiveType.U32, PrimitiveType.U64)
}  # fmt: skip


@builder_op("RngBitGenerator")
def RngBitGenerator(algorithm: RandomAlgorithm | str, initial_state: XlaOp, shape: Shape) -> XlaOp:
    """A tuple (new state, random bits of ``shape``).

    As in XLA's builder, the bits always have the unsigned type of the
    requested element type's width (f32 asks for u32 bits), since they are
    raw bits; convert or bitcast them to get numbers.
    """
    op_name = "RngBitGenerator"
    state = shape_of(initial_state)
    chosen = _algorithm(algorithm, state)
    requested = _result_shape(shape, op_name)
    if not requested.is_array:
        raise InvalidArgumentError(
            f"{op_name}: unsupported shape {requested}: the bits must be an array "
            f"(initial state {state})"
        )
    unsigned = _UNSIGNED_BY_WIDTH.get(requested.element_type.bit_width)
    if unsigned is None:
        raise InvalidArgumentError(
            f"{op_name}: unsupported shape {requested}: no unsigned integer type has the "
            f"width of {requested.element_type.hlo_name} (initial state {state})"
        )
    bits = requested.with_element_type(unsigned)
    if state.is_array and state.layout is None:
        state = state.with_default_layout()
    return initial_state.builder.add_instruction(
        Op.RNG_BIT_GENERATOR, [initial_state], attributes={"algorithm": chosen},
        declared=Shape.tuple([state, bits]), op_name=op_name,
    )  # fmt: skip


__all__ = ["RngBitGenerator", "RngNormal", "RngUniform"]
