"""The HLO text syntax of every pure-data instruction attribute, by attribute name.

The HLO parser splits ``name=value`` pairs off an instruction line and asks
:func:`syntax_for` how to read the value; the printer asks the same registry
how to write a typed value back. One table keeps reading and writing in step,
so ``format(parse(text)) == text`` for the canonical text XLA prints.

A few names mean different things on different opcodes (``algorithm`` is a
dot algorithm on dot but an RNG algorithm on rng-bit-generator; ``slice_sizes``
is a list on gather but a list of lists on collective-permute), which is why
lookups go through :func:`syntax_for` with the opcode. Attributes that name
computations or instructions (``to_apply``, ``calls``, ``control-predecessors``
...) are listed in :data:`REFERENCE_ATTRIBUTES`: the parser resolves those.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..errors import InvalidArgumentError, ParseError
from ..opcode import COMPUTATION_ATTRIBUTES, HloOpcode
from ..xla_data import (
    CollectiveOpGroupMode,
    ComparisonDirection,
    ComparisonType,
    CustomCallApiVersion,
    CustomCallSchedule,
    FftType,
    FrontendAttributes,
    FusionKind,
    OpMetadata,
    PaddingType,
    Precision,
    PrecisionAlgorithm,
    RandomAlgorithm,
    RandomDistribution,
    ResultAccuracy,
    StatisticsViz,
    Transpose,
    Window,
)
from . import attributes_sharding as sharding_syntax
from . import attributes_values as v
from .attributes_text import (
    Cursor,
    format_float,
    format_int_list,
    format_int_list_list,
    parse_int_list,
    parse_int_list_list,
    parse_string_or_dict,
    quote,
    string_or_dict,
)
from .instruction import CONTROL_PREDECESSORS

T = TypeVar("T")


@dataclass(frozen=True)
class AttributeSyntax:
    """How one attribute's value is written in HLO text.

    ``description`` says what a valid value looks like; it goes into error
    messages and documentation.
    """

    description: str
    parse_at: Callable[[Cursor], object]
    format: Callable[[object], str]

    def parse(self, text: str) -> object:
        """Read the whole of ``text``; errors carry offsets into ``text``."""
        cur = Cursor(text)
        value = self.parse_at(cur)
        cur.expect_end(self.description)
        return value


class ConvolutionKind(enum.Enum):
    """Which pass of a convolution an instruction implements (``convolution_kind=``)."""

    FPROP = "fprop"
    DGRAD = "dgrad"
    WGRAD = "wgrad"


# -- building blocks ---------------------------------------------------------------


def _int_syntax(description: str = "an integer") -> AttributeSyntax:
    return AttributeSyntax(description, lambda c: c.integer(description), lambda x: str(int(x)))


INT = _int_syntax()


BOOL = AttributeSyntax("true or false", Cursor.boolean, lambda x: "true" if x else "false")
_FLOAT = AttributeSyntax("a number", Cursor.number, lambda x: format_float(float(x)))
STRING = AttributeSyntax('a "quoted string"', Cursor.string, lambda x: quote(str(x)))
_STRING_OR_DICT = AttributeSyntax(
    'a "quoted string" or a {...} dictionary',
    parse_string_or_dict,
    lambda x: string_or_dict(str(x)),
)
_INT_LIST = AttributeSyntax("a list of integers such as {1,0}", parse_int_list, format_int_list)
_INT_LIST_LIST = AttributeSyntax(
    "a list of integer lists such as {{0,1},{2,3}}", parse_int_list_list, format_int_list_list
)


def _enum_syntax(
    enum_type: type[enum.Enum], spelling: Callable[[enum.Enum], str], members: list | None = None
) -> AttributeSyntax:
    """An enum written as one word; ``spelling`` maps a member to its HLO text."""
    by_text = {spelling(m): m for m in (members or list(enum_type))}
    description = " or ".join(sorted(by_text))

    def parse_at(cur: Cursor) -> enum.Enum:
        return by_text[cur.keyword(by_text, f"one of {', '.join(sorted(by_text))}")]

    def format_(value: object) -> str:
        member = enum_type(value)
        for text, m in by_text.items():
            if m is member:
                return text
        raise InvalidArgumentError(f"{member!r} has no HLO text form")

    return AttributeSyntax(description, parse_at, format_)


def _name(m: enum.Enum) -> str:
    return m.name


def _lower_name(m: enum.Enum) -> str:
    return m.name.lower()


def _value(m: enum.Enum) -> str:
    return str(m.value)


def _dot_algorithm_text(m: enum.Enum) -> str:
    return "unset" if m.name == "ALG_UNSET" else m.name.lower().removeprefix("alg_")


_PRECISION = _enum_syntax(Precision, _lower_name)


def _parse_precisions(cur: Cursor) -> tuple[Precision, ...]:
    return tuple(cur.delimited(_PRECISION.parse_at, what="operand precisions"))


def _format_precisions(values: tuple[Precision, ...]) -> str:
    return "{" + ",".join(_PRECISION.format(p) for p in values) + "}"


# -- the registry --------------------------------------------------------------------

_DIMENSION_LISTS = (
    "dimensions",
    "slice_sizes",
    "dynamic_slice_sizes",
    "fft_length",
    "lhs_contracting_dims",
    "rhs_contracting_dims",
    "lhs_batch_dims",
    "rhs_batch_dims",
    "lhs_ragged_dims",
    "rhs_group_dims",
    "offset_dims",
    "collapsed_slice_dims",
    "start_index_map",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "update_window_dims",
    "inserted_window_dims",
    "scatter_dims_to_operand_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
)
_INTS = (
    "index",
    "iota_dimension",
    "index_vector_dim",
    "feature_index",
    "exponent_bits",
    "mantissa_bits",
    "k",
    "delta",
    "channel_id",
    "feature_group_count",
    "batch_group_count",
    "cross_program_prefetch_index",
    "inferred_dimension",
    "num_carries",
)
_BOOLS = (
    "indices_are_sorted",
    "unique_indices",
    "is_stable",
    "largest",
    "use_global_device_ids",
    "constrain_layout",
    "custom_call_has_side_effect",
    "is_host_transfer",
    "left_side",
    "lower",
    "unit_diagonal",
    "is_composite",
    "is_reverse",
    "is_associative",
)
_STRINGS = ("custom_call_target", "infeed_config", "outfeed_config", "async_execution_thread")

ATTRIBUTE_SYNTAX: dict[str, AttributeSyntax] = {
    **{name: _INT_LIST for name in _DIMENSION_LISTS},
    **{name: INT for name in _INTS},
    **{name: BOOL for name in _BOOLS},
    **{name: STRING for name in _STRINGS},
    "epsilon": _FLOAT,
    "backend_config": _STRING_OR_DICT,
    "slice": AttributeSyntax(
        "slice ranges such as {[0:2], [1:4]} or {[0:2:1], [1:4:2]}", v.parse_slice, v.format_slice
    ),
    "padding": AttributeSyntax(
        "a padding config such as 1_1x0_2 or 1_1_0x0_2_1",
        v.parse_padding_config,
        v.format_padding_config,
    ),
    "window": AttributeSyntax(
        "a window such as {size=3x3 stride=2x2 pad=1_1x1_1}", v.parse_window, v.format_window
    ),
    "dim_labels": AttributeSyntax(
        "dimension labels such as b01f_01io->b01f", v.parse_dim_labels, v.format_dim_labels
    ),
    "operand_precision": AttributeSyntax(
        "operand precisions such as {default,highest}", _parse_precisions, _format_precisions
    ),
    "algorithm": _enum_syntax(PrecisionAlgorithm, _dot_algorithm_text),
    "direction": _enum_syntax(ComparisonDirection, _name),
    "type": _enum_syntax(ComparisonType, _name),
    "fft_type": _enum_syntax(FftType, _name),
    "distribution": _enum_syntax(
        RandomDistribution,
        _lower_name,
        [RandomDistribution.RNG_UNIFORM, RandomDistribution.RNG_NORMAL],
    ),
    "transpose_a": _enum_syntax(
        Transpose, _name, [Transpose.NO_TRANSPOSE, Transpose.TRANSPOSE, Transpose.ADJOINT]
    ),
    "api_version": _enum_syntax(CustomCallApiVersion, _name),
    "schedule": _enum_syntax(CustomCallSchedule, _name),
    "padding_type": _enum_syntax(PaddingType, _name),
    "kind": _enum_syntax(FusionKind, _value),
    "mode": _enum_syntax(CollectiveOpGroupMode, _value),
    "convolution_kind": _enum_syntax(ConvolutionKind, _value),
    "replica_groups": AttributeSyntax(
        "replica groups such as {{0,1},{2,3}}, [2,2]<=[4] or mesh['x'=2,'y'=2] {'x'}",
        v.parse_replica_groups,
        v.format_replica_groups,
    ),
    "source_target_pairs": AttributeSyntax(
        "source-target pairs such as {{0,1},{1,0}}",
        v.parse_source_target_pairs,
        v.format_source_target_pairs,
    ),
    "operand_layout_constraints": AttributeSyntax(
        "shapes with layouts such as {f32[2]{0}, s32[]}", v.parse_shape_list, v.format_shape_list
    ),
    "outfeed_shape": AttributeSyntax(
        "a shape such as f32[2,3]{1,0}", v.parse_shape, lambda s: s.to_string(print_layout=True)
    ),
    "output_to_operand_aliasing": AttributeSyntax(
        "aliasing pairs such as {{0}: (0, {})}",
        v.parse_output_to_operand_aliasing,
        v.format_output_to_operand_aliasing,
    ),
    "sharding": AttributeSyntax(
        "a sharding such as {replicated} or {devices=[2,2]<=[4]}",
        sharding_syntax.parse_sharding,
        sharding_syntax.format_sharding,
    ),
    "domain": AttributeSyntax(
        'a domain such as {kind="sharding", entry={...}, exit={...}}',
        sharding_syntax.parse_domain,
        sharding_syntax.format_domain,
    ),
    "metadata": AttributeSyntax(
        'metadata such as {op_type="Add" op_name="add"}', v.parse_metadata, v.format_metadata
    ),
    "frontend_attributes": AttributeSyntax(
        'frontend attributes such as {key="value"}',
        v.parse_frontend_attributes,
        v.format_frontend_attributes,
    ),
    "statistics": AttributeSyntax(
        "statistics such as {visualizing_index=1,stat-0=40}",
        v.parse_statistics,
        v.format_statistics,
    ),
    "result_accuracy": AttributeSyntax(
        "a result accuracy such as {mode=highest}",
        v.parse_result_accuracy,
        v.format_result_accuracy,
    ),
    "parameter_replication": AttributeSyntax(
        "a list such as {true,false}", v.parse_bool_list, v.format_bool_list
    ),
    # The original-value tree is kept verbatim: nothing in xlapy interprets it.
    "origin": AttributeSyntax('an original value such as {{"x"}}', Cursor.balanced, str),
}

# Attributes whose syntax depends on the opcode; see the module docstring.
OPCODE_ATTRIBUTE_SYNTAX: dict[tuple[HloOpcode, str], AttributeSyntax] = {
    (HloOpcode.RNG_BIT_GENERATOR, "algorithm"): _enum_syntax(RandomAlgorithm, _lower_name),
    (HloOpcode.COLLECTIVE_PERMUTE, "slice_sizes"): _INT_LIST_LIST,
    (HloOpcode.COLLECTIVE_PERMUTE_START, "slice_sizes"): _INT_LIST_LIST,
}

# Attributes that reference computations or instructions by name: the parser's job.
REFERENCE_ATTRIBUTES: frozenset[str] = COMPUTATION_ATTRIBUTES | {CONTROL_PREDECESSORS}


def find_syntax(opcode: HloOpcode | str | None, name: str) -> AttributeSyntax | None:
    """The syntax of attribute ``name`` on ``opcode``, or None when the registry has none.

    ``opcode`` None asks for the opcode-independent syntax. The parser keeps
    values of attributes without a syntax verbatim (a ``RawAttribute``).
    """
    return _lookup(OPCODE_ATTRIBUTE_SYNTAX, ATTRIBUTE_SYNTAX, opcode, name)


def _lookup(
    by_opcode: dict[tuple[HloOpcode, str], T],
    by_name: dict[str, T],
    opcode: HloOpcode | str | None,
    name: str,
) -> T | None:
    """The entry for ``name`` on ``opcode``: the opcode's own if it has one, else the general."""
    if opcode is not None:
        op = opcode if isinstance(opcode, HloOpcode) else HloOpcode.from_text(opcode)
        entry = by_opcode.get((op, name))
        if entry is not None:
            return entry
    return by_name.get(name)


