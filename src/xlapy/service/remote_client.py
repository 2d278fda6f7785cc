"""``xlapy.connect``: the seed's client API against a service in another process.

``RemoteClient`` has the methods of ``LocalClient`` (``transfer_to_server``,
``transfer``, ``compile``, ``execute``, ``execute_and_transfer``, ``devices``,
``device_count``), so code written for ``xlapy.local_client()`` runs unchanged
against ``xlapy.connect("host:port")``. Values move as shape plus raw bytes: in one
message when small, streamed in chunks when large. Programs move as XLA's
``HloModuleProto``.

On connecting, the client opens a session and an ``Attach`` stream that stays open
while the client lives: if the process dies the stream breaks and the server frees
the session's handles at once (the lease frees them otherwise).
"""

from __future__ import annotations

import collections
import json
import os
import threading
import weakref
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..builder import XlaComputation, module_of
from ..client import CompileOptions, Device
from ..errors import InvalidArgumentError, UnauthenticatedError, XlaError
from ..hlo import proto as xla_proto
from ..hlo.module import HloModule
from ..literal import Literal
from ..shape import ProgramShape
from . import streams, values
from .auth import TOKEN_ENV
from .messages import messages
from .remote_data import RemoteData, RemoteExecutable
from .rpc import Rpc
from .transport import CHUNK_BYTES

DEFAULT_TIMEOUT = 300.0
RELEASE_BATCH_SECONDS = 0.05


def _to_literal(value: Any, what: str) -> Literal:
    if isinstance(value, Literal):
        return value
    try:
        return Literal.from_value(value)
    except XlaError:
        raise
    except Exception as e:  # noqa: BLE001  (any conversion failure is the caller's input)
        raise InvalidArgumentError(
            f"{what}: cannot turn {type(value).__name__} into a value: {e}"
        ) from None


def _release_loop(client_ref: weakref.ref, pending: collections.deque, wake: threading.Event,
                  stop: threading.Event) -> None:  # fmt: skip
    """Send the handles collected by finalizers in batches, until the client closes: after
    a wake-up it waits a little for more, so that a loop making and dropping handles
    costs one Deallocate per batch rather than one per handle."""
    while not stop.is_set():
        wake.wait(1.0)
        stop.wait(RELEASE_BATCH_SECONDS)
        wake.clear()
        client = client_ref()
        if client is None:
            return
        client.flush_releases()
        del client


