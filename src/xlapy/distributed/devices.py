"""Running one program on every device of an execution, each in its own thread.

Both backends run replicas and partitions the same way: one thread per device
(replica-major, then partition), a hub where they meet in collectives, and
the first real error reported once every thread has stopped (the others fail
with "another device failed" when the hub is aborted, which is not news).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from .hub import CollectiveHub
from .process_hub import hub_for

T = TypeVar("T")


def run_on_devices(
    count: int,
    timeout: float,
    run_one: Callable[[int, CollectiveHub], T],
    local_devices: Sequence[int] | None = None,
) -> list[T]:
    """``run_one(index, hub)`` on ``count`` devices at once; their results in device order.

    ``local_devices`` (global device ids) runs only those devices here, their results in
    that order: the share of one process of a multi-process job, whose collectives with
    the other processes' devices go through MPI (``process_hub``)."""
    devices = list(range(count)) if local_devices is None else list(local_devices)
    hub = hub_for(local_devices, count, timeout)
    results: list[T | None] = [None] * len(devices)
    errors: list[BaseException | None] = [None] * len(devices)

    def device(k: int) -> None:
        try:
            results[k] = run_one(devices[k], hub)
        except BaseException as e:  # noqa: BLE001  (reported after every device has stopped)
            errors[k] = e
            hub.abort(e)

    if len(devices) == 1:  # one local device (a process of a job): no thread to start
        device(0)
    else:
        threads = [
            threading.Thread(target=device, args=(k,), daemon=True) for k in range(len(devices))
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    if not any(errors):
        try:
            hub.finish()
        except BaseException as e:  # noqa: BLE001
            errors[0] = e
    first = next((e for e in errors if e is not None and not _is_secondary(e)), None)
    first = first or next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return results  # type: ignore[return-value]


def _is_secondary(error: BaseException) -> bool:
    return "another device failed" in str(error)
