"""StableHLO (MLIR text) importer: programs from JAX, PyTorch/XLA and TensorFlow into HLO.

``parse_module(text)`` gives the HloModule of a program's entry function
(``@main``, else its one public function), with every function it calls and
every region as HLO computations; the module's ``mhlo.num_replicas`` and
``mhlo.num_partitions`` become the HloModule's replica and partition counts.
``parse_program(text)`` keeps the parsed module for lowering any of its
functions (``Program.hlo_module(name)``), which is what tests with several
entry points (``interpreter.run_parallel``) need; ``parse_programs`` does
that for each ``// -----`` section of a file.

Layers: ``ast`` (parsed MLIR), ``parse/`` (text -> ast), ``lower/`` with one
module per op family (ast -> HloModule through the builder, so imported
programs are shape-checked as they are built). ``lower/checks`` documents the
custom-calls that the test-harness ops (``check.*``, ``interpreter.*``) become.
``split_sections`` cuts a file at its ``// -----`` lines, keeping line numbers.
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..hlo.module import HloModule
from . import ast
from .lower import LOWERINGS, ProgramLowering, entry_function_name
from .parse import parse_mlir, split_sections


class Program:
    """A parsed StableHLO module whose functions can each be lowered as an entry."""

    def __init__(self, module: ast.Module, source_file: str = "") -> None:
        self.module = module
        self.source_file = source_file

    @property
    def function_names(self) -> list[str]:
        return [f.name for f in self.module.functions]

    @property
    def entry_function(self) -> str:
        """``main``, else the one public function (an error when that is ambiguous)."""
        return entry_function_name(self.module)

    @property
    def num_replicas(self) -> int:
        return int(self.module.attributes.get("mhlo.num_replicas", 1) or 1)

    @property
    def num_partitions(self) -> int:
        return int(self.module.attributes.get("mhlo.num_partitions", 1) or 1)

    def hlo_module(self, function: str | None = None) -> HloModule:
        """A fresh HloModule with ``function`` (default: the entry function) as its entry."""
        name = self.entry_function if function is None else function.lstrip("@")
        return ProgramLowering(self.module, self.source_file).entry_module(name)

    def __repr__(self) -> str:
        names = ", ".join(f"@{n}" for n in self.function_names)
        return f"<stablehlo.Program {self.module.name or '(unnamed)'}: {names}>"


def _one_module(modules: list[ast.Module], what: str) -> ast.Module:
    if len(modules) != 1:
        raise InvalidArgumentError(
            f"{what} takes text with one module, got {len(modules)}; for several "
            "'// -----' sections use parse_programs"
        )
    return modules[0]


def parse_program(text: str, source_file: str = "") -> Program:
    """The program of ``text`` (one module, or bare functions forming one)."""
    return Program(_one_module(parse_mlir(text), "parse_program"), source_file)


def parse_programs(text: str, source_file: str = "") -> list[Program]:
    """One Program per ``// -----`` section of ``text``, in order (lines stay file lines)."""
    return [Program(m, source_file) for m in parse_mlir(text)]


def parse_module(text: str, source_file: str = "") -> HloModule:
    """The HloModule of the program's entry function (``@main``, else the public one)."""
    return parse_program(text, source_file).hlo_module()


def lower(module: ast.Module, function: str | None = None) -> HloModule:
    """The HloModule of an already parsed module (``function`` as entry, default its entry)."""
    return Program(module).hlo_module(function)


def supported_ops() -> list[str]:
    """The op names the importer lowers."""
    return sorted(LOWERINGS)


__all__ = [
    "Program",
    "ast",
    "lower",
    "parse_module",
    "parse_program",
    "parse_programs",
    "split_sections",
    "supported_ops",
]
