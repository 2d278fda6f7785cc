"""This machine's roofline: memory bandwidth and arithmetic peak, measured, not looked up.

One measurement serves both readers: ``xlapy profile`` divides each kernel's bytes and
FLOPs by its time and compares the rates with these roofs, and ``make bench``
(``benchmarks/machine.py``) reads every workload's time against them. Both roofs are
measured on every core at once (Python threads around native loops: ctypes releases the
GIL), because xlapy's large kernels run on every core.

* Peak: a JIT-compiled loop of independent vector multiply-adds for the *target's* widest
  vector ISA (16 f32 lanes with AVX-512, 8 with AVX/AVX2, 4 with SSE), so the AVX2 code
  path is read against an AVX2 peak even on an AVX-512 machine. The loop keeps enough
  independent accumulators to cover FMA latency times FMA ports on any current core
  (16 for AVX-512, 12 otherwise), and never more than the ISA has registers for: a
  kernel that spills its accumulators to the stack measures the load/store units, not
  the FMA units (which is how 16-lane vectors with 12 accumulators, 24 ymm registers
  on AVX2, came out below the rate a real matmul reached). Runs are a few milliseconds,
  shorter than a scheduler slice, repeated; each core's best run counts, so a core that
  another process held in one run shows its real rate in another.
* Bandwidth: STREAM-style kernels over arrays twice the size of the largest cache (at
  least 64 MiB each), split into one contiguous chunk per core: *read* (a vector sum),
  *copy* (numpy's ``copyto``, i.e. memcpy) and *triad* (``a = b + s*c``). Bytes are
  counted as STREAM counts them (each array once, no write-allocate traffic);
  ``bandwidth`` is the best of copy and triad, ``read_bandwidth`` what reductions get.

Measured rather than computed from a nominal clock: turbo, thermal limits, the number of
FMA ports per core and the memory system are all in the figures, and no table of CPU
models has to be kept. f64's peak is half of f32's (half the lanes per register).
"""

from __future__ import annotations

import ctypes
import functools
import math
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from llvmlite import ir

from .runtime import jit
from .runtime.native_runtime import worker_count

F32 = ir.FloatType()
I64 = ir.IntType(64)
I32 = ir.IntType(32)
MIN_STREAM_BYTES = 64 << 20
MAX_STREAM_BYTES = 1 << 30
PEAK_SECONDS = 0.003  # one run of the FMA loop: shorter than a scheduler time slice
READ_UNROLL = 4  # vectors per iteration of the read kernel (independent accumulators)


@dataclass(frozen=True)
class VectorIsa:
    """The widest float vector ISA a target has, and how the peak loop uses it."""

    name: str
    lanes: int  # f32 lanes per register
    registers: int  # architectural vector registers
    chains: int  # independent FMA accumulators in the peak loop


# Widest first. Chains: FMA latency (4-5 cycles) x FMA ports (2) is at most 10 on current
# x86-64 cores; the count leaves room for the two loop constants in the register file.
_ISAS = (
    ("avx512f", VectorIsa("AVX-512", 16, 32, 16)),
    ("avx2", VectorIsa("AVX2", 8, 16, 12)),
    ("avx", VectorIsa("AVX", 8, 16, 12)),
)
_BASELINE = VectorIsa("SSE", 4, 16, 12)


@dataclass(frozen=True)
class Machine:
    """The roofs, in bytes/s and FLOP/s (f32; f64 is half), and how they were measured."""

    bandwidth: float  # best of STREAM copy and triad, all cores
    peak_flops_f32: float
    cores: int
    vector_width: int  # f32 lanes of the ISA the peak was measured with
    read_bandwidth: float = 0.0
    copy_bandwidth: float = 0.0
    triad_bandwidth: float = 0.0
    isa: str = ""
    stream_bytes: int = 0  # bytes per array of the bandwidth kernels

    def peak_flops(self, element_bits: int = 32) -> float:
        return self.peak_flops_f32 / 2 if element_bits >= 64 else self.peak_flops_f32

    def describe(self) -> str:
        isa = f"{self.isa} " if self.isa else ""
        return (
            f"{self.bandwidth / 1e9:.1f} GB/s (STREAM copy/triad, all cores), "
            f"{self.peak_flops_f32 / 1e9:.1f} GFLOP/s f32 peak ({self.cores} cores x "
            f"{self.vector_width}-wide {isa}FMA)"
        )

    def as_dict(self) -> dict[str, Any]:
        """The figures in GB/s and GFLOP/s, as the benchmark reports print them."""
        return {
            "read_gbs": self.read_bandwidth / 1e9,
            "copy_gbs": self.copy_bandwidth / 1e9,
            "triad_gbs": self.triad_bandwidth / 1e9,
            "bandwidth_gbs": self.bandwidth / 1e9,
            "peak_gflops": self.peak_flops_f32 / 1e9,
            "isa": self.isa,
            "vector_width": self.vector_width,
            "cores": self.cores,
            "stream_mib": self.stream_bytes / (1 << 20),
        }


