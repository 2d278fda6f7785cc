"""``RaggedDotExpander`` and ``ScaledDotExpander``: ragged-dot as masked dots and
scaled-dot as scaling multiplies and a dot, for backends with a dot but neither of
these (the CPU backend).

Why: a ragged dot is, group by group, an ordinary dot of the rows (or the part
of the contracting dimension) that belong to the group. With masks built from
the cumulative group sizes (an iota compared against each group's start and
end), each group is ``dot(select(mask, lhs, 0), rhs_of_group)``:

* non-contracting ragged dimension: the groups' dots (each with its own rhs
  matrix) are summed; each row is in at most one group, so the sum adds exact
  zeros and rows in no group stay zero;
* contracting: the groups' dots are stacked along a new leading dimension;
* batch: the plain dot.

The products accumulate in the type the interpreter uses (f32 for narrower
floats, f64 with an f64 operand, s64 for integers, complex when complex) and
are converted to the result type once, so the result is the interpreter's.

A scaled dot multiplies each operand, in f32, by its scale repeated along
every dimension that the scale divides (a broadcast into a new minor dimension
and a reshape), then takes the dot in f32 (f64 for an f64 result), as the
interpreter does.

Each expansion is built with the builder (so every shape is inferred and
checked) and its body copied in place of the instruction.
"""

from __future__ import annotations

from collections.abc import Sequence

from ... import ops
from ...builder import XlaBuilder
from ...hlo.instruction import HloInstruction
from ...hlo.typed_attributes import int_tuple
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import DotDimensionNumbers
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
P = PrimitiveType


def _compute_type(*types: PrimitiveType) -> PrimitiveType:
    """The accumulation type of the interpreter's dot kernel for these types."""
    if any(t.is_complex for t in types):
        return P.C128 if any(t in (P.C128, P.F64) for t in types) else P.C64
    if any(t.is_float for t in types):
        return P.F64 if P.F64 in types else P.F32
    return P.S64


def _group_bounds(ops, builder, sizes, groups: int):  # noqa: ANN001, ANN202
    """(start, end) of every group along the last dimension of ``sizes``, as s64."""
    shape = sizes.shape
    lead = list(shape.dimensions[:-1])
    end = ops.Broadcast(ops.ConstantR0(builder, 0, P.S64), lead)
    bounds = []
    for i in range(groups):
        size = ops.ConvertElementType(ops.SliceInDim(sizes, i, i + 1, 1, shape.rank - 1), P.S64)
        start, end = end, ops.Add(end, ops.Reshape(size, lead))
        bounds.append((start, end))
    return bounds


