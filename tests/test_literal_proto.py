"""Literals and shapes <-> XLA's LiteralProto / ShapeProto."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.errors import InvalidArgumentError
from xlapy.hlo.proto import (
    literal_from_proto,
    literal_to_proto,
    message_class,
    program_shape_from_proto,
    program_shape_to_proto,
    shape_from_proto,
    shape_to_proto,
)
from xlapy.literal import Literal
from xlapy.shape import ProgramShape, Shape
from xlapy.types import ARRAY_TYPES, F32, S4

pytest.importorskip("google.protobuf")


def _wire(message):
    return type(message).FromString(message.SerializeToString())


@pytest.mark.parametrize("element_type", ARRAY_TYPES, ids=str)
def test_every_type_round_trips_through_bytes(element_type) -> None:
    values = np.arange(6).reshape(2, 3) % 2
    for layout in ((1, 0), (0, 1)):
        literal = Literal.from_numpy(values, layout=layout, element_type=element_type)
        assert literal_from_proto(_wire(literal_to_proto(literal))) == literal


def test_xla_storage_rules() -> None:
    s4 = literal_to_proto(Literal.from_numpy(np.array([-1, 7]), element_type=S4))
    assert s4.s4s == b"\x0f\x07"  # one element per byte, masked to 4 bits, as XLA writes
    f32 = literal_to_proto(
        Literal.from_numpy(np.array([[1, 2], [3, 4]], np.float32), layout=(0, 1))
    )
    assert list(f32.f32s) == [1, 3, 2, 4]  # physical order of the layout
    c64 = literal_to_proto(Literal.from_numpy(np.array([1 + 2j], np.complex64)))
    assert list(c64.c64s) == [1, 2]


def test_tuples_tokens_and_shapes() -> None:
    literal = Literal.make_tuple([Literal.from_value(1.5), Literal.token()])
    assert literal_from_proto(_wire(literal_to_proto(literal))) == literal
    for text in (
        "f32[2,<=3]{1,0}",
        "(f32[], token[])",
        "s4[8]{0:E(4)}",
        "f32[8,128]{1,0:T(8,128)}",
    ):
        shape = Shape.parse(text)
        assert shape_from_proto(_wire(shape_to_proto(shape))) == shape
    program = ProgramShape([Shape.parse("f32[2]{0}")], Shape.parse("s32[]"), ["x"])
    back = program_shape_from_proto(_wire(program_shape_to_proto(program)))
    assert back == program and back.parameter_names == ("x",)


def test_malformed_literals_are_refused() -> None:
    proto = literal_to_proto(Literal.from_numpy(np.zeros(3, np.float32)))
    proto.f32s.append(1.0)
    with pytest.raises(
        InvalidArgumentError, match=r"f32\[3\].*holds 4 values in f32s; the shape needs 3"
    ):
        literal_from_proto(proto)
    wrong_field = message_class("xla.LiteralProto")()
    wrong_field.shape.CopyFrom(shape_to_proto(Shape.array(F32, [1])))
    wrong_field.s32s.append(1)
    with pytest.raises(InvalidArgumentError, match="has data in s32s"):
        literal_from_proto(wrong_field)
    with pytest.raises(InvalidArgumentError, match="no shape"):
        literal_from_proto(message_class("xla.LiteralProto")())
