"""``SelectAndScatterExpander``: select-and-scatter as a variadic reduce-window that finds
each window's selected position, then a scatter of the source values onto them.

Why: select-and-scatter offers each window's elements in row-major order; the
first one inside the operand is selected, and a later one replaces it when
``select(selected, candidate)`` is false. That is a fold over the window of
(value, position) pairs, position -1 standing for padding, which a
reduce-window with init ``(0, -1)`` performs (the CPU backend's reduce-window
folds each window sequentially in row-major order). The source values are then
combined into a result filled with ``init`` at the selected positions by a
scatter with the scatter computation, in source order; windows that selected
nothing (all padding) carry position -1, which the scatter skips as out of
bounds. Both steps have native kernels.
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...hlo.instruction import HloInstruction
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import ScatterDimensionNumbers
from ..rewrite import ExpanderPass, as_xla_computation, splice_computation

Op = HloOpcode
S64 = PrimitiveType.S64
SCATTER_ONE = ScatterDimensionNumbers(
    update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,),
    index_vector_dim=1,
)  # fmt: skip


def expansion(instruction: HloInstruction) -> XlaComputation | None:
    operand, source, init = instruction.operands
    window = instruction.window
    wds = list(window.dimensions) if window is not None else []
    if any(wd.window_dilation != 1 or wd.base_dilation != 1 for wd in wds):
        return None
    t = operand.shape.element_type
    dims = list(operand.shape.dimensions)
    out = list(source.shape.dimensions)
    n, m = math.prod(dims), math.prod(out)
    select = as_xla_computation(instruction.attribute("select"))
    combine = as_xla_computation(instruction.attribute("scatter"))
    b = XlaBuilder(f"{instruction.name}_expanded")
    x = ops.Parameter(b, 0, Shape.array(t, dims), "operand")
    values = ops.Parameter(b, 1, Shape.array(t, out), "source")
    fill = ops.Parameter(b, 2, Shape.array(t, []), "init")

    def fold(sv: XlaOp, sp: XlaOp, v: XlaOp, p: XlaOp) -> XlaOp:
        fb = sv.builder
        none = ops.ConstantR0(fb, -1, S64)
        inside = ops.Gt(p, none)
        have = ops.Gt(sp, none)
        keep = ops.Call(fb, select, [sv, v])
        take = ops.And(inside, ops.Or(ops.Not(have), ops.Not(keep)))
        return ops.Tuple(fb, [ops.Select(take, v, sv), ops.Select(take, p, sp)])

    positions = ops.Reshape(ops.Iota(b, Shape.array(S64, [n]), 0), dims)
    chosen = ops.ReduceWindowWithGeneralPadding(
        [x, positions],
        [ops.ConstantLiteral(b, Literal.scalar(0, t)), ops.ConstantR0(b, -1, S64)],
        fold,
        [wd.size for wd in wds],
        [wd.stride for wd in wds],
        [],
        [],
        [(wd.padding_low, wd.padding_high) for wd in wds],
    )
    where = ops.Reshape(ops.GetTupleElement(chosen, 1), [m, 1])
    scattered = ops.Scatter(
        ops.Broadcast(fill, [n]), where, ops.Reshape(values, [m]), combine, SCATTER_ONE
    )
    return b.build(ops.Reshape(scattered, dims))


def expand_select_and_scatter(instruction: HloInstruction) -> HloInstruction | None:
    if not instruction.shape.is_array:
        return None
    built = expansion(instruction)
    return None if built is None else splice_computation(instruction, built)


class SelectAndScatterExpander(ExpanderPass):
    name = "select-and-scatter-expander"
    opcodes = frozenset({Op.SELECT_AND_SCATTER})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_select_and_scatter(instruction)
