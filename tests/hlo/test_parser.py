"""parse_module on hand-written HLO covering the syntax XLA and JAX write.

Each module is checked for the structure it parses to (opcodes, shapes,
operands, attributes, called computations) and for print stability: the
printed text parses back to a module that prints the same text, in the short,
long and XLA-default forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from xlapy import BF16, C64, F32, PRED, S32, Shape
from xlapy.hlo import (
    HloComputation,
    HloModule,
    HloOpcode,
    PrintOptions,
    RawAttribute,
    parse_computation,
    parse_module,
)

FORMS = (PrintOptions.short(), PrintOptions.long(), PrintOptions.xla_default())


def stable(text: str) -> HloModule:
    """Parse ``text`` and assert that every print form is a fixed point."""
    module = parse_module(text)
    for options in FORMS:
        printed = module.to_text(options=options)
        again = parse_module(printed).to_text(options=options)
        assert again == printed, f"not stable:\n{printed}\n---\n{again}"
    return module


SHORT = """\
HloModule axpy, entry_computation_layout={(f32[], f32[2,4]{1,0}, f32[2,4]{1,0})->f32[2,4]{1,0}}

ENTRY axpy.1 {
  alpha = f32[] parameter(0)
  x = f32[2,4]{1,0} parameter(1)
  y = f32[2,4]{1,0} parameter(2)
  scaled = f32[2,4]{1,0} broadcast(alpha), dimensions={}
  product = f32[2,4]{1,0} multiply(scaled, x)
  ROOT sum = f32[2,4]{1,0} add(product, y)
}

"""


def test_short_form_structure():
    m = stable(SHORT)
    assert m.name == "axpy"
    entry = m.entry
    assert entry.name == "axpy.1" and entry.is_entry
    assert [i.name for i in entry.instructions] == ["alpha", "x", "y", "scaled", "product", "sum"]
    root = entry.root
    assert root.name == "sum" and root.opcode is HloOpcode.ADD
    assert root.shape == Shape.parse("f32[2,4]{1,0}")
    assert [o.name for o in root.operands] == ["product", "y"]
    scaled = entry.instruction("scaled")
    assert scaled.opcode is HloOpcode.BROADCAST
    assert tuple(scaled.attribute("dimensions")) == ()
    assert [p.parameter_number for p in entry.parameters] == [0, 1, 2]
    assert entry.parameter(0).shape == Shape.scalar(F32)
    layout = m.entry_computation_layout
    assert layout.parameters[1] == Shape.parse("f32[2,4]{1,0}")
    assert layout.result == Shape.parse("f32[2,4]{1,0}")
    assert m.to_text() == SHORT  # canonical text comes back unchanged


def test_users_are_maintained_by_the_parser():
    entry = stable(SHORT).entry
    x = entry.instruction("x")
    assert [u.name for u in x.users] == ["product"]
    assert entry.instruction("sum").users == ()


VERBOSE = """\
HloModule jit_f, entry_computation_layout={(f32[3]{0}, f32[3]{0})->f32[3]{0}}

FileNames
1 "/tmp/example.py"

FunctionNames
1 "f"

FileLocations
1 {file_name_id=1 function_name_id=1 line=3 end_line=3 column=10 end_column=15}

StackFrames
1 {file_location_id=1 parent_frame_id=1}


ENTRY %main.4 (x.1: f32[3], y.1: f32[3]) -> f32[3] {
  %x.1 = f32[3]{0} parameter(0), metadata={op_name="x"}
  %y.1 = f32[3]{0} parameter(1), metadata={op_name="y"}
  %sin.1 = f32[3]{0} sine(f32[3]{0} %x.1), metadata={op_name="jit(f)/sin" stack_frame_id=1}
  ROOT %add.1 = f32[3]{0} add(f32[3]{0} %sin.1, f32[3]{0} %y.1), metadata={op_name="jit(f)/add" stack_frame_id=1}
}

