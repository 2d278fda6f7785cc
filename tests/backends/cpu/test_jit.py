"""``jit``'s ownership rule (its docstring): compiles from several threads at once, code
shared through the compile cache freed only when its last holder goes, and no native
memory kept per compile (llvmlite's module pass managers are freed)."""

from __future__ import annotations

import ctypes
import gc
import threading

import numpy as np
import pytest
from llvmlite import ir

import xlapy
from xlapy.backends.cpu import compiler
from xlapy.backends.cpu.runtime import jit
from xlapy.hlo import parse_module

CLIENT = xlapy.local_client("cpu")
NO_CACHE = xlapy.CompileOptions(backend_options={"cache": False})


def _program(k: int) -> str:
    """A different module per ``k``: (x * k + k) exponentiated, then summed."""
    return f"""HloModule t{k}
add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}
ENTRY e {{
  x = f32[100] parameter(0)
  k = f32[] constant({k})
  kk = f32[100] broadcast(k), dimensions={{}}
  m = f32[100] multiply(x, kk)
  a = f32[100] add(m, kk)
  ex = f32[100] exponential(a)
  zero = f32[] constant(0)
  ROOT r = f32[] reduce(ex, zero), dimensions={{0}}, to_apply=add
}}"""


def test_compiles_from_four_threads_at_once():
    x = np.linspace(-1, 0, 100, dtype=np.float32)
    errors: list[BaseException] = []
    start = threading.Barrier(4)

    def work(thread: int) -> None:
        try:
            start.wait()
            for round_ in range(3):
                k = 1 + thread + 4 * round_
                executable = CLIENT.compile(parse_module(_program(k)), NO_CACHE)
                want = np.exp(x.astype(np.float64) * k + k).sum()
                np.testing.assert_allclose(executable(x), want, rtol=1e-5)
        except BaseException as e:  # noqa: BLE001  (reported by the main thread)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors


def test_a_dropped_executable_leaves_the_shared_code_running():
    module = parse_module(_program(99))
    first = CLIENT.compile(module)
    second = CLIENT.compile(module)
    program = first._executable.program
    assert second._executable.program is program  # one CompiledCode, two holders
    x = np.zeros(100, np.float32)
    want = second(x)
    del first
    gc.collect()
    np.testing.assert_array_equal(second(x), want)
    with compiler._cache_lock:  # the cache lets go too: the executable is the last holder
        for key in [k for k, p in compiler._cache.items() if p is program]:
            del compiler._cache[key]
    del program
    gc.collect()
    np.testing.assert_array_equal(second(x), want)


def _square_module() -> ir.Module:
    module = jit.new_module("square")
    fn = ir.Function(module, ir.FunctionType(ir.DoubleType(), [ir.DoubleType()]), "f")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(b.fmul(fn.args[0], fn.args[0]))
    return module


class _MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
    ]


def _heap_bytes() -> int:
    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):
        pytest.skip("needs glibc's mallinfo2 to count the native heap")
    mallinfo2.restype = _MallInfo2
    info = mallinfo2()
    return info.uordblks + info.hblkhd


def test_compiling_keeps_little_native_memory():
    """Before the pass managers were freed every O3 compile kept ~55 KB of this module
    (~90 KB of a small HLO program's); what is left is llvmlite's pass instrumentation
    callbacks, a few KB."""
    module = _square_module()
    for _ in range(5):  # warm up (the function's callable holds no reference to its code)
        code = jit.compile_module(module)
        code.cfunction("f", ctypes.c_double, ctypes.c_double)(3.0)
    del code
    gc.collect()
    before = _heap_bytes()
    count = 60
    for _ in range(count):
        code = jit.compile_module(module)
        assert code.cfunction("f", ctypes.c_double, ctypes.c_double)(3.0) == 9.0
        del code
    gc.collect()
    per_compile = (_heap_bytes() - before) / count
    assert per_compile < 12_000, f"{per_compile:.0f} bytes kept per compile"


def test_code_in_a_garbage_cycle_is_freed_safely():
    # The collector finalizes the objects of a cycle in no fixed order: llvmlite's own
    # wrappers once freed a context before the engine whose module lives in it, and the
    # engine's disposal then crashed. The owner frees both, engine first.
    module = _square_module()
    for _ in range(40):
        code = jit.compile_module(module)
        assert code.cfunction("f", ctypes.c_double, ctypes.c_double)(2.0) == 4.0
        cycle: list = [code]
        cycle.append(cycle)
        del code, cycle
        gc.collect()
