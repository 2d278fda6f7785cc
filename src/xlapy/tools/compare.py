"""Does a backend's result agree with the reference's, and if not, where first?

The verdict is the project's op-aware one (``xlapy.testing.dual_run.assert_agree``):
integers, predicates and anything moved rather than computed must agree bit for
bit; floats within a tolerance scaled to the type (the documented error of the
vectorized transcendental functions, reductions summed in another order).
A tool must say more than "differs": the first output that differs, the index
of its first differing element and both values, so this module locates it
under the same tolerance.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..types import PrimitiveType
from .inputs import leaves

# Relative tolerance by dtype, then by item size (the 1 and 2 byte floats); the same
# numbers as xlapy.testing.dual_run, which tests hold the backends to.
RTOL_BY_DTYPE = {np.dtype(np.float32): 2e-5, np.dtype(np.float64): 1e-12}
RTOL_BY_ITEMSIZE = {2: 2e-3, 1: 0.13}


@dataclass(frozen=True)
class Difference:
    """The first element where ``got`` and ``want`` disagree."""

    output: int  # which leaf of the (flattened) result
    index: tuple[int, ...]  # None-free index into that leaf; () for scalars and shapes
    got: Any
    want: Any
    reason: str = "values differ"

    def __str__(self) -> str:
        where = f"output {self.output}"
        if self.reason != "values differ":
            return f"{where}: {self.reason}"
        return f"{where} at index {list(self.index)}: got {self.got!r}, want {self.want!r}"


def tolerance(want: np.ndarray, transform: bool = False) -> tuple[float, float]:
    """(rtol, atol) for a float or complex ``want``: the tolerance of ``assert_agree``."""
    rtol = RTOL_BY_DTYPE.get(want.dtype, RTOL_BY_ITEMSIZE.get(want.dtype.itemsize, 2e-5))
    wide = want.astype(np.complex128 if want.dtype.kind == "c" else np.float64)
    finite = np.isfinite(wide)
    scale = float(np.max(np.abs(wide[finite]))) if finite.any() else 1.0
    return rtol, rtol * max(scale, 1e-30) * (1.0 if transform else 1e-3)


def _mismatches(got: np.ndarray, want: np.ndarray, transform: bool) -> np.ndarray:
    """A boolean array: True where the element disagrees."""
    et = PrimitiveType.from_dtype(want.dtype)
    if not (et.is_float or et.is_complex):
        return got != want
    wide = np.complex128 if et.is_complex else np.float64
    g, w = got.astype(wide), want.astype(wide)
    rtol, atol = tolerance(want, transform)
    both_nan = np.isnan(g) & np.isnan(w)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(g - w) <= atol + rtol * np.abs(w)
        same = g == w  # infinities of one sign
    return ~(close | same | both_nan)


def first_difference(got: Any, want: Any, transform: bool = False) -> Difference | None:
    """None when ``got`` agrees with ``want`` (results as numpy arrays, tuples nested);
    otherwise the first differing output and element."""
    got_leaves, want_leaves = leaves(got), leaves(want)
    if len(got_leaves) != len(want_leaves):
        return Difference(0, (), got, want, f"{len(got_leaves)} outputs, want {len(want_leaves)}")
    for k, (g, w) in enumerate(zip(got_leaves, want_leaves, strict=True)):
        if w is None or g is None:  # tokens
            if (g is None) != (w is None):
                return Difference(k, (), g, w, "a token where an array was expected")
            continue
        g, w = np.asarray(got_leaves[k]), np.asarray(w)
        if g.shape != w.shape or g.dtype != w.dtype:
            return Difference(
                k, (), g, w, f"got {g.dtype}{list(g.shape)}, want {w.dtype}{list(w.shape)}"
            )
        bad = _mismatches(g, w, transform)
        if np.any(bad):
            index = tuple(int(i) for i in np.unravel_index(int(np.argmax(bad)), bad.shape))
            return Difference(k, index, g[index].item(), w[index].item())
    return None


def has_fft(module: Any) -> bool:
    """FFTs sum the whole signal into each output: their error is relative to the largest."""
    computations = getattr(module, "computations", ())
    return any(i.opcode.value == "fft" for c in computations for i in c.instructions)
