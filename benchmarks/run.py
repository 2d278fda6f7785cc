"""``python -m benchmarks.run``: every workload on xlapy, numpy and JAX, in one run.

For each workload and engine: build and compile once (compile time recorded), compute
once and compare with numpy's result (a mismatch is printed and put in the table, never
hidden), warm up, then time repeated calls and keep the median (``benchmarks.timing``:
the engines take turns, in rounds, so that a machine whose speed drifts slows all of
them alike). JAX gets device arrays made once, so host-to-device transfers are not timed;
xlapy gets numpy arrays, its native input, and returns numpy arrays. The machine's
bandwidth and peak FLOP/s are measured in the same run so that times read as fractions
of what this machine can do.

Beyond the main table (the host's own code path, AVX-512 where the host has it), a full
run also makes:

* the same table on the AVX2 code path, in a process of its own with every engine held
  to AVX2 (``AVX2_ENVIRONMENT``) and read against the AVX2 peak, as far as the flags
  reach: XLA's library kernels (YNNPACK, its runtime dots) pick their instruction set
  from CPUID, so the rows that use them are marked (``timing.library_kernels``) and
  left out of the AVX2 speed target;
* the "under load" table: each workload timed again on xlapy and JAX while another
  process keeps one core busy (``benchmarks.load``), as slowdowns over the quiet times;
* the size sweeps and their plots (``benchmarks.sweep``), next to the markdown report.

Writes a markdown report and the same data as JSON; prints the tables and targets.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import xlapy
from xlapy.backends.cpu import roofline
from xlapy.backends.cpu.runtime import jit
from xlapy.tools.progress import Progress

from . import machine
from .load import BusyCore
from .report import QUICK_SCALE, apply_limits, best_limits, markdown, summary, terminal_report
from .sweep import run_sweeps
from .timing import Schedule, error_entry, jax_available, prepare_engines, time_interleaved
from .workloads import WORKLOADS, Workload

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
FULL = Schedule(budget=0.5, rounds=5, settle=0.2)  # ~1.5 s of calls per workload
QUICK = Schedule(budget=0.03, rounds=2, settle=0.05)  # checks the harness, fast
# Every engine on AVX2: xlapy's generated code (jit.resolve_target), XLA's generated
# code (--xla_cpu_max_isa; not its library kernels: timing.library_kernels) and the
# OpenBLAS kernels numpy and xlapy's dots call.
AVX2_ENVIRONMENT = {"XLAPY_CPU_TARGET": "x86-64-v3", "OPENBLAS_CORETYPE": "Haswell"}
AVX2_XLA_FLAG = "--xla_cpu_max_isa=AVX2"
LOADED_ENGINES = ("xlapy", "jax")


# -- one workload ------------------------------------------------------------------------------


def _time_under_load(row: dict, calls: dict, busy: BusyCore, schedule: Schedule) -> None:
    """xlapy's and JAX's times with one core busy, and their slowdowns over the quiet times."""
    loaded_calls = {k: calls[k] for k in LOADED_ENGINES if k in calls and "seconds" in row[k]}
    if not loaded_calls:
        return
    try:
        with busy.busy():
            timings = time_interleaved(loaded_calls, schedule)
    except Exception as e:  # noqa: BLE001  (reported in the table)
        row["loaded_error"] = error_entry(e)["error"]
        return
    for name, timing in timings.items():
        row[name]["loaded_seconds"] = timing["seconds"]
        row[f"slowdown_{name}"] = timing["seconds"] / row[name]["seconds"]


def measure_workload(
    w: Workload,
    client: Any,
    client_error: str | None,
    use_jax: bool,
    schedule: Schedule,
    busy: BusyCore | None = None,
) -> dict:
    """Every engine on ``w`` (and xlapy and JAX again under load when ``busy``); a failing
    engine is recorded, not fatal."""
    row: dict[str, Any] = {
        "workload": w.name,
        "description": w.description,
        "bound": w.bound,
        "bytes_moved": w.bytes_moved,
        "bytes_written": w.bytes_written,
        "flops": w.flops,
    }
    entries, calls = prepare_engines(w, client, client_error, use_jax, ("numpy", "xlapy", "jax"))
    row.update(entries)
    try:
        for name, timing in time_interleaved(calls, schedule).items():
            row[name].update(timing)
    except Exception as e:  # noqa: BLE001
        for name in calls:
            row[name] = error_entry(e)
    if busy is not None:
        _time_under_load(row, calls, busy, schedule)
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


# -- the AVX2 code path ------------------------------------------------------------------------


def avx2_environment() -> dict[str, str]:
    """This process's environment with every engine held to AVX2."""
    env = dict(os.environ, **AVX2_ENVIRONMENT)
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} {AVX2_XLA_FLAG}".strip()
    return env


def avx2_skip_reason() -> str | None:
    """Why the AVX2 table would repeat the main one or cannot run; None when it can."""
    if os.environ.get(jit.ENV_TARGET):
        return f"{jit.ENV_TARGET} is set, so the main table already runs on a forced target"
    missing = jit.resolve_target("x86-64-v3").missing_features()
    if missing:
        return f"this host lacks {', '.join(missing)} (x86-64-v3)"
    host = roofline.vector_isa(jit.host_target())
    if host.name != "AVX-512":
        return f"the host's own code path is already {host.name}"
    return None


