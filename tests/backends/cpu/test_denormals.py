"""``CpuOptions.flush_denormals``: XLA:CPU's denormals (FTZ and DAZ), as an option.

With the option the CPU gives what JAX gives on XLA:CPU: every expected value below
was computed once with ``jax.jit`` (jax 0.10.2, x86-64 CPU) on the same inputs and is
stored here, so the test needs no JAX. Without it the CPU gives IEEE denormals, equal
bit for bit to the interpreter's. Either way the caller's MXCSR is left as it was, on
the calling thread (also when the program raises) and on the pool's workers.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import xlapy
from xlapy.backends.cpu.flush_denormals import FLUSH_BITS, require_x86
from xlapy.backends.cpu.runtime.native_runtime import read_mxcsr, write_mxcsr
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module

f32, f64 = np.float32, np.float64
CONTROL = 0xFFC0  # MXCSR's mode bits; bits 0-5 are sticky status flags Python's own math sets


def _compile(text: str, flush: bool, **backend: object) -> xlapy.Executable:
    options = xlapy.CompileOptions(backend_options={"flush_denormals": flush, **backend})
    return xlapy.local_client("cpu").compile(parse_module(text), options)


def _interpret(text: str, *args: np.ndarray) -> np.ndarray:
    return np.asarray(xlapy.local_client("interpreter").compile(parse_module(text))(*args))


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == f32 else np.uint64) if a.dtype.kind == "f" else a


def _elementwise(op: str, dtype: str, n: int, operands: int, attrs: str = "") -> str:
    out = "pred" if op == "compare" else dtype
    params = "\n".join(f"  p{k} = {dtype}[{n}] parameter({k})" for k in range(operands))
    if operands == 1 and op in ("multiply", "divide", "compare"):
        scalar = {"multiply": "SCALE", "divide": "1e10", "compare": "0"}[op]
        return f"""HloModule {op}_{dtype}
ENTRY e {{
{params}
  c = {dtype}[] constant({scalar})
  b = {dtype}[{n}] broadcast(c), dimensions={{}}
  ROOT r = {out}[{n}] {op}(p0, b){attrs}
}}"""
    names = ", ".join(f"p{k}" for k in range(operands))
    return f"""HloModule {op}_{dtype}