"""


def test_verbose_form_with_operand_shapes_metadata_and_stack_frames():
    m = stable(VERBOSE)
    add = m.entry.root
    assert add.opcode is HloOpcode.ADD
    assert [o.name for o in add.operands] == ["sin.1", "y.1"]
    assert add.has_attribute("metadata")
    assert m.stack_frame_tables.startswith('FileNames\n1 "/tmp/example.py"')
    assert m.stack_frame_tables.endswith("1 {file_location_id=1 parent_frame_id=1}")
    assert m.to_text(options=PrintOptions.long()) == VERBOSE
    short = m.to_text()
    assert "%" not in short and "metadata" not in short and "FileNames" not in short


def test_verbose_operand_shape_must_match_the_operand():
    bad = VERBOSE.replace("sine(f32[3]{0} %x.1)", "sine(f32[4]{0} %x.1)")
    with pytest.raises(Exception, match="written with shape f32\\[4\\]"):
        parse_module(bad)


FUSED = """\
HloModule jit_g, is_scheduled=true, entry_computation_layout={(f32[8]{0})->f32[8]{0}}, allow_spmd_sharding_propagation_to_output={true}

%fused_computation (param_0.1: f32[8]) -> f32[8] {
  %param_0.1 = f32[8]{0} parameter(0)
  %constant.1 = f32[] constant(2)
  %broadcast.1 = f32[8]{0} broadcast(%constant.1), dimensions={}
  ROOT %multiply.1 = f32[8]{0} multiply(%param_0.1, %broadcast.1)
}

ENTRY %main (x: f32[8]) -> f32[8] {
  %x = f32[8]{0} parameter(0)
  ROOT %fusion = f32[8]{0} fusion(%x), kind=kLoop, calls=%fused_computation, backend_config={"outer_dimension_partitions":["2"]}
}

"""


def test_scheduled_module_with_fusion():
    m = stable(FUSED)
    assert m.is_scheduled
    assert m.header_extras == {"allow_spmd_sharding_propagation_to_output": "{true}"}
    fused = m.computation("fused_computation")
    fusion = m.entry.root
    assert fusion.opcode is HloOpcode.FUSION
    assert fusion.fused_computation is fused
    assert fusion.called_computations() == [fused]
    assert fused.is_fusion_computation and fused.fusion_instruction is fusion
    assert not m.entry.is_fusion_computation
    assert fusion.fusion_kind is not None and "Loop" in str(fusion.fusion_kind)
    assert fusion.has_attribute("backend_config")
    assert m.to_text(options=PrintOptions.xla_default()) == FUSED


CONTROL_FLOW = """\
HloModule flow

ENTRY main {
  p = f32[4] parameter(0)
  i = s32[] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[4]) tuple(zero, p)
  loop = (s32[], f32[4]) while(init), condition=cond, body=body
  v = f32[4] get-tuple-element(loop), index=1
  c0 = f32[] constant(0)
  total = f32[] reduce(v, c0), dimensions={0}, to_apply=sum
  called = f32[] call(total), to_apply=twice
  ROOT pick = f32[] conditional(i, called, total), branch_computations={twice, negate}
}

body {
  t = (s32[], f32[4]) parameter(0)
  k = s32[] get-tuple-element(t), index=0
  one = s32[] constant(1)
  k1 = s32[] add(k, one)
  a = f32[4] get-tuple-element(t), index=1
  a2 = f32[4] add(a, a)
  ROOT out = (s32[], f32[4]) tuple(k1, a2)
}

cond {
  t = (s32[], f32[4]) parameter(0)
  k = s32[] get-tuple-element(t), index=0
  ten = s32[] constant(10)
  ROOT lt = pred[] compare(k, ten), direction=LT
}

