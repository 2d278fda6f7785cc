"""Threads that run devices, kept between executions.

Starting a thread per device per execution costs more than a small collective: each
start waits for the new thread to take the GIL, so the devices of one run started
milliseconds apart and every rendezvous waited for the last one. Here a thread that
finished its device parks and takes the next device of any execution. A thread is
never shared by two devices at once (a busy pool grows instead of queueing), so the
devices of one execution always run concurrently, as their collectives need.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

_idle: list[_DeviceThread] = []
_lock = threading.Lock()


class _DeviceThread:
    def __init__(self) -> None:
        self.tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="xlapy-device", daemon=True).start()

    def _serve(self) -> None:
        while True:
            task = self.tasks.get()
            try:
                task()
            except BaseException:  # noqa: BLE001, S110  (run_on_devices' tasks report their
                pass  # own errors; this thread must live on, it is about to be parked)
            del task
            with _lock:
                _idle.append(self)


def start(task: Callable[[], None]) -> None:
    """Run ``task`` in a thread of its own (a parked one when there is one)."""
    with _lock:
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = _DeviceThread()
    worker.tasks.put(task)


class Countdown:
    """Waits until ``count`` tasks called ``done``."""

    def __init__(self, count: int) -> None:
        self._left = count
        self._lock = threading.Lock()
        self._finished = threading.Event()
        if count == 0:
            self._finished.set()

    def done(self) -> None:
        with self._lock:
            self._left -= 1
            if self._left == 0:
                self._finished.set()

    def wait(self) -> None:
        self._finished.wait()


__all__ = ["Countdown", "start"]
