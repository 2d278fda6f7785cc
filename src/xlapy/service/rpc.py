"""The client's end of the wire: one channel, the token, the session, and calls that
raise xlapy errors.

Every call carries the token and (once one is open) the session id as metadata and
a deadline. gRPC failures become the xlapy error of their status code (the table in
:mod:`.transport`). Calls the table marks idempotent (reading a value or a shape,
listing devices, health, stats) are retried with exponential backoff when the
server is unavailable; nothing else is ever retried, so an execution never runs twice.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import DeadlineExceededError, XlaError
from .messages import METHODS_BY_NAME, messages
from .transport import SESSION_KEY, TOKEN_KEY, TOKEN_SCHEME, error_for, grpc_lib

# Client channels accept what any server sends; the server enforces its own bound.
_CLIENT_MESSAGE_LIMIT = 2**31 - 1
# Methods whose answers are handed over as bytes, not parsed.
RAW_RESPONSES = frozenset({"TransferToClientStream"})


class Rpc:
    """Calls to one server: ``rpc.call("GetShape", request)`` and its streaming kin."""

    def __init__(
        self,
        target: str,
        token: str,
        timeout: float | None,
        retries: int = 3,
        tls_ca: bytes | None = None,
        tls_server_name: str | None = None,
    ) -> None:
        grpc = grpc_lib()
        self.target = target
        self.timeout = timeout
        self.retries = retries
        options = [
            ("grpc.max_receive_message_length", _CLIENT_MESSAGE_LIMIT),
            ("grpc.max_send_message_length", _CLIENT_MESSAGE_LIMIT),
        ]
        if tls_ca is not None:
            if tls_server_name:
                options.append(("grpc.ssl_target_name_override", tls_server_name))
            credentials = grpc.ssl_channel_credentials(root_certificates=tls_ca)
            self.channel = grpc.secure_channel(target, credentials, options=options)
        else:
            self.channel = grpc.insecure_channel(target, options=options)
        self.metadata: tuple[tuple[str, str], ...] = ((TOKEN_KEY, TOKEN_SCHEME + token),)
        self._grpc_error = grpc.RpcError
        self._calls: dict[str, Callable] = {}
        classes = messages()
        for name, method in METHODS_BY_NAME.items():
            make = {
                "unary": self.channel.unary_unary,
                "client_stream": self.channel.stream_unary,
                "server_stream": self.channel.unary_stream,
            }[method.kind]
            # Streamed values arrive as raw chunks, decoded by ``streams`` (one copy).
            raw = name in RAW_RESPONSES
            self._calls[name] = make(
                method.path,
                request_serializer=_serialize,
                response_deserializer=None if raw else getattr(classes, method.response).FromString,
            )

    def join_session(self, session_id: str) -> None:
        self.metadata = (self.metadata[0], (SESSION_KEY, session_id))

    def error(self, error: Any, name: str) -> XlaError:
        """The xlapy error for a failed gRPC call of method ``name``."""
        code = error.code().name if hasattr(error, "code") and error.code() else "UNKNOWN"
        details = (error.details() if hasattr(error, "details") else None) or str(error)
        if code == "UNAVAILABLE":
            details = f"{name}: the xlapy service at {self.target} is unavailable: {details}"
        elif code == "DEADLINE_EXCEEDED" and "Deadline" in details:
            return DeadlineExceededError(
                f"{name}: no answer from {self.target} within {self.timeout} s"
            )
        return error_for(code, details)

    def _attempt_count(self, name: str) -> int:
        """One attempt, or ``1 + retries`` for idempotent methods."""
        return 1 + (self.retries if METHODS_BY_NAME[name].idempotent else 0)

    @staticmethod
    def _back_off(attempt: int) -> None:
        """Wait before attempt number ``attempt`` (none before the first): exponential,
        with jitter so that many clients do not come back at the same instant."""
        if attempt:
            time.sleep(min(2.0, 0.05 * 2 ** (attempt - 1)) * (0.5 + random.random()))

    def _with_retries(self, name: str, attempt_call: Callable[[], Any]) -> Any:
        count = self._attempt_count(name)
        for attempt in range(count):
            self._back_off(attempt)
            try:
                return attempt_call()
            except self._grpc_error as e:
                code = e.code().name if e.code() else "UNKNOWN"
                if code != "UNAVAILABLE" or attempt == count - 1:
                    raise self.error(e, name) from None
        raise AssertionError("unreachable")  # the loop returns or raises

    def call(self, name: str, request: Any, timeout: float | None = None) -> Any:
        """A unary call (retried when idempotent)."""
        stub = self._calls[name]
        deadline = timeout if timeout is not None else self.timeout
        return self._with_retries(
            name, lambda: stub(request, metadata=self.metadata, timeout=deadline)
        )

    def stream_in(self, name: str, requests: Iterator[Any]) -> Any:
        """A client-streaming call (never retried: the iterator is consumed)."""
        try:
            return self._calls[name](requests, metadata=self.metadata, timeout=self.timeout)
        except self._grpc_error as e:
            raise self.error(e, name) from None

    def stream_out(self, name: str, request: Any) -> Iterator[Any]:
        """A server-streaming call, its messages as they come. An idempotent call is
        retried when the server is unavailable before the first message arrives (after
        that, a retry would repeat what was received)."""
        stub = self._calls[name]
        count = self._attempt_count(name)
        for attempt in range(count):
            self._back_off(attempt)
            received = False
            try:
                for message in stub(request, metadata=self.metadata, timeout=self.timeout):
                    received = True
                    yield message
                return
            except self._grpc_error as e:
                code = e.code().name if e.code() else "UNKNOWN"
                if received or code != "UNAVAILABLE" or attempt == count - 1:
                    raise self.error(e, name) from None

    def open_stream(self, name: str, request: Any) -> Any:
        """A server-streaming call left open (``Attach``): the call object, to cancel."""
        return self._calls[name](request, metadata=self.metadata)

    def close(self) -> None:
        self.channel.close()


def _serialize(message: Any) -> bytes:
    """A request on the wire: messages serialized, chunks already encoded as they are."""
    return message if isinstance(message, bytes) else message.SerializeToString()


__all__ = ["Rpc"]
