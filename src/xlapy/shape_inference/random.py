"""Shape rules of the random-number ops: rng, rng-bit-generator, rng-get-and-update-state.

The data shapes are taken from the declared shape, as XLA takes them from the
instruction.
"""

from __future__ import annotations

from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import RandomAlgorithm, RandomDistribution
from ._core import InferenceContext, array_shape, rule
from .control import compatible

# -- random numbers ---------------------------------------------------------------------------


@rule(Op.RNG)
def _rng(ctx: InferenceContext) -> Shape:
    """Two scalar parameters of type T (a, b or mu, sigma); the dimensions are declared."""
    ctx.expect_operand_count(2)
    a, b = ctx.array(0, "first parameter"), ctx.array(1, "second parameter")
    distribution = RandomDistribution(ctx.attr("distribution"))
    if not (a.is_scalar and b.is_scalar):
        ctx.fail("both distribution parameters must be scalars")
    if a.element_type != b.element_type:
        ctx.fail("both distribution parameters must have the same element type")
    t = a.element_type
    if distribution is RandomDistribution.RNG_NORMAL and not t.is_float:
        ctx.fail(f"a normal distribution needs floating-point parameters, got {t.hlo_name}")
    if distribution is RandomDistribution.RNG_UNIFORM and not (
        t.is_float or t.is_integral or t.is_pred
    ):
        ctx.fail(
            f"a uniform distribution needs pred, integer or floating-point parameters, got {t.hlo_name}"
        )
    if distribution is RandomDistribution.RNG_INVALID:
        ctx.fail("distribution must be rng_uniform or rng_normal")
    out = ctx.declared_shape()
    if not out.is_array or out.element_type != t:
        ctx.fail(f"the result must be an array of the parameters' type {t.hlo_name}, got {out}")
    return array_shape(t, out.dimensions, out.dynamic_dimensions)


@rule(Op.RNG_BIT_GENERATOR)
def _rng_bit_generator(ctx: InferenceContext) -> Shape:
    """(new state, random bits): the state keeps its shape, the bits' shape is declared."""
    ctx.expect_operand_count(1)
    state = ctx.array(0, "initial state")
    if state.rank != 1 or not state.element_type.is_unsigned_integral:
        ctx.fail(
            f"the initial state must be a vector of unsigned integers (e.g. u64[2]), got {state}"
        )
    algorithm = RandomAlgorithm(ctx.attr("algorithm", RandomAlgorithm.RNG_DEFAULT))
    if state.element_type == PrimitiveType.U64:
        valid = {RandomAlgorithm.RNG_THREE_FRY: (2,), RandomAlgorithm.RNG_PHILOX: (2, 3)}
        sizes = valid.get(algorithm)
        if sizes is not None and state.dimensions[0] not in sizes:
            ctx.fail(
                f"{algorithm.name.lower()} needs a u64 state of {' or '.join(map(str, sizes))} "
                f"elements, got {state}"
            )
    out = ctx.declared_shape()
    parts = out.tuple_shapes if out.is_tuple else ()
    if len(parts) != 2 or not parts[1].is_array:
        ctx.fail(f"the result must be a (state, random bits) tuple, got {out}")
    if not compatible(parts[0], state):
        ctx.fail(f"the result's state {parts[0]} must have the initial state's shape {state}")
    if not parts[1].element_type.is_integral:
        ctx.fail(f"the random bits must have an integer element type, got {parts[1]}")
    return out


@rule(Op.RNG_GET_AND_UPDATE_STATE)
def _rng_get_and_update_state(ctx: InferenceContext) -> Shape:
    """The old 128-bit generator state, as u64[2]."""
    ctx.expect_operand_count(0)
    delta = ctx.attr("delta")  # how far the state advances; XLA always states it
    if not isinstance(delta, int):
        ctx.fail(f"delta must be an integer, got {delta!r}")
    return array_shape(PrimitiveType.U64, [2])
