"""HLO text output: the short parsable form and XLA's long form.

The layout follows XLA's printer (``HloModule::Print``, ``HloComputation::Print``,
``HloInstruction::PrintWithCanonicalNameMap``) closely enough that text JAX
got from XLA prints back identically, which is what makes ``parse(print(m))``
print the same text again. Attribute values (of instructions, the module
header and computations) come back through the same registry syntaxes that
parsed them, and unknown ones verbatim.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np

from ..literal_text import format_literal
from ..opcode import HloOpcode
from ..shape import ProgramShape, Shape
from . import async_sugar
from .attributes import find_syntax
from .attributes_module import COMPUTATION_ATTRIBUTE_SYNTAX, MODULE_ATTRIBUTE_SYNTAX
from .computation import HloComputation
from .instruction import (
    CONTROL_PREDECESSORS,
    TRAILING_RANK,
    HloInstruction,
    RawAttribute,
    RawLiteral,
)
from .lexer import quote
from .module import HEADER_ORDER, HloModule

_TUPLE_INDEX_INTERVAL = 5  # XLA annotates every 5th tuple element with /*index=N*/


@dataclass(frozen=True)
class PrintOptions:
    """What to print; the presets mirror XLA's HloPrintOptions."""

    print_percent: bool = False
    print_operand_shape: bool = False
    print_metadata: bool = False
    print_backend_config: bool = True
    print_program_shape: bool = False
    print_control_dependencies: bool = True
    # Annotate every N-th operand with /*index=N*/ (0: never).
    operand_index_interval: int = 0
    # Constants of more elements than this print as a digest of their bytes (0: never):
    # text that identifies a module (the compile cache's key) without formatting every
    # float; not parsable.
    digest_constants_over: int = 0

    @staticmethod
    def short() -> PrintOptions:
        """XLA's ShortParsable form (as JAX's ``as_hlo_text()``), keeping control edges."""
        return PrintOptions()

    @staticmethod
    def long() -> PrintOptions:
        """The long form: % names, signatures, operand shapes and metadata."""
        return PrintOptions(
            print_percent=True,
            print_operand_shape=True,
            print_metadata=True,
            print_program_shape=True,
            operand_index_interval=_TUPLE_INDEX_INTERVAL,
        )

    @staticmethod
    def xla_default() -> PrintOptions:
        """Exactly XLA's default HloPrintOptions (the long form without operand shapes)."""
        return replace(PrintOptions.long(), print_operand_shape=False)

    @staticmethod
    def full() -> PrintOptions:
        """Everything the IR holds; two modules with equal full text are equal."""
        return PrintOptions.long()


# -- shapes -------------------------------------------------------------------


@lru_cache(maxsize=8192)
def shape_text(shape: Shape, layout: bool = True) -> str:
    """A shape as XLA prints it, with /*index=N*/ marks in long tuples."""
    return shape.to_string(layout)


def program_shape_text(program_shape: ProgramShape) -> str:
    """A computation signature: ``(a: f32[2], b: s32[]) -> f32[2]`` (no layouts)."""
    names = program_shape.parameter_names or tuple(
        f"p{i}" for i in range(len(program_shape.parameters))
    )
    params = ", ".join(
        f"{name}: {shape_text(shape, False)}"
        for name, shape in zip(names, program_shape.parameters, strict=True)
    )
    return f"({params}) -> {shape_text(program_shape.result, False)}"


# -- instructions ----------------------------------------------------------------


def _name(name: str, options: PrintOptions) -> str:
    return "%" + name if options.print_percent else name


def literal_text(literal: Any) -> str:
    """A constant's body as it appears inside ``constant(...)``."""
    if literal is None:
        return ""
    if isinstance(literal, RawLiteral):
        return literal.text
    return format_literal(literal, with_shape=False, oneline=True)


def _constant_digest(literal: Any, over: int) -> str | None:
    """``digest=<sha256 of the bytes>`` for an array literal past ``over`` elements."""
    if not over or literal is None or isinstance(literal, RawLiteral):
        return None
    if not literal.shape.is_array or literal.shape.element_count() <= over:
        return None
    data = np.ascontiguousarray(literal.data)
    return f"digest={hashlib.sha256(data.tobytes()).hexdigest()}"


