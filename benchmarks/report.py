"""The benchmark report: targets, RESULTS.md and what ``make bench`` prints.

A report (``benchmarks.run``) holds the main table (the host's code path), optionally
the same table on the AVX2 code path (``report["paths"]["avx2"]``), the loaded times
inside the main table's rows and the size sweeps (``report["sweep"]``). Targets are
read here, never asserted: a target that fails is news about the backend, not a broken
harness.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from xlapy.tools.tables import aligned_table

QUICK_SCALE = 64
LOADED_SLOWDOWN_TARGET = 2.5
ENGINES = ("xlapy", "numpy", "jax")


# -- numbers -----------------------------------------------------------------------------------


def limit_for(row: dict, limits: dict) -> tuple[str, float] | None:
    """The machine limit a workload is read against: ("GB/s", bandwidth) or ("GFLOP/s", peak).

    Workloads that (almost) only read are compared with the read bandwidth, the others
    with the best of copy and triad: reading alone goes faster than copying, so a
    reduction at the machine's read speed shows as 100%.
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
    for engine in ENGINES:
        result = row.get(engine) or {}
        if "seconds" in result:
            result["achieved"] = work / result["seconds"] / 1e9
            result["fraction_of_limit"] = result["achieved"] / value


def best_limits(*runs: dict[str, Any]) -> dict[str, Any]:
    """The best of each limit over several measurements (other processes only ever make a
    measurement lower); descriptive entries (the ISA's name) are taken from the first."""
    return {
        key: max(run[key] for run in runs) if isinstance(value, int | float) else value
        for key, value in runs[0].items()
    }


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def _within(value: float | None, bound: float, below: bool = True) -> bool | None:
    """``value <= bound`` (or ``>=``), or None when there is no value to judge."""
    if value is None:
        return None
    return value <= bound if below else value >= bound


def _engine(row: dict | None, engine: str, key: str) -> float | None:
    return ((row or {}).get(engine) or {}).get(key)


def compile_ratios(rows: list[dict]) -> dict[str, float]:
    """xlapy's cold compile time over JAX's, per workload where both compiled."""
    out = {}
    for r in rows:
        x, j = _engine(r, "xlapy", "compile_seconds"), _engine(r, "jax", "compile_seconds")
        if x is not None and j:
            out[r["workload"]] = x / j
    return out


def slowdowns(rows: list[dict], engine: str) -> dict[str, float]:
    """Loaded time over quiet time of ``engine``, per workload measured under load."""
    return {r["workload"]: r[f"slowdown_{engine}"] for r in rows if f"slowdown_{engine}" in r}


# -- text cells --------------------------------------------------------------------------------


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    value = seconds * 1e3
    return f"{value:.4f}" if value < 0.01 else f"{value:.3f}" if value < 10 else f"{value:.1f}"


def ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def pct(fraction: float | None) -> str:
    return "-" if fraction is None else f"{fraction * 100:.0f}%"


def _time_cell(result: dict) -> str:
    if "seconds" in result:
        return ms(result["seconds"])
    return "error" if "error" in result else "-"


def _worst(values: dict[str, float]) -> tuple[str, float] | None:
    if not values:
        return None
    name = max(values, key=values.__getitem__)
    return name, values[name]


# -- targets -----------------------------------------------------------------------------------


class _Targets:
    """The checklist being built: each target with pass/fail/None (no data) and its number."""

    def __init__(self) -> None:
        self.items: list[dict] = []

    def add(self, target: str, passed: bool | None, detail: str) -> None:
        self.items.append({"target": target, "passed": passed, "detail": detail})


def _held_to_path(row: dict) -> bool:
    """False where XLA called a library that picks its own instruction set (``timing.
    library_kernels``): on the AVX2 path that row compares with XLA's AVX-512 code."""
    return not _engine(row, "jax", "library_kernels")


