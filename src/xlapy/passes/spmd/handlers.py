"""Per-opcode partitioning of the data-movement and elementwise ops, and the fallback.

Each handler takes the run's :class:`~.context.Partitioning` and a global
instruction and returns (its local piece, the tiling that piece has); the pass
then reshards the piece to the instruction's propagated sharding. A handler asks
for its operands in the tiling that lets the op run locally; where no such
tiling exists the op runs on whole operands (:func:`replicate`) and the report
says so.
"""

from __future__ import annotations

from collections.abc import Callable

from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from .context import Partitioning, Value
from .dim_maps import broadcast_operand_to_out, invert
from .halo import halo_slice
from .propagation import FULL_TO_SHARD, SHARD_TO_FULL, leaf_shapes
from .reshape_tiling import reshape_tiling
from .tiling import Tiling

Op = HloOpcode
Handler = Callable[[Partitioning, HloInstruction], tuple[HloInstruction, Value]]


def _local_shape(instruction: HloInstruction, tiling: Tiling) -> Shape:
    return instruction.shape.with_dimensions(tiling.shard_dims(instruction.shape.dimensions))


def replicate(
    p: Partitioning, instruction: HloInstruction, why: str = ""
) -> tuple[HloInstruction, Value]:
    """The correct fallback: every operand whole, the op as written, the result whole."""
    tiled = [o.name for o in instruction.operands if p.is_tiled(o)]
    operands = [p.replicated(o, instruction.name) for o in instruction.operands]
    local = p.clone_global(instruction, operands)
    if tiled:
        reason = why or f"no partitioning rule for {instruction.opcode.value} with tiled operands"
        p.builder.note(
            instruction.name, f"ran on whole operands (gathered {', '.join(tiled)})", reason
        )
    n = p.num_devices
    leaves = [
        Tiling.replicated(s.rank if s.is_array else 0, n) for s in leaf_shapes(instruction.shape)
    ]
    return local, (tuple(leaves) if instruction.shape.is_tuple else leaves[0])