def run_avx2_path(args: argparse.Namespace) -> dict:
    """The main table again, in a child process on the AVX2 code path: its limits (the AVX2
    peak), rows and summary, or why it was not run."""
    reason = avx2_skip_reason()
    if reason:
        return {"skipped": reason}
    print("the AVX2 code path, in a process of its own ...", flush=True)
    with tempfile.TemporaryDirectory(prefix="xlapy-bench-avx2-") as tmp:
        out = Path(tmp) / "avx2.json"
        command = [
            sys.executable, "-m", "benchmarks.run", "--path-only", "--platform", args.platform,
            "--filter", ",".join(args.names), "--json", str(out),
            "--markdown", str(Path(tmp) / "avx2.md"),
        ]  # fmt: skip
        command += ["--quick"] if args.quick else []
        command += ["--repeats", str(args.repeats)] if args.repeats else []
        done = subprocess.run(command, env=avx2_environment(), cwd=ROOT, check=False)
        if done.returncode != 0 or not out.exists():
            return {"skipped": f"the AVX2 run failed (exit status {done.returncode})"}
        child = json.loads(out.read_text())
    return {key: child[key] for key in ("limits", "results", "summary", "machine")}


# -- main --------------------------------------------------------------------------------------


def make_client(platform: str) -> tuple[Any, str | None]:
    """The xlapy client, warmed up, or the reason there is none (e.g. a platform not built yet)."""
    try:
        client = xlapy.local_client(platform)
        # One-time set-up (LLVM, the native runtime) must not count as the first
        # workload's compile time. (A program of its own: the CPU compiler caches by
        # module text.)
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
        "--quick", action="store_true", help=f"sizes / {QUICK_SCALE}, short timings, tiny sweeps"
    )
    parser.add_argument("--filter", default="", help="comma-separated workload names")
    parser.add_argument("--repeats", type=int, default=None, help="timed samples per engine")
    parser.add_argument("--json", default=str(HERE / "results.json"), help="JSON output path")
    parser.add_argument(
        "--markdown", default=str(HERE / "RESULTS.md"),
        help="markdown output path (the sweep plots go into its folder)",
    )  # fmt: skip
    parser.add_argument("--no-avx2", dest="avx2", action="store_false", help="no AVX2 table")
    parser.add_argument("--no-load", dest="load", action="store_false", help="no loaded table")
    parser.add_argument("--no-sweep", dest="sweep", action="store_false", help="no size sweeps")
    parser.add_argument(
        "--path-only", action="store_true",
        help="only the main table, nothing printed (how the AVX2 table's process is run)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    wanted = [n for n in args.filter.split(",") if n]
    unknown = [n for n in wanted if n not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workload(s) {', '.join(unknown)}; known: {', '.join(WORKLOADS)}")
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    args.names = wanted or list(WORKLOADS)
    if args.path_only:
        args.avx2 = args.load = args.sweep = False
    return args


def _measure_rows(
    args: argparse.Namespace, client: Any, client_error: str | None, use_jax: bool
) -> list[dict]:
    """The main table's rows (loaded times included when ``args.load``)."""
    scale = QUICK_SCALE if args.quick else 1
    schedule = QUICK if args.quick else FULL
    if args.repeats:
        schedule = Schedule(schedule.budget, schedule.rounds, schedule.settle, args.repeats)
    rows = []
    # Workloads done, their rate and the agreement tally on stderr (a bar on a terminal,
    # a line every few seconds in a log). The spinner process exists only inside the block.
    with contextlib.ExitStack() as stack:
        busy = stack.enter_context(BusyCore()) if args.load else None
        progress = stack.enter_context(
            Progress("bench", total=len(args.names), unit="workloads", statuses=("ok", "disagree"))
        )
        for name in args.names:
            w = WORKLOADS[name](scale)
            progress.note(f"{name} ...")
            row = measure_workload(w, client, client_error, use_jax, schedule, busy)
            if row["agree"] != "ok":
                progress.note(f"!! {name}: results disagree: {row['agree']}")
            rows.append(row)
            progress.update(status="ok" if row["agree"] == "ok" else "disagree")
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run, print and write the report; exit status 0 even when targets fail (they are news)."""
    args = parse_args(argv)
    info = machine.description()
    print(f"measuring this machine's limits ({info['cpu']}, {info['cores']} cores) ...", flush=True)
    limits_before = machine.measure(quick=args.quick)
    client, client_error = make_client(args.platform)
    use_jax = jax_available()
    rows = _measure_rows(args, client, client_error, use_jax)
    print("measuring the limits again ...", flush=True)
    limits_after = machine.measure(quick=args.quick)
    limits = best_limits(limits_before, limits_after)
    info["load_average_after"] = machine.description()["load_average"]
    for row in rows:
        apply_limits(row, limits)
    report: dict[str, Any] = {
        "machine": info,
        "limits": limits,
        "limits_before": limits_before,
        "limits_after": limits_after,
        "platform": args.platform,
        "quick": args.quick,
        "scale": QUICK_SCALE if args.quick else 1,
        "repeats": args.repeats,
        "results": rows,
        "paths": {},
    }
    if args.avx2:
        report["paths"]["avx2"] = run_avx2_path(args)
    if args.sweep:
        plots = Path(args.markdown).resolve().parent
        report["sweep"] = run_sweeps(
            client, client_error, use_jax, limits, info, args.quick, out_dir=plots
        )
    avx2 = report["paths"].get("avx2", {})
    path = limits.get("isa") or "host"
    report["summary"] = summary(rows, avx2.get("results"), path, avx2.get("skipped"))
    Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
    Path(args.markdown).write_text(markdown(report, args.markdown))
    if not args.path_only:
        print(terminal_report(report, args.markdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
