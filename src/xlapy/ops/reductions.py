"""Ops that apply a computation over their operands, and gather/scatter.

Reduce, ReduceWindow, SelectAndScatter, Map, Sort and Scatter call a scalar
computation (a reducer, a comparator, an update function): it may be an
``XlaComputation`` or a Python callable, traced here over scalar parameters of
the types the op will pass it, so that ``Reduce(x, 0.0, lambda a, b: a + b,
[0])`` works without building the adder by hand. Init values may be Python
numbers; they take the element type of the operand they initialise.

Signatures follow XLA's C++ free functions (xla_builder.h) with snake_case
keyword names; the windowed ops take ``Padding.SAME``/``Padding.VALID`` and
compute the (low, high) pairs as XLA's MakePadding does, or explicit pairs in
their ``...WithGeneralPadding`` forms. Shape inference checks the computation
signatures; this module only shapes the arguments into HLO operands and
attributes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, overload

from .. import computations as _computations
from ..builder import XlaBuilder, XlaComputation, XlaOp
from ..errors import InvalidArgumentError, UnimplementedError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..xla_data import (
    GatherDimensionNumbers,
    Padding,
    ScatterDimensionNumbers,
    Window,
    make_padding,
)
from ._support import as_op, broadcast_in_dim, builder_op, shape_of

# A called computation: built, or a Python function traced over scalar parameters.
Computation = XlaComputation | Callable[..., Any]

# -- argument helpers ------------------------------------------------------------------------


def _fail(op_name: str, message: str, operands: Sequence[Any]) -> NoReturn:
    """Raise with the same form as shape inference: op, problem, operand shapes."""
    shapes = ", ".join(
        str(shape_of(op)) if isinstance(op, XlaOp) else type(op).__name__ for op in operands
    )
    raise InvalidArgumentError(f"{op_name}: {message} (operand shapes: {shapes or 'none'})")


def _as_list(values: Any) -> list[Any]:
    """A sequence argument as a list; a lone value (an op, a number) as a list of one."""
    return list(values) if isinstance(values, (list, tuple)) else [values]


def _arrays(values: Any, what: str, op_name: str) -> list[XlaOp]:
    """``values`` (one op or a sequence of ops) as a non-empty list of array ops."""
    ops = _as_list(values)
    if not ops:
        raise InvalidArgumentError(f"{op_name}: needs at least one {what}")
    for i, op in enumerate(ops):
        if not isinstance(op, XlaOp):
            _fail(op_name, f"{what} {i} must be an XlaOp, got {type(op).__name__}", ops)
    for i, op in enumerate(ops):
        if not shape_of(op).is_array:
            _fail(op_name, f"{what} {i} must be an array, got {shape_of(op)}", ops)
    return ops


def _inits(init_values: Any, inputs: Sequence[XlaOp], op_name: str) -> list[XlaOp]:
    """One init value per input; Python numbers take the input's element type."""
    values = _as_list(init_values)
    if len(values) != len(inputs):
        _fail(
            op_name,
            f"got {len(inputs)} operand(s) but {len(values)} init value(s); give one init "
            f"value per operand",
            inputs,
        )
    builder = inputs[0].builder
    inits = [as_op(v, like, op_name, builder) for v, like in zip(values, inputs, strict=True)]
    for i, init in enumerate(inits):
        if not shape_of(init).is_array:
            _fail(op_name, f"init value {i} must be a scalar, got {shape_of(init)}", inputs)
    return inits


def _scalar(op: XlaOp) -> Shape:
    """The scalar parameter a called computation receives for ``op``'s elements."""
    return Shape.scalar(shape_of(op).element_type)


def _ints(values: Any, what: str, op_name: str, operands: Sequence[Any]) -> tuple[int, ...]:
    """A sequence of integers (a lone integer counts as a sequence of one).

    ``operator.index`` rejects floats: a dimension of 1.5 is a mistake, not 1.
    """
    try:
        return (operator.index(values),)
    except TypeError:
        pass
    try:
        return tuple(operator.index(v) for v in values)
    except TypeError:
        _fail(op_name, f"{what} must be a sequence of integers, got {values!r}", operands)


