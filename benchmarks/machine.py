"""This machine's limits, measured in the same run as the workloads.

Memory bandwidth: a copy of arrays far larger than the caches, split over one
thread per core (numpy releases the GIL), counting bytes read plus written.
Peak f32 FLOP/s: a JIT-compiled loop of independent vector FMAs (enough
accumulators to cover the FMA latency), on every core at once.
"""

from __future__ import annotations

import ctypes
import os
import platform
import threading
import time

import numpy as np
from llvmlite import ir

from xlapy.backends.cpu import jit


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _parallel(work, n: int) -> float:  # noqa: ANN001
    """Seconds for ``work(k)`` run on ``n`` threads at once."""
    barrier = threading.Barrier(n + 1)
    threads = [threading.Thread(target=lambda k=k: (barrier.wait(), work(k))) for k in range(n)]
    for t in threads:
        t.start()
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join()
    return time.perf_counter() - start


def memory_bandwidth(bytes_per_array: int = 256 << 20, repeats: int = 5) -> float:
    """GB/s of a parallel copy (read + write)."""
    n = cores()
    src = np.ones(bytes_per_array // 4, np.float32)
    dst = np.empty_like(src)
    chunks = np.array_split(np.arange(src.size), n)
    bounds = [(c[0], c[-1] + 1) for c in chunks]

    def copy(k: int) -> None:
        lo, hi = bounds[k]
        np.copyto(dst[lo:hi], src[lo:hi])

    copy_all = [_parallel(copy, n) for _ in range(repeats)]
    return 2 * src.nbytes / min(copy_all) / 1e9


_LANES, _ACCUMULATORS = 16, 12


def _fma_kernel():  # noqa: ANN202
    module = jit.new_module("peak")
    vec = ir.VectorType(ir.FloatType(), _LANES)
    fn = ir.Function(module, ir.FunctionType(ir.FloatType(), [ir.IntType(64)]), "peak")
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    fma = ir.Function(module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fma.v{_LANES}f32")
    a = ir.Constant(vec, [ir.Constant(ir.FloatType(), 0.999999)] * _LANES)
    c = ir.Constant(vec, [ir.Constant(ir.FloatType(), 1e-7)] * _LANES)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(ir.IntType(64))
    i.add_incoming(ir.IntType(64)(0), entry)
    accs = [b.phi(vec) for _ in range(_ACCUMULATORS)]
    for k, acc in enumerate(accs):
        acc.add_incoming(ir.Constant(vec, [ir.Constant(ir.FloatType(), float(k))] * _LANES), entry)
    new = [b.call(fma, [acc, a, c]) for acc in accs]
    for acc, value in zip(accs, new, strict=True):
        acc.add_incoming(value, loop)
    nxt = b.add(i, ir.IntType(64)(1))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_signed("<", nxt, fn.args[0]), loop, done)
    b.position_at_end(done)
    total = new[0]
    for value in new[1:]:
        total = b.fadd(total, value)
    b.ret(b.extract_element(total, ir.IntType(32)(0)))
    code = jit.compile_module(module, opt_level=1)
    return code, code.cfunction("peak", ctypes.c_float, ctypes.c_int64)


def peak_flops(iterations: int = 20_000_000) -> float:
    """f32 GFLOP/s of independent FMAs on every core (2 FLOPs per lane per FMA)."""
    code, fn = _fma_kernel()
    fn(1000)
    n = cores()
    seconds = min(_parallel(lambda k: fn(iterations), n) for _ in range(3))
    del code
    return n * iterations * _ACCUMULATORS * _LANES * 2 / seconds / 1e9


def description() -> dict:
    import llvmlite

    info = {
        "cpu": platform.processor() or platform.machine(),
        "cores": cores(),
        "numpy": np.__version__,
        "llvmlite": llvmlite.__version__,
    }
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        import jax

        info["jax"] = jax.__version__
    except ImportError:
        info["jax"] = None
    return info
