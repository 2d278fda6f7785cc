"""The StableHLO conformance runner: upstream's test programs, judged as upstream judges them.

``python -m xlapy.conformance PATH...`` runs every ``// -----`` section of
every ``.mlir`` file through the importer and a backend, evaluates the
``check.*`` ops with the reference interpreter's semantics (``checks``), and
reports per case and per op (``report``). Cases run in worker processes with
a deadline (``runner``) so that one crash or endless loop fails alone.
"""

from .checks import (
    OP_TOLERANCES,
    CheckResult,
    check_almost_eq,
    check_close,
    check_eq,
    check_serialized_eq,
    ulp_distance,
)
from .runner import Case, CaseResult, find_cases, op_of, run_cases

__all__ = [
    "OP_TOLERANCES",
    "Case",
    "CaseResult",
    "CheckResult",
    "check_almost_eq",
    "check_close",
    "check_eq",
    "check_serialized_eq",
    "find_cases",
    "op_of",
    "run_cases",
    "ulp_distance",
]
