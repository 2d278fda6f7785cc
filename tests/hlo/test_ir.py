"""The HLO IR: instructions, computations and modules, built and edited through the API."""

from __future__ import annotations

import pytest

from xlapy import F32, S32, Shape
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import (
    HloComputation,
    HloInstruction,
    HloModule,
    HloOpcode,
    RawAttribute,
    make_module,
    parse_module,
)
from xlapy.literal import Literal

V = Shape.array(F32, [4])
SCALAR = Shape.scalar(F32)


def binary(opcode: HloOpcode, a: HloInstruction, b: HloInstruction, name: str) -> HloInstruction:
    return HloInstruction(opcode, a.shape, [a, b], name=name)


def small_computation(name: str = "main") -> HloComputation:
    comp = HloComputation(name)
    x = comp.add_instruction(HloInstruction.create_parameter(0, V, "x"))
    y = comp.add_instruction(HloInstruction.create_parameter(1, V, "y"))
    s = comp.add_instruction(binary(HloOpcode.ADD, x, y, "s"))
    comp.root = comp.add_instruction(binary(HloOpcode.MULTIPLY, s, s, "m"))
    return comp


def test_operands_and_users_are_kept_in_step():
    comp = small_computation()
    x, y, s, m = comp.instructions
    assert s.operands == (x, y)
    assert x.users == (s,) and s.users == (m,)
    assert m.operands == (s, s) and s.user_count == 1  # a user is listed once
    assert comp.root is m and m.is_root


def test_replace_operand_by_index_and_by_instruction():
    comp = small_computation()
    x, y, s, m = comp.instructions
    s.replace_operand(1, x)
    assert s.operands == (x, x)
    assert y.users == () and x.users == (s,)
    m.replace_operand(s, x)
    assert m.operands == (x, x) and s.users == ()
    assert x.users == (s, m)
    with pytest.raises(InvalidArgumentError, match="no operand 5"):
        m.replace_operand(5, y)
    with pytest.raises(InvalidArgumentError, match="not an operand"):
        m.replace_operand(y, x)


def test_replace_all_uses_with_also_moves_the_root():
    comp = small_computation()
    x, y, s, m = comp.instructions
    n = comp.add_instruction(HloInstruction(HloOpcode.NEGATE, V, [s], name="n"))
    s.replace_all_uses_with(x)
    assert m.operands == (x, x) and n.operands == (x,)
    assert s.users == ()
    m.replace_all_uses_with(n)
    assert comp.root is n


def test_remove_instruction():
    comp = small_computation()
    x, y, s, m = comp.instructions
    with pytest.raises(InvalidArgumentError, match="still used by m"):
        comp.remove_instruction(s)
    with pytest.raises(InvalidArgumentError, match="root"):
        comp.remove_instruction(m)
    comp.root = s
    comp.remove_instruction(m)
    assert comp.instructions == (x, y, s)
    assert s.users == () and m.parent is None


def test_replace_instruction_keeps_control_edges():
    comp = small_computation()
    x, y, s, m = comp.instructions
    t = HloInstruction(HloOpcode.SUBTRACT, V, [x, y], name="t")
    s.add_control_predecessor(y)
    comp.replace_instruction(s, t)
    assert m.operands == (t, t) and s.parent is None
    assert t.control_predecessors == (y,) and y.control_successors == (t,)


def test_control_edges_in_both_directions():
    comp = small_computation()
    x, y, s, m = comp.instructions
    m.add_control_predecessor(x)
    m.add_control_predecessor(x)  # idempotent
    assert m.control_predecessors == (x,) and x.control_successors == (m,)
    m.remove_control_predecessor(x)
    assert m.control_predecessors == () and x.control_successors == ()
    with pytest.raises(InvalidArgumentError, match="edges"):
        m.set_attribute("control-predecessors", [x])


def test_parameters_are_ordered_by_number():
    comp = HloComputation("c")
    b = comp.add_instruction(HloInstruction.create_parameter(1, SCALAR, "b"))
    a = comp.add_instruction(HloInstruction.create_parameter(0, V, "a"))
    comp.root = comp.add_instruction(
        HloInstruction(HloOpcode.TUPLE, Shape.tuple([V, SCALAR]), [a, b])
    )
    assert comp.parameters == (a, b) and comp.parameter(1) is b
    shape = comp.program_shape
    assert shape.parameters == (V, SCALAR) and shape.parameter_names == ("a", "b")
    assert shape.result == Shape.tuple([V, SCALAR])
    with pytest.raises(InvalidArgumentError, match="no parameter 2"):
        comp.parameter(2)


