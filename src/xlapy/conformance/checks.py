"""The check semantics of the StableHLO reference interpreter, on numpy arrays.

A conformance result is only worth something if "pass" means what it means
upstream, so every comparison here follows the reference implementation
(openxla/stablehlo ``stablehlo/tests/CheckOps.cpp``, ``reference/Element.cpp``
and the custom-call fallback of ``tools/StablehloTranslateMain.cpp``), not a
tolerance of our choosing:

- ``expect_eq`` (and ``_const``): element ``!=`` of the reference's Element,
  i.e. integers and booleans exactly, floats with IEEE equality (``+0 == -0``,
  a NaN equals nothing, not even the same NaN bits), complex part by part.
- ``expect_almost_eq``: per float (complex: per part) equal if IEEE-equal, or
  both NaN, or both finite, of the same sign, and ``|a - b| <= tolerance``
  computed in double (an absolute tolerance; no relative term).
  Default 1e-4 for the check-dialect op, 1e-3 for the
  ``stablehlo.custom_call @check.expect_almost_eq`` form.
- ``expect_close``: ``min_ulp <= ulp_distance(actual, expected) <= max_ulp``
  per element (complex: the larger distance of the two parts). The distance
  is 0 for bitwise-equal values and for two NaNs of any payload; for finite
  values it counts representable values between them (the integer distance of
  the magnitudes' bit patterns, added across zero, so ``+0``/``-0`` are 0
  apart and subnormals count as ordinary steps); any other pair involving a
  non-finite value is "infinitely" far (2**64 - 1). Defaults are [0, 1] for
  the check-dialect op and [0, 3] for the custom-call form.
- ``expect_serialized_eq``: the probe's recorded value at the iteration must
  have the same type and be ``expect_eq``-equal.

Where the runner uses a tolerance other than the one the file asks for, it
comes from :data:`OP_TOLERANCES`, and every case it applies to reports it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import ml_dtypes
import numpy as np

from ..types import PrimitiveType

ULP_INFINITE = np.iinfo(np.uint64).max

# Defaults of the two spellings of each check (see the module docstring).
DIALECT_ALMOST_EQ_TOLERANCE = 1e-4
CUSTOM_CALL_ALMOST_EQ_TOLERANCE = 1e-3
DIALECT_CLOSE_ULPS = (0, 1)
CUSTOM_CALL_CLOSE_ULPS = (0, 3)


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check: ``detail`` describes the first differing element."""

    passed: bool
    detail: str = ""
    mismatches: int = 0


PASSED = CheckResult(True)


# -- element types ---------------------------------------------------------------------------


def _element_type(dtype: np.dtype) -> PrimitiveType | None:
    try:
        return PrimitiveType.from_dtype(dtype)
    except Exception:  # noqa: BLE001  (a dtype xlapy has no element type for, e.g. float6)
        return None


def is_float_dtype(dtype: Any) -> bool:
    dt = np.dtype(dtype)
    t = _element_type(dt)
    if t is not None:
        return t.is_float
    try:
        ml_dtypes.finfo(dt)
    except Exception:  # noqa: BLE001
        return False
    return True


def is_complex_dtype(dtype: Any) -> bool:
    return np.dtype(dtype).kind == "c"


def _float_layout(dtype: np.dtype) -> tuple[int, int]:
    """(bits of a value, sign mask): float8_e8m0fnu has no sign bit at all."""
    info = ml_dtypes.finfo(dtype)
    bits = int(info.bits)
    exponent_bits = int(info.nexp)
    mantissa_bits = int(info.nmant)
    has_sign = bits > exponent_bits + mantissa_bits
    return bits, (1 << (bits - 1)) if has_sign else 0


def float_bits(array: np.ndarray) -> np.ndarray:
    """The bit patterns of a float array as uint64 (sub-byte types: their low bits)."""
    array = np.asarray(array)
    bits, _ = _float_layout(array.dtype)
    unsigned = np.dtype(f"u{array.dtype.itemsize}")
    raw = np.asarray(array, order="C").view(unsigned).astype(np.uint64)
    return raw & np.uint64((1 << bits) - 1) if bits < 64 else raw


def _parts(array: np.ndarray) -> list[np.ndarray]:
    """The float components: the array itself, or the real and imaginary parts."""
    if is_complex_dtype(array.dtype):
        return [np.asarray(array.real, order="C"), np.asarray(array.imag, order="C")]
    return [array]


# -- element-wise relations ------------------------------------------------------------------


