"""This machine's limits, measured in the same run as the workloads.

A time means little alone: 10 ms for a copy is excellent on a laptop and poor
on a server. So the suite measures the two limits its workloads run into, on
this machine and under the same conditions (load, frequency) as the workloads:

- memory bandwidth, STREAM-style over arrays several times larger than the
  caches, split into disjoint contiguous chunks with one thread per core:
  *read* (a vector sum, what reductions need), *copy* (numpy's ``copyto``,
  i.e. memcpy) and *triad* (``a = b + s*c``, JIT-compiled). Bytes are counted as
  STREAM counts them (each array once; no write-allocate traffic);
- peak f32 FLOP/s: a JIT-compiled loop of independent ``<16 x float>`` FMAs,
  enough accumulators to hide the FMA latency, on every core at once.

The JIT kernels go through xlapy's own JIT (``xlapy.backends.cpu.runtime.jit``), so
they see the same target machine and CPU features as xlapy's generated code.
ctypes releases the GIL around native calls and numpy releases it in
``copyto``, so Python threads really run on all cores.
"""

from __future__ import annotations

import ctypes
import math
import os
import platform
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from llvmlite import ir

from xlapy.backends.cpu.runtime import jit

_LANES = 16  # <16 x float>: one AVX-512 register, two AVX2 ones
_ACCUMULATORS = 12  # independent FMA chains: > latency (4) x FMA ports (2) on current cores
_BLOCK = 4 * _LANES  # floats per iteration of the read kernel (4 accumulators)

F32 = ir.FloatType()
I64 = ir.IntType(64)
VEC = ir.VectorType(F32, _LANES)


