"""``python -m benchmarks.run``: every workload on xlapy, numpy and JAX, in one run.

For each workload and engine: build and compile once (compile time recorded),
compute once and compare with numpy's result (a mismatch is printed and put
in the table, never hidden), warm up, then time repeated calls and keep the
median. The engines take turns, in ``ROUNDS`` rounds, so that a machine whose
speed drifts over seconds (a shared VM) slows all of them alike instead of
whichever happened to run then; the ratios are what moves least. The number of
calls adapts so that each engine spends about half a second per workload
(``--repeats`` fixes it instead). JAX gets device arrays
made once, so host-to-device transfers are not timed; xlapy gets numpy arrays,
its native input, and returns numpy arrays. The machine's bandwidth and peak
FLOP/s are measured in the same run so that times read as fractions of what
this machine can do. Writes a markdown report and the same data as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import xlapy
from xlapy.tools.progress import Progress
from xlapy.tools.tables import aligned_table

from . import machine
from .workloads import WORKLOADS, Workload

HERE = Path(__file__).resolve().parent
QUICK_SCALE = 64
BUDGET_SECONDS = 0.5  # per engine and workload: ~1.5 s per workload over three engines
# Before each engine's timing: long enough for the previous engine's worker threads to go
# to sleep (OpenBLAS's and Eigen's spin on the cores for a while after a call), so that
# no engine is timed while another's idle threads compete for the two cores.
SETTLE_SECONDS = 0.2
ROUNDS = 5
QUICK_BUDGET_SECONDS = 0.03


# -- timing ------------------------------------------------------------------------------------


def time_interleaved(
    fns: dict[str, Callable[[], object]], budget: float, repeats: int | None = None
) -> dict[str, dict]:
    """Median seconds of each ``fn()`` after two warm-up calls, timed in ``ROUNDS``
    rounds in which every engine takes a turn.

    Calls shorter than 100 us are timed in batches (the median of batch
    averages), so that the timer's own cost does not count. Without
    ``repeats``, as many samples as fit in ``budget`` (at least 5) per engine.
    Each turn starts after ``SETTLE_SECONDS`` without running anything: the
    BLAS and Eigen threads of the engine before spin on the cores for a while
    after their last call.
    """
    plans = {}
    for name, fn in fns.items():
        fn()
        start = time.perf_counter()
        fn()
        once = max(time.perf_counter() - start, 1e-8)
        batch = max(1, min(1000, int(1e-4 / once))) if once < 1e-4 else 1
        count = repeats or int(min(max(budget / (once * batch), 5), 10_000))
        plans[name] = (fn, batch, count)
    rounds = min(ROUNDS, min((count for _, _, count in plans.values()), default=1))
    samples: dict[str, list[float]] = {name: [] for name in fns}
    for r in range(rounds):
        for name, (fn, batch, count) in plans.items():
            time.sleep(SETTLE_SECONDS)
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


# -- agreement ---------------------------------------------------------------------------------


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


# -- engines -----------------------------------------------------------------------------------


def _error(e: BaseException) -> dict:
    traceback.print_exc()
    return {"error": f"{type(e).__name__}: {e}".splitlines()[0][:200]}


def run_xlapy(w: Workload, client: Any, expected: Any) -> tuple[dict, Callable[[], object]]:
    """Build with the builder, compile (timed), check; the call to time, on numpy inputs."""
    start = time.perf_counter()
    computation = w.build()
    built = time.perf_counter() - start
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


def run_numpy(w: Workload) -> tuple[dict, Callable[[], object]]:
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


def run_jax(w: Workload, expected: Any) -> tuple[dict, Callable[[], object]]:
    """jit, lower and compile (timed), check; the call to time, on device arrays made
    once."""
    import jax
    import jax.numpy as jnp

    args = [jnp.asarray(a) for a in w.inputs]
    jax.block_until_ready(args)
    start = time.perf_counter()
    compiled = jax.jit(w.jax_fn).lower(*args).compile()
    compile_seconds = time.perf_counter() - start
    result = {
        "compile_seconds": compile_seconds,
        "check": compare(np.asarray(compiled(*args)), expected, w.rtol, w.atol),
    }
    return result, lambda: compiled(*args).block_until_ready()


# -- one workload ------------------------------------------------------------------------------


def limit_for(row: dict, limits: dict) -> tuple[str, float] | None:
    """The machine limit a workload is read against: ("GB/s", bandwidth) or ("GFLOP/s", peak).

    Workloads that (almost) only read are compared with the read bandwidth,
    the others with the best of copy and triad: reading alone goes faster than
    copying, so a reduction at the machine's read speed shows as 100%.
    """
    if row["bound"] == "memory":
        if row["bytes_written"] * 100 < row["bytes_moved"]:
            return "GB/s", limits["read_gbs"]
        return "GB/s", limits["bandwidth_gbs"]
    if row["bound"] == "compute":
        return "GFLOP/s", limits["peak_gflops"]
    return None


def apply_limits(row: dict, limits: dict) -> None:
    """Achieved GB/s or GFLOP/s of every engine, and its fraction of the machine's limit."""
    limit = limit_for(row, limits)
    if limit is None:
        return
    unit, value = limit
    row["limit_unit"], row["limit"] = unit, value
    work = row["bytes_moved"] if unit == "GB/s" else row["flops"]
    for engine in ("xlapy", "numpy", "jax"):
        result = row.get(engine) or {}
        if "seconds" in result:
            result["achieved"] = work / result["seconds"] / 1e9
            result["fraction_of_limit"] = result["achieved"] / value


