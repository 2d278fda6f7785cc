"""Ops that apply a computation over their operands: reduce, windows, sort, top-k.

Reduce, ReduceWindow, SelectAndScatter and Sort call a scalar computation (a
reducer, a comparator): it may be an ``XlaComputation`` or a Python callable,
traced over scalar parameters of the types the op will pass it, so that ``Reduce(x, 0.0, lambda a, b: a + b,
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

import functools
import operator
import threading
from collections.abc import Sequence
from typing import Any, overload

from ..builder import XlaBuilder, XlaComputation, XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import (
    Padding,
    Window,
    make_padding,
)
from ._support import (
    Computation,
    array_ops,
    as_list,
    as_op,
    fail,
    index_list,
    index_value,
    scalar_parameter,
    set_flags,
)
from .elementwise import Gt, GtTotalOrder, Lt, LtTotalOrder
from .movement import Parameter

# -- argument helpers ------------------------------------------------------------------------


def _inits(init_values: Any, inputs: Sequence[XlaOp], op_name: str) -> list[XlaOp]:
    """One init value per input; Python numbers take the input's element type."""
    values = as_list(init_values)
    if len(values) != len(inputs):
        fail(
            op_name,
            f"got {len(inputs)} operand(s) but {len(values)} init value(s); give one init "
            f"value per operand",
            inputs,
        )
    builder = inputs[0].builder
    inits = [as_op(v, like, op_name, builder) for v, like in zip(values, inputs, strict=True)]
    for i, init in enumerate(inits):
        if not shape_of(init).is_array:
            fail(op_name, f"init value {i} must be a scalar, got {shape_of(init)}", inputs)
    return inits


# -- Reduce ----------------------------------------------------------------------------------


