"""HLO text syntax of module-header and computation attributes.

``HloModule name, entry_computation_layout={...}, input_output_alias={...}``
and ``execution_thread="..."`` after a computation are not instruction
attributes, but the parser splits them the same way, so they get the same
kind of registry as :data:`xlapy.hlo.attributes.ATTRIBUTE_SYNTAX`. The parser
reads and the printer writes the header through this table; the values are
the IR's own types (:class:`~xlapy.shape.ProgramShape` for the entry layout,
:class:`~xlapy.hlo.aliasing.InputOutputAlias`, :class:`~xlapy.hlo.aliasing.BufferDonor`).
"""

from __future__ import annotations

from ..errors import InvalidArgumentError, ParseError
from ..shape import ProgramShape
from . import aliasing
from . import attributes_values as v
from .attributes import BOOL, INT, STRING, AttributeSyntax
from .attributes_text import Cursor


def _parse_layout(cur: Cursor) -> ProgramShape:
    cur.expect("{", "'{' to start the computation layout")
    params = cur.delimited(v.parse_shape, "(", ")", "parameter shapes")
    cur.expect("->", "'->' before the result shape")
    result = v.parse_shape(cur)
    cur.expect("}", "'}' to close the computation layout")
    return ProgramShape(tuple(params), result)


def _format_layout(layout: ProgramShape) -> str:
    # XLA marks every fifth parameter with its index so long lists stay readable.
    params = ", ".join(
        (f"/*index={i}*/" if i and i % 5 == 0 else "") + s.to_string(print_layout=True)
        for i, s in enumerate(layout.parameters)
    )
    return f"{{({params})->{layout.result.to_string(print_layout=True)}}}"


def _parse_bool_or_list(cur: Cursor) -> tuple[bool, ...]:
    if cur.peek("{"):
        return v.parse_bool_list(cur)
    return (cur.boolean(),)


MODULE_ATTRIBUTE_SYNTAX: dict[str, AttributeSyntax] = {
    "is_scheduled": BOOL,
    "replica_count": INT,
    "num_partitions": INT,
    "entry_computation_layout": AttributeSyntax(
        "a layout such as {(f32[2]{0})->f32[2]{0}}", _parse_layout, _format_layout
    ),
    "input_output_alias": AttributeSyntax(
        "aliases such as { {0}: (0, {}, may-alias) }",
        aliasing.parse_input_output_alias,
        aliasing.format_input_output_alias,
    ),
    "buffer_donor": AttributeSyntax(
        "donors such as { (0, {}) }",
        aliasing.parse_buffer_donor,
        aliasing.format_buffer_donor,
    ),
    "allow_spmd_sharding_propagation_to_parameters": AttributeSyntax(
        "true, false or a list such as {true,false}", _parse_bool_or_list, v.format_bool_list
    ),
    "allow_spmd_sharding_propagation_to_output": AttributeSyntax(
        "true, false or a list such as {true,false}", _parse_bool_or_list, v.format_bool_list
    ),
    "frontend_attributes": AttributeSyntax(
        'frontend attributes such as {key="value"}',
        v.parse_frontend_attributes,
        v.format_frontend_attributes,
    ),
}

COMPUTATION_ATTRIBUTE_SYNTAX: dict[str, AttributeSyntax] = {
    "execution_thread": STRING,
}


def module_syntax_for(name: str) -> AttributeSyntax:
    """The syntax of a module-header attribute; unknown names raise with the valid ones."""
    try:
        return MODULE_ATTRIBUTE_SYNTAX[name]
    except KeyError:
        raise InvalidArgumentError(
            f"unknown HloModule attribute {name!r}; known: "
            f"{', '.join(sorted(MODULE_ATTRIBUTE_SYNTAX))}"
        ) from None


def parse_module_attribute(name: str, text: str) -> object:
    try:
        syntax = module_syntax_for(name)
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=0) from None
    return syntax.parse(text)


__all__ = [
    "MODULE_ATTRIBUTE_SYNTAX",
    "COMPUTATION_ATTRIBUTE_SYNTAX",
    "module_syntax_for",
    "parse_module_attribute",
]
