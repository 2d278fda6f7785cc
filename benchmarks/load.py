"""One core kept busy by another process, for the benchmark's "under load" table.

A library that is fast on a quiet machine can stall on a busy one: worker threads that
spin waiting for each other, or work split evenly over every core when one core is
shared, make a call as slow as its most delayed part. The loaded table times every
workload while a separate process spins on one core's worth of CPU, and reports each
engine's time over its quiet time (the slowdown).

The spinner is a Python busy loop in its own process, started once, stopped
(``SIGSTOP``) between loaded phases and killed at the end, on an exception and on
Ctrl-C (the context manager's exit). On Linux it is also killed by the kernel if this
process dies without cleaning up (``PR_SET_PDEATHSIG``), and it exits on its own once
its parent is gone, so no spinner outlives the benchmark.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from types import TracebackType

# Asks the kernel for SIGKILL when its parent dies (Linux), then spins; every few million
# iterations it checks that its parent still exists (other systems, or a parent that died
# before the request).
SPIN_SOURCE = """
import ctypes, ctypes.util, os, signal, sys
parent = os.getppid()
if sys.platform.startswith("linux"):
    try:
        ctypes.CDLL(ctypes.util.find_library("c")).prctl(1, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        pass
while os.getppid() == parent:
    for _ in range(2_000_000):
        pass
"""


class BusyCore:
    """A process spinning on one core while ``busy()`` is entered.

    Use as a context manager (the process exists inside it, stopped), and
    ``with core.busy():`` around what must run under load.
    """

    def __init__(self) -> None:
        self._process: subprocess.Popen | None = None

    def __enter__(self) -> BusyCore:
        self._process = subprocess.Popen(
            [sys.executable, "-c", SPIN_SOURCE],
            stdin=subprocess.DEVNULL,
        )
        self._signal(signal.SIGSTOP)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        return None if self._process is None else self._process.pid

    def _signal(self, number: int) -> None:
        if self._process is not None and self._process.poll() is None:
            os.kill(self._process.pid, number)

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        """The spinner runs inside this block, and is stopped again after it."""
        if self._process is None:
            raise RuntimeError("BusyCore.busy() outside its `with BusyCore()` block")
        self._signal(signal.SIGCONT)
        try:
            yield
        finally:
            self._signal(signal.SIGSTOP)

    def close(self) -> None:
        """Kill the spinner (SIGKILL works on a stopped process too) and reap it."""
        if self._process is None:
            return
        process, self._process = self._process, None
        if process.poll() is None:
            process.kill()
        process.wait()
