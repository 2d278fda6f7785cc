"""Authentication, isolation between sessions, and refusing bad or oversized input."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.errors import (
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnauthenticatedError,
)
from xlapy.service.messages import METHODS_BY_NAME, messages
from xlapy.service.rpc import Rpc
from xlapy.service.transport import SESSION_KEY, TOKEN_KEY, TOKEN_SCHEME, error_for


def _raw_call(server, method: str, payload: bytes, session: str | None = None, token=None):
    """Send ``payload`` as is (no serializer) and return the raw answer or raise the
    xlapy error of the status."""
    import grpc

    token = server.token if token is None else token
    metadata = [(TOKEN_KEY, TOKEN_SCHEME + token)] if token else []
    if session:
        metadata.append((SESSION_KEY, session))
    with grpc.insecure_channel(
        server.address, options=[("grpc.max_send_message_length", 64 << 20)]
    ) as channel:
        call = channel.unary_unary(METHODS_BY_NAME[method].path)
        try:
            return call(payload, metadata=metadata, timeout=30)
        except grpc.RpcError as e:
            raise error_for(e.code().name, e.details()) from None


def test_wrong_or_missing_token_is_refused(server):
    with pytest.raises(UnauthenticatedError, match="does not match"):
        xlapy.connect(server.address, token="not-the-token")
    with pytest.raises(UnauthenticatedError, match="no token"):
        _raw_call(server, "Health", b"", token="")
    with pytest.raises(UnauthenticatedError):
        xlapy.connect(server.address, token="")
    with pytest.raises(UnauthenticatedError, match="does not match"):
        _raw_call(server, "ListDevices", b"", token=server.token[:-1] + "x")


def test_the_token_comes_from_the_environment(server, monkeypatch):
    monkeypatch.setenv("XLAPY_SERVICE_TOKEN", server.token)
    client = xlapy.connect(server.address)
    assert client.device_count() == 1
    client.close()


def test_another_sessions_handles_cannot_be_named(server):
    alice, mallory = server.connect(), server.connect()
    secret = alice.transfer_to_server(np.float32([4, 2]))
    m = messages()
    # Through the API: a handle belongs to its client.
    with pytest.raises(InvalidArgumentError, match="another client"):
        mallory.transfer(secret)
    # On the wire: the number means nothing in another session (same answer as for a
    # handle that never existed).
    with pytest.raises(NotFoundError, match="no data handle") as found:
        mallory._rpc.call("TransferToClient", m.HandleRequest(handle=secret.handle))
    with pytest.raises(NotFoundError) as never:
        mallory._rpc.call("TransferToClient", m.HandleRequest(handle=12345))
    assert str(found.value).replace(str(secret.handle), "N") == str(never.value).replace(
        "12345", "N"
    )
    request = m.ExecuteRequest(executable=1)
    with pytest.raises(NotFoundError, match="no executable"):
        mallory._rpc.call("Execute", request)
    with pytest.raises(NotFoundError, match="no such session"):
        _raw_call(server, "ListDevices", b"", session="0" * 32)
    assert (
        mallory._rpc.call("Deallocate", m.DeallocateRequest(handles=[secret.handle])).released == 0
    )
    np.testing.assert_array_equal(alice.transfer(secret).to_numpy(), [4, 2])
    alice.close()
    mallory.close()


def test_malformed_messages_are_refused_and_the_server_keeps_serving(server, client):
    session = client.session_id
    with pytest.raises(
        InvalidArgumentError, match="TransferToServer: the request is not a valid Value"
    ):
        _raw_call(server, "TransferToServer", b"\xff\xff\xff\xff", session=session)
    m = messages()
    short = m.Value(data=b"\0" * 3)
    short.shape.element_type = 11  # F32
    short.shape.dimensions.append(10)
    with pytest.raises(InvalidArgumentError, match="takes 40 bytes, got 3"):
        client._rpc.call("TransferToServer", short)
    bad_shape = m.Value()
    bad_shape.shape.element_type = 999
    with pytest.raises(InvalidArgumentError, match="invalid shape"):
        client._rpc.call("TransferToServer", bad_shape)
    mismatched = m.Value()
    mismatched.shape.element_type = 11
    mismatched.shape.dimensions.extend([2, 3])
    mismatched.shape.is_dynamic_dimension.append(False)
    with pytest.raises(InvalidArgumentError):
        client._rpc.call("TransferToServer", mismatched)
    with pytest.raises(InvalidArgumentError, match="no program"):
        client._rpc.call("Compile", m.CompileRequest())
    assert client.health()["status"] == "SERVING"
    np.testing.assert_array_equal(
        client.transfer(client.transfer_to_server(np.int32([7]))).to_numpy(), [7]
    )


def test_oversized_messages_are_refused_and_the_server_keeps_serving(server, client):
    m = messages()
    huge = m.Value(data=b"\0" * (2 << 20))  # twice the server's 1 MiB bound
    huge.shape.element_type = 6  # U8
    huge.shape.dimensions.append(2 << 20)
    with pytest.raises(ResourceExhaustedError, match="(?i)larger than max|message"):
        _raw_call(server, "TransferToServer", huge.SerializeToString(), session=client.session_id)
    assert client.health()["status"] == "SERVING"
    np.testing.assert_array_equal(
        client.transfer(client.transfer_to_server(np.int32([8]))).to_numpy(), [8]
    )


def test_a_session_cannot_hold_more_than_its_budget(client):
    before = client.stats()["session"]["bytes_held"]
    with pytest.raises(ResourceExhaustedError, match="max-session-bytes"):
        client.transfer_to_server(np.zeros(40 << 20, np.uint8))  # the budget is 32 MiB
    assert client.stats()["session"]["bytes_held"] == before
    assert client.stats()["server"]["bytes_receiving"] == 0
    kept = client.transfer_to_server(np.zeros(1000, np.uint8))
    assert kept.shape.dimensions == (1000,)


def test_errors_map_to_status_codes_both_ways():
    from xlapy import errors
    from xlapy.service.transport import code_name_of

    for cls in (errors.InvalidArgumentError, errors.NotFoundError, errors.ResourceExhaustedError,
                errors.UnauthenticatedError, errors.PermissionDeniedError,
                errors.UnavailableError, errors.DeadlineExceededError):  # fmt: skip
        assert type(error_for(code_name_of(cls("x")), "x")) is cls
    assert code_name_of(errors.ParseError("x")) == "INVALID_ARGUMENT"
    assert code_name_of(KeyError("x")) == "INTERNAL"


def test_an_unreachable_server_is_unavailable_after_retries():
    rpc = Rpc("127.0.0.1:1", "some-token", timeout=2.0, retries=1)
    with pytest.raises(xlapy.errors.UnavailableError, match="unavailable"):
        rpc.call("Health", messages().Empty())
    rpc.close()
