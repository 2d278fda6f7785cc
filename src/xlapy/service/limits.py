"""The server's bounds, and the gate that bounds concurrent executions.

Every bound has a default that a server on a shared machine can live with; a
request past one is refused with ``ResourceExhaustedError`` saying which bound and
how to raise it, and nothing of it is kept.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from ..errors import InvalidArgumentError, ResourceExhaustedError
from .transport import DEFAULT_MAX_MESSAGE_BYTES


@dataclass(frozen=True)
class Limits:
    """Bounds of one server (see ``xlapy serve --help``)."""

    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES
    max_session_bytes: int = 4 << 30
    max_concurrent_executions: int = 8
    max_sessions: int = 128
    lease_seconds: float = 60.0
    # How long an execution waits for a free slot before it is refused.
    execution_queue_seconds: float = 30.0

    def __post_init__(self) -> None:
        for name in ("max_message_bytes", "max_session_bytes", "max_concurrent_executions",
                     "max_sessions"):  # fmt: skip
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"Limits.{name} must be an int >= 1, got {value!r}")
        if self.max_message_bytes < 4096:
            raise InvalidArgumentError(
                f"Limits.max_message_bytes must be at least 4096, got {self.max_message_bytes}"
            )
        for name in ("lease_seconds", "execution_queue_seconds"):
            value = getattr(self, name)
            if not value > 0:
                raise InvalidArgumentError(f"Limits.{name} must be > 0, got {value!r}")


class ExecutionGate:
    """At most ``slots`` executions at once; the rest wait their turn, up to a bound.

    One lock and one condition: taking a free slot is a lock, a compare and an add
    (every Execute passes here, so no semaphore plus condition plus generator)."""

    def __init__(self, slots: int, queue_seconds: float) -> None:
        self.slots = slots
        self.queue_seconds = queue_seconds
        self._running = 0
        self._changed = threading.Condition(threading.Lock())

    @property
    def running(self) -> int:
        return self._running

    def slot(self, what: str, deadline: float | None = None) -> _Slot:
        """Hold one slot while the ``with`` body runs; ``ResourceExhaustedError`` when
        none frees up within the queue bound (or before ``deadline``, a
        ``time.monotonic`` value)."""
        return _Slot(self, what, deadline)

    def _acquire(self, what: str, deadline: float | None) -> None:
        with self._changed:
            if self._running < self.slots:  # the usual case: a slot is free
                self._running += 1
                return
            wait = self.queue_seconds
            if deadline is not None:
                wait = max(0.0, min(wait, deadline - time.monotonic()))
            end = time.monotonic() + wait
            while self._running >= self.slots:
                left = end - time.monotonic()
                if left <= 0:
                    raise ResourceExhaustedError(
                        f"{what}: all {self.slots} execution slots stayed busy for "
                        f"{wait:.1f} s; retry later, or start the server with a larger "
                        "--max-concurrent-executions"
                    )
                self._changed.wait(left)
            self._running += 1

    def _release(self) -> None:
        with self._changed:
            self._running -= 1
            self._changed.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no execution runs (graceful shutdown); False if time ran out."""
        end = time.monotonic() + timeout
        with self._changed:
            while self._running:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._changed.wait(left)
        return True


class _Slot:
    """``with gate.slot(...)``: one execution slot held for the body."""

    __slots__ = ("_gate", "_what", "_deadline")

    def __init__(self, gate: ExecutionGate, what: str, deadline: float | None) -> None:
        self._gate, self._what, self._deadline = gate, what, deadline

    def __enter__(self) -> None:
        self._gate._acquire(self._what, self._deadline)

    def __exit__(self, *exc: object) -> None:
        self._gate._release()


__all__ = ["ExecutionGate", "Limits"]