def _parameter(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    value = p.targets[instruction]
    if isinstance(value, tuple):
        leaves = leaf_shapes(instruction.shape)
        shape = Shape.tuple(
            [
                s.with_dimensions(t.shard_dims(s.dimensions)) if s.is_array and not t.manual else s
                for s, t in zip(leaves, value, strict=True)
            ]
        )
    elif instruction.shape.is_array and not value.manual:
        shape = _local_shape(instruction, value)
    else:
        shape = instruction.shape
    local = HloInstruction.create_parameter(instruction.parameter_number, shape, instruction.name)
    return p.builder.computation.add_instruction(local), value


def _elementwise(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    target = p.target(instruction)
    operands = [p.operand_as(o, target, instruction.name) for o in instruction.operands]
    return p.remake(instruction, operands), target


def _broadcast(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    target = p.target(instruction)
    operand = instruction.operand(0)
    inverse = invert(broadcast_operand_to_out(instruction.dimensions), target.rank)
    needed = target.project(inverse, operand.shape.rank)
    local = p.operand_as(operand, needed, instruction.name)
    return p.remake(instruction, [local], declared=_local_shape(instruction, target)), target


def _transpose(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    target = p.target(instruction)
    perm = list(instruction.dimensions)
    needed = target.permuted([perm.index(i) for i in range(len(perm))])
    local = p.operand_as(instruction.operand(0), needed, instruction.name)
    return p.remake(instruction, [local]), target


def _reshape(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    """Local when the wanted tiling of the result maps back to a tiling of the operand
    (or, failing that, when the operand's own tiling maps forward)."""
    target = p.target(instruction)
    operand = instruction.operand(0)
    source, result = operand.shape.dimensions, instruction.shape.dimensions
    needed = reshape_tiling(target, result, source)
    back = None if needed is None else reshape_tiling(needed, source, result)
    if back is not None and back.same_as(target):
        local = p.operand_as(operand, needed, instruction.name)
        return p.remake(instruction, [local], declared=_local_shape(instruction, target)), target
    out = reshape_tiling(p.tiling(operand), source, result)
    if out is None:
        return replicate(p, instruction, "the tiled dimensions do not map through this reshape")
    local = p.local[operand]
    return p.remake(instruction, [local], declared=_local_shape(instruction, out)), out


def _untouched_local(
    p: Partitioning, instruction: HloInstruction, touched: set[int], operands
) -> tuple[HloInstruction, Value]:
    """An op that leaves the dims outside ``touched`` alone runs locally on pieces tiled
    only outside ``touched``; the touched dims are gathered first."""
    current = p.tiling(instruction.operand(0))
    needed = current.gathered(sorted(touched)) if touched else current
    if any(current.counts[d] > 1 for d in touched):
        p.builder.note(
            instruction.name,
            f"gathered dims {sorted(touched)}",
            f"{instruction.opcode.value} changes them",
        )
    locals_ = [
        p.operand_as(o, needed, instruction.name)
        if i in operands
        else p.replicated(o, instruction.name)
        for i, o in enumerate(instruction.operands)
    ]
    return locals_, needed


def _slice(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    by_halo = halo_slice(p, instruction)
    if by_halo is not None:
        return by_halo
    window = instruction.attribute("slice")
    dims = instruction.operand(0).shape.dimensions
    touched = {
        d
        for d, (start, limit, stride) in enumerate(window)
        if (start, limit, stride) != (0, dims[d], 1)
    }
    locals_, needed = _untouched_local(p, instruction, touched, {0})
    local_dims = needed.shard_dims(dims)
    local_window = tuple(w if d in touched else (0, local_dims[d], 1) for d, w in enumerate(window))
    return p.remake(instruction, locals_, attributes={"slice": local_window}), needed


def _pad(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    config = instruction.padding_config
    touched = {
        d
        for d, c in enumerate(config.dimensions)
        if (c.edge_padding_low, c.edge_padding_high, c.interior_padding) != (0, 0, 0)
    }
    locals_, needed = _untouched_local(p, instruction, touched, {0})
    return p.remake(instruction, locals_), needed


def _reverse(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    locals_, needed = _untouched_local(p, instruction, set(instruction.dimensions), {0})
    return p.remake(instruction, locals_), needed


def _concatenate(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    operands = set(range(instruction.operand_count))
    locals_, needed = _untouched_local(p, instruction, set(instruction.dimensions), operands)
    return p.remake(instruction, locals_), needed


def _dynamic_slice(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    dims = instruction.operand(0).shape.dimensions
    sizes = tuple(instruction.attribute("dynamic_slice_sizes"))
    touched = {d for d, (size, whole) in enumerate(zip(sizes, dims, strict=True)) if size != whole}
    locals_, needed = _untouched_local(p, instruction, touched, {0})
    local_dims = needed.shard_dims(dims)
    local_sizes = tuple(sizes[d] if d in touched else local_dims[d] for d in range(len(dims)))
    return p.remake(instruction, locals_, attributes={"dynamic_slice_sizes": local_sizes}), needed


def _dynamic_update_slice(
    p: Partitioning, instruction: HloInstruction
) -> tuple[HloInstruction, Value]:
    dims = instruction.operand(0).shape.dimensions
    update = instruction.operand(1).shape.dimensions
    touched = {d for d, (u, whole) in enumerate(zip(update, dims, strict=True)) if u != whole}
    locals_, needed = _untouched_local(p, instruction, touched, {0, 1})
    return p.remake(instruction, locals_), needed


def _sort(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    operands = set(range(instruction.operand_count))
    (dimension,) = instruction.dimensions
    locals_, needed = _untouched_local(p, instruction, {dimension}, operands)
    value = tuple([needed] * len(locals_)) if instruction.shape.is_tuple else needed
    return p.remake(instruction, locals_), value


def _tuple(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    locals_ = [p.local[o] for o in instruction.operands]
    value = tuple(p.tiling(o) for o in instruction.operands)
    return p.remake(instruction, locals_), value


def _get_tuple_element(
    p: Partitioning, instruction: HloInstruction
) -> tuple[HloInstruction, Value]:
    value = p.tilings[instruction.operand(0)]
    assert isinstance(value, tuple)
    local = p.remake(instruction, [p.local[instruction.operand(0)]])
    return local, value[instruction.tuple_index]


def _custom_call(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    target = instruction.custom_call_target
    if target == "Sharding":
        wanted = p.target(instruction)
        return p.operand_as(instruction.operand(0), wanted, instruction.name), wanted
    if target in (FULL_TO_SHARD, SHARD_TO_FULL):
        operand = instruction.operand(0)
        local = p.local[operand]
        if target == SHARD_TO_FULL:
            tiling = p.target(instruction)
            expected = _local_shape(instruction, tiling)
        else:
            tiling, expected = p.target(instruction), instruction.shape
        if tuple(local.shape.dimensions) != tuple(expected.dimensions):
            raise InvalidArgumentError(
                f"{instruction.name}: @{target} between the global {operand.shape if target == FULL_TO_SHARD else instruction.shape} "
                f"and the local {local.shape}; the manual region's shapes must be the even shards"
            )
        return local, tiling
    return replicate(p, instruction, f"custom-call @{target} is opaque to the partitioner")


def manual(p: Partitioning, instruction: HloInstruction) -> tuple[HloInstruction, Value]:
    """Inside a manual region: the op as written (its shapes are already per device)."""
    local = p.clone_global(instruction, [p.local[o] for o in instruction.operands])
    return local, p.targets[instruction]


HANDLERS: dict[HloOpcode, Handler] = {
    Op.PARAMETER: _parameter,
    Op.BROADCAST: _broadcast,
    Op.TRANSPOSE: _transpose,
    Op.RESHAPE: _reshape,
    Op.SLICE: _slice,
    Op.PAD: _pad,
    Op.REVERSE: _reverse,
    Op.CONCATENATE: _concatenate,
    Op.DYNAMIC_SLICE: _dynamic_slice,
    Op.DYNAMIC_UPDATE_SLICE: _dynamic_update_slice,
    Op.SORT: _sort,
    Op.TUPLE: _tuple,
    Op.GET_TUPLE_ELEMENT: _get_tuple_element,
    Op.CUSTOM_CALL: _custom_call,
    Op.COPY: _elementwise,
}

# Elementwise ops whose semantics depend on where an element is are not elementwise
# for partitioning (none today); rng-style ops have no operands to tile.
_NOT_LOCAL = frozenset({Op.RNG, Op.RNG_BIT_GENERATOR})


def handler_for(opcode: HloOpcode) -> Handler:
    if opcode in HANDLERS:
        return HANDLERS[opcode]
    if opcode.is_elementwise and opcode not in _NOT_LOCAL:
        return _elementwise
    return replicate


__all__ = ["HANDLERS", "handler_for", "manual", "replicate"]
