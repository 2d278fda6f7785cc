"""Shape rules of collectives (and of replica-id/partition-id, which name a device).

A collective's result may depend on how many devices take part (all-gather
multiplies a dimension by it, reduce-scatter divides by it). That number is
the replica group size when ``replica_groups`` says it; when it does not
(empty groups mean "every replica", and cross-replica-and-partition groups
also span every partition) it is a property of the module's configuration,
which shape inference does not see. Then the declared result shape supplies
it and the rule checks that it is consistent.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import CollectiveOpGroupMode
from ._core import InferenceContext, array_shape, rule
from .control import compatible


def _one_or_tuple(shapes: Sequence[Shape]) -> Shape:
    return shapes[0] if len(shapes) == 1 else Shape.tuple(shapes)


def _arrays(ctx: InferenceContext) -> list[Shape]:
    if not ctx.operands:
        ctx.fail("needs at least one operand")
    return ctx.arrays()


def _group_mode(ctx: InferenceContext, has_global_ids: bool = True) -> CollectiveOpGroupMode:
    """XLA's GetCollectiveOpGroupMode, unless HLO text states ``mode=``."""
    mode = ctx.attr("mode", None)
    if mode is not None:
        return CollectiveOpGroupMode(mode)
    has_channel = ctx.attr("channel_id", None) is not None
    global_ids = bool(ctx.attr("use_global_device_ids", False))
    if not has_channel and global_ids:
        ctx.fail("use_global_device_ids=true needs a channel_id")
    return CollectiveOpGroupMode.of(has_channel, global_ids, has_global_ids)


def _groups(ctx: InferenceContext, uniform: bool = True) -> tuple[tuple[int, ...], ...]:
    """The replica groups, checked: non-empty, no id twice, and (usually) all one size."""
    devices = ctx.attr("replica_groups", None)
    groups = devices.groups() if devices is not None else ()
    seen: set[int] = set()
    for group in groups:
        if not group:
            ctx.fail("replica_groups contains an empty group")
        for i in group:
            if i in seen:
                ctx.fail(f"replica_groups name id {i} more than once; each id may be in one group")
            seen.add(i)
    sizes = sorted({len(g) for g in groups})
    if uniform and len(sizes) > 1:
        ctx.fail(f"replica_groups must all have the same size, got sizes {sizes}")
    return groups


def _participants(ctx: InferenceContext, has_global_ids: bool = True) -> tuple[int | None, bool]:
    """(group size, whether it is the whole participant count) of a grouped collective.

    In cross-replica-and-partition mode every group spans all partitions too,
    so the count is a multiple of the group size that only the module knows.
    """
    groups = _groups(ctx)
    mode = _group_mode(ctx, has_global_ids)
    if mode is CollectiveOpGroupMode.FLATTENED_ID and not groups:
        ctx.fail("flattened-id collectives (use_global_device_ids=true) need replica_groups")
    if not groups:
        return None, False
    return len(groups[0]), mode is not CollectiveOpGroupMode.CROSS_REPLICA_AND_PARTITION


def _single_dimension(ctx: InferenceContext, arrays: Sequence[Shape]) -> int:
    dims = ctx.int_list("dimensions")
    if len(dims) != 1:
        ctx.fail(f"dimensions must name exactly one dimension, got {dims}")
    for i, a in enumerate(arrays):
        if not 0 <= dims[0] < a.rank:
            ctx.fail(f"dimension {dims[0]} is out of range for operand {i} {a} (rank {a.rank})")
    return dims[0]


def _declared_parts(
    ctx: InferenceContext, declared: Shape | None, count: int
) -> list[Shape] | None:
    if declared is None:
        return None
    if count == 1:
        return [declared]
    if not declared.is_tuple or len(declared.tuple_shapes) != count:
        ctx.fail(f"the result must be a tuple of {count} arrays (one per operand), got {declared}")
    return list(declared.tuple_shapes)