def best_limits(*runs: dict[str, float]) -> dict[str, float]:
    """The best of each limit over several measurements.

    Other processes only ever make a measurement lower, so the highest value
    seen is the closest to what the machine can do.
    """
    return {key: max(run[key] for run in runs) for key in runs[0]}


def measure_workload(
    w: Workload,
    client: Any,
    client_error: str | None,
    use_jax: bool,
    budget: float,
    repeats: int | None,
) -> dict:
    """Every engine on ``w``; a failing engine is recorded, not fatal."""
    row: dict[str, Any] = {
        "workload": w.name,
        "description": w.description,
        "bound": w.bound,
        "bytes_moved": w.bytes_moved,
        "bytes_written": w.bytes_written,
        "flops": w.flops,
    }
    expected = w.numpy_fn(*w.inputs)
    calls: dict[str, Callable[[], object]] = {}
    engines: list[tuple[str, Callable[[], tuple[dict, Callable[[], object]]]]] = [
        ("numpy", lambda: run_numpy(w))
    ]
    if client is None:
        row["xlapy"] = {"error": client_error}
    else:
        engines.append(("xlapy", lambda: run_xlapy(w, client, expected)))
    if use_jax:
        engines.append(("jax", lambda: run_jax(w, expected)))
    for name, prepare in engines:
        try:
            row[name], calls[name] = prepare()
        except Exception as e:  # noqa: BLE001  (reported in the table)
            row[name] = _error(e)
    try:
        for name, timing in time_interleaved(calls, budget, repeats).items():
            row[name].update(timing)
    except Exception as e:  # noqa: BLE001
        for name in calls:
            row[name] = _error(e)
    x, n, j = (row.get(k) or {} for k in ("xlapy", "numpy", "jax"))
    if "seconds" in x and "seconds" in j:
        row["ratio_jax"] = x["seconds"] / j["seconds"]
    if "seconds" in x and "seconds" in n:
        row["ratio_numpy"] = x["seconds"] / n["seconds"]
    row["agree"] = _agreement(row)
    return row


def _agreement(row: dict) -> str:
    """One word for the table: ok, or which engine disagrees with numpy (loudly)."""
    problems = []
    for engine in ("xlapy", "jax"):
        check = (row.get(engine) or {}).get("check")
        if check is not None and check != "ok":
            problems.append(f"{engine} {check}")
    return "; ".join(problems) if problems else "ok"


# -- report ------------------------------------------------------------------------------------


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.4f}" if ms < 0.01 else f"{ms:.3f}" if ms < 10 else f"{ms:.1f}"


def _ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def _percent(result: dict) -> str:
    return _pct(result.get("fraction_of_limit"))


def _time_cell(result: dict) -> str:
    if "seconds" in result:
        return _ms(result["seconds"])
    return "error" if "error" in result else "-"


def _geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _within(value: float | None, bound: float, below: bool = True) -> bool | None:
    """``value <= bound`` (or ``>=``), or None when there is no value to judge."""
    if value is None:
        return None
    return value <= bound if below else value >= bound


def _pct(fraction: float | None) -> str:
    return "-" if fraction is None else f"{fraction * 100:.0f}%"


