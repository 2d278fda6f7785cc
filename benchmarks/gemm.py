"""xlapy's own GEMM against OpenBLAS (scipy's) and JAX's XLA:CPU, engines taking turns.

Usage: ``python benchmarks/gemm.py [--sizes 256,512,1024] [--shapes 1x1024x1024,...]
[--workloads matmul,mlp,conv2d] [--types f32,c64] [--target x86-64-v3] [--rounds 5]``.
``--shapes`` adds row-major ``[M, K] x [K, N]`` products given as ``MxKxN``: by default
the skinny ones (a batch-1 layer, a matrix times a vector, an output layer of 10). Pin the process with ``taskset -c 0`` (one thread) or
``taskset -c 0,1`` (two): xlapy's pool and OpenBLAS both use the cores the process may run
on. ``--target`` forces the code path of another ISA (x86-64-v3: the AVX2 kernels; JAX is
left on the host's). Each engine runs every case in turn, round after round, and the best
time of all rounds is reported, with GFLOP/s and the ratios xlapy/OpenBLAS and xlapy/JAX.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time
from collections.abc import Callable

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import xlapy  # noqa: E402
from benchmarks import workloads  # noqa: E402
from xlapy import ops  # noqa: E402
from xlapy.backends.cpu.compiler import CpuBackend  # noqa: E402
from xlapy.backends.cpu.runtime.executable import CpuOptions  # noqa: E402
from xlapy.builder import XlaBuilder  # noqa: E402

_TYPES = {"f32": (xlapy.F32, np.float32), "c64": (xlapy.C64, np.complex64)}


def _matmul_case(
    m: int, k: int, n: int, type_name: str = "f32"
) -> tuple[str, object, tuple, Callable, int]:
    """An [m, k] x [k, n] product; its FLOPs are real ones (a complex multiply-add is 8)."""
    et, dtype = _TYPES[type_name]
    rng = np.random.default_rng(0)

    def operand(rows: int, cols: int) -> np.ndarray:
        x = rng.standard_normal((rows, cols))
        if np.issubdtype(dtype, np.complexfloating):
            x = x + 1j * rng.standard_normal((rows, cols))
        return x.astype(dtype)

    a, b = operand(m, k), operand(k, n)
    builder = XlaBuilder(f"matmul{m}x{k}x{n}_{type_name}")
    x = ops.Parameter(builder, 0, xlapy.Shape.array(et, [m, k]), "a")
    y = ops.Parameter(builder, 1, xlapy.Shape.array(et, [k, n]), "b")
    computation = builder.build(ops.Dot(x, y))
    flops = (8 if et.is_complex else 2) * m * k * n
    suffix = "" if type_name == "f32" else f" {type_name}"
    size = f"{n}^3" if m == k == n else f"{m}x{k}x{n}"
    return f"matmul {size}{suffix}", computation, (a, b), lambda a, b: a @ b, flops


def _workload_case(name: str) -> tuple[str, object, tuple[np.ndarray, ...], Callable, int]:
    w = workloads.WORKLOADS[name]()
    return name, w.build(), w.inputs, w.jax_fn, w.flops


def _best(run: Callable[[], object], iterations: int) -> float:
    run()
    best = float("inf")
    for _ in range(iterations):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="64,128,256,512,1024")
    parser.add_argument(
        "--shapes", default="1x1024x1024,8x1024x1024,256x1024x1,256x1024x10,4096x1024x16"
    )
    parser.add_argument("--workloads", default="matmul,mlp,conv2d")
    parser.add_argument("--types", default="f32", help="matmul element types: f32,c64")
    parser.add_argument("--target", default=None, help="CpuOptions.target_cpu for xlapy")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument(
        "--engines", default="xlapy,openblas,jax", help="a subset of xlapy,openblas,jax"
    )
    args = parser.parse_args(argv)
    types = [t for t in args.types.split(",") if t]
    cases = [
        _matmul_case(int(s), int(s), int(s), t) for t in types for s in args.sizes.split(",") if s
    ]
    shapes = [[int(d) for d in s.split("x")] for s in args.shapes.split(",") if s]
    cases += [_matmul_case(*shape, t) for t in types for shape in shapes]
    cases += [_workload_case(w) for w in args.workloads.split(",") if w and w != "matmul"]
    backend = CpuBackend()
    engines: dict[str, Callable[[object, tuple], Callable[[], object]]] = {}
    chosen = args.engines.split(",")
    for gemm in (g for g in ("xlapy", "openblas") if g in chosen):

        def make(computation: object, inputs: tuple, gemm: str = gemm) -> Callable[[], object]:
            options = CpuOptions(gemm=gemm, target_cpu=args.target)
            executable = backend.compile(computation.hlo_module, options)
            arguments = list(inputs)
            return lambda: executable.call_numpy(arguments)

        engines[gemm] = make
    if "jax" in chosen:
        import jax  # noqa: PLC0415  (optional)

        def make_jax(computation: object, inputs: tuple, fn: Callable = None) -> Callable:
            compiled = jax.jit(fn)
            device = [jax.device_put(x) for x in inputs]
            return lambda: compiled(*device).block_until_ready()

        engines["jax"] = make_jax
    runners = {}
    for label, computation, inputs, jax_fn, _ in cases:
        for engine, make in engines.items():
            if engine == "jax":
                runners[label, engine] = make(computation, inputs, jax_fn)
            else:
                runners[label, engine] = make(computation, inputs)
    best = {key: float("inf") for key in runners}
    for _ in range(args.rounds):
        for key, run in runners.items():
            best[key] = min(best[key], _best(run, args.iterations))
    names = list(engines)
    print(f"target={args.target or 'host'}")
    header = f"{'case':<22}" + "".join(f"{n + ' GF/s':>14}" for n in names)
    ratios = [other for other in ("openblas", "jax") if other in names and "xlapy" in names]
    print(header + "".join(f"{'xlapy/' + other[:5]:>12}" for other in ratios))
    for label, _, _, _, flops in cases:
        row = f"{label:<22}" + "".join(f"{flops / best[label, n] / 1e9:>14.1f}" for n in names)
        row += "".join(f"{best[label, 'xlapy'] / best[label, o]:>12.2f}" for o in ratios)
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
