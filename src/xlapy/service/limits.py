"""The server's bounds, and the gate that bounds concurrent executions.

Every bound has a default that a server on a shared machine can live with; a
request past one is refused with ``ResourceExhaustedError`` saying which bound and
how to raise it, and nothing of it is kept.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
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
    """At most ``slots`` executions at once; the rest wait their turn, up to a bound."""

    def __init__(self, slots: int, queue_seconds: float) -> None:
        self.slots = slots
        self.queue_seconds = queue_seconds
        self._free = threading.Semaphore(slots)
        self._running = 0
        self._idle = threading.Condition()

    @property
    def running(self) -> int:
        return self._running

    @contextlib.contextmanager
    def slot(self, what: str, deadline: float | None = None) -> Iterator[None]:
        """Hold one slot while the body runs; ``ResourceExhaustedError`` when none frees
        up within the queue bound (or before ``deadline``, a ``time.monotonic`` value)."""
        wait = self.queue_seconds
        if deadline is not None:
            wait = max(0.0, min(wait, deadline - time.monotonic()))
        if not self._free.acquire(timeout=wait):
            raise ResourceExhaustedError(
                f"{what}: all {self.slots} execution slots stayed busy for {wait:.1f} s; "
                "retry later, or start the server with a larger --max-concurrent-executions"
            )
        with self._idle:
            self._running += 1
        try:
            yield
        finally:
            with self._idle:
                self._running -= 1
                self._idle.notify_all()
            self._free.release()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no execution runs (graceful shutdown); False if time ran out."""
        end = time.monotonic() + timeout
        with self._idle:
            while self._running:
                left = end - time.monotonic()
                if left <= 0:
                    return False
                self._idle.wait(left)
        return True


__all__ = ["ExecutionGate", "Limits"]