ENTRY e {{
{params}
  ROOT r = {out}[{n}] {op}({names}){attrs}
}}"""


def _scaled(text: str, scale: str) -> str:
    return text.replace("SCALE", scale)


# name, HLO, inputs, XLA:CPU's answer (jax.jit on the same inputs).
CASES = [
    (
        "f32 x*2",
        _scaled(_elementwise("multiply", "f32", 4, 1), "2"),
        [np.array([1e-39, 3e-39, -2e-40, 1.0], f32)],
        np.array([0.0, 0.0, -0.0, 2.0], f32),
    ),
    (
        "f32 x*1e-30",
        _scaled(_elementwise("multiply", "f32", 4, 1), "1e-30"),
        [np.array([1e-8, 1.0, -3e-9, 2e-8], f32)],
        np.array([0x0, 0xDA24260, 0x80000000, 0xD9C7DD], np.uint32).view(f32),
    ),
    (
        "f32 x+y",
        _elementwise("add", "f32", 4, 2),
        [np.array([1.5e-38, 1e-39, -1e-39, 2.0], f32), np.array([-1.4e-38, 1e-39, 0, 1], f32)],
        np.array([0.0, 0.0, 0.0, 3.0], f32),
    ),
    (
        "f32 x/1e10",
        _elementwise("divide", "f32", 4, 1),
        [np.array([1e-30, 5e-29, -1e-31, 1.0], f32)],
        np.array([0x0, 0x0, 0x80000000, 0x2EDBE6FF], np.uint32).view(f32),
    ),
    (
        "f32 exp",  # a denormal input, denormal results
        _elementwise("exponential", "f32", 4, 1),
        [np.array([1e-39, -100.0, -88.0, -87.0], f32)],
        np.array([0x3F800000, 0x0, 0x0, 0xB33687], np.uint32).view(f32),
    ),
    (
        "f32 log",
        _elementwise("log", "f32", 4, 1),
        [np.array([1e-39, 1e-30, 1.0, 2.0], f32)],
        np.array([0xFF800000, 0xC28A27B5, 0x0, 0x3F317218], np.uint32).view(f32),
    ),
    (
        "f32 sqrt",
        _elementwise("sqrt", "f32", 4, 1),
        [np.array([1e-39, 4e-40, 1e-30, 4.0], f32)],
        np.array([0x0, 0x0, 0x26901D7D, 0x40000000], np.uint32).view(f32),
    ),
    (
        "f32 x>0",
        _elementwise("compare", "f32", 4, 1, ", direction=GT"),
        [np.array([1e-39, -1e-40, 1e-30, 0.0], f32)],
        np.array([False, False, True, False]),
    ),
    (
        "f32 x==0",
        _elementwise("compare", "f32", 4, 1, ", direction=EQ"),
        [np.array([1e-39, -1e-40, 1e-30, 0.0], f32)],
        np.array([True, True, False, True]),
    ),
    (
        "f64 x*1e-300",
        _scaled(_elementwise("multiply", "f64", 4, 1), "1e-300"),
        [np.array([1e-10, 1e-8, -1e-9, 1.0], f64)],
        np.array([0x0, 0x0, 0x8000000000000000, 0x1A56E1FC2F8F359], np.uint64).view(f64),
    ),
    (
        "f64 x+y",
        _elementwise("add", "f64", 4, 2),
        [np.array([3e-308, 1e-310, -1e-310, 1.0]), np.array([-2.9e-308, 1e-310, 0.0, 1.0])],
        np.array([0.0, 0.0, 0.0, 2.0]),
    ),
    (
        "f64 x/1e10",
        _elementwise("divide", "f64", 4, 1),
        [np.array([1e-300, 1e-299, 1.0, -2e-300])],
        np.array([0x0, 0x0, 0x3DDB7CDFD9D7BDBB, 0x8000000000000000], np.uint64).view(f64),
    ),
    (
        "f64 sqrt",
        _elementwise("sqrt", "f64", 3, 1),
        [np.array([1e-310, 4e-320, 4.0])],
        np.array([0.0, 0.0, 2.0]),
    ),
    (
        "f64 x>0",
        _elementwise("compare", "f64", 3, 1, ", direction=GT"),
        [np.array([1e-310, 1e-300, 0.0])],
        np.array([False, True, False]),
    ),
]

SUM = """HloModule sum
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[64] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(x, z), dimensions={0}, to_apply=add
}"""
CASES += [
    ("f32 sum of denormals", SUM, [np.full(64, 1e-39, f32)], np.array(0.0, f32)),
    (
        "f32 sum of 1e-37 and denormals",
        SUM,
        [np.concatenate([np.full(63, 1e-39, f32), np.array([1e-37], f32)])],
        np.array(0x2081CEA, np.uint32).view(f32),
    ),
]

# Big enough for the thread pool (xlapy_parallel_for): the "f32 x*2" case, tiled.
BIG = 1 << 17
BIG_TEXT = _scaled(_elementwise("multiply", "f32", BIG, 1), "2")
BIG_INPUT = np.tile(CASES[0][2][0], BIG // 4)
BIG_FLUSHED = np.tile(CASES[0][3], BIG // 4)


@pytest.mark.parametrize("name, text, inputs, xla_cpu", CASES, ids=[c[0] for c in CASES])
def test_flushed_as_xla_cpu_and_ieee_as_the_interpreter(name, text, inputs, xla_cpu):
    flushed = np.asarray(_compile(text, True)(*inputs))
    np.testing.assert_array_equal(_bits(flushed), _bits(xla_cpu), err_msg=name)
    ieee = np.asarray(_compile(text, False)(*inputs))
    np.testing.assert_array_equal(_bits(ieee), _bits(_interpret(text, *inputs)), err_msg=name)
    assert not np.array_equal(_bits(ieee), _bits(xla_cpu)), f"{name}: no denormal in the case"


def test_a_parallel_kernel_flushes_on_every_worker_and_workers_get_their_mode_back():
    flushed = _compile(BIG_TEXT, True)
    ieee = _compile(BIG_TEXT, False)
    for _ in range(2):  # alternating: a worker left with FTZ|DAZ would flush the IEEE run
        np.testing.assert_array_equal(_bits(flushed(BIG_INPUT)), _bits(BIG_FLUSHED))
        np.testing.assert_array_equal(
            _bits(ieee(BIG_INPUT)), _bits(BIG_INPUT * f32(2))  # numpy: IEEE denormals
        )


def test_the_callers_mode_is_restored_exactly():
    before = read_mxcsr()
    unusual = (before & ~FLUSH_BITS) | (1 << 15)  # FTZ without DAZ: not the program's mode
    executable = _compile(CASES[0][1], True)
    write_mxcsr(unusual)
    try:
        got = executable(CASES[0][2][0])
        after = read_mxcsr()
    finally:
        write_mxcsr(before)
    np.testing.assert_array_equal(_bits(got), _bits(CASES[0][3]))
    assert after & CONTROL == unusual & CONTROL
    executable(CASES[0][2][0])
    assert read_mxcsr() & CONTROL == before & CONTROL  # IEEE again, not FTZ|DAZ


CALLBACK = """HloModule cb
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] add(x, x)
  ROOT c = f32[4] custom-call(y), custom_call_target="xlapy.test/denormal_cb"
}"""


def test_the_program_runs_flushed_and_an_error_inside_it_restores_the_mode():
    seen: list[int] = []

    def observe(y):
        seen.append(read_mxcsr())
        if len(seen) > 1:
            raise ValueError("the target fails")
        return y

    register_custom_call("xlapy.test/denormal_cb", observe)
    try:
        executable = _compile(CALLBACK, True)
        before = read_mxcsr()
        got = executable(CASES[0][2][0])
        np.testing.assert_array_equal(_bits(got), _bits(CASES[0][3]))
        with pytest.raises(Exception, match="the target fails"):
            executable(CASES[0][2][0])
        after = read_mxcsr()
    finally:
        unregister_custom_call("xlapy.test/denormal_cb")
    assert all(word & FLUSH_BITS == FLUSH_BITS for word in seen)  # inside: FTZ|DAZ
    assert after & CONTROL == before & CONTROL


def test_mxcsr_code_only_with_the_option(tmp_path):
    for flush in (False, True):
        out = tmp_path / str(flush)
        _compile(BIG_TEXT, flush, dump_dir=str(out))
        ir_text = next(out.glob("*.ll")).read_text()
        assert ("mxcsr" in ir_text) is flush
        assert (".flushed" in ir_text) is flush  # the pool's task wrapper


def test_the_option_is_x86_only():
    require_x86("x86-64-v3", "x86_64-unknown-linux-gnu")
    with pytest.raises(InvalidArgumentError, match="aarch64.*not x86"):
        require_x86("neoverse-v1", "aarch64-unknown-linux-gnu")


def test_a_pool_first_started_by_a_flushing_program_runs_others_with_ieee_denormals():
    """Threads start with their creator's MXCSR: a pool created inside a flushing run
    must not keep FTZ|DAZ as its workers' own mode. A fresh process makes sure the
    flushing program is the one that starts the pool."""
    script = textwrap.dedent(
        f"""
        import sys
        import numpy as np
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import test_denormals as t
        flushed = t._compile(t.BIG_TEXT, True)(t.BIG_INPUT)
        ieee = t._compile(t.BIG_TEXT, False)(t.BIG_INPUT)
        assert np.array_equal(t._bits(flushed), t._bits(t.BIG_FLUSHED))
        assert np.array_equal(t._bits(ieee), t._bits(t.BIG_INPUT * np.float32(2)))
        """
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
