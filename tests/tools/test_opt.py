"""``xlapy opt``: named passes or the whole CPU pipeline, ``--until``, ``--list``."""

from __future__ import annotations

from pathlib import Path

import pytest

from xlapy.backends.cpu import CpuOptions
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.cli import main
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.opcode import HloOpcode
from xlapy.passes.pass_base import PassPipeline
from xlapy.tools.opt import list_passes, optimize

CORPUS = Path(__file__).parents[1] / "data" / "hlo_corpus"
CALLS = """HloModule tools_opt
square {
  x = f32[4] parameter(0)
  ROOT m = f32[4] multiply(x, x)
}
ENTRY main {
  a = f32[4] parameter(0)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  s = f32[4] multiply(a, ones)
  c = f32[4] call(s), to_apply=square
  ROOT e = f32[4] exponential(c)
}
"""


def _opcodes(module) -> set[str]:  # noqa: ANN001
    return {i.opcode.value for i in module.entry.instructions}


def test_list_names_every_pass_in_run_order(capsys: pytest.CaptureFixture) -> None:
    assert main(["opt", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    walked = [(p.name, path) for path, p in cpu_pipeline(CpuOptions()).walk()]
    assert [tuple(line.split("\t")) for line in lines] == walked
    assert lines[0] == "defuser\tcpu"
    assert "algebraic-simplifier\tcpu/simplify" in lines
    assert "algebraic-simplifier\tcpu/simplify-after-expansion" in lines
    assert {name for name, _ in walked} == cpu_pipeline(CpuOptions()).pass_names()
    assert list_passes() == walked


def test_named_passes_run_in_order_and_the_output_reparses(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "calls.hlo"
    path.write_text(CALLS)
    assert main(["opt", str(path), "--passes", "call-inliner,algebraic-simplifier,dce"]) == 0
    module = parse_module(capsys.readouterr().out)
    module.verify()
    assert _opcodes(module) == {
        "parameter",
        "multiply",
        "exponential",
    }  # the multiply by ones is gone


@pytest.mark.parametrize("name", ["binary_float", "calls", "reductions"])
def test_whole_pipeline_on_corpus_modules_reparses(
    name: str, capsys: pytest.CaptureFixture
) -> None:
    assert main(["opt", str(CORPUS / f"{name}.hlo"), "--pipeline", "cpu"]) == 0
    text = capsys.readouterr().out
    parse_module(text).verify()
    assert "fusion" in text


def test_until_stops_after_the_first_run_of_the_pass() -> None:
    module = parse_module(CALLS)
    result = optimize(module, until="call-inliner")
    assert result.stopped_after == "call-inliner" and result.runs[-1][0] == "call-inliner"
    assert "call" not in _opcodes(result.module)
    assert "broadcast" in _opcodes(result.module)  # the simplifier has not run yet
    assert _opcodes(module) >= {"call", "broadcast"}  # the input is left alone
    full = optimize(module)
    assert full.stopped_after is None and "fusion" in _opcodes(full.module)
    assert full.runs[-1][0] == "dce" and "fusion" in full.changed_passes


def test_until_through_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "calls.hlo"
    path.write_text(CALLS)
    assert main(["opt", str(path), "--until", "cse", "--stats"]) == 0
    captured = capsys.readouterr()
    module = parse_module(captured.out)
    assert all(i.opcode is not HloOpcode.FUSION for i in module.entry.instructions)
    assert "changed: " in captured.err and "call-inliner" in captured.err


def test_unknown_pass_names_the_valid_ones(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "calls.hlo"
    path.write_text(CALLS)
    assert main(["opt", str(path), "--passes", "dce,no-such-pass"]) == 1
    err = capsys.readouterr().err
    assert "no pass named no-such-pass" in err and "algebraic-simplifier" in err and "fusion" in err
    with pytest.raises(InvalidArgumentError, match="--until fusion"):
        optimize(parse_module(CALLS), passes=["dce"], until="fusion")
    assert main(["opt"]) == 1


def test_pipeline_walk_and_find() -> None:
    inner = PassPipeline(name="inner")
    pipeline = cpu_pipeline(CpuOptions())
    walked = list(pipeline.walk())
    assert walked[0][0] == "cpu" and walked[-1][1].name == "dce"
    first = pipeline.find("algebraic-simplifier")
    assert first is next(p for path, p in walked if path == "cpu/simplify")
    assert pipeline.find("no-such-pass") is None
    assert list(inner.walk()) == []
