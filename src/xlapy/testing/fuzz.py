"""``python -m xlapy.testing.fuzz --seconds N``: fuzz for N seconds (``make fuzz``).

Rounds of hypothesis runs, each with fresh random seeds: random programs
compared across backends (``differential``), and mutated HLO text fed to the
parser. Prints how many programs ran and which opcodes they covered; exits 1
with the failing program (shrunk by hypothesis, as HLO text) on the first
mismatch or crash.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..errors import XlaError
from ..hlo import parse_module
from .differential import check_program
from .random_programs import programs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--round", type=int, default=50, help="examples per hypothesis run")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.seconds
    coverage: collections.Counter[str] = collections.Counter()
    counts = {"programs": 0, "mutations": 0}

    @settings(max_examples=args.round, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(programs(max_steps=12))
    def differential(program):  # noqa: ANN001, ANN202
        counts["programs"] += 1
        coverage.update(program.opcodes)
        check_program(program)

    @settings(max_examples=args.round, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(programs(max_steps=6), st.data())
    def parser_mutations(program, data):  # noqa: ANN001, ANN202
        counts["mutations"] += 1
        text = program.text
        at = data.draw(st.integers(0, max(0, len(text) - 1)))
        cut = data.draw(st.integers(0, 12))
        junk = data.draw(st.text(max_size=4))
        try:
            module = parse_module(text[:at] + junk + text[at + cut :])
            module.verify()
        except XlaError:
            pass

    rounds = 0
    while time.monotonic() < deadline:
        rounds += 1
        try:
            differential()
            parser_mutations()
        except BaseException as e:  # noqa: BLE001  (report any failure with its program)
            print(f"FAILED after {counts['programs']} programs: {type(e).__name__}: {e}")
            return 1
    print(
        f"{counts['programs']} random programs agreed across backends, {counts['mutations']} "
        f"mutated texts failed cleanly, in {rounds} rounds ({args.seconds:.0f} s)"
    )
    print("op coverage:", ", ".join(f"{op} {n}" for op, n in coverage.most_common()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
