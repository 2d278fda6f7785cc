"""Rendezvous of devices (replicas x partitions) running in threads of one process.

Every collective is an exchange: each participant of a group contributes a
value and receives every participant's value, in group order; all-reduce,
all-gather, all-to-all, reduce-scatter, collective-permute and broadcast are
then plain numpy on the gathered list. Devices run the same program, so the
k-th time a device reaches instruction X matches the k-th time every other
device reaches it: that pair (X, k) plus the group names the meeting point.

A participant that never arrives makes the others wait until ``timeout`` and
then fail with ``DeadlineExceededError`` instead of hanging the process.
"""

from __future__ import annotations

import queue
import threading
from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import Any

from ..errors import DeadlineExceededError, InvalidArgumentError

DEFAULT_TIMEOUT_SECONDS = 30.0


class _Meeting:
    """One meeting point: the values that arrived, set ``done`` once all ``size`` did.
    (A multi-process hub's local meeting also keeps the result of the step its last
    member ran, and whether that step finished or failed.)"""

    def __init__(self, size: int) -> None:
        self.size = size
        self.values: dict[int, Any] = {}
        self.done = threading.Event()
        self.result: Any = None
        self.finished = False
        self.error: BaseException | None = None


class CollectiveHub:
    """Shared by the device threads of one execution."""

    def __init__(self, num_devices: int, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.num_devices = num_devices
        self.timeout = timeout
        self._lock = threading.Lock()
        self._meetings: dict[Hashable, _Meeting] = {}
        self._counters: dict[int, dict[Hashable, int]] = defaultdict(dict)
        self._aborted: BaseException | None = None
        self._mailboxes: dict[Hashable, queue.Queue] = {}

    def is_local(self, device: int) -> bool:
        """Whether ``device`` runs in this process (always, for a one-process hub)."""
        return True

    def finish(self) -> None:
        """Called once every device of the execution stopped (a multi-process hub
        completes its sends to other processes here)."""

    def occurrence(self, device: int, site: Hashable) -> int:
        """How many times ``device`` has reached ``site`` before (0 the first time)."""
        with self._lock:
            count = self._counters[device].get(site, 0)
            self._counters[device][site] = count + 1
            return count

    def exchange(
        self,
        key: Hashable,
        participants: Sequence[int],
        me: int,
        value: Any,
        what: str,
    ) -> list[Any]:
        """Contribute ``value`` as device ``me``; get all values in ``participants`` order."""
        meeting, last = self._arrive(self._meetings, key, len(participants), participants, me,
                                     value, what)  # fmt: skip
        if last:
            meeting.done.set()
        if not meeting.done.wait(self.timeout):
            missing = sorted(set(participants) - set(meeting.values))
            error = DeadlineExceededError(
                f"{what}: devices {missing} of group {list(participants)} did not arrive within "
                f"{self.timeout:g} s; every device in a group must execute the collective"
            )
            self.abort(error)
            raise error
        if self._aborted is not None and len(meeting.values) < meeting.size:
            raise DeadlineExceededError(f"{what}: another device failed: {self._aborted}")
        return [meeting.values[p] for p in participants]

    def _arrive(
        self,
        table: dict[Hashable, _Meeting],
        key: Hashable,
        size: int,
        participants: Sequence[int],
        me: int,
        value: Any,
        what: str,
    ) -> tuple[_Meeting, bool]:
        """Leave ``value`` at meeting ``key`` of ``table`` (made for ``size`` members on
        first arrival); True as the second item for the member that completes it."""
        if me not in participants:
            raise InvalidArgumentError(
                f"{what}: device {me} is not in its group {list(participants)}"
            )
        with self._lock:
            if self._aborted is not None:
                raise DeadlineExceededError(f"{what}: another device failed: {self._aborted}")
            meeting = table.get(key)
            if meeting is None:
                meeting = table[key] = _Meeting(size)
            meeting.values[me] = value
            return meeting, len(meeting.values) == meeting.size

    # -- point to point (send/recv) ----------------------------------------------------
    def post(self, key: Hashable, value: Any) -> None:
        """Leave ``value`` in mailbox ``key`` (a send never waits for its receiver)."""
        with self._lock:
            self._mailbox(key).put(value)

    def take(self, key: Hashable, what: str) -> Any:
        """The next value of mailbox ``key``, waiting up to the timeout for a sender."""
        with self._lock:
            box = self._mailbox(key)
        try:
            return box.get(timeout=self.timeout)
        except queue.Empty:
            error = DeadlineExceededError(
                f"{what}: nothing was sent on {key} within {self.timeout:g} s; a recv needs a "
                "matching send on its channel"
            )
            self.abort(error)
            raise error from None

    def _mailbox(self, key: Hashable) -> queue.Queue:
        box = self._mailboxes.get(key)
        if box is None:
            box = self._mailboxes[key] = queue.Queue()
        return box

    def abort(self, error: BaseException) -> None:
        """Wake every waiting device: one of them failed, the execution is over."""
        with self._lock:
            if self._aborted is None:
                self._aborted = error
            for meeting in self._meetings.values():
                meeting.done.set()


__all__ = ["CollectiveHub", "DEFAULT_TIMEOUT_SECONDS"]
