"""HLO text syntax of module-header and computation attributes.

``HloModule name, entry_computation_layout={...}, input_output_alias={...}``
and ``execution_thread="..."`` after a computation are not instruction
attributes, but the parser splits them the same way, so they get the same
kind of registry as :data:`xlapy.hlo.attributes.ATTRIBUTE_SYNTAX`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidArgumentError, ParseError
from ..shape import Shape
from . import attributes_values as v
from .attributes import BOOL, INT, STRING, AttributeSyntax
from .attributes_text import Cursor, format_int_list, parse_int_list


class AliasKind(enum.Enum):
    """May-alias lets the runtime skip the alias; must-alias requires a donated input."""

    MAY_ALIAS = "may-alias"
    MUST_ALIAS = "must-alias"


@dataclass(frozen=True)
class ComputationLayout:
    """Parameter and result shapes (with layouts) of the entry computation."""

    parameter_shapes: Sequence[Shape]
    result_shape: Shape

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameter_shapes", tuple(self.parameter_shapes))


@dataclass(frozen=True)
class InputOutputAlias:
    """Output at ``output_index`` shares the buffer of a parameter (sub)buffer."""

    output_index: Sequence[int]
    parameter_number: int
    parameter_index: Sequence[int] = ()
    kind: AliasKind = AliasKind.MAY_ALIAS

    def __post_init__(self) -> None:
        object.__setattr__(self, "output_index", tuple(int(i) for i in self.output_index))
        object.__setattr__(self, "parameter_index", tuple(int(i) for i in self.parameter_index))
        object.__setattr__(self, "kind", AliasKind(self.kind))
        if self.parameter_number < 0:
            raise InvalidArgumentError(f"InputOutputAlias: parameter_number="
                                       f"{self.parameter_number} must be >= 0")


@dataclass(frozen=True)
class BufferDonor:
    """A parameter (sub)buffer the caller donates for reuse by any output."""

    parameter_number: int
    parameter_index: Sequence[int] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameter_index", tuple(int(i) for i in self.parameter_index))
        if self.parameter_number < 0:
            raise InvalidArgumentError(f"BufferDonor: parameter_number={self.parameter_number}"
                                       " must be >= 0")


def _parse_layout(cur: Cursor) -> ComputationLayout:
    cur.expect("{", "'{' to start the computation layout")
    params = cur.delimited(v.parse_shape, "(", ")", "parameter shapes")
    cur.expect("->", "'->' before the result shape")
    result = v.parse_shape(cur)
    cur.expect("}", "'}' to close the computation layout")
    return ComputationLayout(tuple(params), result)


def _format_layout(layout: ComputationLayout) -> str:
    # XLA marks every fifth parameter with its index so long lists stay readable.
    params = ", ".join(
        (f"/*index={i}*/" if i and i % 5 == 0 else "") + s.to_string(print_layout=True)
        for i, s in enumerate(layout.parameter_shapes))
    return f"{{({params})->{layout.result_shape.to_string(print_layout=True)}}}"


def _parse_alias(cur: Cursor) -> InputOutputAlias:
    output_index = parse_int_list(cur)
    cur.expect(":", "':' after the output index")
    cur.expect("(", "'(' to start (parameter, {index}, kind)")
    number = cur.nonneg_integer("a parameter number")
    cur.expect(",", "',' after the parameter number")
    index = parse_int_list(cur)
    kind = AliasKind.MAY_ALIAS
    if cur.eat(","):
        kind = AliasKind(cur.keyword(("may-alias", "must-alias"), "may-alias or must-alias"))
    cur.expect(")", "')' to close the alias")
    return InputOutputAlias(output_index, number, index, kind)


def _format_aliases(aliases: Sequence[InputOutputAlias]) -> str:
    body = ", ".join(f"{format_int_list(a.output_index)}: ({a.parameter_number}, "
                     f"{format_int_list(a.parameter_index)}, {a.kind.value})" for a in aliases)
    return "{ " + body + " }" if body else "{}"


def _parse_donor(cur: Cursor) -> BufferDonor:
    cur.expect("(", "'(' to start (parameter, {index})")
    number = cur.nonneg_integer("a parameter number")
    cur.expect(",", "',' after the parameter number")
    index = parse_int_list(cur)
    cur.expect(")", "')' to close the buffer donor")
    return BufferDonor(number, index)


def _format_donors(donors: Sequence[BufferDonor]) -> str:
    body = ", ".join(f"({d.parameter_number}, {format_int_list(d.parameter_index)})"
                     for d in donors)
    return "{ " + body + " }" if body else "{}"


def _parse_bool_or_list(cur: Cursor) -> tuple[bool, ...]:
    if cur.peek("{"):
        return v.parse_bool_list(cur)
    return (cur.boolean(),)


MODULE_ATTRIBUTE_SYNTAX: dict[str, AttributeSyntax] = {
    "is_scheduled": BOOL,
    "replica_count": INT,
    "num_partitions": INT,
    "entry_computation_layout": AttributeSyntax(
        "a layout such as {(f32[2]{0})->f32[2]{0}}", _parse_layout, _format_layout),
    "input_output_alias": AttributeSyntax(
        "aliases such as { {0}: (0, {}, may-alias) }",
        lambda c: tuple(c.delimited(_parse_alias, what="input/output aliases")),
        _format_aliases),
    "buffer_donor": AttributeSyntax(
        "donors such as { (0, {}) }",
        lambda c: tuple(c.delimited(_parse_donor, what="buffer donors")), _format_donors),
    "allow_spmd_sharding_propagation_to_parameters": AttributeSyntax(
        "true, false or a list such as {true,false}", _parse_bool_or_list, v.format_bool_list),
    "allow_spmd_sharding_propagation_to_output": AttributeSyntax(
        "true, false or a list such as {true,false}", _parse_bool_or_list, v.format_bool_list),
    "frontend_attributes": AttributeSyntax('frontend attributes such as {key="value"}',
                                   v.parse_frontend_attributes, v.format_frontend_attributes),
}

COMPUTATION_ATTRIBUTE_SYNTAX: dict[str, AttributeSyntax] = {
    "execution_thread": STRING,
}


def module_syntax_for(name: str) -> AttributeSyntax:
    """The syntax of a module-header attribute; unknown names raise with the valid ones."""
    try:
        return MODULE_ATTRIBUTE_SYNTAX[name]
    except KeyError:
        raise InvalidArgumentError(f"unknown HloModule attribute {name!r}; known: "
                                   f"{', '.join(sorted(MODULE_ATTRIBUTE_SYNTAX))}") from None


def parse_module_attribute(name: str, text: str) -> object:
    try:
        syntax = module_syntax_for(name)
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=0) from None
    return syntax.parse(text)


__all__ = [
    "AliasKind", "ComputationLayout", "InputOutputAlias", "BufferDonor",
    "MODULE_ATTRIBUTE_SYNTAX", "COMPUTATION_ATTRIBUTE_SYNTAX", "module_syntax_for",
    "parse_module_attribute",
]
