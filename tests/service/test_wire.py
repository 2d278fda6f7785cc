"""The service's pieces without a server: values on the wire, chunks, sessions, bounds,
retries."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import xlapy
from xlapy import Literal, Shape
from xlapy.errors import (
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnauthenticatedError,
)
from xlapy.service import streams, values, wire
from xlapy.service.auth import TokenCheck, load_token
from xlapy.service.limits import ExecutionGate, Limits
from xlapy.service.messages import messages
from xlapy.service.sessions import SessionTable

pytest.importorskip("google.protobuf")


def _values() -> list[Literal]:
    return [
        Literal.from_value(np.float32(2.5)),
        Literal.from_numpy(np.arange(12, dtype=np.int64).reshape(3, 4), (0, 1)),
        Literal.from_value((np.arange(3, dtype=np.uint8), (np.float64(1), np.zeros(0, np.int32)))),
        Literal.from_numpy(np.array([1, -2], dtype=xlapy.BF16.dtype)),
        Literal.token(),
    ]


@pytest.mark.parametrize("index", range(5))
def test_values_round_trip_whole_and_in_chunks(index):
    literal = _values()[index]
    message = values.fill_value(messages().Value(), literal)
    parsed = messages().Value.FromString(message.SerializeToString())
    assert values.read_value(parsed, "test").equal(literal)
    for chunk_bytes in (1, 5, 1 << 20):
        chunks = list(streams.encode_chunks(literal, chunk_bytes))
        back = streams.IncomingValue(iter(chunks), messages().Value, "test").read()
        assert back.shape == literal.shape and back.equal(literal)


def test_chunks_are_plain_value_messages_both_ways():
    literal = Literal.from_numpy(np.arange(10, dtype=np.int16))
    first, *rest = streams.encode_chunks(literal, 8)
    parsed = messages().Value.FromString(first)
    assert values.read_shape(parsed.shape, "t") == literal.shape and len(parsed.data) == 8
    # Chunks another protobuf writer made (with the fields in another order) read too.
    other = messages().Value(data=parsed.data)
    other.shape.CopyFrom(parsed.shape)
    again = [other.SerializeToString(), *rest]
    assert streams.IncomingValue(iter(again), messages().Value, "t").read().equal(literal)
    assert wire.decode_chunk(messages().Value(data=b"ab").SerializeToString(), "t")[1] == b"ab"


def test_short_long_and_garbled_streams_are_refused():
    literal = Literal.from_numpy(np.arange(10, dtype=np.int32))
    chunks = list(streams.encode_chunks(literal, 16))
    m = messages().Value
    with pytest.raises(InvalidArgumentError, match="ended after 32"):
        streams.IncomingValue(iter(chunks[:-1]), m, "t").read()
    with pytest.raises(InvalidArgumentError, match="sent more"):
        streams.IncomingValue(iter(chunks + chunks[-1:]), m, "t").read()
    with pytest.raises(InvalidArgumentError, match="only the first chunk"):
        streams.IncomingValue(iter(chunks + chunks[:1]), m, "t").read()
    with pytest.raises(InvalidArgumentError, match="no shape"):
        streams.IncomingValue(iter(chunks[1:]), m, "t")
    with pytest.raises(InvalidArgumentError, match="not a valid Value"):
        streams.IncomingValue(iter([b"\x12\xff"]), m, "t")
    with pytest.raises(InvalidArgumentError, match="carried no value"):
        streams.IncomingValue(iter([]), m, "t")


def test_shapes_are_checked_before_anything_is_allocated():
    m = messages().Value()
    m.shape.element_type = 11  # F32
    m.shape.dimensions.extend([1 << 40, 1 << 20])
    with pytest.raises(ResourceExhaustedError):
        values.checked_shape(m, "t")
    m.shape.ClearField("dimensions")
    m.shape.dimensions.append(100)
    with pytest.raises(ResourceExhaustedError, match="max-session-bytes"):
        values.checked_shape(m, "t", byte_limit=399)
    assert values.checked_shape(m, "t", byte_limit=400) == Shape.parse("f32[100]")
    opaque = messages().Value()
    opaque.shape.element_type = 14  # OPAQUE_TYPE
    with pytest.raises(InvalidArgumentError, match="opaque"):
        values.checked_shape(opaque, "t")


def test_numpy_values_go_straight_to_bytes():
    message = messages().Value()
    values.fill_any(message, np.arange(6, dtype=np.float32).reshape(2, 3), "t")
    out = values.read_numpy(message, "t")
    np.testing.assert_array_equal(out, np.arange(6).reshape(2, 3))
    values.fill_any(message, 3, "t")  # a Python int: xlapy's rules (s32)
    assert values.read_numpy(message, "t").dtype == np.int32
    with pytest.raises(InvalidArgumentError):
        values.fill_any(messages().Value(), object(), "t")


def test_sessions_own_their_handles_and_budget():
    table = SessionTable(max_sessions=2, byte_limit=100, lease_seconds=0.01)
    a, b = table.open("a"), table.open("b")
    with pytest.raises(ResourceExhaustedError, match="max-sessions"):
        table.open("c")
    handle = a.hold(Literal.from_numpy(np.zeros(10, np.float32)))
    with pytest.raises(NotFoundError, match="never made by this session"):
        b.literal(handle, "t")
    with pytest.raises(ResourceExhaustedError, match="past its limit of 100"):
        a.hold(Literal.from_numpy(np.zeros(16, np.float32)))
    assert table.server.get("bytes_held") == 40
    time.sleep(0.02)
    assert {s.id for s in table.expired()} == {a.id, b.id}
    a.attached = 1
    assert [s.id for s in table.expired()] == [b.id]
    assert table.close(a, "closed") and not table.close(a, "closed")
    assert table.server.get("bytes_held") == 0 and table.server.get("handles_live") == 0
    with pytest.raises(NotFoundError, match="no such session"):
        table.get(a.id)


def test_the_execution_gate_bounds_and_drains():
    gate = ExecutionGate(slots=1, queue_seconds=0.05)
    entered, release = threading.Event(), threading.Event()

    def hold() -> None:
        with gate.slot("first"):
            entered.set()
            release.wait(5)

    holder = threading.Thread(target=hold)
    holder.start()
    entered.wait(5)
    with pytest.raises(ResourceExhaustedError, match="max-concurrent-executions"):
        with gate.slot("second"):
            pass
    assert not gate.wait_idle(0.01)
    release.set()
    assert gate.wait_idle(5)
    holder.join(5)
    with pytest.raises(InvalidArgumentError):
        Limits(max_concurrent_executions=0)


def test_tokens(tmp_path):
    check = TokenCheck("a-long-enough-token")
    check.check([("authorization", "Bearer a-long-enough-token")])
    with pytest.raises(UnauthenticatedError):
        check.check([("authorization", "Bearer a-long-enough-tokeN")])
    with pytest.raises(UnauthenticatedError, match="no token"):
        check.check([])
    path = tmp_path / "t"
    path.write_text("from-the-file-123\n")
    assert load_token(str(path), {"XLAPY_SERVICE_TOKEN": "from-the-env-456"}) == "from-the-file-123"
    assert load_token(None, {"XLAPY_SERVICE_TOKEN": "from-the-env-456"}) == "from-the-env-456"
    with pytest.raises(xlapy.errors.FailedPreconditionError, match="at least 8"):
        load_token(None, {"XLAPY_SERVICE_TOKEN": "short"})


class _Unavailable(Exception):
    def code(self):
        import grpc

        return grpc.StatusCode.UNAVAILABLE

    def details(self):
        return "connection refused"


def test_only_idempotent_calls_are_retried():
    from xlapy.service.rpc import Rpc

    rpc = Rpc("127.0.0.1:1", "some-token", timeout=1.0, retries=2)
    rpc._grpc_error = _Unavailable
    calls = []

    def failing():
        calls.append(1)
        raise _Unavailable()

    with pytest.raises(xlapy.errors.UnavailableError):
        rpc._with_retries("GetShape", failing)
    assert len(calls) == 3
    calls.clear()
    with pytest.raises(xlapy.errors.UnavailableError):
        rpc._with_retries("Execute", failing)
    assert len(calls) == 1
    rpc.close()


def test_importing_xlapy_and_its_cli_loads_no_grpc_nor_protobuf():
    import subprocess
    import sys

    code = (
        "import sys, xlapy, xlapy.cli\n"
        "assert callable(xlapy.connect)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('grpc', 'google')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
