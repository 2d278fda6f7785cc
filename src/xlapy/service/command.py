"""``xlapy serve``: run the service in this process until SIGTERM or SIGINT.

Prints ``listening on HOST:PORT`` (flushed) on stdout once requests are accepted,
structured logs on stderr, and with ``--stats`` every counter as JSON on stdout when
it stops. The server is imported when the command runs, never when the CLI starts.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading

from ..errors import XlaError
from .auth import load_token
from .limits import Limits
from .logs import JsonLog
from .server import Server, ServerConfig
from .transport import DEFAULT_MAX_MESSAGE_BYTES

_DEFAULTS = Limits()


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy serve`` to the CLI's sub-commands."""
    p = commands.add_parser(
        "serve",
        help="run the xlapy service (gRPC) for remote clients (xlapy.connect)",
        description="Serve compile/transfer/execute requests over gRPC. Every request "
        "must carry the token (from --token-file, else $XLAPY_SERVICE_TOKEN).",
    )
    p.add_argument(
        "--listen",
        default="127.0.0.1:0",
        help="HOST:PORT to listen on (port 0 picks a free one), or unix:PATH for a "
        "unix-domain socket only this user can open (default %(default)s)",
    )
    p.add_argument("--platform", default="cpu", help="backend to run on (default %(default)s)")
    p.add_argument("--token-file", help="file holding the shared token")
    p.add_argument("--tls-cert", help="PEM certificate chain: serve over TLS")
    p.add_argument("--tls-key", help="PEM private key of --tls-cert")
    p.add_argument(
        "--max-message-bytes",
        type=int,
        default=DEFAULT_MAX_MESSAGE_BYTES,
        help="largest gRPC message accepted (default %(default)s)",
    )
    p.add_argument(
        "--max-session-bytes",
        type=int,
        default=_DEFAULTS.max_session_bytes,
        help="bytes one session may hold on the server (default %(default)s)",
    )
    p.add_argument(
        "--max-concurrent-executions",
        type=int,
        default=_DEFAULTS.max_concurrent_executions,
        help="executions running at once (default %(default)s)",
    )
    p.add_argument(
        "--max-sessions",
        type=int,
        default=_DEFAULTS.max_sessions,
        help="sessions open at once (default %(default)s)",
    )
    p.add_argument(
        "--lease-seconds",
        type=float,
        default=_DEFAULTS.lease_seconds,
        help="idle time after which an unattached session is released (default %(default)s)",
    )
    p.add_argument(
        "--grace-seconds",
        type=float,
        default=30.0,
        help="how long shutdown waits for running executions (default %(default)s)",
    )
    p.add_argument("--stats", action="store_true", help="print every counter (JSON) at exit")
    p.add_argument("--log-requests", action="store_true", help="log every request (JSON lines)")
    p.set_defaults(run=run)  # fmt: skip


def _read_bytes(path: str | None, what: str) -> bytes | None:
    if path is None:
        return None
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise XlaError(f"cannot read the {what} {path}: {e.strerror}") from None


def config_of(args: argparse.Namespace) -> ServerConfig:
    """The server configuration ``xlapy serve``'s flags describe (checked)."""
    if (args.tls_cert is None) != (args.tls_key is None):
        raise XlaError("--tls-cert and --tls-key go together")
    limits = Limits(
        max_message_bytes=args.max_message_bytes,
        max_session_bytes=args.max_session_bytes,
        max_concurrent_executions=args.max_concurrent_executions,
        max_sessions=args.max_sessions,
        lease_seconds=args.lease_seconds,
    )
    return ServerConfig(
        listen=args.listen,
        platform=args.platform,
        token=load_token(args.token_file),
        limits=limits,
        tls_cert=_read_bytes(args.tls_cert, "TLS certificate"),
        tls_key=_read_bytes(args.tls_key, "TLS key"),
        log_requests=args.log_requests,
        grace_seconds=args.grace_seconds,
    )


def run(args: argparse.Namespace) -> int:
    """Serve until SIGTERM/SIGINT, then drain and stop. Signals that come while the
    server drains are noted and otherwise ignored: the grace period bounds the drain."""
    config = config_of(args)
    server = Server(config, JsonLog(requests=config.log_requests))
    stop = threading.Event()
    previous = {}
    for number in (signal.SIGTERM, signal.SIGINT):
        previous[number] = signal.signal(number, lambda signum, frame: stop.set())
    try:
        address = server.start()
        print(f"listening on {address}", flush=True)
        while not stop.wait(0.5):
            pass
        server.log.event("signal", action="shutting down")
        server.stop()
        if args.stats:
            json.dump(server.sessions.report(), sys.stdout, indent=1, sort_keys=True)
            sys.stdout.write("\n")
            sys.stdout.flush()
    finally:
        server.stop()
        for number, handler in previous.items():
            signal.signal(number, handler)
    return 0


__all__ = ["config_of", "register", "run"]