def _expansion(instruction: HloInstruction):  # noqa: ANN202
    lhs, rhs, sizes = instruction.operands
    attr = instruction.attribute
    numbers = instruction.dot_dimension_numbers
    lc, rc = list(numbers.lhs_contracting_dimensions), list(numbers.rhs_contracting_dimensions)
    lb, rb = list(numbers.lhs_batch_dimensions), list(numbers.rhs_batch_dimensions)
    (ragged,) = int_tuple(attr("lhs_ragged_dims"))
    group_dims = list(int_tuple(attr("rhs_group_dims")))
    out_type = instruction.shape.element_type
    compute = _compute_type(lhs.shape.element_type, rhs.shape.element_type, out_type)
    if out_type.is_integral and not compute.is_integral:
        return None  # float products into an integer result: left to the interpreter's kernel

    b = XlaBuilder(f"{instruction.name}_expanded")
    x = ops.Parameter(b, 0, Shape.array(lhs.shape.element_type, lhs.shape.dimensions), "lhs")
    y = ops.Parameter(b, 1, Shape.array(rhs.shape.element_type, rhs.shape.dimensions), "rhs")
    s = ops.Parameter(b, 2, Shape.array(sizes.shape.element_type, sizes.shape.dimensions), "sizes")
    x, y = ops.ConvertElementType(x, compute), ops.ConvertElementType(y, compute)
    out_dims = list(instruction.shape.dimensions)

    def dot(a, c, lcd: Sequence[int], rcd: Sequence[int], lbd: Sequence[int], rbd: Sequence[int]):  # noqa: ANN001, ANN202
        numbers = DotDimensionNumbers(
            lhs_contracting_dimensions=tuple(lcd),
            rhs_contracting_dimensions=tuple(rcd),
            lhs_batch_dimensions=tuple(lbd),
            rhs_batch_dimensions=tuple(rbd),
        )
        return ops.DotGeneral(a, c, numbers)

    if ragged in lb:
        result = dot(x, y, lc, rc, lb, rb)
        return b, ops.ConvertElementType(result, out_type)

    contracting = ragged in lc
    prefix = [d for d in range(ragged) if d in lb or ((d in lc) if contracting else d not in lc)]
    groups = sizes.shape.dimensions[-1]
    lead = prefix if sizes.shape.rank > 1 else []
    lhs_dims = list(lhs.shape.dimensions)
    index = ops.Iota(b, Shape.array(P.S64, lhs_dims), ragged)
    zero = ops.ConstantR0(b, 0, compute)
    masked = []
    for start, end in _group_bounds(ops, b, s, groups):
        lo = ops.BroadcastInDim(start, lhs_dims, lead)
        hi = ops.BroadcastInDim(end, lhs_dims, lead)
        mask = ops.And(ops.Ge(index, lo), ops.Lt(index, hi))
        masked.append(ops.Select(mask, x, ops.Broadcast(zero, lhs_dims)))

    if contracting:
        if not masked:
            return b, ops.Broadcast(ops.ConstantR0(b, 0, out_type), out_dims)
        parts = []
        for part in masked:
            product = dot(part, y, lc, rc, lb, rb)
            parts.append(ops.Reshape(product, [1, *product.shape.dimensions]))
        stacked = parts[0] if len(parts) == 1 else ops.ConcatInDim(b, parts, 0)
        return b, ops.ConvertElementType(ops.Reshape(stacked, out_dims), out_type)

    (g,) = group_dims

    def shift(dims: Sequence[int]) -> list[int]:
        return [d - 1 if d > g else d for d in dims]

    total = ops.Broadcast(ops.ConstantR0(b, 0, compute), out_dims)
    rhs_dims = list(rhs.shape.dimensions)
    for i, part in enumerate(masked[: rhs_dims[g]]):
        matrix = ops.SliceInDim(y, i, i + 1, 1, g)
        matrix = ops.Reshape(matrix, rhs_dims[:g] + rhs_dims[g + 1 :])
        total = ops.Add(total, dot(part, matrix, lc, shift(rc), lb, shift(rb)))
    return b, ops.ConvertElementType(total, out_type)


def _scaled(ops, value, scale):  # noqa: ANN001, ANN202
    """``value * scale`` in f32, the scale repeated along each dimension to ``value``'s size."""
    dims = list(value.shape.dimensions)
    s = ops.ConvertElementType(scale, P.F32)
    for d, (n, k) in enumerate(zip(dims, scale.shape.dimensions, strict=True)):
        if k in (n, 0):
            continue
        current = list(s.shape.dimensions)
        spread = current[: d + 1] + [n // k] + current[d + 1 :]
        mapping = [e if e <= d else e + 1 for e in range(len(current))]
        s = ops.Reshape(
            ops.BroadcastInDim(s, spread, mapping), current[:d] + [n] + current[d + 1 :]
        )
    return ops.Mul(ops.ConvertElementType(value, P.F32), s)


def _scaled_expansion(instruction: HloInstruction):  # noqa: ANN202
    b = XlaBuilder(f"{instruction.name}_expanded")
    params = [
        ops.Parameter(b, k, Shape.array(o.shape.element_type, o.shape.dimensions), f"p{k}")
        for k, o in enumerate(instruction.operands)
    ]
    lhs, rhs, lhs_scale, rhs_scale = params
    out_type = instruction.shape.element_type
    compute = _compute_type(P.F32, P.F32, out_type)
    if out_type.is_integral:
        return None
    numbers = instruction.dot_dimension_numbers
    a = ops.ConvertElementType(_scaled(ops, lhs, lhs_scale), compute)
    c = ops.ConvertElementType(_scaled(ops, rhs, rhs_scale), compute)
    return b, ops.ConvertElementType(ops.DotGeneral(a, c, numbers), out_type)


_EXPANSIONS = {Op.RAGGED_DOT: _expansion, Op.SCALED_DOT: _scaled_expansion}


def expand_ragged_dot(instruction: HloInstruction) -> HloInstruction | None:
    """The expansion of a ragged-dot or scaled-dot, beside it (None: left as is)."""
    built = _EXPANSIONS[instruction.opcode](instruction)
    if built is None:
        return None
    builder, root = built
    return splice_computation(instruction, builder.build(root))


class RaggedDotExpander(ExpanderPass):
    name = "ragged-dot-expander"
    opcodes = frozenset({Op.RAGGED_DOT})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return expand_ragged_dot(instruction)


class ScaledDotExpander(RaggedDotExpander):
    name = "scaled-dot-expander"
    opcodes = frozenset({Op.SCALED_DOT})
