"""What a conformance run says: a line per non-passing case, a table by op, JSON, markdown.

The text report ends with two fixed lines (``N unsupported``, then
``N passed, M failed``) so that scripts and people can read the outcome from
the tail of the output; errors count as failures there because a case that
cannot run is not conformant.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runner import STATUSES, CaseResult

BEGIN_MARKER = "<!-- results:begin -->"
END_MARKER = "<!-- results:end -->"

_LABELS = {"fail": "FAIL", "error": "ERROR", "unsupported": "UNSUPPORTED", "pass": "PASS"}


@dataclass
class Counts:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATUSES, 0))

    def add(self, status: str) -> None:
        self.counts[status] = self.counts.get(status, 0) + 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def __getitem__(self, status: str) -> int:
        return self.counts.get(status, 0)


def case_line(result: CaseResult) -> str:
    """One line: status, case, op and what went wrong (first differing element, error...)."""
    detail = " ".join(result.detail.split())
    line = (
        f"{_LABELS.get(result.status, result.status.upper())} {result.case.name} [{result.case.op}]"
    )
    return f"{line}: {detail}" if detail else line


def case_lines(results: Sequence[CaseResult]) -> list[str]:
    """Every non-passing case, then every case that passed only with a per-op tolerance."""
    lines = [case_line(r) for r in results if r.status != "pass"]
    lines += [
        f"PASS* {r.case.name} [{r.case.op}]: {r.detail}"
        for r in results
        if r.status == "pass" and r.detail.startswith("passed with per-op tolerance")
    ]
    return lines


def by_op(results: Sequence[CaseResult]) -> dict[tuple[str, str], Counts]:
    table: dict[tuple[str, str], Counts] = {}
    for result in results:
        table.setdefault((result.case.suite, result.case.op), Counts()).add(result.status)
    return dict(sorted(table.items()))


def by_suite(results: Sequence[CaseResult]) -> dict[str, Counts]:
    table: dict[str, Counts] = {}
    for result in results:
        table.setdefault(result.case.suite, Counts()).add(result.status)
    return dict(sorted(table.items()))


def totals(results: Sequence[CaseResult]) -> Counts:
    counts = Counts()
    for result in results:
        counts.add(result.status)
    return counts


def _rows(results: Sequence[CaseResult]) -> list[tuple[str, str, Counts]]:
    rows = [(suite, op, counts) for (suite, op), counts in by_op(results).items()]
    suites = by_suite(results)
    if len(suites) > 1:
        rows += [(suite, "(all)", counts) for suite, counts in suites.items()]
    rows.append(("total", "", totals(results)))
    return rows


def summary_table(results: Sequence[CaseResult]) -> list[str]:
    """A fixed-width table by (folder, op) with per-folder and overall totals."""
    header = ("folder", "op", "passed", "failed", "error", "unsupported", "total")
    body = [
        (suite, op, *(str(c[s]) for s in STATUSES), str(c.total)) for suite, op, c in _rows(results)
    ]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def fmt(row: Sequence[str]) -> str:
        left = [row[i].ljust(widths[i]) for i in range(2)]
        right = [row[i].rjust(widths[i]) for i in range(2, len(row))]
        return "  ".join(left + right).rstrip()

    return [fmt(header), *(fmt(row) for row in body)]


def fallback_line(results: Sequence[CaseResult]) -> list[str]:
    """How many cases ran an op through the interpreter's kernels on a compiling backend."""
    ops = sorted({op for r in results for op in r.fallbacks})
    cases = sum(1 for r in results if r.fallbacks)
    if not cases:
        return []
    return [f"{cases} cases ran ops through interpreter kernels (fallbacks): {', '.join(ops)}"]


def final_lines(results: Sequence[CaseResult]) -> list[str]:
    counts = totals(results)
    return [
        *fallback_line(results),
        f"{counts['unsupported']} unsupported",
        f"{counts['pass']} passed, {counts['fail'] + counts['error']} failed",
    ]


def text_report(results: Sequence[CaseResult]) -> str:
    lines = case_lines(results)
    if lines:
        lines.append("")
    lines += summary_table(results)
    lines += final_lines(results)
    return "\n".join(lines) + "\n"


# -- files -----------------------------------------------------------------------------------


def write_json(path: str | Path, results: Sequence[CaseResult], meta: dict[str, Any]) -> None:
    counts = totals(results)
    document = {
        **meta,
        "summary": {
            "passed": counts["pass"],
            "failed": counts["fail"],
            "error": counts["error"],
            "unsupported": counts["unsupported"],
            "total": counts.total,
        },
        "cases": [r.to_json() for r in results],
    }
    Path(path).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")


def markdown_table(results: Sequence[CaseResult]) -> str:
    lines = [
        "| folder | op | passed | failed | error | unsupported | total |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for suite, op, c in _rows(results):
        cells = [suite, op] if suite != "total" else ["**total**", ""]
        if op == "(all)":
            cells = [f"**{suite}**", "(all)"]
        lines.append(
            "| " + " | ".join([*cells, *(str(c[s]) for s in STATUSES), str(c.total)]) + " |"
        )
    return "\n".join(lines)


def write_markdown(path: str | Path, results: Sequence[CaseResult], header: str = "") -> None:
    """Put the table between the result markers, keeping everything outside them."""
    path = Path(path)
    # Blank lines around the table: a table right after a paragraph is not a table in GFM.
    fallbacks = " ".join(fallback_line(results))
    block = "\n\n".join(
        part
        for part in (BEGIN_MARKER, header, markdown_table(results), fallbacks, END_MARKER)
        if part
    )
    if path.exists():
        text = path.read_text(encoding="utf-8")
        start, end = text.find(BEGIN_MARKER), text.find(END_MARKER)
        if start != -1 and end != -1 and end > start:
            text = text[:start] + block + text[end + len(END_MARKER) :]
        else:
            text = text.rstrip("\n") + ("\n\n" if text.strip() else "") + block + "\n"
    else:
        text = "# StableHLO conformance\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")


__all__ = [
    "BEGIN_MARKER",
    "END_MARKER",
    "Counts",
    "by_op",
    "by_suite",
    "case_line",
    "case_lines",
    "final_lines",
    "markdown_table",
    "summary_table",
    "text_report",
    "totals",
    "write_json",
    "write_markdown",
]
