"""``xlapy serve --listen unix:PATH``: the same service over a unix-domain socket."""

from __future__ import annotations

import os
import socket
import stat

import numpy as np
import pytest

import xlapy
from xlapy import Shape, ops
from xlapy.errors import InvalidArgumentError, UnauthenticatedError, UnavailableError

pytest.importorskip("grpc")

from xlapy.service.server import check_unix_path  # noqa: E402


def _axpy() -> xlapy.XlaComputation:
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, Shape.parse("f32[]"), "alpha")
    x = ops.Parameter(b, 1, Shape.parse("f32[4]"), "x")
    y = ops.Parameter(b, 2, Shape.parse("f32[4]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def test_serves_on_a_unix_socket_only_its_owner_may_open(serve, tmp_path):
    path = tmp_path / "xlapy.sock"
    running = serve("--listen", f"unix:{path}")
    assert running.address == f"unix:{path}"
    mode = os.stat(path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    with running.connect() as client:
        x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
        np.testing.assert_array_equal(client.compile(_axpy())(np.float32(2), x, y), 2 * x + y)
        big = np.arange(300_000, dtype=np.float32)  # past the 1 MiB message bound: streamed
        np.testing.assert_array_equal(
            client.transfer(client.transfer_to_server(big)).to_numpy(), big
        )
    with pytest.raises(UnauthenticatedError):  # the token is still required
        xlapy.connect(running.address, token="wrong-token-123", timeout=10.0, retries=0)
    status, _ = running.stop()
    assert status == 0 and not path.exists()  # the socket goes with the server


def test_unix_path_checks(tmp_path):
    with pytest.raises(InvalidArgumentError, match="needs a path"):
        check_unix_path("")
    regular = tmp_path / "file"
    regular.write_text("not a socket")
    with pytest.raises(InvalidArgumentError, match="not a socket"):
        check_unix_path(str(regular))
    live = tmp_path / "live.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(str(live))
        listener.listen(1)
        with pytest.raises(UnavailableError, match="another server is listening"):
            check_unix_path(str(live))
    finally:
        listener.close()
    check_unix_path(str(live))  # left behind by a server that is gone: taken over
    check_unix_path(str(tmp_path / "new.sock"))
