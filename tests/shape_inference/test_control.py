"""Shape rules of while, conditional, call, fusion, custom-call, async and copy-start/done."""

import pytest

import xlapy.shape_inference.control  # noqa: F401  (registers the rules)
from xlapy import Shape
from xlapy.errors import InvalidArgumentError
from xlapy.hlo.attributes import parse_attribute
from xlapy.opcode import HloOpcode as Op
from xlapy.shape import ProgramShape
from xlapy.shape_inference import infer_shape

S = Shape.parse


def prog(params, result):
    return ProgramShape([S(p) for p in params], S(result))


def ok(opcode, operands, attrs=None, comps=None, declared=None):
    return infer_shape(
        opcode,
        [S(o) for o in operands],
        attrs,
        comps,
        declared=S(declared) if declared else None,
    )


def same(opcode, operands, attrs, comps, expected, declared=None):
    result = ok(opcode, operands, attrs, comps, declared)
    assert result.compatible(S(expected)), f"{result} != {expected}"


def fails(opcode, operands, attrs=None, comps=None, message="", declared=None):
    with pytest.raises(InvalidArgumentError, match=opcode.value) as info:
        ok(opcode, operands, attrs, comps, declared)
    text = str(info.value)
    assert message in text, text
    for o in operands:
        assert str(S(o)) in text, text


# -- while ---------------------------------------------------------------------------------

LOOP = "(s32[], f32[10])"  # the spec's example: an iteration count and an accumulator


def test_while_spec_example():
    comps = {"condition": prog([LOOP], "pred[]"), "body": prog([LOOP], LOOP)}
    same(Op.WHILE, [LOOP], None, comps, LOOP)
    comps = {"condition": prog(["f32[<=4]"], "pred[]"), "body": prog(["f32[<=4]"], "f32[<=4]")}
    same(Op.WHILE, ["f32[<=4]"], None, comps, "f32[<=4]")
    # As XLA's ShapeUtil::Compatible, dynamic-ness and layouts do not have to agree.
    comps = {"condition": prog(["f32[4]{0}"], "pred[]"), "body": prog(["f32[4]"], "f32[4]")}
    same(Op.WHILE, ["f32[<=4]"], None, comps, "f32[<=4]")


def test_while_invalid():
    body = prog([LOOP], LOOP)
    fails(Op.WHILE, [LOOP], None, {"condition": prog(["s32[]", LOOP], "pred[]"), "body": body}, "condition must take 1 parameter")  # fmt: skip
    fails(Op.WHILE, [LOOP], None, {"condition": prog([LOOP], "pred[]"), "body": prog(["s32[]", LOOP], LOOP)}, "body must take 1 parameter")  # fmt: skip
    fails(Op.WHILE, [LOOP], None, {"condition": prog([LOOP], "s32[]"), "body": body}, "condition must return pred[]")  # fmt: skip
    fails(Op.WHILE, [LOOP], None, {"condition": prog([LOOP], "pred[]"), "body": prog([LOOP], "f32[10]")}, "the body result f32[10]")  # fmt: skip
    fails(Op.WHILE, ["(s32[], f32[9])"], None, {"condition": prog([LOOP], "pred[]"), "body": body}, "must have the shape of init")  # fmt: skip
    fails(Op.WHILE, [LOOP], None, {"body": body}, "needs a called computation condition=")


# -- conditional ------------------------------------------------------------------------


def test_conditional_predicate_form():
    comps = {"true_computation": prog(["f32[2]"], "f32[3]"), "false_computation": prog(["s32[]"], "f32[3]")}  # fmt: skip
    same(Op.CONDITIONAL, ["pred[]", "f32[2]", "s32[]"], None, comps, "f32[3]")