def targets(rows: list[dict]) -> list[dict]:
    """The issue's targets, each with pass/fail/None (no data) and the number behind it.

    Read by people, never asserted: a target that fails is news about the
    backend, not a broken harness.
    """
    by = {r["workload"]: r for r in rows}
    ratios = {r["workload"]: r["ratio_jax"] for r in rows if "ratio_jax" in r}
    missing = [r["workload"] for r in rows if "ratio_jax" not in r]

    def xlapy(name: str, key: str) -> float | None:
        return ((by.get(name) or {}).get("xlapy") or {}).get(key)

    out: list[dict] = []

    def add(target: str, passed: bool | None, detail: str) -> None:
        out.append({"target": target, "passed": passed, "detail": detail})

    worst = max(ratios, key=ratios.__getitem__) if ratios else None
    detail = f"worst: {worst} {ratios[worst]:.2f}" if worst else "no ratios"
    if missing:
        detail += f"; no ratio for {', '.join(missing)}"
    passed = _within(ratios.get(worst) if worst else None, 1.0)
    add("every workload no slower than JAX (xlapy/jax <= 1.0)", passed and not missing, detail)
    ew = (by.get("ew_chain") or {}).get("ratio_jax")
    add("ew_chain at least 2x faster than JAX (xlapy/jax <= 0.5)", _within(ew, 0.5), _ratio(ew))
    geomean = _geomean(list(ratios.values()))
    add(
        "geometric mean of xlapy/jax <= 0.8",
        _within(geomean, 0.8),
        f"{_ratio(geomean)} over {len(ratios)} workloads",
    )
    fused = {k: xlapy(k, "fraction_of_limit") for k in ("ew_chain", "axpy") if k in by}
    lowest = None if None in fused.values() or not fused else min(fused.values())
    add(
        "fused elementwise (ew_chain, axpy) >= 70% of bandwidth",
        _within(lowest, 0.7, below=False),
        ", ".join(f"{k} {_pct(f)}" for k, f in fused.items()) or "-",
    )
    mm = xlapy("matmul", "fraction_of_limit")
    add("matmul >= 90% of peak", _within(mm, 0.9, below=False), _pct(mm))
    latency = xlapy("call_latency", "seconds")
    add(
        "call latency < 3 us",
        _within(latency, 3e-6),
        "-" if latency is None else f"{latency * 1e6:.2f} us",
    )
    bad = [r["workload"] for r in rows if r["agree"] != "ok"]
    add("every engine agrees with numpy", not bad, ", ".join(bad) or "all ok")
    return out


def summary(rows: list[dict]) -> dict:
    """Geometric mean of xlapy/jax, mismatches and the targets checklist."""
    ratios = [r["ratio_jax"] for r in rows if "ratio_jax" in r]
    return {
        "geomean_ratio_jax": _geomean(ratios),
        "workloads_with_ratio": len(ratios),
        "mismatches": [r["workload"] for r in rows if r["agree"] != "ok"],
        "targets": targets(rows),
    }


