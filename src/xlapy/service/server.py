"""The gRPC server around :class:`~xlapy.service.service.XlaService`.

Methods are registered with ``grpc.method_handlers_generic_handler`` from the table
in :mod:`.messages`, taking raw bytes: every request is authenticated first (the
token, in constant time), then parsed (a malformed message is an
``INVALID_ARGUMENT`` naming the method, not gRPC's generic deserialization error),
then given to the service with the caller's session. An ``XlaError`` becomes the
gRPC status of its class (the table in :mod:`.transport`); anything else is logged
with its traceback and answered ``INTERNAL``. Every request is counted, and logged
when ``--log-requests`` asks.

Sessions end when their client's ``Attach`` stream breaks, or when a reaper thread
finds them idle past their lease. Shutdown is graceful: new requests are refused
with ``UNAVAILABLE``, running executions finish (up to a grace period), then the
sessions are closed and the server stops.
"""

from __future__ import annotations

import os
import socket
import stat
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from concurrent import futures
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidArgumentError, UnavailableError, XlaError
from .auth import TokenCheck, metadata_value
from .limits import Limits
from .logs import JsonLog
from .messages import METHODS, SERVICE_NAME, Method, messages
from .service import XlaService
from .sessions import Session, SessionTable
from .transport import SESSION_KEY, channel_options, code_name_of, grpc_lib

# ``--listen unix:PATH``: a unix-domain socket instead of TCP.
UNIX_PREFIX = "unix:"
# Worker threads: one per attached client plus the requests in flight.
EXTRA_WORKERS = 64


@dataclass
class ServerConfig:
    """How to run a server (``xlapy serve``'s flags)."""

    listen: str = "127.0.0.1:0"
    platform: str = "cpu"
    token: str = ""
    limits: Limits = None  # type: ignore[assignment]
    tls_cert: bytes | None = None
    tls_key: bytes | None = None
    log_requests: bool = False
    grace_seconds: float = 30.0

    def __post_init__(self) -> None:
        if self.limits is None:
            self.limits = Limits()


