"""Shape rules of the ops that call a scalar computation over their operands.

Reduce, reduce-window, select-and-scatter, sort and top-k (map, elementwise, is
in ``elementwise``). Their result
shapes are simple; what makes them worth a module is checking the called
computation's signature against the operands, since a reducer or comparator
of the wrong arity or type is the usual way to build an op that only fails
much later (in the evaluator or a backend). The checks follow XLA's
ShapeInference (VerifyReducerShape, InferWindowOutputShape) and the HLO
verifier; element types may differ in floating-point precision where XLA
allows it (a bf16 input reduced by an f32 reducer), and the result then takes
the reducer's types, as StableHLO's promotable reductions do.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..opcode import HloOpcode as Op
from ..shape import UNBOUNDED_SIZE, ProgramShape, Shape
from ..types import PrimitiveType
from ..xla_data import Window, WindowDimension
from ._core import InferenceContext, array_shape, rule


def _scalar(element_type: PrimitiveType) -> Shape:
    return Shape.scalar(element_type)


def _split_inputs_and_inits(ctx: InferenceContext) -> tuple[list[Shape], list[Shape]]:
    """The N arrays and N init values of a (possibly variadic) reduction."""
    count = len(ctx.operands)
    if count < 2 or count % 2:
        ctx.fail(
            f"takes N inputs followed by N init values (an even number >= 2 of operands), "
            f"got {count}"
        )
    n = count // 2
    inputs = [ctx.array(i, "input") for i in range(n)]
    inits = [ctx.array(n + i, "init value") for i in range(n)]
    ctx.check_same_dimensions(inputs, "input")
    for i, init in enumerate(inits):
        if not init.is_scalar:
            ctx.fail(f"init value {i} must be a scalar, got {init}")
    return inputs, inits


def check_reducer(
    ctx: InferenceContext,
    reducer: ProgramShape,
    init_values: Sequence[Shape],
    input_types: Sequence[PrimitiveType],
    what: str = "to_apply",
) -> list[PrimitiveType]:
    """Check a reducer of N inputs; return its accumulator (result) element types.

    The reducer takes N accumulators then N input elements, all scalars, and
    returns the N accumulators (a tuple when N > 1). Accumulators must match
    the parameters exactly; init values and input elements may differ from
    them in floating-point precision only (XLA's VerifyReducerShape).
    """
    n = len(init_values)
    if len(reducer.parameters) != 2 * n:
        ctx.fail(
            f"{what} must take {2 * n} scalar parameters ({n} accumulator"
            f"{'s' if n > 1 else ''} then {n} input element{'s' if n > 1 else ''}), "
            f"but has signature {reducer}"
        )
    result = reducer.result
    if result.is_array:
        if n != 1:
            ctx.fail(f"{what} must return a tuple of {n} scalars, but has signature {reducer}")
        accumulators = [result]
    elif result.is_tuple:
        accumulators = list(result.tuple_shapes)
        if len(accumulators) != n:
            ctx.fail(
                f"{what} must return {n} scalar{'s' if n > 1 else ''}, but returns a tuple of "
                f"{len(accumulators)} (signature {reducer})"
            )
    else:
        ctx.fail(f"{what} must return a scalar or a tuple of scalars, got {result}")
    for acc in accumulators:
        if not acc.is_scalar:
            ctx.fail(f"{what} must return scalars, but has signature {reducer}")
    for i, acc in enumerate(accumulators):
        param = reducer.parameters[i]
        if not acc.compatible(param):
            ctx.fail(
                f"{what} parameter {i} is {param} but its result {i} (the accumulator) is "
                f"{acc}; they must be the same (signature {reducer})"
            )
        if not acc.compatible_ignoring_fp_precision(init_values[i]):
            ctx.fail(
                f"init value {i} is {init_values[i]} but {what} accumulates {acc}; the init "
                f"value must have the accumulator's type"
            )
        element = reducer.parameters[n + i]
        expected = _scalar(input_types[i])
        if not expected.compatible_ignoring_fp_precision(element):
            ctx.fail(
                f"{what} parameter {n + i} is {element} but input {i} has element type "
                f"{input_types[i].hlo_name}; it must be {expected} (signature {reducer})"
            )
        if not acc.compatible_ignoring_fp_precision(element):
            ctx.fail(
                f"{what} parameter {n + i} is {element} but accumulator {i} is {acc}; they "
                f"must agree (up to floating-point precision)"
            )
    return [acc.element_type for acc in accumulators]


def _collate(reducer: ProgramShape, shapes: list[Shape]) -> Shape:
    """A tuple exactly when the reducer returns one (N > 1, or a 1-tuple as XLA allows)."""
    return shapes[0] if reducer.result.is_array else Shape.tuple(shapes)


@rule(Op.REDUCE)
def _reduce(ctx: InferenceContext) -> Shape:
    inputs, inits = _split_inputs_and_inits(ctx)
    first = inputs[0]
    dims = ctx.int_list("dimensions")
    ctx.check_dimension_numbers(dims, first.rank, "dimensions")
    reducer = ctx.computation("to_apply")
    types = check_reducer(ctx, reducer, inits, [x.element_type for x in inputs])
    kept = [d for d in range(first.rank) if d not in dims]
    sizes = [first.dimensions[d] for d in kept]
    dynamic = [first.dynamic_dimensions[d] for d in kept]
    return _collate(reducer, [array_shape(t, sizes, dynamic) for t in types])


# -- windows -------------------------------------------------------------------


def dilated_bound(bound: int, dilation: int) -> int:
    """Size of a dimension with ``dilation - 1`` holes between elements."""
    return 0 if bound == 0 else (bound - 1) * dilation + 1


def strided_bound(bound: int, window: int, stride: int) -> int:
    """Number of window positions, ``stride`` apart, that fit in ``bound``."""
    if bound <= 0 or window > bound:
        return 0
    return (bound - window) // stride + 1


def window_output_dims(ctx: InferenceContext, base: Shape, window: object) -> list[int]:
    """The result dimensions of sliding ``window`` over ``base`` (XLA's window formula).

    Each base dimension is dilated, then padded; the window is dilated; the
    result counts the strided positions where the whole window fits.
    """
    if not isinstance(window, Window):
        ctx.fail(f"attribute window must be a Window, got {window!r}")
    if len(window.dimensions) != base.rank:
        ctx.fail(
            f"the window has {len(window.dimensions)} dimensions but the operand has rank "
            f"{base.rank}; give one window dimension per operand dimension"
        )
    out = []
    for i, (size, wd) in enumerate(zip(base.dimensions, window.dimensions, strict=True)):
        _check_window_dimension(ctx, i, wd)
        if size == UNBOUNDED_SIZE:  # an unknown size gives an unknown number of windows
            out.append(UNBOUNDED_SIZE)
            continue
        padded = wd.padding_low + dilated_bound(size, wd.base_dilation) + wd.padding_high
        if padded < 0:
            ctx.fail(
                f"window dimension {i}: padding ({wd.padding_low}, {wd.padding_high}) removes "
                f"more than the {dilated_bound(size, wd.base_dilation)} elements of the "
                f"(dilated) operand dimension; negative padding may at most empty it"
            )
        out.append(strided_bound(padded, dilated_bound(wd.size, wd.window_dilation), wd.stride))
    return out


def _check_window_dimension(ctx: InferenceContext, i: int, wd: WindowDimension) -> None:
    for name in ("size", "stride", "base_dilation", "window_dilation"):
        value = getattr(wd, name)
        if value < 1:
            ctx.fail(f"window dimension {i} has {name} {value}; it must be >= 1")


@rule(Op.REDUCE_WINDOW)
def _reduce_window(ctx: InferenceContext) -> Shape:
    inputs, inits = _split_inputs_and_inits(ctx)
    first = inputs[0]
    sizes = window_output_dims(ctx, first, ctx.attr("window"))
    reducer = ctx.computation("to_apply")
    types = check_reducer(ctx, reducer, inits, [x.element_type for x in inputs])
    dynamic = list(first.dynamic_dimensions)
    return _collate(reducer, [array_shape(t, sizes, dynamic) for t in types])


@rule(Op.SELECT_AND_SCATTER)
def _select_and_scatter(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(3)
    operand = ctx.array(0, "operand")
    source = ctx.array(1, "source")
    init = ctx.array(2, "init value")
    if not init.is_scalar:
        ctx.fail(f"the init value must be a scalar, got {init}")
    window = ctx.attr("window")
    sizes = window_output_dims(ctx, operand, window)
    for i, wd in enumerate(window.dimensions):
        if wd.base_dilation != 1 or wd.window_dilation != 1:
            ctx.fail(
                f"window dimension {i} is dilated (lhs {wd.base_dilation}, rhs "
                f"{wd.window_dilation}); select-and-scatter windows take no dilation"
            )

    element = _scalar(operand.element_type)
    select = ctx.computation("select")
    if len(select.parameters) != 2:
        ctx.fail(f"select must take 2 parameters, but has signature {select}")
    if not select.result.compatible(_scalar(PrimitiveType.PRED)):
        ctx.fail(f"select must return pred[], but has signature {select}")
    for i, param in enumerate(select.parameters):
        if not element.compatible_ignoring_fp_precision(param):
            ctx.fail(
                f"select parameter {i} is {param}; it must be the operand's element type "
                f"{element} (signature {select})"
            )

    check_reducer(ctx, ctx.computation("scatter"), [init], [source.element_type], "scatter")

    if source.dimensions != tuple(sizes):
        ctx.fail(
            f"the source has dimensions {list(source.dimensions)} but the window yields "
            f"{sizes} positions over the operand; the source needs one value per window"
        )
    if not element.compatible_ignoring_fp_precision(_scalar(source.element_type)):
        ctx.fail(
            f"the source has element type {source.element_type.hlo_name}, the operand "
            f"{operand.element_type.hlo_name}; they must match"
        )
    return array_shape(operand.element_type, operand.dimensions, operand.dynamic_dimensions)


# -- sort, top-k ------------------------------------------------------------


@rule(Op.SORT)
def _sort(ctx: InferenceContext) -> Shape:
    arrays = ctx.same_dimension_arrays(note=" (element types may differ)")
    first = arrays[0]
    dims = ctx.int_list("dimensions")
    if len(dims) != 1:
        ctx.fail(f"dimensions must name the one dimension to sort along, got {dims}")
    ctx.check_dimension_numbers(dims, first.rank, "dimensions")

    comparator = ctx.computation("to_apply")
    n = len(arrays)
    if len(comparator.parameters) != 2 * n:
        ctx.fail(
            f"the comparator must take {2 * n} scalar parameters (two per operand), but has "
            f"signature {comparator}"
        )
    if not comparator.result.compatible(_scalar(PrimitiveType.PRED)):
        ctx.fail(f"the comparator must return pred[], but has signature {comparator}")
    for i, param in enumerate(comparator.parameters):
        expected = _scalar(arrays[i // 2].element_type)
        if not expected.compatible_ignoring_fp_precision(param):
            ctx.fail(
                f"comparator parameter {i} is {param}; it must be {expected}, the element type "
                f"of operand {i // 2} (signature {comparator})"
            )
    results = [array_shape(x.element_type, x.dimensions, x.dynamic_dimensions) for x in arrays]
    return results[0] if n == 1 else Shape.tuple(results)


@rule(Op.TOPK)
def _topk(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    if x.rank < 1:
        ctx.fail("the operand must have at least one dimension; top-k works along the last")
    if x.element_type.is_complex:
        ctx.fail(f"{x.element_type.hlo_name} values have no order to take the top k of")
    k = int(ctx.attr("k"))
    last = x.dimensions[-1]
    if not 0 <= k <= last:
        ctx.fail(f"k={k} must be in [0, {last}], the size of the operand's last dimension")
    sizes = [*x.dimensions[:-1], k]
    dynamic = [*x.dynamic_dimensions[:-1], False]
    return Shape.tuple(
        [
            array_shape(x.element_type, sizes, dynamic),
            array_shape(PrimitiveType.S32, sizes, dynamic),
        ]
    )
