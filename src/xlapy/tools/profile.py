"""``xlapy profile FILE``: where a program's time goes, kernel by kernel.

Compiles an HLO (``.hlo``) or StableHLO (``.mlir``) module for the CPU with per-thunk
timestamps (``CpuOptions.profile``), runs it ``--iterations`` times on the inputs of
an ``.npz`` file or on random ones, prints the table (kernel, time, bytes, FLOPs,
achieved fraction of the machine's bandwidth and peak, which bound applies, share)
and writes the events as a Chrome/Perfetto trace (``-o trace.json``; open it in
ui.perfetto.dev). :func:`profile_file` is the same as a Python function;
``Executable.profile`` profiles an executable already at hand.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .. import client as client_module
from ..errors import InvalidArgumentError
from .inputs import concrete_module, load_module, random_inputs, read_npz
from .trace_timeline import write_timeline


def profile_file(
    path: str,
    iterations: int = 1,
    inputs: str | None = None,
    seed: int = 0,
    capacity: int = 1 << 16,
) -> Any:
    """Profile the module in ``path`` on the CPU; returns the ``Profile``. Arguments
    come from ``inputs`` (an ``.npz`` file) or are drawn from ``seed``, as ``xlapy run``
    draws them (``tools.inputs``)."""
    loaded = load_module(path)
    arguments = read_npz(inputs, loaded) if inputs else None
    module = concrete_module(loaded, arguments, "xlapy profile")
    if arguments is None:
        arguments = random_inputs(module, seed)
    executable = client_module.local_client("cpu").compile(module)
    return executable.profile(*arguments, iterations=iterations, capacity=capacity)


def _run(args: argparse.Namespace) -> int:
    if args.iterations < 1:
        raise InvalidArgumentError(f"--iterations must be at least 1, got {args.iterations}")
    report = profile_file(
        args.file,
        iterations=args.iterations,
        inputs=args.inputs,
        seed=args.random,
        capacity=args.capacity,
    )
    sys.stdout.write(report.table(limit=args.top))
    if args.output:
        report.write_chrome_trace(args.output)
        print(f"wrote {args.output} ({len(report.events)} events; open it in ui.perfetto.dev)")
    if args.html:
        write_timeline(report.to_chrome_trace(), args.html)
        print(f"wrote {args.html} (the trace as a timeline page; open it in a browser)")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    """Add ``xlapy profile`` to the command line."""
    parser = commands.add_parser(
        "profile",
        help="time every kernel of a module on the CPU: table and Chrome/Perfetto trace",
    )
    parser.add_argument("file", help="HLO text (.hlo) or StableHLO text (.mlir)")
    parser.add_argument("-o", "--output", help="write the trace here (Chrome trace JSON)")
    parser.add_argument(
        "--html", metavar="FILE", help="write the trace as a self-contained timeline page"
    )
    parser.add_argument("--iterations", type=int, default=1, help="runs to average over")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--inputs", help=".npz file with one array per parameter")
    source.add_argument(
        "--random", type=int, default=0, metavar="SEED", help="random inputs from SEED"
    )
    parser.add_argument("--top", type=int, help="print only the N most expensive kernels")
    parser.add_argument(
        "--capacity", type=int, default=1 << 16, help="events kept per run (default 65536)"
    )
    parser.set_defaults(run=_run)
