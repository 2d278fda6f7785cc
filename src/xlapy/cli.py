"""The ``xlapy`` command.

``xlapy hlo render FILE.hlo -o graph.svg`` draws a module; ``xlapy hlo print``
re-prints it (short or verbose form), ``xlapy hlo verify`` checks it. Errors in
the input are reported as one readable message (with line, column and caret)
and exit status 1, never as a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .errors import XlaError


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise XlaError(f"cannot read {path}: {e.strerror}") from None


def _load_module(path: str):
    from .hlo import parse_module

    return parse_module(_read(path))


def _hlo_render(args: argparse.Namespace) -> int:
    from .hlo.graph import render

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
