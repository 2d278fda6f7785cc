"""passes.rewrite: the one driver replaces what a pass rewrites, carries control edges
over, leaves what ``keep`` keeps (and, when asked, instructions with control edges and
fusion computations), and splice_computation inlines a built computation."""

from __future__ import annotations

import numpy as np

from xlapy import ops
from xlapy.backends.interpreter import run
from xlapy.builder import XlaBuilder
from xlapy.hlo import parse_module
from xlapy.hlo.instruction import HloInstruction
from xlapy.opcode import HloOpcode
from xlapy.passes.creation import make_binary
from xlapy.passes.rewrite import ExpanderPass, rewrite_instructions, splice_computation
from xlapy.shape import Shape
from xlapy.types import PrimitiveType

Op = HloOpcode

TEXT = """HloModule m
ENTRY e {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  a = f32[4] negate(x)
  b = f32[4] negate(y), control-predecessors={a}
  c = f32[4] add(a, b), control-predecessors={b}
  ROOT d = f32[4] multiply(c, b)
}"""


def negated(instruction: HloInstruction) -> HloInstruction:
    """-v written as (v - v) - v."""
    v = instruction.operand(0)
    return make_binary(Op.SUBTRACT, make_binary(Op.SUBTRACT, v, v), v)


class NegateExpander(ExpanderPass):
    name = "negate-expander"
    opcodes = frozenset({Op.NEGATE})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return negated(instruction)


def values(module, *args):
    return run(module, *args)


def test_the_driver_replaces_and_keeps_the_values():
    x, y = np.arange(4, dtype=np.float32), np.ones(4, np.float32) * 3
    module = parse_module(TEXT)
    want = values(parse_module(TEXT), x, y)
    assert NegateExpander().run(module)
    assert not any(i.opcode is Op.NEGATE for i in module.entry.instructions)
    np.testing.assert_array_equal(values(module, x, y), want)


def test_control_edges_move_to_the_replacement():
    module = parse_module(TEXT)
    NegateExpander().run(module)
    by_name = {i.name: i for i in module.entry.instructions}
    c = by_name["c"]
    (pred,) = c.control_predecessors
    assert pred.opcode is Op.SUBTRACT  # what replaced b
    assert pred.control_predecessors and pred.control_predecessors[0].opcode is Op.SUBTRACT


def test_keep_and_skip_control_edges_leave_instructions():
    module = parse_module(TEXT)
    assert not NegateExpander(keep=lambda i: True).run(module)
    kept = NegateExpander(keep=lambda i: i.name == "a")
    assert kept.run(module)
    assert [i.name for i in module.entry.instructions if i.opcode is Op.NEGATE] == ["a"]

    module = parse_module(TEXT)
    edged = NegateExpander()
    edged.skip_control_edges = True
    assert not edged.run(module)  # a and b both have control edges


def test_none_leaves_the_instruction():
    module = parse_module(TEXT)
    assert not rewrite_instructions(
        module.entry, frozenset({Op.NEGATE}), lambda i: False, lambda i: None
    )
    assert sum(i.opcode is Op.NEGATE for i in module.entry.instructions) == 2


def test_skip_fusions():
    text = """HloModule f
fused {
  p = f32[4] parameter(0)
  ROOT n = f32[4] negate(p)
}
ENTRY e {
  x = f32[4] parameter(0)
  ROOT f = f32[4] fusion(x), kind=kLoop, calls=fused
}"""
    module = parse_module(text)
    skipping = NegateExpander()
    skipping.skip_fusions = True
    assert not skipping.run(module)
    assert NegateExpander().run(module)


def test_splice_computation_inlines_a_built_computation():
    module = parse_module(TEXT)
    a = next(i for i in module.entry.instructions if i.name == "a")
    b = XlaBuilder("built")
    p = ops.Parameter(b, 0, Shape.array(PrimitiveType.F32, [4]), "p")
    value = splice_computation(a, b.build(ops.Mul(p, ops.ConstantR0(b, -1.0))))
    assert value.parent is module.entry and value.opcode is Op.MULTIPLY
    assert value.operand(0) is a.operand(0)