sum {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

twice {
  a = f32[] parameter(0)
  ROOT d = f32[] add(a, a)
}

negate {
  a = f32[] parameter(0)
  ROOT n = f32[] negate(a)
}

"""


def test_control_flow_references_computations_defined_later():
    m = stable(CONTROL_FLOW)
    entry = m.entry
    assert entry.name == "main"  # marked ENTRY although it comes first
    loop = entry.instruction("loop")
    assert loop.attribute("condition") is m.computation("cond")
    assert loop.attribute("body") is m.computation("body")
    assert entry.instruction("total").to_apply is m.computation("sum")
    pick = entry.root
    assert pick.attribute("branch_computations") == [
        m.computation("twice"),
        m.computation("negate"),
    ]
    assert pick.called_computations() == [m.computation("twice"), m.computation("negate")]
    assert entry.instruction("v").tuple_index == 1
    assert [c.name for c in entry.called_computations()] == [
        "cond",
        "body",
        "sum",
        "twice",
        "negate",
    ]
    # Names repeated across computations are made unique in the module, as XLA does.
    names = [i.name for i in m.instructions()]
    assert len(names) == len(set(names))
    assert m.computation("cond").parameter(0).name != m.computation("body").parameter(0).name


def test_xla_accepts_what_we_print():
    hlo = pytest.importorskip("jaxlib._hlo", reason="jaxlib (XLA's own parser) is not installed")
    # XLA rejects attributes it does not know, so leave the made-up one out.
    custom = CUSTOM_CALL.replace(', xla_future_attribute={a=[1,2], b="x,y"}', "")
    for text in (SHORT, VERBOSE, FUSED, CONTROL_FLOW, custom, CONSTANTS, TUPLES):
        m = parse_module(text)
        for options in (PrintOptions.short(), PrintOptions.long()):
            hlo.hlo_module_from_text(m.to_text(options=options))


CUSTOM_CALL = """\
HloModule calls

ENTRY main {
  x = f32[2,2]{1,0} parameter(0)
  lu = (f32[2,2]{0,1}, s32[2]{0}, s32[]) custom-call(x), custom_call_target="lapack_sgetrf_ffi", operand_layout_constraints={f32[2,2]{0,1}}, output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={"mode": 1}
  blob = f32[2,2]{1,0} custom-call(x), custom_call_target="my\\"target", backend_config="free text, with commas", xla_future_attribute={a=[1,2], b="x,y"}
  lu.0 = f32[2,2]{0,1} get-tuple-element(lu), index=0
  ROOT r = (f32[2,2]{0,1}, f32[2,2]{1,0}) tuple(lu.0, blob)
}

"""


def test_custom_call_and_unknown_attributes():
    text = CUSTOM_CALL
    m = stable(text)
    lu = m.entry.instruction("lu")
    assert lu.opcode is HloOpcode.CUSTOM_CALL
    assert lu.custom_call_target == "lapack_sgetrf_ffi"
    assert list(lu.attributes) == [
        "custom_call_target",
        "operand_layout_constraints",
        "output_to_operand_aliasing",
        "api_version",
        "backend_config",
    ]
    blob = m.entry.instruction("blob")
    assert blob.custom_call_target == 'my"target'
    assert blob.attribute("xla_future_attribute") == RawAttribute('{a=[1,2], b="x,y"}')
    printed = m.to_text()
    assert 'xla_future_attribute={a=[1,2], b="x,y"}' in printed
    assert 'backend_config="free text, with commas"' in printed
    assert 'custom_call_target="my\\"target"' in printed
    assert m.to_text() == text


TUPLES = """\
HloModule tuples

ENTRY main {
  a = f32[] parameter(0)
  b = s32[2]{0} parameter(1)
  inner = (f32[], s32[2]{0}) tuple(a, b)
  nested = ((f32[], s32[2]{0}), f32[]) tuple(inner, a)
  wide = (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[]) tuple(a, a, a, a, a, a, a)
  x = (f32[], s32[2]{0}) get-tuple-element(nested), index=0
  y = s32[2]{0} get-tuple-element(x), index=1
  empty = () tuple()
  ROOT out = (s32[2]{0}, (f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[], f32[]), ()) tuple(y, wide, empty)
}

"""


def test_nested_tuples_and_index_comments():
    m = stable(TUPLES)
    nested = m.entry.instruction("nested")
    assert nested.shape.tuple_shapes[0] == Shape.tuple([Shape.scalar(F32), Shape.array(S32, [2])])
    wide = m.entry.instruction("wide")
    assert len(wide.shape.tuple_shapes) == 7 and wide.operand_count == 7
    assert m.entry.instruction("empty").shape == Shape.tuple([])
    assert m.to_text() == TUPLES
    long = m.to_text(verbose=True)
    assert "/*index=5*/f32[] %a" in long  # operands are annotated in the long form


CONSTANTS = """\
HloModule constants

ENTRY main {
  f = f32[4]{0} constant({1.5, nan, inf, -inf})
  h = bf16[2]{0} constant({0.5, -2})
  c = c64[2]{0} constant({(1, 2), (3, -4)})
  i = s32[2,2]{1,0} constant({ { 1, 2 }, { 3, 4 } })
  p = pred[3]{0} constant({1, 0, 1})
  s = f32[] constant(-0.25)
  z = f32[0,3]{1,0} constant({  })
  e = f32[0]{0} constant({})
  ROOT t = (f32[4]{0}, bf16[2]{0}, c64[2]{0}, s32[2,2]{1,0}, pred[3]{0}, /*index=5*/f32[], f32[0,3]{1,0}, f32[0]{0}) tuple(f, h, c, i, p, s, z, e)
}

"""


def test_constants_of_several_types():
    m = stable(CONSTANTS)
    entry = m.entry

    def value(name):
        return np.asarray(entry.instruction(name).literal.to_numpy())

    f = value("f")
    assert f[0] == 1.5 and math.isnan(f[1]) and f[2] == math.inf and f[3] == -math.inf
    assert entry.instruction("h").shape.element_type is BF16
    assert [float(v) for v in value("h")] == [0.5, -2.0]
    assert entry.instruction("c").shape.element_type is C64
    assert list(value("c")) == [1 + 2j, 3 - 4j]
    assert value("i").tolist() == [[1, 2], [3, 4]]
    assert entry.instruction("p").shape.element_type is PRED
    assert value("p").tolist() == [True, False, True]
    assert float(value("s")) == -0.25
    assert value("z").shape == (0, 3)
    assert m.to_text() == CONSTANTS  # printed in full, never {...}


def test_zero_size_shapes():
    text = """\
HloModule zeros

ENTRY main {
  x = f32[0,3]{1,0} parameter(0)
  c = f32[] constant(0)
  r = f32[3]{0} reduce(x, c), dimensions={0}, to_apply=add
  ROOT b = f32[3,0]{1,0} broadcast(c), dimensions={}
}

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

"""
    m = stable(text)
    assert m.entry.parameter(0).shape.dimensions == (0, 3)
    assert m.entry.root.shape.dimensions == (3, 0)


def test_control_predecessors():
    text = """\
HloModule control

ENTRY main {
  a = f32[] parameter(0)
  b = f32[] negate(a)
  c = f32[] exponential(a), control-predecessors={b}
  ROOT d = f32[] add(b, c), control-predecessors={a, c}, frontend_attributes={k="v"}
}

"""
    m = stable(text)
    b, c, d = (m.entry.instruction(n) for n in "bcd")
    assert c.control_predecessors == (b,)
    assert b.control_successors == (c,)
    assert [p.name for p in d.control_predecessors] == ["a", "c"]
    assert m.to_text() == text
    assert "control-predecessors={%b}" in m.to_text(verbose=True)


def test_control_predecessor_may_be_defined_later():
    text = """\
HloModule m

ENTRY main {
  a = f32[] parameter(0)
  b = f32[] negate(a), control-predecessors={c}
  c = f32[] exponential(a)
  ROOT d = f32[] add(b, c)
}
"""
    m = stable(text)
    assert m.entry.instruction("b").control_predecessors == (m.entry.instruction("c"),)
    # Printing puts c first: a control predecessor runs (and is printed) before.
    names = [i.name for i in m.entry.post_order()]
    assert names.index("c") < names.index("b")


def test_module_header_attributes():
    text = """\
HloModule header, is_scheduled=true, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {1,0}, must-alias) }, buffer_donor={ (2, {}) }, entry_computation_layout={(f32[2]{0}, (f32[], f32[3]{0}), f32[2]{0})->(f32[2]{0}, f32[3]{0})}, replica_count=4, num_partitions=2, frontend_attributes={xla.sdy.meshes="mesh"}, some_future_flag={1,2}