class Server:
    """A running service: ``start()``, then ``address``; ``stop()`` drains and ends it."""

    def __init__(self, config: ServerConfig, log: JsonLog | None = None) -> None:
        self.config = config
        self.log = log or JsonLog(requests=config.log_requests)
        limits = config.limits
        self.sessions = SessionTable(
            limits.max_sessions, limits.max_session_bytes, limits.lease_seconds
        )
        self.service = XlaService(config.platform, limits, self.sessions)
        self.tokens = TokenCheck(config.token)
        self.address = ""
        self._grpc: Any = None
        self._stopped = threading.Event()
        self._reaper: threading.Thread | None = None

    # -- lifecycle ------------------------------------------------------------------------
    def start(self) -> str:
        """Bind, start serving, return ``HOST:PORT`` (the real port for port 0)."""
        grpc = grpc_lib()
        limits = self.config.limits
        workers = limits.max_sessions + limits.max_concurrent_executions + EXTRA_WORKERS
        self._grpc = grpc.server(
            futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="xlapy-rpc"),
            handlers=[self._generic_handler()],
            options=channel_options(limits.max_message_bytes),
        )
        listen = self.config.listen
        unix_path = listen.removeprefix(UNIX_PREFIX) if listen.startswith(UNIX_PREFIX) else None
        if unix_path is not None:
            check_unix_path(unix_path)
        else:
            host, _, port = listen.rpartition(":")
            if not host or not port.isdigit():
                raise InvalidArgumentError(
                    f"--listen takes HOST:PORT (e.g. 127.0.0.1:0 for a free port) or "
                    f"unix:PATH, got {listen!r}"
                )
        try:
            if self.config.tls_cert is not None:
                pair = [(self.config.tls_key, self.config.tls_cert)]
                bound = self._grpc.add_secure_port(listen, grpc.ssl_server_credentials(pair))
            else:
                bound = self._grpc.add_insecure_port(listen)
        except RuntimeError as e:  # grpc's "failed to bind" (address in use, no such host)
            raise UnavailableError(f"cannot listen on {listen}: {e}") from None
        if not bound:
            raise UnavailableError(f"cannot listen on {listen}")
        if unix_path is not None:
            os.chmod(unix_path, 0o600)  # the owner's processes only (the token still counts)
        self._grpc.start()
        self.address = listen if unix_path is not None else f"{host}:{bound}"
        self._reaper = threading.Thread(target=self._reap, name="xlapy-lease-reaper", daemon=True)
        self._reaper.start()
        self.log.event("listening", address=self.address, platform=self.config.platform,
                       tls=self.config.tls_cert is not None, **vars(limits))  # fmt: skip
        return self.address

    def stop(self, grace: float | None = None) -> None:
        """Refuse new requests, let running executions finish, close every session."""
        if self._stopped.is_set() or not self.address:  # stopped, or never started
            return
        grace = self.config.grace_seconds if grace is None else grace
        self.service.draining = True
        self.log.event("draining", executions_running=self.service.gate.running)
        drained = self.service.gate.wait_idle(grace)
        for session in self.sessions.all():
            self.sessions.close(session, "closed")
        self._stopped.set()
        if self._grpc is not None:
            self._grpc.stop(grace=1.0).wait(5.0)
        self.log.event("stopped", drained=drained)

    def _reap(self) -> None:
        period = min(1.0, self.config.limits.lease_seconds / 4)
        while not self._stopped.wait(period):
            for session in self.sessions.expired():
                if self.sessions.close(session, "expired"):
                    self.log.event("session_expired", session=session.label)

    # -- requests ---------------------------------------------------------------------------
    def _generic_handler(self) -> Any:
        grpc = grpc_lib()
        classes = messages()
        handlers = {}
        for method in METHODS:
            parse = getattr(classes, method.request).FromString
            serialize = _serialize
            if method.kind == "unary":
                handler = grpc.unary_unary_rpc_method_handler(
                    self._unary(method, parse), response_serializer=serialize
                )
            elif method.kind == "client_stream":
                handler = grpc.stream_unary_rpc_method_handler(
                    self._client_stream(method, parse), response_serializer=serialize
                )
            else:
                handler = grpc.unary_stream_rpc_method_handler(
                    self._server_stream(method, parse), response_serializer=serialize
                )
            handlers[method.name] = handler
        return grpc.method_handlers_generic_handler(SERVICE_NAME, handlers)

    def _admit(self, method: Method, context: Any) -> Session | None:
        """Authenticate the request and find its session (None for session-less methods
        called without one)."""
        metadata = context.invocation_metadata()
        try:
            self.tokens.check(metadata)
        except XlaError:
            self.sessions.server.add("unauthenticated")
            raise
        if self.service.draining and method.name not in _WHILE_DRAINING:
            raise UnavailableError("the server is shutting down; connect to another one")
        session_id = metadata_value(metadata, SESSION_KEY)
        if not method.needs_session and not session_id:
            return None
        if method.name == "OpenSession":
            return None
        session = self.sessions.get(session_id)
        session.counters.add("requests")
        return session

    def _fail(self, method: Method, context: Any, session: Session | None, error: BaseException,
              started: float) -> None:  # fmt: skip
        """Answer ``context`` with the status of ``error`` (never returns)."""
        grpc = grpc_lib()
        if isinstance(error, XlaError):
            code = code_name_of(error)
            message = str(error)
            level = "warning"
            fields = {}
        else:
            code = "INTERNAL"
            message = (
                f"{method.name}: internal error in the server: {type(error).__name__}: {error}"
            )
            level = "error"
            fields = {"traceback": traceback.format_exc()}
        if session is not None:
            session.counters.add("errors")
        self.log.event("request_failed", level=level, method=method.name, code=code,
                       session=session.label if session else None, error=message,
                       ms=round((time.perf_counter() - started) * 1e3, 3), **fields)  # fmt: skip
        context.abort(getattr(grpc.StatusCode, code), message)

    def _done(self, method: Method, session: Session | None, started: float) -> None:
        if self.log.requests:
            self.log.event("request", method=method.name,
                           session=session.label if session else None,
                           ms=round((time.perf_counter() - started) * 1e3, 3))  # fmt: skip

    def _unary(self, method: Method, parse: Callable[[bytes], Any]) -> Callable:
        call = getattr(self.service, method.name)

        def handle(raw: bytes, context: Any) -> Any:
            started = time.perf_counter()
            session = None
            try:
                session = self._admit(method, context)
                request = _parse(parse, raw, method)
                if session is not None:
                    session.counters.add("bytes_in", len(raw))
                if method.name == "Execute":
                    remaining = context.time_remaining()
                    deadline = None if remaining is None else time.monotonic() + remaining
                    response = call(request, session, deadline)
                else:
                    response = call(request, session)
                if session is not None and method.name in _BYTES_OUT:
                    session.counters.add("bytes_out", response.ByteSize())
                if method.name == "OpenSession":
                    self.log.event("session_opened", session=response.session_id[:8],
                                   client=request.client_name)  # fmt: skip
                elif method.name == "CloseSession":
                    self.log.event("session_closed", session=session.label)
            except Exception as error:  # noqa: BLE001  (every failure becomes a status)
                self._fail(method, context, session, error, started)
            self._done(method, session, started)
            return response

        return handle

    def _client_stream(self, method: Method, parse: Callable[[bytes], Any]) -> Callable:
        """A client stream: the service gets the raw chunks (it decodes them itself,
        without copying their payload twice, see ``streams``)."""
        call = getattr(self.service, method.name)

        def handle(raw_chunks: Iterator[bytes], context: Any) -> Any:
            started = time.perf_counter()
            session = None
            try:
                session = self._admit(method, context)
                counters = session.counters

                def chunks() -> Iterator[bytes]:
                    for raw in raw_chunks:
                        counters.add("bytes_in", len(raw))
                        yield raw

                response = call(chunks(), session)
            except Exception as error:  # noqa: BLE001
                if not context.is_active():  # the client went away mid-stream
                    self.log.event("stream_abandoned", method=method.name,
                                   session=session.label if session else None)  # fmt: skip
                self._fail(method, context, session, error, started)
            self._done(method, session, started)
            return response

        return handle

    def _server_stream(self, method: Method, parse: Callable[[bytes], Any]) -> Callable:
        if method.name == "Attach":
            return self._attach
        call = getattr(self.service, method.name)

        def handle(raw: bytes, context: Any) -> Iterator[Any]:
            started = time.perf_counter()
            session = None
            try:
                session = self._admit(method, context)
                responses = call(_parse(parse, raw, method), session)
            except Exception as error:  # noqa: BLE001
                self._fail(method, context, session, error, started)
            for response in responses:
                size = len(response) if isinstance(response, bytes) else response.ByteSize()
                session.counters.add("bytes_out", size)
                yield response
            self._done(method, session, started)

        return handle

    def _attach(self, raw: bytes, context: Any) -> Iterator[Any]:
        """Hold the stream open while the client lives; when it breaks (the client died,
        closed, or lost its connection) the session ends and everything it held is freed."""
        method = _ATTACH
        started = time.perf_counter()
        session = None
        try:
            session = self._admit(method, context)
        except Exception as error:  # noqa: BLE001
            self._fail(method, context, session, error, started)
        session.attached += 1

        def detached() -> None:
            session.attached -= 1
            session.last_used = time.monotonic()
            if session.attached == 0 and self.sessions.close(session, "disconnected"):
                self.log.event("session_disconnected", session=session.label)

        context.add_callback(detached)
        self.log.event("session_attached", session=session.label, client=session.client_name)
        yield messages().AttachEvent(state="attached")
        while context.is_active() and not session.closed.wait(1.0):
            pass


