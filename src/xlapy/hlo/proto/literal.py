"""Literals as XLA's ``LiteralProto``.

XLA stores each element type in its own field: ``preds`` and the 32/64-bit integer and
float types in repeated fields, complex numbers as interleaved (real, imaginary) pairs
in ``c64s``/``c128s``, and every other type as raw little-endian bytes, one element per
byte for the sub-byte types (s2, s4, u2, u4, f4e2m1fn), masked to their width, as
XLA's literals hold them. Elements are in the physical order of the literal's layout,
which is also how ``xlapy.Literal`` keeps its buffer, so the data moves without a
relayout. Tuples nest ``tuple_literals``; a token has only its shape.

Reading checks everything XLA would: the data sits in the field of the shape's type,
no other data field is set, and its size matches the shape; a mismatch is an
``InvalidArgumentError`` naming the shape and both sizes (the gRPC service relies on
this to refuse malformed input).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ...errors import InvalidArgumentError, UnimplementedError
from ...layout import Layout
from ...literal import Literal
from ...shape import Shape
from ...types import PrimitiveType
from .schema import XLA_DATA_MESSAGES, new_message
from .shape import fill_shape_proto, shape_from_proto

P = PrimitiveType

# Element type -> (field, how it is stored).
REPEATED, COMPLEX, BYTES = "repeated", "complex", "bytes"
LITERAL_FIELDS: dict[PrimitiveType, tuple[str, str]] = {
    P.PRED: ("preds", REPEATED),
    P.S32: ("s32s", REPEATED),
    P.S64: ("s64s", REPEATED),
    P.U32: ("u32s", REPEATED),
    P.U64: ("u64s", REPEATED),
    P.F32: ("f32s", REPEATED),
    P.F64: ("f64s", REPEATED),
    P.C64: ("c64s", COMPLEX),
    P.C128: ("c128s", COMPLEX),
    P.S2: ("s2s", BYTES),
    P.S4: ("s4s", BYTES),
    P.S8: ("s8s", BYTES),
    P.S16: ("s16s", BYTES),
    P.U2: ("u2s", BYTES),
    P.U4: ("u4s", BYTES),
    P.U8: ("u8s", BYTES),
    P.U16: ("u16s", BYTES),
    P.F16: ("f16s", BYTES),
    P.BF16: ("bf16s", BYTES),
    P.F4E2M1FN: ("f4e2m1fns", BYTES),
    P.F8E3M4: ("f8e3m4s", BYTES),
    P.F8E4M3: ("f8e4m3s", BYTES),
    P.F8E4M3B11FNUZ: ("f8e4m3b11fnuzs", BYTES),
    P.F8E4M3FN: ("f8e4m3fns", BYTES),
    P.F8E4M3FNUZ: ("f8e4m3fnuzs", BYTES),
    P.F8E5M2: ("f8e5m2s", BYTES),
    P.F8E5M2FNUZ: ("f8e5m2fnuzs", BYTES),
    P.F8E8M0FNU: ("f8e8m0fnus", BYTES),
}

# Every field of LiteralProto that holds element data (all but shape and the tuple).
DATA_FIELDS: tuple[str, ...] = tuple(
    spec[0]
    for spec in XLA_DATA_MESSAGES["LiteralProto"]
    if spec[0] not in ("shape", "tuple_literals")
)

_LITTLE_ENDIAN = sys.byteorder == "little"


def literal_to_proto(literal: Literal) -> Any:
    """``LiteralProto`` of an array, tuple or token literal."""
    proto = new_message("xla.LiteralProto")
    fill_literal_proto(proto, literal)
    return proto


def fill_literal_proto(proto: Any, literal: Literal) -> None:
    """Write ``literal`` into the (empty) ``LiteralProto`` ``proto``."""
    shape = literal.shape
    fill_shape_proto(proto.shape, shape)
    if shape.is_tuple:
        for element in literal.tuple_elements:
            fill_literal_proto(proto.tuple_literals.add(), element)
        return
    if shape.is_token:
        return
    _check_writable(shape)
    field, storage = _field_of(shape)
    data = literal.data
    if storage == BYTES:
        if shape.element_type.is_sub_byte:
            data = data.view(np.uint8) & np.uint8((1 << shape.element_type.bit_width) - 1)
        setattr(proto, field, _little_endian(data).tobytes())
    elif storage == COMPLEX:
        parts = data.view(data.real.dtype)  # interleaved (real, imag)
        getattr(proto, field).extend(parts.tolist())
    else:
        getattr(proto, field).extend(data.tolist())


def _check_writable(shape: Shape) -> None:
    if not shape.is_static:
        raise UnimplementedError(
            f"a literal of dynamic shape {shape} cannot be written to a LiteralProto by xlapy"
        )
    if shape.layout is not None and not shape.layout.is_plain:
        raise UnimplementedError(
            f"a literal of {shape} has a tiled or padded layout; LiteralProto data is written "
            "for plain (permutation) layouts only"
        )


def _field_of(shape: Shape) -> tuple[str, str]:
    try:
        return LITERAL_FIELDS[shape.element_type]
    except KeyError:
        raise UnimplementedError(
            f"no LiteralProto field holds {shape.element_type} values"
        ) from None


def _little_endian(data: np.ndarray) -> np.ndarray:
    return data if _LITTLE_ENDIAN or data.dtype.itemsize == 1 else data.byteswap()


def literal_from_proto(proto: Any) -> Literal:
    """xlapy's ``Literal`` of a ``LiteralProto``; malformed data is an ``InvalidArgumentError``."""
    if not proto.HasField("shape"):
        raise InvalidArgumentError("LiteralProto has no shape")
    shape = shape_from_proto(proto.shape)
    return _literal_of_shape(proto, shape)


