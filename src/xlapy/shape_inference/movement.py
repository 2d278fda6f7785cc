"""Shape rules of the ops that move data without computing on it.

Broadcast, reshape, transpose, reverse, concatenate, slice, pad, iota,
bitcast, tuples and the plumbing ops (parameter, constant, after-all, ...).
Where HLO text carries the result dimensions instead of an attribute
(reshape, broadcast, iota, bitcast), the rule checks the declared shape
against the operands rather than inventing one.
"""

from __future__ import annotations

from ..opcode import HloOpcode as Op
from ..shape import UNBOUNDED_SIZE, Shape
from ..types import PrimitiveType
from ..xla_data import PaddingConfig
from ._core import InferenceContext, array_shape, rule


@rule(Op.BROADCAST)
def _broadcast(ctx: InferenceContext) -> Shape:
    """HLO broadcast is BroadcastInDim: operand dimension i goes to dimensions[i]."""
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    out = ctx.declared_shape()
    dims = ctx.int_list("dimensions", [])
    if len(dims) != x.rank:
        ctx.fail(f"dimensions {dims} must have one entry per operand dimension (rank {x.rank})")
    ctx.check_dimension_numbers(dims, out.rank, "dimensions")
    if any(b <= a for a, b in zip(dims, dims[1:], strict=False)):
        ctx.fail(f"dimensions {dims} must be strictly increasing")
    for i, d in enumerate(dims):
        if x.dimensions[i] not in (1, out.dimensions[d]):
            ctx.fail(
                f"operand dimension {i} (size {x.dimensions[i]}) cannot broadcast to result "
                f"dimension {d} (size {out.dimensions[d]}); sizes must match or be 1"
            )
    return array_shape(x.element_type, out.dimensions, out.dynamic_dimensions)


