"""Finding the cases and running them in worker processes.

A conformance program can crash the process (a recursion, a native fault) or
never end (a while loop whose condition stays true), and one such case must
not take the rest of the run with it. So cases run in long-lived worker
processes, one case at a time each, with a deadline per case: a worker that
overruns it is killed, one that dies is noticed by its closed pipe, and in
both cases the case is reported as an error and a fresh worker takes over.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import re
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..stablehlo import split_sections as parser_split_sections
from .execute import run_section

DEFAULT_TIMEOUT = 60.0
CASES_PER_WORKER = 50  # a fresh process now and then keeps memory growth in check
STATUSES = ("pass", "fail", "error", "unsupported")


@dataclass(frozen=True)
class Case:
    """One ``// -----`` section of one file; ``name`` is how reports refer to it."""

    file: str  # "<suite>/<file name>", e.g. "interpret/add.mlir"
    path: str
    section: int  # 0-based
    line: int  # 1-based line of the file where the section starts
    suite: str  # the folder: "testdata", "interpret", ...
    op: str  # the op under test (see op_of)
    name: str
    text: str = field(repr=False, compare=False)


@dataclass
class CaseResult:
    case: Case
    status: str
    detail: str = ""
    tolerance: str = ""
    seconds: float = 0.0
    checks: int = 0
    printed: list[str] = field(default_factory=list)
    fallbacks: list[str] = field(default_factory=list)  # ops the cpu backend did not compile

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.case.file,
            "path": self.case.path,
            "section": self.case.section,
            "line": self.case.line,
            "suite": self.case.suite,
            "op": self.case.op,
            "status": self.status,
            "detail": self.detail,
            "tolerance": self.tolerance,
            "seconds": round(self.seconds, 4),
            "checks": self.checks,
            "printed": list(self.printed),
            "fallbacks": list(self.fallbacks),
        }


# -- finding cases ---------------------------------------------------------------------------

_SIZE_TOKEN = re.compile(r"^\d+(x\d+)*$")
_DTYPE_TOKEN = re.compile(r"^(bool|u?int\d+|float\d+|bfloat16|complex\d+|f8\w*|float8\w*|chlo)$")


def op_of(path: str | Path, suite: str | None = None) -> str:
    """The op a file tests: for ``testdata`` the file name up to its first type or size
    (``abs_complex64_20_20`` -> ``abs``, ``reduce_window_min_float16_4_6`` ->
    ``reduce_window_min``), elsewhere the file name (``interpret/add.mlir`` -> ``add``)."""
    path = Path(path)
    suite = suite if suite is not None else path.parent.name
    stem = path.stem
    if suite != "testdata":
        return stem
    words: list[str] = []
    for token in stem.split("_"):
        if not token or _SIZE_TOKEN.match(token) or _DTYPE_TOKEN.match(token):
            break
        words.append(token)
    return "_".join(words) or stem


def mlir_files(paths: Iterable[str | Path]) -> list[Path]:
    """Every ``.mlir`` file under the given folders (sorted), and the given files."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*.mlir") if p.is_file()))
        elif path.is_file():
            found.append(path)
        else:
            raise FileNotFoundError(f"no such file or folder: {path}")
    return found


def split_sections(text: str) -> list[tuple[int, str]]:
    """(first line, text) per ``// -----`` section, cut where the importer cuts them."""
    return parser_split_sections(text)


def find_cases(paths: Iterable[str | Path], filter: str | None = None) -> list[Case]:
    cases: list[Case] = []
    for path in mlir_files(paths):
        suite = path.parent.name
        display = f"{suite}/{path.name}"
        if filter and filter not in display:
            continue
        text = path.read_text(encoding="utf-8")
        sections = split_sections(text)
        op = op_of(path, suite)
        for index, (line, section) in enumerate(sections):
            name = display if len(sections) == 1 else f"{display}:{line}"
            # Leading blank lines keep the importer's line numbers those of the file.
            padded = "\n" * (line - 1) + section
            cases.append(Case(display, str(path), index, line, suite, op, name, padded))
    return cases


# -- running ---------------------------------------------------------------------------------


def run_one(case: Case, backend: str) -> CaseResult:
    """Run a case in this process (no isolation, no deadline)."""
    outcome = run_section(case.text, backend, case.op, case.path)
    return CaseResult(
        case,
        outcome.status,
        outcome.detail,
        outcome.tolerance,
        outcome.seconds,
        outcome.checks,
        outcome.printed,
        outcome.fallbacks,
    )


