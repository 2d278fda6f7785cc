"""The ``xlapy`` command.

``xlapy hlo render FILE.hlo -o graph.svg`` draws a module; ``xlapy hlo print``
re-prints it (short or verbose form), ``xlapy hlo verify`` checks it. Errors in
the input are reported as one readable message (with line, column and caret)
and exit status 1, never as a traceback.

``xlapy ops [NAME]`` is the op atlas (``xlapy.atlas``): for each opcode, the
file and line of its shape rule, builder, evaluator kernel, StableHLO lowering
and CPU path, and the tests that mention it.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence

from . import atlas
from . import client as client_module
from .aot import command as aot
from .errors import XlaError
from .hlo import parse_module
from .hlo.graph import render
from .service import command as serve
from .tools import bisect, explain, opt, profile, run
from .tools.inputs import load_module, read_text

# Commands that live in modules of their own, each adding its parser with ``register``.
COMMANDS = (run, opt, explain, profile, bisect, serve, aot)


def _load_module(path: str):
    return parse_module(read_text(path))


def _hlo_render(args: argparse.Namespace) -> int:
    module = _load_module(args.file)
    render(module, args.output)
    print(f"wrote {args.output}")
    return 0


def _hlo_print(args: argparse.Namespace) -> int:
    module = _load_module(args.file)
    sys.stdout.write(module.to_text(verbose=args.verbose))
    return 0


def _hlo_verify(args: argparse.Namespace) -> int:
    module = _load_module(args.file)
    module.verify()
    print(f"{args.file}: ok ({len(module.computations)} computations)")
    return 0


def _ops(args: argparse.Namespace) -> int:
    entries = atlas.atlas()
    if args.families:
        offences = atlas.family_offences()
        for layer, opcode, site in offences:
            print(f"{site.path}:{site.line}: {layer} files {opcode.value} ({opcode.family}) "
                  f"in {site.module}")  # fmt: skip
        return 1 if offences else 0
    chosen = list(entries.values()) if args.name is None else [entries[atlas.lookup(args.name)]]
    if args.json:
        json.dump([e.as_json() for e in chosen], sys.stdout, indent=1)
        sys.stdout.write("\n")
    elif args.name is None:
        sys.stdout.write(atlas.table(chosen))
    else:
        sys.stdout.write(atlas.describe(chosen[0]))
    return 0


def _compile(args: argparse.Namespace) -> int:
    """Compile a module ahead of running it; with ``--dump-dir`` the optimized HLO and
    (platform gpu) the PTX of every kernel are written there. Needs no GPU."""
    module = load_module(args.file)
    options: dict[str, object] = {}
    if args.dump_dir:
        options["dump_dir"] = args.dump_dir
    if args.gpu_arch:
        if args.platform != "gpu":
            raise XlaError("--gpu-arch applies to --platform gpu only")
        options["gpu_arch"] = args.gpu_arch
    client = client_module.LocalClient(args.platform)
    executable = client.compile(module, client_module.CompileOptions(backend_options=options))
    program = getattr(executable._executable, "program", None)
    kernels = getattr(program, "kernel_count", None)
    what = f", {kernels} kernels for {program.arch}" if args.platform == "gpu" else ""
    where = f"; wrote {args.dump_dir}" if args.dump_dir else ""
    print(f"{args.file}: compiled for {args.platform}{what}{where}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="xlapy", description="XLA in Python")
    commands = parser.add_subparsers(dest="command", required=True)
    hlo = commands.add_parser("hlo", help="work with HLO text files")
    hlo_commands = hlo.add_subparsers(dest="hlo_command", required=True)

    render = hlo_commands.add_parser("render", help="draw a module with Graphviz")
    render.add_argument("file", help="HLO text file (- for standard input)")
    render.add_argument("-o", "--output", required=True, help="output .svg, .png, .pdf or .dot")
    render.set_defaults(run=_hlo_render)

    show = hlo_commands.add_parser("print", help="parse and print a module again")
    show.add_argument("file", help="HLO text file (- for standard input)")
    show.add_argument("--verbose", action="store_true", help="long form with %% names and shapes")
    show.set_defaults(run=_hlo_print)

    verify = hlo_commands.add_parser("verify", help="parse and verify a module")
    verify.add_argument("file", help="HLO text file (- for standard input)")
    verify.set_defaults(run=_hlo_verify)

    ops = commands.add_parser(
        "ops", help="the op atlas: where each layer handles each opcode (file:line)"
    )
    ops.add_argument(
        "name", nargs="?", help="one opcode (HLO text name, e.g. gather, or builder, e.g. Gather)"
    )
    ops.add_argument("--json", action="store_true", help="machine-readable output")
    ops.add_argument(
        "--families", action="store_true",
        help="list the places that file an opcode outside a module named after its family",
    )  # fmt: skip
    ops.set_defaults(run=_ops)

    compile_ = commands.add_parser(
        "compile", help="compile an HLO (.hlo) or StableHLO (.mlir) module; no device needed"
    )
    compile_.add_argument("file", help="module file (- for standard input: HLO text)")
    compile_.add_argument("--platform", default="cpu", help="cpu, gpu or interpreter")
    compile_.add_argument("--gpu-arch", help="sm_80, sm_90... (platform gpu; default sm_90)")
    compile_.add_argument("--dump-dir", help="write the optimized HLO (and the PTX) here")
    compile_.set_defaults(run=_compile)
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    run: Callable[[argparse.Namespace], int] = args.run
    try:
        return run(args)
    except XlaError as e:
        print(f"xlapy: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
