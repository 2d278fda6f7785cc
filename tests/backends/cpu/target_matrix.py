"""The CPU targets the per-target tests compile for, on any x86-64 host: a generic
x86-64-v2 (SSE4.2, no AVX), x86-64-v3 (AVX2 and FMA) and 512-bit AVX-512 (x86-64-v4 with
LLVM's preference for 256-bit vectors off, the code Zen 4/5 hosts get). A target this host
cannot run is skipped with the features it lacks as the reason (only the AVX-512 one can
be, on an x86-64 host)."""

from __future__ import annotations

import pytest

from xlapy.backends.cpu.runtime import jit

AVX512 = "x86-64-v4:-prefer-256-bit"
SPECS = ("x86-64-v2", "x86-64-v3", AVX512)


def target(spec: str) -> jit.Target:
    cpu, _, features = spec.partition(":")
    return jit.resolve_target(cpu, features or None)


def _param(spec: str) -> object:
    missing = target(spec).missing_features()
    marks = [pytest.mark.skip(reason=f"this host lacks {', '.join(missing)}")] if missing else []
    return pytest.param(spec, marks=marks, id="avx512-zmm" if spec == AVX512 else spec)


TARGETS = [_param(spec) for spec in SPECS]


def use_target(monkeypatch: pytest.MonkeyPatch, spec: str) -> None:
    """Every compile of the calling test that names no target gets ``spec``
    (``XLAPY_CPU_TARGET``), and the elementwise bench compiles its kernels afresh."""
    import elemental_harness

    monkeypatch.setenv(jit.ENV_TARGET, spec)
    monkeypatch.setattr(elemental_harness, "_KERNELS", {})