def test_post_order_is_stable_and_fixes_bad_orders():
    comp = small_computation()
    assert comp.post_order() == list(comp.instructions)
    x, y, s, m = comp.instructions
    late = comp.add_instruction(HloInstruction(HloOpcode.NEGATE, V, [x], name="late"))
    m.replace_operand(0, late)
    order = [i.name for i in comp.post_order()]
    assert order.index("late") < order.index("m")
    m.add_control_predecessor(m)
    with pytest.raises(InvalidArgumentError, match="cycle"):
        comp.post_order()


def test_names_are_unique_in_a_module():
    m = make_module("m", [small_computation("a"), small_computation("b")])
    names = [i.name for i in m.instructions()]
    assert len(set(names)) == len(names) == 8
    assert m.computation("b").instructions[0].name == "x.1"
    assert m.unique_name("x") == "x.2" and m.unique_name("x") == "x.3"
    assert m.unique_name("fresh") == "fresh"
    added = m.entry.add_instruction(
        HloInstruction(HloOpcode.NEGATE, V, [m.entry.parameter(0)], name="s")
    )
    assert added.name not in ("s", "s.1")
    assert m.unique_computation_name("a") == "a.1"


def test_removed_names_can_be_reused():
    m = make_module("m", [small_computation()])
    entry = m.entry
    n = entry.add_instruction(HloInstruction(HloOpcode.NEGATE, V, [entry.parameter(0)], name="n"))
    entry.remove_instruction(n)
    assert m.unique_name("n") == "n"


def test_called_computations_are_attributes():
    add = HloComputation("add")
    a = add.add_instruction(HloInstruction.create_parameter(0, SCALAR, "a"))
    b = add.add_instruction(HloInstruction.create_parameter(1, SCALAR, "b"))
    add.root = add.add_instruction(binary(HloOpcode.ADD, a, b, "sum"))
    main = HloComputation("main")
    x = main.add_instruction(HloInstruction.create_parameter(0, V, "x"))
    zero = main.add_instruction(HloInstruction.create_constant(Literal.scalar(0.0, F32), "zero"))
    reduce = HloInstruction(HloOpcode.REDUCE, SCALAR, [x, zero], name="r")
    reduce.set_attribute("dimensions", (0,))
    reduce.set_attribute("to_apply", add)
    main.root = main.add_instruction(reduce)
    module = make_module("m", [add, main])
    assert reduce.called_computations() == [add]
    assert reduce.to_apply is add
    assert module.callers(add) == [reduce]
    assert main.called_computations() == [add]
    with pytest.raises(InvalidArgumentError, match="called by r"):
        module.remove_computation(add)
    other = HloComputation("other")
    p = other.add_instruction(HloInstruction.create_parameter(0, SCALAR, "p"))
    q = other.add_instruction(HloInstruction.create_parameter(1, SCALAR, "q"))
    other.root = other.add_instruction(binary(HloOpcode.MAXIMUM, p, q, "mx"))
    module.add_computation(other)
    assert [c.name for c in module.computations] == ["add", "other", "main"]  # before the entry
    reduce.replace_called_computation(add, other)
    assert reduce.to_apply is other
    module.remove_computation(add)
    text = module.to_text()
    assert "to_apply=other" in text
    assert parse_module(text).to_text() == text


def test_fusion_marks_its_computation():
    module = parse_module(
        """
fused {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused
}
"""
    )
    fused = module.computation("fused")
    assert fused.is_fusion_computation and fused.fusion_instruction is module.entry.root
    assert module.entry.root.fused_computation is fused


def test_set_attribute_goes_where_xla_prints_it():
    comp = small_computation()
    s = comp.instruction("s")
    s.set_attribute("metadata", RawAttribute('{op_name="add"}'))
    s.set_attribute("backend_config", RawAttribute('"cfg"'))
    s.set_attribute("sharding", RawAttribute("{replicated}"))
    s.set_attribute("frontend_attributes", RawAttribute('{a="b"}'))
    s.set_attribute("my_attribute", RawAttribute("7"))
    assert list(s.attributes) == [
        "my_attribute",
        "sharding",
        "frontend_attributes",
        "metadata",
        "backend_config",
    ]
    s.set_attribute("sharding", RawAttribute("{maximal device=0}"))  # keeps its place
    assert list(s.attributes)[1] == "sharding"
    assert s.remove_attribute("my_attribute") == RawAttribute("7")
    assert s.attribute("my_attribute", "absent") == "absent"


