"""What the elementwise kernels share: widening to a type numpy computes exactly in, and
the bit-level views of values (narrowing back is ``elementwise_convert.narrow``: it
rounds with convert's rules).

Every kernel takes its element types from the instruction (operand shapes and the result
shape) and never its dimensions: ``EvalContext.call_batched`` runs scalar computations on
whole arrays, so a kernel sees operands of any (broadcastable) shape, 0-d and numpy
scalars included.

Widening exists because numpy cannot compute every XLA type the way XLA does: ml_dtypes'
sub-byte integers and 8-/4-bit floats have few or no ufuncs, and XLA:CPU itself computes
f16, bf16 and the f8/f4 kinds in f32 and rounds the result back. Integers are computed in a
container at least as wide (so wrapping is only a final mask), pred as an unsigned byte
(so ``add`` is or, ``multiply`` is and, as in XLA).
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from ...types import PrimitiveType
from ..core import c_contiguous

P = PrimitiveType

# Types numpy computes natively, exactly as XLA does (integer wrap-around included).
_CONTAINER: dict[PrimitiveType, Any] = {
    P.PRED: np.uint8,
    P.S2: np.int8,
    P.S4: np.int8,
    P.U2: np.uint8,
    P.U4: np.uint8,
    P.F16: np.float32,
    P.BF16: np.float32,
    P.F8E5M2: np.float32,
    P.F8E4M3: np.float32,
    P.F8E4M3FN: np.float32,
    P.F8E4M3B11FNUZ: np.float32,
    P.F8E5M2FNUZ: np.float32,
    P.F8E4M3FNUZ: np.float32,
    P.F8E3M4: np.float32,
    P.F8E8M0FNU: np.float32,
    P.F4E2M1FN: np.float32,
}


def operand_type(instruction: Any, index: int) -> PrimitiveType:
    return instruction.operand(index).shape.element_type


def result_type(instruction: Any) -> PrimitiveType:
    return instruction.shape.element_type


def compute_dtype(et: PrimitiveType) -> np.dtype:
    """The numpy dtype ``et``'s values are computed in (see the module docstring)."""
    return np.dtype(_CONTAINER.get(et, et.dtype))


def widen(value: Any, et: PrimitiveType) -> np.ndarray:
    """``value`` (of element type ``et``) as an array of ``compute_dtype(et)``."""
    return np.asarray(value).astype(compute_dtype(et), copy=False)


def int_bounds(et: PrimitiveType) -> tuple[int, int]:
    """(min, max) of an integer type (pred counts as u1)."""
    if et.is_pred:
        return 0, 1
    info = ml_dtypes.iinfo(et.dtype)
    return int(info.min), int(info.max)


def unsigned_bits(value: Any, et: PrimitiveType) -> np.ndarray:
    """The bit patterns of integer values, as the unsigned numpy type of their width
    (sub-byte types in a uint8, high bits clear)."""
    array = np.asarray(value)
    width = et.bit_width
    if width < 8:
        return array.astype(np.int8 if et.is_signed_integral else np.uint8).view(
            np.uint8
        ) & np.uint8((1 << width) - 1)
    return array.astype(et.dtype, copy=False).view(f"u{width // 8}")


def bits_to_int(bits: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """The inverse of :func:`unsigned_bits`."""
    width = et.bit_width
    if width < 8:
        return np.asarray(bits, dtype=np.uint8).astype(et.dtype)  # ml_dtypes keeps the low bits
    return np.asarray(bits, dtype=f"u{width // 8}").view(et.dtype)


def float_bits(value: Any, et: PrimitiveType) -> np.ndarray:
    """The bit patterns of float values of type ``et`` as an unsigned integer array."""
    array = c_contiguous(value, et.dtype)
    bits = array.view(f"u{array.dtype.itemsize}")
    return bits & np.uint8(0xF) if et.bit_width == 4 else bits


def bits_to_float(bits: np.ndarray, et: PrimitiveType) -> np.ndarray:
    dtype = np.dtype(et.dtype)
    return c_contiguous(bits.astype(f"u{dtype.itemsize}")).view(dtype)


def as_result(value: Any, et: PrimitiveType) -> np.ndarray:
    """A kernel's result: always an ndarray of ``et``'s dtype (0-d included)."""
    return np.asarray(value, dtype=et.dtype)


__all__ = [
    "as_result",
    "bits_to_float",
    "bits_to_int",
    "compute_dtype",
    "float_bits",
    "int_bounds",
    "operand_type",
    "result_type",
    "unsigned_bits",
    "widen",
]
