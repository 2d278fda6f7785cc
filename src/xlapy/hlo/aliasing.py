"""Buffer aliasing of a module's entry: ``input_output_alias`` and ``buffer_donor``.

These are header values of ``HloModule`` whose ``str`` is their HLO text, so
the types and their text live together here, below both ``module`` (which
holds them in ``ModuleConfig``) and ``attributes_module`` (which registers the
text as the header syntax the parser and printer use).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidArgumentError
from . import attributes_values as v
from .attributes_text import Cursor, format_int_list, parse_int_list

ShapeIndex = tuple[int, ...]


class AliasKind(enum.StrEnum):
    """May-alias lets the runtime skip the alias; must-alias requires a donated input.

    A ``str`` enum, so ``entry.kind == "must-alias"`` holds.
    """

    MAY_ALIAS = "may-alias"
    MUST_ALIAS = "must-alias"


def _index(value: Sequence[int]) -> ShapeIndex:
    return tuple(int(i) for i in value)


def _check_parameter_number(what: str, number: int) -> int:
    number = int(number)
    if number < 0:
        raise InvalidArgumentError(f"{what}: parameter_number={number} must be >= 0")
    return number


@dataclass(frozen=True)
class AliasEntry:
    """An output buffer (at ``output_index``) that may reuse a parameter's buffer."""

    output_index: ShapeIndex
    parameter_number: int
    parameter_index: ShapeIndex = ()
    kind: AliasKind = AliasKind.MAY_ALIAS

    def __post_init__(self) -> None:
        object.__setattr__(self, "output_index", _index(self.output_index))
        object.__setattr__(self, "parameter_index", _index(self.parameter_index))
        object.__setattr__(
            self, "parameter_number", _check_parameter_number("AliasEntry", self.parameter_number)
        )
        try:
            object.__setattr__(self, "kind", AliasKind(self.kind))
        except ValueError:
            raise InvalidArgumentError(
                f"alias kind {self.kind!r} is not valid; use may-alias or must-alias"
            ) from None


@dataclass(frozen=True)
class InputOutputAlias:
    """The ``input_output_alias`` of a module (XLA's HloInputOutputAliasConfig)."""

    entries: tuple[AliasEntry, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "entries", tuple(self.entries))

    def __str__(self) -> str:
        return format_input_output_alias(self)


@dataclass(frozen=True)
class BufferDonor:
    """Parameters (and indices into them) whose buffers the program may reuse.

    ``entries`` holds ``(parameter_number, parameter_index)`` pairs.
    """

    entries: tuple[tuple[int, ShapeIndex], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "entries",
            tuple(
                (_check_parameter_number("BufferDonor", number), _index(index))
                for number, index in self.entries
            ),
        )

    def __str__(self) -> str:
        return format_buffer_donor(self)


# -- text ----------------------------------------------------------------------------


def parse_alias_entry(cur: Cursor) -> AliasEntry:
    output_index, number, index = v.parse_index_alias(cur, "parameter")
    kind = AliasKind.MAY_ALIAS
    if cur.eat(","):
        kind = AliasKind(cur.keyword(("may-alias", "must-alias"), "may-alias or must-alias"))
    cur.expect(")", "')' to close the alias")
    return AliasEntry(output_index, number, index, kind)


def parse_input_output_alias(cur: Cursor) -> InputOutputAlias:
    return InputOutputAlias(tuple(cur.delimited(parse_alias_entry, what="input/output aliases")))


def format_input_output_alias(alias: InputOutputAlias) -> str:
    return braced(
        v.format_index_alias(e.output_index, e.parameter_number, e.parameter_index, e.kind.value)
        for e in alias.entries
    )


def parse_donor(cur: Cursor) -> tuple[int, tuple[int, ...]]:
    cur.expect("(", "'(' to start (parameter, {index})")
    number = cur.nonneg_integer("a parameter number")
    cur.expect(",", "',' after the parameter number")
    index = parse_int_list(cur)
    cur.expect(")", "')' to close the buffer donor")
    return number, index


def parse_buffer_donor(cur: Cursor) -> BufferDonor:
    return BufferDonor(tuple(cur.delimited(parse_donor, what="buffer donors")))


def format_buffer_donor(donor: BufferDonor) -> str:
    return braced(f"({number}, {format_int_list(index)})" for number, index in donor.entries)


def braced(items: Iterable[str]) -> str:
    """XLA's header lists: ``{ a, b }``, and ``{}`` when empty."""
    body = ", ".join(items)
    return "{ " + body + " }" if body else "{}"


__all__ = [
    "AliasEntry",
    "AliasKind",
    "BufferDonor",
    "InputOutputAlias",
    "ShapeIndex",
    "format_buffer_donor",
    "format_input_output_alias",
    "parse_buffer_donor",
    "parse_input_output_alias",
]
