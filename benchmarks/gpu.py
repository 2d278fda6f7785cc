"""``python -m benchmarks.gpu``: xlapy's GPU back-end against JAX's, in one run, on one GPU.

Each workload is compiled by both, given the same inputs already on the device, checked
against each other, then timed in ``ROUNDS`` rounds where the engines take turns; each
timing queues ``reps`` calls and waits once, so the host's per-call cost hides behind the
device's work as it does in a real program. Bytes moved over time reads against the
device-to-device copy bandwidth measured in the same run (the practical ceiling of HBM);
FLOP/s for the matrix product. JAX's f32 matrix products run at HIGHEST precision, as
xlapy's (plain f32, no TF32). Writes markdown and JSON when asked.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import xlapy
from xlapy import XlaBuilder, computations, ops

F32 = xlapy.PrimitiveType.F32
ROUNDS = 5


@dataclass
class GpuWorkload:
    name: str
    build: Callable[[], Any]
    inputs: tuple[np.ndarray, ...]
    jax_fn: Callable[..., Any]
    bytes_moved: int
    flops: int
    description: str
    rtol: float = 2e-5
    atol: float = 2e-5


def _param(b: XlaBuilder, k: int, dims: list[int]) -> Any:
    return ops.Parameter(b, k, xlapy.Shape.array(F32, dims), f"p{k}")


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


def ew_chain(n: int) -> GpuWorkload:
    x = _rng().standard_normal(n, dtype=np.float32)

    def build() -> Any:
        b = XlaBuilder("ew_chain")
        xp = _param(b, 0, [n])
        return b.build(ops.Tanh(0.7 * xp - 0.2) * ops.Exp(-(xp * xp)) + 1.0)

    def jax_fn(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.tanh(0.7 * x - 0.2) * jnp.exp(-(x * x)) + 1.0

    return GpuWorkload(
        "ew_chain", build, (x,), jax_fn, 8 * n, 8 * n, f"tanh(0.7x-0.2)*exp(-x*x)+1, f32[{n}]"
    )


def axpy(n: int) -> GpuWorkload:
    rng = _rng()
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)

    def build() -> Any:
        b = XlaBuilder("axpy")
        return b.build(1.5 * _param(b, 0, [n]) + _param(b, 1, [n]))

    return GpuWorkload(
        "axpy", build, (x, y), lambda x, y: 1.5 * x + y, 12 * n, 2 * n, f"1.5x+y, f32[{n}]"
    )


def _reduce_workload(name: str, rows: int, cols: int, dims: list[int]) -> GpuWorkload:
    x = _rng().standard_normal((rows, cols), dtype=np.float32)

    def build() -> Any:
        b = XlaBuilder(name)
        zero = ops.ConstantR0(b, 0.0, F32)
        return b.build(ops.Reduce(_param(b, 0, [rows, cols]), zero, computations.add(F32), dims))

    def jax_fn(x: Any) -> Any:
        return x.sum(axis=tuple(dims))

    out = rows * cols
    for d in dims:
        out //= (rows, cols)[d]
    return GpuWorkload(
        name, build, (x,), jax_fn, 4 * rows * cols + 4 * out, rows * cols,
        f"sum over {dims} of f32[{rows},{cols}]", rtol=1e-4, atol=1e-2,
    )  # fmt: skip


def softmax(rows: int, cols: int) -> GpuWorkload:
    x = _rng().standard_normal((rows, cols), dtype=np.float32)

    def build() -> Any:
        b = XlaBuilder("softmax")
        xp = _param(b, 0, [rows, cols])
        m = ops.Reduce(xp, ops.ConstantR0(b, -np.inf, F32), computations.max(F32), [1])
        e = ops.Exp(xp - ops.BroadcastInDim(m, [rows, cols], [0]))
        s = ops.Reduce(e, ops.ConstantR0(b, 0.0, F32), computations.add(F32), [1])
        return b.build(e / ops.BroadcastInDim(s, [rows, cols], [0]))

    def jax_fn(x: Any) -> Any:
        import jax

        return jax.nn.softmax(x, axis=1)

    return GpuWorkload(
        "softmax",
        build,
        (x,),
        jax_fn,
        8 * rows * cols,
        5 * rows * cols,
        f"softmax rows of f32[{rows},{cols}]",
        rtol=1e-4,
        atol=1e-6,
    )


def matmul(n: int) -> GpuWorkload:
    rng = _rng()
    a = rng.standard_normal((n, n), dtype=np.float32)
    c = rng.standard_normal((n, n), dtype=np.float32)

    def build() -> Any:
        b = XlaBuilder("matmul")
        return b.build(ops.Dot(_param(b, 0, [n, n]), _param(b, 1, [n, n])))

    def jax_fn(a: Any, c: Any) -> Any:
        import jax

        return jax.numpy.matmul(a, c, precision=jax.lax.Precision.HIGHEST)

    return GpuWorkload(
        "matmul",
        build,
        (a, c),
        jax_fn,
        12 * n * n,
        2 * n**3,
        f"f32[{n},{n}] x f32[{n},{n}]",
        rtol=1e-3,
        atol=1e-2,
    )


def workloads(scale: int) -> list[GpuWorkload]:
    n = (256 << 20) // scale
    side = 16384 // int(scale**0.5)
    return [
        ew_chain(n),
        axpy(n),
        _reduce_workload("row_sums", side, side, [1]),
        _reduce_workload("col_sums", side, side, [0]),
        _reduce_workload("full_sum", side, side, [0, 1]),
        softmax(side // 2, side // 2),
        matmul(8192 // int(scale**0.5)),
    ]


def _time(run: Callable[[], Any], sync: Callable[[], Any], reps: int) -> float:
    sync()
    start = time.perf_counter()
    for _ in range(reps):
        run()
    sync()
    return (time.perf_counter() - start) / reps


def _measure(w: GpuWorkload, client: Any, reps: int, row: dict, jax: Any) -> Any:
    """Fill ``row`` with compile times, agreement and the median times; returns the device."""
    start = time.perf_counter()
    exe = client.compile(w.build())._executable
    row["xlapy_compile_s"] = time.perf_counter() - start
    device = exe.device
    buffers = [device.to_device(np.ascontiguousarray(x).reshape(-1)) for x in w.inputs]
    jitted = jax.jit(w.jax_fn)
    jax_inputs = [jax.device_put(x) for x in w.inputs]
    start = time.perf_counter()
    want = np.asarray(jitted(*jax_inputs))
    row["jax_compile_s"] = time.perf_counter() - start
    (out,) = exe.execute_buffers(buffers)
    got = device.to_host(out, want.dtype, want.shape)
    row["max_abs_diff"] = float(np.max(np.abs(got - want))) if want.size else 0.0
    row["agrees"] = bool(np.allclose(got, want, rtol=w.rtol, atol=w.atol))

    def run_jax() -> None:
        last = None
        for _ in range(reps):
            last = jitted(*jax_inputs)
        jax.block_until_ready(last)

    xl, jx = [], []
    for _ in range(ROUNDS):
        xl.append(_time(lambda: exe.execute_buffers(buffers), device.synchronize, reps))
        start = time.perf_counter()
        run_jax()
        jx.append((time.perf_counter() - start) / reps)
    row["xlapy_ms"] = 1e3 * statistics.median(xl)
    row["jax_ms"] = 1e3 * statistics.median(jx)
    row["bytes"] = w.bytes_moved
    row["flops"] = w.flops
    return device


def copy_bandwidth(device: Any, nbytes: int = 1 << 30) -> float:
    """Bytes per second of a device-to-device copy, counting bytes read and written."""
    a, b = device.allocate(nbytes), device.allocate(nbytes)
    device.copy(b, a, nbytes)
    seconds = min(
        _time(lambda: device.copy(b, a, nbytes), device.synchronize, 20) for _ in range(3)
    )
    return 2 * nbytes / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=int, default=1, help="divide the sizes by this")
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--filter", default="", help="comma-separated workload names")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    args = parser.parse_args(argv)
    import jax  # noqa: PLC0415  (the GPU benchmark needs JAX's GPU backend)

    client = xlapy.local_client("gpu")
    rows = []
    device = None
    chosen = [
        w for w in workloads(args.scale) if not args.filter or w.name in args.filter.split(",")
    ]
    for w in chosen:
        row: dict[str, Any] = {"name": w.name, "description": w.description}
        try:
            device = _measure(w, client, args.reps, row, jax)
        except Exception as e:  # noqa: BLE001  (a failing workload is a row of the report)
            row["error"] = f"{type(e).__name__}: {e}"[:400]
        rows.append(row)
        print(json.dumps(row), flush=True)
    bandwidth = copy_bandwidth(device) if device is not None else float("nan")
    report = {
        "device": getattr(device, "name", "?"),
        "copy_bandwidth_GBps": bandwidth / 1e9,
        "rows": rows,
    }
    lines = [
        f"GPU: {report['device']}; device-to-device copy {bandwidth / 1e9:.0f} GB/s (read+write)",
        "",
        "| workload | xlapy ms | JAX ms | JAX/xlapy | xlapy % of copy BW | JAX % of copy BW | xlapy TFLOP/s | agrees |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['name']} | error: {r['error']} | | | | | | |")
            continue
        xs, js = r["xlapy_ms"] / 1e3, r["jax_ms"] / 1e3
        lines.append(
            f"| {r['name']} | {r['xlapy_ms']:.3f} | {r['jax_ms']:.3f} | {js / xs:.2f} | "
            f"{100 * r['bytes'] / xs / bandwidth:.0f}% | {100 * r['bytes'] / js / bandwidth:.0f}% | "
            f"{r['flops'] / xs / 1e12:.2f} | {r['agrees']} (max diff {r['max_abs_diff']:.2g}) |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
