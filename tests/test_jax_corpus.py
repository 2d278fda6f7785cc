"""Whole JAX programs run on xlapy and give JAX's answers, without JAX.

The corpus in tests/data/jax_corpus was written by tools/gen_jax_corpus.py: for each program
its StableHLO (``jax.jit(f).lower(...).as_text()``, or ``jax.export``'s module with symbolic
dimensions for the dynamic-shape programs), its HLO text, its inputs and the outputs
``jax.jit(f)`` computed on XLA:CPU (``NAME.npz``: ``in_0..``, ``out_0..`` in pytree order).
Each program runs in both forms on both backends and must match JAX's outputs, and on the
CPU it must run natively (``Executable.fallback_ops`` empty).

Tolerances come from the manifest, per program (``rtol``, ``atol``): the loosest of its
floating outputs' dtypes, f32/c64 rtol 2e-4 atol 2e-5, f64/c128 rtol 1e-9 atol 1e-11, f16/bf16
1e-2, times 10 for the linear-algebra programs (well-conditioned inputs); integers, booleans
and random bits exactly. The generator's docstring says why. XLA:CPU flushes denormals to
zero; no stored output depends on a denormal, so the choice is not observable here. XLA:CPU's
f16/bf16 excess precision is: the CPU backend matches it by default, and the interpreter runs
the same passes first (``_as_xla_cpu_rounds``).

``KNOWN_FAILURES`` lists what does not work yet, each with the error it gives today; those
cases are strict xfails, so a fix shows up as an XPASS and its entry must then be removed.
"""

from __future__ import annotations

import functools
import gc
import json
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy import hlo, stablehlo
from xlapy.passes import CallInliner, FloatNormalization, FpContraction, run_passes

CORPUS = Path(__file__).resolve().parent / "data" / "jax_corpus"
MANIFEST = json.loads((CORPUS / "MANIFEST.json").read_text())
PROGRAMS = MANIFEST["programs"]
FORMS = {".mlir": "stablehlo", ".hlo": "hlo"}
BACKENDS = ("interpreter", "cpu")
MIN_PROGRAMS = 80

# Why cases fail today ({targets}: the program's custom-call targets, from the manifest).

# "program:form:backend" (a run that must match JAX) or "program:form:native" (the CPU
# compile that must not fall back) -> the reason it fails today.
KNOWN_FAILURES: dict[str, str] = {
}


def _case_id(name: str, form: str, where: str) -> str:
    return f"{name}:{FORMS[form]}:{where}"


def _params(where_options):
    params = []
    for name, entry in PROGRAMS.items():
        for form in entry["forms"]:
            for where in where_options:
                cid = _case_id(name, form, where)
                marks = ()
                if cid in KNOWN_FAILURES:
                    reason = KNOWN_FAILURES[cid].format(
                        targets=", ".join(entry["custom_call_targets"]))
                    marks = pytest.mark.xfail(strict=True, reason=reason)
                params.append(pytest.param(name, form, where, id=cid, marks=marks))
    return params


@functools.cache
def _module(name: str, form: str):
    text = (CORPUS / (name + form)).read_text()
    if form == ".mlir":
        return stablehlo.parse_module(text, source_file=name + form)
    return hlo.parse_module(text)


def _as_xla_cpu_rounds(module, backend: str):
    """JAX's answers carry XLA:CPU's excess precision (a bf16 result that a convert to f32
    reads is not rounded; an f16 multiply-add is rounded once). The CPU backend does the
    same by default (``allow_excess_precision``); the interpreter stays the per-op oracle,
    so for the corpus it runs the same passes on a copy, after inlining as XLA:CPU does."""
    if backend != "interpreter" or not isinstance(module, hlo.HloModule):
        return module  # (a shape-polymorphic module is refined, and compiled, per call)
    module = module.clone()
    run_passes(module, [CallInliner(), FloatNormalization(), FpContraction()])
    return module


@functools.cache
def _executable(name: str, form: str, backend: str):
    return xlapy.local_client(backend).compile(_as_xla_cpu_rounds(_module(name, form), backend))


@functools.cache
def _arrays(name: str) -> tuple[list[np.ndarray], list[np.ndarray]]:
    with np.load(CORPUS / (name + ".npz")) as data:
        ins = [data[f"in_{i}"] for i in range(sum(k.startswith("in_") for k in data.files))]
        outs = [data[f"out_{i}"] for i in range(sum(k.startswith("out_") for k in data.files))]
    return ins, outs


@pytest.fixture(scope="module", autouse=True)
def _release_executables():
    """Drop the cached executables when the module's tests end: their compiled code and
    arenas are not needed by the rest of the run."""
    yield
    _executable.cache_clear()
    _module.cache_clear()
    gc.collect()


def _leaves(result) -> list[np.ndarray]:
    if isinstance(result, (tuple, list)):
        return [leaf for r in result for leaf in _leaves(r)]
    return [np.asarray(result)]


@pytest.mark.parametrize(("name", "form", "backend"), _params(BACKENDS))
def test_matches_jax(name: str, form: str, backend: str):
    entry = PROGRAMS[name]
    ins, want = _arrays(name)
    got = _leaves(_executable(name, form, backend)(*[a.copy() for a in ins]))
    assert len(got) == len(want), f"{len(got)} outputs, JAX gave {len(want)}"
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        what = f"output {i} ({entry['outputs'][i]})"
        assert g.dtype == w.dtype and g.shape == w.shape, (
            f"{what}: got {g.dtype}{list(g.shape)}")
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=entry["rtol"], atol=entry["atol"],
                                       equal_nan=True, err_msg=what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize(("name", "form", "where"), _params(["native"]))
def test_cpu_runs_natively(name: str, form: str, where: str):
    assert _executable(name, form, "cpu").fallback_ops == []


def test_corpus_is_complete():
    """The manifest and the files agree, and the corpus covers what issue 18 asks for."""
    files = {p.name for p in CORPUS.iterdir()} - {"MANIFEST.json"}
    expected = {name + suffix for name, entry in PROGRAMS.items()
                for suffix in [*entry["forms"], ".npz"]}
    assert files == expected
    assert len(PROGRAMS) >= MIN_PROGRAMS
    groups = {entry["group"] for entry in PROGRAMS.values()}
    assert groups >= {"models", "linalg", "random", "sorting", "fft", "control", "sharding",
                      "dynamic"}
    linalg_dtypes = {name.rsplit("_", 1)[1] for name, e in PROGRAMS.items()
                     if e["group"] == "linalg"}
    assert linalg_dtypes == {"f32", "f64", "c64", "c128"}
    assert not MANIFEST["skipped"], MANIFEST["skipped"]
    known = {_case_id(n, f, w) for n, e in PROGRAMS.items() for f in e["forms"]
             for w in [*BACKENDS, "native"]}
    assert set(KNOWN_FAILURES) <= known, sorted(set(KNOWN_FAILURES) - known)
