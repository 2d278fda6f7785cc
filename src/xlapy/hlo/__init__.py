"""HLO: the one IR of xlapy, its opcodes, and its text format.

``parse_module`` reads HLO text as XLA and JAX print it; ``HloModule.to_text``
prints it back (short form by default, XLA's long form with ``verbose=True``)
so that ``parse_module(m.to_text()).to_text() == m.to_text()``.
"""

from ..opcode import HloOpcode
from . import printer
from .aliasing import AliasEntry, AliasKind, BufferDonor, InputOutputAlias
from .computation import HloComputation, ProgramShape
from .instruction import HloInstruction, RawAttribute, RawLiteral
from .module import HloModule, ModuleConfig, make_module
from .parser import parse_computation, parse_module
from .printer import PrintOptions
from .proto import module as proto_module

# The IR classes print through the printer, which builds on their modules, so
# their text methods are attached here; Python runs this file before any
# xlapy.hlo module can be used, so every instance has them.
HloInstruction.to_text = printer.instruction_to_text
HloComputation.to_text = printer.computation_to_text
HloModule.to_text = printer.module_to_text
HloModule.equals = printer.modules_equal
# XLA's HloModuleProto (xlapy.hlo.proto; protobuf is imported only when these run):
# ``m.to_proto(drop_config=False)`` returns the message, ``m.to_proto_bytes()`` its
# deterministic bytes, ``HloModule.from_proto(message_or_bytes)`` a verified module.
HloModule.to_proto = proto_module.module_to_proto
HloModule.to_proto_bytes = proto_module.module_to_proto_bytes
HloModule.from_proto = staticmethod(proto_module.module_from_proto)

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
