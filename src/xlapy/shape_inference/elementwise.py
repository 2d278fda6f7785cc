"""Shape rules of the elementwise ops, and the spec's broadcasting.

In HLO every elementwise operand already has the result's dimensions (scalar
predicates of select excepted); the implicit broadcasting of the spec
(spec/broadcasting.md) happens in the builder, which asks
:func:`broadcast_binary_shapes` for the result and inserts explicit
broadcasts. Element-type requirements follow XLA's ShapeInference. Map, an
elementwise op with a called computation, is checked here too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import InvalidArgumentError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ._core import InferenceContext, array_shape, rule


def _is_float(t: PrimitiveType) -> bool:
    return t.is_float


def _is_float_or_complex(t: PrimitiveType) -> bool:
    return t.is_float or t.is_complex


def _is_integral(t: PrimitiveType) -> bool:
    return t.is_integral


def _is_pred_or_integral(t: PrimitiveType) -> bool:
    return t.is_pred or t.is_integral


def _is_numeric(t: PrimitiveType) -> bool:
    return t.is_integral or t.is_float or t.is_complex


def _any(t: PrimitiveType) -> bool:
    return True


# opcode -> (accepted element types, their description, result type or None = same)
_UNARY: dict[Op, tuple[Callable[[PrimitiveType], bool], str]] = {
    Op.ABS: (_is_numeric, "integer, floating-point or complex"),
    Op.CBRT: (_is_float_or_complex, "floating-point or complex"),
    Op.CEIL: (_is_float, "floating-point"),
    Op.COUNT_LEADING_ZEROS: (_is_integral, "integer"),
    Op.COSINE: (_is_float_or_complex, "floating-point or complex"),
    Op.ERF: (_is_float, "floating-point"),
    Op.EXPONENTIAL: (_is_float_or_complex, "floating-point or complex"),
    Op.EXPONENTIAL_MINUS_ONE: (_is_float_or_complex, "floating-point or complex"),
    Op.FLOOR: (_is_float, "floating-point"),
    Op.IMAG: (_is_float_or_complex, "floating-point or complex"),
    Op.IS_FINITE: (_is_float, "floating-point"),
    Op.LOG: (_is_float_or_complex, "floating-point or complex"),
    Op.LOG_PLUS_ONE: (_is_float_or_complex, "floating-point or complex"),
    Op.LOGISTIC: (_is_float_or_complex, "floating-point or complex"),
    Op.NEGATE: (_is_numeric, "integer, floating-point or complex"),
    Op.NOT: (_is_pred_or_integral, "pred or integer"),
    Op.POPCNT: (_is_integral, "integer"),
    Op.REAL: (_is_float_or_complex, "floating-point or complex"),
    Op.ROUND_NEAREST_AFZ: (_is_float, "floating-point"),
    Op.ROUND_NEAREST_EVEN: (_is_float, "floating-point"),
    Op.RSQRT: (_is_float_or_complex, "floating-point or complex"),
    Op.SIGN: (_is_numeric, "integer, floating-point or complex"),
    Op.SINE: (_is_float_or_complex, "floating-point or complex"),
    Op.SQRT: (_is_float_or_complex, "floating-point or complex"),
    Op.TAN: (_is_float_or_complex, "floating-point or complex"),
    Op.TANH: (_is_float_or_complex, "floating-point or complex"),
    Op.ACOS: (_is_float_or_complex, "floating-point or complex"),
    Op.ACOSH: (_is_float_or_complex, "floating-point or complex"),
    Op.ASIN: (_is_float_or_complex, "floating-point or complex"),
    Op.ASINH: (_is_float_or_complex, "floating-point or complex"),
    Op.ATAN: (_is_float_or_complex, "floating-point or complex"),
    Op.ATANH: (_is_float_or_complex, "floating-point or complex"),
    Op.COSH: (_is_float_or_complex, "floating-point or complex"),
    Op.SINH: (_is_float_or_complex, "floating-point or complex"),
    Op.COPY: (_any, "any"),
}


def _unary_result_type(opcode: Op, t: PrimitiveType) -> PrimitiveType:
    if opcode == Op.IS_FINITE:
        return PrimitiveType.PRED
    if opcode in (Op.ABS, Op.REAL, Op.IMAG):
        return t.component_type
    return t


@rule(*_UNARY)
def _unary(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    if ctx.opcode == Op.COPY:  # copy also copies tuples and tokens
        return ctx.operands[0]
    x = ctx.array(0)
    accepts, description = _UNARY[ctx.opcode]
    ctx.element_type_is(x, accepts, description)
    return array_shape(
        _unary_result_type(ctx.opcode, x.element_type), x.dimensions, x.dynamic_dimensions
    )


# opcode -> (accepted element types, description)
_BINARY: dict[Op, tuple[Callable[[PrimitiveType], bool], str]] = {
    Op.ADD: (_any, "any"),
    Op.SUBTRACT: (_any, "any"),
    Op.MULTIPLY: (_any, "any"),
    Op.DIVIDE: (_any, "any"),
    Op.REMAINDER: (_any, "any"),
    Op.POWER: (_any, "any"),
    Op.MAXIMUM: (_any, "any"),
    Op.MINIMUM: (_any, "any"),
    Op.AND: (_is_pred_or_integral, "pred or integer"),
    Op.OR: (_is_pred_or_integral, "pred or integer"),
    Op.XOR: (_is_pred_or_integral, "pred or integer"),
    Op.SHIFT_LEFT: (_is_integral, "integer"),
    Op.SHIFT_RIGHT_ARITHMETIC: (_is_integral, "integer"),
    Op.SHIFT_RIGHT_LOGICAL: (_is_integral, "integer"),
    Op.ATAN2: (_is_float_or_complex, "floating-point or complex"),
    Op.COMPLEX: (lambda t: t in (PrimitiveType.F32, PrimitiveType.F64), "f32 or f64"),
    Op.COMPARE: (_any, "any"),
    Op.MULHI: (_is_integral, "integer"),
}

_COMPLEX_OF = {PrimitiveType.F32: PrimitiveType.C64, PrimitiveType.F64: PrimitiveType.C128}


@rule(*_BINARY)
def _binary(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    lhs, rhs = ctx.array(0, "lhs"), ctx.array(1, "rhs")
    if lhs.element_type != rhs.element_type:
        ctx.fail(
            f"operands must have the same element type, got {lhs.element_type.hlo_name} and "
            f"{rhs.element_type.hlo_name}; convert one of them first"
        )
    accepts, description = _BINARY[ctx.opcode]
    ctx.element_type_is(lhs, accepts, description)
    if lhs.dimensions != rhs.dimensions:
        ctx.fail(
            "operands must have the same dimensions in HLO "
            f"({list(lhs.dimensions)} vs {list(rhs.dimensions)}); broadcast explicitly"
        )
    dynamic = [a or b for a, b in zip(lhs.dynamic_dimensions, rhs.dynamic_dimensions, strict=True)]
    if ctx.opcode == Op.COMPARE:
        result_type = PrimitiveType.PRED
        _check_comparison_type(ctx, lhs.element_type)
    elif ctx.opcode == Op.COMPLEX:
        result_type = _COMPLEX_OF[lhs.element_type]
    else:
        result_type = lhs.element_type
    return array_shape(result_type, lhs.dimensions, dynamic)


def _check_comparison_type(ctx: InferenceContext, element_type: PrimitiveType) -> None:
    """A compare's optional type= must suit its operands (XLA's Comparison rules)."""
    ctype = ctx.attributes.get("type")
    if ctype is None:
        return
    name = getattr(ctype, "name", str(ctype)).upper()
    valid = {
        "FLOAT": element_type.is_float or element_type.is_complex,
        "TOTALORDER": element_type.is_float,
        "SIGNED": element_type.is_signed_integral,
        "UNSIGNED": element_type.is_unsigned_integral or element_type.is_pred,
    }.get(name)
    if valid is False:
        ctx.fail(f"comparison type {name} does not apply to {element_type.hlo_name} operands")


@rule(Op.SELECT)
def _select(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(3)
    pred, on_true, on_false = ctx.operands
    if not on_true.compatible(on_false):
        ctx.fail(f"on_true {on_true} and on_false {on_false} must have the same shape")
    if not pred.is_array or pred.element_type != PrimitiveType.PRED:
        ctx.fail(f"the predicate must be a pred array, got {pred}")
    if not on_true.is_array:
        if not pred.is_scalar:
            ctx.fail("selecting between tuples needs a scalar predicate")
        return on_true
    if not pred.is_scalar and pred.dimensions != on_true.dimensions:
        ctx.fail(
            f"the predicate's dimensions {list(pred.dimensions)} must equal the operands' "
            f"{list(on_true.dimensions)} (or the predicate must be a scalar)"
        )
    return array_shape(on_true.element_type, on_true.dimensions, on_true.dynamic_dimensions)


@rule(Op.CLAMP)
def _clamp(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(3)
    lo, x, hi = ctx.array(0, "min"), ctx.array(1, "operand"), ctx.array(2, "max")
    for bound, what in ((lo, "min"), (hi, "max")):
        if bound.element_type != x.element_type:
            ctx.fail(
                f"{what} has element type {bound.element_type.hlo_name}, operand has "
                f"{x.element_type.hlo_name}; they must match"
            )
        if not bound.is_scalar and bound.dimensions != x.dimensions:
            ctx.fail(
                f"{what} must be a scalar or have the operand's dimensions "
                f"{list(x.dimensions)}, got {list(bound.dimensions)}"
            )
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


@rule(Op.CONVERT, Op.STOCHASTIC_CONVERT)
def _convert(ctx: InferenceContext) -> Shape:
    x = ctx.array(0)
    target = ctx.declared_shape().element_type
    if ctx.opcode == Op.STOCHASTIC_CONVERT:
        ctx.expect_operand_count(2)
        random = ctx.array(1, "random bits")
        if random.dimensions != x.dimensions or not random.element_type.is_unsigned_integral:
            ctx.fail("random bits must be an unsigned integer array of the operand's dimensions")
    else:
        ctx.expect_operand_count(1)
    if not target.is_array_type:
        ctx.fail(f"cannot convert to {target.hlo_name}")
    if x.element_type.is_complex and not target.is_complex:
        ctx.fail(
            f"cannot convert complex {x.element_type.hlo_name} to {target.hlo_name}; "
            "take real() or imag() first"
        )
    return array_shape(target, x.dimensions, x.dynamic_dimensions)


@rule(Op.BITCAST_CONVERT)
def _bitcast_convert(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    target = ctx.declared_shape().element_type
    src_bits, dst_bits = x.element_type.bit_width, target.bit_width
    if not target.is_array_type or target.is_pred or x.element_type.is_pred:
        ctx.fail(
            f"cannot bitcast-convert {x.element_type.hlo_name} to {target.hlo_name}; "
            "pred takes part in no bitcast"
        )
    dims = list(x.dimensions)
    if src_bits == dst_bits:
        return array_shape(target, dims, x.dynamic_dimensions)
    if src_bits > dst_bits:
        if src_bits % dst_bits:
            ctx.fail(f"bit widths {src_bits} and {dst_bits} do not divide")
        return array_shape(target, dims + [src_bits // dst_bits])
    ratio = dst_bits // src_bits
    if dst_bits % src_bits or not dims or dims[-1] != ratio:
        ctx.fail(
            f"converting {src_bits}-bit to {dst_bits}-bit elements needs a last dimension of "
            f"size {dst_bits // max(src_bits, 1)}, got {list(dims)}"
        )
    return array_shape(target, dims[:-1])


@rule(Op.REDUCE_PRECISION)
def _reduce_precision(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    ctx.element_type_is(x, _is_float, "floating-point")
    exponent, mantissa = int(ctx.attr("exponent_bits")), int(ctx.attr("mantissa_bits"))
    if exponent < 1:
        ctx.fail(f"exponent_bits must be >= 1, got {exponent}")
    if mantissa < 0:
        ctx.fail(f"mantissa_bits must be >= 0, got {mantissa}")
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


def _as_sequence(value: object, fail: object) -> Sequence[object]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        fail(f"broadcast_dimensions must be a sequence of dimension numbers, got {value!r}")  # type: ignore[operator]
    if hasattr(value, "ndim") and getattr(value, "ndim", 1) != 1:
        fail(f"broadcast_dimensions must be one list of dimension numbers, got {value!r}")  # type: ignore[operator]
    return value  # type: ignore[return-value]


def broadcast_binary_shapes(
    op_name: str,
    lhs: Shape,
    rhs: Shape,
    broadcast_dimensions: Sequence[int] | None = None,
) -> tuple[list[int], list[int], list[int]]:
    """The spec's implicit broadcasting for a binary op (spec/broadcasting.md).

    Returns the result dimensions and, for each operand, the dimensions of the
    result its dimensions map to (the ``dimensions`` of a broadcast that brings
    it to the result; sizes of 1 map to degenerate broadcasts). Scalars always
    broadcast; other rank differences need ``broadcast_dimensions`` (strictly
    increasing, sizes matching or 1); same-rank size-1 dimensions broadcast.
    """

    def fail(message: str) -> None:
        raise InvalidArgumentError(f"{op_name}: {message} (operand shapes: {lhs}, {rhs})")

    if not lhs.is_array or not rhs.is_array:
        fail("both operands must be arrays")
    small, large, swapped = (lhs, rhs, False) if lhs.rank <= rhs.rank else (rhs, lhs, True)
    if broadcast_dimensions is not None and len(_as_sequence(broadcast_dimensions, fail)):
        try:
            bdims = [int(d) for d in broadcast_dimensions]
        except (TypeError, ValueError):
            fail(
                f"broadcast_dimensions must be a sequence of dimension numbers, "
                f"got {broadcast_dimensions!r}"
            )
        if small.rank == large.rank:
            if bdims != list(range(large.rank)):
                fail(f"broadcast_dimensions {bdims} must be the identity when the ranks are equal")
        elif len(bdims) != small.rank:
            fail(
                f"broadcast_dimensions {bdims} must have one entry per dimension of the "
                f"lower-rank operand (rank {small.rank})"
            )
        for i in range(1, len(bdims)):
            if bdims[i] <= bdims[i - 1]:
                fail(f"broadcast_dimensions {bdims} must be strictly increasing")
        for i, d in enumerate(bdims):
            if not 0 <= d < large.rank:
                fail(f"broadcast_dimensions {bdims} has {d}, outside [0, {large.rank})")
            a, b = small.dimensions[i], large.dimensions[d]
            if a != b and a != 1 and b != 1:
                fail(
                    f"dimension {i} of size {a} cannot broadcast to dimension {d} of size {b}; "
                    "sizes must match or one must be 1"
                )
    elif small.rank == large.rank or small.rank == 0:
        bdims = list(range(large.rank - small.rank, large.rank)) if small.rank else []
    else:
        fail(
            f"ranks {lhs.rank} and {rhs.rank} differ: give broadcast_dimensions mapping the "
            f"rank-{small.rank} operand's dimensions into the rank-{large.rank} one"
        )
    result = list(large.dimensions)
    for i, d in enumerate(bdims):
        a, b = small.dimensions[i], large.dimensions[d]
        if a != b and a != 1 and b != 1:
            fail(
                f"dimensions {list(lhs.dimensions)} and {list(rhs.dimensions)} are not "
                f"compatible at dimension {d}: sizes {a} and {b} (must match or be 1)"
            )
        result[d] = b if a == 1 else a
    small_map, large_map = bdims, list(range(large.rank))
    return (result, large_map, small_map) if swapped else (result, small_map, large_map)


# -- map ------------------------------------------------------------------------------


@rule(Op.MAP)
def _map(ctx: InferenceContext) -> Shape:
    arrays = ctx.same_dimension_arrays()
    first = arrays[0]
    dims = ctx.int_list("dimensions", list(range(first.rank)))
    if dims != list(range(first.rank)):
        ctx.fail(
            f"dimensions {dims} must be every operand dimension in order, "
            f"{list(range(first.rank))}; map over a subset of dimensions is not supported"
        )
    fn = ctx.computation("to_apply")
    if len(fn.parameters) != len(arrays):
        ctx.fail(
            f"to_apply takes {len(fn.parameters)} parameters but the map has {len(arrays)} "
            f"operands; it must take one scalar per operand (signature {fn})"
        )
    if not fn.result.is_scalar:
        ctx.fail(f"to_apply must return a scalar, but has signature {fn}")
    for i, (param, x) in enumerate(zip(fn.parameters, arrays, strict=True)):
        if not param.compatible(Shape.scalar(x.element_type)):
            ctx.fail(
                f"to_apply parameter {i} is {param}; it must be {x.element_type.hlo_name}[] to "
                f"take the elements of operand {i} (signature {fn})"
            )
    return array_shape(fn.result.element_type, first.dimensions, first.dynamic_dimensions)