def syntax_for(opcode: HloOpcode | str | None, name: str) -> AttributeSyntax:
    """Like :func:`find_syntax`, but an attribute without a syntax raises, naming near ones."""
    syntax = find_syntax(opcode, name)
    if syntax is not None:
        return syntax
    if name in REFERENCE_ATTRIBUTES:
        raise InvalidArgumentError(
            f"attribute {name!r} names computations or instructions; "
            "the HLO parser resolves it, it has no value syntax"
        )
    near = difflib.get_close_matches(name, list(ATTRIBUTE_SYNTAX) + list(REFERENCE_ATTRIBUTES), n=3)
    hint = f"; did you mean {' or '.join(repr(n) for n in near)}?" if near else ""
    raise InvalidArgumentError(f"unknown HLO attribute {name!r}{hint}")


# -- defaults ---------------------------------------------------------------------------
# What an absent attribute means, and whether XLA leaves it out of the text when
# the value equals that default (some, like largest=true, are always printed).
# Callables take (operand_count, operand_element_type) for the defaults that
# depend on the operands.


@dataclass(frozen=True)
class _Default:
    value: object
    omitted: bool = True


_DEFAULTS: dict[str, _Default] = {
    # Flags are false and left out when absent; largest and is_associative (below) differ.
    **{name: _Default(False) for name in _BOOLS},
    **{
        name: _Default(())
        for name in (
            "lhs_batch_dims",
            "rhs_batch_dims",
            "operand_batching_dims",
            "start_indices_batching_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
            "output_to_operand_aliasing",
        )
    },
    **{name: _Default("") for name in ("backend_config", "infeed_config", "outfeed_config")},
    "feature_group_count": _Default(1),
    "batch_group_count": _Default(1),
    "window": _Default(Window()),
    "algorithm": _Default(PrecisionAlgorithm.ALG_UNSET),
    "operand_precision": _Default(lambda count, _: (Precision.DEFAULT,) * (count or 0)),
    "type": _Default(lambda _, element_type: ComparisonType.default_for(element_type)),
    "result_accuracy": _Default(ResultAccuracy()),
    "schedule": _Default(CustomCallSchedule.SCHEDULE_NONE),
    "api_version": _Default(CustomCallApiVersion.API_VERSION_ORIGINAL),
    "padding_type": _Default(PaddingType.PADDING_INVALID),
    "frontend_attributes": _Default(FrontendAttributes()),
    "metadata": _Default(OpMetadata()),
    "statistics": _Default(StatisticsViz()),
    "async_execution_thread": _Default("main"),
    "largest": _Default(True, omitted=False),
    "is_associative": _Default(False, omitted=False),
    "transpose_a": _Default(Transpose.NO_TRANSPOSE, omitted=False),
}
_OPCODE_DEFAULTS: dict[tuple[HloOpcode, str], _Default] = {
    (HloOpcode.RNG_BIT_GENERATOR, "algorithm"): _Default(RandomAlgorithm.RNG_DEFAULT, False),
    (HloOpcode.BROADCAST, "dimensions"): _Default((), omitted=False),
}


