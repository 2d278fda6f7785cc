"""Sessions: what one client holds on the server, and when it is given back.

A client opens a session and gets an unguessable id; every handle it makes (data or
executable) lives in that session's own tables, under a random number, so a request
naming a handle is looked up only among its own session's: another session's handle
is simply not there (``NotFoundError``, the same answer as for a handle that never
existed, so nothing about other sessions leaks).

A session ends, and everything it holds is released, when its client closes it, when
its client's ``Attach`` stream breaks (the client process died or lost its
connection), or when it has been idle past its lease without being attached. Bytes
held per session are bounded: a transfer reserves its bytes before the first one is
stored and gives them back if it fails.
"""

from __future__ import annotations

import secrets
import threading
import time
from typing import Any

from ..errors import NotFoundError, ResourceExhaustedError
from ..literal import Literal
from .stats import SERVER_COUNTERS, SESSION_COUNTERS, Counters
from .values import value_nbytes

_HANDLE_BITS = 62


class Session:
    """One client's handles, executables, byte budget, counters and lease."""

    def __init__(self, client_name: str, byte_limit: int, server: Counters) -> None:
        self.id = secrets.token_hex(16)
        self.client_name = client_name
        self.byte_limit = byte_limit
        self.created = time.monotonic()
        self.last_used = self.created
        self.attached = 0
        self.closed = threading.Event()
        self.counters = Counters(SESSION_COUNTERS)
        self._server = server
        self._data: dict[int, tuple[Literal, int]] = {}  # handle -> (value, its bytes)
        self._executables: dict[int, Any] = {}
        self._reserved = 0
        self._lock = threading.Lock()

    @property
    def label(self) -> str:
        """A short name for logs (a prefix of the id, never the whole id)."""
        return self.id[:8]

    # -- bytes ------------------------------------------------------------------------
    @property
    def bytes_held(self) -> int:
        return self.counters.get("bytes_held")

    def reserve(self, nbytes: int, what: str) -> None:
        """Count ``nbytes`` against the session's budget before storing them."""
        with self._lock:
            if self.closed.is_set():
                raise NotFoundError(f"{what}: the session was closed")
            if self.bytes_held + self._reserved + nbytes > self.byte_limit:
                self._server.add("refused_resource_exhausted")
                raise ResourceExhaustedError(
                    f"{what}: {nbytes} more bytes would make this session hold "
                    f"{self.bytes_held + self._reserved + nbytes}, past its limit of "
                    f"{self.byte_limit} (--max-session-bytes); deallocate handles first"
                )
            self._reserved += nbytes

    def unreserve(self, nbytes: int) -> None:
        with self._lock:
            self._reserved -= nbytes

    def room(self) -> int:
        """Bytes the session may still reserve."""
        return max(0, self.byte_limit - self.bytes_held - self._reserved)

    # -- data handles ---------------------------------------------------------------------
    def _new_id(self, table: dict[int, Any]) -> int:
        while True:
            handle = secrets.randbits(_HANDLE_BITS) or 1
            if handle not in table:
                return handle

    def hold(self, literal: Literal, reserved: int = 0) -> int:
        """Store ``literal`` and return its handle; ``reserved`` bytes were reserved for
        it already (the rest are reserved now)."""
        nbytes = value_nbytes(literal.shape)
        if nbytes > reserved:
            self.reserve(nbytes - reserved, "storing a value")
            reserved = nbytes
        with self._lock:
            self._reserved -= reserved
            if self.closed.is_set():
                raise NotFoundError("storing a value: the session was closed")
            handle = self._new_id(self._data)
            self._data[handle] = (literal, nbytes)
            self._count_data(+1, nbytes)
        return handle

    def literal(self, handle: int, what: str) -> Literal:
        held = self._data.get(handle)
        if held is None:
            raise NotFoundError(
                f"{what}: no data handle #{handle} in this session (deallocated, or never "
                "made by this session)"
            )
        return held[0]

    def release(self, handle: int) -> bool:
        with self._lock:
            held = self._data.pop(handle, None)
            if held is None:
                return False
            self._count_data(-1, -held[1])
        return True

    def _count_data(self, handles: int, nbytes: int) -> None:
        for counters in (self.counters, self._server):
            counters.add("handles_live", handles)
            counters.add("bytes_held", nbytes)

    # -- executables ------------------------------------------------------------------------
    def hold_executable(self, executable: Any) -> int:
        with self._lock:
            if self.closed.is_set():
                raise NotFoundError("compiling: the session was closed")
            handle = self._new_id(self._executables)
            self._executables[handle] = executable
            for counters in (self.counters, self._server):
                counters.add("executables_live")
        return handle

    def executable(self, handle: int, what: str) -> Any:
        executable = self._executables.get(handle)
        if executable is None:
            raise NotFoundError(
                f"{what}: no executable #{handle} in this session (deallocated, or never "
                "compiled by this session)"
            )
        return executable

    def release_executable(self, handle: int) -> bool:
        with self._lock:
            if self._executables.pop(handle, None) is None:
                return False
            for counters in (self.counters, self._server):
                counters.add("executables_live", -1)
        return True

    def release_all(self) -> None:
        """Drop every handle (the session is ending)."""
        with self._lock:
            self.closed.set()
            data, self._data = self._data, {}
            executables, self._executables = self._executables, {}
            nbytes = sum(held[1] for held in data.values())
            self._count_data(-len(data), -nbytes)
            for counters in (self.counters, self._server):
                counters.add("executables_live", -len(executables))