def test_conditional_branch_index_form():
    branches = [prog(["f32[2]"], "(f32[], s32[])"), prog(["()"], "(f32[], s32[])"), prog(["s32[4]"], "(f32[], s32[])")]  # fmt: skip
    comps = {"branch_computations": branches}
    same(Op.CONDITIONAL, ["s32[]", "f32[2]", "()", "s32[4]"], None, comps, "(f32[], s32[])")
    # A dimension dynamic in any branch is dynamic in the result.
    branches = [prog(["f32[]"], "s32[<=4]"), prog(["f32[]"], "s32[4]")]
    same(Op.CONDITIONAL, ["s32[]", "f32[]", "f32[]"], None, {"branch_computations": branches}, "s32[<=4]")  # fmt: skip
    # One branch is allowed (it is also the default).
    same(Op.CONDITIONAL, ["s32[]", "f32[]"], None, {"branch_computations": [prog(["f32[]"], "f32[]")]}, "f32[]")  # fmt: skip


def test_conditional_invalid():
    t, f = prog(["f32[2]"], "f32[3]"), prog(["s32[]"], "f32[3]")
    comps = {"true_computation": t, "false_computation": f}
    fails(Op.CONDITIONAL, ["s64[]", "f32[2]", "s32[]"], None, comps, "pred[] or s32[] scalar")
    fails(Op.CONDITIONAL, ["pred[2]", "f32[2]", "s32[]"], None, comps, "pred[] or s32[] scalar")
    fails(Op.CONDITIONAL, ["pred[]", "f32[2]", "f32[2]"], None, comps, "branch operand 1 (f32[2])")
    fails(Op.CONDITIONAL, ["pred[]", "f32[2]"], None, comps, "one operand per branch (2)")
    comps = {"true_computation": t, "false_computation": prog(["s32[]"], "f32[4]")}
    fails(Op.CONDITIONAL, ["pred[]", "f32[2]", "s32[]"], None, comps, "must return the same shape")  # fmt: skip
    comps = {"branch_computations": [t, f, prog(["f32[]", "f32[]"], "f32[3]")]}
    fails(Op.CONDITIONAL, ["s32[]", "f32[2]", "s32[]", "f32[]"], None, comps, "branch computation 2 must take 1 parameter")  # fmt: skip
    fails(Op.CONDITIONAL, ["pred[]", "f32[2]", "s32[]", "f32[]"], None, comps, "exactly 2 branches")  # fmt: skip


# -- call, composite call, fusion -------------------------------------------------------------


def test_call():
    same(Op.CALL, [], None, {"to_apply": prog([], "f32[]")}, "f32[]")
    args = ["f32[]", "s32[]", "pred[]", "f32[32]", "f32[32,48]"]
    same(Op.CALL, args, None, {"to_apply": prog(args, "s32[64,64]")}, "s32[64,64]")
    # Layouts do not matter.
    same(Op.CALL, ["f32[2,3]{0,1}"], None, {"to_apply": prog(["f32[2,3]{1,0}"], "f32[]")}, "f32[]")


def test_composite_call_is_a_call():
    # The spec's example: f32[] call(f32[] %cst), to_apply=%computation, is_composite=true.
    attrs = {"is_composite": True}
    same(Op.CALL, ["f32[]"], attrs, {"to_apply": prog(["f32[]"], "f32[]")}, "f32[]")


def test_call_invalid():
    fails(Op.CALL, ["f32[]"], None, {"to_apply": prog([], "f32[]")}, "takes 0 parameters but is given 1")  # fmt: skip
    fails(Op.CALL, ["f32[2]"], None, {"to_apply": prog(["f32[3]"], "f32[]")}, "argument 0 has shape f32[2]")  # fmt: skip
    fails(Op.CALL, ["s32[]", "f32[]"], None, {"to_apply": prog(["s32[]", "s32[]"], "f32[]")}, "argument 1")  # fmt: skip
    fails(Op.CALL, ["f32[]"], None, None, "needs a called computation to_apply=")


def test_fusion():
    comps = {"calls": prog(["f32[4]", "f32[4]"], "(f32[4], f32[])")}
    same(Op.FUSION, ["f32[4]", "f32[4]"], {"kind": "kLoop"}, comps, "(f32[4], f32[])")
    fails(Op.FUSION, ["f32[4]"], None, comps, "takes 2 parameters but is given 1")
    fails(Op.FUSION, ["f32[4]", "f32[5]"], None, comps, "argument 1 has shape f32[5]")
    fails(Op.FUSION, ["f32[4]"], None, None, "needs a called computation calls=")


