"""Every test of tests/evaluator/test_rng.py, run on the CPU backend and checked
against the interpreter (see mirror.py)."""

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from mirror import mirror  # noqa: E402

mirror(globals(), "test_rng")
