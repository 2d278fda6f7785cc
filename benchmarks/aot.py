"""Ahead-of-time objects against the JIT, single-threaded on both sides.

For every workload of ``benchmarks/workloads.py`` this compiles an object with
``xlapy.aot`` (``threads=1``), links the generated C driver and times ``NAME_run`` in
that C process (best of ``--iterations`` calls, CLOCK_MONOTONIC, no Python in the
process); and times the JIT's executable on the same arguments from Python (best of
as many calls), the three sides interleaved over ``--rounds`` rounds, once with scipy's BLAS (the JIT's default) and once with xlapy's loop
GEMM (``gemm="xlapy"``: the object's own code). The process is pinned to one core and
OpenBLAS to one thread before anything is imported, so every side is single-threaded.

    python benchmarks/aot.py [--scale 1] [--iterations 20] [--rounds 3] [--filter NAME,...]

The JIT column includes the Python call (a few microseconds), the object's does not:
the latency workloads show that difference rather than the code's.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
if hasattr(os, "sched_setaffinity"):
    os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

import argparse  # noqa: E402
import pathlib  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from benchmarks import workloads  # noqa: E402
from xlapy.aot import compile as aot_compile  # noqa: E402
from xlapy.aot.driver import build_driver, run_driver  # noqa: E402
from xlapy.backends.cpu.compiler import CpuBackend  # noqa: E402
from xlapy.backends.cpu.runtime.executable import CpuOptions  # noqa: E402
from xlapy.errors import XlaError  # noqa: E402


def _jit_best(executable, inputs, iterations: int) -> float:  # noqa: ANN001
    arguments = list(inputs)
    executable.call_numpy(arguments)
    best = float("inf")
    for _ in range(iterations):
        start = time.perf_counter()
        executable.call_numpy(arguments)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1, help="workload scale (1: the issue's)")
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (best of all)")
    parser.add_argument("--filter", help="comma-separated workload names")
    args = parser.parse_args(argv)
    names = args.filter.split(",") if args.filter else list(workloads.WORKLOADS)
    print(f"{'workload':<14} {'jit blas':>10} {'jit loops':>10} {'aot':>10} "
          f"{'aot/jit':>8} {'aot/loops':>9}  object")  # fmt: skip
    for name in names:
        w = workloads.WORKLOADS[name](args.scale)
        module = w.build().hlo_module
        directory = tempfile.mkdtemp(prefix=f"aot_{name}_")
        try:
            result = aot_compile(module, name, outdir=directory)
        except XlaError as e:
            print(f"{name:<14} refused: {e}")
            continue
        binary = build_driver(result, directory)
        jits = [CpuBackend().compile(module, CpuOptions(gemm=g)) for g in ("openblas", "xlapy")]
        aot = blas = loops = float("inf")
        for _ in range(args.rounds):  # interleaved, so that load from elsewhere hits all sides
            _, best_ns = run_driver(result, binary, list(w.inputs), args.iterations)
            aot = min(aot, best_ns * 1e-9)
            blas = min(blas, _jit_best(jits[0], w.inputs, args.iterations))
            loops = min(loops, _jit_best(jits[1], w.inputs, args.iterations))
        sizes = result.sizes
        print(
            f"{name:<14} {blas * 1e6:>8.1f}us {loops * 1e6:>8.1f}us {aot * 1e6:>8.1f}us "
            f"{aot / blas:>8.2f} {aot / loops:>9.2f}  {sizes['code']} B code, "
            f"{sizes['rodata']} B rodata"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