def markdown(report: dict) -> str:
    """RESULTS.md: how to read and reproduce, the machine, the table, the targets."""
    info, limits, rows = report["machine"], report["limits"], report["results"]
    platform, quick = report["platform"], report["quick"]
    loads = [x for x in (info.get("load_average"), info.get("load_average_after")) if x is not None]
    lines = [
        "# Benchmarks",
        "",
        "Reproduce with `make bench` (or `.venv/bin/python -m benchmarks.run [--platform cpu] "
        "[--quick] [--filter NAME,...] [--repeats N]`); the same data is in "
        "`benchmarks/results.json`. Workloads are defined once in `benchmarks/workloads.py` "
        "(xlapy builder, numpy and JAX versions over the same inputs, fixed seed).",
        "",
        "Columns: *ms* is the median wall time of one call after warm-up, the engines "
        "taking turns over five rounds (xlapy called with "
        "numpy arrays, returning numpy arrays; JAX `jit` on CPU with device arrays made once, "
        "`block_until_ready`; numpy as written). *x/jax* and *x/np* are xlapy's time over "
        "JAX's and numpy's: below 1 means xlapy is faster. *achieved* is xlapy's GB/s (bytes "
        "that must move / time) for memory-bound workloads or GFLOP/s for compute-bound ones; "
        "*% limit* is that as a fraction of this machine's measured read bandwidth (workloads "
        "that only read), STREAM copy/triad bandwidth (the others) or peak f32 FMA rate, for "
        "xlapy and, as the bar, for JAX; the limits are measured over arrays far larger than "
        "the caches, so more than 100% means the data partly stayed in cache between calls "
        "(the 64 MB inputs, split over the cores, can nearly fit their last-level caches). "
        "*compile ms* is `client.compile` for xlapy and `jit(...).lower(...).compile()` for "
        "JAX. *agree* compares xlapy's and JAX's results with numpy's (`np.isclose` with the "
        "workload's tolerances). *fallbacks* lists the ops the CPU backend ran through "
        "interpreter kernels.",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores; measured bandwidth "
        f"{limits['bandwidth_gbs']:.1f} GB/s (copy {limits['copy_gbs']:.1f}, triad "
        f"{limits['triad_gbs']:.1f}, read {limits['read_gbs']:.1f}), peak "
        f"{limits['peak_gflops']:.0f} GFLOP/s (f32 FMA, all cores), each the best of a "
        f"measurement before and one after the workloads; python {info['python']}, "
        f"numpy {info['numpy']}, jax {info['jax']}, llvmlite {info['llvmlite']}, "
        f"xlapy {info['xlapy']}; xlapy platform `{platform}`.",
    ]
    if loads and max(loads) >= 0.5:
        load_text = " before, ".join(f"{x:.2f}" for x in loads) + (
            " after" if len(loads) > 1 else ""
        )
        lines += [
            "",
            f"**Warning: the machine was busy (load average {load_text} the run, on "
            f"{info['cores']} cores): times are longer and noisier than on an idle machine.**",
        ]
    if quick:
        lines += [
            "",
            f"**Quick run (sizes / {QUICK_SCALE}, short timings): checks the harness; the "
            "numbers say nothing about speed.**",
        ]
    lines += [
        "",
        "| workload | xlapy ms | numpy ms | jax ms | x/jax | x/np | achieved "
        "| % limit (xlapy / jax) | compile ms (xlapy / jax) | agree | fallbacks |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        x, n, j = (r.get(k) or {} for k in ("xlapy", "numpy", "jax"))
        achieved = "-"
        if "achieved" in x:
            achieved = f"{x['achieved']:.1f} {r['limit_unit']}"
        limit = "-" if "limit" not in r else f"{_percent(x)} / {_percent(j)}"
        agree = r["agree"] if r["agree"] == "ok" else f"**{r['agree']}**"
        if "error" in x:
            agree += f"; xlapy **{x['error']}**"
        if "error" in j:
            agree += f"; jax **{j['error']}**"
        lines.append(
            f"| {r['workload']} | {_time_cell(x)} | {_time_cell(n)} | {_time_cell(j)} "
            f"| {_ratio(r.get('ratio_jax'))} | {_ratio(r.get('ratio_numpy'))} | {achieved} "
            f"| {limit} | {_ms(x.get('compile_seconds'))} / {_ms(j.get('compile_seconds'))} "
            f"| {agree} | {', '.join(x.get('fallback_ops', [])) or '-'} |"
        )
    s = report["summary"]
    lines += [
        "",
        f"Geometric mean of xlapy/jax: **{_ratio(s['geomean_ratio_jax'])}** over "
        f"{s['workloads_with_ratio']} workloads.",
        "",
        "Targets (read here, never asserted in tests):",
        "",
    ]
    for t in s["targets"]:
        mark = {True: "pass", False: "FAIL", None: "n/a"}[t["passed"]]
        lines.append(f"- [{'x' if t['passed'] else ' '}] {mark}: {t['target']} ({t['detail']})")
    lines += ["", "Workloads:", ""]
    lines += [f"- {r['workload']}: {r['description']}" for r in rows]
    return "\n".join(lines) + "\n"


def terminal_report(report: dict, markdown_path: str) -> str:
    """What ``make bench`` prints: the results as an aligned table (the markdown file
    holds the same numbers with the prose around them), the geometric mean and the
    targets."""
    header = (
        "workload", "xlapy ms", "numpy ms", "jax ms", "x/jax", "x/np", "achieved",
        "% limit x/jax", "compile ms x/jax", "agree",
    )  # fmt: skip
    body = []
    for r in report["results"]:
        x, n, j = (r.get(k) or {} for k in ("xlapy", "numpy", "jax"))
        achieved = f"{x['achieved']:.1f} {r['limit_unit']}" if "achieved" in x else "-"
        limit = "-" if "limit" not in r else f"{_percent(x)} / {_percent(j)}"
        agree = r["agree"] if r["agree"] == "ok" else r["agree"][:40]
        body.append((
            r["workload"], _time_cell(x), _time_cell(n), _time_cell(j),
            _ratio(r.get("ratio_jax")), _ratio(r.get("ratio_numpy")), achieved, limit,
            f"{_ms(x.get('compile_seconds'))} / {_ms(j.get('compile_seconds'))}", agree,
        ))  # fmt: skip
    s = report["summary"]
    lines = aligned_table(header, body)
    lines += [
        "",
        f"geometric mean of xlapy/jax: {_ratio(s['geomean_ratio_jax'])} over "
        f"{s['workloads_with_ratio']} workloads",
        "targets:",
    ]
    for t in s["targets"]:
        mark = {True: "pass", False: "FAIL", None: "n/a "}[t["passed"]]
        lines.append(f"  {mark}  {t['target']} ({t['detail']})")
    lines += ["", f"the full report (columns explained, machine, workloads): {markdown_path}"]
    return "\n".join(lines) + "\n"


# -- main --------------------------------------------------------------------------------------


def _client(platform: str) -> tuple[Any, str | None]:
    """The xlapy client, warmed up, or the reason there is none (e.g. a platform not built yet)."""
    try:
        client = xlapy.local_client(platform)
        # One-time set-up (LLVM, the native runtime) must not count as the first
        # workload's compile time.
        # (A program of its own: the CPU compiler caches by module text.)
        b = xlapy.XlaBuilder("warm_up")
        xlapy.ops.Neg(xlapy.ops.Parameter(b, 0, xlapy.Shape.parse("f32[3]"), "x"))
        client.compile(b.build())
        return client, None
    except Exception as e:  # noqa: BLE001  (numpy and JAX still run)
        message = f"{type(e).__name__}: {e}".splitlines()[0][:200]
        print(
            f"!! no xlapy client for platform {platform!r}: {message}\n"
            "!! (try --platform interpreter); numpy and JAX still run.",
            file=sys.stderr,
        )
        return None, message


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--platform", default="cpu", help="xlapy platform (default: cpu)")
    parser.add_argument(
        "--quick", action="store_true", help=f"sizes / {QUICK_SCALE} and short timings"
    )
    parser.add_argument("--filter", default="", help="comma-separated workload names")
    parser.add_argument("--repeats", type=int, default=None, help="timed samples per engine")
    parser.add_argument("--json", default=str(HERE / "results.json"), help="JSON output path")
    parser.add_argument("--markdown", default=str(HERE / "RESULTS.md"), help="markdown output path")
    args = parser.parse_args(argv)
    wanted = [n for n in args.filter.split(",") if n]
    unknown = [n for n in wanted if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    args.names = wanted or list(WORKLOADS)
    return args


def main(argv: list[str] | None = None) -> int:
    """Run, print and write the report; exit status 0 even when targets fail (they are news)."""
    args = parse_args(argv)
    scale = QUICK_SCALE if args.quick else 1
    budget = QUICK_BUDGET_SECONDS if args.quick else BUDGET_SECONDS
    info = machine.description()
    print(f"measuring this machine's limits ({info['cpu']}, {info['cores']} cores) ...", flush=True)
    limits_before = machine.measure(quick=args.quick)
    client, client_error = _client(args.platform)
    use_jax = jax_available()
    rows = []
    # Workloads done, their rate and the agreement tally on stderr (a bar on a terminal,
    # a line every few seconds in a log).
    with Progress(
        "bench", total=len(args.names), unit="workloads", statuses=("ok", "disagree")
    ) as progress:
        for name in args.names:
            w = WORKLOADS[name](scale)
            progress.note(f"{name} ...")
            row = measure_workload(w, client, client_error, use_jax, budget, args.repeats)
            if row["agree"] != "ok":
                progress.note(f"!! {name}: results disagree: {row['agree']}")
            rows.append(row)
            progress.update(status="ok" if row["agree"] == "ok" else "disagree")
    print("measuring the limits again ...", flush=True)
    limits_after = machine.measure(quick=args.quick)
    limits = best_limits(limits_before, limits_after)
    info["load_average_after"] = machine.description()["load_average"]
    for row in rows:
        apply_limits(row, limits)
    report = {
        "machine": info,
        "limits": limits,
        "limits_before": limits_before,
        "limits_after": limits_after,
        "platform": args.platform,
        "quick": args.quick,
        "scale": scale,
        "repeats": args.repeats,
        "results": rows,
        "summary": summary(rows),
    }
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    text = markdown(report)
    Path(args.markdown).write_text(text)
    print(terminal_report(report, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