def _path_targets(out: _Targets, rows: list[dict], path: str, held_only: bool = False) -> None:
    """The targets every code path must meet: speed against XLA, matmul against its peak.

    ``held_only`` (the AVX2 path): the speed target counts the workloads where XLA, too,
    ran code of the path's ISA; the others are listed in a line of their own, without a
    verdict, their ratios upper bounds (XLA on a CPU without AVX-512 is no faster)."""
    by = {r["workload"]: r for r in rows}
    comparable = [r for r in rows if _held_to_path(r)] if held_only else rows
    ratios = {r["workload"]: r["ratio_jax"] for r in comparable if "ratio_jax" in r}
    missing = [r["workload"] for r in comparable if "ratio_jax" not in r]
    worst = _worst(ratios)
    detail = f"worst: {worst[0]} {worst[1]:.2f}" if worst else "no ratios"
    if missing:
        detail += f"; no ratio for {', '.join(missing)}"
    passed = _within(worst[1] if worst else None, 1.0)
    held = " held to the path" if held_only else ""
    out.add(
        f"{path}: every workload no slower than XLA{held} (xlapy/jax <= 1.0)",
        passed and not missing,
        detail,
    )
    if held_only:
        library = [r for r in rows if not _held_to_path(r)]
        if library:
            out.add(
                f"{path}: workloads where XLA ran library kernels that pick their own "
                "instruction set (ratios against AVX-512 code: upper bounds)",
                None,
                ", ".join(f"{r['workload']} {ratio(r.get('ratio_jax'))}" for r in library),
            )
    mm = _engine(by.get("matmul"), "xlapy", "fraction_of_limit")
    out.add(f"{path}: matmul >= 90% of the path's peak", _within(mm, 0.9, below=False), pct(mm))


def targets(
    rows: list[dict],
    avx2_rows: list[dict] | None = None,
    path: str = "host",
    avx2_skipped: str | None = None,
) -> list[dict]:
    """The issue's targets over the main table (``path`` names its ISA), the AVX2 table
    where there is one (else why not, as a target without data), the compile times and
    the loaded times."""
    out = _Targets()
    by = {r["workload"]: r for r in rows}
    _path_targets(out, rows, path)
    if avx2_rows is not None:
        _path_targets(out, avx2_rows, "AVX2", held_only=True)
    elif avx2_skipped:
        out.add("AVX2: the same targets on the AVX2 code path", None, f"not run: {avx2_skipped}")
    for name in ("matmul", "mlp", "conv2d"):
        value = (by.get(name) or {}).get("ratio_jax")
        if name in by:
            out.add(f"{name} <= 0.9x XLA's time", _within(value, 0.9), ratio(value))
    ratios = {r["workload"]: r["ratio_jax"] for r in rows if "ratio_jax" in r}
    mean = geomean(list(ratios.values()))
    out.add(
        "geometric mean of xlapy/jax <= 0.8",
        _within(mean, 0.8),
        f"{ratio(mean)} over {len(ratios)} workloads",
    )
    ew = (by.get("ew_chain") or {}).get("ratio_jax")
    if "ew_chain" in by:
        out.add(
            "ew_chain at least 2x faster than XLA (xlapy/jax <= 0.5)", _within(ew, 0.5), ratio(ew)
        )
    fused = {
        k: _engine(by[k], "xlapy", "fraction_of_limit") for k in ("ew_chain", "axpy") if k in by
    }
    lowest = None if None in fused.values() or not fused else min(fused.values())  # type: ignore[type-var]
    out.add(
        "fused elementwise (ew_chain, axpy) >= 70% of bandwidth",
        _within(lowest, 0.7, below=False),
        ", ".join(f"{k} {pct(f)}" for k, f in fused.items()) or "-",
    )
    compiles = compile_ratios(rows)
    mean = geomean(list(compiles.values()))
    out.add(
        "cold compile geometric mean <= 0.7x XLA's",
        _within(mean, 0.7),
        f"{ratio(mean)} over {len(compiles)} workloads",
    )
    worst = _worst(compiles)
    out.add(
        "no workload compiles slower than with XLA",
        _within(worst[1] if worst else None, 1.0),
        f"worst: {worst[0]} {worst[1]:.2f}" if worst else "-",
    )
    loaded, reference = _worst(slowdowns(rows, "xlapy")), _worst(slowdowns(rows, "jax"))
    if loaded or reference:
        detail = f"xlapy worst: {loaded[0]} {loaded[1]:.2f}x" if loaded else "xlapy: -"
        detail += f"; XLA worst: {reference[0]} {reference[1]:.2f}x" if reference else "; XLA: -"
        passed = _within(loaded[1] if loaded else None, LOADED_SLOWDOWN_TARGET)
        out.add(
            f"one core busy: no workload slows by more than {LOADED_SLOWDOWN_TARGET}x",
            passed,
            detail,
        )
    latency = _engine(by.get("call_latency"), "xlapy", "seconds")
    if "call_latency" in by:
        text = "-" if latency is None else f"{latency * 1e6:.2f} us"
        out.add("call latency < 3 us", _within(latency, 3e-6), text)
    bad = [r["workload"] for r in rows + (avx2_rows or []) if r["agree"] != "ok"]
    out.add("every engine agrees with numpy", not bad, ", ".join(bad) or "all ok")
    return out.items


