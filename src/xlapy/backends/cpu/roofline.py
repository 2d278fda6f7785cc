"""This machine's roofline: memory bandwidth and arithmetic peak, measured once per process.

The profiler divides a kernel's bytes and FLOPs by its time and compares the rates with
these two numbers, to say which bound applies and how close the kernel came to it.

* Bandwidth: numpy copies a 256 MB buffer into another (read 256 MB, write 256 MB),
  best of three; the rate is bytes read plus written over time. One thread, as numpy's
  copy runs; the kernels the profiler compares are often parallel, so a parallel kernel
  can exceed 100% of this figure on machines whose single core does not saturate memory.
* Peak: a loop of independent vector multiply-adds (``llvm.fmuladd`` on vectors as wide
  as the host's widest float registers: 16 floats with AVX-512, 8 with AVX, else 4),
  JIT-compiled through llvmlite for the host and timed on one core, best of three, times
  the cores the thread pool uses. Measured rather than computed from a nominal clock:
  turbo, thermal limits and the number of FMA ports per core are all in the figure, and
  no table of CPU models has to be kept. f64's peak is half of f32's (half the lanes).
"""

from __future__ import annotations

import ctypes
import functools
import time
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from .runtime import jit
from .runtime.native_runtime import worker_count

BANDWIDTH_BYTES = 256 << 20
CHAINS = 10  # independent accumulators: enough to cover FMA latency x ports
TIMING_REPEATS = 3


@dataclass(frozen=True)
class Machine:
    """The two roofs, in bytes/s and FLOP/s (f32; f64 is half)."""

    bandwidth: float
    peak_flops_f32: float
    cores: int
    vector_width: int  # f32 lanes of the widest float register

    def peak_flops(self, element_bits: int = 32) -> float:
        return self.peak_flops_f32 / 2 if element_bits >= 64 else self.peak_flops_f32

    def describe(self) -> str:
        return (
            f"{self.bandwidth / 1e9:.1f} GB/s (copy, one thread), "
            f"{self.peak_flops_f32 / 1e9:.1f} GFLOP/s f32 peak ({self.cores} cores x "
            f"{self.vector_width}-wide FMA)"
        )


def measure_bandwidth(nbytes: int = BANDWIDTH_BYTES, repeats: int = TIMING_REPEATS) -> float:
    """Bytes per second of a large numpy copy (bytes read plus bytes written)."""
    source = np.ones(nbytes // 8, np.float64)
    target = np.empty_like(source)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        np.copyto(target, source)
        best = min(best, time.perf_counter() - start)
    return 2 * source.nbytes / best


def vector_width() -> int:
    """f32 lanes of the host's widest float registers."""
    features = jit.host_target().features
    if "+avx512f" in features:
        return 16
    if "+avx" in features:
        return 8
    return 4


def _fma_loop(width: int) -> ir.Module:
    """``void fma_loop(i64 n, float* out)``: n rounds of CHAINS independent vector
    multiply-adds, the sum stored to ``out`` so that nothing is optimized away."""
    module = jit.new_module("xlapy_roofline")
    f32, i64 = ir.FloatType(), ir.IntType(64)
    vector = ir.VectorType(f32, width)
    fmuladd = ir.Function(
        module, ir.FunctionType(vector, [vector] * 3), f"llvm.fmuladd.v{width}f32"
    )
    function = ir.Function(
        module, ir.FunctionType(ir.VoidType(), [i64, f32.as_pointer()]), "fma_loop"
    )
    n, out = function.args
    entry = function.append_basic_block("entry")
    loop = function.append_basic_block("loop")
    done = function.append_basic_block("done")
    b = ir.IRBuilder(entry)
    scale = ir.Constant(vector, [0.999999] * width)
    offset = ir.Constant(vector, [1e-7] * width)
    b.branch(loop)
    b.position_at_end(loop)
    counter = b.phi(i64)
    counter.add_incoming(ir.Constant(i64, 0), entry)
    accumulators = []
    for k in range(CHAINS):
        phi = b.phi(vector)
        phi.add_incoming(ir.Constant(vector, [1.0 + k] * width), entry)
        accumulators.append(phi)
    updated = [b.call(fmuladd, [a, scale, offset]) for a in accumulators]
    for phi, value in zip(accumulators, updated, strict=True):
        phi.add_incoming(value, loop)
    following = b.add(counter, ir.Constant(i64, 1))
    counter.add_incoming(following, loop)
    b.cbranch(b.icmp_signed("<", following, n), loop, done)
    b.position_at_end(done)
    total = updated[0]
    for value in updated[1:]:
        total = b.fadd(total, value)
    b.store(b.extract_element(total, ir.Constant(ir.IntType(32), 0)), out)
    b.ret_void()
    return module


def measure_peak_per_core(width: int, repeats: int = TIMING_REPEATS) -> float:
    """f32 FLOP/s of one core running the multiply-add loop (2 FLOPs per lane)."""
    code = jit.compile_module(_fma_loop(width), target=jit.host_target())
    run = code.cfunction("fma_loop", None, ctypes.c_int64, ctypes.POINTER(ctypes.c_float))
    out = ctypes.c_float()
    rounds = 1 << 20
    run(1000, ctypes.byref(out))  # warm up: page in the code, wake the core
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run(rounds, ctypes.byref(out))
        best = min(best, time.perf_counter() - start)
    return rounds * CHAINS * width * 2 / best


@functools.cache
def machine() -> Machine:
    """This machine's roofline, measured on first use (about half a second) and kept."""
    width = vector_width()
    cores = worker_count()
    return Machine(
        bandwidth=measure_bandwidth(),
        peak_flops_f32=measure_peak_per_core(width) * cores,
        cores=cores,
        vector_width=width,
    )


__all__ = ["Machine", "machine", "measure_bandwidth", "measure_peak_per_core", "vector_width"]
