"""Counters of the service: one set for the whole server and one per session.

The Stats RPC returns the server's counters and the caller's own session's (never
another session's); ``xlapy serve --stats`` prints every set when the server stops.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable


class Counters:
    """Named integers, safe to update from many threads."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self._values: dict[str, int] = dict.fromkeys(names, 0)
        self._lock = threading.Lock()

    def add(self, name: str, amount: int = 1) -> None:
        with self._lock:
            self._values[name] = self._values.get(name, 0) + amount

    def get(self, name: str) -> int:
        return self._values.get(name, 0)

    def snapshot(self) -> dict[str, int]:
        with self._lock:
            return dict(self._values)


# Counters every session keeps; the server keeps its own (SERVER_COUNTERS), the last
# three of them summed over its sessions.
SESSION_COUNTERS = (
    "requests", "errors", "bytes_in", "bytes_out", "transfers_in", "transfers_out",
    "compiles", "executions", "handles_live", "bytes_held", "executables_live",
)  # fmt: skip
SERVER_COUNTERS = (
    "sessions_opened", "sessions_live", "sessions_closed", "sessions_disconnected",
    "sessions_expired", "unauthenticated", "bytes_receiving", "executions_running",
    "refused_resource_exhausted", "handles_live", "bytes_held", "executables_live",
)  # fmt: skip


__all__ = ["Counters", "SERVER_COUNTERS", "SESSION_COUNTERS"]
