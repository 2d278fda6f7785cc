"""``python -m benchmarks.service``: ``xlapy serve`` over loopback, against issue 20's targets.

Starts a real server process (as a user would: ``python -m xlapy.cli serve``) and
measures, from this process:

- the seed's axpy round trip: transfer alpha, x and y, execute, transfer the result
  back, both as the seed writes it (three transfers, then ``execute_and_transfer``: four
  requests) and as one call of the compiled executable with numpy arguments (one
  request: arguments in, result out), over loopback TCP and over a unix socket; target
  <= 300 us. These take turns with the floor (an empty gRPC call to a Python server
  that does nothing, and xlapy's Health) so that a loaded machine weighs on all alike;
- 256 MB transfers each way (streamed in 4 MB chunks); target >= 1 GB/s;
- 32 concurrent clients (threads, each its own connection and session) making 1,000
  mixed requests each (transfers both ways, executions on handles and on values, shapes,
  deallocations); target: no error, and the server's resident memory back within 5% of
  what it was before they came, once they have left.

For scale, the floor of the stack on the same machine: an empty unary gRPC call and
bytes streamed to and from a Python gRPC server that does nothing with them.

Not part of ``make test``. Writes JSON with ``--json FILE``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any

import numpy as np

import xlapy
from xlapy import Shape, ops


def start_server(token: str, *extra: str) -> tuple[subprocess.Popen, str]:
    token_file = tempfile.NamedTemporaryFile("w", suffix=".token", delete=False)
    token_file.write(token)
    token_file.close()
    process = subprocess.Popen(
        [sys.executable, "-m", "xlapy.cli", "serve", "--listen", "127.0.0.1:0",
         "--token-file", token_file.name, "--max-session-bytes", str(1 << 30), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    line = process.stdout.readline().strip()
    os.unlink(token_file.name)
    if not line.startswith("listening on "):
        process.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return process, line.removeprefix("listening on ")


_ECHO_SERVER = """
import sys, grpc
from concurrent import futures
def drain(chunks, context):
    return str(sum(len(chunk) for chunk in chunks)).encode()

def send(request, context):
    chunk = bytes(4 << 20)
    for _ in range(int(request)):
        yield chunk

