"""``python -m benchmarks.sweep``: how each engine's cost grows with the size of the work.

One size says little about where an engine wins: fixed costs (a call, a thread pool
waking up, a compile-time choice of algorithm) dominate small sizes, caches the middle
ones and the machine's limits the big ones. This sweeps four workloads over sizes for
xlapy, JAX and numpy, the engines taking turns at each size, and plots per workload the
time per call and the fraction of the machine's limit reached (bandwidth for the
elementwise and softmax sweeps, f32 peak for matmul and conv2d) against size, log-log,
into ``benchmarks/scaling_<workload>.png``.

``make bench`` runs it after the tables (``benchmarks.run``) and links the plots from
RESULTS.md; alone it measures the machine's limits itself. Large sizes take fewer
samples, so the whole sweep stays within a couple of minutes. matplotlib (the ``bench``
extra) draws the plots; without it the numbers are still measured and written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import machine, workloads
from .report import apply_limits
from .timing import Schedule, error_entry, jax_available, prepare_engines, time_interleaved
from .workloads import Workload

HERE = Path(__file__).resolve().parent
ENGINES = ("numpy", "xlapy", "jax")
FULL = Schedule(budget=0.15, rounds=3, settle=0.1, min_samples=3)
QUICK = Schedule(budget=0.005, rounds=1, settle=0.0, min_samples=2)
QUICK_SCALE = 64  # conv2d's images shrink by its square root in quick sweeps


@dataclass(frozen=True)
class Sweep:
    """One workload over sizes: ``make(size, scale)`` builds it at ``size``."""

    make: Callable[[int, int], Workload]
    sizes: tuple[int, ...]
    quick_sizes: tuple[int, ...]
    axis: str  # what ``size`` counts, for the plot's x axis


SWEEPS: dict[str, Sweep] = {
    "axpy": Sweep(
        lambda size, scale: workloads.axpy(n=size),
        tuple(1 << k for k in range(10, 27, 2)),  # 1K .. 64M elements
        (1 << 10, 1 << 13),
        "elements",
    ),
    "matmul": Sweep(
        lambda size, scale: workloads.matmul(n=size),
        tuple(1 << k for k in range(5, 12)),  # 32 .. 2048
        (32, 64),
        "n (n x n times n x n)",
    ),
    "softmax": Sweep(
        lambda size, scale: workloads.softmax(rows=size),
        tuple(1 << k for k in range(0, 17, 2)),  # 1 .. 64K rows of 1024
        (1, 8),
        "rows of 1024",
    ),
    "conv2d": Sweep(
        lambda size, scale: workloads.conv2d(scale, batch=size),
        tuple(1 << k for k in range(6)),  # batch 1 .. 32 of 64x64x32 images
        (1, 2),
        "batch",
    ),
}


def measure_point(
    w: Workload, client: Any, client_error: str | None, use_jax: bool, schedule: Schedule
) -> dict:
    """Every engine at one size: compile, check, time; with achieved fractions filled in
    later by :func:`apply_limits`."""
    point: dict[str, Any] = {
        "bound": w.bound,
        "bytes_moved": w.bytes_moved,
        "bytes_written": w.bytes_written,
        "flops": w.flops,
    }
    entries, calls = prepare_engines(w, client, client_error, use_jax, ENGINES)
    point.update(entries)
    try:
        for name, timing in time_interleaved(calls, schedule).items():
            point[name].update(timing)
    except Exception as e:  # noqa: BLE001  (a gap in the plot, not a lost sweep)
        for name in calls:
            point[name] = error_entry(e)
    return point


def run_sweeps(
    client: Any,
    client_error: str | None,
    use_jax: bool,
    limits: dict,
    info: dict,
    quick: bool = False,
    names: list[str] | None = None,
    out_dir: Path = HERE,
) -> dict:
    """Sweep ``names`` (default all), write one plot per workload into ``out_dir``."""
    schedule = QUICK if quick else FULL
    scale = QUICK_SCALE if quick else 1
    started = time.perf_counter()
    result: dict[str, Any] = {"quick": quick, "limits": limits, "workloads": {}}
    for name in names or list(SWEEPS):
        sweep = SWEEPS[name]
        points = []
        for size in sweep.quick_sizes if quick else sweep.sizes:
            print(f"sweep {name} {size} ...", file=sys.stderr, flush=True)
            w = sweep.make(size, scale)
            point = measure_point(w, client, client_error, use_jax, schedule)
            apply_limits(point, limits)
            point["size"] = size
            point["description"] = w.description
            points.append(point)
            del w  # the inputs of the biggest sizes are hundreds of MB
        entry = {"axis": sweep.axis, "points": points, "description": _describe(name, points)}
        try:
            entry["plot"] = str(plot(name, entry, info, limits, out_dir))
        except ImportError as e:
            entry["plot_error"] = f"matplotlib is not installed ({e}): pip install -e '.[bench]'"
        result["workloads"][name] = entry
    result["seconds"] = time.perf_counter() - started
    return result


def _describe(name: str, points: list[dict]) -> str:
    if not points:
        return name
    return f"{points[0]['description']} .. {points[-1]['description']}"


def _series(points: list[dict], engine: str, key: str) -> tuple[list[int], list[float]]:
    pairs = [(p["size"], (p.get(engine) or {}).get(key)) for p in points]
    kept = [(s, v) for s, v in pairs if v]
    return [s for s, _ in kept], [v for _, v in kept]


def _size_label(size: int) -> str:
    """1024 -> 1K, 67108864 -> 64M: powers of two read at a glance."""
    for shift, suffix in ((30, "G"), (20, "M"), (10, "K")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift}{suffix}"
    return str(size)


def plot(name: str, entry: dict, info: dict, limits: dict, out_dir: Path) -> Path:
    """``scaling_<name>.png``: time per call and fraction of the limit against size,
    log-log, one line per engine."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    points = entry["points"]
    unit = next((p["limit_unit"] for p in points if "limit_unit" in p), None)
    roof = "bandwidth" if unit == "GB/s" else f"{limits.get('isa', '')} f32 peak"
    figure, (times, fractions) = plt.subplots(1, 2, figsize=(12, 4.6))
    for engine in ENGINES:
        xs, ys = _series(points, engine, "seconds")
        if xs:
            times.plot(xs, [y * 1e3 for y in ys], marker="o", label=engine)
        xs, ys = _series(points, engine, "fraction_of_limit")
        if xs:
            fractions.plot(xs, ys, marker="o", label=engine)
    sizes = [p["size"] for p in points]
    times.set(xscale="log", yscale="log", xlabel=entry["axis"], ylabel="ms per call")
    times.set_title("time per call")
    fractions.set(xscale="log", yscale="log", xlabel=entry["axis"], ylabel="fraction of limit")
    fractions.axhline(1.0, color="grey", linestyle="--", linewidth=1, label=f"machine {roof}")
    fractions.set_title(f"achieved / measured {roof}")
    plain = matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}")
    for axes in (times, fractions):
        axes.set_xticks(sizes, [_size_label(s) for s in sizes])
        axes.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        axes.yaxis.set_major_formatter(plain)
        axes.grid(True, which="both", alpha=0.3)
        axes.legend()
    figure.suptitle(f"{name} scaling on {info.get('cpu', '?')}, {info.get('cores', '?')} cores")
    figure.tight_layout()
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"scaling_{name}.png"
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.sweep", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--platform", default="cpu", help="xlapy platform (default: cpu)")
    parser.add_argument("--quick", action="store_true", help="two tiny sizes per workload")
    parser.add_argument("--filter", default="", help=f"comma-separated of {', '.join(SWEEPS)}")
    parser.add_argument("--out-dir", default=str(HERE), help="where the PNGs go")
    parser.add_argument("--json", default=None, help="also write the data as JSON here")
    args = parser.parse_args(argv)
    args.names = [n for n in args.filter.split(",") if n] or list(SWEEPS)
    unknown = [n for n in args.names if n not in SWEEPS]
    if unknown:
        parser.error(f"unknown sweep(s) {', '.join(unknown)}; known: {', '.join(SWEEPS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    from .run import make_client  # the client's warm-up lives with the main run

    args = parse_args(argv)
    info = machine.description()
    limits = machine.measure(quick=args.quick)
    client, client_error = make_client(args.platform)
    result = run_sweeps(
        client, client_error, jax_available(), limits, info, args.quick, args.names,
        Path(args.out_dir),
    )  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    for name, entry in result["workloads"].items():
        print(f"{name}: {entry.get('plot') or entry.get('plot_error')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