# -- the target's vector ISA -------------------------------------------------------------------


def _enabled_features(target: jit.Target) -> frozenset[str]:
    if target.host:
        return frozenset(f[1:] for f in target.features.split(",") if f.startswith("+"))
    return target.required_features()


def vector_isa(target: jit.Target | None = None) -> VectorIsa:
    """The widest float vector ISA code for ``target`` (default: what compiles get) may use."""
    features = _enabled_features(target or jit.resolve_target())
    return next((isa for feature, isa in _ISAS if feature in features), _BASELINE)


def vector_width() -> int:
    """f32 lanes of the widest float registers of the target compiles get."""
    return vector_isa().lanes


# -- JIT kernels -------------------------------------------------------------------------------


def _splat(vector: ir.VectorType, value: float) -> ir.Constant:
    return ir.Constant(vector, [ir.Constant(F32, value)] * vector.count)


def _counted_loop(
    fn: ir.Function, count: ir.Value, phis: list[tuple[ir.Type, ir.Value]]
) -> tuple[ir.IRBuilder, ir.Value, Callable[[list[ir.Value]], None], list[ir.Value]]:
    """``for i in range(count)`` (count >= 1) carrying ``phis``: the builder in the body,
    ``i``, ``close(new_values)`` (ends the loop; the builder continues after it) and the
    carried values."""
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

    def close(new: list[ir.Value]) -> None:
        for phi, value in zip(carried, new, strict=True):
            phi.add_incoming(value, loop)
        following = b.add(i, I64(1))
        i.add_incoming(following, loop)
        b.cbranch(b.icmp_signed("<", following, count), loop, done)
        b.position_at_end(done)

    return b, i, close, carried


def _fmuladd(module: ir.Module, vector: ir.VectorType) -> ir.Function:
    """``llvm.fmuladd`` on ``vector``: one FMA where the target has FMA units."""
    name = f"llvm.fmuladd.v{vector.count}f32"
    try:
        return module.get_global(name)
    except KeyError:
        return ir.Function(module, ir.FunctionType(vector, [vector] * 3), name)


def _horizontal_sum(b: ir.IRBuilder, values: list[ir.Value]) -> ir.Value:
    total = values[0]
    for value in values[1:]:
        total = b.fadd(total, value)
    return b.extract_element(total, I32(0))


def _peak_kernel(module: ir.Module, isa: VectorIsa) -> None:
    """``float peak(i64 n)``: n rounds of ``isa.chains`` independent vector FMAs
    (acc = acc*a + c); the sum is returned so that nothing is optimized away."""
    vector = ir.VectorType(F32, isa.lanes)
    fn = ir.Function(module, ir.FunctionType(F32, [I64]), "peak")
    fma = _fmuladd(module, vector)
    start = [(vector, _splat(vector, 1.0 + k)) for k in range(isa.chains)]
    b, _, close, accumulators = _counted_loop(fn, fn.args[0], start)
    scale, offset = _splat(vector, 0.999999), _splat(vector, 1e-7)
    updated = [b.call(fma, [acc, scale, offset]) for acc in accumulators]
    close(updated)
    b.ret(_horizontal_sum(b, updated))


def _vector_at(b: ir.IRBuilder, base: ir.Value, index: ir.Value, lanes: int) -> ir.Value:
    """``(<lanes x float>*)(base + index * lanes)``; alignment 4, all numpy promises."""
    pointer = b.gep(base, [b.mul(index, I64(lanes))])
    return b.bitcast(pointer, ir.VectorType(F32, lanes).as_pointer())


def _read_kernel(module: ir.Module, isa: VectorIsa) -> None:
    """``float read(float* x, i64 blocks)``: a sum over blocks of READ_UNROLL vectors."""
    vector = ir.VectorType(F32, isa.lanes)
    fn = ir.Function(module, ir.FunctionType(F32, [F32.as_pointer(), I64]), "read")
    zero = [(vector, _splat(vector, 0.0))] * READ_UNROLL
    b, i, close, accumulators = _counted_loop(fn, fn.args[1], zero)
    base = b.mul(i, I64(READ_UNROLL))
    loads = [
        b.load(_vector_at(b, fn.args[0], b.add(base, I64(k)), isa.lanes), align=4)
        for k in range(READ_UNROLL)
    ]
    updated = [b.fadd(acc, v) for acc, v in zip(accumulators, loads, strict=True)]
    close(updated)
    b.ret(_horizontal_sum(b, updated))