def _operands_text(instruction: HloInstruction, options: PrintOptions) -> str:
    if instruction.opcode is HloOpcode.CONSTANT:
        digest = _constant_digest(instruction.literal, options.digest_constants_over)
        return digest or literal_text(instruction.literal)
    if instruction.opcode is HloOpcode.PARAMETER:
        return str(instruction.parameter_number)
    out: list[str] = []
    interval = options.operand_index_interval
    for i, operand in enumerate(instruction.operands):
        text = _name(operand.name, options)
        if options.print_operand_shape:
            text = shape_text(operand.shape) + " " + text
        if i and interval and i % interval == 0:
            text = f"/*index={i}*/{text}"
        out.append(text)
    return ", ".join(out)


def format_value(value: Any) -> str:
    """Text for a plain Python attribute value the registry does not know."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return quote(value)
    if isinstance(value, (list, tuple)):
        return "{" + ",".join(format_value(v) for v in value) + "}"
    return str(value)


def attribute_value_text(
    instruction: HloInstruction, name: str, value: Any, options: PrintOptions
) -> str:
    if isinstance(value, RawAttribute):
        return value.text
    if isinstance(value, HloComputation):
        return _name(value.name, options)
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], HloComputation):
        return "{" + ", ".join(_name(c.name, options) for c in value) + "}"
    syntax = find_syntax(instruction.opcode, name)
    if syntax is not None:
        return syntax.format(value)
    return format_value(value)


_HIDDEN_BY_OPTION = {
    "metadata": "print_metadata",
    "backend_config": "print_backend_config",
}
_CONTROL_RANK = TRAILING_RANK[CONTROL_PREDECESSORS]


def _attributes_text(
    instruction: HloInstruction,
    options: PrintOptions,
    items: list[tuple[HloInstruction, str, Any]] | None = None,
) -> str:
    """``, name=value`` for each attribute; ``items`` overrides (owner, name, value)."""
    if items is None:
        items = [(instruction, n, v) for n, v in instruction.attributes.items()]
    control = ""
    if options.print_control_dependencies and instruction.control_predecessors:
        names = ", ".join(_name(p.name, options) for p in instruction.control_predecessors)
        control = f", {CONTROL_PREDECESSORS}={{{names}}}"
    anchor = instruction._control_after
    if anchor is not None and anchor != "" and anchor not in instruction.attributes:
        anchor = None
    out: list[str] = []
    if control and anchor == "":
        out.append(control)
        control = ""
    for owner, name, value in items:
        if control and anchor is None and TRAILING_RANK.get(name, -1) > _CONTROL_RANK:
            out.append(control)
            control = ""
        option = _HIDDEN_BY_OPTION.get(name)
        if option is None or getattr(options, option):
            out.append(f", {name}={attribute_value_text(owner, name, value, options)}")
        if control and name == anchor:
            out.append(control)
            control = ""
    out.append(control)
    return "".join(out)


def instruction_text(
    instruction: HloInstruction, options: PrintOptions, sugared: frozenset[int] | None = None
) -> str:
    """One instruction line, without indentation and without ROOT.

    ``sugared`` holds the ids of async wrapper computations printed as
    shorthand (computed from the module when not given).
    """
    opcode = instruction.opcode.value
    items = None
    if instruction.opcode in async_sugar.ROLE_OF:
        if sugared is None:
            module = instruction.parent.parent if instruction.parent is not None else None
            sugared = async_sugar.sugared_computations(module)
        callee = async_sugar.async_computation(instruction)
        if callee is not None and id(callee) in sugared:
            opcode = f"{callee.root.opcode.value}-{async_sugar.ROLE_OF[instruction.opcode]}"
            items = async_sugar.sugared_attributes(instruction, callee)
    return (
        f"{_name(instruction.name, options)} = {shape_text(instruction.shape)} "
        f"{opcode}({_operands_text(instruction, options)})"
        f"{_attributes_text(instruction, options, items)}"
    )


# -- computations and modules ------------------------------------------------------


def computation_text(
    computation: HloComputation, options: PrintOptions, sugared: frozenset[int] | None = None
) -> str:
    """A computation block, without the blank lines that separate computations."""
    if sugared is None:
        sugared = async_sugar.sugared_computations(computation.parent)
    head = "ENTRY " if computation.is_entry else ""
    head += _name(computation.name, options) + " "
    if options.print_program_shape:
        head += program_shape_text(computation.program_shape) + " "
    lines = [head + "{"]
    root = computation.root
    for instruction in computation.post_order():
        prefix = "  ROOT " if instruction is root else "  "
        lines.append(prefix + instruction_text(instruction, options, sugared))
    tail = "}"
    if computation.execution_thread is not None:
        thread = COMPUTATION_ATTRIBUTE_SYNTAX["execution_thread"].format(
            computation.execution_thread
        )
        tail += f", execution_thread={thread}"
    lines.append(tail)
    return "\n".join(lines)


def _header_attribute_text(module: Any, name: str, explicit: bool) -> str | None:
    """``name=value`` for one header attribute, or None when it is not printed.

    XLA leaves out what holds no information (no aliases, one replica, not
    scheduled) unless the text being printed back said it explicitly.
    """
    config = module.config
    if name in config.extras:
        return f"{name}={config.extras[name]}"
    syntax = MODULE_ATTRIBUTE_SYNTAX.get(name)
    value = getattr(config, name, None)
    if syntax is None or value is None:
        return None
    if not explicit and not _informative(name, value):
        return None
    if isinstance(value, RawAttribute):
        return f"{name}={value.text}"
    return f"{name}={syntax.format(value)}"


def _informative(name: str, value: Any) -> bool:
    if name in ("input_output_alias", "buffer_donor"):
        return bool(value.entries)
    if name in ("replica_count", "num_partitions"):
        return value != 1
    if name == "is_scheduled":
        return bool(value)
    return True


def module_header_text(module: Any) -> str:
    config = module.config
    parts = [f"HloModule {module.name}"]
    names = list(dict.fromkeys(config.order))
    names += [n for n in HEADER_ORDER if n not in names]
    names += [n for n in config.extras if n not in names]
    explicit = set(config.order)
    for name in names:
        text = _header_attribute_text(module, name, name in explicit)
        if text is not None:
            parts.append(text)
    return ", ".join(parts)


def module_text(module: Any, options: PrintOptions) -> str:
    """The whole module, ending with a blank line as XLA's text does."""
    text = module_header_text(module)
    if module.stack_frame_tables and options.print_metadata:
        text += "\n\n" + module.stack_frame_tables + "\n"
    text += "\n\n"
    sugared = async_sugar.sugared_computations(module)
    computations = [c for c in module.computation_post_order() if id(c) not in sugared]
    return text + "".join(computation_text(c, options, sugared) + "\n\n" for c in computations)


