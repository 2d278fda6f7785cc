"""Round-trip real XLA output through xlapy's HLO parser and printer.

The corpus in tests/data/hlo_corpus was printed by XLA itself (through JAX, see
tools/gen_hlo_corpus.py), in three styles: short, verbose (``%`` names, operand shapes,
metadata, stack-frame tables, elided constants) and optimised (scheduled, fused, with
backend configs). Hand-written test inputs only cover the syntax their author remembered;
this corpus covers what XLA actually emits.

Printing is the parser's fixed point: whatever xlapy prints must parse back to a module that
prints identically, in both its short and verbose forms.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "data" / "hlo_corpus"
REPO = CORPUS.parents[2]
GENERATOR = REPO / "tools" / "gen_hlo_corpus.py"
FILES = sorted(CORPUS.glob("*.hlo"))

MIN_DISTINCT_OPCODES = 75

# Same rule as the generator's opcodes_of (kept in sync by test_manifest_matches_files):
# the first " opcode(" after "name = shape", with async sugar mapped to async-*.
_OPCODE_RE = re.compile(r"^\s*(?:ROOT\s+)?%?\S+\s+=\s+.*?\s([a-z][a-z0-9-]*)\(", re.M)

# Cases cheap to lower that together touch elementwise ops, shapes, control flow,
# collectives on the four fake devices, FFT and a raw StableHLO op.
DRIFT_CASES = ["unary_float", "shape_ops", "conditionals", "all_reduce", "fft", "raw_map"]


def _manifest() -> dict:
    return json.loads((CORPUS / "MANIFEST.json").read_text())


def _first_difference(a: str, b: str) -> str:
    """pytest's own diff of two 100 kB strings is slow and unreadable; point at the line."""
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb, strict=False)):
        if x != y:
            return f"line {i + 1}:\n  first:  {x[:300]}\n  second: {y[:300]}"
    return f"line counts differ: {len(la)} vs {len(lb)}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_round_trip(path: Path):
    from xlapy import hlo  # imported here so the manifest tests run without the parser

    m = hlo.parse_module(path.read_text())
    t1 = m.to_text()
    t2 = hlo.parse_module(t1).to_text()
    assert t1 == t2, "short text is not a fixed point: " + _first_difference(t1, t2)

    verbose = m.to_text(verbose=True)
    t3 = hlo.parse_module(verbose).to_text()
    assert t3 == t1, "verbose text parses to a different module: " + _first_difference(t1, t3)


def test_corpus_present():
    assert FILES, f"no corpus in {CORPUS}; run tools/gen_hlo_corpus.py"


def _opcodes_of(text: str, known: set[str]) -> set[str]:
    ops = set()
    for name in _OPCODE_RE.findall(text):
        if name not in known:
            stem, _, phase = name.rpartition("-")
            if stem and phase in ("start", "update", "done"):
                name = f"async-{phase}"
        ops.add(name)
    return ops


def test_manifest_matches_files():
    """A stale manifest would make the coverage test below vouch for files that changed."""
    man = _manifest()
    assert sorted(man["files"]) == [p.name for p in FILES]
    known = set(man["opcodes"]) | set(man["missing_opcodes"])
    for path in FILES:
        entry = man["files"][path.name]
        assert sorted(_opcodes_of(path.read_text(), known)) == entry["opcodes"], path.name


def test_manifest_opcode_coverage():
    man = _manifest()
    covered = {op for entry in man["files"].values() for op in entry["opcodes"]}
    assert covered == set(man["opcodes"])
    assert len(covered) >= MIN_DISTINCT_OPCODES, (
        f"corpus covers only {len(covered)} opcodes; missing: {man['missing_opcodes']}")


def test_generator_has_not_drifted(tmp_path: Path):
    """Regenerating a few cases with the installed JAX must give the same opcodes as the
    committed corpus; a difference means JAX/XLA changed what it emits (regenerate the corpus
    and look at what the parser now has to handle)."""
    jax = pytest.importorskip("jax", reason="JAX is needed to regenerate the corpus")
    man = _manifest()
    proc = subprocess.run(
        [sys.executable, str(GENERATOR), "--out", str(tmp_path), "--only", ",".join(DRIFT_CASES)],
        capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    fresh = json.loads((tmp_path / "MANIFEST.json").read_text())
    assert not fresh["skipped"], fresh["skipped"]

    expected = {name: e for name, e in man["files"].items() if e["case"] in DRIFT_CASES}
    assert sorted(fresh["files"]) == sorted(expected)
    drift = {
        name: {"new": sorted(set(e["opcodes"]) - set(expected[name]["opcodes"])),
               "gone": sorted(set(expected[name]["opcodes"]) - set(e["opcodes"]))}
        for name, e in fresh["files"].items() if e["opcodes"] != expected[name]["opcodes"]
    }
    assert not drift, (f"HLO from jax {jax.__version__} differs from the corpus made with "
                       f"jax {man['jax_version']}: {drift}")
