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
programs are shape-checked as they are built), ``refine`` (shape refinement:
a module with unknown ``?`` dimensions made static for concrete argument
shapes; ``refine_experimental`` rewrites StableHLO's experimental dynamic
custom calls) and ``polymorphic`` (such a module compiled once per call
signature: what ``parse_module`` returns for one). ``lower/checks`` documents the
custom-calls that the test-harness ops (``check.*``, ``interpreter.*``) become.
``split_sections`` cuts a file at its ``// -----`` lines, keeping line numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import InvalidArgumentError
from ..hlo.module import HloModule
from ..shape import Shape
from . import ast
from .lower import LOWERINGS, ProgramLowering, entry_function_name
from .parse import parse_mlir, split_sections
from .polymorphic import PolymorphicExecutable, PolymorphicModule
from .refine import is_unknown, needs_refinement, refine_module


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

    def hlo_module(
        self, function: str | None = None, argument_shapes: Sequence[Shape] | None = None
    ) -> HloModule:
        """A fresh HloModule with ``function`` (default: the entry function) as its entry.

        A shape-polymorphic module (unknown ``?`` dimensions) is first refined to
        ``argument_shapes`` (``stablehlo.refine``); without them, to the function's
        declared argument types, which must then be static.
        """
        name = self.entry_function if function is None else function.lstrip("@")
        if argument_shapes is None and not needs_refinement(self.module):
            return ProgramLowering(self.module, self.source_file).entry_module(name)
        if argument_shapes is None:
            arguments = self.module.function(name).arguments
            unknown = [f"{arg}: {t.text}" for arg, t in arguments if is_unknown(t)]
            if unknown:
                raise InvalidArgumentError(
                    f"@{name} is shape-polymorphic ({', '.join(unknown)}): give the "
                    "argument_shapes to refine it to, or compile polymorphic_module(), which "
                    "refines at each call"
                )
            argument_shapes = [t.shape for _, t in arguments]
        refined = refine_module(self.module, argument_shapes, name, self.source_file)
        return ProgramLowering(refined, self.source_file).entry_module(name)

    def is_polymorphic(self, function: str | None = None) -> bool:
        """Whether ``function``'s (default: the entry's) arguments have unknown dimensions."""
        name = self.entry_function if function is None else function.lstrip("@")
        return any(is_unknown(t) for _, t in self.module.function(name).arguments)

    def polymorphic_module(self, function: str | None = None) -> PolymorphicModule:
        """The program as a :class:`PolymorphicModule`: compiled once per signature it is
        called with (``client.compile`` takes it)."""
        name = self.entry_function if function is None else function.lstrip("@")
        return PolymorphicModule(self.module, name, self.source_file)

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


def parse_module(text: str, source_file: str = "") -> HloModule | PolymorphicModule:
    """The HloModule of the program's entry function (``@main``, else the public one).

    When the entry function's arguments have unknown (``?``) dimensions, as in
    ``jax.export``'s shape-polymorphic modules, there is no one HloModule: the
    result is a :class:`PolymorphicModule`, which ``client.compile`` turns into an
    executable that refines and compiles the module once per argument signature.
    """
    program = parse_program(text, source_file)
    if program.is_polymorphic():
        return program.polymorphic_module()
    return program.hlo_module()


def lower(module: ast.Module, function: str | None = None) -> HloModule:
    """The HloModule of an already parsed module (``function`` as entry, default its entry)."""
    return Program(module).hlo_module(function)


def supported_ops() -> list[str]:
    """The op names the importer lowers."""
    return sorted(LOWERINGS)


__all__ = [
    "PolymorphicExecutable",
    "PolymorphicModule",
    "Program",
    "ast",
    "lower",
    "parse_module",
    "parse_program",
    "parse_programs",
    "refine_module",
    "split_sections",
    "supported_ops",
]
