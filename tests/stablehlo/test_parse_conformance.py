"""Every program of the StableHLO conformance suite parses, all of it well within a minute.

The suite (JAX-generated ``testdata`` and the interpreter's hand-written
``interpret`` tests) lives outside the repository, in ``../shared``; without it
these tests skip.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from xlapy.stablehlo import ast
from xlapy.stablehlo.parse import parse_mlir, split_sections

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "stablehlo"
FILES = sorted(CONFORMANCE.glob("testdata/*.mlir")) + sorted(CONFORMANCE.glob("interpret/*.mlir"))
_ABSENT = pytest.mark.skip(reason=f"the conformance suite is not at {CONFORMANCE}")


def _file_params() -> list:
    if not FILES:
        return [pytest.param(None, marks=_ABSENT, id="absent")]
    return [pytest.param(f, id=f"{f.parent.name}/{f.name}") for f in FILES]


def _walk(region: ast.Region):
    for block in region.blocks:
        for op in block.operations:
            yield op
            for inner in op.regions:
                yield from _walk(inner)


@pytest.mark.parametrize("path", _file_params())
def test_file_parses(path: Path) -> None:
    text = path.read_text()
    modules = parse_mlir(text)
    assert len(modules) == len(split_sections(text))
    lines = text.splitlines()
    for module in modules:
        for function in module.functions:
            assert len(function.arguments) == len(function.argument_attributes)
            assert len(function.result_types) == len(function.result_attributes)
            for op in _walk(function.body):
                assert len(op.operands) == len(op.operand_types), op
                assert len(op.results) == len(op.result_types), op
                # The position is where the op's statement starts in the file.
                assert lines[op.line - 1][op.column - 1] in '%"abcdefghijklmnopqrstuvwxyz'


@pytest.mark.skipif(not FILES, reason=f"the conformance suite is not at {CONFORMANCE}")
def test_whole_suite_parses_within_a_minute() -> None:
    texts = [f.read_text() for f in FILES]
    start = time.perf_counter()
    count = sum(len(parse_mlir(t)) for t in texts)
    elapsed = time.perf_counter() - start
    assert count >= len(FILES)
    assert elapsed < 60, f"parsing {len(FILES)} files took {elapsed:.1f} s"


@pytest.mark.skipif(not FILES, reason=f"the conformance suite is not at {CONFORMANCE}")
def test_every_op_of_the_suite_is_seen() -> None:
    """The op names the parser produced cover what the suite's text names, in either form."""
    import re

    written: set[str] = set()
    parsed: set[str] = set()
    pattern = re.compile(r'(?:^|[\s"=(])((?:stablehlo|chlo|check|interpreter|func)\.[a-z_0-9]+)')
    for f in FILES:
        text = f.read_text()
        for line in text.splitlines():
            code = line.split("//")[0]
            for m in pattern.finditer(code):
                if "@" not in code[max(0, m.start(1) - 1) : m.start(1)]:
                    written.add(m.group(1))
        for module in parse_mlir(text):
            for function in module.functions:
                parsed.update(op.name for op in _walk(function.body))
    # Names that appear only inside attributes or as custom-call / composite targets.
    not_ops = {
        "stablehlo.token",
        "stablehlo.channel_handle",
        "stablehlo.gather",
        "stablehlo.scatter",
        "stablehlo.conv",
        "stablehlo.add_n",
        "func.func",
    }
    assert written - parsed - not_ops == set()
