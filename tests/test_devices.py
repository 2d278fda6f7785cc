"""Devices of a client (global ids, processes), device assignments per executable, and the
errors for too few devices or a bad assignment."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.client import CompileOptions, Device, DeviceAssignment, LocalClient
from xlapy.distributed import process as process_module
from xlapy.distributed.process import ProcessInfo
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module

ADD_ONE = parse_module("""HloModule m
ENTRY e {
  x = s32[4] parameter(0)
  one = s32[] constant(1)
  b = s32[4] broadcast(one), dimensions={}
  ROOT a = s32[4] add(x, b)
}""")


@pytest.fixture
def second_of_two_processes(monkeypatch):
    """This process as process 1 of a job of 2 (as ``distributed.initialize`` records it)."""
    monkeypatch.setattr(process_module, "_current", ProcessInfo(1, 2))


def test_a_client_with_four_devices_lists_them_by_global_id():
    client = xlapy.local_client("interpreter", device_count=4)
    assert [d.id for d in client.devices()] == [0, 1, 2, 3]
    assert client.devices() == client.local_devices()
    assert {d.process_index for d in client.devices()} == {0}
    assert {d.platform for d in client.devices()} == {"interpreter"}
    assert client.device_count() == client.local_device_count() == 4
    assert client.process_index() == 0
    assert str(client.devices()[2]) == "interpreter:2"
    assert xlapy.local_client("interpreter", device_count=4) is client
    assert xlapy.local_client("interpreter", device_count=2) is not client


def test_a_device_is_made_as_before():
    assert Device("cpu", 3) == Device("cpu", 3, 0)


def test_global_ids_count_the_processes_before_this_one(second_of_two_processes):
    client = LocalClient("interpreter", device_count=4)
    assert client.process_index() == 1
    assert [d.id for d in client.devices()] == list(range(8))
    assert [d.id for d in client.local_devices()] == [4, 5, 6, 7]
    assert [d.process_index for d in client.devices()] == [0] * 4 + [1] * 4
    assert client.device_count() == 8 and client.local_device_count() == 4


def test_a_multi_process_executable_runs_only_this_process_devices(second_of_two_processes):
    """The backend is asked for the local devices only (``local_devices=``, logical ids)."""
    client = LocalClient("interpreter", device_count=2)
    exe = client.compile(ADD_ONE, CompileOptions(num_replicas=4))
    assert exe.local_logical_ids == [2, 3]
    calls = []

    class Recording:
        def execute_replicated(self, arguments, local_devices=None):
            calls.append((len(arguments), local_devices))
            return [a[0] for a in arguments]

    exe._executable = Recording()
    out = exe.execute_replicated([[np.arange(4, dtype=np.int32)]] * 2)
    assert calls == [(2, [2, 3])] and len(out) == 2
    with pytest.raises(InvalidArgumentError, match="2 local devices"):
        exe.execute_replicated([[np.arange(4, dtype=np.int32)]] * 4)


def test_default_device_assignment_is_replica_major():
    client = xlapy.local_client("interpreter", device_count=4)
    exe = client.compile(ADD_ONE, CompileOptions(num_replicas=2, num_partitions=2))
    assignment = exe.device_assignment
    assert assignment.ids == ((0, 1), (2, 3))
    assert (assignment.replica_count, assignment.computation_count) == (2, 2)
    assert assignment(1, 0) == 2 and assignment.logical_id(3) == (1, 1)
    np.testing.assert_array_equal(assignment.as_array(), [[0, 1], [2, 3]])
    assert str(assignment) == "DeviceAssignment(2x2: 0 1; 2 3)"


def test_a_given_device_assignment_is_kept_and_runs():
    client = xlapy.local_client("interpreter", device_count=4)
    options = CompileOptions(num_replicas=2, device_assignment=[[3], [1]])
    exe = client.compile(ADD_ONE, options)
    assert exe.device_assignment == DeviceAssignment(((3,), (1,)))
    results = exe(np.arange(4, dtype=np.int32))
    for r in results:
        np.testing.assert_array_equal(r, np.arange(1, 5))


@pytest.mark.parametrize(
    "assignment,message",
    [
        ([[0, 1]], "must be replicas x partitions = 2 x 1"),
        ([[0], [0]], "names a device twice"),
        ([[0], [7]], r"names devices \[7\]"),
        ([0, 1], "replicas x partitions array"),
        ([["a"], ["b"]], "replicas x partitions array"),
    ],
)
def test_a_bad_device_assignment_is_refused(assignment, message):
    client = xlapy.local_client("interpreter", device_count=4)
    with pytest.raises(InvalidArgumentError, match=message):
        client.compile(ADD_ONE, CompileOptions(num_replicas=2, device_assignment=assignment))


def test_too_few_devices_is_a_clear_error():
    client = xlapy.local_client("interpreter", device_count=2)
    with pytest.raises(InvalidArgumentError, match=r"needs 4 devices.*has 2.*device_count=4"):
        client.compile(ADD_ONE, CompileOptions(num_replicas=2, num_partitions=2))


@pytest.mark.parametrize("count", [0, -1, 1.5, True])
def test_device_count_must_be_a_positive_int(count):
    with pytest.raises(InvalidArgumentError, match="device_count must be an int >= 1"):
        LocalClient("interpreter", device_count=count)


def test_a_client_without_device_count_grows_to_what_it_runs():
    client = LocalClient("interpreter")
    assert client.device_count() == 1
    exe = client.compile(ADD_ONE, CompileOptions(num_replicas=3))
    assert client.device_count() == 3 and len(exe(np.zeros(4, np.int32))) == 3
