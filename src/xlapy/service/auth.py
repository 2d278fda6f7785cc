"""The shared secret every request must present.

The token comes from ``--token-file`` or else the environment variable
``XLAPY_SERVICE_TOKEN``; a server with neither refuses to start rather than serve
everyone. Requests carry it in the ``authorization`` metadata as ``Bearer TOKEN``
and it is compared in constant time, so timing tells an attacker nothing.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Mapping, Sequence

from ..errors import FailedPreconditionError, UnauthenticatedError
from .transport import TOKEN_KEY, TOKEN_SCHEME

TOKEN_ENV = "XLAPY_SERVICE_TOKEN"
MIN_TOKEN_LENGTH = 8


def load_token(token_file: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The server's token: the file's content (stripped), else the environment's."""
    environ = os.environ if environ is None else environ
    if token_file:
        try:
            with open(token_file, encoding="utf-8") as f:
                token = f.read().strip()
        except OSError as e:
            raise FailedPreconditionError(
                f"cannot read the token file {token_file}: {e.strerror}"
            ) from None
        source = f"the token file {token_file}"
    else:
        token = environ.get(TOKEN_ENV, "").strip()
        source = f"${TOKEN_ENV}"
        if not token:
            raise FailedPreconditionError(
                f"no token: pass --token-file FILE or set {TOKEN_ENV}; the service does not "
                "run without authentication"
            )
    if len(token) < MIN_TOKEN_LENGTH:
        raise FailedPreconditionError(
            f"the token from {source} has {len(token)} characters; use at least "
            f"{MIN_TOKEN_LENGTH} (e.g. `python -c 'import secrets; print(secrets.token_hex(16))'`)"
        )
    return token


class TokenCheck:
    """Checks the token of a request's metadata."""

    def __init__(self, token: str) -> None:
        self._expected = (TOKEN_SCHEME + token).encode()

    def check(self, metadata: Sequence[tuple[str, str | bytes]]) -> None:
        """Return if the metadata holds the right token; ``UnauthenticatedError`` if not."""
        presented = None
        for key, value in metadata:
            if key == TOKEN_KEY:
                presented = value.encode() if isinstance(value, str) else value
                break
        if presented is None:
            raise UnauthenticatedError(
                "no token: the request has no 'authorization: Bearer TOKEN' metadata"
            )
        if not hmac.compare_digest(presented, self._expected):
            raise UnauthenticatedError("the token does not match the server's")


def metadata_value(metadata: Sequence[tuple[str, str | bytes]], key: str) -> str | None:
    for k, value in metadata:
        if k == key:
            return value.decode() if isinstance(value, bytes) else value
    return None


__all__ = ["MIN_TOKEN_LENGTH", "TOKEN_ENV", "TokenCheck", "load_token", "metadata_value"]