def _literal_of_shape(proto: Any, shape: Shape) -> Literal:
    if shape.is_tuple:
        _expect_no_data(proto, shape, allowed=None)
        elements = list(proto.tuple_literals)
        if len(elements) != len(shape.tuple_shapes):
            raise InvalidArgumentError(
                f"LiteralProto of {shape} has {len(elements)} tuple_literals; the shape has "
                f"{len(shape.tuple_shapes)} elements"
            )
        out = []
        for i, (element, element_shape) in enumerate(
            zip(elements, shape.tuple_shapes, strict=True)
        ):
            if element.HasField("shape") and shape_from_proto(element.shape) != element_shape:
                raise InvalidArgumentError(
                    f"tuple element {i} of a LiteralProto of {shape} has shape "
                    f"{shape_from_proto(element.shape)}, not {element_shape}"
                )
            out.append(_literal_of_shape(element, element_shape))
        return Literal.make_tuple(out)
    if len(proto.tuple_literals):
        raise InvalidArgumentError(f"LiteralProto of {shape} must not have tuple_literals")
    if shape.is_token:
        _expect_no_data(proto, shape, allowed=None)
        return Literal.token()
    if not shape.is_array:
        raise UnimplementedError(f"literals of {shape} are not supported")
    if shape.layout is None:
        shape = shape.with_default_layout()
    _check_writable(shape)
    field, storage = _field_of(shape)
    _expect_no_data(proto, shape, allowed=field)
    if len(proto.dynamic_sizes):
        raise UnimplementedError(
            f"LiteralProto of {shape} has dynamic_sizes {list(proto.dynamic_sizes)}; dynamic "
            "literals are not supported"
        )
    et = shape.element_type
    count = shape.element_count()
    value = getattr(proto, field)
    if storage == BYTES:
        width = et.byte_width
        _check_size(shape, field, len(value), count * width, "bytes")
        raw = np.frombuffer(value, dtype=np.dtype(et.dtype).newbyteorder("<"), count=count)
        if et.is_sub_byte:
            mask = np.uint8((1 << et.bit_width) - 1)
            raw = (np.frombuffer(value, np.uint8) & mask).view(et.dtype)
        data = raw.astype(et.dtype)
    elif storage == COMPLEX:
        _check_size(shape, field, len(value), 2 * count, "values (real, imaginary pairs)")
        parts = np.asarray(value, dtype=et.component_type.dtype)
        data = parts.view(et.dtype) if count else np.zeros(0, et.dtype)
    else:
        _check_size(shape, field, len(value), count, "values")
        data = np.asarray(value, dtype=et.dtype) if count else np.zeros(0, et.dtype)
    return Literal(shape, np.ascontiguousarray(data).reshape(-1))


def _check_size(shape: Shape, field: str, got: int, want: int, unit: str) -> None:
    if got != want:
        raise InvalidArgumentError(
            f"LiteralProto of {shape} holds {got} {unit} in {field}; the shape needs {want}"
        )


def _expect_no_data(proto: Any, shape: Shape, allowed: str | None) -> None:
    for name in DATA_FIELDS:
        if name != allowed and len(getattr(proto, name)):
            raise InvalidArgumentError(
                f"LiteralProto of {shape} has data in {name}"
                + (
                    f"; a {shape.element_type} literal keeps its data in {allowed}"
                    if allowed
                    else ""
                )
            )


def layout_of(literal: Literal) -> Layout | None:
    """The layout a literal's proto records (its array layout; None for tuples and tokens)."""
    return literal.shape.layout if literal.shape.is_array else None


__all__ = [
    "DATA_FIELDS",
    "LITERAL_FIELDS",
    "fill_literal_proto",
    "literal_from_proto",
    "literal_to_proto",
]