def _triad_kernel(module: ir.Module, isa: VectorIsa) -> None:
    """``void triad(float* a, float* b, float* c, float s, i64 vectors)``: a = b + s*c."""
    vector = ir.VectorType(F32, isa.lanes)
    pointer = F32.as_pointer()
    signature = ir.FunctionType(ir.VoidType(), [pointer, pointer, pointer, F32, I64])
    fn = ir.Function(module, signature, "triad")
    fma = _fmuladd(module, vector)
    a, bb, c, s, count = fn.args
    b, i, close, _ = _counted_loop(fn, count, [])
    lane0 = b.insert_element(ir.Constant(vector, ir.Undefined), s, I32(0))
    zeros = ir.Constant(ir.VectorType(I32, isa.lanes), [0] * isa.lanes)
    splat = b.shuffle_vector(lane0, ir.Constant(vector, ir.Undefined), zeros)
    cv = b.load(_vector_at(b, c, i, isa.lanes), align=4)
    bv = b.load(_vector_at(b, bb, i, isa.lanes), align=4)
    b.store(b.call(fma, [splat, cv, bv]), _vector_at(b, a, i, isa.lanes), align=4)
    close([])
    b.ret_void()


def kernel_module(isa: VectorIsa) -> ir.Module:
    """The peak, read and triad kernels for ``isa`` in one module."""
    module = jit.new_module(f"xlapy_roofline_{isa.lanes}")
    _peak_kernel(module, isa)
    _read_kernel(module, isa)
    _triad_kernel(module, isa)
    return module


def module_text(module: ir.Module, isa: VectorIsa) -> str:
    """The module's IR, every function marked as needing ``isa``'s full vector width.

    LLVM tunes most AVX-512 Intel cores for 256-bit vectors; ``min-legal-vector-width``
    keeps the kernels' 512-bit vectors whole whatever that tuning (or a later LLVM)
    prefers, so the AVX-512 peak cannot quietly become AVX2's.
    """
    bits = 32 * isa.lanes
    text = str(module).replace(") \n{", ") #0\n{").replace(")\n{", ") #0\n{")
    return text + f'\nattributes #0 = {{ "min-legal-vector-width"="{bits}" }}\n'


_kernels: dict[str, dict[str, Any]] = {}
_kernels_lock = threading.Lock()


def kernels(target: jit.Target | None = None) -> dict[str, Any]:
    """The three kernels for ``target`` as ctypes functions (compiled once per target)."""
    target = target or jit.resolve_target()
    with _kernels_lock:
        if target.key not in _kernels:
            isa = vector_isa(target)
            module = kernel_module(isa)
            code = jit.compile_module(
                module, target=target, text=module_text(module, isa), strength_reduction=True
            )
            fptr = ctypes.POINTER(ctypes.c_float)
            _kernels[target.key] = {
                "isa": isa,
                "code": code,  # keeps the machine code mapped
                "peak": code.cfunction("peak", ctypes.c_float, ctypes.c_int64),
                "read": code.cfunction("read", ctypes.c_float, fptr, ctypes.c_int64),
                "triad": code.cfunction(
                    "triad", None, fptr, fptr, fptr, ctypes.c_float, ctypes.c_int64
                ),
            }
        return _kernels[target.key]


# -- measurements ------------------------------------------------------------------------------


def _parallel(work: Callable[[int], object], n: int) -> tuple[float, list[float]]:
    """Wall seconds for ``work(k)``, k = 0..n-1, on n threads released together, and the
    seconds each thread spent in its own ``work``."""
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


def measure_peak(
    target: jit.Target | None = None,
    seconds: float = PEAK_SECONDS,
    repeats: int = 40,
    cores: int | None = None,
) -> float:
    """f32 FLOP/s of independent vector FMAs on every core at once (2 FLOPs per lane).

    The trip count is calibrated on one core so that a run lasts about ``seconds``; all
    cores run together ``repeats`` times, each core's best rate counts, and the rates are
    summed (FMA units are per core).
    """
    found = kernels(target)
    peak, isa = found["peak"], found["isa"]
    probe = 20_000
    peak(probe)  # page the code in, wake the core
    start = time.perf_counter()
    peak(probe)
    once = max(time.perf_counter() - start, 1e-7)
    trips = max(probe, int(probe * seconds / once))
    n = cores or worker_count()
    best = [math.inf] * n
    for _ in range(repeats):
        _, own = _parallel(lambda k: peak(trips), n)
        best = [min(b, t) for b, t in zip(best, own, strict=True)]
    flops = trips * isa.chains * isa.lanes * 2
    return sum(flops / t for t in best)


