"""Progress for long jobs: plain lines off a terminal, a bar on one, stdout untouched.

The wrapper (``xlapy.tools.progress``) is checked with a fake clock; the jobs that
use it (conformance, fuzz, bench's table, ``xlapy run --iterations``) are checked
for what they print where: the report on stdout as before, progress on stderr.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from xlapy.conformance.__main__ import main as conformance_main
from xlapy.hlo import parse_module
from xlapy.testing import fuzz
from xlapy.tools import run as run_tool
from xlapy.tools.progress import Progress, choose_mode, track
from xlapy.tools.tables import aligned_table


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_plain_mode_prints_a_line_per_interval_and_a_final_line() -> None:
    stream, clock = io.StringIO(), FakeClock()
    progress = Progress("conformance", total=10, unit="cases", statuses=("pass", "fail"),
                        interval=5.0, stream=stream, clock=clock)  # fmt: skip
    assert progress.mode == "plain"
    for k in range(4):
        clock.now += 1.0
        progress.update(status="pass" if k != 2 else "fail")
    assert stream.getvalue() == ""  # 4 s: no line yet
    clock.now += 1.0
    progress.update(status="pass")
    assert stream.getvalue() == (
        "conformance: 5/10 cases (50%), 1.0 cases/s, pass=4 fail=1, 5.0 s\n"
    )
    clock.now += 5.0
    progress.close()
    progress.close()  # idempotent
    lines = stream.getvalue().splitlines()
    assert lines[-1] == "conformance: done, 5/10 cases (50%), 2.0 s each, pass=4 fail=1, 10.0 s"
    assert len(lines) == 2


def test_counts_without_a_total_and_slow_rates() -> None:
    stream, clock = io.StringIO(), FakeClock()
    with Progress("fuzz", unit="programs", statuses=("agreed", "mutations"),
                  stream=stream, clock=clock) as progress:  # fmt: skip
        progress.update(status="agreed")
        progress.tally(mutations=3)
        progress.update(2, agreed=2)
        clock.now += 6.0
    assert progress.done == 3 and progress.counts == {"agreed": 3, "mutations": 3}
    assert stream.getvalue() == "fuzz: done, 3 programs, 2.0 s each, agreed=3 mutations=3, 6.0 s\n"


def test_modes_follow_the_terminal_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLAPY_PROGRESS", raising=False)
    assert choose_mode(io.StringIO()) == "plain"
    assert choose_mode(FakeTerminal()) == "bar"
    monkeypatch.setenv("XLAPY_PROGRESS", "0")
    assert choose_mode(FakeTerminal()) == "plain"
    monkeypatch.setenv("XLAPY_PROGRESS", "1")
    assert choose_mode(io.StringIO()) == "bar"
    with pytest.raises(ValueError, match="mode must be"):
        Progress("x", mode="fancy", stream=io.StringIO())


def test_bar_mode_draws_counts_rate_and_tally() -> None:
    stream = FakeTerminal()
    with Progress("bench", total=3, unit="workloads", statuses=("ok", "disagree"),
                  stream=stream) as progress:  # fmt: skip
        progress.note("axpy ...")
        for _ in range(3):
            progress.update(status="ok")
    text = stream.getvalue()
    assert "axpy ...\n" in text
    final = text.replace("\r", "\n").strip().splitlines()[-1]
    assert "bench: 100%" in final and "3/3" in final and "ok=3 disagree=0" in final
    assert "workloads/s" in final or "s/ workloads" in final


def test_track_counts_each_item(capsys: pytest.CaptureFixture[str]) -> None:
    assert list(track(range(4), "items", stream=io.StringIO(), mode="plain")) == [0, 1, 2, 3]
    stream = io.StringIO()
    list(track([1, 2], "pairs", stream=stream, mode="plain"))
    assert stream.getvalue().startswith("pairs: done, 2/2 it (100%)")
    assert capsys.readouterr().out == ""


def test_aligned_table() -> None:
    lines = aligned_table(("name", "ms"), [("axpy", "1.5"), ("softmax", "12.25")])
    assert lines == ["name        ms", "-" * 14, "axpy       1.5", "softmax  12.25"]
    with pytest.raises(ValueError, match="2 cells"):
        aligned_table(("a", "b", "c"), [("x", "y")])


# -- the jobs: stdout as before, progress on stderr ---------------------------------------

PASSING = """func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %1 = stablehlo.add %0, %0 : tensor<2xi32>
  check.expect_eq_const %1, dense<[2, 4]> : tensor<2xi32>
  func.return
}
"""

FAILING = """func.func @main() {
  %0 = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_eq_const %0, dense<[1, 3]> : tensor<2xi32>
  func.return
}
"""


def test_conformance_report_on_stdout_progress_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "interpret"
    folder.mkdir()
    (folder / "add.mlir").write_text(PASSING)
    (folder / "constant.mlir").write_text(FAILING)
    md = tmp_path / "conformance.md"
    assert conformance_main([str(folder), "--jobs", "0", "--markdown", str(md)]) == 1
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert out[0].startswith("FAIL interpret/constant.mlir [constant]")
    assert out[-2:] == ["0 unsupported", "1 passed, 1 failed"]
    assert "conformance" not in captured.out and "cases/s" not in captured.out
    assert captured.err.strip().splitlines()[-1].startswith(
        "conformance: done, 2/2 cases (100%)"
    )
    assert "pass=1 fail=1 error=0 unsupported=0" in captured.err
    markdown = md.read_text()
    assert "| interpret | add | 1 | 0 | 0 | 0 | 1 |" in markdown
    assert "cases/s" not in markdown


def test_fuzz_verdict_on_stdout_progress_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert fuzz.main(["--seconds", "0.5", "--round", "2", "--found", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    out = captured.out.splitlines()
    assert len(out) == 2 and "random programs agreed across backends" in out[0]
    assert out[1].startswith("op coverage:")
    err = captured.err.strip().splitlines()[-1]
    assert err.startswith("fuzz: done, ") and "agreed=" in err and "mutations=" in err


def test_run_iterations_show_progress_only_when_long(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    text = "HloModule m\n\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n"
    module = parse_module(text)
    run_tool.run_module(module, iterations=3, platform="interpreter", progress=True)
    assert capsys.readouterr().err == ""  # quick: no progress at all
    monkeypatch.setattr(run_tool, "PROGRESS_AFTER_SECONDS", 0.0)
    result = run_tool.run_module(module, iterations=3, platform="interpreter", progress=True)
    assert len(result.run_seconds) == 3
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("xlapy run: done, 3/3 runs (100%)")
    run_tool.run_module(module, iterations=3, platform="interpreter")  # the API: silent
    assert capsys.readouterr().err == ""
