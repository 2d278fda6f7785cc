"""Running one program on every device of an execution, each in its own thread.

Both backends run replicas and partitions the same way: one thread per device
(replica-major, then partition; the caller's thread runs the first, parked threads of
``device_threads`` the others), a hub where they meet in collectives, and
the first real error reported once every thread has stopped (the others fail
with "another device failed" when the hub is aborted, which is not news).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from . import device_threads
from .device_threads import Countdown
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

    # The first device runs on the calling thread, the others on parked device threads.
    others = Countdown(len(devices) - 1)

    def device_then_count(k: int) -> None:
        try:
            device(k)
        finally:
            others.done()

    for k in range(1, len(devices)):
        device_threads.start(lambda k=k: device_then_count(k))
    device(0)
    others.wait()
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
