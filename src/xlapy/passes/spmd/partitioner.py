"""SpmdPartitioner: the global program as the program every device runs on its piece.

Why: a program written for whole arrays with ``sharding=`` annotations runs on N
devices only once each instruction works on its device's tile and the
collectives that move data between tiles are explicit (XLA's GSPMD
partitioner). The pass propagates shardings (:mod:`.propagation`), then walks the
entry computation in order; each instruction's handler (:mod:`.handlers`,
:mod:`.handlers_linalg`) emits its local form, and the piece is resharded to the
instruction's sharding. Parameters take their shard shapes (uneven dims padded,
as XLA does), the root keeps its sharding, so :mod:`.layout_of_shards` cuts the
arguments and assembles the results. Called computations (reducers, loop
bodies) run unchanged on whole values. ``report`` lists every place where the
partitioner moved data, and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...errors import InvalidArgumentError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...xla_data_sharding import OpSharding
from ..creation import make
from ..pass_base import HloPass
from ..simplify.dce import DeadCodeElimination
from ..simplify.inliner import CallInliner
from . import handlers_linalg  # noqa: F401  (registers dot, convolution and reduce)
from .context import Partitioning, Value
from .handlers import handler_for, manual
from .local_builder import LocalBuilder, ReportEntry
from .propagation import leaf_shapes, propagate, write_sharding
from .tiling import Tiling

Op = HloOpcode


@dataclass
class PartitionReport:
    """What the partitioner did where it moved data: (instruction, action, why) rows."""

    entries: list[ReportEntry] = field(default_factory=list)
    num_partitions: int = 1

    def __str__(self) -> str:
        if not self.entries:
            return f"partitioned for {self.num_partitions} devices: no data moved"
        lines = [f"partitioned for {self.num_partitions} devices:"]
        lines += [f"  {entry}" for entry in self.entries]
        return "\n".join(lines)

    def __iter__(self):
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def rows(self) -> list[tuple[str, str, str]]:
        """(instruction, what was done, why) for each place data moved."""
        return [(e.instruction, e.action, e.reason) for e in self.entries]


class SpmdPartitioner(HloPass):
    """Rewrite the module into its per-device form; see the module docstring."""

    name = "spmd-partitioner"

    def __init__(self, num_partitions: int | None = None) -> None:
        self.num_partitions = num_partitions
        self.report = PartitionReport()
        self.parameter_shardings: list[Value] = []
        self.output_sharding: Value | None = None

    def run(self, module: HloModule) -> bool:
        n = self.num_partitions or module.num_partitions
        CallInliner().run(module)  # a call's body is partitioned with its caller (jax's helpers)
        old = module.entry
        targets = propagate(old, n)
        new = HloComputation(f"{old.name}_spmd")
        module.add_computation(new, append=True)
        builder = LocalBuilder(module, new, n)
        p = Partitioning(builder, targets)
        for instruction in old.post_order():
            _partition_one(p, instruction)
        root = p.local[old.root]
        new.root = root
        module.entry = new
        module.remove_computation(old)
        # The entry keeps the name it was built with, ``<name>_spmd``, as XLA's partitioner
        # names it: that is how the client knows a module is already per device.
        _restore_names(p, old)
        module.config.entry_computation_layout = None
        module.num_partitions = n
        root.set_attribute("sharding", write_sharding(targets[old.root]))
        for parameter in new.parameters:
            original = old.parameter(parameter.parameter_number)
            parameter.set_attribute("sharding", write_sharding(targets[original]))
        self.parameter_shardings = [targets[q] for q in old.parameters]
        self.output_sharding = targets[old.root]
        self.report = PartitionReport(builder.report, n)
        DeadCodeElimination().run(module)  # unused pieces, and the callees inlined above
        return True


def _partition_one(p: Partitioning, instruction: HloInstruction) -> None:
    target = p.targets[instruction]
    is_manual = isinstance(target, Tiling) and target.manual
    if is_manual and not (
        instruction.opcode is Op.CUSTOM_CALL
        and instruction.custom_call_target in ("SPMDFullToShardShape",)
    ):
        local, value = manual(p, instruction)
    else:
        local, value = handler_for(instruction.opcode)(p, instruction)
    local, value = _to_target(p, instruction, local, value, target)
    p.local[instruction] = local
    p.tilings[instruction] = value


def _to_target(
    p: Partitioning, instruction: HloInstruction, local: HloInstruction, value: Value, target: Value
) -> tuple[HloInstruction, Value]:
    if isinstance(value, Tiling) and isinstance(target, Tiling):
        if not instruction.shape.is_array or value.manual or target.manual or value.same_as(target):
            return local, value
        moved = p.builder.reshard(
            local, value, target, instruction.shape.dimensions, instruction.name
        )
        return moved, target
    if isinstance(value, tuple) and isinstance(target, tuple):
        if all(a.same_as(b) or a.manual for a, b in zip(value, target, strict=True)):
            return local, value
        leaves = []
        for index, (have, want, shape) in enumerate(
            zip(value, target, leaf_shapes(instruction.shape), strict=True)
        ):
            element = make(Op.GET_TUPLE_ELEMENT, [local], {"index": index})
            if shape.is_array and not have.manual and not have.same_as(want):
                element = p.builder.reshard(
                    element, have, want, shape.dimensions, f"{instruction.name}.{index}"
                )
            leaves.append(element)
        return make(Op.TUPLE, leaves, computation=p.builder.computation), target
    return local, value


def _restore_names(p: Partitioning, old: HloComputation) -> None:
    """Give each local piece the name of the instruction it partitions, where free."""
    renamed: set[int] = set()
    for instruction in old.post_order():
        local = p.local[instruction]
        if id(local) in renamed or local.name == instruction.name:
            continue
        renamed.add(id(local))
        try:
            local.name = instruction.name
        except InvalidArgumentError:
            continue


def partition(module: HloModule, num_partitions: int) -> tuple[HloModule, PartitionReport]:
    """The per-device module for ``num_partitions`` devices (the input is left as is)
    and the report of where data moves."""
    copy = module.clone()
    partitioner = SpmdPartitioner(num_partitions)
    partitioner.run(copy)
    copy.verify()
    return copy, partitioner.report


def entry_shardings(module: HloModule) -> tuple[list[OpSharding | None], OpSharding | None]:
    """(parameter shardings, root sharding) of a partitioned module, as written on it."""
    entry = module.entry
    return [q.attribute("sharding") for q in entry.parameters], entry.root.attribute("sharding")


__all__ = ["PartitionReport", "SpmdPartitioner", "entry_shardings", "partition"]