def _default_entry(opcode: HloOpcode | str | None, name: str) -> _Default | None:
    return _lookup(_OPCODE_DEFAULTS, _DEFAULTS, opcode, name)


def default_value(
    opcode: HloOpcode | str | None,
    name: str,
    *,
    operand_count: int | None = None,
    operand_element_type: object = None,
) -> object:
    """What XLA assumes when ``name`` is absent; raises for attributes without a default.

    ``operand_count`` sizes operand_precision; ``operand_element_type`` decides
    compare's ``type``.
    """
    entry = _default_entry(opcode, name)
    if entry is None:
        raise InvalidArgumentError(f"attribute {name!r} has no default: it must be given")
    value = entry.value
    return value(operand_count, operand_element_type) if callable(value) else value


def is_omitted_default(
    opcode: HloOpcode | str | None,
    name: str,
    value: object,
    *,
    operand_element_type: object = None,
) -> bool:
    """True when XLA would leave ``name=value`` out of the printed instruction."""
    entry = _default_entry(opcode, name)
    if entry is None or not entry.omitted:
        return False
    if name == "operand_precision":
        return all(Precision(p) is Precision.DEFAULT for p in value)
    if name == "type":
        return operand_element_type is not None and value is ComparisonType.default_for(
            operand_element_type
        )
    return value == entry.value


def parse_attribute(opcode: HloOpcode | str | None, name: str, text: str) -> object:
    """Parse the value text of ``name=text`` on ``opcode``."""
    try:
        syntax = syntax_for(opcode, name)
    except InvalidArgumentError as e:
        raise ParseError(str(e), text=text, offset=0) from None
    return syntax.parse(text)


def format_attribute(opcode: HloOpcode | str | None, name: str, value: object) -> str:
    """``name=value`` as XLA prints it."""
    return f"{name}={syntax_for(opcode, name).format(value)}"


__all__ = [
    "AttributeSyntax",
    "ATTRIBUTE_SYNTAX",
    "OPCODE_ATTRIBUTE_SYNTAX",
    "REFERENCE_ATTRIBUTES",
    "ConvolutionKind",
    "find_syntax",
    "syntax_for",
    "parse_attribute",
    "format_attribute",
    "default_value",
    "is_omitted_default",
    "BOOL",
    "INT",
    "STRING",
]
