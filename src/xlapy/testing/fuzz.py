"""``python -m xlapy.testing.fuzz --seconds N``: fuzz for N seconds (``make fuzz``).

Rounds of hypothesis runs, each with fresh random seeds: random programs
compared across backends (``differential``), and mutated HLO text fed to the
parser. Prints how many programs ran and which opcodes they covered; exits 1
with the failing program (shrunk by hypothesis, as HLO text) on the first
mismatch or crash, and writes it to ``tests/regressions/found/`` (``--found``),
where ``tests/regressions/test_fuzz_finds.py`` replays it in every ``make test``
from then on: commit the file with the fix.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import pathlib
import sys
import time

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..errors import XlaError
from ..hlo import parse_module
from ..tools.progress import Progress
from .differential import check_program
from .random_programs import RandomProgram, programs

FOUND = pathlib.Path("tests/regressions/found")


def save_program(program: RandomProgram, directory: pathlib.Path) -> pathlib.Path:
    """Write a failing program as ``<hash>.hlo`` with its inputs in ``<hash>.npz``."""
    directory.mkdir(parents=True, exist_ok=True)
    name = "program_" + hashlib.sha256(program.text.encode()).hexdigest()[:12]
    (directory / f"{name}.hlo").write_text(program.text)
    np.savez(directory / f"{name}.npz", *program.inputs)
    return directory / f"{name}.hlo"


def save_text(text: str, directory: pathlib.Path) -> pathlib.Path:
    """Write a parser input that failed uncleanly as ``<hash>.txt``."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"text_{hashlib.sha256(text.encode()).hexdigest()[:12]}.txt"
    path.write_text(text)
    return path


def load_program(path: pathlib.Path) -> RandomProgram:
    """A program ``save_program`` wrote (its opcodes are not stored: only ``exact`` needs
    them, and a saved program is compared with tolerances unless every op is exact)."""
    text = path.read_text()
    with np.load(path.with_suffix(".npz")) as arrays:
        inputs = [arrays[f"arr_{k}"] for k in range(len(arrays.files))]
    opcodes = {line.split("=", 1)[1].split("(")[0].split()[-1] for line in text.splitlines()
               if "=" in line and "(" in line.split("=", 1)[1]}  # fmt: skip
    return RandomProgram(text, inputs, opcodes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--round", type=int, default=50, help="examples per hypothesis run")
    parser.add_argument("--found", type=pathlib.Path, default=FOUND,
                        help="where failing programs are written")  # fmt: skip
    args = parser.parse_args(argv)
    failing: dict[str, object] = {}
    deadline = time.monotonic() + args.seconds
    coverage: collections.Counter[str] = collections.Counter()
    counts = {"programs": 0, "mutations": 0}
    # Programs checked, their rate and the mutation tally on stderr (a bar on a terminal,
    # a line every few seconds in a log); stdout keeps only the verdict.
    progress = Progress("fuzz", unit="programs", statuses=("agreed", "mutations"))

    @settings(max_examples=args.round, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(programs(max_steps=12))
    def differential(program):  # noqa: ANN001, ANN202
        counts["programs"] += 1
        coverage.update(program.opcodes)
        try:
            check_program(program)
        except BaseException:
            failing["program"] = program  # the last failure is hypothesis's shrunk one
            raise
        progress.update(status="agreed")

    @settings(max_examples=args.round, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(programs(max_steps=6), st.data())
    def parser_mutations(program, data):  # noqa: ANN001, ANN202
        counts["mutations"] += 1
        text = program.text
        at = data.draw(st.integers(0, max(0, len(text) - 1)))
        cut = data.draw(st.integers(0, 12))
        junk = data.draw(st.text(max_size=4))
        mutated = text[:at] + junk + text[at + cut :]
        try:
            module = parse_module(mutated)
            module.verify()
        except XlaError:
            pass
        except BaseException:
            failing["text"] = mutated
            raise
        progress.tally(mutations=1)

    rounds = 0
    while time.monotonic() < deadline:
        rounds += 1
        try:
            differential()
            parser_mutations()
        except BaseException as e:  # noqa: BLE001  (report any failure with its program)
            progress.close()
            print(f"FAILED after {counts['programs']} programs: {type(e).__name__}: {e}")
            if "program" in failing:
                print(f"written to {save_program(failing['program'], args.found)}")
            elif "text" in failing:
                print(f"written to {save_text(failing['text'], args.found)}")
            return 1
    progress.close()
    print(
        f"{counts['programs']} random programs agreed across backends, {counts['mutations']} "
        f"mutated texts failed cleanly, in {rounds} rounds ({args.seconds:.0f} s)"
    )
    print("op coverage:", ", ".join(f"{op} {n}" for op, n in coverage.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
