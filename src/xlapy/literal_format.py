"""XLA's literal text, the printing direction (``xlapy.literal_text`` reads it back).

``Literal``'s ``str``, ``repr`` and mismatch messages are this text, so the
printer sits below ``xlapy.literal`` and knows literals only by their methods;
the per-type float facts here are shared with the parser. What the text looks
like is described in ``xlapy.literal_text``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import ml_dtypes
import numpy as np

from .errors import UnimplementedError
from .types import ARRAY_TYPES, PrimitiveType

if TYPE_CHECKING:
    from .literal import Literal

P = PrimitiveType

# -- per-type facts ---------------------------------------------------------------

UINT_OF_SIZE = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
DOUBLE_QUIET_PAYLOAD = 1 << 51  # what XLA's lexer stores for a plain "nan"


@dataclass(frozen=True)
class FloatFacts:
    width: int
    exponent_bits: int
    mantissa_bits: int
    max_digits10: int
    short_digits: int  # f32/f64 first try digits10; 0 = use max_digits10 only
    has_inf: bool
    has_nan: bool
    lowest: float
    highest: float

    @property
    def payload_bits(self) -> int:
        """NaN payload bits XLA prints and parses: IEEE-like types only."""
        return self.mantissa_bits if self.has_inf else 0

    @property
    def quiet_payload(self) -> int:
        return 1 << (self.mantissa_bits - 1) if self.mantissa_bits else 0


def _float_facts(element_type: PrimitiveType) -> FloatFacts:
    exponent, mantissa = element_type.exponent_mantissa_bits
    probe = np.array([np.inf, np.nan]).astype(element_type.dtype).astype(np.float64)
    info = ml_dtypes.finfo(element_type.dtype)
    return FloatFacts(
        width=element_type.bit_width,
        exponent_bits=exponent,
        mantissa_bits=mantissa,
        max_digits10=2 + (mantissa + 1) * 30103 // 100000,
        short_digits={P.F32: 6, P.F64: 15}.get(element_type, 0),
        has_inf=bool(np.isinf(probe[0])),
        has_nan=bool(np.isnan(probe[1])),
        lowest=float(info.min),
        highest=float(info.max),
    )


FLOAT_FACTS = {t: _float_facts(t) for t in ARRAY_TYPES if t.is_float}


def _raw_bits(values: np.ndarray) -> np.ndarray:
    values = np.ascontiguousarray(values)
    return values.view(UINT_OF_SIZE[values.dtype.itemsize]).astype(np.uint64)


# -- formatting -------------------------------------------------------------------


def _format_nan(value: float, bits: int, facts: FloatFacts) -> str:
    text = "-nan" if math.copysign(1.0, value) < 0 else "nan"
    if facts.payload_bits:
        payload = bits & ((1 << facts.mantissa_bits) - 1)
        if payload != facts.quiet_payload:
            text += f"(0x{payload:x})"
    return text


def _format_floats(values: np.ndarray, element_type: PrimitiveType) -> list[str]:
    """Each value in the fewest digits that read back to it: ``short_digits`` where
    those do, else ``max_digits10``. The read-back check runs on the whole array at
    once (per element it cost ~4 us: 4 ms for a 1,024-float constant, which the
    compile cache's key renders)."""
    facts = FLOAT_FACTS[element_type]
    flat = np.ascontiguousarray(values).ravel()
    with np.errstate(all="ignore"):
        doubles = flat.astype(np.float64)
    listed = doubles.tolist()
    long = facts.max_digits10
    if facts.short_digits:
        short = [f"{v:.{facts.short_digits}g}" for v in listed]
        with np.errstate(all="ignore"):
            back = np.array(short, dtype=np.float64).astype(element_type.dtype)
            exact = (back.astype(np.float64) == doubles).tolist()
    else:
        short, exact = listed, [False] * len(listed)
    bits = _raw_bits(flat).tolist() if np.isnan(doubles).any() else None
    out = []
    for k, value in enumerate(listed):
        if value != value:
            out.append(_format_nan(value, bits[k], facts))  # type: ignore[index]
        elif exact[k]:
            out.append(short[k])
        else:
            out.append(f"{value:.{long}g}")
    return out


def _format_complex(values: np.ndarray, element_type: PrimitiveType) -> list[str]:
    part = element_type.component_type
    flat = np.ascontiguousarray(values).ravel()
    re_text = _format_floats(np.ascontiguousarray(flat.real), part)
    im_text = _format_floats(np.ascontiguousarray(flat.imag), part)
    return [f"({r}, {i})" for r, i in zip(re_text, im_text, strict=True)]


def _format_ints(values: np.ndarray, element_type: PrimitiveType) -> list[str]:
    wide = np.uint64 if element_type.is_unsigned_integral else np.int64
    return [str(v) for v in np.asarray(values).ravel().astype(wide).tolist()]


def _format_preds(values: np.ndarray, element_type: PrimitiveType) -> list[str]:
    # XLA prints pred arrays densely as 1/0 but a pred scalar as true/false.
    if np.ndim(values) == 0:
        return ["true" if bool(values) else "false"]
    return ["1" if v else "0" for v in np.asarray(values).ravel().tolist()]


_FORMATTERS = {
    "pred": _format_preds,
    "sint": _format_ints,
    "uint": _format_ints,
    "float": _format_floats,
    "complex": _format_complex,
}


def element_kind(element_type: PrimitiveType) -> str:
    for kind, test in (
        ("pred", element_type.is_pred),
        ("sint", element_type.is_signed_integral),
        ("uint", element_type.is_unsigned_integral),
        ("float", element_type.is_float),
        ("complex", element_type.is_complex),
    ):
        if test:
            return kind
    raise UnimplementedError(f"literal text for element type {element_type} is not supported")


def format_element(value: object, element_type: PrimitiveType) -> str:
    """One value as XLA prints a scalar of ``element_type``."""
    element_type = PrimitiveType(element_type)
    array = np.asarray(value, dtype=element_type.dtype).reshape(())
    return _FORMATTERS[element_kind(element_type)](array, element_type)[0]


def _array_body(lit: Literal, oneline: bool) -> str:
    """DenseArrayPrintHelper: the nesting, spacing and comments of XLA's printer."""
    values = lit.to_numpy()
    dims = lit.dimensions
    rank = len(dims)
    elements = _FORMATTERS[element_kind(lit.element_type)](values, lit.element_type)
    if rank == 0:
        return elements[0]
    linebreak = " " if oneline else "\n"
    items = iter(elements)
    out: list[str] = []

    def open_brace(level: int, accum: list[int]) -> str:
        if rank == 1:
            return "{"
        if level == rank - 1:
            return ("" if oneline else "  ") + "{" + ("" if dims[level] <= 1 else " ")
        if rank > 3 and accum:
            return f"{{ /*i{len(accum) - 1}={accum[-1]}*/" + (linebreak if dims[level] > 0 else "")
        return "{" + linebreak

    def close_brace(level: int) -> str:
        if rank == 1:
            return "}"
        if level == rank - 1:
            return ("" if dims[level] <= 1 else " ") + "}"
        return linebreak + "}"

    def emit(level: int, accum: list[int]) -> None:
        out.append(open_brace(level, accum))
        size = dims[level]
        separator = "," + (linebreak if level < rank - 1 else " ")
        for i in range(size):
            if level == rank - 1:
                out.append(next(items))
            else:
                accum.append(i)
                emit(level + 1, accum)
                accum.pop()
            if i < size - 1:
                out.append(separator)
        out.append(close_brace(level))

    emit(0, [])
    return "".join(out)


def format_literal(
    lit: Literal, *, with_shape: bool = True, oneline: bool = False, with_layout: bool = False
) -> str:
    """``Literal::ToString`` (default), ``ToStringOneline`` (oneline) or, with
    ``with_shape=False, oneline=True``, exactly what HLO puts in ``constant(...)``."""
    if lit.is_tuple:
        sep, start, end = (", ", "( ", " )") if oneline else (",\n", "(\n", "\n)")
        parts = [
            format_literal(e, with_shape=with_shape, oneline=oneline, with_layout=with_layout)
            for e in lit.tuple_elements
        ]
        return start + sep.join(parts) + end
    if lit.is_token:
        return "token"
    body = _array_body(lit, oneline)
    if not with_shape:
        return body
    shape = lit.shape
    prefix = shape.to_string(print_layout=with_layout)
    if not shape.is_static:
        prefix += "(" + ",".join(str(d) for d in shape.dimensions) + ")"
    return f"{prefix} {body}"


__all__ = [
    "DOUBLE_QUIET_PAYLOAD",
    "FLOAT_FACTS",
    "UINT_OF_SIZE",
    "FloatFacts",
    "element_kind",
    "format_element",
    "format_literal",
]
