"""Where compile time goes, per workload, against JAX's, and how fast the persistent cache
starts.

For every workload of ``benchmarks/workloads.py``, in one process, engines taking turns
(the machine's load moves every number; turns keep the comparison fair):

- cold compile, in-memory cache off, median of ``--repeat`` compiles: xlapy with the
  module compiled whole on one thread ("serial", the code path before the split:
  ``XLAPY_COMPILE_THREADS=1``), xlapy as it compiles by default ("split": independent
  kernels in parallel threads, ``runtime.ir_partition``), and JAX's
  ``jax.jit(f).lower(...).compile()`` (a new function each time, so nothing is cached);
- the phases of the default compile (HLO passes, IR emission, IR rendering, LLVM parse +
  verify, LLVM optimization, machine code; for a split compile the slowest part's);
- run time of the serial and the split executables, alternating calls (the code of each
  function is the same either way: this checks it);
- warm start: a NEW process compiles every workload against the persistent cache the
  first pass filled (``XLAPY_COMPILATION_CACHE_DIR``) and reports each compile's time.

    python benchmarks/compile_time.py [--filter NAME,...] [--repeat 5] [--no-jax] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import math
import os
import pathlib
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from benchmarks import workloads  # noqa: E402
from xlapy.backends.cpu import compiler, persistent_cache  # noqa: E402
from xlapy.backends.cpu.compiler import CpuBackend  # noqa: E402
from xlapy.backends.cpu.runtime import jit, llvm_build  # noqa: E402
from xlapy.backends.cpu.runtime.executable import CpuOptions  # noqa: E402

PHASES = ("passes", "emit", "render", "parse", "optimize", "codegen")


def _modules(names: list[str]) -> list[tuple[str, Any]]:
    # Built in the same order in every process, so each module's text (its key) matches.
    return [(name, workloads.WORKLOADS[name](1).build().hlo_module) for name in names]


def _warm(names: list[str], directory: str) -> None:
    """In a new process: compile each workload against the filled cache, print JSON."""
    backend = CpuBackend()
    modules = _modules(names)
    out = {}
    for name, module in modules:
        start = time.perf_counter()
        backend.compile(module, CpuOptions(persistent_cache_dir=directory))
        out[name] = time.perf_counter() - start
    print(json.dumps({"times": out, "stats": persistent_cache.stats()}))


def _compile_xlapy(backend: CpuBackend, module: Any, threads: str) -> tuple[float, Any]:
    os.environ[jit.ENV_THREADS] = threads
    start = time.perf_counter()
    executable = backend.compile(module, CpuOptions(cache=False))
    return time.perf_counter() - start, executable


def _jax_compiler(name: str) -> Any:
    """A function that compiles the workload with JAX once and returns the seconds."""
    import jax

    w = workloads.WORKLOADS[name](1)
    arguments = [jax.device_put(a) for a in w.inputs]

    def compile_once() -> float:
        def fresh(*a: Any) -> Any:  # a new function: JAX's caches never hit
            return w.jax_fn(*a)

        start = time.perf_counter()
        jax.jit(fresh).lower(*arguments).compile()
        return time.perf_counter() - start

    return compile_once


def _run_time(executables: dict[str, Any], inputs: tuple, rounds: int) -> dict[str, float]:
    """Median seconds per call of each executable, calls alternating between them (in
    the opposite order every other round: the first of a pair often runs colder)."""
    calls = {k: (lambda e=e: e.call_numpy(list(inputs))) for k, e in executables.items()}
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {k: [] for k in calls}
    for round_number in range(rounds):
        order = list(calls.items())
        for key, call in order[::-1] if round_number % 2 else order:
            start = time.perf_counter()
            call()
            times[key].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def _geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter", help="comma-separated workload names")
    parser.add_argument("--repeat", type=int, default=5, help="compiles per engine (median)")
    parser.add_argument("--run-rounds", type=int, default=20, help="timed calls per executable")
    parser.add_argument("--no-jax", action="store_true", help="leave JAX out")
    parser.add_argument("--profile", action="store_true", help="cProfile the default compiles")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--warm", help=argparse.SUPPRESS)  # the child's cache directory
    args = parser.parse_args(argv)
    names = args.filter.split(",") if args.filter else list(workloads.WORKLOADS)
    if args.warm:
        _warm(names, args.warm)
        return 0
    os.environ.setdefault(persistent_cache.ENV_VERSION, "compile-time-benchmark")
    default_threads = str(jit.parallel_parts())
    backend = CpuBackend()
    modules = _modules(names)
    use_jax = not args.no_jax
    if use_jax:
        import jax

        jax.jit(lambda x: x + 1)(1.0).block_until_ready()  # backend start-up, not a compile
    profile = cProfile.Profile() if args.profile else None
    print(f"{os.cpu_count()} cores, split into up to {default_threads} parts; ms, median of "
          f"{args.repeat}; {llvm_build.describe()}")  # fmt: skip
    print(f"{'workload':<14}{'serial':>8}{'split':>8}{'jax':>8}{'split/jax':>10}{'parts':>6}"
          + "".join(f"{p:>9}" for p in PHASES)
          + f"{'run serial':>12}{'run split':>11}{'run ratio':>10}")  # fmt: skip
    rows = []
    for name, module in modules:
        jax_compile = _jax_compiler(name) if use_jax else None
        serial, split, jax_times, phases = [], [], [], []
        for _ in range(args.repeat):
            seconds, serial_exe = _compile_xlapy(backend, module, "1")
            serial.append(seconds)
            if profile:
                profile.enable()
            seconds, split_exe = _compile_xlapy(backend, module, default_threads)
            if profile:
                profile.disable()
            split.append(seconds)
            phases.append(split_exe.program.timings)
            if jax_compile:
                jax_times.append(jax_compile())
        inputs = workloads.WORKLOADS[name](1).inputs
        run = _run_time({"serial": serial_exe, "split": split_exe}, inputs, args.run_rounds)
        row = {
            "name": name,
            "serial_ms": statistics.median(serial) * 1e3,
            "split_ms": statistics.median(split) * 1e3,
            "jax_ms": statistics.median(jax_times) * 1e3 if jax_times else float("nan"),
            "parts": int(phases[-1].get("parts", 1)),
            "phases_ms": {p: statistics.median(t.get(p, 0) for t in phases) * 1e3 for p in PHASES},
            "run_serial_ms": run["serial"] * 1e3,
            "run_split_ms": run["split"] * 1e3,
        }
        rows.append(row)
        print(f"{name:<14}{row['serial_ms']:8.1f}{row['split_ms']:8.1f}{row['jax_ms']:8.1f}"
              f"{row['split_ms'] / row['jax_ms']:10.2f}{row['parts']:6d}"
              + "".join(f"{row['phases_ms'][p]:9.1f}" for p in PHASES)
              + f"{row['run_serial_ms']:12.3f}{row['run_split_ms']:11.3f}"
              f"{row['run_split_ms'] / row['run_serial_ms']:10.2f}", flush=True)  # fmt: skip
    os.environ[jit.ENV_THREADS] = default_threads
    if use_jax:
        ratios = [r["split_ms"] / r["jax_ms"] for r in rows]
        serial_ratios = [r["serial_ms"] / r["jax_ms"] for r in rows]
        print(f"geometric mean xlapy/JAX: split {_geomean(ratios):.2f}, serial "
              f"{_geomean(serial_ratios):.2f}; slower than JAX: "
              f"{', '.join(r['name'] for r in rows if r['split_ms'] > r['jax_ms']) or 'none'}")
    if profile:
        print(f"\ntop {args.top} Python hot spots (cumulative, the split compiles):")
        pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
    with tempfile.TemporaryDirectory(prefix="xlapy_cache_") as directory:
        for _, module in modules:  # fill the persistent cache
            compiler.clear_cache()
            backend.compile(module, CpuOptions(persistent_cache_dir=directory))
        child = subprocess.run(
            [sys.executable, __file__, "--warm", directory, "--filter", ",".join(names)],
            capture_output=True, text=True, check=True, env=dict(os.environ),
        )  # fmt: skip
    warm = json.loads(child.stdout.strip().splitlines()[-1])
    print("warm start in a new process (persistent cache), ms:")
    print("  " + ", ".join(f"{n} {s * 1e3:.2f}" for n, s in warm["times"].items()))
    print(f"  max {max(warm['times'].values()) * 1e3:.2f}; cache stats: {warm['stats']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
