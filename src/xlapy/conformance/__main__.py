"""``python -m xlapy.conformance PATH...``: run StableHLO conformance programs.

Exit status: 0 when every case passed or is unsupported, 1 when some failed
(or could not run), 2 for a usage problem (no such path, unknown backend), so
that ``make conformance`` can accept failures yet stop on a broken runner.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence

from ..client import local_client
from ..errors import XlaError
from ..tools.progress import Progress
from . import report
from .runner import DEFAULT_TIMEOUT, STATUSES, CaseResult, find_cases, run_cases


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m xlapy.conformance",
        description="Run StableHLO conformance programs (every file, every // ----- section) "
        "and report pass/fail/error/unsupported per case and per op.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help=".mlir files or folders")
    parser.add_argument(
        "--backend", default="interpreter", choices=("interpreter", "cpu"), help="platform"
    )
    parser.add_argument("--json", metavar="FILE", help="write every case's result as JSON")
    parser.add_argument(
        "--markdown", metavar="FILE", help="write the table by op between the result markers"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: the CPU count; 0: run in this process, no timeout)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"per-case time limit (default {DEFAULT_TIMEOUT:g})",
    )
    parser.add_argument(
        "--filter", metavar="TEXT", help="only files whose folder/name contains TEXT"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.jobs is not None and args.jobs < 0:
        print("error: --jobs must be >= 0", file=sys.stderr)
        return 2
    if args.timeout <= 0:
        print("error: --timeout must be > 0", file=sys.stderr)
        return 2
    try:
        local_client(args.backend)
    except XlaError as e:
        print(f"error: backend {args.backend!r} is not available: {e}", file=sys.stderr)
        return 2
    try:
        cases = find_cases(args.paths, args.filter)
    except (FileNotFoundError, UnicodeDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    # Counts, rate and the pass/fail tally on stderr: a bar on a terminal, a line now and
    # then in a log. stdout keeps only the report.
    started = time.time()
    with Progress(
        "conformance", total=len(cases), unit="cases", statuses=STATUSES
    ) as progress:

        def on_result(result: CaseResult, done: int, total: int) -> None:
            progress.update(status=result.status)

        results = run_cases(cases, args.backend, args.jobs, args.timeout, on_result)
    for result in results:
        for text in result.printed:
            print(f"{result.case.name}: {text}", file=sys.stderr)
    elapsed = time.time() - started
    if args.json:
        meta = {
            "backend": args.backend,
            "paths": [str(p) for p in args.paths],
            "jobs": args.jobs if args.jobs is not None else os.cpu_count(),
            "timeout": args.timeout,
            "seconds": round(elapsed, 2),
        }
        report.write_json(args.json, results, meta)
    if args.markdown:
        header = f"Backend `{args.backend}`; {len(results)} cases in {len(set(r.case.file for r in results))} files."
        report.write_markdown(args.markdown, results, header)
    sys.stdout.write(report.text_report(results))
    sys.stdout.flush()
    counts = report.totals(results)
    return 1 if counts["fail"] or counts["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
