"""Values on the wire: a ``Literal`` as a shape plus the raw bytes of its leaves.

A value travels as one ``Value`` message (shape and bytes) when it is small, or as a
stream of them when it is large: the first carries the shape, every one carries the
next bytes. The bytes are the physical buffers of the array leaves in order (a
tuple's leaves depth first, tokens none), exactly what ``Literal.data`` holds, so
nothing is converted on either side. A ``LiteralProto`` (XLA's own form) is accepted
in place of shape and bytes.

Everything that arrives is checked before it is used: the shape is a valid
``ShapeProto`` of a value a literal can hold, and the bytes are exactly as many as
the shape needs, neither fewer nor more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError, ResourceExhaustedError, XlaError
from ..hlo import proto as xla_proto
from ..layout import physical_element_count
from ..literal import Literal
from ..memory import check_allocation
from ..shape import Shape
from ..types import PrimitiveType


def leaf_shapes(shape: Shape) -> list[Shape]:
    """The array leaves of ``shape``, depth first (tokens have no bytes)."""
    if shape.is_tuple:
        return [leaf for element in shape.tuple_shapes for leaf in leaf_shapes(element)]
    return [shape] if shape.is_array else []


def leaf_nbytes(shape: Shape) -> int:
    """Bytes of an array leaf's physical buffer, as ``Literal.data`` holds it."""
    layout = shape.layout if shape.layout is not None else None
    count = physical_element_count(shape.dimensions, layout)
    return count * shape.element_type.dtype.itemsize


_nbytes_of_shape: dict[Shape, int] = {}


def value_nbytes(shape: Shape) -> int:
    """Bytes on the wire of a value of ``shape`` (cached: it is asked on every request)."""
    nbytes = _nbytes_of_shape.get(shape)
    if nbytes is None:
        nbytes = sum(leaf_nbytes(leaf) for leaf in leaf_shapes(shape))
        if len(_nbytes_of_shape) < 4096:
            _nbytes_of_shape[shape] = nbytes
    return nbytes


_array_shapes: dict[tuple[np.dtype, tuple[int, ...]], Shape | None] = {}


def array_shape(dtype: np.dtype, dimensions: tuple[int, ...]) -> Shape | None:
    """The row-major array shape of a numpy dtype and shape, None if xlapy has no element
    type for the dtype (cached: numpy values cross the wire on every call)."""
    key = (dtype, dimensions)
    if key not in _array_shapes:
        try:
            shape = Shape.array(PrimitiveType.from_dtype(dtype), dimensions)
        except XlaError:
            shape = None
        if len(_array_shapes) >= 4096:
            _array_shapes.clear()
        _array_shapes[key] = shape
    return _array_shapes[key]


def fill_any(message: Any, value: Any, what: str) -> None:
    """Write a numpy array or scalar, a Literal, or a Python value into the ``Value``
    ``message``; numpy values go straight from their bytes, without a Literal."""
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.isnative:
        shape = array_shape(value.dtype, value.shape)
        if shape is not None:
            write_shape(message.shape, shape)
            message.data = value.tobytes()
            return
    if not isinstance(value, Literal):
        try:
            value = Literal.from_value(value)
        except XlaError:
            raise
        except Exception as e:  # noqa: BLE001  (any conversion failure is the caller's input)
            raise InvalidArgumentError(
                f"{what}: cannot turn {type(value).__name__} into a value: {e}"
            ) from None
    fill_value(message, value)


def read_numpy(message: Any, what: str, byte_limit: int | None = None) -> Any:
    """The logical value of a whole ``Value`` message as numpy (arrays, tuples of them,
    None for a token); a row-major array is a view of the message's bytes.

    This runs for every inline argument and result, so a shape seen before costs one
    dictionary lookup (:func:`wire_shape`), not a parse and a check."""
    if not message.HasField("literal"):
        known = admitted(message, what, byte_limit)
        if known.numpy is not None:
            data = message.data
            if len(data) != known.nbytes:
                raise InvalidArgumentError(
                    f"{what}: a value of {known.shape} takes {known.nbytes} bytes, got {len(data)}"
                )
            dtype, dimensions = known.numpy
            return np.frombuffer(data, dtype=dtype).reshape(dimensions)
    return read_value(message, what, byte_limit).to_numpy()