# -- the IR classes' text methods -----------------------------------------------------
# HloInstruction, HloComputation and HloModule print through this module, which
# builds on theirs; xlapy/hlo/__init__.py attaches these as their methods.


def instruction_to_text(instruction: HloInstruction, verbose: bool = False) -> str:
    """This instruction as one line of HLO text (``HloInstruction.to_text``)."""
    options = PrintOptions.long() if verbose else PrintOptions.short()
    return instruction_text(instruction, options)


def computation_to_text(computation: HloComputation, verbose: bool = False) -> str:
    """``HloComputation.to_text``: the computation block, short or long form."""
    options = PrintOptions.long() if verbose else PrintOptions.short()
    return computation_text(computation, options)


def module_to_text(module: HloModule, verbose: bool = False, *, options: Any = None) -> str:
    """HLO text: the short parsable form, or XLA's long form with ``verbose``.

    ``options`` (a :class:`PrintOptions`) overrides both (``HloModule.to_text``).
    """
    if options is None:
        options = PrintOptions.long() if verbose else PrintOptions.short()
    return module_text(module, options)


def modules_equal(module: HloModule, other: HloModule) -> bool:
    """Same text in the most complete print form (``HloModule.equals``, for tests and
    pass fixpoints)."""
    options = PrintOptions.full()
    return module.to_text(options=options) == other.to_text(options=options)


__all__ = [
    "PrintOptions",
    "attribute_value_text",
    "computation_text",
    "computation_to_text",
    "instruction_text",
    "instruction_to_text",
    "module_text",
    "module_to_text",
    "modules_equal",
    "program_shape_text",
    "shape_text",
]
