"""The persistent compile cache (backends.cpu.persistent_cache): programs compiled in one
process, loaded by another; keys, corrupt entries, concurrent writers, the size bound,
what is never stored, and the code left exactly as before when the cache is off."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from xlapy.backends.cpu import compiler, persistent_cache
from xlapy.backends.cpu.codegen import ModuleEmitter
from xlapy.backends.cpu.compiler import CpuBackend, optimized_module
from xlapy.backends.cpu.runtime import disk_cache
from xlapy.backends.cpu.runtime.executable import CpuOptions
from xlapy.custom_call import register_custom_call, unregister_custom_call
from xlapy.hlo import parse_module
from xlapy.literal import Literal

# Constants, a fusion, a BLAS dot and a reduction: every kind of address the code once had.
TEXT = """HloModule persisted
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,16] parameter(0)
  w = f32[16,4] parameter(1)
  c = f32[8,16] constant({...})
  y = f32[8,16] multiply(x, c)
  d = f32[8,4] dot(y, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  r = f32[8] reduce(d, z), dimensions={1}, to_apply=add
  ROOT t = (f32[8,4], f32[8]) tuple(d, r)
}"""


def _text() -> str:
    values = ", ".join(
        "{" + ", ".join(f"{(i * 16 + j) % 7 * 0.25:.2f}" for j in range(16)) + "}" for i in range(8)
    )
    return TEXT.replace("{...}", "{" + values + "}")


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal((8, 16)).astype(np.float32),
            rng.standard_normal((16, 4)).astype(np.float32)]  # fmt: skip


def _expected() -> tuple[np.ndarray, np.ndarray]:
    x, w = _inputs()
    c = np.array([[(i * 16 + j) % 7 * 0.25 for j in range(16)] for i in range(8)], np.float32)
    d = (x * c) @ w
    return d, d.sum(axis=1)


def _run(executable) -> tuple:  # noqa: ANN001
    """The executable on the inputs, through the general path (guard mode has no other)."""
    return executable.execute([Literal.from_numpy(a) for a in _inputs()]).to_numpy()


def _check(result) -> None:  # noqa: ANN001
    d, r = _expected()
    np.testing.assert_allclose(result[0], d, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(result[1], r, rtol=1e-5, atol=1e-5)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache directory, a version fixed against edits to the tree meanwhile, and
    no program of another test left in memory."""
    monkeypatch.setenv(persistent_cache.ENV_VERSION, "test-persistent-cache")
    compiler.clear_cache()
    persistent_cache.reset_stats()
    yield str(tmp_path / "cache")
    compiler.clear_cache()


def _compile(directory: str | None, **options):  # noqa: ANN003, ANN202
    return CpuBackend().compile(
        parse_module(_text()), CpuOptions(persistent_cache_dir=directory, **options)
    )


_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    sys.path.insert(0, {tests!r})
    from backends.cpu import test_persistent_cache as t
    from xlapy.backends.cpu import persistent_cache
    executable = t._compile({directory!r})
    result = t._run(executable)
    t._check(result)
    print(json.dumps({{"stats": persistent_cache.stats(),
                      "timings": sorted(executable.program.timings)}}))
    """
)


def _spawn(directory: str) -> subprocess.Popen:
    tests = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = _CHILD.format(tests=tests, directory=directory)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)  # fmt: skip


def _report(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1])


def _program_entries(cache_dir: str) -> list[str]:
    """The directory's files but the runtime library's variants (emit/library)."""
    return [e for e in os.listdir(cache_dir) if not e.endswith((".gemm", ".fft", ".reduce", ".sort", ".igemm", ".conv"))]


def test_two_writers_then_a_new_process_loads_without_compiling(cache_dir):
    writers = [_spawn(cache_dir), _spawn(cache_dir)]  # the same key, at the same time
    for report in map(_report, writers):
        assert report["stats"]["writes"] + report["stats"]["hits"] == 1
    # One program entry (the runtime library's variants sit beside it: .gemm, .reduce...).
    entries = _program_entries(cache_dir)
    assert len(entries) == 1 and entries[0].endswith(disk_cache.SUFFIX), entries
    reader = _report(_spawn(cache_dir))
    assert reader["stats"]["hits"] == 1 and reader["stats"]["writes"] == 0
    assert "optimize" not in reader["timings"] and "cache_load" in reader["timings"]


def test_options_target_and_version_change_the_key(cache_dir, monkeypatch):
    _check(_run(_compile(cache_dir)))
    assert persistent_cache.stats()["writes"] == 1
    for options in ({"opt_level": 2}, {"target_cpu": "x86-64-v2"}, {"flush_denormals": True}):
        compiler.clear_cache()
        _check(_run(_compile(cache_dir, **options)))
    monkeypatch.setenv(persistent_cache.ENV_VERSION, "another-xlapy")
    compiler.clear_cache()
    _check(_run(_compile(cache_dir)))
    assert persistent_cache.stats()["hits"] == 0
    assert persistent_cache.stats()["misses"] == 5
    monkeypatch.setenv(persistent_cache.ENV_VERSION, "test-persistent-cache")
    compiler.clear_cache()
    executable = _compile(cache_dir)
    assert persistent_cache.stats()["hits"] == 1
    _check(_run(executable))


def test_a_corrupt_entry_is_recompiled_and_overwritten(cache_dir):
    _compile(cache_dir)
    (name,) = _program_entries(cache_dir)
    path = os.path.join(cache_dir, name)
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0xFF
    open(path, "wb").write(bytes(data))
    compiler.clear_cache()
    _check(_run(_compile(cache_dir)))
    stats = persistent_cache.stats()
    assert stats["corrupt"] == 1 and stats["writes"] == 2
    open(path, "wb").write(data[:10])  # torn
    compiler.clear_cache()
    _check(_run(_compile(cache_dir)))
    compiler.clear_cache()
    _check(_run(_compile(cache_dir)))
    assert persistent_cache.stats()["hits"] == 1


def test_a_program_with_a_python_callback_is_not_stored(cache_dir):
    register_custom_call("xlapy.test/persist_cb", lambda y, x: (y * 2 + x, np.int32(1)))
    try:
        text = """HloModule cb
