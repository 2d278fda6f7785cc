"""Per-rank report files for the programs run under ``mpiexec``.

mpiexec forwards every rank's stdout through one pipe in chunks of its own choosing, so
one rank's line can be cut by another's (``OK ... rowsDONE 1 ...``). A test reads each
rank's own file instead, which no other process writes.
"""

from __future__ import annotations

import builtins
import os

from xlapy.distributed import process_info


def report_to(directory: str | None) -> None:
    """Also append every printed line to ``directory/rank<r>.txt`` (nothing when
    ``directory`` is None: the program then reports on stdout alone)."""
    if directory is None:
        return
    path = os.path.join(directory, f"rank{process_info().process_index}.txt")
    original = builtins.print

    def report(*values: object, **options: object) -> None:
        original(*values, **options)
        with open(path, "a") as f:
            f.write(" ".join(map(str, values)) + "\n")

    builtins.print = report
