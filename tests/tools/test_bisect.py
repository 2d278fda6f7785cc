"""``xlapy bisect``: the culprit pass of a broken pipeline, the smallest sub-graph of a
broken emitter, and nothing to find when the backends agree."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from xlapy.backends.cpu import run as cpu_run
from xlapy.backends.cpu.elemental import floating
from xlapy.backends.cpu.pipeline import cpu_pipeline
from xlapy.backends.interpreter import run as interpret
from xlapy.cli import main
from xlapy.hlo import parse_module
from xlapy.hlo.module import HloModule
from xlapy.opcode import HloOpcode
from xlapy.passes.creation import make_binary
from xlapy.passes.pass_base import HloPass, PassPipeline
from xlapy.tools.bisect import bisect
from xlapy.tools.compare import first_difference
from xlapy.tools.inputs import random_inputs
from xlapy.tools.reduce import extract

CORPUS = Path(__file__).parents[1] / "data" / "hlo_corpus"

PROGRAM = """HloModule tools_bisect_{tag}
ENTRY main {{
  a = f32[8] parameter(0)
  b = f32[8] parameter(1)
  m = f32[8] multiply(a, b)
  s = f32[8] add(m, b)
  e = f32[8] exponential(s)
  n = f32[8] negate(e)
  d = f32[8] divide(n, b)
  ROOT t = (f32[8], f32[8]) tuple(m, d)
}}
"""


class AddToSubtract(HloPass):
    """A deliberately wrong rewrite: every add becomes a subtract."""

    name = "add-to-subtract"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            for instruction in computation.instructions:
                if instruction.opcode is HloOpcode.ADD:
                    lhs, rhs = instruction.operands
                    computation.replace_instruction(
                        instruction, make_binary(HloOpcode.SUBTRACT, lhs, rhs)
                    )
                    changed = True
        return changed


def broken_pipeline(module: HloModule | None, options: object) -> PassPipeline:
    """The CPU pipeline with the wrong rewrite after the first simplification."""
    pipeline = cpu_pipeline(options)
    at = next(k for k, p in enumerate(pipeline.passes) if p.name == "while-licm")
    pipeline.passes.insert(at, AddToSubtract())
    return pipeline


@pytest.fixture
def broken_multiply(monkeypatch: pytest.MonkeyPatch) -> None:
    """A codegen bug: the CPU's float multiply emits an add (the interpreter is untouched)."""
    monkeypatch.setitem(floating.BINARY, HloOpcode.MULTIPLY, lambda b, x, y: b.fadd(x, y))


def test_agreeing_module_has_nothing_to_find(capsys: pytest.CaptureFixture) -> None:
    assert main(["bisect", str(CORPUS / "binary_float.hlo")]) == 0
    assert "no disagreement" in capsys.readouterr().out
    assert bisect(parse_module(PROGRAM.format(tag="ok"))).agrees


def test_a_broken_pass_is_named_and_reduced() -> None:
    result = bisect(
        parse_module(PROGRAM.format(tag="pass")), backend_options={"passes": broken_pipeline}
    )
    assert result.kind == "pass" and result.culprit == "add-to-subtract"
    assert result.difference.output == 1  # m is still right; d is not
    assert "-  s = f32[8] add(m, b)" in result.pass_diff
    reduced = result.reduced
    assert reduced.size <= 3
    assert {i.opcode for i in reduced.module.entry.instructions} >= {HloOpcode.ADD}
    # The reduced module still shows the bug: the pass alone changes its result.
    rewritten = reduced.module.clone()
    AddToSubtract().run(rewritten)
    assert first_difference(
        interpret(rewritten, *reduced.inputs), interpret(reduced.module, *reduced.inputs)
    )
    report = result.report()
    assert "culprit pass: add-to-subtract" in report and "inputs:" in report


def test_a_broken_emitter_is_reduced_to_the_instruction(broken_multiply: None) -> None:
    result = bisect(parse_module(PROGRAM.format(tag="codegen")), seed=5)
    assert result.kind == "codegen" and result.culprit is None
    assert result.difference.output == 0
    assert result.passes_checked  # the interpreter checked every rewrite
    reduced = result.reduced
    assert reduced.size <= 3 and reduced.root == "m"
    opcodes = [i.opcode for i in reduced.module.entry.instructions]
    assert HloOpcode.MULTIPLY in opcodes
    got = cpu_run(reduced.module, *reduced.inputs, cache=False)
    assert first_difference(got, interpret(reduced.module, *reduced.inputs)) is not None
    assert "bug is in code generation" in result.report()


def test_the_reduction_cuts_deep_programs(broken_multiply: None) -> None:
    """The bug sits behind a chain of other ops; the cut feeds it the interpreter's values."""
    text = """HloModule tools_bisect_deep
ENTRY main {
  a = f32[16] parameter(0)
  b = f32[16] parameter(1)
  x = f32[16] add(a, b)
  y = f32[16] exponential(x)
  z = f32[16] subtract(y, a)
  w = f32[16] multiply(z, y)
  ROOT r = f32[16] tanh(w)
}
"""
    module = parse_module(text)
    result = bisect(module, seed=4)
    reduced = result.reduced
    assert result.kind == "codegen" and reduced.size == 1 and reduced.root == "w"
    assert set(reduced.cut) == {"y", "z"}
    # Each cut parameter is fed what the interpreter computed for it in the whole program.
    arguments = random_inputs(module, 4)
    for parameter, value in zip(reduced.module.entry.parameters, reduced.inputs, strict=True):
        sub, sources = extract(module, parameter.name, ())
        np.testing.assert_array_equal(
            value, interpret(sub, *[arguments[int(s == "b")] for s in sources])
        )


def test_command_line_reports_and_writes_the_reduced_module(
    broken_multiply: None, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    path = tmp_path / "program.hlo"
    path.write_text(PROGRAM.format(tag="cli"))
    reduced_path = tmp_path / "reduced.hlo"
    assert main(["bisect", str(path), "--random", "2", "--write-reduced", str(reduced_path)]) == 1
    out = capsys.readouterr().out
    assert "the CPU backend disagrees with the interpreter: output 0 at index" in out
    assert "smallest module the CPU still gets wrong: 1 instructions" in out
    reduced = parse_module(reduced_path.read_text())
    inputs = list(np.load(tmp_path / "reduced.npz").values())
    assert first_difference(cpu_run(reduced, *inputs, cache=False), interpret(reduced, *inputs))


def test_extract_makes_cut_values_parameters() -> None:
    module = parse_module(PROGRAM.format(tag="extract"))
    sub, sources = extract(module, "e", {"s"})
    assert sources == ["s"]
    assert [i.opcode for i in sub.entry.instructions] == [
        HloOpcode.PARAMETER,
        HloOpcode.EXPONENTIAL,
    ]
    whole, sources = extract(module, "d", ())
    assert sources == ["a", "b"] and whole.entry.root.name == "d"
