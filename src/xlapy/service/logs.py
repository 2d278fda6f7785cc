"""Structured logs: one JSON object per line on stderr, so that tools can read them."""

from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any, TextIO


class JsonLog:
    """Writes ``{"ts": ..., "event": ..., **fields}`` lines; ``requests`` says whether
    every request is logged or only sessions, errors and the server's life."""

    def __init__(self, stream: TextIO | None = None, requests: bool = False) -> None:
        self._stream = stream if stream is not None else sys.stderr
        self._lock = threading.Lock()
        self.requests = requests

    def event(self, event: str, level: str = "info", **fields: Any) -> None:
        record = {"ts": round(time.time(), 6), "level": level, "event": event, **fields}
        line = json.dumps(record, default=str, separators=(",", ":"))
        with self._lock:
            try:
                self._stream.write(line + "\n")
                self._stream.flush()
            except (OSError, ValueError):  # stderr closed: logs are best effort
                pass


__all__ = ["JsonLog"]
