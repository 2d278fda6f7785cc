"""Shape rules of the ops that move data without computing on it.

Broadcast, reshape, transpose, reverse, concatenate, dynamic slices, iota,
bitcast, tuples and the plumbing ops (parameter, constant, after-all, ...).
Where HLO text carries the result dimensions instead of an attribute
(reshape, broadcast, iota, bitcast), the rule checks the declared shape
against the operands rather than inventing one.
"""

from __future__ import annotations

from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
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


def _check_start_indices(ctx: InferenceContext, operands: tuple[Shape, ...], rank: int) -> None:
    """Start indices: one integer scalar per dimension, all of one type (XLA's form)."""
    if len(operands) != rank:
        ctx.fail(f"needs {rank} scalar start indices (one per dimension), got {len(operands)}")
    types = set()
    for s in operands:
        if not (s.is_array and s.is_scalar and s.element_type.is_integral):
            ctx.fail(f"start indices must be integer scalars, got {s}")
        types.add(s.element_type)
    if len(types) > 1:
        ctx.fail("start indices must all have the same integer type")


@rule(Op.DYNAMIC_SLICE)
def _dynamic_slice(ctx: InferenceContext) -> Shape:
    x = ctx.array(0)
    _check_start_indices(ctx, ctx.operands[1:], x.rank)
    sizes = ctx.int_list("dynamic_slice_sizes")
    if len(sizes) != x.rank:
        ctx.fail(f"dynamic_slice_sizes {sizes} must have {x.rank} entries")
    for d, (size, bound) in enumerate(zip(sizes, x.dimensions, strict=True)):
        if not 0 <= size <= bound:
            ctx.fail(
                f"slice size {size} in dimension {d} must be in [0, {bound}] (the operand's size)"
            )
    return array_shape(x.element_type, sizes)


@rule(Op.DYNAMIC_UPDATE_SLICE)
def _dynamic_update_slice(ctx: InferenceContext) -> Shape:
    x, update = ctx.array(0), ctx.array(1, "update")
    _check_start_indices(ctx, ctx.operands[2:], x.rank)
    if update.element_type != x.element_type:
        ctx.fail(
            f"update has element type {update.element_type.hlo_name}, operand has "
            f"{x.element_type.hlo_name}; they must match"
        )
    if update.rank != x.rank:
        ctx.fail(f"update has rank {update.rank}, operand has rank {x.rank}; they must match")
    for d, (u, n) in enumerate(zip(update.dimensions, x.dimensions, strict=True)):
        if u > n:
            ctx.fail(f"update size {u} exceeds the operand size {n} in dimension {d}")
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


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


@rule(Op.REPLICA_ID, Op.PARTITION_ID)
def _device_id(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(0)
    return array_shape(PrimitiveType.U32, [])


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