# What a draining server still answers: questions about it, and what running executions
# need to finish (their infeed and outfeed) or a client needs to leave.
_WHILE_DRAINING = frozenset(
    {"Health", "Stats", "CloseSession", "TransferToInfeed", "TransferFromOutfeed", "Deallocate"}
)
_ATTACH = next(m for m in METHODS if m.name == "Attach")
_BYTES_OUT = frozenset({"TransferToClient", "Execute", "TransferFromOutfeed"})


def check_unix_path(path: str) -> None:
    """Refuse a unix socket path that is empty, is not a socket, or has a live server
    behind it (gRPC would silently take the path over); a stale socket is replaced."""
    if not path:
        raise InvalidArgumentError("--listen unix:PATH needs a path, got 'unix:'")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise InvalidArgumentError(
            f"--listen {UNIX_PREFIX}{path}: the path exists and is not a socket"
        )
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return  # nobody listens: a socket left behind by a server that died
    finally:
        probe.close()
    raise UnavailableError(
        f"cannot listen on {UNIX_PREFIX}{path}: another server is listening there"
    )


def _serialize(message: Any) -> bytes:
    """A response on the wire: messages serialized, chunks already encoded as they are."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _parse(parse: Callable[[bytes], Any], raw: bytes, method: Method) -> Any:
    """The request message of ``raw``, or ``InvalidArgumentError`` naming the method."""
    try:
        return parse(raw)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError, or worse input)
        raise InvalidArgumentError(
            f"{method.name}: the request is not a valid {method.request} message ({e}); "
            f"{len(raw)} bytes received"
        ) from None


__all__ = ["Server", "ServerConfig", "UNIX_PREFIX", "check_unix_path"]
