"""Every program ``make fuzz`` found failing (``tests/regressions/found/``), replayed.

A program file stays after its fix, so the bug cannot come back unnoticed.
"""

from __future__ import annotations

import pathlib

import pytest

from xlapy.errors import XlaError
from xlapy.hlo import parse_module
from xlapy.testing.differential import check_program
from xlapy.testing.fuzz import load_program

FOUND = pathlib.Path(__file__).parent / "found"
PROGRAMS = sorted(FOUND.glob("*.hlo"))
TEXTS = sorted(FOUND.glob("*.txt"))


# (Defined only when there are files: an empty parameter set would show as a skip.)
if PROGRAMS:

    @pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
    def test_found_program_agrees_across_backends(path: pathlib.Path) -> None:
        check_program(load_program(path))


if TEXTS:

    @pytest.mark.parametrize("path", TEXTS, ids=lambda p: p.stem)
    def test_found_text_parses_or_fails_cleanly(path: pathlib.Path) -> None:
        try:
            parse_module(path.read_text()).verify()
        except XlaError:
            pass


def test_the_replay_reads_what_the_fuzzer_writes(tmp_path: pathlib.Path) -> None:
    import numpy as np

    from xlapy.testing.fuzz import save_program
    from xlapy.testing.random_programs import RandomProgram

    text = """HloModule p
ENTRY e { a = f32[3] parameter(0)
  ROOT n = f32[3] negate(a) }"""
    written = save_program(RandomProgram(text, [np.arange(3, dtype=np.float32)], {"negate"}), tmp_path)
    program = load_program(written)
    assert program.text == text and program.opcodes == {"negate", "parameter"}
    np.testing.assert_array_equal(program.inputs[0], np.arange(3, dtype=np.float32))
    check_program(program)