class SessionTable:
    """Every open session of a server, by id."""

    def __init__(self, max_sessions: int, byte_limit: int, lease_seconds: float,
                 server: Counters | None = None) -> None:  # fmt: skip
        self.max_sessions = max_sessions
        self.byte_limit = byte_limit
        self.lease_seconds = lease_seconds
        self.server = server if server is not None else Counters(SERVER_COUNTERS)
        self._sessions: dict[str, Session] = {}
        self._ended: list[tuple[str, dict[str, int]]] = []  # (label, counters) for --stats
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def open(self, client_name: str) -> Session:
        with self._lock:
            if len(self._sessions) >= self.max_sessions:
                self.server.add("refused_resource_exhausted")
                raise ResourceExhaustedError(
                    f"the server already has {len(self._sessions)} sessions, its limit "
                    "(--max-sessions); close sessions or retry later"
                )
            session = Session(client_name, self.byte_limit, self.server)
            self._sessions[session.id] = session
        self.server.add("sessions_opened")
        self.server.add("sessions_live")
        return session

    def get(self, session_id: str | None) -> Session:
        """The open session ``session_id``, its lease renewed."""
        session = self._sessions.get(session_id) if session_id else None
        if session is None:
            raise NotFoundError(
                "no such session: it was closed, its lease expired, or it was opened on "
                "another server; open a new one (xlapy.connect)"
            )
        session.last_used = time.monotonic()
        return session

    def close(self, session: Session, reason: str) -> bool:
        """End ``session`` and release what it holds; False if it had ended already."""
        with self._lock:
            if self._sessions.pop(session.id, None) is None:
                return False
        session.release_all()
        self.server.add("sessions_live", -1)
        self.server.add(f"sessions_{reason}")
        with self._lock:
            self._ended.append((session.label, session.counters.snapshot()))
            del self._ended[:-1000]
        return True

    def expired(self, now: float | None = None) -> list[Session]:
        """Sessions idle past their lease and not attached (the reaper closes them)."""
        now = time.monotonic() if now is None else now
        return [
            s
            for s in list(self._sessions.values())
            if not s.attached and now - s.last_used > self.lease_seconds
        ]

    def all(self) -> list[Session]:
        return list(self._sessions.values())

    def report(self) -> dict[str, Any]:
        """Every counter: the server's, and each session's, open and ended."""
        sessions = {s.label: s.counters.snapshot() for s in self.all()}
        with self._lock:
            ended = {label: counters for label, counters in self._ended}
        return {"server": self.server.snapshot(), "sessions": sessions, "ended_sessions": ended}


__all__ = ["Session", "SessionTable"]
