"""The op atlas (``xlapy ops``): every opcode, and every layer that handles it."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

from xlapy import atlas, ops
from xlapy.cli import main
from xlapy.evaluator import KERNELS
from xlapy.opcode import HloOpcode
from xlapy.shape_inference import RULES
from xlapy.stablehlo import LOWERINGS


def _relative(fn) -> str:
    """The path the atlas prints for ``fn``'s file (relative to the repository)."""
    path = Path(inspect.getsourcefile(inspect.unwrap(fn))).resolve()
    return path.relative_to(atlas.REPOSITORY).as_posix()


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_ops_gather_names_the_file_of_every_layer(capsys):
    status, out, _ = _run(capsys, "ops", "gather")
    assert status == 0
    assert out.startswith("gather (GATHER): family indexing")
    layers = {
        "shape_inference": RULES[HloOpcode.GATHER],
        "ops": ops.Gather,
        "evaluator": KERNELS[HloOpcode.GATHER],
        "stablehlo": LOWERINGS["stablehlo.gather"],
    }
    for layer, fn in layers.items():
        path = _relative(fn)
        assert f"/{layer}/" in f"/{path}", (layer, path)
        assert f"{path}:" in out, (layer, path, out)
    # The CPU side: the row-gather emitter and its predicate, the expander for the other
    # gathers, and the pass that turns batched gathers into plain ones.
    path = atlas.CPU_PATHS[HloOpcode.GATHER]
    for part in (path.handler, path.predicate, path.via, *path.rewritten_by):
        assert f"{_relative(part)}:" in out, (part, out)
    for file in (
        "backends/cpu/emit/indexing_gather.py",
        "passes/expand/indexing_gather.py",
        "passes/expand/indexing_batching.py",
    ):
        assert f"src/xlapy/{file}:" in out, (file, out)
    assert "tests/ops/test_gather_scatter.py" in out


def test_atlas_covers_every_opcode(capsys):
    entries = atlas.atlas()
    assert set(entries) == set(HloOpcode)
    status, out, _ = _run(capsys, "ops")
    assert status == 0
    rows = out.splitlines()
    assert rows[0].split()[:2] == ["opcode", "family"]
    named = {row.split()[0] for row in rows[1:] if row and not row.startswith("(")}
    assert named == {op.value for op in HloOpcode}


def test_atlas_agrees_with_the_registration_tables():
    entries = atlas.atlas()
    for opcode, fn in RULES.items():
        assert entries[opcode].shape_rule.path == _relative(fn)
    for opcode, fn in KERNELS.items():
        assert entries[opcode].kernel.path == _relative(fn)


def test_builders_are_found_from_their_source():
    builders = atlas.builder_map()
    assert builders["Add"][1] == (HloOpcode.ADD,)  # generated from a {"Add": Op.ADD} table
    assert builders["Gather"][1] == (HloOpcode.GATHER,)
    assert HloOpcode.CONDITIONAL in builders["Conditional"][1]  # through private helpers
    assert HloOpcode.CONSTANT in builders["Constant"][1]  # through XlaBuilder.add_constant


def test_lowerings_are_related_by_name_or_by_the_builders_they_call():
    dot = atlas.atlas()[HloOpcode.DOT]
    names = [s.name for s in dot.lowerings + dot.emitted_by]
    assert any("stablehlo.dot_general" in n for n in names), names
    assert atlas.opcode_of_lowering("stablehlo.dynamic_update_slice") is (
        HloOpcode.DYNAMIC_UPDATE_SLICE
    )
    assert atlas.opcode_of_lowering("stablehlo.dot_general") is None


def test_json_lists_every_layer(capsys):
    status, out, _ = _run(capsys, "ops", "scatter", "--json")
    assert status == 0
    (entry,) = json.loads(out)
    assert entry["opcode"] == "scatter" and entry["family"] == "indexing"
    for key in ("shape_rule", "builders", "kernel", "stablehlo", "cpu", "tests"):
        assert key in entry
    assert entry["shape_rule"]["path"].endswith(".py") and entry["shape_rule"]["line"] > 0


def test_a_builder_name_finds_its_opcode(capsys):
    status, out, _ = _run(capsys, "ops", "DynamicSlice")
    assert status == 0 and out.startswith("dynamic-slice (DYNAMIC_SLICE)")


def test_unknown_name_suggests_close_matches(capsys):
    status, out, err = _run(capsys, "ops", "gathr")
    assert status == 1 and not out
    assert "unknown HLO opcode 'gathr'" in err and "'gather'" in err


def test_family_check_reports_file_and_line():
    for layer, opcode, site in atlas.family_offences():
        assert layer in ("shape_inference", "evaluator", "stablehlo", "ops")
        assert site.line > 0 and site.path.endswith(".py")
        assert not site.module.rsplit(".", 1)[-1].startswith(opcode.family)


def test_tests_column_needs_a_checkout(monkeypatch):
    monkeypatch.setattr(atlas, "TESTS_DIR", None)
    atlas.test_file_words.cache_clear()
    try:
        assert atlas.tests_of(HloOpcode.GATHER, ["Gather"]) is None
        entry = atlas.OpEntry(HloOpcode.GATHER, tests=None)
        assert "(no tests/ folder: an installed package)" in atlas.describe(entry)
    finally:
        atlas.test_file_words.cache_clear()
