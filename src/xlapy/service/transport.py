"""What both ends of the wire agree on: metadata keys, channel options, and the one
table between xlapy's errors and gRPC's status codes.

``grpc`` is an optional dependency (the ``service`` extra): :func:`grpc_lib` is the
one place it is imported, on first use, so ``import xlapy`` never loads it.
"""

from __future__ import annotations

from typing import Any

from .. import errors

# Request metadata: the shared secret and the session a request belongs to.
TOKEN_KEY = "authorization"
TOKEN_SCHEME = "Bearer "
SESSION_KEY = "xlapy-session"

DEFAULT_MAX_MESSAGE_BYTES = 64 << 20
# Bytes of payload per message of a streamed transfer; a value at most this big
# travels in one unary message, larger ones are streamed.
CHUNK_BYTES = 4 << 20

# xlapy error class <-> gRPC status code name, both ways. The first class listed for a
# code is the one a client raises for it.
ERROR_CODES: tuple[tuple[type[errors.XlaError], str], ...] = (
    (errors.InvalidArgumentError, "INVALID_ARGUMENT"),
    (errors.ParseError, "INVALID_ARGUMENT"),
    (errors.NotFoundError, "NOT_FOUND"),
    (errors.FailedPreconditionError, "FAILED_PRECONDITION"),
    (errors.ResourceExhaustedError, "RESOURCE_EXHAUSTED"),
    (errors.DeadlineExceededError, "DEADLINE_EXCEEDED"),
    (errors.UnimplementedError, "UNIMPLEMENTED"),
    (errors.UnauthenticatedError, "UNAUTHENTICATED"),
    (errors.PermissionDeniedError, "PERMISSION_DENIED"),
    (errors.UnavailableError, "UNAVAILABLE"),
    (errors.InternalError, "INTERNAL"),
)

_CLASS_OF_CODE: dict[str, type[errors.XlaError]] = {}
for _cls, _code in ERROR_CODES:
    _CLASS_OF_CODE.setdefault(_code, _cls)
# Codes gRPC itself produces that have no class of their own.
_CLASS_OF_CODE.update(
    {
        "CANCELLED": errors.UnavailableError,
        "UNKNOWN": errors.InternalError,
        "ABORTED": errors.UnavailableError,
        "OUT_OF_RANGE": errors.InvalidArgumentError,
        "DATA_LOSS": errors.InternalError,
        "ALREADY_EXISTS": errors.FailedPreconditionError,
    }
)


def grpc_lib() -> Any:
    """The ``grpc`` module, or a ``FailedPreconditionError`` saying how to install it."""
    try:
        import grpc
    except ImportError:
        raise errors.FailedPreconditionError(
            "the xlapy service needs grpcio and protobuf: pip install 'xlapy[service]'"
        ) from None
    return grpc


def code_name_of(error: BaseException) -> str:
    """The gRPC status code name for an xlapy error (most specific class first)."""
    for cls in type(error).__mro__:
        for known, code in ERROR_CODES:
            if cls is known:
                return code
    return "INTERNAL"


def error_for(code_name: str, details: str) -> errors.XlaError:
    """The xlapy error a client raises for a gRPC status."""
    return _CLASS_OF_CODE.get(code_name, errors.InternalError)(details)


def channel_options(max_message_bytes: int) -> list[tuple[str, int]]:
    """Options of a channel or server accepting messages up to ``max_message_bytes``."""
    return [
        ("grpc.max_receive_message_length", max_message_bytes),
        ("grpc.max_send_message_length", max_message_bytes),
    ]


__all__ = [
    "CHUNK_BYTES", "DEFAULT_MAX_MESSAGE_BYTES", "ERROR_CODES", "SESSION_KEY", "TOKEN_KEY",
    "TOKEN_SCHEME", "channel_options", "code_name_of", "error_for", "grpc_lib",
]  # fmt: skip
