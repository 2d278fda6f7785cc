"""Structured attributes as the ``xla_data`` objects the builder takes (XLA's typed accessors).

HLO text spreads some of XLA's structured values over several attributes (a
dot's ``lhs_contracting_dims={1}, rhs_contracting_dims={0}``, a gather's five
lists); ``HloInstruction`` stores them as text spells them so that printing
stays exact. This module is the one place that knows which attributes make
up which value, in both directions: passes and emitters read
``instruction.gather_dimension_numbers`` instead of a string per field, and
the builder writes a ``GatherDimensionNumbers`` through :func:`to_attributes`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..xla_data import DotDimensionNumbers, GatherDimensionNumbers, ScatterDimensionNumbers


@dataclass(frozen=True)
class SplitValue:
    """An ``xla_data`` value written as one HLO attribute per field."""

    cls: type
    # field name -> attribute name, in the order XLA's printer writes the attributes
    attribute_of: Mapping[str, str]
    optional: frozenset[str] = frozenset()  # fields left out of the text when empty

    def read(self, attribute: Callable[[str, Any], Any]) -> Any:
        values = {}
        for f in fields(self.cls):
            value = attribute(self.attribute_of[f.name], None)
            if value is not None:
                values[f.name] = value if isinstance(value, int) else tuple(int(v) for v in value)
        return self.cls(**values)

    def write(self, value: Any) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, attribute in self.attribute_of.items():
            v = getattr(value, name)
            if isinstance(v, int):
                out[attribute] = v
            elif v or name not in self.optional:
                out[attribute] = tuple(v)
        return out


DOT = SplitValue(
    DotDimensionNumbers,
    {
        "lhs_batch_dimensions": "lhs_batch_dims",
        "lhs_contracting_dimensions": "lhs_contracting_dims",
        "rhs_batch_dimensions": "rhs_batch_dims",
        "rhs_contracting_dimensions": "rhs_contracting_dims",
    },
    optional=frozenset({"lhs_batch_dimensions", "rhs_batch_dimensions"}),
)
GATHER = SplitValue(
    GatherDimensionNumbers,
    {
        "offset_dims": "offset_dims",
        "collapsed_slice_dims": "collapsed_slice_dims",
        "start_index_map": "start_index_map",
        "operand_batching_dims": "operand_batching_dims",
        "start_indices_batching_dims": "start_indices_batching_dims",
        "index_vector_dim": "index_vector_dim",
    },
    optional=frozenset({"operand_batching_dims", "start_indices_batching_dims"}),
)
SCATTER = SplitValue(
    ScatterDimensionNumbers,
    {
        "update_window_dims": "update_window_dims",
        "inserted_window_dims": "inserted_window_dims",
        "scatter_dims_to_operand_dims": "scatter_dims_to_operand_dims",
        "input_batching_dims": "input_batching_dims",
        "scatter_indices_batching_dims": "scatter_indices_batching_dims",
        "index_vector_dim": "index_vector_dim",
    },
    optional=frozenset({"input_batching_dims", "scatter_indices_batching_dims"}),
)

SPLIT_VALUES: dict[type, SplitValue] = {s.cls: s for s in (DOT, GATHER, SCATTER)}


def to_attributes(value: Any) -> dict[str, Any]:
    """The HLO attributes that spell ``value`` (dot, gather or scatter dimension numbers)."""
    return SPLIT_VALUES[type(value)].write(value)


def int_tuple(value: Any) -> tuple[int, ...]:
    """An attribute holding a list of integers, as a tuple (empty when absent)."""
    return tuple(int(v) for v in value) if value is not None else ()


__all__ = ["DOT", "GATHER", "SCATTER", "SPLIT_VALUES", "SplitValue", "int_tuple", "to_attributes"]