ENTRY main {
  p0 = f32[2]{0} parameter(0)
  p1 = (f32[], f32[3]{0}) parameter(1)
  p2 = f32[2]{0} parameter(2)
  g = f32[3]{0} get-tuple-element(p1), index=1
  ROOT t = (f32[2]{0}, f32[3]{0}) tuple(p0, g)
}

"""
    m = stable(text)
    assert m.is_scheduled
    assert m.replica_count == 4 and m.num_partitions == 2
    alias = m.input_output_alias.entries
    assert alias[0].output_index == (0,) and alias[0].parameter_number == 0
    assert alias[1].parameter_index == (1, 0) and alias[1].kind == "must-alias"
    assert m.buffer_donor.entries == ((2, ()),)
    assert m.entry_computation_layout.parameters[1] == Shape.parse("(f32[], f32[3]{0})")
    assert m.header_extras["some_future_flag"] == "{1,2}"
    assert m.frontend_attributes is not None
    assert m.to_text() == text


def test_header_values_are_the_registry_values():
    """The header is read and written by attributes_module's syntaxes, into the IR's types."""
    from xlapy.hlo import AliasKind, BufferDonor, InputOutputAlias
    from xlapy.hlo.attributes_module import parse_module_attribute
    from xlapy.shape import ProgramShape

    alias_text = "{ {0}: (0, {}, may-alias), {1}: (1, {1,0}, must-alias) }"
    layout_text = "{(f32[2]{0}, f32[2]{0})->(f32[2]{0}, f32[2]{0})}"
    m = stable(
        f"HloModule h, input_output_alias={alias_text}, buffer_donor={{ (1, {{}}) }}, "
        f"entry_computation_layout={layout_text}\n\n"
        "ENTRY e {\n  a = f32[2]{0} parameter(0)\n  b = f32[2]{0} parameter(1)\n"
        "  ROOT t = (f32[2]{0}, f32[2]{0}) tuple(a, b)\n}\n\n"
    )
    assert isinstance(m.input_output_alias, InputOutputAlias)
    assert m.input_output_alias == parse_module_attribute("input_output_alias", alias_text)
    assert m.input_output_alias.entries[1].kind is AliasKind.MUST_ALIAS
    assert str(m.input_output_alias) == alias_text
    assert m.buffer_donor == BufferDonor(((1, ()),)) and str(m.buffer_donor) == "{ (1, {}) }"
    layout = m.entry_computation_layout
    assert isinstance(layout, ProgramShape)
    assert layout == parse_module_attribute("entry_computation_layout", layout_text)


def test_constant_xlapy_cannot_hold_keeps_its_text():
    from xlapy.hlo import RawLiteral

    text = "HloModule m\n\nENTRY e {\n  ROOT c = f32[?] constant({1, 2})\n}\n\n"
    m = stable(text)
    assert isinstance(m.entry.root.literal, RawLiteral)
    assert m.to_text() == text


def test_mesh_replica_groups():
    text = """\