def cores() -> int:
    """Cores this process may run on (what xlapy's parallel loops use too)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _parallel(work: Callable[[int], object], n: int) -> tuple[float, list[float]]:
    """Wall seconds for ``work(k)``, k = 0..n-1, on n threads released together,
    and the seconds each thread spent in its own ``work``."""
    barrier = threading.Barrier(n + 1)
    own = [0.0] * n

    def run(k: int) -> None:
        barrier.wait()
        start = time.perf_counter()
        work(k)
        own[k] = time.perf_counter() - start

    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start, own


# -- JIT kernels -------------------------------------------------------------------------------


def _splat(value: float) -> ir.Constant:
    return ir.Constant(VEC, [ir.Constant(F32, value)] * _LANES)


def _counted_loop(
    fn: ir.Function, count: ir.Value, phis: list[tuple[ir.Type, ir.Value]]
) -> tuple[ir.IRBuilder, ir.Value, list[ir.Value], Callable[[list[ir.Value]], list[ir.Value]]]:
    """A loop ``for i in range(count)`` (count >= 1) carrying ``phis``.

    Returns the builder positioned in the body, ``i``, the carried values, and
    ``close(new_values)`` which ends the loop and returns the values after it.
    """
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(I64, "i")
    i.add_incoming(I64(0), entry)
    carried = []
    for ty, init in phis:
        phi = b.phi(ty)
        phi.add_incoming(init, entry)
        carried.append(phi)

    def close(new: list[ir.Value]) -> list[ir.Value]:
        for phi, value in zip(carried, new, strict=True):
            phi.add_incoming(value, loop)
        nxt = b.add(i, I64(1))
        i.add_incoming(nxt, loop)
        b.cbranch(b.icmp_signed("<", nxt, count), loop, done)
        b.position_at_end(done)
        return new

    return b, i, carried, close


def _fma(module: ir.Module) -> ir.Function:
    """The ``llvm.fma`` intrinsic on vectors, declared once per module."""
    name = f"llvm.fma.v{_LANES}f32"
    try:
        return module.get_global(name)
    except KeyError:
        return ir.Function(module, ir.FunctionType(VEC, [VEC, VEC, VEC]), name)


def _vector_at(b: ir.IRBuilder, base: ir.Value, index: ir.Value) -> ir.Value:
    """``(<16 x float>*)(base + index * 16)``; alignment 4 since numpy only promises that."""
    return b.bitcast(b.gep(base, [b.mul(index, I64(_LANES))]), VEC.as_pointer())


def _peak_kernel(module: ir.Module) -> None:
    """``float peak(i64 n)``: n rounds of 12 independent vector FMAs (acc = acc*a + c)."""
    fn = ir.Function(module, ir.FunctionType(F32, [I64]), "peak")
    fma = _fma(module)
    init = [(VEC, _splat(float(k))) for k in range(_ACCUMULATORS)]
    b, _, accs, close = _counted_loop(fn, fn.args[0], init)
    a, c = _splat(0.999999), _splat(1e-7)
    new = close([b.call(fma, [acc, a, c]) for acc in accs])
    total = new[0]
    for value in new[1:]:
        total = b.fadd(total, value)
    b.ret(b.extract_element(total, ir.IntType(32)(0)))


def _read_kernel(module: ir.Module) -> None:
    """``float read(float* x, i64 blocks)``: a sum over blocks of 64 floats, 4 accumulators."""
    ptr = F32.as_pointer()
    fn = ir.Function(module, ir.FunctionType(F32, [ptr, I64]), "read")
    b, i, accs, close = _counted_loop(fn, fn.args[1], [(VEC, _splat(0.0))] * 4)
    base = b.mul(i, I64(4))
    loads = [b.load(_vector_at(b, fn.args[0], b.add(base, I64(k))), align=4) for k in range(4)]
    new = close([b.fadd(acc, v) for acc, v in zip(accs, loads, strict=True)])
    total = b.fadd(b.fadd(new[0], new[1]), b.fadd(new[2], new[3]))
    b.ret(b.extract_element(total, ir.IntType(32)(0)))


def _triad_kernel(module: ir.Module) -> None:
    """``void triad(float* a, float* b, float* c, float s, i64 vectors)``: a = b + s*c."""
    ptr = F32.as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr, ptr, ptr, F32, I64]), "triad")
    fma = _fma(module)
    a, bb, c, s, count = fn.args
    b, i, _, close = _counted_loop(fn, count, [])
    zeros = ir.Constant(ir.VectorType(ir.IntType(32), _LANES), [0] * _LANES)
    lane0 = b.insert_element(ir.Constant(VEC, ir.Undefined), s, ir.IntType(32)(0))
    splat = b.shuffle_vector(lane0, ir.Constant(VEC, ir.Undefined), zeros)
    cv = b.load(_vector_at(b, c, i), align=4)
    bv = b.load(_vector_at(b, bb, i), align=4)
    b.store(b.call(fma, [splat, cv, bv]), _vector_at(b, a, i), align=4)
    close([])
    b.ret_void()


_kernels: dict[str, Any] = {}


def _compiled() -> dict[str, Any]:
    """The three kernels as ctypes functions (compiled once; the engine is kept alive here)."""
    if not _kernels:
        module = jit.new_module("machine_limits")
        _peak_kernel(module)
        _read_kernel(module)
        _triad_kernel(module)
        code = jit.compile_module(module)
        fptr = ctypes.POINTER(ctypes.c_float)
        _kernels.update(
            code=code,
            peak=code.cfunction("peak", ctypes.c_float, ctypes.c_int64),
            read=code.cfunction("read", ctypes.c_float, fptr, ctypes.c_int64),
            triad=code.cfunction("triad", None, fptr, fptr, fptr, ctypes.c_float, ctypes.c_int64),
        )
    return _kernels


# -- measurements ------------------------------------------------------------------------------


def _chunks(size: int, n: int, granule: int) -> list[tuple[int, int]]:
    """n disjoint [lo, hi) ranges covering ``size`` floats, in multiples of ``granule``."""
    units = size // granule
    edges = [units * k // n * granule for k in range(n + 1)]
    return list(zip(edges[:-1], edges[1:], strict=True))


def _pointer(array: np.ndarray, offset: int) -> ctypes._Pointer:
    return ctypes.cast(array.ctypes.data + 4 * offset, ctypes.POINTER(ctypes.c_float))


def memory_bandwidth(bytes_per_array: int = 192 << 20, repeats: int = 20) -> dict[str, float]:
    """Best GB/s of the read, copy and triad kernels on every core (STREAM byte counting).

    ``bandwidth_gbs`` (the figure read+write workloads are compared with) is
    the best of copy and triad; ``read_gbs`` is for workloads that only read.
    """
    kernels = _compiled()
    n = cores()
    size = bytes_per_array // 4 // _BLOCK * _BLOCK
    a = np.full(size, 1.0, np.float32)  # filled, so the pages exist before timing
    b = np.full(size, 2.0, np.float32)
    c = np.full(size, 0.5, np.float32)
    parts = _chunks(size, n, _BLOCK)
    read, triad = kernels["read"], kernels["triad"]

    def do_read(k: int) -> None:
        lo, hi = parts[k]
        read(_pointer(b, lo), (hi - lo) // _BLOCK)

    def do_copy(k: int) -> None:
        lo, hi = parts[k]
        np.copyto(a[lo:hi], b[lo:hi])

    def do_triad(k: int) -> None:
        lo, hi = parts[k]
        triad(_pointer(a, lo), _pointer(b, lo), _pointer(c, lo), 3.0, (hi - lo) // _LANES)

    nbytes = 4 * size
    best = {
        name: min(_parallel(work, n)[0] for _ in range(repeats))
        for name, work in (("read", do_read), ("copy", do_copy), ("triad", do_triad))
    }
    result = {
        "read_gbs": nbytes / best["read"] / 1e9,
        "copy_gbs": 2 * nbytes / best["copy"] / 1e9,
        "triad_gbs": 3 * nbytes / best["triad"] / 1e9,
    }
    result["bandwidth_gbs"] = max(result["copy_gbs"], result["triad_gbs"])
    return result


def peak_flops(seconds: float = 0.003, repeats: int = 40) -> float:
    """f32 GFLOP/s of independent vector FMAs on every core at once (2 FLOPs per lane per FMA).

    The trip count is calibrated on one core so each run lasts about
    ``seconds``. All cores run together ``repeats`` times; each core's best
    rate counts and the rates are summed. FMA units are per core, so a core
    that another process took in one run shows its real rate in another.
    Runs are kept shorter than a scheduler time slice (a few ms) on purpose:
    on a shared machine longer runs always include someone else's slices
    (measured here: 236 GFLOP/s in 3 ms runs, 80-120 in 50 ms runs, with two
    other busy processes on the two cores).
    """
    peak = _compiled()["peak"]
    probe = 100_000
    start = time.perf_counter()
    peak(probe)
    once = max(time.perf_counter() - start, 1e-6)
    trips = max(probe, int(probe * seconds / once))
    n = cores()
    best = [math.inf] * n
    for _ in range(repeats):
        _, own = _parallel(lambda k: peak(trips), n)
        best = [min(b, t) for b, t in zip(best, own, strict=True)]
    flops = trips * _ACCUMULATORS * _LANES * 2
    return sum(flops / t for t in best) / 1e9


def measure(quick: bool = False) -> dict[str, float]:
    """All limits; ``quick`` uses arrays barely past the caches and short runs (not meaningful)."""
    if quick:
        limits = memory_bandwidth(48 << 20, repeats=2)
        limits["peak_gflops"] = peak_flops(0.002, repeats=20)
    else:
        limits = memory_bandwidth()
        limits["peak_gflops"] = peak_flops()
    return limits


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except ImportError:
        return None


def description() -> dict[str, Any]:
    """CPU, cores, load and library versions: what a reader needs to compare two runs.

    ``load_average`` is taken before the run: other processes on the cores
    make every time longer and noisier, and the report says so.
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return {
        "cpu": _cpu_model(),
        "cores": cores(),
        "load_average": load,
        "python": sys.version.split()[0],
        "xlapy": _version("xlapy"),
        "numpy": _version("numpy"),
        "jax": _version("jax"),
        "llvmlite": _version("llvmlite"),
    }
