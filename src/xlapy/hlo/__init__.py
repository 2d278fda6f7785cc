"""HLO: the one IR of xlapy, its opcodes, and its text format.

``parse_module`` reads HLO text as XLA and JAX print it; ``HloModule.to_text``
prints it back (short form by default, XLA's long form with ``verbose=True``)
so that ``parse_module(m.to_text()).to_text() == m.to_text()``.
"""

from ..opcode import HloOpcode
from .computation import HloComputation, ProgramShape
from .instruction import HloInstruction, RawAttribute, RawLiteral
from .module import (
    AliasEntry,
    AliasKind,
    BufferDonor,
    HloModule,
    InputOutputAlias,
    ModuleConfig,
    make_module,
)
from .parser import parse_computation, parse_module
from .printer import PrintOptions

__all__ = [
    "AliasEntry",
    "AliasKind",
    "BufferDonor",
    "HloComputation",
    "HloInstruction",
    "HloModule",
    "HloOpcode",
    "InputOutputAlias",
    "ModuleConfig",
    "PrintOptions",
    "ProgramShape",
    "RawAttribute",
    "RawLiteral",
    "make_module",
    "parse_computation",
    "parse_module",
]