def _ulp_distance_float(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    _, sign = _float_layout(a.dtype)
    bits_a, bits_b = float_bits(a), float_bits(b)
    sign_mask = np.uint64(sign)
    magnitude_a, magnitude_b = bits_a & ~sign_mask, bits_b & ~sign_mask
    negative_a, negative_b = (bits_a & sign_mask) != 0, (bits_b & sign_mask) != 0
    wide_a, wide_b = a.astype(np.float64), b.astype(np.float64)
    finite = np.isfinite(wide_a) & np.isfinite(wide_b)
    with np.errstate(over="ignore"):  # both branches are computed; the wrapped one is unused
        apart = np.where(
            magnitude_a > magnitude_b, magnitude_a - magnitude_b, magnitude_b - magnitude_a
        )
        across_zero = magnitude_a + magnitude_b  # < 2**64 for every IEEE format
    finite_distance = np.where(negative_a != negative_b, across_zero, apart)
    both_nan = np.isnan(wide_a) & np.isnan(wide_b)
    far = np.where(both_nan, np.uint64(0), np.uint64(ULP_INFINITE))
    distance = np.where(finite, finite_distance, far)
    return np.where(bits_a == bits_b, np.uint64(0), distance).astype(np.uint64)


def ulp_distance(actual: Any, expected: Any) -> np.ndarray:
    """Per element ULP distance (uint64) as the reference's ``ULPDifference`` defines it."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    _require_same_type(actual, expected)
    if not (is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype)):
        raise TypeError(f"ULP distance needs float or complex values, got {actual.dtype}")
    distances = [
        _ulp_distance_float(a, b) for a, b in zip(_parts(actual), _parts(expected), strict=True)
    ]
    return np.maximum.reduce(distances) if len(distances) > 1 else distances[0]


def _almost_equal_float(a: np.ndarray, b: np.ndarray, tolerance: float) -> np.ndarray:
    f, g = a.astype(np.float64), b.astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        equal = f == g
        nan_f, nan_g = np.isnan(f), np.isnan(g)
        finite_nonzero_f = np.isfinite(f) & (f != 0)
        finite_nonzero_g = np.isfinite(g) & (g != 0)
        # Not equal, one of them is infinite, and neither is zero: never close.
        infinite_apart = ~(finite_nonzero_f & finite_nonzero_g) & (f != 0) & (g != 0)
        same_sign = np.signbit(f) == np.signbit(g)
        near = np.abs(f - g) <= tolerance
    result = np.where(
        equal,
        True,
        np.where(nan_f | nan_g, nan_f & nan_g, ~infinite_apart & same_sign & near),
    )
    return result.astype(bool)


def almost_equal(actual: Any, expected: Any, tolerance: float) -> np.ndarray:
    """Per element ``areApproximatelyEqual`` of the reference (bool array)."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    _require_same_type(actual, expected)
    if not (is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype)):
        raise TypeError(f"almost_eq needs float or complex values, got {actual.dtype}")
    masks = [
        _almost_equal_float(a, b, tolerance)
        for a, b in zip(_parts(actual), _parts(expected), strict=True)
    ]
    return np.logical_and.reduce(masks) if len(masks) > 1 else masks[0]


