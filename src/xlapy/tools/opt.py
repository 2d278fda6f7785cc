"""``xlapy opt FILE``: run named passes, or a compiler's whole pipeline, and print the module.

XLA's ``hlo-opt``. The passes are the pipeline's own instances, looked up by name, so
each runs with the configuration the compiler gives it (the CPU's gather expander
keeps the row gathers its emitter handles). ``--until PASS`` stops right after the
first run of that pass: what the module looked like when that pass was done with
it. ``--list`` names every pass in run order with the sub-pipeline it sits in.
Python API: :func:`optimize`, :func:`list_passes`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError, UnimplementedError
from ..hlo.module import HloModule
from ..passes.pass_base import PassPipeline
from .inputs import load_module
from .pipelines import PIPELINES, add_option_arguments, build_pipeline, parse_options


@dataclass
class OptResult:
    """The optimized module, the passes that ran (one entry per run) and where it stopped."""

    module: HloModule
    runs: list[tuple[str, bool]] = field(default_factory=list)  # (pass name, changed)
    stopped_after: str | None = None

    @property
    def changed_passes(self) -> list[str]:
        return [name for name, changed in self.runs if changed]


class _Stop(Exception):
    """Raised by the observer to leave the pipeline right after the ``--until`` pass."""


def list_passes(
    platform: str = "cpu", options: dict[str, Any] | None = None
) -> list[tuple[str, str]]:
    """(pass name, sub-pipeline path) of every pass of the pipeline, in run order."""
    return [(p.name, path) for path, p in build_pipeline(platform, options).walk()]


def _selected(pipeline: PassPipeline, names: Sequence[str], platform: str) -> PassPipeline:
    """A pipeline of the named passes (the pipeline's own instances), in the order given."""
    valid = sorted(pipeline.pass_names())
    unknown = [name for name in names if pipeline.find(name) is None]
    if unknown:
        raise InvalidArgumentError(
            f"opt: no pass named {', '.join(unknown)} in the {platform} pipeline; "
            f"the passes are {', '.join(valid)}"
        )
    return PassPipeline(
        name="opt", passes=[pipeline.find(name) for name in names], options=pipeline.options
    )


def optimize(
    module: HloModule,
    passes: Sequence[str] | None = None,
    until: str | None = None,
    platform: str = "cpu",
    options: dict[str, Any] | None = None,
    verify: bool = True,
) -> OptResult:
    """Run ``passes`` (names, in that order; None: the whole pipeline of ``platform``) on
    a copy of ``module``, verifying after every pass that changed it, stopping after
    the first run of ``until``. The input module is left as it was."""
    if not isinstance(module, HloModule):
        raise UnimplementedError(
            f"opt: {getattr(module, 'name', module)} is shape-polymorphic; passes need static "
            "shapes (refine it first, or export it with concrete shapes)"
        )
    result = OptResult(module.clone())

    def observe(name: str, _module: HloModule, changed: bool) -> None:
        result.runs.append((name, changed))
        if name == until:
            result.stopped_after = name
            raise _Stop

    pipeline = build_pipeline(platform, options, observe, result.module)
    pipeline.options.verify = verify
    if passes is not None:
        pipeline = _selected(pipeline, list(passes), platform)
    if until is not None and pipeline.find(until) is None:
        raise InvalidArgumentError(
            f"opt: --until {until}: the passes run are {', '.join(sorted(pipeline.pass_names()))}"
        )
    try:
        pipeline.run(result.module)
    except _Stop:
        pass
    return result


def _command(args: argparse.Namespace) -> int:
    if args.list:
        for name, path in list_passes(args.pipeline, parse_options(args.option, args.disable)):
            print(f"{name}\t{path}")
        return 0
    if args.file is None:
        raise InvalidArgumentError("opt: give a module file (or --list)")
    passes = [p.strip() for p in args.passes.split(",") if p.strip()] if args.passes else None
    options = parse_options(args.option, args.disable)
    result = optimize(load_module(args.file), passes, args.until, args.pipeline, options)
    sys.stdout.write(result.module.to_text())
    if args.stats:
        changed = result.changed_passes
        print(f"# {len(result.runs)} pass runs, {len(changed)} changed: {', '.join(changed)}",
              file=sys.stderr)  # fmt: skip
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy opt``."""
    parser = commands.add_parser("opt", help="run passes and print the module (hlo-opt)")
    parser.add_argument("file", nargs="?", help="HLO text (.hlo) or StableHLO text (.mlir)")
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument("--passes", help="comma-separated pass names, run once each in this order")
    chosen.add_argument("--list", action="store_true",
                        help="print every pass of the pipeline in run order, and its sub-pipeline")  # fmt: skip
    parser.add_argument("--pipeline", default="cpu", choices=sorted(PIPELINES),
                        help="whose pipeline (and pass configuration) to use (default cpu)")  # fmt: skip
    parser.add_argument("--until", metavar="PASS", help="stop after the first run of PASS")
    parser.add_argument(
        "--stats", action="store_true", help="say which passes changed the module (stderr)"
    )
    add_option_arguments(parser)
    parser.set_defaults(run=_command)


__all__ = ["OptResult", "list_passes", "optimize", "register"]
