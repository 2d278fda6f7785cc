"""Element types: XLA's ``PrimitiveType`` and everything known about each one.

All facts about a type live in one table (``_TYPE_TABLE``) so that the HLO text
name, the bit width, the predicates and the numpy dtype can never disagree.
Enum values are the field numbers of ``xla_data.proto`` so that serialized
protos and debug output line up with XLA's.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import ml_dtypes
import numpy as np

from .errors import InvalidArgumentError


@dataclass(frozen=True)
class _TypeInfo:
    hlo_name: str
    bit_width: int  # bits of one element's value (0 for TUPLE/TOKEN/OPAQUE)
    kind: str  # "pred", "sint", "uint", "float", "complex", "other"
    dtype: object | None  # numpy dtype (or None for non-array types)
    # For floats: (exponent bits, mantissa bits) as reduce-precision counts them.
    exponent_mantissa: tuple[int, int] | None = None


class PrimitiveType(enum.IntEnum):
    """An XLA element type; values follow xla_data.proto."""

    PRIMITIVE_TYPE_INVALID = 0
    PRED = 1
    S2 = 26
    S4 = 21
    S8 = 2
    S16 = 3
    S32 = 4
    S64 = 5
    U2 = 27
    U4 = 22
    U8 = 6
    U16 = 7
    U32 = 8
    U64 = 9
    F16 = 10
    F32 = 11
    BF16 = 16
    F64 = 12
    F8E5M2 = 19
    F8E4M3 = 28
    F8E4M3FN = 20
    F8E4M3B11FNUZ = 23
    F8E5M2FNUZ = 24
    F8E4M3FNUZ = 25
    F8E3M4 = 29
    F8E8M0FNU = 33
    F4E2M1FN = 32
    C64 = 15
    C128 = 18
    TUPLE = 13
    OPAQUE_TYPE = 14
    TOKEN = 17

    # -- facts from the table ---------------------------------------------
    @property
    def _info(self) -> _TypeInfo:
        try:
            return _TYPE_TABLE[self]
        except KeyError:
            raise InvalidArgumentError(f"{self.name} is not a usable element type") from None

    @property
    def hlo_name(self) -> str:
        """The name HLO text uses (``f32``, ``bf16``, ``f8e4m3fn``, ``pred``)."""
        return self._info.hlo_name

    @property
    def bit_width(self) -> int:
        """Bits of one element as stored unpacked (PRED occupies a byte, as in XLA)."""
        return self._info.bit_width

    @property
    def byte_width(self) -> int:
        """Bytes one unpacked element occupies in memory (sub-byte types: 1)."""
        bits = self._info.bit_width
        return 0 if bits == 0 else max(1, bits // 8)

    @property
    def is_array_type(self) -> bool:
        return self._info.kind not in ("other",)

    @property
    def is_pred(self) -> bool:
        return self._info.kind == "pred"

    @property
    def is_float(self) -> bool:
        return self._info.kind == "float"

    @property
    def is_complex(self) -> bool:
        return self._info.kind == "complex"

    @property
    def is_integral(self) -> bool:
        return self._info.kind in ("sint", "uint")

    @property
    def is_signed_integral(self) -> bool:
        return self._info.kind == "sint"

    @property
    def is_unsigned_integral(self) -> bool:
        return self._info.kind == "uint"

    @property
    def is_signed(self) -> bool:
        """Signed integers, floats and complex numbers (XLA's IsSignedIntegral or float)."""
        return self._info.kind in ("sint", "float", "complex")

    @property
    def is_f8(self) -> bool:
        return self.is_float and self.bit_width == 8

    @property
    def is_sub_byte(self) -> bool:
        return self._info.kind != "other" and 0 < self._info.bit_width < 8

    @property
    def exponent_mantissa_bits(self) -> tuple[int, int]:
        """(exponent bits, mantissa bits) of a float type; error for others."""
        em = self._info.exponent_mantissa
        if em is None:
            raise InvalidArgumentError(
                f"{self.hlo_name} is not a floating-point type; exponent/mantissa bits "
                "exist only for float types"
            )
        return em

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype that holds one element (ml_dtypes for the exotic kinds)."""
        dt = self._info.dtype
        if dt is None:
            raise InvalidArgumentError(
                f"{self.hlo_name} has no numpy dtype: it is not an array type"
            )
        return np.dtype(dt)

    @property
    def component_type(self) -> PrimitiveType:
        """The real type of a complex type's parts; the type itself otherwise."""
        return {PrimitiveType.C64: PrimitiveType.F32, PrimitiveType.C128: PrimitiveType.F64}.get(
            self, self
        )

    def __str__(self) -> str:
        return self.hlo_name

    def __repr__(self) -> str:
        return f"xlapy.{self.name}"

    # -- lookups ----------------------------------------------------------
    @staticmethod
    def from_hlo_name(name: str) -> PrimitiveType:
        try:
            return _BY_HLO_NAME[name]
        except KeyError:
            raise InvalidArgumentError(
                f"unknown element type {name!r}; valid names: {', '.join(sorted(_BY_HLO_NAME))}"
            ) from None

    @staticmethod
    def from_dtype(dtype: object) -> PrimitiveType:
        """The element type of a numpy dtype (or anything ``np.dtype`` accepts)."""
        try:
            dt = np.dtype(dtype)
        except TypeError:
            raise InvalidArgumentError(f"{dtype!r} is not a numpy dtype") from None
        try:
            return _BY_DTYPE[dt]
        except KeyError:
            valid = ", ".join(sorted({str(d) for d in _BY_DTYPE}))
            raise InvalidArgumentError(
                f"numpy dtype {dt} has no XLA element type; supported dtypes: {valid}"
            ) from None


P = PrimitiveType
_TYPE_TABLE: dict[PrimitiveType, _TypeInfo] = {
    P.PRED: _TypeInfo("pred", 8, "pred", np.bool_),
    P.S2: _TypeInfo("s2", 2, "sint", ml_dtypes.int2),
    P.S4: _TypeInfo("s4", 4, "sint", ml_dtypes.int4),
    P.S8: _TypeInfo("s8", 8, "sint", np.int8),
    P.S16: _TypeInfo("s16", 16, "sint", np.int16),
    P.S32: _TypeInfo("s32", 32, "sint", np.int32),
    P.S64: _TypeInfo("s64", 64, "sint", np.int64),
    P.U2: _TypeInfo("u2", 2, "uint", ml_dtypes.uint2),
    P.U4: _TypeInfo("u4", 4, "uint", ml_dtypes.uint4),
    P.U8: _TypeInfo("u8", 8, "uint", np.uint8),
    P.U16: _TypeInfo("u16", 16, "uint", np.uint16),
    P.U32: _TypeInfo("u32", 32, "uint", np.uint32),
    P.U64: _TypeInfo("u64", 64, "uint", np.uint64),
    P.F16: _TypeInfo("f16", 16, "float", np.float16, (5, 10)),
    P.BF16: _TypeInfo("bf16", 16, "float", ml_dtypes.bfloat16, (8, 7)),
    P.F32: _TypeInfo("f32", 32, "float", np.float32, (8, 23)),
    P.F64: _TypeInfo("f64", 64, "float", np.float64, (11, 52)),
    P.F8E5M2: _TypeInfo("f8e5m2", 8, "float", ml_dtypes.float8_e5m2, (5, 2)),
    P.F8E4M3: _TypeInfo("f8e4m3", 8, "float", ml_dtypes.float8_e4m3, (4, 3)),
    P.F8E4M3FN: _TypeInfo("f8e4m3fn", 8, "float", ml_dtypes.float8_e4m3fn, (4, 3)),
    P.F8E4M3B11FNUZ: _TypeInfo("f8e4m3b11fnuz", 8, "float", ml_dtypes.float8_e4m3b11fnuz, (4, 3)),
    P.F8E5M2FNUZ: _TypeInfo("f8e5m2fnuz", 8, "float", ml_dtypes.float8_e5m2fnuz, (5, 2)),
    P.F8E4M3FNUZ: _TypeInfo("f8e4m3fnuz", 8, "float", ml_dtypes.float8_e4m3fnuz, (4, 3)),
    P.F8E3M4: _TypeInfo("f8e3m4", 8, "float", ml_dtypes.float8_e3m4, (3, 4)),
    P.F8E8M0FNU: _TypeInfo("f8e8m0fnu", 8, "float", ml_dtypes.float8_e8m0fnu, (8, 0)),
    P.F4E2M1FN: _TypeInfo("f4e2m1fn", 4, "float", ml_dtypes.float4_e2m1fn, (2, 1)),
    P.C64: _TypeInfo("c64", 64, "complex", np.complex64),
    P.C128: _TypeInfo("c128", 128, "complex", np.complex128),
    P.TUPLE: _TypeInfo("tuple", 0, "other", None),
    P.OPAQUE_TYPE: _TypeInfo("opaque", 0, "other", None),
    P.TOKEN: _TypeInfo("token", 0, "other", None),
}
del P

_BY_HLO_NAME = {info.hlo_name: t for t, info in _TYPE_TABLE.items()}
_BY_DTYPE = {np.dtype(info.dtype): t for t, info in _TYPE_TABLE.items() if info.dtype is not None}

# Every type that can be an array element, in a stable order (tests iterate it).
ARRAY_TYPES: tuple[PrimitiveType, ...] = tuple(t for t in _TYPE_TABLE if t.is_array_type)

PRED = PrimitiveType.PRED
S2 = PrimitiveType.S2
S4 = PrimitiveType.S4
S8 = PrimitiveType.S8
S16 = PrimitiveType.S16
S32 = PrimitiveType.S32
S64 = PrimitiveType.S64
U2 = PrimitiveType.U2
U4 = PrimitiveType.U4
U8 = PrimitiveType.U8
U16 = PrimitiveType.U16
U32 = PrimitiveType.U32
U64 = PrimitiveType.U64
F16 = PrimitiveType.F16
BF16 = PrimitiveType.BF16
F32 = PrimitiveType.F32
F64 = PrimitiveType.F64
F8E5M2 = PrimitiveType.F8E5M2
F8E4M3 = PrimitiveType.F8E4M3
F8E4M3FN = PrimitiveType.F8E4M3FN
F8E4M3B11FNUZ = PrimitiveType.F8E4M3B11FNUZ
F8E5M2FNUZ = PrimitiveType.F8E5M2FNUZ
F8E4M3FNUZ = PrimitiveType.F8E4M3FNUZ
F8E3M4 = PrimitiveType.F8E3M4
F8E8M0FNU = PrimitiveType.F8E8M0FNU
F4E2M1FN = PrimitiveType.F4E2M1FN
C64 = PrimitiveType.C64
C128 = PrimitiveType.C128
TUPLE = PrimitiveType.TUPLE
OPAQUE_TYPE = PrimitiveType.OPAQUE_TYPE
TOKEN = PrimitiveType.TOKEN

__all__ = ["PrimitiveType", "ARRAY_TYPES"] + [t.name for t in _TYPE_TABLE]
