"""Shapes and program shapes as XLA's ``ShapeProto`` / ``ProgramShapeProto``.

Element types travel by name: xlapy's ``PrimitiveType`` and the proto enum agree on
every name, and going through names keeps the wire numbers those of XLA's table in
:mod:`.schema` whatever numbers xlapy's enum uses internally.

What a layout proto can say that xlapy's ``Layout`` cannot (sparse dimension level
types, index/pointer types, split configs, a physical shape, tail padding, dynamic
metadata prefixes) is refused with an ``UnimplementedError`` naming the field; so is
what xlapy can say that XLA's proto cannot (the padded dimensions of seed 001 and
layout annotations kept verbatim).
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidArgumentError, UnimplementedError
from ...layout import COMBINE_DIMENSION, Layout, Tile
from ...shape import ProgramShape, Shape
from ...types import PrimitiveType
from .schema import XLA_DATA_ENUMS, new_message

# PrimitiveType <-> the proto's enum numbers, matched by name.
PROTO_TYPE_NUMBER: dict[PrimitiveType, int] = {
    t: dict(XLA_DATA_ENUMS["PrimitiveType"])[t.name]
    for t in PrimitiveType
    if t.name in dict(XLA_DATA_ENUMS["PrimitiveType"])
}
TYPE_OF_PROTO_NUMBER: dict[int, PrimitiveType] = {n: t for t, n in PROTO_TYPE_NUMBER.items()}
_PROTO_TYPE_NAMES = {number: name for name, number in XLA_DATA_ENUMS["PrimitiveType"]}

# Layout proto fields xlapy's Layout has no place for: refused when set.
_UNSUPPORTED_LAYOUT_FIELDS = (
    "dim_level_types", "dim_unique", "dim_ordered",
    "index_primitive_type", "pointer_primitive_type", "physical_shape",
    "dynamic_shape_metadata_prefix_bytes", "split_configs",
)  # fmt: skip


def element_type_to_proto(element_type: PrimitiveType) -> int:
    """The wire number of ``element_type`` in XLA's ``PrimitiveType`` enum."""
    try:
        return PROTO_TYPE_NUMBER[element_type]
    except KeyError:
        raise InvalidArgumentError(f"{element_type!r} has no XLA proto element type") from None


def element_type_from_proto(number: int) -> PrimitiveType:
    """xlapy's type for a proto ``PrimitiveType`` number; unknown or unsupported ones raise."""
    try:
        return TYPE_OF_PROTO_NUMBER[number]
    except KeyError:
        name = _PROTO_TYPE_NAMES.get(number)
        if name is None:
            raise InvalidArgumentError(
                f"element type number {number} is not one of XLA's PrimitiveType values"
            ) from None
        raise UnimplementedError(
            f"element type {name} ({number}) is not supported by xlapy"
        ) from None


# -- layouts ---------------------------------------------------------------------------


def layout_to_proto(layout: Layout) -> Any:
    """``LayoutProto`` of ``layout`` (tiles, element size, memory space)."""
    if layout.padded_dimensions:
        raise UnimplementedError(
            f"layout {layout} has padded dimensions (PAD(...)); XLA's LayoutProto has no field "
            "for them (fields 2 and 3 are reserved)"
        )
    if layout.extras:
        names = ", ".join(f"{name}({body})" for name, body in layout.extras)
        raise UnimplementedError(
            f"layout {layout} carries annotations xlapy keeps only as text ({names}); they "
            "cannot be written to a LayoutProto"
        )
    proto = new_message("xla.LayoutProto")
    proto.minor_to_major.extend(layout.minor_to_major)
    for tile in layout.tiles:
        proto.tiles.add().dimensions.extend(
            COMBINE_DIMENSION if d == COMBINE_DIMENSION else d for d in tile.dimensions
        )
    proto.element_size_in_bits = layout.element_size_in_bits
    proto.memory_space = layout.memory_space
    # XLA writes 1 (no tail padding); 0 means the same.
    proto.tail_padding_alignment_in_elements = 1
    return proto


def layout_from_proto(proto: Any) -> Layout:
    """xlapy's ``Layout`` of a ``LayoutProto``; fields xlapy cannot hold raise."""
    for name in _UNSUPPORTED_LAYOUT_FIELDS:
        if _is_set(proto, name):
            raise UnimplementedError(
                f"LayoutProto field {name} is set ({_field_text(proto, name)}); xlapy's "
                "layouts do not support it"
            )
    if proto.tail_padding_alignment_in_elements not in (0, 1):
        raise UnimplementedError(
            "LayoutProto tail_padding_alignment_in_elements is "
            f"{proto.tail_padding_alignment_in_elements}; xlapy's layouts have no tail padding "
            "(only 0 or 1 are accepted)"
        )
    return Layout(
        tuple(proto.minor_to_major),
        tiles=tuple(Tile(tuple(t.dimensions)) for t in proto.tiles),
        element_size_in_bits=proto.element_size_in_bits,
        memory_space=proto.memory_space,
    )