ENTRY e {
  x = f32[3] parameter(0)
  y = f32[3] exponential(x)
  c = (f32[3], s32[]) custom-call(y, x), custom_call_target="xlapy.test/persist_cb"
  ROOT r = f32[3] get-tuple-element(c), index=0
}"""
        executable = CpuBackend().compile(
            parse_module(text), CpuOptions(persistent_cache_dir=cache_dir)
        )
        x = np.array([0.0, 1.0, -2.0], np.float32)
        got = executable.execute([Literal.from_numpy(x)]).to_numpy()  # any mode's entry
        np.testing.assert_allclose(got, 2 * np.exp(x) + x, rtol=1e-6)
    finally:
        unregister_custom_call("xlapy.test/persist_cb")
    assert persistent_cache.stats()["uncacheable"] == 1
    assert not os.path.exists(cache_dir) or not os.listdir(cache_dir)


def test_the_directory_stays_under_its_bound(cache_dir):
    for k in range(6):
        disk_cache.write(cache_dir, f"key{k}", bytes(1000), max_bytes=3500)
        os.utime(disk_cache.entry_path(cache_dir, f"key{k}"), (k, k))  # distinct ages
    assert disk_cache.total_bytes(cache_dir) <= 3500
    assert sorted(os.listdir(cache_dir))[-1] == "key5" + disk_cache.SUFFIX
    assert disk_cache.read(cache_dir, "key0") is None
    assert persistent_cache.stats()["evictions"] >= 3
    _compile(cache_dir, persistent_cache_max_bytes=1)  # bigger than the bound: evicted
    assert disk_cache.total_bytes(cache_dir) <= 1


def _ir(directory: str | None) -> str:
    # OpenBLAS's GEMM: its scalar arguments are what becomes host_data globals.
    options = CpuOptions(persistent_cache_dir=directory, gemm="openblas")
    emitter = ModuleEmitter(optimized_module(parse_module(_text()), options), options)
    emitter.emit_entry()
    return str(emitter.ir)


def test_the_code_is_unchanged_when_the_cache_is_off(cache_dir):
    off, on = _ir(None), _ir(cache_dir)
    globals_off = re.findall(r'^@"?(constant|host_data)', off, re.M)
    globals_on = re.findall(r'^@"?(constant|host_data)', on, re.M)
    # Off: constants and BLAS's scalars by address, as before the cache existed.
    assert globals_off == [] and re.search(r"inttoptr \(i64 \d{6,} to", off)
    # On: globals, and no address of this process left.
    assert {"constant", "host_data"} <= set(globals_on)
    assert not re.search(r"inttoptr \(i64 \d{6,} to", on)
    # Off, the code is the same from one emission to the next, addresses aside.
    mask = re.compile(r"i64 \d{6,}")
    assert mask.sub("ADDRESS", off) == mask.sub("ADDRESS", _ir(None))


def test_guarded_buffers_load_and_run(cache_dir):
    _check(_run(_compile(cache_dir, guard_buffers="after")))
    compiler.clear_cache()
    executable = _compile(cache_dir, guard_buffers="after")
    assert persistent_cache.stats()["hits"] == 1
    assert executable.program.guard == "after" and executable.program.guard_pages
    _check(_run(executable))