def test_clone_is_deep_and_equal():
    module = parse_module(
        """\
HloModule m, replica_count=2

body {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}

ENTRY main {
  x = f32[4] parameter(0)
  c = f32[4] call(x), to_apply=body
  ROOT e = f32[4] exponential(c), control-predecessors={x}
}
"""
    )
    copy = module.clone()
    assert copy.equals(module) and copy is not module
    assert copy.replica_count == 2
    copy_call = copy.entry.instruction("c")
    assert copy_call.to_apply is copy.computation("body")
    assert copy_call.to_apply is not module.computation("body")
    assert copy.entry.root.control_predecessors == (copy.entry.parameter(0),)
    copy.entry.root.replace_operand(0, copy.entry.parameter(0))
    assert not copy.equals(module)
    assert module.entry.root.operand(0).name == "c"
    assert module.clone("renamed").name == "renamed"


def test_entry_computation_layout_defaults_to_the_entry():
    module = make_module("m", [small_computation()])
    layout = module.entry_computation_layout
    assert layout.parameters == (V, V) and layout.result == V
    assert "entry_computation_layout" not in module.to_text()
    module.entry_computation_layout = layout
    assert "entry_computation_layout={(f32[4]{0}, f32[4]{0})->f32[4]{0}}" in module.to_text()


def test_module_accessors_and_errors():
    module = HloModule("empty")
    with pytest.raises(InvalidArgumentError, match="no entry"):
        module.entry  # noqa: B018
    comp = module.add_computation(small_computation(), entry=True)
    assert module.entry is comp and comp.is_entry
    with pytest.raises(InvalidArgumentError, match="no computation named"):
        module.computation("missing")
    with pytest.raises(InvalidArgumentError, match="entry"):
        module.remove_computation(comp)
    with pytest.raises(InvalidArgumentError, match="already belongs"):
        module.add_computation(comp)
    with pytest.raises(InvalidArgumentError, match="no instruction named"):
        comp.instruction("nope")
    module.replica_count = 3
    module.num_partitions = 2
    module.is_scheduled = True
    header = module.to_text().splitlines()[0]
    assert header == "HloModule empty, is_scheduled=true, replica_count=3, num_partitions=2"


def test_verify_runs_the_verifier():
    module = make_module("m", [small_computation()])
    module.verify()


def test_instruction_text_and_repr():
    comp = small_computation()
    s = comp.instruction("s")
    assert str(s) == "s = f32[4]{0} add(x, y)"
    assert s.to_text(verbose=True) == "%s = f32[4]{0} add(f32[4]{0} %x, f32[4]{0} %y)"
    assert "s = f32[4]{0} add(x, y)" in repr(s)
    assert "4 instructions" in repr(comp)
    with pytest.raises(InvalidArgumentError, match="get-tuple-element"):
        s.tuple_index  # noqa: B018


def test_constructor_checks_its_arguments():
    with pytest.raises(InvalidArgumentError, match="Shape"):
        HloInstruction(HloOpcode.ADD, "f32[4]")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="operand"):
        HloInstruction(HloOpcode.NEGATE, V, ["x"])  # type: ignore[list-item]
    assert HloInstruction("negate", V).opcode is HloOpcode.NEGATE  # type: ignore[arg-type]
    assert HloInstruction(HloOpcode.IOTA, Shape.array(S32, [3])).name == "iota"


def test_renaming_keeps_names_unique():
    m = make_module("m", [small_computation("a"), small_computation("b")])
    s = m.entry.instruction("s.1")
    s.name = "total"
    assert m.unique_name("total") == "total.1"
    assert m.unique_name("s.1") == "s.1"  # the old name is free again
    with pytest.raises(InvalidArgumentError, match="already called 'x'"):
        s.name = "x"
    with pytest.raises(InvalidArgumentError, match="already called 'a'"):
        m.entry.name = "a"
    m.entry.name = "main"
    assert "ENTRY main {" in m.to_text()
