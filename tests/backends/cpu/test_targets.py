"""Explicit CPU targets: how a target is chosen (``CpuOptions.target_cpu``/``target_features``
through the client's backend options, ``XLAPY_CPU_TARGET``), that it changes the machine
code, that the compile cache keys on it, that code for features the host lacks is refused,
and that programs of each family (elementwise math with special values, reductions, FFT,
dots) compiled for each target of ``target_matrix`` agree with the interpreter, and
elementwise results with the host build bit for bit."""

from __future__ import annotations

import pathlib
import re
import sys

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu import compiler
from xlapy.backends.cpu.runtime import jit
from xlapy.backends.interpreter import run as interpret
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.testing import cpu_kernels
from xlapy.types import PrimitiveType as P

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from target_matrix import AVX512, TARGETS, target  # noqa: E402

CLIENT = xlapy.local_client("cpu")


def compile_for(text: str, cpu: str | None = None, features: str | None = None, **options):
    backend = {"target_cpu": cpu, "target_features": features, **options}
    return CLIENT.compile(parse_module(text), xlapy.CompileOptions(backend_options=backend))


# -- choosing a target -------------------------------------------------------------------


def test_resolution_from_options_and_environment(monkeypatch):
    monkeypatch.delenv(jit.ENV_TARGET, raising=False)
    assert jit.resolve_target() == jit.host_target()
    assert jit.resolve_target("host") == jit.host_target()
    assert jit.resolve_target("x86-64-v3") == jit.Target("x86-64-v3")
    monkeypatch.setenv(jit.ENV_TARGET, "x86-64-v3:+avx2,-fma")
    chosen = jit.resolve_target()
    assert (chosen.cpu, chosen.features) == ("x86-64-v3", "+avx2,-fma")
    assert "fma" not in chosen.required_features() and "avx2" in chosen.required_features()
    assert jit.resolve_target("x86-64-v2") == jit.Target("x86-64-v2")  # options win
    with pytest.raises(InvalidArgumentError, match="unknown CPU target 'skylake_avx512'"):
        jit.resolve_target("skylake_avx512")
    with pytest.raises(InvalidArgumentError, match="must be \\+name or -name"):
        jit.resolve_target("x86-64-v3", "avx2")


def _asm(target_: jit.Target) -> str:
    from xlapy.backends.cpu.math.approx import APPROXIMATIONS

    seen = []
    original = cpu_kernels.jit.compile_module

    def keep(module, **kwargs):
        code = original(module, **{**kwargs, "keep_asm": True, "target": target_})
        seen.append(code.assembly)
        return code

    cpu_kernels.jit.compile_module = keep
    try:
        exp = APPROXIMATIONS["exponential"]
        cpu_kernels.elementwise_kernel(lambda b, v: exp(b, *v), [P.F32], P.F32)
    finally:
        cpu_kernels.jit.compile_module = original
    return seen[0]


def test_the_target_changes_the_machine_code():
    """Compiled only (code for any x86-64 target can be made on any host): SSE registers
    alone for x86-64-v2, 256-bit for v3, 512-bit for the AVX-512 target."""
    registers = {}
    for spec in ("x86-64-v2", "x86-64-v3", AVX512):
        text = _asm(target(spec))
        registers[spec] = {r: len(re.findall(f"%{r}mm", text)) for r in "xyz"}
    assert registers["x86-64-v2"]["x"] and not registers["x86-64-v2"]["y"]
    assert not registers["x86-64-v2"]["z"]
    assert registers["x86-64-v3"]["y"] and not registers["x86-64-v3"]["z"]
    assert registers[AVX512]["z"], registers


ADD = """HloModule add
ENTRY e {
  p0 = f32[16] parameter(0)
  ROOT r = f32[16] add(p0, p0)
}"""


def test_compile_cache_keys_on_the_target():
    first = compile_for(ADD, "x86-64-v2")
    again = compile_for(ADD, "x86-64-v2")
    other = compile_for(ADD, "x86-64-v3")
    assert first._executable.program is again._executable.program
    assert first._executable.program is not other._executable.program
    assert first._executable.program.code.target == jit.Target("x86-64-v2")
    x = np.arange(16, dtype=np.float32)
    np.testing.assert_array_equal(first(x), other(x))