handler = grpc.method_handlers_generic_handler("echo.Echo", {
    "Echo": grpc.unary_unary_rpc_method_handler(lambda request, context: request),
    "Drain": grpc.stream_unary_rpc_method_handler(drain),
    "Send": grpc.unary_stream_rpc_method_handler(send),
})
options = [("grpc.max_receive_message_length", 64 << 20), ("grpc.max_send_message_length", 64 << 20)]
server = grpc.server(futures.ThreadPoolExecutor(8), handlers=[handler], options=options)
port = server.add_insecure_port("127.0.0.1:0")
server.start()
print(port, flush=True)
server.wait_for_termination()
"""


def grpc_floor(repeats: int, megabytes: int) -> dict[str, Any]:
    """What any Python gRPC service pays on this machine: an empty unary call, and bytes
    streamed in 4 MB messages each way, to and from a Python server in another process
    that does nothing with them."""
    import grpc

    process = subprocess.Popen(
        [sys.executable, "-c", _ECHO_SERVER], stdout=subprocess.PIPE, text=True
    )
    options = [("grpc.max_receive_message_length", 64 << 20)]
    try:
        port = int(process.stdout.readline())
        with grpc.insecure_channel(f"127.0.0.1:{port}", options=options) as channel:
            echo = channel.unary_unary("/echo.Echo/Echo")
            drain = channel.stream_unary("/echo.Echo/Drain")
            send = channel.unary_stream("/echo.Echo/Send")
            call = timed(lambda: echo(b"x" * 100, timeout=10), repeats)
            data = memoryview(bytes(megabytes << 20))
            chunks = megabytes // 4
            best_up = best_down = float("inf")
            for _ in range(3):
                start = time.perf_counter()
                drain(bytes(data[i << 22 : (i + 1) << 22]) for i in range(chunks))
                best_up = min(best_up, time.perf_counter() - start)
                start = time.perf_counter()
                for _ in send(str(chunks).encode()):
                    pass
                best_down = min(best_down, time.perf_counter() - start)
            nbytes = chunks << 22
            return {
                "empty_call": call,
                "upload_GBps": nbytes / best_up / 1e9,
                "download_GBps": nbytes / best_down / 1e9,
            }
    finally:
        process.kill()
        process.wait()


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def axpy(n: int = 10) -> xlapy.XlaComputation:
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, Shape.parse("f32[]"), "alpha")
    x = ops.Parameter(b, 1, Shape.array(xlapy.F32, [n]), "x")
    y = ops.Parameter(b, 2, Shape.array(xlapy.F32, [n]), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def timed(fn, repeats: int, warmup: int = 50) -> dict[str, float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    samples.sort()
    return {
        "median_us": statistics.median(samples) * 1e6,
        "p10_us": samples[len(samples) // 10] * 1e6,
        "p90_us": samples[9 * len(samples) // 10] * 1e6,
    }


def in_turns(cases: dict[str, Any], rounds: int, per_round: int) -> dict[str, dict[str, float]]:
    """Latency of each case, the cases taking turns (``per_round`` calls each, ``rounds``
    times), so that the load of a shared machine weighs on all of them alike."""
    for fn in cases.values():
        for _ in range(50):
            fn()
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(rounds):
        for name, fn in cases.items():
            for _ in range(per_round):
                start = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - start)
    results = {}
    for name, taken in samples.items():
        taken.sort()
        results[name] = {
            "median_us": statistics.median(taken) * 1e6,
            "p10_us": taken[len(taken) // 10] * 1e6,
            "p90_us": taken[9 * len(taken) // 10] * 1e6,
        }
    return results


def round_trips(client: Any, repeats: int, unix_client: Any = None) -> dict[str, Any]:
    """The axpy round trips next to the floor (an empty gRPC call to a Python server that
    does nothing, and xlapy's cheapest request, Health), all taking turns."""
    import grpc

    computation = axpy()
    executable = client.compile(computation)
    alpha, x, y = np.float32(2.0), np.arange(10, dtype=np.float32), np.ones(10, np.float32)
    expected = alpha * x + y

    def seed_way() -> None:
        handles = [client.transfer_to_server(v) for v in (alpha, x, y)]
        result = client.execute_and_transfer(executable, handles)
        assert np.array_equal(result.to_numpy(), expected)

    def one_call() -> None:
        assert np.array_equal(executable(alpha, x, y), expected)

    local = xlapy.local_client().compile(computation)
    echo_process = subprocess.Popen(
        [sys.executable, "-c", _ECHO_SERVER], stdout=subprocess.PIPE, text=True
    )
    try:
        port = int(echo_process.stdout.readline())
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            echo = channel.unary_unary("/echo.Echo/Echo")
            cases = {
                "floor: empty gRPC unary call (Python server doing nothing)": lambda: echo(
                    b"x" * 100, timeout=10
                ),
                "xlapy Health (authenticated, no session work)": client.health,
                "executable(alpha, x, y) (1 request)": one_call,
                "the seed's way: 3 transfers + execute_and_transfer (4 requests)": seed_way,
                "in-process LocalClient executable(alpha, x, y)": lambda: local(alpha, x, y),
            }
            if unix_client is not None:
                unix_executable = unix_client.compile(computation)
                cases["executable(alpha, x, y) over a unix socket"] = lambda: unix_executable(
                    alpha, x, y
                )
            per_round = 50
            return in_turns(cases, max(1, repeats // per_round), per_round)
    finally:
        echo_process.kill()
        echo_process.wait()


def throughput(client: Any, megabytes: int) -> dict[str, float]:
    data = np.random.default_rng(0).integers(0, 255, megabytes << 20, dtype=np.uint8)
    best_up = best_down = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        handle = client.transfer_to_server(data)
        best_up = min(best_up, time.perf_counter() - start)
        start = time.perf_counter()
        back = client.transfer(handle)
        best_down = min(best_down, time.perf_counter() - start)
        assert np.array_equal(back.to_numpy(), data)
        handle.delete()
        del back
    return {
        "upload_GBps": data.nbytes / best_up / 1e9,
        "download_GBps": data.nbytes / best_down / 1e9,
    }


def mixed_load(address: str, token: str, pid: int, clients: int, requests: int) -> dict[str, Any]:
    computation = axpy(256)
    # Warm the server (its compile cache, its thread pool, numpy's allocator) before
    # taking the baseline.
    with xlapy.connect(address, token=token) as warm:
        exe = warm.compile(computation)
        for _ in range(50):
            exe(np.float32(1), np.ones(256, np.float32), np.ones(256, np.float32))
    time.sleep(0.5)
    before = rss_bytes(pid)
    errors: list[str] = []
    done = [0] * clients

    def work(k: int) -> None:
        rng = np.random.default_rng(k)
        try:
            with xlapy.connect(address, token=token) as c:
                exe = c.compile(computation)
                held = []
                for i in range(requests):
                    kind = i % 6
                    x = rng.standard_normal(256).astype(np.float32)
                    if kind == 0:
                        held.append((c.transfer_to_server(x), x))
                    elif kind == 1 and held:
                        handle, value = held[-1]
                        assert np.array_equal(c.transfer(handle).to_numpy(), value)
                    elif kind == 2:
                        got = exe(np.float32(2), x, x)
                        assert np.allclose(got, 3 * x)
                    elif kind == 3 and held:
                        handle, value = held[-1]
                        out = exe.execute([c.transfer_to_server(np.float32(1)), handle, handle])
                        held.append((out, 2 * value))
                    elif kind == 4 and held:
                        assert c.get_shape(held[0][0]).dimensions == (256,)
                    elif kind == 5 and len(held) > 4:
                        held.pop(0)[0].delete()
                    else:
                        c.device_count()
                    done[k] += 1
        except Exception as e:  # noqa: BLE001
            errors.append(f"client {k}: {type(e).__name__}: {e}")

    start = time.perf_counter()
    threads = [threading.Thread(target=work, args=(k,)) for k in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    gc.collect()
    time.sleep(2.0)
    after = rss_bytes(pid)
    with xlapy.connect(address, token=token) as probe:
        server = probe.stats()["server"]
    return {
        "clients": clients,
        "requests": sum(done),
        "errors": errors[:5],
        "error_count": len(errors),
        "seconds": elapsed,
        "requests_per_second": sum(done) / elapsed,
        "server_rss_before_MB": before / 1e6,
        "server_rss_after_MB": after / 1e6,
        "rss_change_percent": 100 * (after - before) / before,
        "server_bytes_held_after": server["bytes_held"],
        "server_sessions_live_after": server["sessions_live"] - 1,  # less the probe
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=2000)
    parser.add_argument("--megabytes", type=int, default=256)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    token = secrets.token_hex(16)
    process, address = start_server(token, "--max-message-bytes", str(64 << 20))
    unix_path = os.path.join(tempfile.mkdtemp(), "xlapy.sock")
    unix_process, unix_address = start_server(token, "--listen", f"unix:{unix_path}")
    try:
        client = xlapy.connect(address, token=token)
        results = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
        with xlapy.connect(unix_address, token=token) as unix_client:
            results["axpy_round_trip"] = round_trips(client, args.repeats, unix_client)
        unix_process.send_signal(signal.SIGTERM)
        unix_process.wait(60)
        results["grpc_floor"] = grpc_floor(args.repeats, args.megabytes)
        results[f"transfer_{args.megabytes}MB"] = throughput(client, args.megabytes)
        client.close()
        results["mixed_load"] = mixed_load(address, token, process.pid, args.clients, args.requests)
    finally:
        for running in (process, unix_process):
            if running.poll() is None:
                running.send_signal(signal.SIGTERM)
                running.wait(60)
    print(json.dumps(results, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