def summary(
    rows: list[dict],
    avx2_rows: list[dict] | None = None,
    path: str = "host",
    avx2_skipped: str | None = None,
) -> dict:
    """Geometric means, mismatches and the targets checklist."""
    ratios = [r["ratio_jax"] for r in rows if "ratio_jax" in r]
    compiles = list(compile_ratios(rows).values())
    return {
        "geomean_ratio_jax": geomean(ratios),
        "workloads_with_ratio": len(ratios),
        "geomean_compile_ratio_jax": geomean(compiles),
        "mismatches": [r["workload"] for r in rows if r["agree"] != "ok"],
        "targets": targets(rows, avx2_rows, path, avx2_skipped),
    }


# -- markdown ----------------------------------------------------------------------------------

_INTRO = (
    "Columns: *ms* is the median wall time of one call after warm-up, the engines "
    "taking turns over five rounds (xlapy called with numpy arrays, returning numpy arrays; "
    "JAX `jit` on CPU with device arrays made once, `block_until_ready`; numpy as written). "
    "*x/jax* and *x/np* are xlapy's time over JAX's and numpy's: below 1 means xlapy is "
    "faster. *achieved* is xlapy's GB/s (bytes that must move / time) for memory-bound "
    "workloads or GFLOP/s for compute-bound ones; *% limit* is that as a fraction of this "
    "machine's measured read bandwidth (workloads that only read), STREAM copy/triad "
    "bandwidth (the others) or the code path's peak f32 FMA rate, for xlapy and, as the bar, "
    "for JAX; the bandwidths are measured over arrays twice the size of the largest cache, "
    "so more than 100% means the data partly stayed in cache between calls. *compile ms* is "
    "`client.compile` for xlapy and `jit(...).lower(...).compile()` for JAX. *agree* "
    "compares xlapy's and JAX's results with numpy's (`np.isclose` with the workload's "
    "tolerances). *fallbacks* lists the ops the CPU backend ran through interpreter kernels."
)


