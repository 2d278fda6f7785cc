"""The benchmark harness runs end to end (``make bench`` is not part of ``make test``).

One quick run on the interpreter with two tiny workloads, through the same
command line ``make bench`` uses, so a broken harness shows up in the tests
rather than on the day someone wants numbers. The JSON and markdown reports
are checked for structure only: timings on a shared test machine mean nothing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
