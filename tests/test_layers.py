"""The shape of the package: layers, cycles, module length, local and private imports,
and op families (``xlapy.testing.layers``, ``xlapy.atlas.family_offences``).

The ``KNOWN_*`` lists held the offences that existed while the restructuring was under
way; they are empty now, so every check is strict. A list may take an entry again only
with a reason beside it, and only ever shrinks.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from xlapy.opcode import FAMILIES, HloOpcode
from xlapy.testing import layers

# -- known offenders: none ------------------------------------------------------------------

KNOWN_SIBLING_IMPORTS: set[tuple[str, str]] = set()

KNOWN_CYCLES: list[set[str]] = []

# (module, imported module) of imports inside functions.
KNOWN_LOCAL_IMPORTS: set[tuple[str, str]] = set()

# (module, what it imports) of private names, or private modules from outside their package.
KNOWN_PRIVATE_IMPORTS: set[tuple[str, str]] = set()

# Module -> the opcodes it holds code for although it is not named after their family.
KNOWN_FAMILY_OFFENCES: dict[str, str] = {}


# -- the package ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def report() -> layers.Report:
    return layers.check()


def _listing(offences: list[layers.Offence]) -> str:
    return "\n".join(str(o) for o in offences)


def test_every_module_is_in_a_layer(report):
    assert not report.of("no-layer"), _listing(report.of("no-layer"))


def test_no_module_imports_from_a_higher_layer(report):
    assert not report.of("upward-import"), _listing(report.of("upward-import"))


def test_the_backends_do_not_know_each_other(report):
    new = [o for o in report.of("sibling-import") if o.key not in KNOWN_SIBLING_IMPORTS]
    assert not new, _listing(new)


def test_no_import_cycles(report):
    new = [o for o in report.of("cycle") if not any(set(o.key) <= known for known in KNOWN_CYCLES)]
    assert not new, _listing(new)


def test_no_module_is_too_long(report):
    assert not report.of("too-long"), _listing(report.of("too-long"))


def test_no_new_function_local_imports(report):
    new = [o for o in report.of("local-import") if o.key not in KNOWN_LOCAL_IMPORTS]
    assert not new, _listing(new)


def test_no_new_private_imports(report):
    new = [o for o in report.of("private-import") if o.key not in KNOWN_PRIVATE_IMPORTS]
    assert not new, _listing(new)


def test_every_opcode_has_a_family():
    assert all(op.family in FAMILIES for op in HloOpcode)
    named = [name for names in FAMILIES.values() for name in names]
    assert len(named) == len(set(named)), "an opcode in two families"
    assert sorted(named) == sorted(op.value for op in HloOpcode)


def test_every_layer_files_an_opcode_under_its_family():
    atlas = pytest.importorskip("xlapy.atlas")
    known = {(module, op) for module, ops in KNOWN_FAMILY_OFFENCES.items() for op in ops.split()}
    new = [
        f"{site.path}:{site.line}: [family] {layer} handles {opcode.value} "
        f"({opcode.family}) in {site.module}"
        for layer, opcode, site in atlas.family_offences()
        if (site.module, opcode.value) not in known
    ]
    assert not new, "\n".join(new)


# -- the checker itself, on a small made-up package ----------------------------------------


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "xlapy" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "xlapy"


@pytest.fixture
def toy(tmp_path) -> layers.Report:
    root = _package(
        tmp_path,
        {
            "__init__.py": "from . import ops\n",
            "errors.py": "from . import shape\n",  # base -> values: upward
            "shape.py": "def f():\n    from . import errors\n",  # local, and a cycle
            "types.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n    from .hlo import parser\n"  # not an import
            ),
            "layout.py": "_secret = 1\n" + "x = 1\n" * 800,
            "hlo/__init__.py": "from . import parser\n",
            "hlo/parser.py": "from ..layout import _secret\nfrom .. import hlo\n",
            "ops/__init__.py": "from ._support import helper\n",
            "ops/_support.py": "def helper():\n    pass\n",
            "computations.py": "from .ops._support import helper\n",
            "backends/__init__.py": "",
            "backends/interpreter/__init__.py": "",
            "backends/cpu/__init__.py": "from ..interpreter import run\n",
            "testing/__init__.py": "def oracle():\n    import jax\n",
            "stray.py": "",
        },
    )
    return layers.check(root)


def test_checker_reports_each_rule_at_its_line(toy):
    text = toy.text()
    assert "xlapy/errors.py:1: [upward-import] xlapy.errors (base) imports xlapy.shape" in text
    assert "xlapy/shape.py:2: [local-import]" in text
    assert "xlapy/layout.py:801: [too-long] 801 lines" in text
    assert "xlapy/hlo/parser.py:1: [private-import]" in text and "_secret" in text
    assert "xlapy/computations.py:1: [private-import]" in text and "private to xlapy.ops" in text
    assert "xlapy/backends/cpu/__init__.py:1: [sibling-import]" in text
    assert "xlapy/stray.py:1: [no-layer]" in text


def test_checker_cycles_count_local_imports_and_submodules(toy):
    cycles = {o.key for o in toy.of("cycle")}
    assert ("xlapy.errors", "xlapy.shape") in cycles
    # ``from . import parser`` in hlo/__init__ is an edge to the submodule, and
    # ``from .. import hlo`` back to the package closes the loop.
    assert ("xlapy.hlo", "xlapy.hlo.parser") in cycles


def test_checker_leaves_out_type_checking_and_optional_dependencies(toy):
    assert not [o for o in toy.offences if o.path == "xlapy/types.py"]
    assert not [o for o in toy.offences if o.path == "xlapy/testing/__init__.py"]
    # A private module used inside its own package is that package's business.
    assert not [o for o in toy.offences if o.path == "xlapy/ops/__init__.py"]


def test_layer_of_takes_the_longest_prefix():
    names = [name for name, _ in layers.LAYERS]
    assert names[layers.layer_of("xlapy.hlo.typed_attributes")] == "hlo"
    assert names[layers.layer_of("xlapy.backends.cpu.codegen")] == "backends"
    assert names[layers.layer_of("xlapy")] == "tools"
    assert layers.layer_of("xlapy.nowhere") is None


def test_report_command_names_the_rules(capsys):
    status = layers.main(["--rule", "too-long"])
    out = capsys.readouterr().out
    assert "too-long:" in out and "cycle:" not in out
    assert status == (1 if "[too-long]" in out else 0)
