"""Run a program on every backend and compare with the interpreter.

Exact programs (integer, predicate and movement ops only) must agree bit for
bit; programs with rounding ops (transcendental functions, division, sums in
a different order) within a tolerance. A mismatch raises an AssertionError
whose message is the program's HLO text, ready for tests/regressions/.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.interpreter import run as interpret
from ..client import local_client
from ..errors import XlaError
from ..hlo import parse_module
from .dual_run import assert_agree
from .random_programs import RandomProgram

BACKENDS = ("cpu",)


def _exactly_equal(got: Any, want: Any) -> bool:
    if isinstance(want, tuple):
        return len(got) == len(want) and all(map(_exactly_equal, got, want))
    g, w = np.asarray(got), np.asarray(want)
    if g.shape != w.shape or g.dtype != w.dtype:
        return False
    if g.dtype.kind == "f" or "float" in str(g.dtype):
        wide_g, wide_w = g.astype(np.float64), w.astype(np.float64)
        both_nan = np.isnan(wide_g) & np.isnan(wide_w)
        same = (wide_g == wide_w) & (np.signbit(wide_g) == np.signbit(wide_w))
        return bool(np.all(both_nan | same))
    return bool(np.array_equal(g, w))


def check_program(program: RandomProgram, backends: tuple[str, ...] = BACKENDS) -> None:
    """Every backend computes what the interpreter computes (see the module docstring)."""
    module = parse_module(program.text)
    try:
        want = interpret(module, *program.inputs)
    except XlaError:
        return  # a program the reference itself rejects at run time (not a backend bug)
    for backend in backends:
        executable = local_client(backend).compile(parse_module(program.text))
        got = executable(*program.inputs)
        try:
            if program.exact:
                assert _exactly_equal(got, want), "results differ"
            else:
                _assert_close(got, want)
        except AssertionError as e:
            raise AssertionError(
                f"{backend} disagrees with the interpreter ({e}) on:\n{program.text}\n"
                f"inputs: {[a.tolist() for a in program.inputs]}"
            ) from None


def _assert_close(got: Any, want: Any) -> None:
    if isinstance(want, tuple):
        for g, w in zip(got, want, strict=True):
            _assert_close(g, w)
        return
    g, w = np.asarray(got), np.asarray(want)
    assert g.shape == w.shape and g.dtype == w.dtype, f"{g.dtype}{g.shape} vs {w.dtype}{w.shape}"
    if not ("float" in str(w.dtype) or w.dtype.kind == "f"):
        # Integers computed from rounded floats (convert after exp...) may differ by one step.
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        assert np.all(diff <= np.maximum(1, 1e-3 * np.abs(w.astype(np.float64)))), (
            "integer results differ"
        )
        return
    try:
        assert_agree(g, w)
    except AssertionError:
        gf, wf = g.astype(np.float64), w.astype(np.float64)
        finite = np.isfinite(wf) & np.isfinite(gf)
        scale = np.maximum(np.abs(wf), 1.0)
        assert np.all(np.abs(gf[finite] - wf[finite]) <= 1e-2 * scale[finite]), "values differ"
