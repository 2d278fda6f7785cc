"""docs/custom_call_targets.md lists every custom-call target xlapy provides."""

from __future__ import annotations

import re
from pathlib import Path

import xlapy.evaluator  # noqa: F401  (registers the built-in targets)
from xlapy.custom_call import builtin_targets
from xlapy.passes import COMPILER_TARGETS

DOC = Path(__file__).resolve().parents[1] / "docs" / "custom_call_targets.md"


def _listed() -> set[str]:
    names = set()
    for prefix, letters, rest in re.findall(r"`(\w*)\{([a-z,]+)\}(\w+)`", DOC.read_text()):
        names |= {f"{prefix}{letter}{rest}" for letter in letters.split(",")}
    names |= set(re.findall(r"`([\w.]+)`", DOC.read_text()))
    return names


def test_every_builtin_target_is_in_the_table():
    assert builtin_targets(), "no built-in targets registered"
    missing = set(builtin_targets()) - _listed()
    assert not missing, f"docs/custom_call_targets.md misses {sorted(missing)}"


def test_every_compiler_marker_is_in_the_table():
    missing = set(COMPILER_TARGETS) - _listed()
    assert not missing, f"docs/custom_call_targets.md misses {sorted(missing)}"