class RemoteClient:
    """A client of an ``xlapy serve`` process (see the module docstring)."""

    def __init__(self, target: str, token: str, timeout: float | None = DEFAULT_TIMEOUT,
                 tls_ca: bytes | None = None, tls_server_name: str | None = None,
                 retries: int = 3, client_name: str = "") -> None:  # fmt: skip
        self.target = target
        self.m = messages()
        self._rpc = Rpc(target, token, timeout, retries, tls_ca, tls_server_name)
        name = client_name or f"pid {os.getpid()}"
        try:
            opened = self._rpc.call("OpenSession", self.m.OpenSessionRequest(client_name=name))
        except XlaError:
            self._rpc.close()
            raise
        self.session_id = opened.session_id
        self.platform = opened.platform
        self.lease_seconds = opened.lease_seconds
        self.max_message_bytes = opened.max_message_bytes
        # A value this big or smaller travels in one message; bigger ones are streamed.
        self.inline_bytes = min(CHUNK_BYTES, self.max_message_bytes // 2)
        self._rpc.join_session(self.session_id)
        self._attach = self._rpc.open_stream("Attach", self.m.Empty())
        try:
            next(self._attach)  # the server has registered the stream
        except Exception as e:  # noqa: BLE001
            self._rpc.close()
            raise self._rpc.error(e, "Attach") from None
        self._pending: collections.deque = collections.deque()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._releaser = threading.Thread(
            target=_release_loop, args=(weakref.ref(self), self._pending, self._wake, self._stop),
            name="xlapy-remote-release", daemon=True,
        )  # fmt: skip
        self._releaser.start()
        self._closer = weakref.finalize(self, _close, self._rpc, self._attach, self._stop)

    # -- life ---------------------------------------------------------------------------------
    def close(self) -> None:
        """End the session (the server frees everything it holds) and the connection."""
        if not self._closer.alive:
            return
        try:
            self._rpc.call("CloseSession", self.m.Empty(), timeout=5.0)
        except XlaError:
            pass  # the session is gone anyway once the Attach stream ends
        self._closer()

    def __enter__(self) -> RemoteClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- releasing handles --------------------------------------------------------------------
    def release_later(self, data_handle: int | None, executable_handle: int | None) -> None:
        """Queue a handle whose owner was collected (called by finalizers)."""
        self._pending.append((data_handle, executable_handle))
        self._wake.set()

    def flush_releases(self) -> None:
        handles, executables = [], []
        while self._pending:
            data, executable = self._pending.popleft()
            (handles if data is not None else executables).append(
                data if data is not None else executable
            )
        if (handles or executables) and self._closer.alive:
            try:
                self.deallocate(handles=handles, executables=executables)
            except XlaError:
                pass  # a gone server or session has freed them already

    def deallocate(self, handles: Sequence[int] = (), executables: Sequence[int] = ()) -> int:
        request = self.m.DeallocateRequest(handles=handles, executables=executables)
        return self._rpc.call("Deallocate", request).released

    # -- devices ------------------------------------------------------------------------------
    def devices(self) -> list[Device]:
        response = self._rpc.call("ListDevices", self.m.Empty())
        return [Device(d.platform, d.id) for d in response.devices]

    def device_count(self) -> int:
        return len(self.devices())

    # -- data ---------------------------------------------------------------------------------
    def transfer_to_server(self, value: Any) -> RemoteData:
        """Move a numpy array, scalar or Literal to the service; returns its handle."""
        shape = None
        if isinstance(value, (np.ndarray, np.generic)) and value.dtype.isnative:
            shape = values.array_shape(value.dtype, value.shape)  # numpy goes as it is
        if shape is not None and value.nbytes <= self.inline_bytes:
            request = self.m.Value()
            values.fill_any(request, value, "transfer_to_server")
            return RemoteData(self, self._rpc.call("TransferToServer", request).handle, shape)
        literal = _to_literal(value, "transfer_to_server")
        if values.value_nbytes(literal.shape) <= self.inline_bytes:
            request = values.fill_value(self.m.Value(), literal)
            response = self._rpc.call("TransferToServer", request)
        else:
            chunks = streams.encode_chunks(literal, self.inline_bytes)
            response = self._rpc.stream_in("TransferToServerStream", chunks)
        return RemoteData(self, response.handle, literal.shape)

    def transfer(self, data: RemoteData) -> Literal:
        """The value behind a handle, as a Literal."""
        self._check_handle(data, "transfer")
        if values.value_nbytes(data.shape) <= self.inline_bytes:
            message = self._rpc.call("TransferToClient", self.m.HandleRequest(handle=data.handle))
            return values.read_value(message, "TransferToClient")
        request = self.m.HandleRequest(handle=data.handle, chunk_bytes=self.inline_bytes)
        chunks = self._rpc.stream_out("TransferToClientStream", request)
        return streams.IncomingValue(chunks, self.m.Value, "TransferToClientStream").read()

    def get_shape(self, data: RemoteData) -> Any:
        self._check_handle(data, "get_shape")
        response = self._rpc.call("GetShape", self.m.HandleRequest(handle=data.handle))
        return values.read_shape(response.shape, "GetShape")

    def _check_handle(self, data: Any, what: str) -> None:
        if not isinstance(data, RemoteData):
            raise InvalidArgumentError(
                f"{what}: expected a RemoteData handle, got {type(data).__name__}"
            )
        if data._client is not self:
            raise InvalidArgumentError(f"{what}: {data!r} belongs to another client")
        if data.is_deleted:
            raise InvalidArgumentError(f"{what}: {data!r} has been deleted")

    # -- programs -----------------------------------------------------------------------------
    def compile(self, computation: XlaComputation | HloModule | str,
                options: CompileOptions | None = None) -> RemoteExecutable:  # fmt: skip
        """Compile on the server (an XlaComputation, HloModule, or HLO/StableHLO text)."""
        options = options or CompileOptions()
        request = self.m.CompileRequest()
        request.options.num_replicas = options.num_replicas
        request.options.num_partitions = options.num_partitions
        if options.backend_options:
            backend = dict(options.backend_options)
            if isinstance(backend.get("disabled_passes"), (set, frozenset)):
                backend["disabled_passes"] = sorted(backend["disabled_passes"])
            try:
                request.options.backend_options_json = json.dumps(backend)
            except TypeError as e:
                raise InvalidArgumentError(
                    f"compile: remote backend options must be plain values: {e}"
                ) from None
        module = None
        if isinstance(computation, str):
            if computation.lstrip().startswith("HloModule"):
                request.hlo_text = computation
            else:
                request.stablehlo_text = computation
        else:
            module = module_of(computation, "compile")
            _write_module(request, module)
        response = self._rpc.call("Compile", request)
        program_shape = ProgramShape(
            [values.read_shape(p, "Compile") for p in response.program_shape.parameters],
            values.read_shape(response.program_shape.result, "Compile"),
            tuple(response.program_shape.parameter_names) or None,
        )
        return RemoteExecutable(
            self, response.executable, program_shape, response.module_name, options, module
        )

    def run(self, executable: RemoteExecutable, arguments: Sequence[Any], result: str) -> Any:
        """One Execute request: handles by reference, other values inline (streamed to the
        server first when too big for a message). ``result`` says what comes back: a
        ``"handle"``, a ``"literal"`` or ``"numpy"`` values."""
        request = self.m.ExecuteRequest(executable=executable.handle,
                                        transfer_result=result != "handle")  # fmt: skip
        keep = []  # temporary handles of large inline values, alive until the call returns
        for i, argument in enumerate(arguments):
            slot = request.arguments.add()
            what = f"argument {i} of {executable.name}"
            if isinstance(argument, RemoteData):
                self._check_handle(argument, what)
                slot.handle = argument.handle
                continue
            if not isinstance(argument, (np.ndarray, np.generic)):
                argument = _to_literal(argument, what)
            nbytes = argument.nbytes if not isinstance(argument, Literal) else argument.byte_size()
            if nbytes <= self.inline_bytes:
                values.fill_any(slot.value, argument, what)
            else:
                keep.append(self.transfer_to_server(argument))
                slot.handle = keep[-1].handle
        response = self._rpc.call("Execute", request)
        what = f"the result of {executable.name}"
        if result == "numpy" and response.HasField("value"):
            return values.read_numpy(response.value, what)
        if result == "literal" and response.HasField("value"):
            return values.read_value(response.value, what)
        data = RemoteData(self, response.handle, values.read_shape(response.shape, what))
        if result == "handle":
            return data
        literal = self.transfer(data)
        return literal.to_numpy() if result == "numpy" else literal

    def execute(self, computation: Any, arguments: Sequence[RemoteData] = ()) -> RemoteData:
        executable = (
            computation if isinstance(computation, RemoteExecutable) else self.compile(computation)
        )
        return executable.execute(arguments)

    def execute_and_transfer(
        self, computation: Any, arguments: Sequence[RemoteData] = ()
    ) -> Literal:
        """Run and bring the result back, in one request when it fits a message."""
        executable = (
            computation if isinstance(computation, RemoteExecutable) else self.compile(computation)
        )
        return executable.execute_literals(arguments)

    # -- infeed and outfeed -------------------------------------------------------------------
    def feed(self, executable: RemoteExecutable, device: int, value: Any) -> None:
        request = self.m.FeedRequest(executable=executable.handle, device=device)
        values.fill_value(request.value, _to_literal(value, "transfer_to_infeed"))
        self._rpc.call("TransferToInfeed", request)

    def drain(self, executable: RemoteExecutable, device: int, timeout: float | None) -> Any:
        request = self.m.FeedRequest(
            executable=executable.handle, device=device, timeout_seconds=timeout or 0.0
        )
        message = self._rpc.call("TransferFromOutfeed", request)
        return values.read_value(message, "TransferFromOutfeed").to_numpy()

    # -- the server ---------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        response = self._rpc.call("Health", self.m.Empty())
        return {"status": response.status, "uptime_seconds": response.uptime_seconds,
                "sessions": response.sessions}  # fmt: skip

    def stats(self) -> dict[str, dict[str, int]]:
        """The server's counters and this session's."""
        response = self._rpc.call("Stats", self.m.Empty())
        return {
            "server": {c.name: c.value for c in response.server},
            "session": {c.name: c.value for c in response.session},
        }

    def __repr__(self) -> str:
        return f"<RemoteClient {self.platform} at {self.target}>"


def _close(rpc: Rpc, attach: Any, stop: threading.Event) -> None:
    stop.set()
    try:
        attach.cancel()
    finally:
        rpc.close()


def _write_module(request: Any, module: HloModule) -> None:
    """Put ``module`` in the Compile request as XLA's ``HloModuleProto``; a module the
    proto cannot express (an xlapy extension) goes as HLO text, which always round-trips."""
    try:
        request.hlo_module.CopyFrom(xla_proto.module_to_proto(module))
    except XlaError:
        request.hlo_text = module.to_text()


def connect(target: str, token: str | None = None, timeout: float | None = DEFAULT_TIMEOUT,
            tls_ca: str | bytes | None = None, tls_server_name: str | None = None,
            retries: int = 3) -> RemoteClient:  # fmt: skip
    """A client of the ``xlapy serve`` at ``target`` ("host:port", or "unix:PATH" for a
    server listening on a unix-domain socket).

    ``token`` defaults to ``$XLAPY_SERVICE_TOKEN``; ``timeout`` bounds every call
    (seconds, None for none); ``tls_ca`` (PEM bytes or a file path) turns on TLS with
    that root certificate. Idempotent calls are retried ``retries`` times with backoff.
    """
    if token is None:
        token = os.environ.get(TOKEN_ENV)
    if not token:
        raise UnauthenticatedError(
            f"connect({target!r}): no token; pass token=... or set {TOKEN_ENV}"
        )
    if isinstance(tls_ca, str):
        try:
            with open(tls_ca, "rb") as f:
                tls_ca = f.read()
        except OSError as e:
            raise InvalidArgumentError(
                f"connect: cannot read tls_ca {tls_ca}: {e.strerror}"
            ) from None
    return RemoteClient(target, token, timeout, tls_ca, tls_server_name, retries)


__all__ = ["DEFAULT_TIMEOUT", "RemoteClient", "connect"]