HloModule mesh, num_partitions=8

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY e {
  p = f32[4]{0} parameter(0)
  ROOT r = f32[4]{0} all-reduce(p), channel_id=1, replica_groups=mesh['stage'=2,'local'=4] {'local'}, use_global_device_ids=true, to_apply=add
}

"""
    m = stable(text)
    assert m.to_text() == text
    groups = m.entry.root.attribute("replica_groups")
    assert groups.groups() == ((0, 1, 2, 3), (4, 5, 6, 7))
    assert groups.mesh_axes_replica_group_list.mesh.axis_names == ("stage", "local")


def test_implicit_entry_and_root():
    m = stable(
        """\
HloModule implicit

helper {
  a = f32[] parameter(0)
  ROOT b = f32[] negate(a)
}

last {
  x = f32[] parameter(0)
  y = f32[] call(x), to_apply=helper
  z = f32[] add(y, x)
}
"""
    )
    assert m.entry.name == "last"  # no ENTRY: the last computation
    assert m.entry.root.name == "z"  # no ROOT: the last instruction
    assert m.to_text().count("ENTRY") == 1 and "ROOT z" in m.to_text()


def test_no_module_header_and_one_line_bodies():
    comp = parse_computation("ENTRY e { a = s32[] constant(7), sharding={replicated} }")
    assert isinstance(comp, HloComputation)
    assert comp.root.opcode is HloOpcode.CONSTANT
    assert comp.root.has_attribute("sharding")


def test_execution_thread_and_comments():
    m = stable(
        """\
HloModule threads // a trailing line comment

ENTRY main {
  /* a block comment */ x = f32[2] parameter(0)
  ROOT c = f32[2] call(x), to_apply=side
}

