"""ShardingPropagation: a sharding on every instruction of the entry computation.

Why: users annotate a few values (parameters, ``custom-call @Sharding``
constraints, the root) and the partitioner needs to know how every value is
laid out. As XLA's pass does, shardings flow forward from operands to results
and backward from results to operands through the per-opcode rules of
:mod:`.propagation_rules`, repeated until nothing changes; annotated
instructions keep their sharding; a value inside a manual region (after
``SPMDFullToShardShape``) is manual; what nothing determines is replicated.
The result is written as ``sharding=`` on every instruction.
"""

from __future__ import annotations

from ...errors import UnimplementedError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...shape import Shape
from ...xla_data_sharding import OpSharding, OpShardingType
from ..pass_base import HloPass
from .propagation_rules import backward_rule, finest, fit, forward_rule
from .tiling import Tiling, from_op_sharding, to_op_sharding

Op = HloOpcode
Value = Tiling | tuple[Tiling, ...]
FULL_TO_SHARD = "SPMDFullToShardShape"
SHARD_TO_FULL = "SPMDShardToFullShape"


def leaf_shapes(shape: Shape) -> list[Shape]:
    """The leaves of a (one-level) tuple shape, or the shape itself."""
    if not shape.is_tuple:
        return [shape]
    if any(s.is_tuple for s in shape.tuple_shapes):
        raise UnimplementedError(f"the SPMD passes take flat tuples, not the nested {shape}")
    return list(shape.tuple_shapes)


def _rank(shape: Shape) -> int:
    return shape.rank if shape.is_array else 0


def read_sharding(instruction: HloInstruction, num_devices: int) -> Value | None:
    """The annotated sharding of ``instruction`` as Tilings, or None if it has none."""
    sharding: OpSharding | None = instruction.attribute("sharding")
    if sharding is None:
        return None
    shape = instruction.shape
    if not shape.is_tuple:
        return from_op_sharding(sharding, _rank(shape), num_devices)
    leaves = leaf_shapes(shape)
    if sharding.type is OpShardingType.TUPLE:
        if len(sharding.tuple_shardings) != len(leaves):
            raise UnimplementedError(
                f"{instruction.name}: a tuple sharding of {len(sharding.tuple_shardings)} "
                f"leaves for the {len(leaves)}-leaf shape {shape}"
            )
        parts = sharding.tuple_shardings
    else:
        parts = [sharding] * len(leaves)
    return tuple(
        from_op_sharding(s, _rank(leaf), num_devices) for s, leaf in zip(parts, leaves, strict=True)
    )


def write_sharding(value: Value) -> OpSharding:
    if isinstance(value, tuple):
        return OpSharding.tuple([to_op_sharding(t) for t in value])
    return to_op_sharding(value)


class ShardingPropagation(HloPass):
    """Give every instruction of the entry computation a sharding; see the module docstring."""

    name = "sharding-propagation"

    def __init__(self, num_partitions: int | None = None) -> None:
        self.num_partitions = num_partitions

    def run(self, module: HloModule) -> bool:
        devices = self.num_partitions or module.num_partitions
        shardings = propagate(module.entry, devices)
        changed = False
        for instruction in module.entry.instructions:
            if instruction.attribute("sharding") is None:
                instruction.set_attribute("sharding", write_sharding(shardings[instruction]))
                changed = True
        return changed


def propagate(computation: HloComputation, num_devices: int) -> dict[HloInstruction, Value]:
    """The sharding of every instruction of ``computation`` (see the module docstring)."""
    order = computation.post_order()
    known: dict[HloInstruction, Value] = {}
    fixed: set[HloInstruction] = set()
    for instruction in order:
        value = read_sharding(instruction, num_devices)
        if value is not None:
            known[instruction] = value
            fixed.add(instruction)
    changed = True
    while changed:
        changed = False
        for instruction in order:
            if instruction not in known:
                value = _forward(instruction, known, num_devices)
                if value is not None:
                    known[instruction] = value
                    changed = True
        for instruction in reversed(order):
            if instruction not in known:
                value = _backward(instruction, known)
                if value is not None:
                    known[instruction] = value
                    changed = True
    for instruction in order:
        if instruction not in known:
            leaves = [
                Tiling.replicated(_rank(s), num_devices) for s in leaf_shapes(instruction.shape)
            ]
            known[instruction] = tuple(leaves) if instruction.shape.is_tuple else leaves[0]
    return known


def _forward(
    instruction: HloInstruction, known: dict[HloInstruction, Value], n: int
) -> Value | None:
    operands = instruction.operands
    if any(isinstance(known.get(o), Tiling) and known[o].manual for o in operands):
        if instruction.shape.is_tuple:
            return tuple(Tiling.manual_of(_rank(s), n) for s in leaf_shapes(instruction.shape))
        return Tiling.manual_of(_rank(instruction.shape), n)
    if instruction.opcode is Op.TUPLE:
        if not all(isinstance(known.get(o), Tiling) for o in operands):
            return None
        return tuple(known[o] for o in operands)
    if instruction.opcode is Op.GET_TUPLE_ELEMENT:
        value = known.get(instruction.operand(0))
        return value[instruction.tuple_index] if isinstance(value, tuple) else None
    if instruction.opcode is Op.SORT and instruction.shape.is_tuple:
        operand_tilings = [known.get(o) for o in operands]
        best = finest([t for t in operand_tilings if isinstance(t, Tiling) and not t.manual])
        return None if best is None else tuple([best] * len(operands))
    rule = forward_rule(instruction.opcode)
    if rule is None or not instruction.shape.is_array:
        return None
    tilings = [known.get(o) if isinstance(known.get(o), Tiling) else None for o in operands]
    if all(t is None for t in tilings):
        return None
    result = rule(instruction, [None if t is None or t.manual else t for t in tilings])
    return None if result is None else fit(result, instruction.shape.dimensions)


def _backward(instruction: HloInstruction, known: dict[HloInstruction, Value]) -> Value | None:
    if not instruction.shape.is_array:
        return None
    candidates: list[Tiling | None] = []
    for user in instruction.users:
        out = known.get(user)
        if user.opcode is Op.TUPLE and isinstance(out, tuple):
            candidates.extend(out[i] for i, o in enumerate(user.operands) if o is instruction)
            continue
        if user.opcode is Op.CUSTOM_CALL and user.custom_call_target == "Sharding":
            if isinstance(out, Tiling) and not out.manual:
                candidates.append(out)  # a constraint also shards what it constrains
            continue
        rule = backward_rule(user.opcode)
        if rule is None or not isinstance(out, Tiling) or out.manual:
            continue
        for index, operand in enumerate(user.operands):
            if operand is instruction:
                candidates.append(rule(user, out, index))
    result = finest([c for c in candidates if c is not None and not c.manual])
    return None if result is None else fit(result, instruction.shape.dimensions)


__all__ = [
    "FULL_TO_SHARD",
    "SHARD_TO_FULL",
    "ShardingPropagation",
    "leaf_shapes",
    "propagate",
    "read_sharding",
    "write_sharding",
]
