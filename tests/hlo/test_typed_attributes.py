"""Typed accessors of split attributes: what the text spells, read back as xla_data values.

Dot, gather and scatter dimension numbers are several HLO attributes each; the
accessors (``instruction.dot_dimension_numbers`` ...) and ``set_dimension_numbers``
are the one bridge between the two, so these tests hold them to the text in both
directions, and to what the builder writes.
"""

from __future__ import annotations

import pytest

from xlapy import ops
from xlapy.builder import XlaBuilder
from xlapy.hlo import parse_module
from xlapy.hlo.typed_attributes import int_tuple, to_attributes
from xlapy.opcode import HloOpcode
from xlapy.shape import Shape
from xlapy.xla_data import (
    DotDimensionNumbers,
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
)

DOT = """HloModule dot

ENTRY main {
  a = f32[4,2,3]{2,1,0} parameter(0)
  b = f32[4,3,5]{2,1,0} parameter(1)
  ROOT d = f32[4,2,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}

"""

GATHER = """HloModule gather

ENTRY main {
  x = f32[3,4,5]{2,1,0} parameter(0)
  i = s32[3,2,1]{2,1,0} parameter(1)
  ROOT g = f32[3,2,5]{2,1,0} gather(x, i), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,5}
}

"""

SCATTER = """HloModule scatter

add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}

ENTRY main {
  x = f32[5,4]{1,0} parameter(0)
  i = s32[2]{0} parameter(1)
  u = f32[2,4]{1,0} parameter(2)
  ROOT r = f32[5,4]{1,0} scatter(x, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
}

"""


def _root(text: str):
    return parse_module(text).entry.root


def test_accessors_read_dimension_numbers_from_parsed_text():
    assert _root(DOT).dot_dimension_numbers == DotDimensionNumbers(
        lhs_contracting_dimensions=(2,),
        rhs_contracting_dimensions=(1,),
        lhs_batch_dimensions=(0,),
        rhs_batch_dimensions=(0,),
    )
    gather = _root(GATHER)
    assert gather.gather_dimension_numbers == GatherDimensionNumbers(
        offset_dims=(2,),
        collapsed_slice_dims=(1,),
        start_index_map=(1,),
        index_vector_dim=2,
        operand_batching_dims=(0,),
        start_indices_batching_dims=(0,),
    )
    assert gather.slice_sizes == (1, 1, 5)
    assert _root(SCATTER).scatter_dimension_numbers == ScatterDimensionNumbers(
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )


def test_batching_dimensions_absent_from_the_text_read_as_empty():
    dn = _root(SCATTER).scatter_dimension_numbers
    assert dn.input_batching_dims == () and dn.scatter_indices_batching_dims == ()


@pytest.mark.parametrize(
    ("text", "accessor"),
    [
        (DOT, "dot_dimension_numbers"),
        (GATHER, "gather_dimension_numbers"),
        (SCATTER, "scatter_dimension_numbers"),
    ],
)
def test_set_dimension_numbers_round_trips_the_text_byte_for_byte(text, accessor):
    module = parse_module(text)
    root = module.entry.root
    root.set_dimension_numbers(getattr(root, accessor))
    assert module.to_text() == text


def test_to_attributes_writes_the_text_order_and_leaves_out_empty_batching():
    dn = GatherDimensionNumbers((1,), (0,), (0,), 1)
    assert list(to_attributes(dn)) == [
        "offset_dims",
        "collapsed_slice_dims",
        "start_index_map",
        "index_vector_dim",
    ]
    dot = DotDimensionNumbers((1,), (0,))
    assert to_attributes(dot) == {"lhs_contracting_dims": (1,), "rhs_contracting_dims": (0,)}
    assert int_tuple(None) == () and int_tuple([2, 3]) == (2, 3)


def test_the_builder_writes_what_the_accessors_read():
    b = XlaBuilder("typed")
    x = ops.Parameter(b, 0, Shape.parse("f32[3,4,5]"))
    i = ops.Parameter(b, 1, Shape.parse("s32[3,2,1]"))
    gather_dn = GatherDimensionNumbers((2,), (1,), (1,), 2, (0,), (0,))
    gather = ops.Gather(x, i, gather_dn, [1, 1, 5])

    m = ops.Parameter(b, 2, Shape.parse("f32[5,4]"))
    s = ops.Parameter(b, 3, Shape.parse("s32[2]"))
    u = ops.Parameter(b, 4, Shape.parse("f32[2,4]"))
    scatter_dn = ScatterDimensionNumbers((1,), (0,), (0,), 1)
    scatter = ops.Scatter(m, s, u, lambda p, q: p + q, scatter_dn)

    lhs = ops.Parameter(b, 5, Shape.parse("f32[4,2,3]"))
    rhs = ops.Parameter(b, 6, Shape.parse("f32[4,3,5]"))
    dot_dn = DotDimensionNumbers((2,), (1,), (0,), (0,))
    dot = ops.DotGeneral(lhs, rhs, dot_dn)
    root = ops.Tuple(b, [gather, scatter, dot])
    entry = b.build(root).hlo_module.entry

    by_opcode = {instruction.opcode: instruction for instruction in entry.instructions}
    assert by_opcode[HloOpcode.GATHER].gather_dimension_numbers == gather_dn
    assert by_opcode[HloOpcode.GATHER].slice_sizes == (1, 1, 5)
    assert by_opcode[HloOpcode.SCATTER].scatter_dimension_numbers == scatter_dn
    assert by_opcode[HloOpcode.DOT].dot_dimension_numbers == dot_dn
    # ... and in the order XLA prints them, which the parsed text above also uses.
    assert "operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2" in (
        by_opcode[HloOpcode.GATHER].to_text()
    )
    assert "lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}" in (
        by_opcode[HloOpcode.DOT].to_text()
    )
