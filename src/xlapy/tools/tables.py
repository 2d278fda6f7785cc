"""Aligned text tables for the terminal (bench summaries, job reports).

Markdown tables are for files; in a terminal people read columns, so the long
jobs print the same rows padded to a common width: text columns to the left,
numbers to the right, a rule under the header.
"""

from __future__ import annotations

from collections.abc import Sequence


def aligned_table(
    header: Sequence[str], rows: Sequence[Sequence[str]], left_columns: int = 1, gap: int = 2
) -> list[str]:
    """The lines of a table: the first ``left_columns`` columns flush left, the rest
    flush right, a rule of dashes under the header. Every row must have as many cells
    as the header."""
    width = len(header)
    for row in rows:
        if len(row) != width:
            raise ValueError(
                f"aligned_table: a row has {len(row)} cells, the header {width}: {list(row)}"
            )
    widths = [max(len(str(line[k])) for line in [header, *rows]) for k in range(width)]
    spacer = " " * gap

    def fmt(line: Sequence[str]) -> str:
        cells = [
            str(cell).ljust(w) if k < left_columns else str(cell).rjust(w)
            for k, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        return spacer.join(cells).rstrip()

    head = fmt(header)
    return [head, "-" * len(spacer.join("x" * w for w in widths)), *(fmt(r) for r in rows)]


__all__ = ["aligned_table"]
