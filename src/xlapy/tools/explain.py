"""``xlapy explain FILE -o report.html``: one page that shows what the CPU compiler did.

The page (self-contained HTML, no network) has the module before and after
optimization side by side, a diff for every pass that changed it, every fusion
decision with the policy's reason, the buffer assignment as a chart of arena offsets
over the schedule, each kernel's LLVM IR and assembly, and a drawing of the
optimized module. docs/explain.md describes the sections.

Python: ``explain(module) -> str`` (the HTML) and ``write_report(module, path)``.
"""

from __future__ import annotations

import argparse
import os

from ..backends.cpu.runtime.executable import CpuOptions
from ..errors import InvalidArgumentError, XlaError
from ..hlo import parse_module
from ..hlo.module import HloModule
from ..stablehlo import parse_module as parse_stablehlo
from .explain_report.capture import CompileRecord, capture
from .explain_report.page import render_page


def explain(module: HloModule, options: CpuOptions | None = None) -> str:
    """The report on compiling ``module`` for the CPU, as one HTML document.

    ``options``: the CPU options to compile with (``CpuOptions``; the default one
    otherwise). The module itself is not changed: a clone is compiled.
    """
    return render_page(capture(_checked(module), options))


def explain_record(module: HloModule, options: CpuOptions | None = None) -> CompileRecord:
    """What the report is made from (for tools and tests that read it as data)."""
    return capture(_checked(module), options)


def write_report(module: HloModule, path: str, options: CpuOptions | None = None) -> str:
    """Write ``explain(module)`` to ``path``; returns the path."""
    page = explain(module, options)
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(page)
    return path


def _checked(module: object) -> HloModule:
    if not isinstance(module, HloModule):
        raise InvalidArgumentError(
            f"explain takes an HloModule, not {type(module).__name__}; a shape-polymorphic "
            "StableHLO module must be refined to static shapes first"
        )
    return module


def load_module(path: str) -> HloModule:
    """An HLO text file, or StableHLO text when the name ends in ``.mlir``."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise XlaError(f"cannot read {path}: {e.strerror}") from None
    module = parse_stablehlo(text, path) if path.endswith(".mlir") else parse_module(text)
    return _checked(module)


def _run(args: argparse.Namespace) -> int:
    options = CpuOptions(
        opt_level=args.opt_level,
        target_cpu=args.target_cpu,
        disabled_passes=frozenset(filter(None, (args.disable_passes or "").split(","))),
    )
    write_report(load_module(args.file), args.output, options)
    print(f"wrote {args.output}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy explain`` to the command line."""
    parser = commands.add_parser(
        "explain",
        help="an HTML report of how the CPU compiler optimizes, fuses, lays out and "
        "compiles a module",
    )
    parser.add_argument("file", help="HLO text (.hlo) or StableHLO text (.mlir)")
    parser.add_argument("-o", "--output", required=True, help="the report to write (.html)")
    parser.add_argument("--opt-level", type=int, default=3, help="LLVM optimization level")
    parser.add_argument("--target-cpu", help="LLVM CPU name to compile for (default: host)")
    parser.add_argument(
        "--disable-passes", help="comma-separated passes to leave out of the pipeline"
    )
    parser.set_defaults(run=_run)


__all__ = ["explain", "explain_record", "load_module", "register", "write_report"]
