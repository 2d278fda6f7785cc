"""The service's own protobuf messages and RPC methods, as tables.

XLA's ``xla_data.proto`` and ``hlo.proto`` carry the values (``ShapeProto``,
``LiteralProto``) and programs (``HloModuleProto``); this file adds what only the
service needs: sessions, handles, chunks of a transfer, compile options, counters.
Like :mod:`xlapy.hlo.proto.schema`, the tables are the whole truth: no ``.proto``
file, no protoc, no generated code. :func:`messages` builds the file once, adds it to
xlapy's descriptor pool (it depends on XLA's two files) and returns the classes.

A field is ``(name, number, type)`` plus an optional oneof name. ``type`` is a scalar
type, one of this file's messages, or an XLA message spelled ``xla.ShapeProto``; a
leading ``*`` makes it repeated.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from ..hlo.proto import schema

FILE_NAME = "xlapy/service/service.proto"
PACKAGE = "xlapy.service"
SERVICE_NAME = f"{PACKAGE}.XlaService"

MESSAGES: dict[str, tuple[tuple, ...]] = {
    "Empty": (),
    "OpenSessionRequest": (("client_name", 1, "string"),),
    "OpenSessionResponse": (
        ("session_id", 1, "string"), ("lease_seconds", 2, "double"), ("platform", 3, "string"),
        ("max_message_bytes", 4, "int64"), ("server_version", 5, "string"),
    ),
    "AttachEvent": (("state", 1, "string"),),
    # A value (or one chunk of it): the first message of a transfer carries the shape,
    # and ``data`` the bytes of every array leaf in physical order, leaves in order.
    # ``literal`` is the alternative for clients that speak XLA's LiteralProto.
    "Value": (
        ("shape", 1, "xla.ShapeProto"), ("data", 2, "bytes"), ("literal", 3, "xla.LiteralProto"),
    ),
    "HandleResponse": (("handle", 1, "int64"), ("shape", 2, "xla.ShapeProto")),
    "HandleRequest": (("handle", 1, "int64"), ("chunk_bytes", 2, "int64")),
    "ShapeResponse": (("shape", 1, "xla.ShapeProto"),),
    "CompileOptions": (
        ("num_replicas", 1, "int32"), ("num_partitions", 2, "int32"),
        ("backend_options_json", 3, "string"),
    ),
    "CompileRequest": (
        ("hlo_module", 1, "xla.HloModuleProto", "program"),
        ("hlo_text", 2, "string", "program"),
        ("stablehlo_text", 3, "string", "program"),
        ("options", 4, "CompileOptions"),
    ),
    "CompileResponse": (
        ("executable", 1, "int64"), ("program_shape", 2, "xla.ProgramShapeProto"),
        ("module_name", 3, "string"),
    ),
    "Argument": (("handle", 1, "int64", "source"), ("value", 2, "Value", "source")),
    "ExecuteRequest": (
        ("executable", 1, "int64"), ("arguments", 2, "*Argument"),
        ("transfer_result", 3, "bool"),
    ),
    "ExecuteResponse": (
        ("handle", 1, "int64"), ("shape", 2, "xla.ShapeProto"), ("value", 3, "Value"),
    ),
    "DeallocateRequest": (("handles", 1, "*int64"), ("executables", 2, "*int64")),
    "DeallocateResponse": (("released", 1, "int64"),),
    "FeedRequest": (
        ("executable", 1, "int64"), ("device", 2, "int32"), ("value", 3, "Value"),
        ("timeout_seconds", 4, "double"),
    ),
    "Device": (("platform", 1, "string"), ("id", 2, "int32")),
    "ListDevicesResponse": (("devices", 1, "*Device"),),
    "HealthResponse": (
        ("status", 1, "string"), ("uptime_seconds", 2, "double"), ("sessions", 3, "int64"),
    ),
    "Counter": (("name", 1, "string"), ("value", 2, "int64")),
    "StatsResponse": (("server", 1, "*Counter"), ("session", 2, "*Counter")),
}  # fmt: skip


@dataclass(frozen=True)
class Method:
    """One RPC: its message types, its streaming kind, and whether a retry is safe."""

    name: str
    request: str
    response: str
    kind: str  # "unary", "client_stream" or "server_stream"
    idempotent: bool = False
    needs_session: bool = True

    @property
    def path(self) -> str:
        return f"/{SERVICE_NAME}/{self.name}"


METHODS: tuple[Method, ...] = (
    Method("OpenSession", "OpenSessionRequest", "OpenSessionResponse", "unary",
           needs_session=False),
    Method("CloseSession", "Empty", "Empty", "unary"),
    Method("Attach", "Empty", "AttachEvent", "server_stream"),
    Method("TransferToServer", "Value", "HandleResponse", "unary"),
    Method("TransferToServerStream", "Value", "HandleResponse", "client_stream"),
    Method("TransferToClient", "HandleRequest", "Value", "unary", idempotent=True),
    Method("TransferToClientStream", "HandleRequest", "Value", "server_stream",
           idempotent=True),
    Method("GetShape", "HandleRequest", "ShapeResponse", "unary", idempotent=True),
    Method("Compile", "CompileRequest", "CompileResponse", "unary"),
    Method("Execute", "ExecuteRequest", "ExecuteResponse", "unary"),
    Method("Deallocate", "DeallocateRequest", "DeallocateResponse", "unary"),
    Method("TransferToInfeed", "FeedRequest", "Empty", "unary"),
    Method("TransferFromOutfeed", "FeedRequest", "Value", "unary"),
    Method("ListDevices", "Empty", "ListDevicesResponse", "unary", idempotent=True),
    Method("Health", "Empty", "HealthResponse", "unary", idempotent=True,
           needs_session=False),
    Method("Stats", "Empty", "StatsResponse", "unary", idempotent=True, needs_session=False),
)  # fmt: skip

METHODS_BY_NAME = {m.name: m for m in METHODS}

_SCALARS = ("double", "float", "int64", "uint64", "int32", "uint32", "bool", "string", "bytes")


def build_file() -> Any:
    """The ``FileDescriptorProto`` of the service's messages, from :data:`MESSAGES`."""
    from google.protobuf import descriptor_pb2

    types = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name=FILE_NAME, package=PACKAGE, syntax="proto3")
    file.dependency.extend([schema.XLA_DATA_FILE, schema.HLO_FILE])
    for message_name, fields in MESSAGES.items():
        message = file.message_type.add(name=message_name)
        oneofs: list[str] = []
        for spec in fields:
            name, number, type_name = spec[0], spec[1], spec[2]
            field = message.field.add(name=name, number=number, label=types.LABEL_OPTIONAL)
            if type_name.startswith("*"):
                field.label = types.LABEL_REPEATED
                type_name = type_name[1:]
            if type_name in _SCALARS:
                field.type = getattr(types, "TYPE_" + type_name.upper())
            else:
                field.type = types.TYPE_MESSAGE
                qualified = type_name if type_name.startswith("xla.") else f"{PACKAGE}.{type_name}"
                field.type_name = "." + qualified
            if len(spec) > 3:
                if spec[3] not in oneofs:
                    message.oneof_decl.add(name=spec[3])
                    oneofs.append(spec[3])
                field.oneof_index = oneofs.index(spec[3])
    return file


