"""Running one program on every device of an execution, each in its own thread.

Both backends run replicas and partitions the same way: one thread per device
(replica-major, then partition), a hub where they meet in collectives, and
the first real error reported once every thread has stopped (the others fail
with "another device failed" when the hub is aborted, which is not news).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from .hub import CollectiveHub

T = TypeVar("T")


def run_on_devices(
    count: int, timeout: float, run_one: Callable[[int, CollectiveHub], T]
) -> list[T]:
    """``run_one(index, hub)`` on ``count`` devices at once; their results in device order."""
    hub = CollectiveHub(count, timeout)
    results: list[T | None] = [None] * count
    errors: list[BaseException | None] = [None] * count

    def device(index: int) -> None:
        try:
            results[index] = run_one(index, hub)
        except BaseException as e:  # noqa: BLE001  (reported after every device has stopped)
            errors[index] = e
            hub.abort(e)

    threads = [threading.Thread(target=device, args=(i,), daemon=True) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    first = next((e for e in errors if e is not None and not _is_secondary(e)), None)
    first = first or next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return results  # type: ignore[return-value]


def _is_secondary(error: BaseException) -> bool:
    return "another device failed" in str(error)
