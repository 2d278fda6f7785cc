"""Who meets whom in a collective: XLA's group modes turned into device groups.

Devices are numbered ``replica * num_partitions + partition``. A collective's
``replica_groups`` mean different things by mode (XLA's CollectiveOpGroupMode):
replica ids within one partition (cross-replica), partition ids within one
replica (cross-partition), replica ids across every partition
(cross-replica-and-partition), or global device ids (flattened-id).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidArgumentError
from ..xla_data import CollectiveOpGroupMode


def group_mode(
    has_channel_id: bool,
    use_global_device_ids: bool,
    *,
    has_global_ids: bool = True,
    explicit: CollectiveOpGroupMode | None = None,
) -> CollectiveOpGroupMode:
    """The group mode of a collective (``explicit`` is a ``mode=`` written in the text)."""
    if explicit is not None:
        return explicit
    return CollectiveOpGroupMode.of(has_channel_id, use_global_device_ids, has_global_ids)


def device_groups(
    mode: CollectiveOpGroupMode,
    replica_groups: Sequence[Sequence[int]],
    num_replicas: int,
    num_partitions: int,
) -> list[list[int]]:
    """Every group of device indices that meets, in group order."""
    replicas = list(range(num_replicas))
    partitions = list(range(num_partitions))
    groups = [list(g) for g in replica_groups]
    out: list[list[int]] = []
    if mode is CollectiveOpGroupMode.CROSS_REPLICA:
        for p in partitions:
            for g in groups or [replicas]:
                out.append([r * num_partitions + p for r in g])
    elif mode is CollectiveOpGroupMode.CROSS_PARTITION:
        for r in replicas:
            for g in groups or [partitions]:
                out.append([r * num_partitions + p for p in g])
    elif mode is CollectiveOpGroupMode.CROSS_REPLICA_AND_PARTITION:
        # Partition-major, as the StableHLO spec orders cross_replica_and_partition groups.
        for g in groups or [replicas]:
            out.append([r * num_partitions + p for p in partitions for r in g])
    else:  # FLATTENED_ID
        out = groups or [list(range(num_replicas * num_partitions))]
    total = num_replicas * num_partitions
    for g in out:
        for d in g:
            if not 0 <= d < total:
                raise InvalidArgumentError(
                    f"replica_groups {groups} name device {d}, but the program runs on "
                    f"{num_replicas} replicas x {num_partitions} partitions"
                )
    return out


def instruction_groups(
    instruction: object, num_replicas: int, num_partitions: int, has_global_ids: bool = True
) -> list[list[int]]:
    """The device groups of a collective instruction (its channel, flags and replica_groups)."""
    attrs = instruction.attributes  # type: ignore[attr-defined]
    mode = group_mode(
        attrs.get("channel_id") is not None,
        bool(attrs.get("use_global_device_ids", False)),
        has_global_ids=has_global_ids,
        explicit=attrs.get("mode"),
    )
    devices = attrs.get("replica_groups")
    replica_groups = devices.groups() if devices is not None else ()
    return device_groups(mode, replica_groups, num_replicas, num_partitions)


def group_of(device: int, groups: Sequence[Sequence[int]], what: str) -> list[int]:
    for g in groups:
        if device in g:
            return list(g)
    raise InvalidArgumentError(f"{what}: device {device} is in none of the groups {list(groups)}")


__all__ = ["device_groups", "group_mode", "group_of", "instruction_groups"]
