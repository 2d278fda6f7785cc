"""Run a module on the CPU backend and on the interpreter, and insist that they agree.

The interpreter is the oracle. Exact ops must agree bit for bit (integers,
predicates, movement); float results within a tolerance that allows the
documented error of the CPU backend's vectorized transcendental functions and
a different summation order in reductions (the spec leaves it open). A module
that the interpreter rejects must be rejected by the CPU backend as well.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.cpu import run as cpu_run
from ..backends.interpreter import run as interpreter_run
from ..errors import XlaError
from ..tools.compare import tolerance
from ..types import PrimitiveType


def assert_agree(got: Any, want: Any, where: str = "result", transform: bool = False) -> None:
    """``got`` (CPU) equals ``want`` (interpreter) as the module docstring says. With
    ``transform`` (an fft, a solve: see ``_NORMWISE``) float errors are bounded relative
    to the largest output rather than to each one."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for k, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_agree(g, w, f"{where}[{k}]", transform)
        return
    if want is None:
        assert got is None, f"{where}: expected a token, got {got!r}"
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape, f"{where}: shape {g.shape} != {w.shape}"
    assert g.dtype == w.dtype, f"{where}: dtype {g.dtype} != {w.dtype}"
    et = PrimitiveType.from_dtype(w.dtype)
    if not (et.is_float or et.is_complex):
        np.testing.assert_array_equal(g, w, err_msg=where)
        return
    wide = np.complex128 if et.is_complex else np.float64
    rtol, absolute = tolerance(w, transform)
    np.testing.assert_allclose(
        g.astype(wide), w.astype(wide), rtol=rtol, atol=absolute, equal_nan=True, err_msg=where
    )


def dual_run(module: Any, *arguments: Any, **options: Any) -> Any:
    """The interpreter's result, after checking that the CPU backend computes the same."""
    try:
        want = interpreter_run(module, *arguments, **options)
    except XlaError:
        try:
            cpu_run(module, *arguments, **options)
        except XlaError:
            pass
        else:
            raise AssertionError(
                "the interpreter rejected the module but the CPU backend ran it"
            ) from None
        raise
    got = cpu_run(module, *arguments, **options)
    assert_agree(got, want, transform=_normwise(module))
    return want


# Ops whose outputs are accurate as a whole, not one by one: every output sums many inputs
# (a transform) or solves a system, so an output near zero by cancellation carries an
# error of the size of the largest output's rounding (a triangular solve's forward error
# is bounded by the condition number times the norm of the solution).
_NORMWISE = ("fft", "triangular-solve", "cholesky")


def _normwise(module: Any) -> bool:
    if isinstance(module, str):
        return any(f" {opcode}(" in module for opcode in _NORMWISE)
    computations = getattr(module, "computations", ())
    return any(i.opcode.value in _NORMWISE for c in computations for i in c.instructions)
