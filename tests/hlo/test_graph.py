"""Drawing modules: dot source structure and the ``xlapy hlo`` command."""

import shutil
from pathlib import Path

import pytest

from xlapy.cli import main
from xlapy.hlo import parse_module
from xlapy.hlo.graph import module_to_dot

HLO = Path(__file__).parent.parent / "data" / "hlo" / "fusion_while_reduce.hlo"


def test_dot_draws_fusions_and_called_computations_as_clusters():
    dot = module_to_dot(parse_module(HLO.read_text()))
    assert dot.startswith('digraph "fusion_while_reduce"')
    assert "cluster_fusion_" in dot and "(kLoop)" in dot
    for title in ("ENTRY main", "body (body)", "cond (condition)", "add (to_apply)"):
        assert title in dot
    assert dot.count("style=dashed") == 3  # body, condition, to_apply
    # Clusters of callees are top level: every "subgraph" line of a callee is indented twice.
    assert all(
        line.startswith("  subgraph")
        for line in dot.splitlines()
        if "(body)" in line and "subgraph" in line
    )
    # Every instruction outside the fusion appears once as a node.
    assert dot.count("<b>while</b>") == 1 and dot.count("<b>reduce</b>") == 1


def test_cli_writes_dot_and_svg(tmp_path, capsys):
    out = tmp_path / "graph.dot"
    assert main(["hlo", "render", str(HLO), "-o", str(out)]) == 0
    assert out.read_text().startswith("digraph")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz `dot` is not installed, so no SVG can be drawn here")
    svg = tmp_path / "graph.svg"
    assert main(["hlo", "render", str(HLO), "-o", str(svg)]) == 0
    assert "<svg" in svg.read_text()


def test_cli_without_graphviz_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert main(["hlo", "render", str(HLO), "-o", str(tmp_path / "g.svg")]) == 1
    assert "apt-get install graphviz" in capsys.readouterr().err


def test_cli_reports_parse_errors_without_a_traceback(tmp_path, capsys):
    bad = tmp_path / "bad.hlo"
    bad.write_text("HloModule m\nENTRY e {\n  ROOT x = f32[2] frobnicate()\n}\n")
    assert main(["hlo", "verify", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "3:" in err and "frobnicate" in err and "^" in err
    assert "Traceback" not in err


def test_cli_print_and_verify(tmp_path, capsys):
    assert main(["hlo", "verify", str(HLO)]) == 0
    assert "ok (5 computations)" in capsys.readouterr().out
    assert main(["hlo", "print", str(HLO)]) == 0
    assert "while(" in capsys.readouterr().out
    assert main(["hlo", "print", "--verbose", str(HLO)]) == 0
    assert "%loop" in capsys.readouterr().out
    assert main(["hlo", "verify", str(tmp_path / "missing.hlo")]) == 1
    assert "cannot read" in capsys.readouterr().err