def equal(actual: Any, expected: Any) -> np.ndarray:
    """Per element ``==`` of the reference's Element (IEEE for floats) as a bool array."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    _require_same_type(actual, expected)
    if is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype):
        masks = []
        for a, b in zip(_parts(actual), _parts(expected), strict=True):
            with np.errstate(invalid="ignore"):
                masks.append(a.astype(np.float64) == b.astype(np.float64))
        return np.logical_and.reduce(masks) if len(masks) > 1 else masks[0]
    return np.asarray(actual == expected, dtype=bool)


def _require_same_type(actual: np.ndarray, expected: np.ndarray) -> None:
    if actual.dtype != expected.dtype:
        raise TypeError(f"element types differ: {actual.dtype} (actual) vs {expected.dtype}")
    if actual.shape != expected.shape:
        raise TypeError(f"shapes differ: {actual.shape} (actual) vs {expected.shape}")


# -- formatting ------------------------------------------------------------------------------


def format_element(array: np.ndarray, index: tuple[int, ...]) -> str:
    """One element with its bit pattern for floats: ``1.0000001 (0x3f800001)``."""
    value = array[index]
    if is_complex_dtype(array.dtype):
        real, imag = (format_element(p, index) for p in _parts(array))
        return f"({real}, {imag})"
    if is_float_dtype(array.dtype):
        bits, _ = _float_layout(array.dtype)
        pattern = int(float_bits(np.asarray(value, dtype=array.dtype)))
        return f"{float(value)!r} (0x{pattern:0{max(1, bits // 4)}x})"
    if array.dtype == np.bool_:
        return "true" if bool(value) else "false"
    return str(int(value))


def _index_text(index: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"


def _first_mismatch(
    ok: np.ndarray, actual: np.ndarray, expected: np.ndarray, what: str, extra: str = ""
) -> CheckResult:
    bad = np.argwhere(~np.asarray(ok, dtype=bool).reshape(actual.shape))
    if len(bad) == 0:
        return PASSED
    index = tuple(int(i) for i in bad[0])
    detail = (
        f"{what}: {len(bad)} of {actual.size} elements differ; first at index "
        f"{_index_text(index)}: actual {format_element(actual, index)}, "
        f"expected {format_element(expected, index)}"
    )
    if is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype):
        distance = int(ulp_distance(actual[index], expected[index]))
        shown = "inf" if distance == ULP_INFINITE else str(distance)
        detail += f", {shown} ULP apart"
    return CheckResult(False, detail + extra, len(bad))


def _type_mismatch(what: str, actual: np.ndarray, expected: np.ndarray) -> CheckResult | None:
    if actual.dtype != expected.dtype or actual.shape != expected.shape:
        return CheckResult(
            False,
            f"{what}: type mismatch: actual {mlir_type(actual)}, expected {mlir_type(expected)}",
            int(max(actual.size, expected.size)),
        )
    return None


# -- the checks ------------------------------------------------------------------------------


def check_eq(actual: Any, expected: Any, what: str = "expect_eq") -> CheckResult:
    actual, expected = np.asarray(actual), np.asarray(expected)
    mismatch = _type_mismatch(what, actual, expected)
    if mismatch is not None:
        return mismatch
    return _first_mismatch(equal(actual, expected), actual, expected, what)


def check_almost_eq(
    actual: Any,
    expected: Any,
    tolerance: float = DIALECT_ALMOST_EQ_TOLERANCE,
    what: str = "expect_almost_eq",
) -> CheckResult:
    actual, expected = np.asarray(actual), np.asarray(expected)
    mismatch = _type_mismatch(what, actual, expected)
    if mismatch is not None:
        return mismatch
    if not (is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype)):
        return CheckResult(False, f"{what}: needs float or complex values, got {actual.dtype}")
    ok = almost_equal(actual, expected, tolerance)
    return _first_mismatch(ok, actual, expected, what, f" (tolerance {tolerance:g})")


def check_close(
    actual: Any,
    expected: Any,
    min_ulp: int = DIALECT_CLOSE_ULPS[0],
    max_ulp: int = DIALECT_CLOSE_ULPS[1],
    what: str = "expect_close",
) -> CheckResult:
    actual, expected = np.asarray(actual), np.asarray(expected)
    mismatch = _type_mismatch(what, actual, expected)
    if mismatch is not None:
        return mismatch
    if not (is_float_dtype(actual.dtype) or is_complex_dtype(actual.dtype)):
        return CheckResult(False, f"{what}: needs float or complex values, got {actual.dtype}")
    distance = ulp_distance(actual, expected)
    ok = (distance >= np.uint64(min_ulp)) & (distance <= np.uint64(max_ulp))
    result = _first_mismatch(ok, actual, expected, what, f" (allowed [{min_ulp}, {max_ulp}] ULP)")
    if not result.passed:
        worst = int(distance.max())
        shown = "inf" if worst == ULP_INFINITE else str(worst)
        result = CheckResult(
            False, f"{result.detail}; largest distance {shown} ULP", result.mismatches
        )
    return result


def check_serialized_eq(
    expected: Any, recorded: list[np.ndarray], probe_id: str, iteration: int
) -> CheckResult:
    """``expected`` against the ``iteration``-th value ``interpreter.probe`` recorded."""
    what = f"expect_serialized_eq(probe_id={probe_id!r}, iter={iteration})"
    if iteration >= len(recorded):
        return CheckResult(
            False,
            f"{what}: the probe recorded {len(recorded)} value(s); no value for iteration "
            f"{iteration}",
        )
    value = np.asarray(recorded[iteration])
    expected = np.asarray(expected)
    if value.dtype != expected.dtype or value.shape != expected.shape:
        return CheckResult(
            False,
            f"{what}: serialized types don't match: {mlir_type(value)} (probed) vs "
            f"{mlir_type(expected)} (expected)",
        )
    return _first_mismatch(equal(value, expected), value, expected, what)


# -- MLIR type names (for messages and interpreter.print) ------------------------------------

_MLIR_ELEMENT = {
    "bool": "i1",
    "int2": "i2",
    "int4": "i4",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "uint2": "ui2",
    "uint4": "ui4",
    "uint8": "ui8",
    "uint16": "ui16",
    "uint32": "ui32",
    "uint64": "ui64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
    "complex64": "complex<f32>",
    "complex128": "complex<f64>",
    "float8_e5m2": "f8E5M2",
    "float8_e4m3": "f8E4M3",
    "float8_e4m3fn": "f8E4M3FN",
    "float8_e4m3b11fnuz": "f8E4M3B11FNUZ",
    "float8_e5m2fnuz": "f8E5M2FNUZ",
    "float8_e4m3fnuz": "f8E4M3FNUZ",
    "float8_e3m4": "f8E3M4",
    "float8_e8m0fnu": "f8E8M0FNU",
    "float4_e2m1fn": "f4E2M1FN",
    "float6_e2m3fn": "f6E2M3FN",
    "float6_e3m2fn": "f6E3M2FN",
}


def mlir_type(array: np.ndarray) -> str:
    """``tensor<2x3xf32>`` for an array (as MLIR spells the type)."""
    array = np.asarray(array)
    element = _MLIR_ELEMENT.get(array.dtype.name, array.dtype.name)
    dims = "".join(f"{d}x" for d in array.shape)
    return f"tensor<{dims}{element}>"


def format_tensor(array: np.ndarray) -> str:
    """A value as ``interpreter.print`` shows it: its type, then its elements."""
    array = np.asarray(array)

    def element(value: Any) -> str:
        if is_complex_dtype(array.dtype):
            return f"[{float(value.real):e}, {float(value.imag):e}]"
        if is_float_dtype(array.dtype):
            return f"{float(value):e}"
        if array.dtype == np.bool_:
            return "true" if value else "false"
        return str(int(value))

    def nested(a: np.ndarray) -> str:
        if a.ndim == 0:
            return element(a[()])
        return "[" + ", ".join(nested(a[i]) for i in range(a.shape[0])) + "]"

    return f"{mlir_type(array)} {{{nested(array)}}}"


# -- per-op tolerances -----------------------------------------------------------------------


@dataclass(frozen=True)
class ToleranceOverride:
    """A tolerance the runner uses instead of the file's, with the reason it is needed.

    ``max_ulp`` replaces an ``expect_close`` bound, ``tolerance`` an
    ``expect_almost_eq`` one. A check first runs with the file's tolerance;
    only if that fails is the override tried, and a case that passes only
    thanks to it says so in the output and the JSON.
    """

    reason: str
    max_ulp: int | None = None
    tolerance: float | None = None

    def describe(self) -> str:
        bounds = []
        if self.max_ulp is not None:
            bounds.append(f"max_ulp_difference={self.max_ulp}")
        if self.tolerance is not None:
            bounds.append(f"tolerance={self.tolerance:g}")
        return f"per-op tolerance {', '.join(bounds)}: {self.reason}"


# Keyed by the op under test (see runner.op_of); "op/dtype" entries (the dtype's
# numpy name, as the testdata file names spell it, e.g. "tan/float16") win over
# "op" ones.
#
# Empty on purpose. On the interpreter every transcendental op of the suite meets
# the bound its file asks for (JAX's custom-call checks: 3 ULP), so none needs
# more. The ULP failures that remain come from the order of accumulation
# (cumsum, reduce_window_add, cumprod, dot_general with complex results), which
# the spec leaves to the implementation but which no fixed ULP bound describes
# (the error scales with the terms, not the result), so they stay failures for
# a reader to judge. An entry belongs here only with a reason one can check,
# such as the documented error bound of an approximation a backend uses.
OP_TOLERANCES: dict[str, ToleranceOverride] = {}


def tolerance_override(op: str, dtype_name: str | None = None) -> ToleranceOverride | None:
    if dtype_name is not None:
        specific = OP_TOLERANCES.get(f"{op}/{dtype_name}")
        if specific is not None:
            return specific
    return OP_TOLERANCES.get(op)


__all__ = [
    "CUSTOM_CALL_ALMOST_EQ_TOLERANCE",
    "CUSTOM_CALL_CLOSE_ULPS",
    "DIALECT_ALMOST_EQ_TOLERANCE",
    "DIALECT_CLOSE_ULPS",
    "OP_TOLERANCES",
    "PASSED",
    "ULP_INFINITE",
    "CheckResult",
    "ToleranceOverride",
    "almost_equal",
    "check_almost_eq",
    "check_close",
    "check_eq",
    "check_serialized_eq",
    "equal",
    "float_bits",
    "format_element",
    "format_tensor",
    "is_complex_dtype",
    "is_float_dtype",
    "mlir_type",
    "tolerance_override",
    "ulp_distance",
]
