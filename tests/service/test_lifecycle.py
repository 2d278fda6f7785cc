"""Sessions end and free everything (crash, lease); many clients at once; shutdown,
TLS and the ``xlapy serve`` command itself."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading

import numpy as np
import pytest

import xlapy
from xlapy import Shape, ops
from xlapy.errors import NotFoundError, UnavailableError
from xlapy.service.messages import messages
from xlapy.service.rpc import Rpc

# A client that holds a value, then dies in the middle of streaming a second one.
_DYING_CLIENT = """
import sys, time
import numpy as np
import xlapy
from xlapy.service import streams

client = xlapy.connect(sys.argv[1], token=sys.argv[2])
kept = client.transfer_to_server(np.ones(1000, np.float32))
literal = xlapy.Literal.from_numpy(np.zeros(3 << 20, np.uint8))

def chunks():
    stream = streams.encode_chunks(literal, 256 << 10)
    yield next(stream)
    yield next(stream)
    print("streaming", flush=True)
    time.sleep(600)

client._rpc.stream_in("TransferToServerStream", chunks())
"""


def test_a_client_killed_mid_transfer_leaves_nothing_behind(server, client, poll):
    def server_counters():
        return client.stats()["server"]

    before = server_counters()
    dying = subprocess.Popen(
        [sys.executable, "-c", _DYING_CLIENT, server.address, server.token],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        line: list[str] = []
        reader = threading.Thread(target=lambda: line.append(dying.stdout.readline()), daemon=True)
        reader.start()
        reader.join(60)
        assert line and line[0].strip() == "streaming"
        # Mid-transfer: the server holds the first value and is receiving the second.
        assert poll(lambda: server_counters()["bytes_receiving"] >= 3 << 20)
        held = server_counters()
        assert held["bytes_held"] >= before["bytes_held"] + 4000
        assert held["sessions_live"] == before["sessions_live"] + 1
    finally:
        dying.kill()
        dying.wait(10)

    # The session ends when its Attach stream breaks, the half-received value when its
    # stream does: wait for both.
    def released() -> dict | None:
        now = server_counters()
        back = now["sessions_live"] == before["sessions_live"] and now["bytes_receiving"] == 0
        return now if back else None

    after = poll(released, 20)
    assert after, server_counters()
    assert after["bytes_held"] == before["bytes_held"]
    assert after["handles_live"] == before["handles_live"]
    assert after["sessions_disconnected"] == before["sessions_disconnected"] + 1


def test_an_unattached_session_expires_with_its_lease(server, client, poll):
    m = messages()
    idle = server.connect()  # attached, then left alone for longer than the lease
    rpc = Rpc(server.address, server.token, timeout=10.0)
    opened = rpc.call("OpenSession", m.OpenSessionRequest(client_name="no attach"))
    rpc.join_session(opened.session_id)
    value = m.Value(data=np.zeros(500, np.float64).tobytes())
    value.shape.element_type = 12  # F64
    value.shape.dimensions.append(500)
    handle = rpc.call("TransferToServer", value).handle
    held = client.stats()["server"]
    assert held["bytes_held"] >= 4000

    # Watched from another session: a request in this one would renew its lease.
    assert poll(lambda: client.stats()["server"]["sessions_expired"] > held["sessions_expired"], 10)
    after = client.stats()["server"]
    assert after["bytes_held"] <= held["bytes_held"] - 4000
    with pytest.raises(NotFoundError, match="no such session"):
        rpc.call("GetShape", m.HandleRequest(handle=handle))
    # The attached client, idle for longer than the lease, keeps its session.
    assert idle.device_count() == 1
    idle.close()
    rpc.close()


def _axpy() -> xlapy.XlaComputation:
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, Shape.parse("f32[]"), "alpha")
    x = ops.Parameter(b, 1, Shape.parse("f32[64]"), "x")
    y = ops.Parameter(b, 2, Shape.parse("f32[64]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def test_concurrent_clients_get_correct_results(server):
    computation = _axpy()
    failures: list[BaseException] = []

    def work(k: int) -> None:
        try:
            with server.connect() as c:
                axpy = c.compile(computation)
                x = np.arange(64, dtype=np.float32) * k
                for i in range(8):
                    alpha = np.float32(i)
                    y = np.full(64, k, np.float32)
                    handles = [c.transfer_to_server(v) for v in (alpha, x, y)]
                    np.testing.assert_array_equal(
                        c.execute_and_transfer(axpy, handles).to_numpy(), alpha * x + y
                    )
                    np.testing.assert_array_equal(axpy(alpha, x, y), alpha * x + y)
        except BaseException as e:  # noqa: BLE001
            failures.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures, failures[0]


def test_serve_refuses_to_run_without_a_token(monkeypatch, capsys):
    from xlapy import cli

    monkeypatch.delenv("XLAPY_SERVICE_TOKEN", raising=False)
    assert cli.main(["serve", "--listen", "127.0.0.1:0"]) == 1
    assert "no token" in capsys.readouterr().err


def _loop_until_infeed() -> xlapy.XlaComputation:
    """A program that runs until the client feeds it: an execution in flight."""
    b = xlapy.XlaBuilder("waits")
    x = ops.Infeed(b, Shape.parse("f32[2]"))
    ops.Add(x, ops.ConstantR0(b, 1.0, xlapy.F32))
    return b.build()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a certificate")
def test_tls_server_drains_running_executions_on_sigterm(serve, tmp_path, poll):
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    running = serve("--tls-cert", str(cert), "--tls-key", str(key), "--log-requests")
    with pytest.raises(UnavailableError):  # TLS only: a plain connection is refused
        xlapy.connect(running.address, token=running.token, timeout=5.0, retries=0)
    client = running.connect(tls_ca=str(cert))
    waits = client.compile(_loop_until_infeed())
    results: list = []
    runner = threading.Thread(target=lambda: results.append(waits()), daemon=True)
    runner.start()
    assert poll(lambda: client.stats()["server"]["executions_running"] == 1)
    running.terminate()
    assert poll(lambda: client.health()["status"] == "DRAINING")
    with pytest.raises(UnavailableError, match="shutting down"):
        client.transfer_to_server(np.float32(1))
    waits.infeed[0].put(np.float32([1, 2]))  # the running execution may still finish
    runner.join(30)
    np.testing.assert_array_equal(results[0], [2, 3])
    status, out = running.stop()
    assert status == 0
    stats = json.loads(out)
    assert stats["server"]["sessions_live"] == 0 and stats["server"]["bytes_held"] == 0
    assert any(s["executions"] == 1 for s in stats["ended_sessions"].values())
    logs = [json.loads(line) for line in running.stderr if line.startswith("{")]
    events = [e["event"] for e in logs]
    assert {"listening", "draining", "stopped", "request"} <= set(events)
