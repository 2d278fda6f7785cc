"""Element types: names, widths, predicates and dtypes agree with XLA's."""

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy.errors import InvalidArgumentError
from xlapy.types import ARRAY_TYPES, PrimitiveType

SPEC_TYPES = [
    "PRED",
    "S2",
    "S4",
    "S8",
    "S16",
    "S32",
    "S64",
    "U2",
    "U4",
    "U8",
    "U16",
    "U32",
    "U64",
    "F16",
    "BF16",
    "F32",
    "F64",
    "F8E5M2",
    "F8E4M3",
    "F8E4M3FN",
    "F8E4M3B11FNUZ",
    "F8E5M2FNUZ",
    "F8E4M3FNUZ",
    "F8E3M4",
    "F8E8M0FNU",
    "F4E2M1FN",
    "C64",
    "C128",
    "TUPLE",
    "TOKEN",
    "OPAQUE_TYPE",
]


@pytest.mark.parametrize("name", SPEC_TYPES)
def test_every_spec_type_exists_at_top_level(name):
    t = getattr(xlapy, name)
    assert isinstance(t, PrimitiveType)
    assert PrimitiveType.from_hlo_name(t.hlo_name) is t


@pytest.mark.parametrize(
    "t, name, bits",
    [
        (xlapy.PRED, "pred", 8),
        (xlapy.S4, "s4", 4),
        (xlapy.U2, "u2", 2),
        (xlapy.BF16, "bf16", 16),
        (xlapy.F8E4M3FN, "f8e4m3fn", 8),
        (xlapy.F4E2M1FN, "f4e2m1fn", 4),
        (xlapy.F64, "f64", 64),
        (xlapy.C64, "c64", 64),
        (xlapy.C128, "c128", 128),
        (xlapy.TOKEN, "token", 0),
    ],
)
def test_names_and_widths(t, name, bits):
    assert t.hlo_name == name and str(t) == name
    assert t.bit_width == bits


def test_predicates():
    assert xlapy.F32.is_float and not xlapy.F32.is_integral and xlapy.F32.is_signed
    assert xlapy.S8.is_integral and xlapy.S8.is_signed_integral and xlapy.S8.is_signed
    assert xlapy.U32.is_integral and xlapy.U32.is_unsigned_integral and not xlapy.U32.is_signed
    assert xlapy.C128.is_complex and not xlapy.C128.is_float
    assert xlapy.C64.component_type is xlapy.F32
    assert xlapy.PRED.is_pred and not xlapy.PRED.is_integral
    assert xlapy.F8E5M2.is_f8 and not xlapy.BF16.is_f8
    assert xlapy.S4.is_sub_byte and not xlapy.S8.is_sub_byte
    assert not xlapy.TUPLE.is_array_type and xlapy.F16.is_array_type
    assert xlapy.BF16.exponent_mantissa_bits == (8, 7)
    assert xlapy.F8E4M3FN.exponent_mantissa_bits == (4, 3)
    with pytest.raises(InvalidArgumentError, match="not a floating-point type"):
        _ = xlapy.S32.exponent_mantissa_bits


def test_dtypes():
    assert xlapy.F32.dtype == np.float32
    assert xlapy.BF16.dtype == ml_dtypes.bfloat16
    assert xlapy.S4.dtype == ml_dtypes.int4
    assert xlapy.F8E8M0FNU.dtype == ml_dtypes.float8_e8m0fnu
    assert xlapy.PRED.dtype == np.bool_
    for t in ARRAY_TYPES:
        assert PrimitiveType.from_dtype(t.dtype) is t
        # Finite types and their dtypes agree on the width of a value.
        if not t.is_sub_byte:
            assert t.dtype.itemsize * 8 == t.bit_width
    with pytest.raises(InvalidArgumentError, match="no numpy dtype"):
        _ = xlapy.TUPLE.dtype


def test_float_widths_match_ml_dtypes():
    for t in ARRAY_TYPES:
        if t.is_float and t.bit_width < 16:
            info = ml_dtypes.finfo(t.dtype)
            assert info.bits == t.bit_width
            assert info.nmant == t.exponent_mantissa_bits[1]


def test_unknown_names_are_clear_errors():
    with pytest.raises(InvalidArgumentError, match="unknown element type 'f33'"):
        PrimitiveType.from_hlo_name("f33")
    with pytest.raises(InvalidArgumentError, match="has no XLA element type"):
        PrimitiveType.from_dtype(np.dtype("datetime64[s]"))
