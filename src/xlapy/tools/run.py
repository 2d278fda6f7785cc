"""``xlapy run FILE``: compile a module, run it, time it, and check it against a reference.

XLA's ``run_hlo_module``: the quickest answer to "does this program run here, how
fast, and does it compute what the interpreter computes?". The arguments come
from an ``.npz`` file or are drawn at random by type (``xlapy.tools.inputs``); the
comparison is the project's op-aware one (``xlapy.tools.compare``) and names the
first differing output, index and both values. Python API: :func:`run_module`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..client import CompileOptions, local_client
from ..errors import InvalidArgumentError
from .compare import Difference, first_difference, has_fft
from .inputs import (
    concrete_module,
    describe_inputs,
    leaves,
    load_module,
    random_inputs,
    read_npz,
    write_npz,
)
from .pipelines import PIPELINES, add_option_arguments, backend_options, parse_options
from .progress import Progress

# A progress bar for the iterations only when they take long enough to wait for.
PROGRESS_AFTER_SECONDS = 1.0


@dataclass
class RunResult:
    """What one ``run_module`` did: the outputs, the times, and the reference's verdict."""

    module: Any
    inputs: list[Any]
    outputs: Any
    platform: str
    compile_seconds: float
    run_seconds: list[float] = field(default_factory=list)
    reference: str | None = None
    reference_outputs: Any = None
    difference: Difference | None = None

    @property
    def agrees(self) -> bool:
        """True when there is no reference or the reference computes the same."""
        return self.difference is None

    @property
    def min_seconds(self) -> float:
        return min(self.run_seconds)

    @property
    def median_seconds(self) -> float:
        return statistics.median(self.run_seconds)

    def summary(self) -> str:
        """The lines ``xlapy run`` prints: times, then the reference's verdict."""
        lines = [
            f"{self.module.name}: compiled for {self.platform} in {_ms(self.compile_seconds)}",
            f"run x{len(self.run_seconds)}: min {_ms(self.min_seconds)}, "
            f"median {_ms(self.median_seconds)}",
        ]
        if self.reference is not None:
            verdict = "agrees" if self.agrees else f"DISAGREES: {self.difference}"
            lines.append(f"{self.platform} vs {self.reference}: {verdict}")
        return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def run_module(
    module: Any,
    inputs: Sequence[Any] | None = None,
    seed: int = 0,
    platform: str = "cpu",
    reference: str | None = None,
    iterations: int = 1,
    backend_options: dict[str, Any] | None = None,
    progress: bool = False,
) -> RunResult:
    """Compile ``module`` (an HloModule, or a StableHLO PolymorphicModule with ``inputs``)
    for ``platform``, run it ``iterations`` times on ``inputs`` (random by ``seed`` when
    None) and, with ``reference`` (a platform, e.g. "interpreter"), compare the outputs.
    ``progress``: show the iterations' progress on stderr when they would take more than
    ``PROGRESS_AFTER_SECONDS`` (judged from the first one)."""
    if iterations < 1:
        raise InvalidArgumentError(f"run_module: iterations must be at least 1, got {iterations}")
    hlo = concrete_module(
        module, None if inputs is None else [np.asarray(a) for a in inputs], "run"
    )
    arguments = list(inputs) if inputs is not None else random_inputs(hlo, seed)
    start = time.perf_counter()
    executable = local_client(platform).compile(
        hlo, CompileOptions(backend_options=dict(backend_options or {}))
    )
    compile_seconds = time.perf_counter() - start
    times: list[float] = []
    outputs = None
    shown: Progress | None = None
    try:
        for _ in range(iterations):
            start = time.perf_counter()
            outputs = executable(*arguments)
            times.append(time.perf_counter() - start)
            if shown is None and progress and times[0] * iterations > PROGRESS_AFTER_SECONDS:
                shown = Progress("xlapy run", total=iterations, unit="runs")
                shown.update(len(times) - 1)
            if shown is not None:
                shown.update()
    finally:
        if shown is not None:
            shown.close()
    result = RunResult(hlo, arguments, outputs, platform, compile_seconds, times)
    if reference is not None:
        result.reference = reference
        result.reference_outputs = local_client(reference).compile(hlo)(*arguments)
        result.difference = first_difference(outputs, result.reference_outputs, has_fft(hlo))
    return result


def _print_outputs(outputs: Any) -> None:
    for k, leaf in enumerate(leaves(outputs)):
        text = (
            "token"
            if leaf is None
            else np.array2string(np.asarray(leaf), threshold=1000, separator=", ")
        )
        print(f"output {k}: {text}")


def _command(args: argparse.Namespace) -> int:
    module = load_module(args.file)
    inputs = read_npz(args.inputs, module) if args.inputs else None
    options = parse_options(args.option, args.disable)
    if options and args.platform in PIPELINES:
        backend_options(args.platform, options)  # unknown names: one readable error
    result = run_module(
        module,
        inputs=inputs,
        seed=args.random,
        platform=args.platform,
        reference=args.reference,
        iterations=args.iterations,
        backend_options=options,
        progress=True,
    )
    print(result.summary())
    if args.print:
        print(describe_inputs(result.module, result.inputs))
        _print_outputs(result.outputs)
    if args.output:
        write_npz(args.output, result.outputs)
        print(f"wrote {args.output}")
    if not result.agrees:
        print(f"xlapy run: {result.platform} disagrees with {result.reference}: {result.difference}",
              file=sys.stderr)  # fmt: skip
        return 1
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy run``."""
    parser = commands.add_parser(
        "run", help="compile and run a module, time it, compare with a reference (run_hlo_module)"
    )
    parser.add_argument("file", help="HLO text (.hlo) or StableHLO text (.mlir); - for stdin")
    parser.add_argument("--platform", default="cpu", help="cpu, interpreter or gpu (default cpu)")
    parser.add_argument("--reference", help="compare with this platform (e.g. interpreter)")
    given = parser.add_mutually_exclusive_group()
    given.add_argument("--inputs", help=".npz of arguments (named after parameters, or numbered)")
    given.add_argument("--random", type=int, default=0, metavar="SEED",
                       help="random arguments from this seed (default 0)")  # fmt: skip
    parser.add_argument("--iterations", type=int, default=1, help="runs to time (default 1)")
    parser.add_argument("--print", action="store_true", help="print the arguments and outputs")
    parser.add_argument("--output", help="write the outputs to this .npz")
    add_option_arguments(parser)
    parser.set_defaults(run=_command)
