"""A real ``xlapy serve`` process on 127.0.0.1 for the service's tests.

The server runs as the user runs it (``python -m xlapy.cli serve``), with a small
message bound (1 MiB, so that streaming and the size checks are exercised with small
arrays), a short lease and a bounded session budget. Every wait is bounded; the
process is stopped with SIGTERM (and killed if it does not go).
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass

import pytest

pytest.importorskip("grpc", reason="the service needs the 'service' extra (grpcio)")

STARTUP_SECONDS = 60.0
MAX_MESSAGE_BYTES = 1 << 20
MAX_SESSION_BYTES = 32 << 20
LEASE_SECONDS = 1.5


@dataclass
class RunningServer:
    process: subprocess.Popen
    address: str
    token: str
    stderr: list[str]
    stdout: list[str]  # what came after the "listening on" line
    readers: tuple[threading.Thread, ...]
    terminated: bool = False

    def terminate(self) -> None:
        self.terminated = True
        self.process.send_signal(signal.SIGTERM)

    def connect(self, **options):
        import xlapy

        if self.process.poll() is not None:  # say why, rather than "connection refused"
            raise RuntimeError(
                f"the server exited with status {self.process.returncode}; its stderr ends: "
                f"{''.join(self.stderr)[-3000:]}"
            )
        return xlapy.connect(self.address, token=self.token, **options)

    def stop(self, timeout: float = 20.0) -> tuple[int, str]:
        """SIGTERM (unless sent already), then wait; returns (exit status, remaining stdout)."""
        if self.process.poll() is None and not self.terminated:
            self.terminate()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(10)
        for reader in self.readers:  # every line written is in stdout/stderr from here on
            reader.join(10)
        return self.process.returncode, "".join(self.stdout)


def start_server(tmp_path, *extra: str, token: str | None = None) -> RunningServer:
    """Start ``xlapy serve`` and wait (bounded) for its ``listening on`` line."""
    token = token or secrets.token_hex(16)
    token_file = tmp_path / f"token-{secrets.token_hex(4)}"
    token_file.write_text(token + "\n")
    command = [
        sys.executable, "-m", "xlapy.cli", "serve", "--listen", "127.0.0.1:0",
        "--platform", "cpu", "--token-file", str(token_file),
        "--max-message-bytes", str(MAX_MESSAGE_BYTES),
        "--max-session-bytes", str(MAX_SESSION_BYTES),
        "--lease-seconds", str(LEASE_SECONDS), "--stats", *extra,
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "XLAPY_SERVICE_TOKEN"}
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    stderr: list[str] = []
    stderr_reader = threading.Thread(target=lambda: stderr.extend(process.stderr), daemon=True)
    stderr_reader.start()
    first: list[str] = []
    reader = threading.Thread(target=lambda: first.append(process.stdout.readline()), daemon=True)
    reader.start()
    reader.join(STARTUP_SECONDS)
    line = first[0].strip() if first else ""
    if not line.startswith("listening on "):
        process.kill()
        time.sleep(0.2)
        raise RuntimeError(f"the server did not start: {line!r}; stderr: {''.join(stderr)[-2000:]}")
    stdout: list[str] = []
    stdout_reader = threading.Thread(target=lambda: stdout.extend(process.stdout), daemon=True)
    stdout_reader.start()
    address = line.removeprefix("listening on ")
    return RunningServer(process, address, token, stderr, stdout, (stdout_reader, stderr_reader))


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("service"))
    yield running
    running.stop()


@pytest.fixture
def client(server):
    c = server.connect(timeout=60.0)
    yield c
    c.close()


def wait_for(condition, timeout: float = 15.0, period: float = 0.05):
    """Poll ``condition()`` until it is truthy; its last value (bounded wait)."""
    end = time.monotonic() + timeout
    value = condition()
    while not value and time.monotonic() < end:
        time.sleep(period)
        value = condition()
    return value


@pytest.fixture
def poll():
    return wait_for


@pytest.fixture
def serve(tmp_path):
    """Start extra servers (with their own flags) for one test; all stopped at the end."""
    started: list[RunningServer] = []

    def start(*extra: str, token: str | None = None) -> RunningServer:
        started.append(start_server(tmp_path, *extra, token=token))
        return started[-1]

    yield start
    for running in started:
        running.stop()
