"""Devices run on parked threads (``distributed.device_threads``): the devices of one
execution always run at once, also while another execution holds threads, and a device
that fails leaves its thread usable."""

from __future__ import annotations

import threading

import pytest

from xlapy.distributed import run_on_devices
from xlapy.errors import InvalidArgumentError


def _meet_twice(index: int, hub) -> int:
    """Two rendezvous of all four devices: every device must be running at once."""
    first = hub.exchange(("a", 0), [0, 1, 2, 3], index, index, "test")
    second = hub.exchange(("b", 0), [0, 1, 2, 3], index, sum(first), "test")
    return sum(second) + index


def test_concurrent_executions_each_run_all_their_devices_at_once():
    results: dict[int, list[int]] = {}

    def execution(k: int) -> None:
        results[k] = run_on_devices(4, 10.0, _meet_twice)

    callers = [threading.Thread(target=execution, args=(k,)) for k in range(3)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(30)
    assert results == {k: [24, 25, 26, 27] for k in range(3)}


def test_a_failing_device_leaves_the_threads_usable():
    def fails_on_two(index: int, hub) -> int:
        if index == 2:
            raise InvalidArgumentError("device 2 fails")
        return _meet_twice(index, hub)

    with pytest.raises(InvalidArgumentError, match="device 2 fails"):
        run_on_devices(4, 5.0, fails_on_two)
    for _ in range(3):
        assert run_on_devices(4, 10.0, _meet_twice) == [24, 25, 26, 27]
