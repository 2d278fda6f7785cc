"""The chunks of a streamed value, encoded and decoded by hand.

A chunk is an ordinary ``Value`` message (``shape`` = field 1, ``data`` = field 2), so
any protobuf implementation reads and writes it. Encoding it here rather than through
the message class saves two copies of every byte of a large transfer each way: the
payload goes from the array's memory into the outgoing bytes in one ``join``, and an
incoming chunk's data is a ``memoryview`` into the received bytes, copied once, into
the value's buffer. Anything but these two fields (a ``literal``, unknown fields, a
field repeated) is left to the message class.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError

_SHAPE_TAG = b"\x0a"  # field 1, length-delimited
_DATA_TAG = b"\x12"  # field 2, length-delimited


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _read_varint(buffer: memoryview, position: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if position >= len(buffer) or shift > 63:
            raise ValueError("truncated or overlong varint")
        byte = buffer[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, position
        shift += 7


def encode_chunk(shape_bytes: bytes | None, payload: Any) -> bytes:
    """A serialized ``Value`` with ``shape`` (already serialized) and ``data``."""
    parts: list[Any] = []
    if shape_bytes is not None:
        parts += [_SHAPE_TAG, varint(len(shape_bytes)), shape_bytes]
    if len(payload):
        parts += [_DATA_TAG, varint(len(payload)), payload]
    return b"".join(parts)


def decode_chunk(raw: bytes, what: str) -> tuple[memoryview | None, memoryview] | None:
    """(serialized shape or None, data) of a serialized ``Value`` holding only those two
    fields, each at most once; None when it holds anything else (parse it whole then)."""
    buffer = memoryview(raw)
    shape = data = None
    position = 0
    try:
        while position < len(buffer):
            key, position = _read_varint(buffer, position)
            if key & 7 != 2 or key >> 3 not in (1, 2):
                return None
            length, position = _read_varint(buffer, position)
            end = position + length
            if end > len(buffer):
                raise ValueError(f"a field of {length} bytes runs past the message's end")
            if key >> 3 == 1:
                if shape is not None:
                    return None
                shape = buffer[position:end]
            else:
                if data is not None:
                    return None
                data = buffer[position:end]
            position = end
    except ValueError as e:
        raise InvalidArgumentError(f"{what}: a chunk is not a valid Value message: {e}") from None
    return shape, data if data is not None else memoryview(b"")


__all__ = ["decode_chunk", "encode_chunk", "varint"]