def _int(value: Any, what: str, op_name: str, operands: Sequence[Any]) -> int:
    try:
        return operator.index(value)
    except TypeError:
        _fail(op_name, f"{what} must be an integer, got {value!r}", operands)


def _flags(attributes: dict[str, Any], **flags: bool) -> dict[str, Any]:
    """Set the boolean attributes that are true: XLA's printer leaves out false ones."""
    attributes.update({name: True for name, value in flags.items() if value})
    return attributes


# -- Reduce ----------------------------------------------------------------------------------


def _reduce(
    builder: XlaBuilder,
    operands: Any,
    init_values: Any,
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    inputs = _arrays(operands, "operand", "Reduce")
    if inputs[0].builder is not builder:
        _fail("Reduce", f"the operands belong to builder {inputs[0].builder.name!r}", inputs)
    inits = _inits(init_values, inputs, "Reduce")
    dims = _ints(dimensions_to_reduce, "dimensions_to_reduce", "Reduce", inputs)
    to_apply = builder.computation_arg(
        computation,
        [_scalar(i) for i in inits] + [_scalar(x) for x in inputs],
        "Reduce",
        "computation",
    )
    return builder.add_instruction(
        Op.REDUCE,
        [*inputs, *inits],
        attributes={"dimensions": dims},
        computations={"to_apply": to_apply},
        op_name="Reduce",
    )


@overload
def Reduce(
    operand: XlaOp,
    init_value: Any,
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp: ...


@overload
def Reduce(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    init_values: Sequence[Any],
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp: ...


@builder_op("Reduce")
def Reduce(*args: Any, **kwargs: Any) -> XlaOp:
    """Fold ``dimensions_to_reduce`` away with ``computation`` (spec: Reduce).

    Two forms, as in C++: ``Reduce(operand, init_value, computation, dims)`` and
    the variadic ``Reduce(builder, operands, init_values, computation, dims)``,
    whose reducer takes N accumulators then N elements and returns a tuple of N
    (e.g. a joint max/argmax). The builder argument tells the forms apart.
    """
    if (args and isinstance(args[0], XlaBuilder)) or "builder" in kwargs:
        return _reduce_variadic(*args, **kwargs)
    return _reduce_single(*args, **kwargs)


def _reduce_single(
    operand: XlaOp,
    init_value: Any,
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    if not isinstance(operand, XlaOp):
        raise InvalidArgumentError(
            f"Reduce: operand must be an XlaOp, got {type(operand).__name__} (for several "
            "operands use Reduce(builder, operands, init_values, computation, dimensions))"
        )
    return _reduce(operand.builder, operand, init_value, computation, dimensions_to_reduce)


def _reduce_variadic(
    builder: XlaBuilder,
    operands: Sequence[XlaOp],
    init_values: Sequence[Any],
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    return _reduce(builder, operands, init_values, computation, dimensions_to_reduce)


@builder_op("ReduceAll")
def ReduceAll(operand: XlaOp, init_value: Any, computation: Computation) -> XlaOp:
    """Reduce every dimension, giving a scalar."""
    (operand,) = _arrays(operand, "operand", "ReduceAll")
    dims = tuple(range(shape_of(operand).rank))
    return _reduce(operand.builder, operand, init_value, computation, dims)


# -- windows ----------------------------------------------------------------------------------


def _padding_pairs(
    padding: Any, op_name: str, operands: Sequence[Any]
) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        _fail(
            op_name,
            f"padding must be a (low, high) pair of integers per dimension, got {padding!r}",
            operands,
        )
    return pairs


def _window(
    op_name: str,
    operands: Sequence[XlaOp],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]] | Padding | str,
    base_dilations: Sequence[int] | None = None,
    window_dilations: Sequence[int] | None = None,
) -> Window:
    """The HLO window of XlaBuilder's per-field arguments, checked argument by argument.

    ``Padding.SAME``/``VALID`` become (low, high) pairs for the operand's
    dimensions (XLA's MakePadding); empty dilation lists mean no dilation.
    """
    sizes = _ints(window_dimensions, "window_dimensions", op_name, operands)
    strides = _ints(window_strides, "window_strides", op_name, operands)
    rank = shape_of(operands[0]).rank
    if len(sizes) != rank:
        _fail(
            op_name,
            f"window_dimensions {list(sizes)} has {len(sizes)} entries but the operand has "
            f"rank {rank}; give one window size per operand dimension",
            operands,
        )
    fields: dict[str, tuple[int, ...]] = {"window_strides": strides}
    if base_dilations:
        fields["base_dilations"] = _ints(base_dilations, "base_dilations", op_name, operands)
    if window_dilations:
        fields["window_dilations"] = _ints(window_dilations, "window_dilations", op_name, operands)
    for name, values in fields.items():
        if len(values) != rank:
            _fail(
                op_name,
                f"{name} {list(values)} has {len(values)} entries but the window has {rank} "
                f"dimensions; give one per dimension",
                operands,
            )
    for name, values in {"window_dimensions": sizes, **fields}.items():
        for d, value in enumerate(values):
            if value < 1:
                _fail(op_name, f"{name}[{d}]={value} must be >= 1", operands)
    if isinstance(padding, (Padding, str)):
        try:
            kind = Padding(padding.upper() if isinstance(padding, str) else padding)
        except ValueError:
            _fail(
                op_name, f"padding must be Padding.SAME or Padding.VALID, got {padding!r}", operands
            )
        pairs = make_padding(shape_of(operands[0]).dimensions, sizes, strides, kind)
    else:
        pairs = _padding_pairs(padding, op_name, operands)
        if len(pairs) != rank:
            _fail(
                op_name,
                f"padding {[list(p) for p in pairs]} has {len(pairs)} (low, high) pairs but the "
                f"window has {rank} dimensions; give one pair per dimension",
                operands,
            )
    return Window.make(
        sizes,
        strides,
        pairs,
        fields.get("base_dilations"),
        fields.get("window_dilations"),
    )


def _explicit_padding(padding: Any, op_name: str, enum_form: str) -> None:
    """The general forms take pairs only, so that a SAME/VALID there is a visible mix-up."""
    if isinstance(padding, (Padding, str)):
        raise InvalidArgumentError(
            f"{op_name}: padding must be (low, high) pairs, one per dimension; for "
            f"{padding!r} use {enum_form}"
        )


def _reduce_window(
    op_name: str,
    operands: Any,
    init_values: Any,
    computation: Computation,
    window_args: dict[str, Any],
) -> XlaOp:
    inputs = _arrays(operands, "operand", op_name)
    inits = _inits(init_values, inputs, op_name)
    window = _window(op_name, inputs, **window_args)
    builder = inputs[0].builder
    to_apply = builder.computation_arg(
        computation,
        [_scalar(i) for i in inits] + [_scalar(x) for x in inputs],
        op_name,
        "computation",
    )
    return builder.add_instruction(
        Op.REDUCE_WINDOW,
        [*inputs, *inits],
        attributes={"window": window},
        computations={"to_apply": to_apply},
        op_name=op_name,
    )


@builder_op("ReduceWindow")
def ReduceWindow(
    operands: XlaOp | Sequence[XlaOp],
    init_values: Any,
    computation: Computation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding | str,
) -> XlaOp:
    """Reduce every window position (spec: ReduceWindow), e.g. max pooling.

    One operand and init value, or (as C++'s variadic overload) lists of N of
    each with a reducer returning a tuple of N; ``padding`` is Padding.SAME or
    Padding.VALID.
    """
    window_args = {
        "window_dimensions": window_dimensions,
        "window_strides": window_strides,
        "padding": padding,
    }
    return _reduce_window("ReduceWindow", operands, init_values, computation, window_args)


@builder_op("ReduceWindowWithGeneralPadding")
def ReduceWindowWithGeneralPadding(
    operands: XlaOp | Sequence[XlaOp],
    init_values: Any,
    computation: Computation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    base_dilations: Sequence[int],
    window_dilations: Sequence[int],
    padding: Sequence[tuple[int, int]],
) -> XlaOp:
    """ReduceWindow with explicit (low, high) padding and dilations (empty: none)."""
    _explicit_padding(padding, "ReduceWindowWithGeneralPadding", "ReduceWindow")
    window_args = {
        "window_dimensions": window_dimensions,
        "window_strides": window_strides,
        "padding": padding,
        "base_dilations": base_dilations,
        "window_dilations": window_dilations,
    }
    return _reduce_window(
        "ReduceWindowWithGeneralPadding", operands, init_values, computation, window_args
    )


def _select_and_scatter(
    op_name: str,
    operand: XlaOp,
    select: Computation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    source: XlaOp,
    init_value: Any,
    scatter: Computation,
) -> XlaOp:
    (operand,) = _arrays(operand, "operand", op_name)
    (source,) = _arrays(source, "source", op_name)
    builder = operand.builder
    init = as_op(init_value, source, op_name, builder)
    window = _window(op_name, [operand, source, init], window_dimensions, window_strides, padding)
    select_computation = builder.computation_arg(
        select, [_scalar(operand), _scalar(operand)], op_name, "select"
    )
    scatter_computation = builder.computation_arg(
        scatter, [_scalar(init), _scalar(source)], op_name, "scatter"
    )
    return builder.add_instruction(
        Op.SELECT_AND_SCATTER,
        [operand, source, init],
        attributes={"window": window},
        computations={"select": select_computation, "scatter": scatter_computation},
        op_name=op_name,
    )


@builder_op("SelectAndScatter")
def SelectAndScatter(
    operand: XlaOp,
    select: Computation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding | str,
    source: XlaOp,
    init_value: Any,
    scatter: Computation,
) -> XlaOp:
    """Scatter ``source`` to the element ``select`` picks in each window (spec).

    The gradient of max pooling: ``select`` is ``(T, T) -> pred`` (true keeps
    the first), ``scatter`` combines ``(output, source)`` values, and every
    output element starts at ``init_value``.
    """
    return _select_and_scatter(
        "SelectAndScatter",
        operand,
        select,
        window_dimensions,
        window_strides,
        padding,
        source,
        init_value,
        scatter,
    )


@builder_op("SelectAndScatterWithGeneralPadding")
def SelectAndScatterWithGeneralPadding(
    operand: XlaOp,
    select: Computation,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    source: XlaOp,
    init_value: Any,
    scatter: Computation,
) -> XlaOp:
    """SelectAndScatter with explicit (low, high) padding per dimension."""
    _explicit_padding(padding, "SelectAndScatterWithGeneralPadding", "SelectAndScatter")
    return _select_and_scatter(
        "SelectAndScatterWithGeneralPadding",
        operand,
        select,
        window_dimensions,
        window_strides,
        padding,
        source,
        init_value,
        scatter,
    )


# -- Map, Sort, TopK ---------------------------------------------------------------------------


@builder_op("Map")
def Map(
    builder: XlaBuilder,
    operands: Sequence[Any],
    computation: Computation,
    dimensions: Sequence[int] | None,
    static_operands: Sequence[XlaOp] = (),
) -> XlaOp:
    """Apply a scalar ``computation`` elementwise across ``operands`` (spec: Map).

    ``dimensions`` must be all of them in order (None: all). Scalar operands
    (and Python numbers) are broadcast to the others' shape first, as XLA's
    builder does. ``static_operands`` are unsupported, as in XLA.
    """
    if static_operands:
        raise UnimplementedError(
            "Map: static_operands are not supported (neither does XLA); use the values "
            "inside the computation instead"
        )
    values = _as_list(operands)
    if not values:
        raise InvalidArgumentError("Map: needs at least one operand")
    like = next((v for v in values if isinstance(v, XlaOp)), None)
    inputs = [as_op(v, like, "Map", builder) for v in values]
    inputs = _arrays(inputs, "operand", "Map")
    # The highest-rank operand gives the shape the scalars are broadcast to.
    target = max((shape_of(x) for x in inputs), key=lambda s: s.rank)
    inputs = [
        broadcast_in_dim(x, target.dimensions, [], "Map")
        if shape_of(x).rank == 0 and target.rank > 0
        else x
        for x in inputs
    ]
    if dimensions is None:
        dims = tuple(range(target.rank))
    else:
        dims = _ints(dimensions, "dimensions", "Map", inputs)
    to_apply = builder.computation_arg(
        computation, [_scalar(x) for x in inputs], "Map", "computation"
    )
    return builder.add_instruction(
        Op.MAP,
        inputs,
        attributes={"dimensions": dims},
        computations={"to_apply": to_apply},
        op_name="Map",
    )


@builder_op("Sort")
def Sort(
    operands: XlaOp | Sequence[XlaOp],
    comparator: Computation | None = None,
    dimension: int = -1,
    is_stable: bool = False,
) -> XlaOp:
    """Sort operands together along ``dimension`` (-1: the last) (spec: Sort).

    The comparator gets 2N scalars (parameters 2k and 2k+1 are operand k's two
    elements) and returns pred; None sorts ascending by the first operand in
    the total order, NaNs last (XLA's CreateScalarLtComputation). One operand
    gives an array, several a tuple.
    """
    inputs = _arrays(operands, "operand", "Sort")
    builder = inputs[0].builder
    dim = _int(dimension, "dimension", "Sort", inputs)
    if dim == -1:
        dim = shape_of(inputs[0]).rank - 1
    if comparator is None:
        comparator = _computations.lt([shape_of(x).element_type for x in inputs])
    to_apply = builder.computation_arg(
        comparator,
        [_scalar(x) for x in inputs for _ in range(2)],
        "Sort",
        "comparator",
    )
    return builder.add_instruction(
        Op.SORT,
        inputs,
        attributes=_flags({"dimensions": (dim,)}, is_stable=is_stable),
        computations={"to_apply": to_apply},
        op_name="Sort",
    )


@builder_op("TopK")
def TopK(operand: XlaOp, k: int, largest: bool = True) -> XlaOp:
    """The k largest (or smallest) along the last dimension: a (values, s32 indices) tuple.

    Ties keep the lower index first.
    """
    (operand,) = _arrays(operand, "operand", "TopK")
    return operand.builder.add_instruction(
        Op.TOPK,
        [operand],
        attributes={"k": _int(k, "k", "TopK", [operand]), "largest": bool(largest)},
        op_name="TopK",
    )


# -- Gather, Scatter -------------------------------------------------------------------------


def _index_op(indices: Any, like_builder: XlaBuilder, op_name: str) -> XlaOp:
    """Start or scatter indices; a numpy array or nested list becomes a constant."""
    return as_op(indices, None, op_name, like_builder)


@builder_op("Gather")
def Gather(
    input: XlaOp,  # noqa: A002  (XLA's name)
    start_indices: Any,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    indices_are_sorted: bool = False,
) -> XlaOp:
    """Stitch together slices of ``input`` at ``start_indices`` (spec: Gather).

    The dimension numbers become HLO's separate attributes (offset_dims,
    collapsed_slice_dims, start_index_map, index_vector_dim and the batching
    dimensions when there are any).
    """
    (operand,) = _arrays(input, "input", "Gather")
    indices = _index_op(start_indices, operand.builder, "Gather")
    operands = [operand, indices]
    if not isinstance(dimension_numbers, GatherDimensionNumbers):
        _fail(
            "Gather",
            f"dimension_numbers must be a GatherDimensionNumbers, got "
            f"{type(dimension_numbers).__name__}",
            operands,
        )
    dn = dimension_numbers
    attributes: dict[str, Any] = {
        "offset_dims": tuple(dn.offset_dims),
        "collapsed_slice_dims": tuple(dn.collapsed_slice_dims),
        "start_index_map": tuple(dn.start_index_map),
    }
    if dn.operand_batching_dims or dn.start_indices_batching_dims:
        attributes["operand_batching_dims"] = tuple(dn.operand_batching_dims)
        attributes["start_indices_batching_dims"] = tuple(dn.start_indices_batching_dims)
    attributes["index_vector_dim"] = dn.index_vector_dim
    attributes["slice_sizes"] = _ints(slice_sizes, "slice_sizes", "Gather", operands)
    _flags(attributes, indices_are_sorted=indices_are_sorted)
    return operand.builder.add_instruction(
        Op.GATHER, operands, attributes=attributes, op_name="Gather"
    )


@builder_op("Scatter")
def Scatter(
    input: XlaOp | Sequence[XlaOp],  # noqa: A002  (XLA's name)
    scatter_indices: Any,
    updates: XlaOp | Sequence[XlaOp],
    update_computation: Computation,
    dimension_numbers: ScatterDimensionNumbers,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
) -> XlaOp:
    """Combine ``updates`` into slices of ``input`` at ``scatter_indices`` (spec: Scatter).

    ``update_computation`` takes (current, update) scalars (N of each for N
    inputs) and returns the new value(s). One input gives an array; lists of
    N inputs and N updates (C++'s variadic overload) give a tuple.
    """
    inputs = _arrays(input, "input", "Scatter")
    builder = inputs[0].builder
    update_ops = _arrays(updates, "updates", "Scatter")
    indices = _index_op(scatter_indices, builder, "Scatter")
    operands = [*inputs, indices, *update_ops]
    if len(inputs) != len(update_ops):
        _fail(
            "Scatter",
            f"got {len(inputs)} input(s) but {len(update_ops)} updates; give one updates "
            f"array per input",
            operands,
        )
    if not isinstance(dimension_numbers, ScatterDimensionNumbers):
        _fail(
            "Scatter",
            f"dimension_numbers must be a ScatterDimensionNumbers, got "
            f"{type(dimension_numbers).__name__}",
            operands,
        )
    dn = dimension_numbers
    attributes: dict[str, Any] = {
        "update_window_dims": tuple(dn.update_window_dims),
        "inserted_window_dims": tuple(dn.inserted_window_dims),
        "scatter_dims_to_operand_dims": tuple(dn.scatter_dims_to_operand_dims),
    }
    if dn.input_batching_dims or dn.scatter_indices_batching_dims:
        attributes["input_batching_dims"] = tuple(dn.input_batching_dims)
        attributes["scatter_indices_batching_dims"] = tuple(dn.scatter_indices_batching_dims)
    attributes["index_vector_dim"] = dn.index_vector_dim
    _flags(attributes, indices_are_sorted=indices_are_sorted, unique_indices=unique_indices)
    to_apply = builder.computation_arg(
        update_computation,
        [_scalar(x) for x in inputs] + [_scalar(u) for u in update_ops],
        "Scatter",
        "update_computation",
    )
    return builder.add_instruction(
        Op.SCATTER,
        operands,
        attributes=attributes,
        computations={"to_apply": to_apply},
        op_name="Scatter",
    )


__all__ = [
    "Gather",
    "Map",
    "Reduce",
    "ReduceAll",
    "ReduceWindow",
    "ReduceWindowWithGeneralPadding",
    "Scatter",
    "SelectAndScatter",
    "SelectAndScatterWithGeneralPadding",
    "Sort",
    "TopK",
]
