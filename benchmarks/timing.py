"""Timing engines fairly, and the three engines' ways of compiling and calling a workload.

Shared by the main table (``benchmarks.run``), the loaded table and the size sweeps
(``benchmarks.sweep``), so that every number in the report is taken the same way: each
engine compiled once (compile time recorded), its result checked against numpy's, then
timed in rounds where the engines take turns, so that a machine whose speed drifts over
seconds (a shared VM) slows all of them alike instead of whichever happened to run then.
"""

from __future__ import annotations

import gc
import statistics
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .workloads import Workload


@dataclass(frozen=True)
class Schedule:
    """How long and in how many turns the engines are timed.

    ``settle``: seconds of doing nothing before each turn, long enough for the previous
    engine's worker threads to go to sleep (OpenBLAS's and Eigen's spin on the cores for a
    while after a call), so that no engine is timed while another's idle threads compete
    for the cores. ``budget``: seconds of calls per engine (at least ``min_samples``
    samples) unless ``repeats`` fixes the count.
    """

    budget: float = 0.5
    rounds: int = 5
    settle: float = 0.2
    repeats: int | None = None
    min_samples: int = 5


def time_interleaved(fns: dict[str, Callable[[], object]], schedule: Schedule) -> dict[str, dict]:
    """Median seconds of each ``fn()`` after two warm-up calls, timed in
    ``schedule.rounds`` rounds in which every engine takes a turn.

    Calls shorter than 100 us are timed in batches (the median of batch averages), so
    that the timer's own cost does not count.
    """
    plans = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-8)
        batch = max(1, min(1000, int(1e-4 / once))) if once < 1e-4 else 1
        wanted = max(schedule.budget / (once * batch), schedule.min_samples)
        count = schedule.repeats or int(min(wanted, 10_000))
        plans[name] = (fn, batch, count)
    rounds = min(schedule.rounds, min((count for _, _, count in plans.values()), default=1))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(rounds):
        for name, (fn, batch, count) in plans.items():
            time.sleep(schedule.settle)
            for _ in range(count // rounds + (r < count % rounds)):
                start = time.perf_counter()
                for _ in range(batch):
                    fn()
                samples[name].append((time.perf_counter() - start) / batch)
    return {
        name: {
            "seconds": statistics.median(samples[name]),
            "min_seconds": min(samples[name]),
            "samples": len(samples[name]),
            "calls_per_sample": plans[name][1],
        }
        for name in fns
    }


def compare(got: Any, want: Any, rtol: float, atol: float) -> str:
    """``"ok"``, or ``"MISMATCH ..."`` with how many elements differ and by how much."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return f"MISMATCH shape {got.shape} != {want.shape}"
    wide = np.complex128 if np.iscomplexobj(got) or np.iscomplexobj(want) else np.float64
    g, w = got.astype(wide), want.astype(wide)
    bad = ~np.isclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    if not bad.any():
        return "ok"
    error = np.abs(g - w)[bad]
    return f"MISMATCH {int(bad.sum())}/{bad.size} elements, max abs error {error.max():.3g}"


def error_entry(e: BaseException) -> dict:
    """An engine's failure as a table cell (the traceback goes to stderr)."""
    traceback.print_exc()
    return {"error": f"{type(e).__name__}: {e}".splitlines()[0][:200]}


Prepared = tuple[dict, Callable[[], object]]


def install_runtime_library(client: Any, computation: Any) -> None:
    """Compile ``computation`` once, outside the compile cache, so that the timed compile
    after it finds the variants of xlapy's runtime library it calls (the GEMM's, the
    FFT's: ``backends/cpu/emit/library``) as every process after the first on a machine
    does: on disk, mapped in a millisecond. XLA's runtime (Eigen, DUCC, YNNPACK) ships
    compiled in jaxlib; timing xlapy's first-ever compile of a variant instead would
    charge a once-per-machine cost to one workload of one run."""
    if getattr(client, "platform", None) != "cpu":
        return
    from xlapy.client import CompileOptions

    client.compile(computation, CompileOptions(backend_options={"cache": False}))


def run_xlapy(w: Workload, client: Any, expected: Any) -> Prepared:
    """Build with the builder, compile (timed), check; the call to time, on numpy inputs."""
    start = time.perf_counter()
    computation = w.build()
    built = time.perf_counter() - start
    install_runtime_library(client, computation)
    # A full collection first, for both engines (as timeit turns the collector off): a
    # generation-2 collection that lands inside one ~30 ms compile scans the whole heap,
    # JAX's objects and the inputs included (74 ms measured), and charges it to whichever
    # engine happened to cross the allocation threshold.
    gc.collect()
    start = time.perf_counter()
    executable = client.compile(computation)
    compiled = time.perf_counter() - start
    inputs = w.inputs
    result = {
        "build_seconds": built,
        "compile_seconds": compiled,
        "check": compare(executable(*inputs), expected, w.rtol, w.atol),
    }
    fallbacks = getattr(executable, "fallback_ops", None)
    if fallbacks is not None and client.platform != "interpreter":
        result["fallback_ops"] = sorted(fallbacks)
    return result, lambda: executable(*inputs)


def run_numpy(w: Workload) -> Prepared:
    """The numpy version as a Python user would call it (temporaries and all)."""
    return {}, lambda: w.numpy_fn(*w.inputs)


def jax_available() -> bool:
    """JAX on its CPU backend, if it is installed (the suite runs without it)."""
    try:
        import jax
    except ImportError:
        return False
    jax.config.update("jax_platforms", "cpu")
    jax.jit(lambda x: x + 1)(1.0).block_until_ready()  # backend start-up, not a compile time
    return True


def run_jax(w: Workload, expected: Any) -> Prepared:
    """jit, lower and compile (timed), check; the call to time, on device arrays made once
    (host-to-device transfers are not timed)."""
    import jax
    import jax.numpy as jnp

    args = [jnp.asarray(a) for a in w.inputs]
    jax.block_until_ready(args)
    gc.collect()  # as before xlapy's timed compile (run_xlapy)
    start = time.perf_counter()
    compiled = jax.jit(w.jax_fn).lower(*args).compile()
    compile_seconds = time.perf_counter() - start
    result = {
        "compile_seconds": compile_seconds,
        "check": compare(np.asarray(compiled(*args)), expected, w.rtol, w.atol),
        "library_kernels": library_kernels(compiled.as_text()),
    }
    return result, lambda: compiled(*args).block_until_ready()


# XLA:CPU's kernels that are not generated for --xla_cpu_max_isa, by how the optimized
# HLO shows them: YNNPACK/XNNPACK/oneDNN fusions (XLA 0.10 sends reductions, dots and
# convolutions to YNNPACK), oneDNN custom calls, and the runtime's own dot and
# convolution kernels compiled into jaxlib.
_LIBRARY_MARKERS = (
    ('"kind":"__ynn_fusion"', "YNNPACK"),
    ('"kind":"__xnn_fusion"', "XNNPACK"),
    ('"kind":"__onednn_fusion"', "oneDNN"),
    ('custom_call_target="__onednn', "oneDNN"),
)


def library_kernels(optimized_hlo: str) -> list[str]:
    """The libraries XLA's executable calls whose instruction set they pick themselves
    from CPUID (``--xla_cpu_max_isa`` reaches only XLA's generated code).

    Why: on the AVX2 path such a kernel still runs AVX-512 code on an AVX-512 host, so
    xlapy's AVX2 code would be compared with XLA's AVX-512 code (1024^3 matmul at 175
    GFLOP/s under the AVX2 flag, above the AVX2 peak of 166). A library found only as a
    plain ``dot``/``convolution`` outside any library fusion is XLA's runtime kernel."""
    found = [name for marker, name in _LIBRARY_MARKERS if marker in optimized_hlo]
    if not found and any(
        f" {op}(" in line for line in optimized_hlo.splitlines() for op in ("dot", "convolution")
    ):
        found.append("XLA's runtime dot/convolution")
    return sorted(set(found))


def prepare_engines(
    w: Workload, client: Any, client_error: str | None, use_jax: bool, engines: tuple[str, ...]
) -> tuple[dict[str, dict], dict[str, Callable[[], object]]]:
    """Compile and check ``w`` on each of ``engines`` (numpy, xlapy, jax): their result
    entries and the calls to time. A failing engine is recorded, not fatal."""
    expected = w.numpy_fn(*w.inputs)
    makers: dict[str, Callable[[], Prepared]] = {
        "numpy": lambda: run_numpy(w),
        "xlapy": lambda: run_xlapy(w, client, expected),
        "jax": lambda: run_jax(w, expected),
    }
    entries: dict[str, dict] = {}
    calls: dict[str, Callable[[], object]] = {}
    for name in engines:
        if name == "xlapy" and client is None:
            entries[name] = {"error": client_error}
            continue
        if name == "jax" and not use_jax:
            continue
        try:
            entries[name], calls[name] = makers[name]()
        except Exception as e:  # noqa: BLE001  (reported in the table)
            entries[name] = error_entry(e)
    return entries, calls