def _resized(
    ctx: InferenceContext, arrays: Sequence[Shape], dim: int, declared: Shape | None, gather: bool
) -> list[Shape]:
    """Each operand with ``dim`` multiplied (gather) or divided (scatter) by the shard count."""
    count, exact = _participants(ctx)
    results = []
    if count is not None and exact:
        for i, a in enumerate(arrays):
            dims = list(a.dimensions)
            if not gather and dims[dim] % count:
                ctx.fail(
                    f"operand {i} dimension {dim} (size {dims[dim]}) must be divisible by the "
                    f"shard count {count} (the replica group size)"
                )
            dims[dim] = dims[dim] * count if gather else dims[dim] // count
            results.append(array_shape(a.element_type, dims, a.dynamic_dimensions))
        return results
    parts = _declared_parts(ctx, declared, len(arrays))
    if parts is None:
        ctx.fail(
            "the number of participants is not given by replica_groups (it depends on the "
            "module's replica and partition counts); the result shape must be stated"
        )
    factors = set()
    for i, (a, part) in enumerate(zip(arrays, parts, strict=True)):
        if not part.is_array or part.rank != a.rank:
            ctx.fail(f"result {part} must be an array of the rank of operand {i} {a}")
        operand_size, result_size = a.dimensions[dim], part.dimensions[dim]
        small, large = (operand_size, result_size) if gather else (result_size, operand_size)
        step = count or 1
        if (small == 0 and large != 0) or (small and (large % small or (large // small) % step)):
            ctx.fail(
                f"result {part} dimension {dim} must be operand {i}'s size times the number of "
                f"participants{f' (a multiple of the group size {count})' if count else ''}"
            )
        if small:
            factors.add(large // small)
        dims = list(a.dimensions)
        dims[dim] = part.dimensions[dim]
        results.append(array_shape(a.element_type, dims, a.dynamic_dimensions))
    if len(factors) > 1:
        ctx.fail(f"the results imply different participant counts {sorted(factors)}")
    return results


def _check_reducer(ctx: InferenceContext, arrays: Sequence[Shape]) -> None:
    """to_apply combines two scalars of the operands' type into one: (T, T) -> T."""
    comp = ctx.computation("to_apply")
    r = comp.result
    params = comp.parameters
    if not (r.is_array and r.is_scalar) or len(params) != 2:
        ctx.fail(
            f"to_apply must be a (T[], T[]) -> T[] reduction, got {len(params)} parameters -> {r}"
        )
    for i, p in enumerate(params):
        if not compatible(p, r):
            ctx.fail(f"to_apply parameter {i} is {p}; both must have the result's shape {r}")
    for i, a in enumerate(arrays):
        t = a.element_type
        if t != r.element_type and not (t.is_float and r.element_type.is_float):
            ctx.fail(f"operand {i} has element type {t.hlo_name} but to_apply reduces {r}")


# -- all-reduce and reduce-scatter ------------------------------------------------------


@rule(Op.ALL_REDUCE, Op.ALL_REDUCE_START)
def _all_reduce(ctx: InferenceContext) -> Shape:
    """The operands' shapes (a tuple for several); all-reduce-start has the same shape in XLA."""
    arrays = _arrays(ctx)
    _groups(ctx, uniform=False)
    _group_mode(ctx)
    _check_reducer(ctx, arrays)
    return _one_or_tuple(arrays)


@rule(Op.ALL_REDUCE_DONE)
def _all_reduce_done(ctx: InferenceContext) -> Shape:
    """The all-reduce-start's value, passed through."""
    ctx.expect_operand_count(1)
    x = ctx.operands[0]
    parts = x.tuple_shapes if x.is_tuple else (x,)
    if not parts or not all(p.is_array for p in parts):
        ctx.fail(f"the operand must be an all-reduce-start's array or tuple of arrays, got {x}")
    return x


@rule(Op.REDUCE_SCATTER)
def _reduce_scatter(ctx: InferenceContext) -> Shape:
    arrays = _arrays(ctx)
    dim = _single_dimension(ctx, arrays)
    _check_reducer(ctx, arrays)
    return _one_or_tuple(_resized(ctx, arrays, dim, ctx.declared, gather=False))


# -- all-gather ---------------------------------------------------------------------------


@rule(Op.ALL_GATHER)
def _all_gather(ctx: InferenceContext) -> Shape:
    """The gathered dimension grows by the number of participants (the group size)."""
    arrays = _arrays(ctx)
    dim = _single_dimension(ctx, arrays)
    return _one_or_tuple(_resized(ctx, arrays, dim, ctx.declared, gather=True))


@rule(Op.ALL_GATHER_START)
def _all_gather_start(ctx: InferenceContext) -> Shape:
    """(operand or operand tuple, gathered result or tuple), as XLA's InferAllGatherStartShape."""
    arrays = _arrays(ctx)
    dim = _single_dimension(ctx, arrays)
    declared = None
    if ctx.declared is not None:
        if not ctx.declared.is_tuple or len(ctx.declared.tuple_shapes) != 2:
            ctx.fail(f"the result must be an (operands, results) pair, got {ctx.declared}")
        declared = ctx.declared.tuple_shapes[1]
    gathered = _resized(ctx, arrays, dim, declared, gather=True)
    return Shape.tuple([_one_or_tuple(arrays), _one_or_tuple(gathered)])


@rule(Op.ALL_GATHER_DONE)
def _all_gather_done(ctx: InferenceContext) -> Shape:
    return _second_of_pair(ctx, "all-gather-start")


def _second_of_pair(ctx: InferenceContext, producer: str) -> Shape:
    ctx.expect_operand_count(1)
    t = ctx.operands[0]
    if not t.is_tuple or len(t.tuple_shapes) < 2:
        ctx.fail(f"the operand must be the tuple an {producer} produces, got {t}")
    return t.tuple_shapes[1]


# -- all-to-all ---------------------------------------------------------------------------


@rule(Op.ALL_TO_ALL)
def _all_to_all(ctx: InferenceContext) -> Shape:
    """Array form (dimensions={d}): one operand split and concatenated along d, shape kept.

    Tuple form: one same-shaped operand per participant, returned as a tuple.
    """
    arrays = _arrays(ctx)
    count, exact = _participants(ctx, has_global_ids=False)
    if ctx.attr("dimensions", None) is not None:
        if len(arrays) != 1:
            ctx.fail(f"an array all-to-all (dimensions=) takes one operand, got {len(arrays)}")
        (x,) = arrays
        dim = _single_dimension(ctx, arrays)
        if count is not None and exact and x.dimensions[dim] % count:
            ctx.fail(
                f"split dimension {dim} (size {x.dimensions[dim]}) must be divisible by the "
                f"split count {count} (the replica group size)"
            )
        return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)
    for i, a in enumerate(arrays):
        if not compatible(a, arrays[0]):
            ctx.fail(f"operand {i} {a} differs from operand 0 {arrays[0]}; all must have one shape")
    if count is not None and exact and len(arrays) != count:
        ctx.fail(
            f"a tuple all-to-all takes one operand per participant ({count}), got {len(arrays)}"
        )
    return Shape.tuple(arrays)


def all_to_all_result_shape(
    shape: Shape, split_dimension: int, concat_dimension: int, split_count: int
) -> Shape:
    """The builder-level AllToAll (XLA's InferAllToAllShape): split one dimension, grow another.

    HLO's all-to-all splits and concatenates along the same dimension; the
    builder reaches other (split, concat) pairs with reshapes and transposes
    around it, and uses this for the shape it ends with.
    """
    ctx = InferenceContext(Op.ALL_TO_ALL, (shape,))
    x = ctx.array(0)
    if split_count <= 0:
        ctx.fail(f"split_count must be positive, got {split_count}")
    for name, d in (("split_dimension", split_dimension), ("concat_dimension", concat_dimension)):
        if not 0 <= d < x.rank:
            ctx.fail(f"{name} {d} is out of range for rank {x.rank}")
    dims = list(x.dimensions)
    if dims[split_dimension] % split_count:
        ctx.fail(
            f"split dimension {split_dimension} (size {dims[split_dimension]}) must be divisible "
            f"by split_count {split_count}"
        )
    dims[split_dimension] //= split_count
    dims[concat_dimension] *= split_count
    return array_shape(x.element_type, dims)


@rule(Op.RAGGED_ALL_TO_ALL)
def _ragged_all_to_all(ctx: InferenceContext) -> Shape:
    """(input, output, input_offsets, send_sizes, output_offsets, recv_sizes) -> output."""
    ctx.expect_operand_count(6)
    data, out = ctx.array(0, "input"), ctx.array(1, "output")
    _groups(ctx)
    if data.element_type != out.element_type or data.rank != out.rank:
        ctx.fail(f"input {data} and output {out} must have the same element type and rank")
    if data.dimensions[1:] != out.dimensions[1:]:
        ctx.fail(f"input {data} and output {out} may differ only in dimension 0 (the ragged one)")
    names = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")
    first = ctx.array(2, names[0])
    for i, name in enumerate(names, start=2):
        s = ctx.array(i, name)
        if not s.element_type.is_integral or s.rank not in (1, 2):
            ctx.fail(f"{name} (operand {i}) must be an integer array of rank 1 or 2, got {s}")
        if not compatible(s, first):
            ctx.fail(f"{name} (operand {i}) {s} must have the shape of input_offsets {first}")
    return array_shape(out.element_type, out.dimensions, out.dynamic_dimensions)


# -- collective-permute and collective-broadcast -------------------------------------------


def _check_pairs(ctx: InferenceContext) -> None:
    pairs = ctx.attr("source_target_pairs", ())
    for role in ("source", "target"):
        seen: set[int] = set()
        for p in pairs:
            i = getattr(p, role)
            if i in seen:
                ctx.fail(f"source_target_pairs name {role} {i} more than once")
            seen.add(i)


def _permute_parts(ctx: InferenceContext) -> tuple[Shape, Shape]:
    """(what is sent, what is produced): operand(s) in place of themselves, or the output buffer."""
    _check_pairs(ctx)
    if ctx.attr("slice_sizes", None) is not None:  # in-place form writes into operand 1
        ctx.expect_operand_count(4)
        data, out = ctx.operands[0], ctx.operands[1]
        if data.is_array and out.is_array and data.element_type != out.element_type:
            ctx.fail(f"input {data} and output buffer {out} must have the same element type")
        return data, out
    arrays = _arrays(ctx)
    shape = _one_or_tuple(arrays)
    return shape, shape


@rule(Op.COLLECTIVE_PERMUTE)
def _collective_permute(ctx: InferenceContext) -> Shape:
    return _permute_parts(ctx)[1]


@rule(Op.COLLECTIVE_PERMUTE_START)
def _collective_permute_start(ctx: InferenceContext) -> Shape:
    """(sent, received, contexts...); contexts only as the declared tuple states them."""
    sent, received = _permute_parts(ctx)
    if ctx.declared is None:
        return Shape.tuple([sent, received])
    d = ctx.declared
    if not d.is_tuple or len(d.tuple_shapes) < 2:
        ctx.fail(f"the result must be a (sent, received, context...) tuple, got {d}")
    if not (compatible(d.tuple_shapes[0], sent) and compatible(d.tuple_shapes[1], received)):
        ctx.fail(f"the result {d} must start with the sent {sent} and received {received} shapes")
    return d


@rule(Op.COLLECTIVE_PERMUTE_DONE)
def _collective_permute_done(ctx: InferenceContext) -> Shape:
    return _second_of_pair(ctx, "collective-permute-start")


@rule(Op.COLLECTIVE_BROADCAST)
def _collective_broadcast(ctx: InferenceContext) -> Shape:
    arrays = _arrays(ctx)
    _groups(ctx)
    return _one_or_tuple(arrays)


# -- device ids -------------------------------------------------------------------------


@rule(Op.REPLICA_ID, Op.PARTITION_ID)
def _device_id(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(0)
    return array_shape(PrimitiveType.U32, [])