def largest_cache_bytes() -> int:
    """The largest CPU cache's size (the last level), from sysfs or glibc; 0 if unknown."""
    sizes = []
    for entry in Path("/sys/devices/system/cpu/cpu0/cache").glob("index*/size"):
        text = entry.read_text().strip().upper()
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        try:
            sizes.append(int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text))
        except (ValueError, IndexError):
            continue
    if not sizes:
        try:
            sizes.append(os.sysconf("SC_LEVEL3_CACHE_SIZE"))
        except (ValueError, OSError):
            pass
    return max(sizes, default=0)


def stream_bytes() -> int:
    """Bytes per array of the bandwidth kernels: twice the largest cache, at least 64 MiB,
    at most 1 GiB and a sixteenth of the memory (three arrays are live at once)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):
        memory = 16 << 30
    wanted = max(2 * largest_cache_bytes(), MIN_STREAM_BYTES)
    return min(wanted, MAX_STREAM_BYTES, max(memory // 16, MIN_STREAM_BYTES // 4))


def _chunks(size: int, n: int, granule: int) -> list[tuple[int, int]]:
    """n disjoint [lo, hi) ranges covering ``size`` floats, in multiples of ``granule``."""
    units = size // granule
    edges = [units * k // n * granule for k in range(n + 1)]
    return list(zip(edges[:-1], edges[1:], strict=True))


def _pointer(array: np.ndarray, offset: int) -> Any:
    return ctypes.cast(array.ctypes.data + 4 * offset, ctypes.POINTER(ctypes.c_float))


def measure_streams(
    nbytes: int | None = None,
    repeats: int = 10,
    target: jit.Target | None = None,
    cores: int | None = None,
) -> dict[str, float]:
    """Best bytes/s of the read, copy and triad kernels on every core (STREAM counting)."""
    found = kernels(target)
    lanes = found["isa"].lanes
    block = lanes * READ_UNROLL
    n = cores or worker_count()
    size = (nbytes or stream_bytes()) // 4 // block * block
    parts = _chunks(size, n, block)
    a, b, c = (np.empty(size, np.float32) for _ in range(3))

    def fill(k: int) -> None:  # each core pages in its own chunks, before any timing
        lo, hi = parts[k]
        a[lo:hi], b[lo:hi], c[lo:hi] = 1.0, 2.0, 0.5

    _parallel(fill, n)
    read, triad = found["read"], found["triad"]

    def do_read(k: int) -> None:
        lo, hi = parts[k]
        read(_pointer(b, lo), (hi - lo) // block)

    def do_copy(k: int) -> None:
        lo, hi = parts[k]
        np.copyto(a[lo:hi], b[lo:hi])

    def do_triad(k: int) -> None:
        lo, hi = parts[k]
        triad(_pointer(a, lo), _pointer(b, lo), _pointer(c, lo), 3.0, (hi - lo) // lanes)

    best = {
        name: min(_parallel(work, n)[0] for _ in range(repeats))
        for name, work in (("read", do_read), ("copy", do_copy), ("triad", do_triad))
    }
    array_bytes = 4 * size
    return {
        "read": array_bytes / best["read"],
        "copy": 2 * array_bytes / best["copy"],
        "triad": 3 * array_bytes / best["triad"],
        "bytes": float(array_bytes),
    }


def measure(target: jit.Target | None = None, quick: bool = False, repeats: int = 10) -> Machine:
    """Both roofs for ``target``'s code (default: what compiles get, so
    ``XLAPY_CPU_TARGET=x86-64-v3`` gives the AVX2 peak), each stream kernel's best of
    ``repeats`` runs. ``quick``: arrays barely past small caches and few runs (checks the
    machinery; the figures mean little)."""
    target = target or jit.resolve_target()
    cores = worker_count()
    if quick:
        streams = measure_streams(16 << 20, repeats=2, target=target, cores=cores)
        peak = measure_peak(target, seconds=0.001, repeats=8, cores=cores)
    else:
        streams = measure_streams(repeats=repeats, target=target, cores=cores)
        peak = measure_peak(target, repeats=4 * repeats, cores=cores)
    isa = vector_isa(target)
    return Machine(
        bandwidth=max(streams["copy"], streams["triad"]),
        peak_flops_f32=peak,
        cores=cores,
        vector_width=isa.lanes,
        read_bandwidth=streams["read"],
        copy_bandwidth=streams["copy"],
        triad_bandwidth=streams["triad"],
        isa=isa.name,
        stream_bytes=int(streams["bytes"]),
    )


@functools.cache
def machine() -> Machine:
    """This machine's roofline for the target compiles get, measured on first use (about
    two seconds, most of it paging in the stream arrays) and kept for the process."""
    return measure(repeats=3)


__all__ = [
    "Machine",
    "VectorIsa",
    "kernel_module",
    "kernels",
    "largest_cache_bytes",
    "machine",
    "measure",
    "measure_peak",
    "measure_streams",
    "module_text",
    "stream_bytes",
    "vector_isa",
    "vector_width",
]