def _worker_main(connection: Any, backend: str) -> None:
    """A worker: run the cases it is sent until told to stop (None)."""
    # Stray prints of the library would land in the middle of the report: send them to stderr.
    try:
        os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    sys.stdout = sys.stderr
    while True:
        try:
            message = connection.recv()
        except EOFError:
            return
        if message is None:
            return
        index, text, op, path = message
        outcome = run_section(text, backend, op, path)
        connection.send((index, asdict(outcome)))


class _Worker:
    def __init__(self, context: Any, backend: str) -> None:
        self.connection, child = context.Pipe()
        self.process = context.Process(
            target=_worker_main, args=(child, backend), daemon=True, name="xlapy-conformance"
        )
        self.process.start()
        child.close()
        self.index: int | None = None
        self.started = 0.0
        self.done = 0

    def send(self, index: int, case: Case) -> None:
        self.index, self.started = index, time.monotonic()
        self.connection.send((index, case.text, case.op, case.path))

    def stop(self, kill: bool = False) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.connection.send(None)
            except (OSError, BrokenPipeError):
                self.process.kill()
        self.process.join(5)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def _context() -> Any:
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["xlapy.conformance.execute"])
        return context
    return multiprocessing.get_context("spawn")


def run_cases(
    cases: Sequence[Case],
    backend: str = "interpreter",
    jobs: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    on_result: Callable[[CaseResult, int, int], None] | None = None,
) -> list[CaseResult]:
    """Run every case; results come back in the order of ``cases``.

    ``jobs`` workers run at once (default: the CPU count); ``jobs=0`` runs
    everything in this process without deadlines, for debugging.
    """
    total = len(cases)
    results: list[CaseResult | None] = [None] * total
    finished = 0

    def finish(index: int, result: CaseResult) -> None:
        nonlocal finished
        results[index] = result
        finished += 1
        if on_result is not None:
            on_result(result, finished, total)

    if jobs == 0:
        for index, case in enumerate(cases):
            finish(index, run_one(case, backend))
        return [r for r in results if r is not None]

    jobs = max(1, min(jobs or os.cpu_count() or 1, total or 1))
    context = _context()
    pending = list(range(total))
    pending.reverse()  # pop() from the end hands cases out in order
    workers: list[_Worker] = []
    try:
        while pending or any(w.index is not None for w in workers):
            while pending and len([w for w in workers if w.index is not None]) < jobs:
                idle = next((w for w in workers if w.index is None), None)
                if idle is None:
                    idle = _Worker(context, backend)
                    workers.append(idle)
                index = pending.pop()
                try:
                    idle.send(index, cases[index])
                except (OSError, BrokenPipeError):
                    workers.remove(idle)
                    idle.stop(kill=True)
                    pending.append(index)
            busy = [w for w in workers if w.index is not None]
            now = time.monotonic()
            wait = min(max(0.0, w.started + timeout - now) for w in busy) if busy else 0.0
            ready = multiprocessing.connection.wait([w.connection for w in busy], timeout=wait)
            for worker in busy:
                index = worker.index
                assert index is not None
                case = cases[index]
                if worker.connection in ready:
                    try:
                        got, outcome = worker.connection.recv()
                    except (EOFError, OSError):
                        code = worker.process.exitcode
                        worker.process.join(1)
                        code = worker.process.exitcode if code is None else code
                        seconds = time.monotonic() - worker.started
                        finish(
                            index,
                            CaseResult(
                                case,
                                "error",
                                f"the worker process died running this case (exit code {code})",
                                seconds=seconds,
                            ),
                        )
                        workers.remove(worker)
                        worker.stop(kill=True)
                        continue
                    result = CaseResult(case, **outcome)
                    finish(got, result)
                    worker.index = None
                    worker.done += 1
                    if worker.done >= CASES_PER_WORKER:
                        workers.remove(worker)
                        worker.stop()
                elif time.monotonic() - worker.started >= timeout:
                    finish(
                        index,
                        CaseResult(
                            case,
                            "error",
                            f"timed out after {timeout:g} s (the worker was stopped)",
                            seconds=time.monotonic() - worker.started,
                        ),
                    )
                    workers.remove(worker)
                    worker.stop(kill=True)
    finally:
        for worker in workers:
            worker.stop(kill=worker.index is not None)
    return [r for r in results if r is not None]


__all__ = [
    "CASES_PER_WORKER",
    "DEFAULT_TIMEOUT",
    "STATUSES",
    "Case",
    "CaseResult",
    "find_cases",
    "mlir_files",
    "op_of",
    "run_cases",
    "run_one",
    "split_sections",
]