@rule(Op.RESHAPE)
def _reshape(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    out = ctx.declared_shape()
    if out.is_static and x.is_static and out.element_count() != x.element_count():
        ctx.fail(
            f"cannot reshape {x.element_count()} elements {list(x.dimensions)} into "
            f"{list(out.dimensions)} ({out.element_count()} elements)"
        )
    return array_shape(x.element_type, out.dimensions, out.dynamic_dimensions)


@rule(Op.DYNAMIC_RESHAPE)
def _dynamic_reshape(ctx: InferenceContext) -> Shape:
    x = ctx.array(0)
    out = ctx.declared_shape()
    sizes = ctx.operands[1:]
    if len(sizes) != out.rank:
        ctx.fail(f"needs one size operand per result dimension ({out.rank}), got {len(sizes)}")
    for s in sizes:
        if not (s.is_array and s.is_scalar and s.element_type == PrimitiveType.S32):
            ctx.fail(f"size operands must be s32 scalars, got {s}")
    if not (x.is_unbounded_dynamic or out.is_unbounded_dynamic):
        # XLA's rule (HloInstruction::CreateDynamicReshape): the bounds hold as many
        # elements as the operand's bounds; the dynamic sizes say how many are valid.
        if out.element_count() != x.element_count():
            ctx.fail(
                f"the result {out} holds {out.element_count()} elements at its bounds but "
                f"the operand {x} holds {x.element_count()}; the bounds' element counts "
                "must be equal"
            )
    return array_shape(x.element_type, out.dimensions, out.dynamic_dimensions)


@rule(Op.TRANSPOSE)
def _transpose(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    perm = ctx.int_list("dimensions")
    ctx.check_permutation(perm, x.rank, "dimensions")
    return array_shape(
        x.element_type,
        [x.dimensions[p] for p in perm],
        [x.dynamic_dimensions[p] for p in perm],
    )


@rule(Op.REVERSE)
def _reverse(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    ctx.check_dimension_numbers(ctx.int_list("dimensions", []), x.rank, "dimensions")
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


@rule(Op.CONCATENATE)
def _concatenate(ctx: InferenceContext) -> Shape:
    if not ctx.operands:
        ctx.fail("needs at least one operand")
    arrays = ctx.arrays()
    dims = ctx.int_list("dimensions")
    if len(dims) != 1:
        ctx.fail(f"dimensions must name exactly one dimension, got {dims}")
    (axis,) = dims
    first = arrays[0]
    ctx.check_dimension_numbers([axis], first.rank, "dimension")
    total = 0
    for i, a in enumerate(arrays):
        if a.element_type != first.element_type:
            ctx.fail(
                f"operand {i} has element type {a.element_type.hlo_name}, operand 0 has "
                f"{first.element_type.hlo_name}; all must match"
            )
        if a.rank != first.rank:
            ctx.fail(f"operand {i} has rank {a.rank}, operand 0 has rank {first.rank}")
        for d in range(first.rank):
            if d != axis and a.dimensions[d] != first.dimensions[d]:
                ctx.fail(
                    f"operand {i} has size {a.dimensions[d]} in dimension {d}, operand 0 has "
                    f"{first.dimensions[d]}; only dimension {axis} may differ"
                )
        total += a.dimensions[axis]
    result = list(first.dimensions)
    result[axis] = total
    dynamic = list(first.dynamic_dimensions)
    dynamic[axis] = any(a.dynamic_dimensions[axis] for a in arrays)
    return array_shape(first.element_type, result, dynamic)


@rule(Op.IOTA)
def _iota(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(0)
    out = ctx.declared_shape()
    if not out.is_array or out.rank == 0:
        ctx.fail(f"the result must be an array of rank >= 1, got {out}")
    if out.element_type.is_pred:
        ctx.fail("iota cannot produce pred values")
    ctx.check_dimension_numbers([int(ctx.attr("iota_dimension"))], out.rank, "iota_dimension")
    return array_shape(out.element_type, out.dimensions, out.dynamic_dimensions)


@rule(Op.BITCAST)
def _bitcast(ctx: InferenceContext) -> Shape:
    """A reinterpretation of the buffer: same byte size, any dimensions (XLA's rule)."""
    ctx.expect_operand_count(1)
    out = ctx.declared_shape()
    x = ctx.operands[0]
    if x.is_array and out.is_array and x.has_layout and out.has_layout:
        if x.byte_size() != out.byte_size():
            ctx.fail(
                f"a bitcast keeps the byte size: {x} has {x.byte_size()} bytes, {out} has "
                f"{out.byte_size()}"
            )
    return out


@rule(Op.GET_TUPLE_ELEMENT)
def _get_tuple_element(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    t = ctx.operands[0]
    if not t.is_tuple:
        ctx.fail(f"the operand must be a tuple, got {t}")
    index = int(ctx.attr("index"))
    if not 0 <= index < len(t.tuple_shapes):
        ctx.fail(f"index {index} is out of range for a tuple of {len(t.tuple_shapes)} elements")
    return t.tuple_shapes[index]


@rule(Op.TUPLE)
def _tuple(ctx: InferenceContext) -> Shape:
    return Shape.tuple(ctx.operands)


@rule(Op.OPT_BARRIER)
def _opt_barrier(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    return ctx.operands[0]


@rule(Op.AFTER_ALL)
def _after_all(ctx: InferenceContext) -> Shape:
    for i, s in enumerate(ctx.operands):
        if not s.is_token:
            ctx.fail(f"operand {i} must be a token, got {s}")
    return Shape.token()


@rule(Op.ADD_DEPENDENCY)
def _add_dependency(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    if not ctx.operands[1].is_token:
        ctx.fail(f"the second operand must be a token, got {ctx.operands[1]}")
    return ctx.operands[0]


@rule(Op.PARAMETER, Op.CONSTANT)
def _declared_only(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(0)
    return ctx.declared_shape()


@rule(Op.DOMAIN)
def _domain(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    return ctx.operands[0]


@rule(Op.GET_DIMENSION_SIZE)
def _get_dimension_size(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    ctx.check_dimension_numbers(ctx.int_list("dimensions"), x.rank, "dimensions")
    return array_shape(PrimitiveType.S32, [])


@rule(Op.SET_DIMENSION_SIZE)
def _set_dimension_size(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    x, size = ctx.array(0), ctx.array(1, "size")
    if not (size.is_scalar and size.element_type == PrimitiveType.S32):
        ctx.fail(f"the size must be an s32 scalar, got {size}")
    dims = ctx.int_list("dimensions")
    if len(dims) != 1:
        ctx.fail(f"dimensions must name exactly one dimension, got {dims}")
    ctx.check_dimension_numbers(dims, x.rank, "dimensions")
    dynamic = list(x.dynamic_dimensions)
    dynamic[dims[0]] = True
    return array_shape(x.element_type, x.dimensions, dynamic)


# -- slice -----------------------------------------------------------------------


def _slice_triples(ctx: InferenceContext) -> list[tuple[int, int, int]]:
    """The ``slice`` attribute: a (start, limit, stride) triple per dimension."""
    value = ctx.attr("slice")
    try:
        triples = [(int(start), int(limit), int(stride)) for start, limit, stride in value]
    except (TypeError, ValueError):
        ctx.fail(
            f"attribute slice must hold a (start, limit, stride) triple per dimension, "
            f"got {value!r}"
        )
    return triples


@rule(Op.SLICE)
def _slice(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    triples = _slice_triples(ctx)
    if len(triples) != x.rank:
        ctx.fail(
            f"slice has {len(triples)} [start:limit:stride] entries but the operand has rank "
            f"{x.rank}; give one per dimension"
        )
    sizes = []
    for d, ((start, limit, stride), bound) in enumerate(zip(triples, x.dimensions, strict=True)):
        where = f"dimension {d} [{start}:{limit}:{stride}]"
        if stride < 1:
            ctx.fail(f"{where}: the stride must be >= 1")
        if start < 0:
            ctx.fail(f"{where}: the start must be >= 0")
        if limit > bound and bound != UNBOUNDED_SIZE:
            ctx.fail(f"{where}: the limit must be <= {bound}, the operand's size")
        if start > limit:
            ctx.fail(f"{where}: the start must be <= the limit")
        sizes.append(-(-(limit - start) // stride))
    # A slice of a bounded dynamic dimension stays dynamic (bounded by its size)
    # unless it takes a single element; slicing an unbounded one fixes its size.
    dynamic = [
        dyn and bound != UNBOUNDED_SIZE and size != 1
        for dyn, bound, size in zip(x.dynamic_dimensions, x.dimensions, sizes, strict=True)
    ]
    return array_shape(x.element_type, sizes, dynamic)


# -- pad ---------------------------------------------------------------------------


def padded_size(size: int, low: int, high: int, interior: int) -> int:
    """Interior padding goes between elements first; edge padding (maybe negative) after."""
    return low + size + max(size - 1, 0) * interior + high


@rule(Op.PAD)
def _pad(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(2)
    x = ctx.array(0, "operand")
    value = ctx.array(1, "padding value")
    if not value.is_scalar:
        ctx.fail(f"the padding value must be a scalar, got {value}")
    if value.element_type != x.element_type:
        ctx.fail(
            f"the padding value has element type {value.element_type.hlo_name} but the "
            f"operand has {x.element_type.hlo_name}; they must match"
        )
    config = ctx.attr("padding")
    if not isinstance(config, PaddingConfig):
        ctx.fail(f"attribute padding must be a PaddingConfig, got {config!r}")
    if len(config.dimensions) != x.rank:
        ctx.fail(
            f"padding has {len(config.dimensions)} dimensions but the operand has rank "
            f"{x.rank}; give a low_high_interior triple per dimension"
        )
    sizes = []
    for d, (pc, size) in enumerate(zip(config.dimensions, x.dimensions, strict=True)):
        low, high, interior = pc.edge_padding_low, pc.edge_padding_high, pc.interior_padding
        if interior < 0:
            ctx.fail(f"dimension {d} has interior padding {interior}; it must be >= 0")
        if size == UNBOUNDED_SIZE:
            sizes.append(UNBOUNDED_SIZE)
            continue
        out = padded_size(size, low, high, interior)
        if out < 0:
            ctx.fail(
                f"dimension {d} of size {size} padded {low}_{high}_{interior} would have "
                f"size {out}; negative edge padding may at most remove every element"
            )
        sizes.append(out)
    return array_shape(x.element_type, sizes, x.dynamic_dimensions)
