"""Compile-time checks that a program's collectives name only devices that exist.

The device count is known only when a program is compiled (``num_replicas`` x
``num_partitions``), not when it is parsed or verified. A collective-permute
pair or a replica group naming device 7 of 4 would otherwise fail in the
middle of a run, inside one device's thread, with an ``IndexError`` while its
peers wait for it. Send/recv's ``_xla_send_recv_source_target_pairs`` are checked
the same way (``p2p.check_send_recv``). Every backend calls :func:`check_collectives` (or
:func:`check_collective` per instruction) when it compiles, so the user gets an
``InvalidArgumentError`` naming the op, the bad entry and the device count.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import InvalidArgumentError
from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode as Op
from .groups import instruction_groups
from .p2p import POINT_TO_POINT, check_send_recv

_PERMUTES = frozenset({Op.COLLECTIVE_PERMUTE, Op.COLLECTIVE_PERMUTE_START})
# Collectives whose replica_groups say who meets; all-to-all and collective-broadcast
# have no use_global_device_ids (as the backends read them).
_GROUPED = {
    Op.ALL_REDUCE: True,
    Op.ALL_REDUCE_START: True,
    Op.ALL_GATHER: True,
    Op.ALL_GATHER_START: True,
    Op.REDUCE_SCATTER: True,
    Op.ALL_TO_ALL: False,
    Op.COLLECTIVE_BROADCAST: False,
}


def check_collective(instruction: HloInstruction, num_replicas: int, num_partitions: int) -> None:
    """``InvalidArgumentError`` if ``instruction`` (any opcode) names a device that a run
    on ``num_replicas`` x ``num_partitions`` devices does not have."""
    op = instruction.opcode
    if op in _PERMUTES:
        _check_pairs(instruction, num_replicas, num_partitions)
    elif op in POINT_TO_POINT:
        check_send_recv(instruction, num_replicas, num_partitions)
    elif op in _GROUPED:
        # device_groups raises InvalidArgumentError for a group naming a missing device.
        instruction_groups(instruction, num_replicas, num_partitions, _GROUPED[op])


def check_collectives(
    instructions: Iterable[HloInstruction], num_replicas: int, num_partitions: int
) -> None:
    """:func:`check_collective` of every instruction (e.g. ``module.instructions()``)."""
    for instruction in instructions:
        check_collective(instruction, num_replicas, num_partitions)


def _check_pairs(instruction: HloInstruction, num_replicas: int, num_partitions: int) -> None:
    cross_partition = instruction.attributes.get("channel_id") is not None
    count, kind = (num_partitions, "partition") if cross_partition else (num_replicas, "replica")
    for pair in instruction.attributes.get("source_target_pairs", ()):
        for role, device in (("source", pair.source), ("target", pair.target)):
            if not 0 <= device < count:
                raise InvalidArgumentError(
                    f"{instruction.opcode.value} {instruction.name}: source_target_pairs "
                    f"{{{pair.source},{pair.target}}} names {role} {kind} {device}, but the "
                    f"program runs on {num_replicas} replica(s) x {num_partitions} "
                    f"partition(s); valid {kind} ids are 0..{count - 1} (pairs name "
                    "partitions when the op has a channel_id, replicas otherwise)"
                )


__all__ = ["check_collective", "check_collectives"]