def _is_set(proto: Any, name: str) -> bool:
    field = proto.DESCRIPTOR.fields_by_name[name]
    if field.is_repeated:
        return len(getattr(proto, name)) > 0
    if field.message_type is not None:
        return proto.HasField(name)
    return bool(getattr(proto, name))


def _field_text(proto: Any, name: str) -> str:
    value = getattr(proto, name)
    text = str(list(value) if not isinstance(value, (int, float, str, bytes)) else value)
    return text if len(text) < 80 else text[:77] + "..."


# -- shapes ------------------------------------------------------------------------------


def shape_to_proto(shape: Shape) -> Any:
    """``ShapeProto`` of an array (layout, dynamic dimensions), tuple, token or opaque shape."""
    proto = new_message("xla.ShapeProto")
    fill_shape_proto(proto, shape)
    return proto


def fill_shape_proto(proto: Any, shape: Shape) -> None:
    """Write ``shape`` into the (empty) ``ShapeProto`` ``proto``, e.g. a sub-message."""
    proto.element_type = element_type_to_proto(shape.element_type)
    if shape.is_tuple:
        for element in shape.tuple_shapes:
            fill_shape_proto(proto.tuple_shapes.add(), element)
        return
    if not shape.is_array:
        return
    proto.dimensions.extend(shape.dimensions)
    # XLA writes one flag per dimension, static ones too.
    proto.is_dynamic_dimension.extend(shape.dynamic_dimensions)
    if shape.layout is not None:
        proto.layout.CopyFrom(layout_to_proto(shape.layout))


def shape_from_proto(proto: Any) -> Shape:
    """xlapy's ``Shape`` of a ``ShapeProto``; a malformed one is an ``InvalidArgumentError``."""
    element_type = element_type_from_proto(proto.element_type)
    if element_type is PrimitiveType.TUPLE:
        _expect_empty(proto, ("dimensions", "is_dynamic_dimension", "layout"), "a tuple shape")
        return Shape.tuple(shape_from_proto(s) for s in proto.tuple_shapes)
    if not element_type.is_array_type:
        _expect_empty(
            proto,
            ("dimensions", "is_dynamic_dimension", "layout", "tuple_shapes"),
            f"a {element_type.hlo_name} shape",
        )
        return Shape(element_type)
    _expect_empty(proto, ("tuple_shapes",), f"an array shape of {element_type.hlo_name}")
    dimensions = tuple(proto.dimensions)
    dynamic = tuple(proto.is_dynamic_dimension) or None
    if dynamic is not None and len(dynamic) != len(dimensions):
        raise InvalidArgumentError(
            f"ShapeProto of {element_type.hlo_name}{list(dimensions)} has "
            f"{len(dynamic)} is_dynamic_dimension flags; it needs none or one per dimension "
            f"({len(dimensions)})"
        )
    layout = layout_from_proto(proto.layout) if proto.HasField("layout") else None
    return Shape(element_type, dimensions, dynamic, layout)


def _expect_empty(proto: Any, names: tuple[str, ...], what: str) -> None:
    for name in names:
        if _is_set(proto, name):
            raise InvalidArgumentError(
                f"ShapeProto of {what} must not set {name} ({_field_text(proto, name)})"
            )


def program_shape_to_proto(program_shape: ProgramShape) -> Any:
    """``ProgramShapeProto``: parameter shapes, their names (if known) and the result."""
    proto = new_message("xla.ProgramShapeProto")
    for parameter in program_shape.parameters:
        fill_shape_proto(proto.parameters.add(), parameter)
    fill_shape_proto(proto.result, program_shape.result)
    proto.parameter_names.extend(program_shape.parameter_names)
    return proto


def program_shape_from_proto(proto: Any) -> ProgramShape:
    names = tuple(proto.parameter_names)
    if names and len(names) != len(proto.parameters):
        raise InvalidArgumentError(
            f"ProgramShapeProto has {len(names)} parameter names for "
            f"{len(proto.parameters)} parameters"
        )
    return ProgramShape(
        [shape_from_proto(p) for p in proto.parameters],
        shape_from_proto(proto.result),
        names or None,
    )


__all__ = [
    "element_type_from_proto",
    "element_type_to_proto",
    "fill_shape_proto",
    "layout_from_proto",
    "layout_to_proto",
    "program_shape_from_proto",
    "program_shape_to_proto",
    "shape_from_proto",
    "shape_to_proto",
]