def literal_leaves(literal: Literal) -> list[Literal]:
    """The array leaves of ``literal``, depth first."""
    if literal.is_tuple:
        return [leaf for element in literal.tuple_elements for leaf in literal_leaves(element)]
    return [literal] if literal.is_array else []


def literal_bytes(literal: Literal) -> bytes:
    """The bytes of ``literal`` on the wire (its leaves' buffers, concatenated)."""
    leaves = literal_leaves(literal)
    if len(leaves) == 1:
        return leaves[0].data.tobytes()
    return b"".join(leaf.data.tobytes() for leaf in leaves)


_shape_protos: dict[Shape, Any] = {}


def write_shape(proto: Any, shape: Shape) -> None:
    """Fill the (empty) ``ShapeProto`` sub-message ``proto`` with ``shape`` (cached)."""
    cached = _shape_protos.get(shape)
    if cached is None:
        cached = xla_proto.shape_to_proto(shape)
        if len(_shape_protos) < 4096:
            _shape_protos[shape] = cached
    proto.CopyFrom(cached)


_serialized_shapes: dict[Shape, bytes] = {}


def shape_bytes(shape: Shape) -> bytes:
    """The serialized ``ShapeProto`` of ``shape`` (cached)."""
    serialized = _serialized_shapes.get(shape)
    if serialized is None:
        serialized = xla_proto.shape_to_proto(shape).SerializeToString()
        if len(_serialized_shapes) < 4096:
            _serialized_shapes[shape] = serialized
    return serialized


_shapes_of_bytes: dict[bytes, Shape] = {}


def read_shape(proto: Any, what: str) -> Shape:
    """The ``Shape`` of a received ``ShapeProto``, checked (cached by its bytes)."""
    key = proto.SerializeToString()
    shape = _shapes_of_bytes.get(key)
    if shape is None:
        try:
            shape = xla_proto.shape_from_proto(proto)
        except XlaError as e:
            raise InvalidArgumentError(f"{what}: invalid shape: {e}") from None
        if len(_shapes_of_bytes) < 4096:
            _shapes_of_bytes[key] = shape
    return shape


def fill_value(message: Any, literal: Literal) -> Any:
    """Write ``literal`` into the ``Value`` ``message`` whole (shape and bytes)."""
    write_shape(message.shape, literal.shape)
    message.data = literal_bytes(literal)
    return message


