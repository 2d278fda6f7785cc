"""``xlapy aot MODULE.(hlo|mlir) --name NAME -o OUTDIR``: an object and header, no Python.

``--report`` prints the object's footprint read back from its ELF symbol table: the
size of every function (the C entry, each kernel, the GEMM) and data object (each
constant), then the totals per kind of section.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..tools.inputs import load_module
from .build import AotResult, compile


def register(commands: Any) -> None:
    """Add ``xlapy aot``."""
    parser = commands.add_parser(
        "aot", help="compile a module ahead of time to NAME.o + NAME.h (C interface, no Python)"
    )
    parser.add_argument("file", help="HLO text (.hlo) or StableHLO text (.mlir); - for stdin")
    parser.add_argument("--name", required=True, help="C name prefix (NAME_run, NAME.o, NAME.h)")
    parser.add_argument("-o", "--outdir", required=True, help="directory for NAME.o and NAME.h")
    parser.add_argument("--target-triple", help="LLVM triple (default the host's), e.g. "
                        "x86_64-unknown-linux-gnu, aarch64-unknown-linux-gnu")  # fmt: skip
    parser.add_argument("--cpu", help="LLVM CPU (x86-64-v2/v3/v4, a CPU name, host; default: "
                        "host for the host's triple, else a baseline)")  # fmt: skip
    parser.add_argument("--features", help="LLVM features, e.g. +avx2,-avx512f")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads for large kernels (default 1: all on the caller's thread)")  # fmt: skip
    parser.add_argument("--report", action="store_true", help="print code/data sizes per kernel")
    parser.set_defaults(run=run_command)


def run_command(args: argparse.Namespace) -> int:
    module = load_module(args.file)
    result = compile(
        module, args.name, outdir=args.outdir, target=args.target_triple, cpu=args.cpu,
        features=args.features, threads=args.threads,
    )  # fmt: skip
    print(f"wrote {result.paths['object']} and {result.paths['header']} for {result.target}")
    if result.external_symbols:
        print(f"link C custom-call targets: {', '.join(result.external_symbols)}")
    if args.report:
        print(report(result))
    return 0


def report(result: AotResult) -> str:
    """The footprint table: one row per sized symbol, largest first, then totals."""
    facts = result.elf
    rows = sorted(facts.symbols, key=lambda s: (-s.size, s.name))
    width = max([len(s.name) for s in rows] + [6])
    lines = [f"{'symbol':<{width}}  {'kind':<8}  {'section':<14}  {'bytes':>9}"]
    for symbol in rows:
        lines.append(
            f"{symbol.name:<{width}}  {symbol.kind:<8}  {symbol.section:<14}  {symbol.size:>9}"
        )
    sizes = result.sizes
    lines.append(
        f"total: code {sizes['code']} B, read-only data {sizes['rodata']} B, data "
        f"{sizes['data']} B, zeroed {sizes['bss']} B; temp arena {result.temp_bytes} B "
        f"(the caller's); object file {len(result.object_bytes)} B"
    )
    if facts.undefined:
        lines.append(
            f"undefined symbols (libc/libm/pthreads, C targets): {', '.join(facts.undefined)}"
        )
    return "\n".join(lines)


__all__ = ["register", "report", "run_command"]