# -- custom-call ---------------------------------------------------------------------------


def test_custom_call_spec_examples():
    # CustomCall("myfunc", {f32[2], f32[2,3]}, f32[3,3]) and the tuple-shaped example.
    same(Op.CUSTOM_CALL, ["f32[2]", "f32[2,3]"], {"custom_call_target": "myfunc"}, None, "f32[3,3]", "f32[3,3]")  # fmt: skip
    same(Op.CUSTOM_CALL, ["(f32[32], (f32[64], f32[128]), f32[256])"], {"custom_call_target": "do_custom_call"}, None, "(f32[512], f32[1024])", "(f32[512], f32[1024])")  # fmt: skip


def test_custom_call_layout_constraints_and_aliasing():
    constraints = parse_attribute(Op.CUSTOM_CALL, "operand_layout_constraints", "{f32[2,3]{0,1}, s32[]}")  # fmt: skip
    attrs = {"custom_call_target": "foo", "operand_layout_constraints": constraints}
    same(Op.CUSTOM_CALL, ["f32[2,3]", "s32[]"], attrs, None, "f32[6]", "f32[6]")
    fails(Op.CUSTOM_CALL, ["f32[2,3]"], attrs, None, "needs one per operand (1)", "f32[6]")
    fails(Op.CUSTOM_CALL, ["f32[3,2]", "s32[]"], attrs, None, "does not match operand 0", "f32[6]")
    aliasing = parse_attribute(Op.CUSTOM_CALL, "output_to_operand_aliasing", "{{0}: (1, {})}")
    attrs = {"custom_call_target": "foo", "output_to_operand_aliasing": aliasing}
    same(Op.CUSTOM_CALL, ["f32[2]", "s32[4]"], attrs, None, "(s32[4], f32[])", "(s32[4], f32[])")
    fails(Op.CUSTOM_CALL, ["f32[2]", "s32[5]"], attrs, None, "the shapes differ", "(s32[4], f32[])")
    fails(Op.CUSTOM_CALL, ["f32[2]"], attrs, None, "operand 1 does not exist", "(s32[4], f32[])")


def test_custom_call_needs_declared_shape():
    fails(Op.CUSTOM_CALL, ["f32[2]"], {"custom_call_target": "foo"}, None, "must be given")


# -- async-start / update / done --------------------------------------------------------------

ASYNC_OP = prog(["f32[64]"], "f32[32]")


def test_async_spec_examples():
    comps = {"calls": ASYNC_OP}
    start = "((f32[64]), f32[32], s32[])"
    same(Op.ASYNC_START, ["f32[64]"], None, comps, "((f32[64]), f32[32])")  # no context stated
    same(Op.ASYNC_START, ["f32[64]"], None, comps, start, start)
    same(Op.ASYNC_UPDATE, [start], None, comps, start)
    same(Op.ASYNC_DONE, [start], None, comps, "f32[32]")
    # Multiple operands and a tuple result.
    two = prog(["f32[64]", "f32[64]"], "(f32[32], f32[32])")
    start = "((f32[64], f32[64]), (f32[32], f32[32]), s32[])"
    same(Op.ASYNC_START, ["f32[64]", "f32[64]"], None, {"calls": two}, start, start)
    same(Op.ASYNC_DONE, [start], None, {"calls": two}, "(f32[32], f32[32])")


