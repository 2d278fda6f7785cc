"""The pieces of ``make bench`` around the timings: the busy core of the loaded table (it
spins only when asked and never outlives the benchmark), the AVX2 path's environment and
the targets read from a report (pass, fail, no data)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from benchmarks.load import BusyCore

from benchmarks import report, run, timing

needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


def _state(pid: int) -> str:
    """The process's state letter (R running, S sleeping, T stopped), or '' once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return ""
    return text.rsplit(")", 1)[1].split()[0]


def _wait_for(pid: int, states: str, seconds: float = 5.0) -> str:
    deadline = time.monotonic() + seconds
    while (state := _state(pid)) not in states and time.monotonic() < deadline:
        time.sleep(0.01)
    return state


@needs_proc
def test_busy_core_spins_only_inside_busy_and_is_killed_at_exit():
    with BusyCore() as core:
        pid = core.pid
        assert pid is not None
        assert _wait_for(pid, "T") == "T"
        with core.busy():
            assert _wait_for(pid, "R") == "R"
        assert _wait_for(pid, "T") == "T"
    assert _state(pid) == ""  # killed and reaped


@needs_proc
def test_busy_core_is_killed_on_ctrl_c():
    with pytest.raises(KeyboardInterrupt), BusyCore() as core:
        pid = core.pid
        with core.busy():
            raise KeyboardInterrupt
    assert _state(pid) == ""


def test_busy_outside_its_block_is_refused():
    with pytest.raises(RuntimeError, match="outside"), BusyCore().busy():
        pass


def test_avx2_environment_holds_every_engine_to_avx2(monkeypatch):
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/tmp/x")
    env = run.avx2_environment()
    assert env["XLAPY_CPU_TARGET"] == "x86-64-v3"
    assert env["OPENBLAS_CORETYPE"] == "Haswell"
    assert env["XLA_FLAGS"] == "--xla_dump_to=/tmp/x --xla_cpu_max_isa=AVX2"
    assert os.environ["XLA_FLAGS"] == "--xla_dump_to=/tmp/x"  # this process's is untouched
    monkeypatch.setenv("XLAPY_CPU_TARGET", "x86-64-v2")
    assert "XLAPY_CPU_TARGET is set" in run.avx2_skip_reason()


def _row(name: str, ratio: float, compile_ratio: float, slowdown: float | None) -> dict:
    row = {
        "workload": name,
        "ratio_jax": ratio,
        "agree": "ok",
        "xlapy": {"seconds": ratio, "compile_seconds": compile_ratio},
        "jax": {"seconds": 1.0, "compile_seconds": 1.0},
    }
    if slowdown is not None:
        row["slowdown_xlapy"], row["slowdown_jax"] = slowdown, 1.5
    return row


def test_targets_cover_both_paths_compile_times_and_load():
    rows = [
        _row("matmul", 0.8, 0.5, 2.0),
        _row("mlp", 0.95, 0.6, 3.0),
        _row("axpy", 0.5, 1.2, None),
    ]
    rows[0]["xlapy"]["fraction_of_limit"] = 0.92
    avx2 = [_row("matmul", 1.1, 0.5, None), _row("axpy", 1.05, 0.5, None)]
    items = {t["target"]: t for t in report.targets(rows, avx2, "AVX-512")}
    assert items["AVX-512: every workload no slower than XLA (xlapy/jax <= 1.0)"]["passed"]
    assert items["AVX-512: matmul >= 90% of the path's peak"]["passed"]
    held = items["AVX2: every workload no slower than XLA held to the path (xlapy/jax <= 1.0)"]
    assert held["passed"] is False and held["detail"] == "worst: matmul 1.10"
    assert items["AVX2: matmul >= 90% of the path's peak"]["passed"] is None  # no figure
    assert items["matmul <= 0.9x XLA's time"]["passed"]
    assert items["mlp <= 0.9x XLA's time"]["passed"] is False
    assert "conv2d <= 0.9x XLA's time" not in items  # not in this run
    compile_mean = items["cold compile geometric mean <= 0.7x XLA's"]
    assert compile_mean["passed"] is False and compile_mean["detail"].startswith("0.71 ")
    assert items["no workload compiles slower than with XLA"]["detail"] == "worst: axpy 1.20"
    loaded = items["one core busy: no workload slows by more than 2.5x"]
    assert loaded["passed"] is False
    assert loaded["detail"] == "xlapy worst: mlp 3.00x; XLA worst: matmul 1.50x"


def test_avx2_rows_where_xla_ran_library_kernels_get_no_verdict():
    """XLA's YNNPACK kernels run AVX-512 code under --xla_cpu_max_isa=AVX2: such a row is
    listed with its ratio, not judged; the speed target counts the rows held to AVX2."""
    rows = [_row("matmul", 0.8, 0.5, None)]
    avx2 = [_row("matmul", 1.8, 0.5, None), _row("axpy", 0.3, 0.5, None)]
    avx2[0]["jax"]["library_kernels"] = ["YNNPACK"]
    items = {t["target"]: t for t in report.targets(rows, avx2, "AVX-512")}
    held = items["AVX2: every workload no slower than XLA held to the path (xlapy/jax <= 1.0)"]
    assert held == {**held, "passed": True, "detail": "worst: axpy 0.30"}
    library = [t for t in items.values() if t["target"].startswith("AVX2: workloads where")]
    assert [(t["passed"], t["detail"]) for t in library] == [(None, "matmul 1.80")]
    text = "\n".join(report._results_table(avx2, mark_library=True))
    assert "| 1.80 † |" in text and "| 0.30 |" in text
    assert "†" not in "\n".join(report._results_table(avx2))


def test_library_kernels_are_read_from_xlas_optimized_hlo():
    ynn = 'fusion(%x), kind=kCustom, backend_config={"fusion_config":{"kind":"__ynn_fusion"}}'
    assert timing.library_kernels(ynn) == ["YNNPACK"]
    assert timing.library_kernels("ROOT %d = f32[2,2] dot(%a, %b)") == [
        "XLA's runtime dot/convolution"
    ]
    assert timing.library_kernels("ROOT %e = f32[2] exponential(%a)") == []


def test_a_skipped_avx2_path_shows_as_a_target_without_data():
    rows = [_row("matmul", 0.8, 0.5, None)]
    items = report.targets(rows, None, "AVX2", avx2_skipped="the host's own code path is AVX2")
    skipped = [t for t in items if t["target"].startswith("AVX2: the same targets")]
    assert skipped == [
        {
            "target": "AVX2: the same targets on the AVX2 code path",
            "passed": None,
            "detail": "not run: the host's own code path is AVX2",
        }
    ]
