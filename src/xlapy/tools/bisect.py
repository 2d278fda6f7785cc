"""``xlapy bisect FILE``: when the CPU backend disagrees with the interpreter, find why.

XLA's ``hlo-bisect`` and ``run_hlo_module --reduce``, in two steps:

1. *Which pass?* The CPU pipeline runs on the module with an observer that keeps a
   copy after every pass that changed it; the interpreter (the oracle) evaluates
   each copy. The first copy whose result differs from the original's names the
   pass that broke the program: an HLO rewrite bug.
2. *Which instructions?* When every copy agrees, the rewrites are sound and the
   bug is in code generation. The module is shrunk (``xlapy.tools.reduce``) to the
   smallest sub-graph whose CPU result still differs from the interpreter's, its
   inputs the values the interpreter computed for them. For a pass bug the module
   the culprit pass received is shrunk the same way, to the smallest sub-graph the
   pass still miscompiles.

Python API: :func:`bisect`, returning a :class:`BisectResult`.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..backends.interpreter import run as interpret
from ..client import CompileOptions, local_client
from ..errors import XlaError
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from .compare import Difference, first_difference, has_fft
from .inputs import concrete_module, describe_inputs, load_module, random_inputs, read_npz
from .pipelines import add_option_arguments, backend_options, build_pipeline, parse_options
from .reduce import Reduced, Reducer, ShowsBug


@dataclass
class BisectResult:
    """What ``bisect`` found. ``kind``: "agree" (nothing to find), "pass" (``culprit``
    is the first pass after which the interpreter's result changed) or "codegen"
    (every pass kept the result; the CPU's code for ``reduced`` is wrong)."""

    kind: str
    difference: Difference | None = None
    culprit: str | None = None
    pass_diff: str = ""  # the culprit's change, as a unified diff of the module text
    passes_checked: list[str] = field(default_factory=list)  # changed passes the interpreter ran
    passes_skipped: list[str] = field(default_factory=list)  # copies it could not run
    reduced: Reduced | None = None

    @property
    def agrees(self) -> bool:
        return self.kind == "agree"

    def report(self) -> str:
        """What ``xlapy bisect`` prints."""
        if self.agrees:
            return "no disagreement: the CPU backend computes what the interpreter computes"
        lines = [f"the CPU backend disagrees with the interpreter: {self.difference}"]
        checked = len(self.passes_checked)
        if self.kind == "pass":
            lines.append(f"culprit pass: {self.culprit} (the interpreter's result changed after it; "
                         f"{checked} changing passes checked)")  # fmt: skip
            lines.append(self.pass_diff.rstrip("\n"))
        else:
            lines.append(f"every pass kept the interpreter's result ({checked} changing passes "
                         "checked): the bug is in code generation")  # fmt: skip
        if self.passes_skipped:
            lines.append(
                f"(the interpreter could not run the module after: {', '.join(self.passes_skipped)})"
            )
        if self.reduced is not None:
            r = self.reduced
            what = f"the smallest module {self.culprit} still miscompiles" if self.kind == "pass" \
                else "the smallest module the CPU still gets wrong"  # fmt: skip
            lines.append(f"{what}: {r.size} instructions besides parameters "
                         f"(root {r.root}; {r.checks} candidates tried)")  # fmt: skip
            lines.append(r.module.to_text().rstrip("\n"))
            lines.append("inputs:")
            lines.append(describe_inputs(r.module, r.inputs))
        return "\n".join(lines)


class _Backend:
    """The CPU backend under test, compiled fresh every time: a bug being chased must not
    be hidden (or planted) by a program cached from another compile."""

    def __init__(self, backend_options: dict[str, Any] | None) -> None:
        self.options = {"cache": False, **(backend_options or {})}
        self.client = local_client("cpu")

    def run(self, module: HloModule, inputs: Sequence[Any]) -> Any:
        return self.client.compile(module, CompileOptions(backend_options=self.options))(*inputs)

    def shows_bug(self, module: HloModule, inputs: list[Any]) -> bool:
        """True when the CPU's result on ``module`` differs from the interpreter's; a module
        either rejects is not this bug."""
        try:
            want = interpret(module, *inputs)
            got = self.run(module, inputs)
        except Exception:  # noqa: BLE001 - a candidate that crashes shows another bug, not this one
            return False
        return first_difference(got, want, has_fft(module)) is not None


def _pass_shows_bug(hlo_pass: Any) -> ShowsBug:
    """True when running ``hlo_pass`` on a module changes the interpreter's result."""

    def shows_bug(module: HloModule, inputs: list[Any]) -> bool:
        try:
            want = interpret(module, *inputs)
            rewritten = module.clone()
            hlo_pass.run(rewritten)
            got = interpret(rewritten, *inputs)
        except Exception:  # noqa: BLE001 - as in _Backend.shows_bug
            return False
        return first_difference(got, want, has_fft(module)) is not None

    return shows_bug


def _snapshots(
    module: HloModule, backend_options: dict[str, Any] | None
) -> list[tuple[str, HloModule]]:
    """(pass, module after it) for every pass run that changed the module, in order."""
    taken: list[tuple[str, HloModule]] = []

    def observe(name: str, current: HloModule, changed: bool) -> None:
        if changed:
            taken.append((name, current.clone()))

    optimized = module.clone()
    build_pipeline("cpu", backend_options, observe, optimized).run(optimized)
    return taken


def _start_root(module: HloModule, difference: Difference | None) -> str:
    """The instruction computing the first differing output (a tuple root's operand)."""
    root = module.entry.root
    if (
        difference is not None
        and root.opcode is HloOpcode.TUPLE
        and all(op.shape.is_array for op in root.operands)
        and difference.output < root.operand_count
    ):
        operand = root.operand(difference.output)
        if operand.opcode not in (HloOpcode.PARAMETER, HloOpcode.CONSTANT):
            return operand.name
    return root.name


def bisect(
    module: Any,
    inputs: Sequence[Any] | None = None,
    seed: int = 0,
    backend_options: dict[str, Any] | None = None,
    reduce: bool = True,
    max_checks: int = 200,
) -> BisectResult:
    """Find the pass, or the smallest sub-graph, that makes the CPU backend disagree with
    the interpreter on ``module`` (see the module docstring). ``backend_options`` are the
    CPU's (``passes`` to bisect a pipeline of one's own); ``max_checks`` bounds the
    candidates the reduction compiles."""
    hlo = concrete_module(
        module, None if inputs is None else [np.asarray(a) for a in inputs], "bisect"
    )
    arguments = list(inputs) if inputs is not None else random_inputs(hlo, seed)
    backend = _Backend(backend_options)
    want = interpret(hlo, *arguments)
    difference = first_difference(backend.run(hlo, arguments), want, has_fft(hlo))
    if difference is None:
        return BisectResult("agree")
    result = BisectResult("codegen", difference)
    before = hlo
    for name, snapshot in _snapshots(hlo, backend_options):
        try:
            value = interpret(snapshot, *arguments)
        except XlaError:
            result.passes_skipped.append(name)
            continue
        result.passes_checked.append(name)
        if first_difference(value, want, has_fft(hlo)) is not None:
            result.kind, result.culprit = "pass", name
            result.pass_diff = "".join(difflib.unified_diff(
                before.to_text().splitlines(keepends=True), snapshot.to_text().splitlines(keepends=True),
                f"before {name}", f"after {name}",
            ))  # fmt: skip
            break
        before = snapshot
    if not reduce:
        return result
    if result.kind == "pass":
        culprit = build_pipeline("cpu", backend_options).find(result.culprit)
        shows_bug, start = _pass_shows_bug(culprit), before
        rewritten = before.clone()
        culprit.run(rewritten)
        start_diff = first_difference(
            interpret(rewritten, *arguments), interpret(before, *arguments)
        )
    else:
        shows_bug, start, start_diff = backend.shows_bug, hlo, difference
    flat = _flattened(start, backend_options)
    if flat is not None and shows_bug(flat, arguments):
        start = flat  # fusions and calls inlined: the reduction can reach inside them
    reducer = Reducer(start, arguments, shows_bug, max_checks)
    root = _start_root(start, start_diff)
    if not reducer.shows_bug_at(root):
        root = start.entry.root.name
    result.reduced = reducer.reduce(root)
    return result


_FLATTENING_PASSES = ("defuser", "call-inliner")


def _flattened(module: HloModule, backend_options: dict[str, Any] | None) -> HloModule | None:
    """``module`` with its fusions and calls inlined into the entry (by the pipeline's own
    passes), or None when it has none: the reduction only cuts entry instructions."""
    pipeline = build_pipeline("cpu", backend_options)
    flat, changed = module.clone(), False
    for name in _FLATTENING_PASSES:
        hlo_pass = pipeline.find(name)
        if hlo_pass is not None:
            changed |= bool(hlo_pass.run(flat))
    return flat if changed else None


def _command(args: argparse.Namespace) -> int:
    module = load_module(args.file)
    inputs = read_npz(args.inputs, module) if args.inputs else None
    options = parse_options(args.option, args.disable)
    backend_options("cpu", options)  # unknown names: one readable error
    result = bisect(
        module,
        inputs,
        seed=args.random,
        backend_options=options,
        reduce=not args.no_reduce,
        max_checks=args.max_checks,
    )
    print(result.report())
    if args.write_reduced and result.reduced is not None:
        with open(args.write_reduced, "w", encoding="utf-8") as f:
            f.write(result.reduced.module.to_text())
        np.savez(args.write_reduced.rsplit(".", 1)[0] + ".npz", *result.reduced.inputs)
        print(f"wrote {args.write_reduced} and its inputs (.npz)", file=sys.stderr)
    return 0 if result.agrees else 1


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy bisect``."""
    parser = commands.add_parser(
        "bisect",
        help="find the pass or the smallest sub-graph where the CPU disagrees with the interpreter",
    )
    parser.add_argument("file", help="HLO text (.hlo) or StableHLO text (.mlir)")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--inputs", help=".npz of arguments (named after parameters, or numbered)")
    given.add_argument("--random", type=int, default=0, metavar="SEED",
                       help="random arguments from this seed (default 0)")  # fmt: skip
    parser.add_argument(
        "--no-reduce", action="store_true", help="name the pass only; do not shrink"
    )
    parser.add_argument(
        "--max-checks", type=int, default=200, help="candidates to compile at most (default 200)"
    )
    parser.add_argument(
        "--write-reduced", metavar="FILE.hlo", help="write the reduced module (and FILE.npz)"
    )
    add_option_arguments(parser)
    parser.set_defaults(run=_command)