def literal_from_buffer(shape: Shape, buffer: Any, what: str) -> Literal:
    """The literal of ``shape`` over ``buffer`` (bytes-like, exactly the wire size)."""
    expected = value_nbytes(shape)
    if len(buffer) != expected:
        raise InvalidArgumentError(
            f"{what}: a value of {shape} takes {expected} bytes, got {len(buffer)}"
        )
    offset = 0

    def build(s: Shape) -> Literal:
        nonlocal offset
        if s.is_tuple:
            return Literal.make_tuple(build(e) for e in s.tuple_shapes)
        if s.is_token:
            return Literal.token()
        size = value_nbytes(s)
        dtype = s.element_type.dtype
        data = np.frombuffer(buffer, dtype=dtype, count=size // dtype.itemsize, offset=offset)
        offset += size
        return Literal(s, data)

    try:
        return build(shape)
    except InvalidArgumentError as e:
        raise InvalidArgumentError(f"{what}: {e}") from None
    except XlaError as e:
        raise type(e)(f"{what}: {e}") from None


# Sizes any machine can allocate: not worth asking about.
_ALWAYS_ALLOCATABLE = 1 << 20


def _has_opaque(shape: Shape) -> bool:
    if shape.is_tuple:
        return any(_has_opaque(e) for e in shape.tuple_shapes)
    return shape.is_opaque


@dataclass(frozen=True)
class WireShape:
    """A received shape that passed the checks which depend on the shape alone, with
    what every value of it needs: its byte count, and for a static row-major array the
    numpy dtype and dimensions to view its bytes with."""

    shape: Shape
    nbytes: int
    numpy: tuple[np.dtype, tuple[int, ...]] | None


_wire_shapes: dict[bytes, WireShape] = {}


def wire_shape(proto: Any, what: str) -> WireShape:
    """The checked :class:`WireShape` of a received ``ShapeProto`` (cached by its bytes:
    a client sends the same few shapes over and over)."""
    key = proto.SerializeToString()
    known = _wire_shapes.get(key)
    if known is None:
        shape = _check_kind(read_shape(proto, what), what)
        numpy = None
        if shape.is_array and shape.is_static:
            dtype = shape.element_type.dtype
            if shape.layout is None or array_shape(dtype, shape.dimensions) == shape:
                numpy = (dtype, tuple(shape.dimensions))
        known = WireShape(shape, value_nbytes(shape), numpy)
        if len(_wire_shapes) >= 4096:
            _wire_shapes.clear()
        _wire_shapes[key] = known
    return known


def _check_kind(shape: Shape, what: str) -> Shape:
    """``shape``, refused if it is not one a literal can hold."""
    if _has_opaque(shape):
        raise InvalidArgumentError(f"{what}: opaque values cannot be transferred ({shape})")
    if any(leaf.is_unbounded_dynamic for leaf in leaf_shapes(shape)):
        raise InvalidArgumentError(f"{what}: a value needs a size for every dimension, got {shape}")
    return shape


def _check_size(shape: Shape, nbytes: int, what: str, byte_limit: int | None) -> None:
    """Refuse a value of ``nbytes`` past ``byte_limit`` or past what the machine holds."""
    if byte_limit is not None and nbytes > byte_limit:
        raise ResourceExhaustedError(
            f"{what}: a value of {shape} needs {nbytes} bytes, more than the "
            f"{byte_limit} this session may still hold (--max-session-bytes); deallocate "
            "handles first"
        )
    if nbytes > _ALWAYS_ALLOCATABLE:  # the message is built only when it may be needed
        check_allocation(nbytes, f"{what}: a value of {shape}")


def admitted(message: Any, what: str, byte_limit: int | None = None) -> WireShape:
    """The :class:`WireShape` a ``Value`` announces, checked, including its size against
    ``byte_limit`` (the session's room) and the machine."""
    if not message.HasField("shape"):
        raise InvalidArgumentError(f"{what}: the value has no shape (nor a literal)")
    known = wire_shape(message.shape, what)
    _check_size(known.shape, known.nbytes, what, byte_limit)
    return known


def checked_shape(message: Any, what: str, byte_limit: int | None = None) -> Shape:
    """The shape a ``Value`` announces, checked like :func:`check_shape`."""
    return admitted(message, what, byte_limit).shape


def check_shape(shape: Shape, what: str, byte_limit: int | None = None) -> Shape:
    """``shape``, refused if it is not one a literal can hold or (with ``byte_limit``) if
    a value of it needs more than ``byte_limit`` bytes."""
    _check_kind(shape, what)
    _check_size(shape, value_nbytes(shape), what, byte_limit)
    return shape


def read_value(message: Any, what: str, byte_limit: int | None = None) -> Literal:
    """The literal a whole ``Value`` message carries, checked."""
    if message.HasField("literal"):
        if message.HasField("shape") or message.data:
            raise InvalidArgumentError(
                f"{what}: a value has either a literal or a shape with data, not both"
            )
        try:
            literal = xla_proto.literal_from_proto(message.literal)
        except XlaError as e:
            raise InvalidArgumentError(f"{what}: invalid LiteralProto: {e}") from None
        nbytes = value_nbytes(literal.shape)
        if byte_limit is not None and nbytes > byte_limit:
            raise ResourceExhaustedError(
                f"{what}: a value of {literal.shape} needs {nbytes} bytes, more "
                f"than the {byte_limit} this session may still hold (--max-session-bytes)"
            )
        return literal
    shape = checked_shape(message, what, byte_limit)
    return literal_from_buffer(shape, message.data, what)


__all__ = [
    "WireShape", "admitted", "array_shape", "check_shape", "checked_shape", "fill_any",
    "fill_value", "leaf_nbytes", "leaf_shapes", "literal_bytes", "literal_from_buffer", "literal_leaves", "read_numpy",
    "read_shape", "read_value", "shape_bytes", "value_nbytes", "wire_shape", "write_shape",
]  # fmt: skip