def test_code_for_features_the_host_lacks_is_refused():
    have = dict(jit._host_features())
    lacking = [
        f for f in ("avx512vp2intersect", "avx512fp16", "avx512f", "avx2") if not have.get(f)
    ]
    if not lacking:
        pytest.skip("this host has every feature the test could ask for")
    with pytest.raises(InvalidArgumentError, match=f"needs {lacking[0]}, which this host"):
        compile_for(ADD, "x86-64-v2", f"+{lacking[0]}", cache=False)
    assert compiler.target_of(compiler.CpuOptions(target_cpu="x86-64-v2")).missing_features() == []


# -- each family on each target ----------------------------------------------------------

SPECIALS = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 88.0, -104.0, 1e-40, 3e38,
                     np.inf, -np.inf, np.nan], np.float32)  # fmt: skip

ELEMENTWISE = """HloModule math
ENTRY e {
  x = f32[196] parameter(0)
  y = f32[196] parameter(1)
  a = f32[196] exponential(x)
  b = f32[196] log(x)
  c = f32[196] tanh(x)
  d = f32[196] power(x, y)
  e = f32[196] atan2(x, y)
  f = f32[196] sine(y)
  g = f32[196] add(a, b)
  h = f32[196] multiply(c, d)
  i = f32[196] add(e, f)
  j = f32[196] add(g, h)
  ROOT r = (f32[196], f32[196], f32[196]) tuple(j, i, d)
}"""

REDUCTIONS = """HloModule reductions
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT m = f32[] maximum(a, b)
}
ENTRY e {
  x = f32[37,130] parameter(0)
  zero = f32[] constant(0)
  low = f32[] constant(-inf)
  rows = f32[37] reduce(x, zero), dimensions={1}, to_apply=add
  cols = f32[130] reduce(x, low), dimensions={0}, to_apply=max
  ROOT r = (f32[37], f32[130]) tuple(rows, cols)
}"""

FFT = """HloModule fft
ENTRY e {
  x = c64[5,60] parameter(0)
  ROOT y = c64[5,60] fft(x), fft_type=FFT, fft_length={60}
}"""

DOT = """HloModule dot
ENTRY e {
  a = f32[17,33] parameter(0)
  b = f32[33,9] parameter(1)
  d = f32[17,9] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT r = f32[17,9] tanh(d)
}"""


def _inputs():
    rng = np.random.default_rng(3)
    grid = np.array(np.meshgrid(SPECIALS, SPECIALS)).reshape(2, -1).astype(np.float32)
    z = rng.standard_normal((5, 60)) + 1j * rng.standard_normal((5, 60))
    return {
        ELEMENTWISE: [grid[0], grid[1]],
        REDUCTIONS: [rng.standard_normal((37, 130)).astype(np.float32)],
        FFT: [z.astype(np.complex64)],
        DOT: [
            rng.standard_normal((17, 33)).astype(np.float32),
            rng.standard_normal((33, 9)).astype(np.float32),
        ],  # fmt: skip
    }


def _leaves(value):
    return list(value) if isinstance(value, tuple | list) else [value]


def _bits_equal(a, b):
    a, b = np.asarray(a), np.asarray(b)
    with np.errstate(invalid="ignore"):
        nan = np.isnan(a) & np.isnan(b)
    return bool(np.all((a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")) | nan))


@pytest.mark.parametrize("spec", TARGETS)
def test_each_family_on_each_target(spec):
    cpu, _, features = spec.partition(":")
    for text, args in _inputs().items():
        got = _leaves(compile_for(text, cpu, features or None)(*args))
        want = _leaves(interpret(text, *args))
        for g, w in zip(got, want, strict=True):
            w = np.asarray(w)
            tolerance = 1e-5 if text in (ELEMENTWISE, DOT) else 3e-5
            np.testing.assert_allclose(g, w, rtol=tolerance, atol=tolerance, err_msg=spec)
        if text == ELEMENTWISE:  # special values exact, and the host build's bits
            host = _leaves(compile_for(text, "host")(*args))
            assert all(_bits_equal(g, h) for g, h in zip(got, host, strict=True)), spec