def _results_table(rows: list[dict], mark_library: bool = False) -> list[str]:
    """The markdown table; ``mark_library`` puts a dagger on the ratios where XLA called
    a library that picks its own instruction set (the AVX2 table's footnote says why)."""
    lines = [
        "| workload | xlapy ms | numpy ms | jax ms | x/jax | x/np | achieved "
        "| % limit (xlapy / jax) | compile ms (xlapy / jax) | agree | fallbacks |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for r in rows:
        x, n, j = (r.get(k) or {} for k in ENGINES)
        achieved = f"{x['achieved']:.1f} {r['limit_unit']}" if "achieved" in x else "-"
        limit = (
            "-"
            if "limit" not in r
            else f"{pct(x.get('fraction_of_limit'))} / {pct(j.get('fraction_of_limit'))}"
        )
        agree = r["agree"] if r["agree"] == "ok" else f"**{r['agree']}**"
        if "error" in x:
            agree += f"; xlapy **{x['error']}**"
        if "error" in j:
            agree += f"; jax **{j['error']}**"
        dagger = " †" if mark_library and not _held_to_path(r) else ""
        lines.append(
            f"| {r['workload']} | {_time_cell(x)} | {_time_cell(n)} | {_time_cell(j)} "
            f"| {ratio(r.get('ratio_jax'))}{dagger} | {ratio(r.get('ratio_numpy'))} | {achieved} "
            f"| {limit} | {ms(x.get('compile_seconds'))} / {ms(j.get('compile_seconds'))} "
            f"| {agree} | {', '.join(x.get('fallback_ops', [])) or '-'} |"
        )
    return lines


def _loaded_rows(rows: list[dict]) -> list[tuple[str, ...]]:
    out = []
    for r in rows:
        if "slowdown_xlapy" not in r and "slowdown_jax" not in r:
            continue
        x, j = r.get("xlapy") or {}, r.get("jax") or {}
        out.append((
            r["workload"], ms(x.get("seconds")), ms(x.get("loaded_seconds")), ratio(r.get("slowdown_xlapy")),
            ms(j.get("seconds")), ms(j.get("loaded_seconds")), ratio(r.get("slowdown_jax")),
        ))  # fmt: skip
    return out


_LOADED_HEADER = (
    "workload", "xlapy quiet ms", "xlapy loaded ms", "xlapy slowdown",
    "jax quiet ms", "jax loaded ms", "jax slowdown",
)  # fmt: skip


def _markdown_table(header: tuple[str, ...], body: list[tuple[str, ...]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return lines + ["| " + " | ".join(row) + " |" for row in body]


def _limits_text(limits: dict) -> str:
    return (
        f"bandwidth {limits['bandwidth_gbs']:.1f} GB/s (copy {limits['copy_gbs']:.1f}, triad "
        f"{limits['triad_gbs']:.1f}, read {limits['read_gbs']:.1f}; arrays of "
        f"{limits.get('stream_mib', 0):.0f} MiB), peak {limits['peak_gflops']:.0f} GFLOP/s "
        f"({limits.get('isa', '?')} f32 FMA, {limits.get('vector_width', '?')} lanes, all cores)"
    )


def _path_name(report: dict) -> str:
    return report["limits"].get("isa") or "host"


def _avx2_section(report: dict) -> list[str]:
    avx2 = (report.get("paths") or {}).get("avx2")
    if avx2 is None:
        return []
    lines = ["", "## AVX2 code path", ""]
    if "results" not in avx2:
        return lines + [f"Not run: {avx2.get('skipped', 'no results')}."]
    s = avx2["summary"]
    lines += [
        "The same workloads with every engine held to AVX2 (`XLAPY_CPU_TARGET=x86-64-v3` for "
        "xlapy's generated code, `XLA_FLAGS=--xla_cpu_max_isa=AVX2` for XLA, "
        "`OPENBLAS_CORETYPE=Haswell` for the BLAS of numpy and xlapy), in a process of "
        f"their own; read against the AVX2 roof: {_limits_text(avx2['limits'])}.",
        "",
        *_results_table(avx2["results"], mark_library=True),
        "",
        f"Geometric mean of xlapy/jax on this path: **{ratio(s['geomean_ratio_jax'])}** over "
        f"{s['workloads_with_ratio']} workloads.",
    ]
    library = sorted(
        {k for r in avx2["results"] for k in _engine(r, "jax", "library_kernels") or []}
    )
    if library:
        lines += [
            "",
            f"† XLA ran these through libraries ({', '.join(library)}) that choose their "
            "instruction set from CPUID at run time: `--xla_cpu_max_isa` holds only the code "
            "XLA generates (its optimized HLO shows the library calls), so on a host with "
            "AVX-512 they ran AVX-512 code. Those rows compare xlapy's AVX2 code with XLA's "
            "AVX-512 code; XLA on a CPU without AVX-512 would be no faster, so their ratios "
            "are upper bounds, and the AVX2 speed target counts the other rows.",
        ]
    return lines


def _loaded_section(rows: list[dict]) -> list[str]:
    body = _loaded_rows(rows)
    if not body:
        return []
    return [
        "",
        "## Under load",
        "",
        "Each workload timed again while another process (a Python busy loop the benchmark "
        "starts and kills) keeps one core busy; *slowdown* is the loaded time over the quiet "
        f"time of the main table. Target: no xlapy workload slower than {LOADED_SLOWDOWN_TARGET}x; "
        "XLA's slowdown is the reference.",
        "",
        *_markdown_table(_LOADED_HEADER, body),
    ]


def _sweep_section(report: dict, markdown_path: str | None) -> list[str]:
    sweep = report.get("sweep")
    if not sweep:
        return []
    lines = [
        "",
        "## Scaling",
        "",
        "Sizes swept for each engine (taking turns at each size): time per call and the "
        "fraction of the machine's limit (bandwidth or the host path's peak) it reached, "
        "log-log. Data in `results.json` under `sweep`.",
        "",
    ]
    base = Path(markdown_path).resolve().parent if markdown_path else None
    for name, entry in sweep.get("workloads", {}).items():
        plot = entry.get("plot")
        if not plot:
            lines.append(f"- {name}: no plot ({entry.get('plot_error', 'matplotlib missing')})")
            continue
        link = os.path.relpath(plot, base) if base else plot
        lines.append(f"- [{name}]({link}): {entry['description']}")
        lines.append(f"  ![{name} scaling]({link})")
    return lines


def markdown(report: dict, markdown_path: str | None = None) -> str:
    """RESULTS.md: how to read and reproduce, the machine, the tables, plots and targets."""
    info, limits, rows = report["machine"], report["limits"], report["results"]
    loads = [x for x in (info.get("load_average"), info.get("load_average_after")) if x is not None]
    lines = [
        "# Benchmarks",
        "",
        "Reproduce with `make bench` (or `.venv/bin/python -m benchmarks.run [--platform cpu] "
        "[--quick] [--filter NAME,...] [--repeats N] [--no-avx2] [--no-load] [--no-sweep]`); "
        "the same data is in `benchmarks/results.json`. Workloads are defined once in "
        "`benchmarks/workloads.py` (xlapy builder, numpy and JAX versions over the same "
        "inputs, fixed seed).",
        "",
        _INTRO,
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores; host code path ({_path_name(report)}): "
        f"{_limits_text(limits)}, each the best of a measurement before and one after the "
        f"workloads; python {info['python']}, numpy {info['numpy']}, jax {info['jax']}, "
        f"{info.get('llvm') or 'llvmlite ' + str(info['llvmlite'])}, xlapy {info['xlapy']}; "
        f"xlapy platform `{report['platform']}`.",
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
    if report["quick"]:
        lines += [
            "",
            f"**Quick run (sizes / {QUICK_SCALE}, short timings): checks the harness; the "
            "numbers say nothing about speed.**",
        ]
    s = report["summary"]
    lines += [
        "",
        f"## Host code path ({_path_name(report)})",
        "",
        *_results_table(rows),
        "",
        f"Geometric mean of xlapy/jax: **{ratio(s['geomean_ratio_jax'])}** over "
        f"{s['workloads_with_ratio']} workloads; of cold compile times: "
        f"**{ratio(s.get('geomean_compile_ratio_jax'))}**.",
    ]
    lines += _avx2_section(report)
    lines += _loaded_section(rows)
    lines += _sweep_section(report, markdown_path)
    lines += ["", "## Targets", "", "Read here, never asserted in tests:", ""]
    for t in s["targets"]:
        mark = {True: "pass", False: "FAIL", None: "n/a"}[t["passed"]]
        lines.append(f"- [{'x' if t['passed'] else ' '}] {mark}: {t['target']} ({t['detail']})")
    lines += ["", "## Workloads", ""]
    lines += [f"- {r['workload']}: {r['description']}" for r in rows]
    return "\n".join(lines) + "\n"


# -- terminal ----------------------------------------------------------------------------------

_TERMINAL_HEADER = (
    "workload", "xlapy ms", "numpy ms", "jax ms", "x/jax", "x/np", "achieved",
    "% limit x/jax", "compile ms x/jax", "agree",
)  # fmt: skip


def _terminal_rows(rows: list[dict], mark_library: bool = False) -> list[tuple[str, ...]]:
    body = []
    for r in rows:
        x, n, j = (r.get(k) or {} for k in ENGINES)
        achieved = f"{x['achieved']:.1f} {r['limit_unit']}" if "achieved" in x else "-"
        limit = (
            "-"
            if "limit" not in r
            else f"{pct(x.get('fraction_of_limit'))} / {pct(j.get('fraction_of_limit'))}"
        )
        agree = r["agree"] if r["agree"] == "ok" else r["agree"][:40]
        body.append((
            r["workload"], _time_cell(x), _time_cell(n), _time_cell(j),
            ratio(r.get("ratio_jax")) + (" +" if mark_library and not _held_to_path(r) else ""),
            ratio(r.get("ratio_numpy")), achieved, limit,
            f"{ms(x.get('compile_seconds'))} / {ms(j.get('compile_seconds'))}", agree,
        ))  # fmt: skip
    return body


def terminal_report(report: dict, markdown_path: str) -> str:
    """What ``make bench`` prints: the tables aligned (the markdown file holds the same
    numbers with the prose around them), the geometric means and the targets."""
    s = report["summary"]
    lines = [
        f"host code path ({_path_name(report)}, peak {report['limits']['peak_gflops']:.0f} GFLOP/s):"
    ]
    lines += aligned_table(_TERMINAL_HEADER, _terminal_rows(report["results"]))
    lines += [
        "",
        f"geometric mean of xlapy/jax: {ratio(s['geomean_ratio_jax'])} over "
        f"{s['workloads_with_ratio']} workloads; compile: {ratio(s.get('geomean_compile_ratio_jax'))}",
    ]
    avx2 = (report.get("paths") or {}).get("avx2")
    if avx2 is not None and "results" in avx2:
        lines += ["", f"AVX2 code path (peak {avx2['limits']['peak_gflops']:.0f} GFLOP/s):"]
        lines += aligned_table(_TERMINAL_HEADER, _terminal_rows(avx2["results"], True))
        lines += ["(+: XLA ran AVX-512 library kernels there; see RESULTS.md)"]
        lines += [f"geometric mean of xlapy/jax: {ratio(avx2['summary']['geomean_ratio_jax'])}"]
    elif avx2 is not None:
        lines += ["", f"AVX2 code path not run: {avx2.get('skipped')}"]
    loaded = _loaded_rows(report["results"])
    if loaded:
        lines += ["", "one core busy with another process:"]
        lines += aligned_table(_LOADED_HEADER, loaded)
    sweep = report.get("sweep")
    if sweep:
        plots = [e["plot"] for e in sweep.get("workloads", {}).values() if e.get("plot")]
        lines += [
            "",
            f"scaling sweeps ({sweep.get('seconds', 0):.0f} s): "
            + (", ".join(plots) or "no plots"),
        ]
    lines += ["", "targets:"]
    for t in s["targets"]:
        mark = {True: "pass", False: "FAIL", None: "n/a "}[t["passed"]]
        lines.append(f"  {mark}  {t['target']} ({t['detail']})")
    lines += ["", f"the full report (columns explained, machine, workloads): {markdown_path}"]
    return "\n".join(lines) + "\n"
