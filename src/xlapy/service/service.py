"""What each RPC does, apart from the wire: the seed's service, one session at a time.

Every method takes the parsed request and the caller's ``Session`` and returns the
response message (streams take and give iterators); the server module does the
authentication, the parsing, the error mapping and the counting around it. Inputs are
checked before anything runs: shapes against byte counts, modules through the
verifier, arguments against the program's parameters.
"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from typing import Any

from .. import stablehlo
from ..client import CompileOptions, Executable, LocalClient
from ..errors import (
    DeadlineExceededError,
    InvalidArgumentError,
    UnimplementedError,
    XlaError,
)
from ..hlo import parse_module
from ..hlo import proto as xla_proto
from ..hlo.module import HloModule
from ..literal import Literal
from . import streams, values
from .limits import ExecutionGate, Limits
from .messages import messages
from .sessions import Session, SessionTable
from .transport import CHUNK_BYTES

SERVER_VERSION = "xlapy-service/1"

# Backend options a remote client may set: plain values only; nothing that names a
# file on the server (dump_dir) or carries code (passes, pass_observer).
REMOTE_BACKEND_OPTIONS = frozenset(
    {"collective_timeout", "rng_seed", "opt_level", "debug", "cache", "disabled_passes",
     "guard_buffers", "allow_excess_precision", "flush_denormals", "target_cpu",
     "target_features"}
)  # fmt: skip


def compile_options(proto: Any) -> CompileOptions:
    """The ``CompileOptions`` a request asks for, checked."""
    backend: dict[str, Any] = {}
    if proto.backend_options_json:
        try:
            backend = json.loads(proto.backend_options_json)
        except ValueError as e:
            raise InvalidArgumentError(f"Compile: backend_options_json is not JSON: {e}") from None
        if not isinstance(backend, dict):
            raise InvalidArgumentError("Compile: backend_options_json must be a JSON object")
        unknown = sorted(set(backend) - REMOTE_BACKEND_OPTIONS)
        if unknown:
            raise InvalidArgumentError(
                f"Compile: backend options {unknown} cannot be set remotely; allowed: "
                f"{sorted(REMOTE_BACKEND_OPTIONS)}"
            )
        if "disabled_passes" in backend:
            backend["disabled_passes"] = frozenset(backend["disabled_passes"])
    return CompileOptions(
        num_replicas=proto.num_replicas or 1,
        num_partitions=proto.num_partitions or 1,
        backend_options=backend,
    )


def module_of_request(request: Any) -> HloModule:
    """The verified module a Compile request carries (proto, HLO text or StableHLO)."""
    program = request.WhichOneof("program")
    try:
        if program == "hlo_module":
            module = xla_proto.module_from_proto(request.hlo_module)
        elif program == "hlo_text":
            module = parse_module(request.hlo_text)
        elif program == "stablehlo_text":
            module = stablehlo.parse_module(request.stablehlo_text)
        else:
            raise InvalidArgumentError(
                "Compile: the request carries no program (set hlo_module, hlo_text or "
                "stablehlo_text)"
            )
    except XlaError as e:
        raise type(e)(f"Compile: {e}") from None
    if not isinstance(module, HloModule):
        raise UnimplementedError(
            "Compile: shape-polymorphic StableHLO modules are not served remotely yet; "
            "refine the module to static shapes first"
        )
    try:
        module.verify()
    except XlaError as e:
        raise type(e)(f"Compile: the module does not verify: {e}") from None
    return module


def _has_token(shape: Any) -> bool:
    if shape.is_tuple:
        return any(_has_token(s) for s in shape.tuple_shapes)
    return shape.is_token


def _nbytes(value: Any) -> int:
    """Bytes of a result (numpy arrays, tuples of them, or a Literal)."""
    if isinstance(value, Literal):
        return values.value_nbytes(value.shape)
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return getattr(value, "nbytes", 0)


class _Label:
    """A message prefix formatted only when an error shows it: every argument of every
    Execute carries one, and almost none is ever shown."""

    __slots__ = ("_template", "_fields")

    def __init__(self, template: str, *fields: Any) -> None:
        self._template, self._fields = template, fields

    def __str__(self) -> str:
        return self._template.format(*self._fields)


class XlaService:
    """The RPCs over one platform's local client, with a session table and bounds."""

    def __init__(self, platform: str, limits: Limits, sessions: SessionTable) -> None:
        self.client = LocalClient(platform)
        self.limits = limits
        self.sessions = sessions
        self.gate = ExecutionGate(limits.max_concurrent_executions, limits.execution_queue_seconds)
        self.started = time.monotonic()
        self.draining = False
        self.m = messages()

    # -- sessions ---------------------------------------------------------------------------
    def OpenSession(self, request: Any, session: Session | None) -> Any:
        opened = self.sessions.open(request.client_name[:200])
        return self.m.OpenSessionResponse(
            session_id=opened.id,
            lease_seconds=self.limits.lease_seconds,
            platform=self.client.platform,
            max_message_bytes=self.limits.max_message_bytes,
            server_version=SERVER_VERSION,
        )

    def CloseSession(self, request: Any, session: Session) -> Any:
        self.sessions.close(session, "closed")
        return self.m.Empty()

    # -- values -----------------------------------------------------------------------------
    def _store(self, literal: Literal, session: Session, reserved: int = 0) -> Any:
        handle = session.hold(literal, reserved)
        response = self.m.HandleResponse(handle=handle)
        values.write_shape(response.shape, literal.shape)
        session.counters.add("transfers_in")
        return response

    def TransferToServer(self, request: Any, session: Session) -> Any:
        literal = values.read_value(request, "TransferToServer", session.room())
        return self._store(literal, session)

    def TransferToServerStream(self, raw_chunks: Iterator[bytes], session: Session) -> Any:
        """A large value, as serialized ``Value`` chunks (decoded here, see ``streams``):
        its bytes are reserved in the session's budget before any is stored."""
        what = "TransferToServerStream"
        incoming = streams.IncomingValue(raw_chunks, self.m.Value, what, session.room())
        session.reserve(incoming.nbytes, what)
        self.sessions.server.add("bytes_receiving", incoming.nbytes)
        try:
            literal = incoming.read()
            stored = self._store(literal, session, reserved=incoming.nbytes)
        except BaseException:
            session.unreserve(incoming.nbytes)
            raise
        finally:
            self.sessions.server.add("bytes_receiving", -incoming.nbytes)
        return stored

    def TransferToClient(self, request: Any, session: Session) -> Any:
        literal = session.literal(request.handle, "TransferToClient")
        session.counters.add("transfers_out")
        return values.fill_value(self.m.Value(), literal)

    def TransferToClientStream(self, request: Any, session: Session) -> Iterator[Any]:
        literal = session.literal(request.handle, "TransferToClientStream")
        chunk = request.chunk_bytes or CHUNK_BYTES
        chunk = max(1024, min(chunk, self.limits.max_message_bytes - 4096))
        session.counters.add("transfers_out")
        return streams.encode_chunks(literal, chunk)

    def GetShape(self, request: Any, session: Session) -> Any:
        literal = session.literal(request.handle, "GetShape")
        response = self.m.ShapeResponse()
        values.write_shape(response.shape, literal.shape)
        return response

    def Deallocate(self, request: Any, session: Session) -> Any:
        released = sum(session.release(h) for h in request.handles)
        released += sum(session.release_executable(h) for h in request.executables)
        return self.m.DeallocateResponse(released=released)

    # -- programs ---------------------------------------------------------------------------
    def Compile(self, request: Any, session: Session) -> Any:
        options = compile_options(request.options)
        module = module_of_request(request)
        try:
            executable = self.client.compile(module, options)
        except TypeError as e:  # an option the backend's options class does not take
            raise InvalidArgumentError(f"Compile: bad backend option: {e}") from None
        session.counters.add("compiles")
        handle = session.hold_executable(executable)
        response = self.m.CompileResponse(executable=handle, module_name=module.name)
        shape = executable.program_shape
        for parameter in shape.parameters:
            values.write_shape(response.program_shape.parameters.add(), parameter)
        values.write_shape(response.program_shape.result, shape.result)
        response.program_shape.parameter_names.extend(shape.parameter_names or ())
        return response

    def _arguments(self, request: Any, session: Session, executable: Executable) -> list:
        """The request's arguments as numpy values (handles' literals viewed as numpy), so
        that the executable's fast path takes them; checked against the program when run."""
        arguments = []
        room = session.room()
        for i, argument in enumerate(request.arguments):
            what = _Label("Execute: argument {} of {}", i, executable.hlo_module.name)
            source = argument.WhichOneof("source")
            if source == "handle":
                literal = session.literal(argument.handle, what)
                arguments.append(literal.to_numpy() if literal.is_array else literal)
            elif source == "value":
                arguments.append(values.read_numpy(argument.value, what, room))
            else:
                raise InvalidArgumentError(f"{what}: neither a handle nor a value")
        return arguments

    def _run(self, executable: Executable, arguments: list, deadline: float | None) -> Any:
        """Run in an execution slot: numpy (or tuples) out for a one-device program without
        tokens (the executable's fast path), a Literal otherwise."""
        with self.gate.slot(_Label("Execute {}", executable.hlo_module.name), deadline):
            self.sessions.server.add("executions_running")
            try:
                # Both paths check count, shapes and layouts of the arguments first.
                if executable.num_devices == 1 and not _has_token(executable.program_shape.result):
                    return executable(*arguments)
                literals = [
                    a if isinstance(a, Literal) else Literal.from_value(a) for a in arguments
                ]
                return executable.execute_literals(literals)
            finally:
                self.sessions.server.add("executions_running", -1)

    def Execute(self, request: Any, session: Session, deadline: float | None = None) -> Any:
        executable = session.executable(request.executable, "Execute")
        arguments = self._arguments(request, session, executable)
        result = self._run(executable, arguments, deadline)
        session.counters.add("executions")
        response = self.m.ExecuteResponse()
        what = _Label("the result of {}", executable.hlo_module.name)
        if request.transfer_result and _nbytes(result) <= self.limits.max_message_bytes // 2:
            values.fill_any(response.value, result, what)
            response.shape.CopyFrom(response.value.shape)
            session.counters.add("transfers_out")
            return response
        literal = result if isinstance(result, Literal) else Literal.from_value(result)
        response.handle = session.hold(literal)
        values.write_shape(response.shape, literal.shape)
        return response

    # -- infeed and outfeed ---------------------------------------------------------------------
    def _queue(self, request: Any, session: Session, kind: str, what: str) -> Any:
        """The ``kind`` ("infeed" or "outfeed") queue of the request's device."""
        executable = session.executable(request.executable, what)
        queues = getattr(executable, kind)
        if not queues:
            raise UnimplementedError(f"{what}: this executable has no {kind} queues")
        if not 0 <= request.device < len(queues):
            raise InvalidArgumentError(
                f"{what}: device must be in 0..{len(queues) - 1}, got {request.device}"
            )
        return queues[request.device]

    def TransferToInfeed(self, request: Any, session: Session) -> Any:
        infeed = self._queue(request, session, "infeed", "TransferToInfeed")
        literal = values.read_value(request.value, "TransferToInfeed", session.room())
        infeed.put(literal.to_numpy())
        return self.m.Empty()

    def TransferFromOutfeed(self, request: Any, session: Session) -> Any:
        outfeed = self._queue(request, session, "outfeed", "TransferFromOutfeed")
        timeout = request.timeout_seconds or 10.0
        try:
            value = outfeed.get(timeout=min(timeout, 600.0))
        except queue.Empty:
            raise DeadlineExceededError(
                f"TransferFromOutfeed: nothing arrived on device {request.device}'s outfeed "
                f"within {timeout} s"
            ) from None
        literal = value if isinstance(value, Literal) else Literal.from_value(value)
        return values.fill_value(self.m.Value(), literal)

    # -- the server -----------------------------------------------------------------------------
    def ListDevices(self, request: Any, session: Session) -> Any:
        response = self.m.ListDevicesResponse()
        for device in self.client.devices():
            response.devices.add(platform=device.platform, id=device.id)
        return response

    def Health(self, request: Any, session: Session | None) -> Any:
        return self.m.HealthResponse(
            status="DRAINING" if self.draining else "SERVING",
            uptime_seconds=time.monotonic() - self.started,
            sessions=len(self.sessions),
        )

    def Stats(self, request: Any, session: Session | None) -> Any:
        response = self.m.StatsResponse()
        for name, value in sorted(self.sessions.server.snapshot().items()):
            response.server.add(name=name, value=value)
        if session is not None:
            for name, value in sorted(session.counters.snapshot().items()):
                response.session.add(name=name, value=value)
        return response


__all__ = ["REMOTE_BACKEND_OPTIONS", "SERVER_VERSION", "XlaService", "compile_options",
           "module_of_request"]  # fmt: skip
