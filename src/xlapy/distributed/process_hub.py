"""The rendezvous of devices spread over several processes: threads meet, processes talk MPI.

A :class:`ProcessHub` is the :class:`CollectiveHub` of one process's share of an
execution. A meeting whose members all live here is the plain in-memory exchange.
A meeting with members in other processes is two-level: this process's members meet
in memory first; the last of them to arrive runs one *step* for all of them (by
default: send their values to the other processes of the group over MPI and receive
theirs), and every local member gets the step's result. Backends can pass their own
step (:meth:`ProcessHub.combine`), e.g. the CPU backend's all-reduce that reduces its
local devices' buffers and then calls MPI's all-reduce on the result.

Device ``d`` (global id, replica-major then partition) belongs to process
``d // local_device_count``: the client's numbering, global id = process_index *
local_device_count + local ordinal. Send/recv between processes are MPI messages
tagged by channel and target device; every wait is bounded by the job's deadline.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..errors import DeadlineExceededError, InvalidArgumentError
from .hub import CollectiveHub
from .mpi import MpiTransport, current_job
from .process import process_info

Step = Callable[[dict[int, Any]], Any]


class ProcessHub(CollectiveHub):
    """The hub of the devices this process runs, in a job of several processes."""

    def __init__(
        self, local_devices: Sequence[int], devices_per_process: int, transport: MpiTransport
    ) -> None:
        super().__init__(len(local_devices), transport.timeout)
        self.local_devices = list(local_devices)
        self.devices_per_process = devices_per_process
        self.transport = transport
        self.rank = transport.rank
        self._local = set(self.local_devices)
        self._combines: dict[Hashable, Any] = {}  # local meetings, as the hub's

    def process_of(self, device: int) -> int:
        return device // self.devices_per_process

    def is_local(self, device: int) -> bool:
        return device in self._local

    def exchange(
        self, key: Hashable, participants: Sequence[int], me: int, value: Any, what: str
    ) -> list[Any]:
        if all(p in self._local for p in participants):
            return super().exchange(key, participants, me, value, what)
        gathered = self.combine(key, participants, me, value, what, None)
        return [gathered[p] for p in participants]

    def combine(
        self,
        key: Hashable,
        participants: Sequence[int],
        me: int,
        value: Any,
        what: str,
        step: Step | None,
    ) -> Any:
        """Local members of ``participants`` meet; the last to arrive runs ``step`` on
        {device: value} of the local members (None: gather every member's value over
        MPI, giving {device: value} of the whole group); all of them get its result."""
        local = [p for p in participants if p in self._local]
        meeting, last = self._arrive(self._combines, key, len(local), participants, me, value,
                                     what)  # fmt: skip
        if last:
            try:
                if step is None:
                    meeting.result = self._gather(key, participants, meeting.values, what)
                else:
                    meeting.result = step(dict(meeting.values))
            except BaseException as e:
                meeting.error = e
                meeting.done.set()
                self.abort(e)
                raise
            with self._lock:
                self._combines.pop(key, None)
            meeting.finished = True
            meeting.done.set()
            return meeting.result
        # The step itself is bounded by the deadline; wait a little longer than it.
        if not meeting.done.wait(2 * self.timeout + 5):
            missing = sorted(set(local) - set(meeting.values))
            error = DeadlineExceededError(
                f"{what}: local devices {missing} of group {list(participants)} did not "
                f"arrive within {self.timeout:g} s"
            )
            self.abort(error)
            raise error
        if not meeting.finished:
            raise DeadlineExceededError(
                f"{what}: another device failed: {meeting.error or self._aborted}"
            )
        return meeting.result

    def _gather(
        self, key: Hashable, participants: Sequence[int], values: dict[int, Any], what: str
    ) -> dict[int, Any]:
        processes = sorted({self.process_of(p) for p in participants})
        received = self.transport.exchange_objects(processes, values, self.transport.tag(key), what)
        merged: dict[int, Any] = {}
        for part in received.values():
            merged.update(part)
        return merged

    def abort(self, error: BaseException) -> None:
        super().abort(error)
        with self._lock:
            for meeting in self._combines.values():
                meeting.done.set()

    # -- point to point ---------------------------------------------------------------
    def post(self, key: Hashable, value: Any) -> None:
        target = _target_of(key)
        if target is None or target in self._local:
            super().post(key, value)
            return
        self.transport.send_object(
            self.process_of(target), self.transport.tag(key), value, f"send on {key}"
        )

    def take(self, key: Hashable, what: str) -> Any:
        with self._lock:
            box = self._mailbox(key)
        tag = self.transport.tag(key)
        start = time.monotonic()
        found: list[Any] = []

        def arrived() -> bool:
            try:
                found.append(box.get_nowait())
                return True
            except queue.Empty:
                pass
            ok, payload = self.transport.probe_object(tag)
            if ok:
                found.append(payload)
            if not ok and time.monotonic() - start > 0.01:
                time.sleep(0.0005)  # a recv may wait long for its sender: do not spin
            return ok

        try:
            self.transport.poll(arrived, what, lambda: f"a matching send on {key}")
        except DeadlineExceededError as e:
            self.abort(e)
            raise
        return found[0]

    def finish(self) -> None:
        """Complete this process's sends to other processes (within the deadline)."""
        self.transport.flush()


def _target_of(key: Hashable) -> int | None:
    """The target device of a send/recv mailbox key ``("channel", channel, device)``."""
    if isinstance(key, tuple) and len(key) == 3 and isinstance(key[2], int):
        return key[2]
    return None


def hub_for(local_devices: Sequence[int] | None, num_devices: int, timeout: float) -> CollectiveHub:
    """The hub of an execution: in-memory for one process, a :class:`ProcessHub` when this
    process runs ``local_devices`` of a multi-process job."""
    job = current_job()
    if local_devices is None or job is None or not process_info().is_multi_process:
        return CollectiveHub(num_devices if local_devices is None else len(local_devices), timeout)
    count = len(local_devices)
    expected = list(range(job.rank * count, (job.rank + 1) * count))
    if list(local_devices) != expected or count * job.size != num_devices:
        raise InvalidArgumentError(
            f"process {job.rank} of {job.size} was given local devices {list(local_devices)} of "
            f"{num_devices}; each process runs an equal block of global device ids "
            f"(process_index * local_device_count + ordinal), here {expected}"
        )
    return ProcessHub(local_devices, count, job.transport)


__all__ = ["ProcessHub", "Step", "hub_for"]