side {
  y = f32[2] parameter(0)
  ROOT n = f32[2] negate(y)
}, execution_thread="host"
"""
    )
    assert m.computation("side").execution_thread == "host"
    assert '}, execution_thread="host"' in m.to_text()


def test_instructions_may_span_lines():
    m = stable(
        """\
HloModule multiline

ENTRY main {
  a = f32[2] parameter(0)
  ROOT b = f32[2] add(a,
      a), frontend_attributes={
        x="1",
        y="2"
      }
}
"""
    )
    assert m.entry.root.operands == (m.entry.parameter(0),) * 2


def test_layouts_and_dynamic_shapes_are_kept():
    text = """\
HloModule layouts

ENTRY main {
  a = f32[4,8]{0,1} parameter(0)
  b = f32[4,8] copy(a)
  c = f32[<=4,8]{1,0} parameter(1)
  ROOT t = (f32[4,8], f32[<=4,8]{1,0}) tuple(b, c)
}

"""
    m = stable(text)
    assert m.entry.parameter(0).shape.layout.minor_to_major == (0, 1)
    assert m.entry.instruction("b").shape.layout is None
    assert m.entry.parameter(1).shape.dynamic_dimensions == (True, False)
    assert m.to_text() == text


ASYNC = """\
HloModule async

region {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[8]{0} parameter(0)
  start = ((f32[8]{0}), f32[8]{0}) all-to-all-start(x), replica_groups={{0}}, dimensions={0}, frontend_attributes={k="v"}
  done = f32[8]{0} all-to-all-done(start)
  rs = ((f32[8]{0}), f32[8]{0}) reduce-scatter-start(done), replica_groups={{0}}, dimensions={0}, to_apply=region
  ROOT out = f32[8]{0} reduce-scatter-done(rs)
}

"""


def test_async_shorthand_becomes_async_ops_with_a_wrapped_computation():
    m = stable(ASYNC)
    start = m.entry.instruction("start")
    assert start.opcode is HloOpcode.ASYNC_START
    wrapper = start.attribute("calls")
    assert isinstance(wrapper, HloComputation) and wrapper.parent is m
    assert wrapper.root.opcode is HloOpcode.ALL_TO_ALL
    assert set(wrapper.root.attributes) == {"replica_groups", "dimensions"}
    assert list(start.attributes) == ["calls", "frontend_attributes"]
    assert wrapper.root.shape == Shape.parse("f32[8]{0}")
    assert [p.shape for p in wrapper.parameters] == [start.operand(0).shape]
    done = m.entry.instruction("done")
    assert done.opcode is HloOpcode.ASYNC_DONE and done.called_computations() == [wrapper]
    rs_wrapper = m.entry.instruction("rs").attribute("calls")
    assert rs_wrapper.root.to_apply is m.computation("region")
    assert m.to_text() == ASYNC  # the wrappers are not printed


def test_explicit_async_ops_print_as_shorthand():
    text = """\
HloModule explicit

wrapped {
  p = f32[4]{0} parameter(0)
  ROOT n = f32[4]{0} negate(p)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(x), calls=wrapped
  u = ((f32[4]{0}), f32[4]{0}, s32[]) async-update(s), calls=wrapped
  ROOT d = f32[4]{0} async-done(u), calls=wrapped
}
"""
    m = stable(text)
    printed = m.to_text()
    assert "negate-start(x)" in printed and "negate-update(s)" in printed
    assert "negate-done(u)" in printed and "wrapped {" not in printed
    again = parse_module(printed)
    assert again.entry.root.opcode is HloOpcode.ASYNC_DONE
    assert again.entry.root.called_computations()[0].root.opcode is HloOpcode.NEGATE


def test_async_wrapper_that_cannot_be_shorthand_is_printed():
    text = """\
HloModule explicit

wrapped {
  p = f32[4]{0} parameter(0)
  n = f32[4]{0} negate(p)
  ROOT e = f32[4]{0} exponential(n)
}

ENTRY main {
  x = f32[4]{0} parameter(0)
  s = ((f32[4]{0}), f32[4]{0}, s32[]) async-start(x), calls=wrapped
  ROOT d = f32[4]{0} async-done(s), calls=wrapped
}

"""
    m = stable(text)
    assert m.to_text() == text
