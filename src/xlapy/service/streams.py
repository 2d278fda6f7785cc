"""Large values as streams of chunks, both ways (the same code on server and client).

The first chunk carries the shape; every chunk carries the next bytes of the leaves'
buffers. The sender encodes chunks straight from the array's memory
(:mod:`.wire`); the receiver checks the shape before it allocates anything (with the
session's byte budget, on the server), then copies each chunk once into the value's
buffer, refusing a stream that carries more or fewer bytes than the shape needs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..literal import Literal
from ..shape import Shape
from . import values, wire
from .messages import xla_message


def encode_chunks(literal: Literal, chunk_bytes: int) -> Iterator[bytes]:
    """``literal`` as serialized ``Value`` chunks of at most ``chunk_bytes`` data each."""
    header: bytes | None = values.shape_bytes(literal.shape)
    for leaf in values.literal_leaves(literal):
        view = memoryview(leaf.data.view(np.uint8))
        for start in range(0, len(view), chunk_bytes):
            yield wire.encode_chunk(header, view[start : start + chunk_bytes])
            header = None
    if header is not None:  # a value without bytes (a token, empty arrays)
        yield wire.encode_chunk(header, b"")


class Assembler:
    """The buffer of a value of ``shape`` filled chunk by chunk, checking the count."""

    def __init__(self, shape: Shape, what: str) -> None:
        self.what = what
        self.shape = shape
        self.nbytes = values.value_nbytes(shape)
        # Not zeroed: every byte is written by a chunk (finish() checks the count), and
        # zeroing 256 MB first would cost as much as receiving it.
        self.buffer = np.empty(self.nbytes, np.uint8)
        self.received = 0

    def add(self, data: Any) -> None:
        end = self.received + len(data)
        if end > self.nbytes:
            raise InvalidArgumentError(
                f"{self.what}: a value of {self.shape} takes {self.nbytes} bytes; the stream "
                f"sent more ({end} so far)"
            )
        self.buffer[self.received : end] = np.frombuffer(data, np.uint8)
        self.received = end

    def finish(self) -> Literal:
        if self.received != self.nbytes:
            raise InvalidArgumentError(
                f"{self.what}: a value of {self.shape} takes {self.nbytes} bytes; the stream "
                f"ended after {self.received}"
            )
        return values.literal_from_buffer(self.shape, self.buffer, self.what)


def _parse(value_class: type, raw: bytes, what: str) -> Any:
    try:
        return value_class.FromString(raw)
    except Exception as e:  # noqa: BLE001  (protobuf's DecodeError)
        raise InvalidArgumentError(f"{what}: a chunk is not a valid Value message: {e}") from None


class IncomingValue:
    """A value arriving as serialized chunks: ``shape`` and ``nbytes`` are known (and
    checked) once the first chunk is in; ``read()`` takes the rest and returns it."""

    def __init__(self, raw_chunks: Iterator[bytes], value_class: type, what: str,
                 byte_limit: int | None = None) -> None:  # fmt: skip
        self.what = what
        self._chunks = iter(raw_chunks)
        self._value_class = value_class
        self.literal: Literal | None = None  # a value sent whole as a LiteralProto
        first = next(self._chunks, None)
        if first is None:
            raise InvalidArgumentError(f"{what}: the stream carried no value")
        decoded = wire.decode_chunk(first, what)
        if decoded is None:
            message = _parse(value_class, first, what)
            if message.HasField("literal"):
                self.literal = values.read_value(message, what, byte_limit)
                self.shape = self.literal.shape
                self.nbytes = values.value_nbytes(self.shape)
                return
            self.shape = values.checked_shape(message, what, byte_limit)
            self.nbytes = values.value_nbytes(self.shape)
            self._first: Any = message.data
            return
        header, self._first = decoded
        if header is None:
            raise InvalidArgumentError(f"{what}: the first chunk of a value carries no shape")
        proto = _parse(xla_message("ShapeProto"), bytes(header), what)
        self.shape = values.check_shape(values.read_shape(proto, what), what, byte_limit)
        self.nbytes = values.value_nbytes(self.shape)

    def read(self) -> Literal:
        if self.literal is not None:
            if next(self._chunks, None) is not None:
                raise InvalidArgumentError(f"{self.what}: a LiteralProto value comes in one chunk")
            return self.literal
        assembler = Assembler(self.shape, self.what)
        assembler.add(self._first)
        self._first = b""
        for raw in self._chunks:
            decoded = wire.decode_chunk(raw, self.what)
            if decoded is None:
                message = _parse(self._value_class, raw, self.what)
                if message.HasField("shape") or message.HasField("literal"):
                    raise InvalidArgumentError(f"{self.what}: only the first chunk carries a shape")
                data = message.data
            else:
                header, data = decoded
                if header is not None:
                    raise InvalidArgumentError(f"{self.what}: only the first chunk carries a shape")
            assembler.add(data)
        return assembler.finish()


__all__ = ["Assembler", "IncomingValue", "encode_chunks"]