_lock = threading.Lock()
_classes: SimpleNamespace | None = None


def messages() -> SimpleNamespace:
    """The message classes by short name (``messages().Value``), built once."""
    global _classes
    if _classes is None:
        with _lock:
            if _classes is None:
                schema.add_file(build_file())
                _make_every_class()
                _classes = SimpleNamespace(
                    **{name: schema.message_class(f"{PACKAGE}.{name}") for name in MESSAGES}
                )
    return _classes


def _make_every_class() -> None:
    """Make the class of every message the service may touch (XLA's and its own, nested
    ones included) now, in one thread. Left to first use, protobuf makes a sub-message's
    class when a request first reaches that field, and two server threads reaching it at
    once can race in protobuf's class cache (a server crashed in ``_message.abi3.so``
    while eight clients compiled at once)."""
    pending = []
    for file_name in (schema.XLA_DATA_FILE, schema.HLO_FILE, FILE_NAME):
        pending.extend(schema.pool().FindFileByName(file_name).message_types_by_name.values())
    while pending:
        descriptor = pending.pop()
        if not descriptor.GetOptions().map_entry:
            schema.message_class(descriptor.full_name)
        pending.extend(descriptor.nested_types)


def xla_message(name: str) -> type:
    """An XLA message class (``xla_message("ShapeProto")``)."""
    return schema.message_class(f"xla.{name}")


__all__ = ["FILE_NAME", "MESSAGES", "METHODS", "METHODS_BY_NAME", "Method", "SERVICE_NAME",
           "build_file", "messages", "xla_message"]  # fmt: skip
