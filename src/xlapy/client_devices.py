"""Devices of a client and the device assignment of an executable (XLA's DeviceAssignment).

Why: a program compiled for R replicas x P partitions runs on R*P devices, and the
caller must know which device runs which (replica, partition), both to feed each
device its shard and, across processes, to know which devices are this process's.
Devices are numbered globally: ``process_index * local_device_count + local
ordinal`` (``xlapy.distributed.process_info()`` says which process this is; one
process unless ``xlapy.distributed.initialize()`` joined a job). A
``DeviceAssignment`` is XLA's: a replicas x partitions array of global device ids,
by default the ids in order (replica-major), which is also the order in which the
backends number the devices of a run (``replica * partitions + partition``), so
the collectives' replica groups and ``use_global_device_ids`` read as XLA's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .distributed.process import ProcessInfo, process_info
from .errors import InvalidArgumentError


@dataclass(frozen=True)
class Device:
    """One device: its global ``id``, the process that owns it, and its platform."""

    platform: str
    id: int
    process_index: int = 0

    def __str__(self) -> str:
        return f"{self.platform}:{self.id}"


@dataclass(frozen=True)
class DeviceAssignment:
    """``ids[replica][partition]``: the global device that runs each logical device."""

    ids: tuple[tuple[int, ...], ...]

    @staticmethod
    def default(num_replicas: int, num_partitions: int) -> DeviceAssignment:
        """Ids in order, replica-major (XLA's computation placer for one host)."""
        grid = np.arange(num_replicas * num_partitions).reshape(num_replicas, num_partitions)
        return DeviceAssignment.of(grid)

    @staticmethod
    def of(value: Any) -> DeviceAssignment:
        """A DeviceAssignment from itself, nested lists or a 2-D integer array."""
        if isinstance(value, DeviceAssignment):
            return value
        try:
            grid = np.asarray(value)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"device_assignment: cannot read {value!r}: {e}") from None
        if grid.ndim != 2 or grid.size == 0 or grid.dtype.kind not in "iu":
            raise InvalidArgumentError(
                "device_assignment must be a non-empty replicas x partitions array of integer "
                f"device ids, got {value!r}"
            )
        return DeviceAssignment(tuple(tuple(int(d) for d in row) for row in grid))

    @property
    def replica_count(self) -> int:
        return len(self.ids)

    @property
    def computation_count(self) -> int:
        """Partitions per replica (XLA calls them computations)."""
        return len(self.ids[0])

    def __call__(self, replica: int, partition: int) -> int:
        return self.ids[replica][partition]

    def as_array(self) -> np.ndarray:
        return np.array(self.ids, dtype=np.int64)

    def device_ids(self) -> list[int]:
        """Global device ids in logical order (replica * partitions + partition)."""
        return [d for row in self.ids for d in row]

    def logical_id(self, device_id: int) -> tuple[int, int]:
        """(replica, partition) that ``device_id`` runs; NotFound-style error if none."""
        for r, row in enumerate(self.ids):
            if device_id in row:
                return r, row.index(device_id)
        raise InvalidArgumentError(f"device {device_id} is not in the assignment {self}")

    def __str__(self) -> str:
        rows = "; ".join(" ".join(str(d) for d in row) for row in self.ids)
        return f"DeviceAssignment({self.replica_count}x{self.computation_count}: {rows})"


class DeviceSet:
    """The devices one client sees: its local ones and the global ones of the job.

    ``device_count=None`` keeps the single-process behaviour from before devices were
    counted: the client has as many local devices as its largest executable asked for
    (at least one). A given ``device_count`` fixes the number, and an executable
    asking for more is refused at compile time.
    """

    def __init__(self, platform: str, device_count: int | None) -> None:
        if device_count is not None and (
            isinstance(device_count, bool) or not isinstance(device_count, int) or device_count < 1
        ):
            raise InvalidArgumentError(
                f"local_client({platform!r}): device_count must be an int >= 1 or None, "
                f"got {device_count!r}"
            )
        self.platform = platform
        self.fixed = device_count is not None
        self.local_count = device_count or 1

    @property
    def process(self) -> ProcessInfo:
        return process_info()

    def global_count(self) -> int:
        return self.local_count * self.process.process_count

    def devices(self) -> list[Device]:
        per = self.local_count
        return [Device(self.platform, i, i // per) for i in range(self.global_count())]

    def local_devices(self) -> list[Device]:
        index = self.process.process_index
        return [d for d in self.devices() if d.process_index == index]

    def assignment_for(
        self, num_replicas: int, num_partitions: int, requested: Any, what: str
    ) -> DeviceAssignment:
        """The checked assignment of an executable: the requested one or the default;
        a client with too few devices is an error that says how to get more."""
        needed = num_replicas * num_partitions
        if not self.fixed and not self.process.is_multi_process:
            self.local_count = max(self.local_count, needed)
        if needed > self.global_count():
            raise InvalidArgumentError(
                f"compiling {what} for {num_replicas} replica(s) x {num_partitions} "
                f"partition(s) needs {needed} devices; this {self.platform} client has "
                f"{self.global_count()} ({self.local_count} per process); make the client "
                f"with local_client({self.platform!r}, device_count={needed})"
            )
        if requested is None:
            return DeviceAssignment.default(num_replicas, num_partitions)
        assignment = DeviceAssignment.of(requested)
        if (assignment.replica_count, assignment.computation_count) != (
            num_replicas,
            num_partitions,
        ):
            raise InvalidArgumentError(
                f"compiling {what}: device_assignment is {assignment.replica_count} x "
                f"{assignment.computation_count}; it must be replicas x partitions = "
                f"{num_replicas} x {num_partitions}"
            )
        ids = assignment.device_ids()
        bad = [d for d in ids if not 0 <= d < self.global_count()]
        if bad:
            raise InvalidArgumentError(
                f"compiling {what}: device_assignment names devices {bad}; this client's "
                f"devices are 0..{self.global_count() - 1}"
            )
        if len(set(ids)) != len(ids):
            raise InvalidArgumentError(
                f"compiling {what}: device_assignment {assignment} names a device twice; "
                "each logical device needs a device of its own"
            )
        return assignment

    def local_logical_ids(self, assignment: DeviceAssignment) -> list[int]:
        """Logical ids (replica * partitions + partition) this process runs, in order."""
        mine = {d.id for d in self.local_devices()}
        return [i for i, d in enumerate(assignment.device_ids()) if d in mine]


__all__ = ["Device", "DeviceAssignment", "DeviceSet"]