def _reduce(
    builder: XlaBuilder,
    operands: Any,
    init_values: Any,
    computation: Computation,
    dimensions_to_reduce: Sequence[int],
) -> XlaOp:
    inputs = array_ops(operands, "operand", "Reduce")
    if inputs[0].builder is not builder:
        fail("Reduce", f"the operands belong to builder {inputs[0].builder.name!r}", inputs)
    inits = _inits(init_values, inputs, "Reduce")
    dims = index_list(dimensions_to_reduce, "dimensions_to_reduce", "Reduce", inputs)
    to_apply = builder.computation_arg(
        computation,
        [scalar_parameter(i) for i in inits] + [scalar_parameter(x) for x in inputs],
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
    (operand,) = array_ops(operand, "operand", "ReduceAll")
    dims = tuple(range(shape_of(operand).rank))
    return _reduce(operand.builder, operand, init_value, computation, dims)


# -- windows ----------------------------------------------------------------------------------


def _padding_pairs(
    padding: Any, op_name: str, operands: Sequence[Any]
) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        fail(
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
    sizes = index_list(window_dimensions, "window_dimensions", op_name, operands)
    strides = index_list(window_strides, "window_strides", op_name, operands)
    rank = shape_of(operands[0]).rank
    if len(sizes) != rank:
        fail(
            op_name,
            f"window_dimensions {list(sizes)} has {len(sizes)} entries but the operand has "
            f"rank {rank}; give one window size per operand dimension",
            operands,
        )
    fields: dict[str, tuple[int, ...]] = {"window_strides": strides}
    if base_dilations:
        fields["base_dilations"] = index_list(base_dilations, "base_dilations", op_name, operands)
    if window_dilations:
        fields["window_dilations"] = index_list(window_dilations, "window_dilations", op_name, operands)
    for name, values in fields.items():
        if len(values) != rank:
            fail(
                op_name,
                f"{name} {list(values)} has {len(values)} entries but the window has {rank} "
                f"dimensions; give one per dimension",
                operands,
            )
    for name, values in {"window_dimensions": sizes, **fields}.items():
        for d, value in enumerate(values):
            if value < 1:
                fail(op_name, f"{name}[{d}]={value} must be >= 1", operands)
    if isinstance(padding, (Padding, str)):
        try:
            kind = Padding(padding.upper() if isinstance(padding, str) else padding)
        except ValueError:
            fail(
                op_name, f"padding must be Padding.SAME or Padding.VALID, got {padding!r}", operands
            )
        pairs = make_padding(shape_of(operands[0]).dimensions, sizes, strides, kind)
    else:
        pairs = _padding_pairs(padding, op_name, operands)
        if len(pairs) != rank:
            fail(
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
    inputs = array_ops(operands, "operand", op_name)
    inits = _inits(init_values, inputs, op_name)
    window = _window(op_name, inputs, **window_args)
    builder = inputs[0].builder
    to_apply = builder.computation_arg(
        computation,
        [scalar_parameter(i) for i in inits] + [scalar_parameter(x) for x in inputs],
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
    (operand,) = array_ops(operand, "operand", op_name)
    (source,) = array_ops(source, "source", op_name)
    builder = operand.builder
    init = as_op(init_value, source, op_name, builder)
    window = _window(op_name, [operand, source, init], window_dimensions, window_strides, padding)
    select_computation = builder.computation_arg(
        select, [scalar_parameter(operand), scalar_parameter(operand)], op_name, "select"
    )
    scatter_computation = builder.computation_arg(
        scatter, [scalar_parameter(init), scalar_parameter(source)], op_name, "scatter"
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


# -- Sort, TopK ---------------------------------------------------------------------------


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
    inputs = array_ops(operands, "operand", "Sort")
    builder = inputs[0].builder
    dim = index_value(dimension, "dimension", "Sort", inputs)
    if dim == -1:
        dim = shape_of(inputs[0]).rank - 1
    if comparator is None:
        comparator = sort_comparator("lt", tuple(shape_of(x).element_type for x in inputs))
    to_apply = builder.computation_arg(
        comparator,
        [scalar_parameter(x) for x in inputs for _ in range(2)],
        "Sort",
        "comparator",
    )
    return builder.add_instruction(
        Op.SORT,
        inputs,
        attributes=set_flags({"dimensions": (dim,)}, is_stable=is_stable),
        computations={"to_apply": to_apply},
        op_name="Sort",
    )


# Sort's default comparator, shared with xlapy.computations.lt/gt (which build on
# this module): one cached computation per (direction, element types), built under
# a lock so that every caller gets the same object and a builder embeds it once.
_comparator_lock = threading.Lock()


def sort_comparator(name: str, element_types: tuple[PrimitiveType, ...]) -> XlaComputation:
    """XLA's CreateScalarLtComputation (``name`` "lt") or Gt: 2N scalar parameters,
    ordered by the first operand only, floats in the total order (NaNs last)."""
    with _comparator_lock:
        return _cached_comparator(name, element_types)


@functools.cache
def _cached_comparator(name: str, element_types: tuple[PrimitiveType, ...]) -> XlaComputation:
    first = element_types[0]
    if first.is_complex:
        raise InvalidArgumentError(
            f"computations.{name}: {first.hlo_name} values have no order to sort by"
        )
    builder = XlaBuilder(f"compare_{name}_" + "_".join(t.hlo_name for t in element_types))
    builder.set_die_immediately_on_error(True)
    params = []
    for i, element_type in enumerate(element_types):
        scalar = Shape.scalar(element_type)
        params.append(Parameter(builder, 2 * i, scalar, f"p{i}_lhs"))
        params.append(Parameter(builder, 2 * i + 1, scalar, f"p{i}_rhs"))
    # Floats compare in the total order -NaN < -Inf < ... < -0 < 0 < ... < Inf < NaN,
    # so that a sort puts NaNs last instead of scrambling the order around them;
    # TOTALORDER does not apply to other types, whose natural order is total already.
    if first.is_float:
        fn = LtTotalOrder if name == "lt" else GtTotalOrder
    else:
        fn = Lt if name == "lt" else Gt
    return builder.build(fn(params[0], params[1]))


@builder_op("TopK")
def TopK(operand: XlaOp, k: int, largest: bool = True) -> XlaOp:
    """The k largest (or smallest) along the last dimension: a (values, s32 indices) tuple.

    Ties keep the lower index first.
    """
    (operand,) = array_ops(operand, "operand", "TopK")
    return operand.builder.add_instruction(
        Op.TOPK,
        [operand],
        attributes={"k": index_value(k, "k", "TopK", [operand]), "largest": bool(largest)},
        op_name="TopK",
    )


__all__ = [
    "Reduce",
    "ReduceAll",
    "ReduceWindow",
    "ReduceWindowWithGeneralPadding",
    "SelectAndScatter",
    "SelectAndScatterWithGeneralPadding",
    "Sort",
    "TopK",
]
