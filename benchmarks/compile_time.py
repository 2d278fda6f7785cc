"""Where compile time goes, per workload, and how fast the persistent cache starts.

For every workload of ``benchmarks/workloads.py``: a cold compile (in-memory cache off)
split into phases (HLO passes, IR emission, LLVM parse+verify, LLVM optimization, machine
code), the top Python hot spots of all those compiles (cProfile, by cumulative time);
then a warm start: a NEW process compiles every workload against the persistent cache
the first pass filled (``XLAPY_COMPILATION_CACHE_DIR``) and reports each compile's time.

    python benchmarks/compile_time.py [--filter NAME,...] [--top 15]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pathlib
import pstats
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from benchmarks import workloads  # noqa: E402
from xlapy.backends.cpu import compiler, persistent_cache  # noqa: E402
from xlapy.backends.cpu.compiler import CpuBackend  # noqa: E402
from xlapy.backends.cpu.runtime.executable import CpuOptions  # noqa: E402


def _modules(names: list[str]) -> list[tuple[str, object]]:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--filter", help="comma-separated workload names")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--warm", help=argparse.SUPPRESS)  # the child's cache directory
    args = parser.parse_args(argv)
    names = args.filter.split(",") if args.filter else list(workloads.WORKLOADS)
    if args.warm:
        _warm(names, args.warm)
        return 0
    os.environ.setdefault(persistent_cache.ENV_VERSION, "compile-time-benchmark")
    backend = CpuBackend()
    modules = _modules(names)
    phases = ("passes", "emit", "parse", "optimize", "codegen")
    print(f"{'workload':<14}" + "".join(f"{p + ' ms':>13}" for p in phases) + f"{'total ms':>11}")
    profile = cProfile.Profile()
    directory = tempfile.mkdtemp(prefix="xlapy_cache_")
    for name, module in modules:
        compiler.clear_cache()
        profile.enable()
        start = time.perf_counter()
        executable = backend.compile(module, CpuOptions(persistent_cache_dir=directory))
        total = time.perf_counter() - start
        profile.disable()
        t = executable.program.timings
        print(f"{name:<14}" + "".join(f"{t.get(p, 0) * 1e3:>13.1f}" for p in phases)
              + f"{total * 1e3:>11.1f}")  # fmt: skip
    print(f"\ntop {args.top} Python hot spots (cumulative, all cold compiles):")
    pstats.Stats(profile).sort_stats("cumulative").print_stats(args.top)
    child = subprocess.run(
        [sys.executable, __file__, "--warm", directory, "--filter", ",".join(names)],
        capture_output=True, text=True, check=True, env=dict(os.environ),
    )  # fmt: skip
    warm = json.loads(child.stdout.strip().splitlines()[-1])
    print("warm start in a new process (persistent cache):")
    for name, seconds in warm["times"].items():
        print(f"  {name:<14}{seconds * 1e3:>8.2f} ms")
    print(f"  cache stats: {warm['stats']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
