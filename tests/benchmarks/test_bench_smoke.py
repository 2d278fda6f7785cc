"""The benchmark harness runs end to end (``make bench`` is not part of ``make test``).

One quick run on the interpreter with two tiny workloads, through the same
command line ``make bench`` uses, so a broken harness shows up in the tests
rather than on the day someone wants numbers: the main table, the AVX2 code path's
table (in its own process), the table under load and the quick size sweeps with
their plots. The JSON and markdown reports are checked for structure only: timings
on a shared test machine mean nothing.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKLOADS = ["call_latency", "axpy"]


def test_quick_run_writes_reports(tmp_path: Path) -> None:
    json_path, md_path = tmp_path / "results.json", tmp_path / "RESULTS.md"
    command = [
        sys.executable, "-m", "benchmarks.run", "--platform", "interpreter", "--quick",
        "--filter", ",".join(WORKLOADS), "--repeats", "3",
        "--json", str(json_path), "--markdown", str(md_path),
    ]  # fmt: skip
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr

    report = json.loads(json_path.read_text())
    assert report["platform"] == "interpreter" and report["quick"] is True
    assert {"cpu", "cores", "numpy", "jax", "llvmlite"} <= report["machine"].keys()
    for key in ("bandwidth_gbs", "read_gbs", "copy_gbs", "triad_gbs", "peak_gflops"):
        assert report["limits"][key] > 0, key
    assert report["limits"]["isa"]
    assert [r["workload"] for r in report["results"]] == WORKLOADS
    engines = ["xlapy", "numpy"] + (["jax"] if report["machine"]["jax"] else [])
    for row in report["results"]:
        assert row["agree"] == "ok", row
        for engine in engines:
            result = row[engine]
            assert "error" not in result, (row["workload"], engine, result)
            assert result["seconds"] > 0 and result["samples"] == 3
        assert row["xlapy"]["compile_seconds"] >= 0
        assert row["ratio_numpy"] > 0
        if "jax" in engines:
            assert row["ratio_jax"] > 0 and row["jax"]["check"] == "ok"
    axpy = report["results"][1]
    assert axpy["limit_unit"] == "GB/s" and axpy["xlapy"]["achieved"] > 0
    summary = report["summary"]
    assert summary["mismatches"] == []
    assert all(t["passed"] in (True, False, None) for t in summary["targets"])

    text = md_path.read_text()
    assert "| workload | xlapy ms |" in text
    assert all(f"| {name} |" in text for name in WORKLOADS)
    assert "Targets" in text and "call latency < 3 us" in text
    _check_avx2_path(report, text)
    _check_loaded_table(report, text, "jax" in engines)
    _check_sweeps(report, text, tmp_path)


def _check_avx2_path(report: dict, text: str) -> None:
    avx2 = report["paths"]["avx2"]
    if "skipped" in avx2:  # a host without AVX-512 (or without AVX2) has one path only
        assert "## AVX2 code path" in text and avx2["skipped"] in text
        return
    assert avx2["limits"]["isa"] == "AVX2" and avx2["limits"]["vector_width"] == 8
    assert avx2["limits"]["target"].startswith("x86-64-v3")
    assert [r["workload"] for r in avx2["results"]] == WORKLOADS
    assert all(r["agree"] == "ok" and r["xlapy"]["seconds"] > 0 for r in avx2["results"])
    assert "## AVX2 code path" in text and "xla_cpu_max_isa=AVX2" in text
    assert any(t["target"].startswith("AVX2:") for t in report["summary"]["targets"])


def _check_loaded_table(report: dict, text: str, with_jax: bool) -> None:
    engines = ["xlapy"] + (["jax"] if with_jax else [])
    for row in report["results"]:
        for engine in engines:
            assert row[engine]["loaded_seconds"] > 0
            assert row[f"slowdown_{engine}"] == pytest.approx(
                row[engine]["loaded_seconds"] / row[engine]["seconds"]
            )
    assert "## Under load" in text
    assert "| workload | xlapy quiet ms | xlapy loaded ms | xlapy slowdown | jax quiet ms" in text
    assert any("slows by more than 2.5x" in t["target"] for t in report["summary"]["targets"])


def _check_sweeps(report: dict, text: str, folder: Path) -> None:
    sweeps = report["sweep"]["workloads"]
    assert list(sweeps) == ["axpy", "matmul", "softmax", "conv2d"]
    plots = importlib.util.find_spec("matplotlib") is not None  # the `bench` extra
    for name, entry in sweeps.items():
        assert len(entry["points"]) == 2
        for point in entry["points"]:
            assert point["xlapy"]["check"] == "ok" and point["xlapy"]["seconds"] > 0
            assert point["numpy"]["fraction_of_limit"] > 0
        if not plots:  # the numbers are still there, and the report says what is missing
            assert "pip install -e '.[bench]'" in entry["plot_error"]
            assert f"- {name}: no plot (matplotlib is not installed" in text
            continue
        png = folder / f"scaling_{name}.png"
        assert entry["plot"] == str(png)
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
        assert f"![{name} scaling](scaling_{name}.png)" in text