def test_async_late_binding():
    foo = {"calls": prog(["f32[]", "f32[]"], "f32[]")}
    start = "((f32[]), (), s32[])"
    same(Op.ASYNC_START, ["f32[]"], None, foo, start, start)
    update = "((f32[], f32[]), f32[], s32[])"
    same(Op.ASYNC_UPDATE, [start, "f32[]"], None, foo, update, update)
    same(Op.ASYNC_DONE, [update], None, foo, "f32[]")
    # An output bound only at async-done.
    late = {"calls": prog(["f32[1024]"], "(f32[1024])")}
    start = "((f32[1024]), (), s32[])"
    same(Op.ASYNC_START, ["f32[1024]"], None, late, start, start)
    same(Op.ASYNC_DONE, [start], None, late, "(f32[1024])", "(f32[1024])")
    update = "((f32[1024]), (f32[1024]), s32[])"
    same(Op.ASYNC_UPDATE, [start], None, late, update, update)


def test_async_invalid():
    comps = {"calls": ASYNC_OP}
    fails(Op.ASYNC_START, ["f32[63]"], None, comps, "bound operand 0 has shape f32[63]")
    fails(Op.ASYNC_START, ["f32[64]", "f32[64]"], None, comps, "binds 2 operands")
    fails(Op.ASYNC_START, ["f32[64]"], None, comps, "output slot f32[31]", "((f32[64]), f32[31], s32[])")  # fmt: skip
    fails(Op.ASYNC_START, ["f32[64]"], None, comps, "operand slot", "((f32[63]), f32[32], s32[])")  # fmt: skip
    fails(Op.ASYNC_DONE, ["f32[32]"], None, comps, "async-start/update tuple")
    fails(Op.ASYNC_DONE, ["((f32[64]), f32[31], s32[])"], None, comps, "output slot f32[31]")
    fails(Op.ASYNC_UPDATE, ["((f32[64]), f32[32], s32[])"], None, None, "already bound", "((f32[64]), f32[16], s32[])")  # fmt: skip
    fails(Op.ASYNC_UPDATE, ["((f32[64]), f32[32], s32[])"], None, comps, "must be the called computation's result", "((f32[64]), f32[16], s32[])")  # fmt: skip
    late = {"calls": prog(["f32[]", "f32[]"], "f32[]")}
    fails(Op.ASYNC_START, ["f32[]"], None, late, "late binding")
    fails(Op.ASYNC_UPDATE, [], None, comps, "needs the async-start or async-update")
    fails(Op.ASYNC_UPDATE, ["((f32[]), (), s32[])", "f32[2]"], None, late, "bound operand 1 has shape f32[2]")  # fmt: skip
    fails(Op.ASYNC_DONE, ["((f32[64]), f32[32])", "f32[1]"], None, comps, "takes 1 operand")
    fails(Op.ASYNC_DONE, ["(f32[64], f32[32])"], None, comps, "async-start/update tuple")


# -- copy-start / copy-done ------------------------------------------------------------------


def test_copy_start_done():
    same(Op.COPY_START, ["f32[4,2]"], None, None, "(f32[4,2], f32[4,2], u32[])")
    # A prefetch into another memory space keeps the declared layouts.
    declared = "(f32[4,2]{1,0:S(1)}, f32[4,2]{1,0}, u32[])"
    result = ok(Op.COPY_START, ["f32[4,2]"], None, None, declared)
    assert result == S(declared)
    same(Op.COPY_DONE, [declared], None, None, "f32[4,2]")
    assert ok(Op.COPY_DONE, [declared]).layout == S("f32[4,2]{1,0:S(1)}").layout


def test_copy_start_done_invalid():
    fails(Op.COPY_START, ["f32[4,2]"], None, None, "must both have the operand's shape", "(f32[4,3], f32[4,2], u32[])")  # fmt: skip
    fails(Op.COPY_START, ["f32[4,2]"], None, None, "context element", "(f32[4,2], f32[4,2], s32[])")  # fmt: skip
    fails(Op.COPY_START, ["f32[4,2]"], None, None, "(destination, source, u32[]) tuple", "f32[4,2]")  # fmt: skip
    fails(Op.COPY_DONE, ["f32[4,2]"], None, None, "copy-start (destination, source, u32[]) tuple")
    fails(Op.COPY_DONE, ["(f32[4,2], f32[4,2])"], None, None, "copy-start")
    fails(Op.COPY_DONE, [], None, None, "takes 1 operand")
