"""xlapy.ops.control: While, Conditional (both forms), Call, CompositeCall, CustomCall.

Computations are given both as Python callables (traced by the builder) and as
XlaComputations built separately. Each result is checked for its inferred
shape, for HLO text that xlapy and XLA both parse back to the same
instructions, and (except for custom calls to targets XLA does not know) for
the values the real XLA computes.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pytest

from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.hlo import parse_module
from xlapy.literal import Literal
from xlapy.ops import control as cf
from xlapy.ops import elementwise as ew
from xlapy.ops import movement as mv
from xlapy.shape import Shape
from xlapy.testing import xla_oracle
from xlapy.testing.builders import expect_error, params, run
from xlapy.types import PrimitiveType
from xlapy.xla_data import (
    CustomCallApiVersion,
    CustomCallSchedule,
    FrontendAttributes,
    OutputOperandAliasing,
)

S = Shape.parse

# -- helpers ----------------------------------------------------------------------------------


def _instruction_lines(text: str) -> list[str]:
    """Instruction lines without the long form's % and /*index=N*/ decorations."""
    out = []
    for line in text.splitlines():
        if line.startswith("  "):
            line = re.sub(r"/\*index=\d+\*/", "", line.strip().replace("%", ""))
            out.append(line.removeprefix("ROOT "))
    return sorted(out)


def check_text(computation: XlaComputation) -> str:
    """xlapy parses the text back to the same text, and XLA prints the same instructions."""
    text = computation.to_hlo_text()
    assert parse_module(text).to_text() == text
    if xla_oracle.available():
        from jax._src.lib import xla_client

        reprinted = xla_client.hlo.hlo_module_from_text(text).to_string()
        assert _instruction_lines(reprinted) == _instruction_lines(text)
    return text


def computation(name: str, shapes: list[str], fn: Callable[..., XlaOp]) -> XlaComputation:
    """An XlaComputation built with its own builder, as C++ users write them."""
    b = XlaBuilder(name)
    return b.build(fn(*params(b, *shapes)))


# -- While ------------------------------------------------------------------------------------

STATE = "(s32[], f32[10])"
VECTOR = np.arange(10, dtype=np.float32) * 0.5 + 1


def _condition(state: XlaOp) -> XlaOp:
    return ew.Lt(mv.GetTupleElement(state, 0), 1000)


def _body(state: XlaOp) -> XlaOp:
    iteration = mv.GetTupleElement(state, 0) + 1
    new_vector = mv.GetTupleElement(state, 1) + mv.Constant(state.builder, VECTOR)
    return mv.Tuple(state.builder, [iteration, new_vector])


def _seed_loop(b: XlaBuilder, condition: object, body: object) -> XlaOp:
    init = mv.Tuple(b, [mv.ConstantR0(b, np.int32(0)), mv.Constant(b, np.zeros(10, np.float32))])
    return cf.While(condition, body, init)


@pytest.mark.parametrize("kind", ["callables", "computations"])
def test_while_seed_example_1000_iterations(kind: str) -> None:
    # The spec's example: {0, zero_vector[10]}; while (result(0) < 1000) add a constant vector.
    if kind == "callables":
        condition, body = _condition, _body
    else:
        condition = computation("condition", [STATE], _condition)
        body = computation("body", [STATE], _body)
    b = XlaBuilder("while_seed")
    loop = _seed_loop(b, condition, body)
    c = b.build(loop)
    assert c.program_shape.result.to_string(False) == STATE
    text = check_text(c)
    assert re.search(r"while\(tuple\.\d+\), condition=\S+, body=\S+$", text, re.M)
    count, vector = run(c)
    assert count == 1000
    np.testing.assert_allclose(vector, 1000 * VECTOR, rtol=1e-5)


def test_while_parameterized_triangular_number() -> None:
    # sum of 1..n with n a parameter: the loop state carries (i, n, total)
    b = XlaBuilder("triangle")
    (n,) = params(b, "s32[]")
    init = mv.Tuple(b, [mv.ConstantR0(b, np.int32(0)), n, mv.ConstantR0(b, np.int32(0))])

    def body(s: XlaOp) -> tuple[XlaOp, ...]:
        i = mv.GetTupleElement(s, 0) + 1
        return i, mv.GetTupleElement(s, 1), mv.GetTupleElement(s, 2) + i

    loop = cf.While(lambda s: ew.Lt(mv.GetTupleElement(s, 0), mv.GetTupleElement(s, 1)), body, init)  # fmt: skip
    c = b.build(mv.GetTupleElement(loop, 2))
    check_text(c)
    for value in (0, 1, 10, 37):
        assert run(c, np.int32(value))[0] == value * (value + 1) // 2


def test_while_errors() -> None:
    expect_error(
        "While", lambda b: cf.While(_condition, lambda s: mv.GetTupleElement(s, 0), _seed_init(b)),
        "the body result s32[] must have the shape of init", STATE.replace("f32[10]", "f32[10]{0}"),
    )  # fmt: skip
    expect_error(
        "While", lambda b: cf.While(lambda s: mv.GetTupleElement(s, 0), _body, _seed_init(b)),
        "the condition must return pred[]", "s32[]",
    )  # fmt: skip
    wrong = computation("body", ["(s32[], f32[11])"], lambda s: s)
    expect_error(
        "While", lambda b: cf.While(_condition, wrong, _seed_init(b)), "f32[11]",
        "must have the shape of init",
    )  # fmt: skip
    expect_error(
        "While", lambda b: cf.While(_condition, lambda s: mv.GetTupleElement(s, 7), _seed_init(b)),
        "while tracing the body", "index 7",
    )  # fmt: skip


def _seed_init(b: XlaBuilder) -> XlaOp:
    return mv.Tuple(b, [mv.ConstantR0(b, np.int32(0)), mv.Constant(b, np.zeros(10, np.float32))])


# -- Conditional ------------------------------------------------------------------------------


def _double(x: XlaOp) -> XlaOp:
    return x * 2


def _sum_pair(t: XlaOp) -> XlaOp:
    # takes (f32[3], s32[]): adds the converted scalar to the vector
    scalar = ew.ConvertElementType(mv.GetTupleElement(t, 1), PrimitiveType.F32)
    return ew.Add(mv.GetTupleElement(t, 0), scalar)


@pytest.mark.parametrize("kind", ["callables", "computations"])
def test_conditional_predicated(kind: str) -> None:
    if kind == "callables":
        on_true, on_false = _double, _sum_pair
    else:
        on_true = computation("on_true", ["f32[3]"], _double)
        on_false = computation("on_false", ["(f32[3], s32[])"], _sum_pair)
    b = XlaBuilder("if_else")
    pred, x, k = params(b, "pred[]", "f32[3]", "s32[]")
    result = cf.Conditional(pred, x, on_true, mv.Tuple(b, [x, k]), on_false)
    c = b.build(result)
    assert c.program_shape.result == S("f32[3]{0}")
    text = check_text(c)
    assert "true_computation=" in text and "false_computation=" in text
    v = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(run(c, np.bool_(True), v, np.int32(5))[0], v * 2)
    np.testing.assert_array_equal(run(c, np.bool_(False), v, np.int32(5))[0], v + 5)


def test_conditional_indexed_with_default_branch() -> None:
    # Branches of different parameter types, one XlaComputation used twice.
    negate = computation("negate", ["f32[3]"], lambda x: ew.Neg(x))
    b = XlaBuilder("switch")
    index, x, k = params(b, "s32[]", "f32[3]", "s32[]")
    result = cf.Conditional(
        index, [negate, _sum_pair, _double, negate], [x, mv.Tuple(b, [x, k]), x, x]
    )
    c = b.build(result)
    assert c.program_shape.result == S("f32[3]{0}")
    text = check_text(c)
    assert re.search(r"branch_computations=\{(\S+), \S+, \S+, \1\}", text)
    v = np.array([1.0, -2.0, 4.0], np.float32)
    expected = {0: -v, 1: v + 3, 2: v * 2, 3: -v, -1: -v, 9: -v}  # out of range: the last branch
    for i, want in expected.items():
        np.testing.assert_array_equal(run(c, np.int32(i), v, np.int32(3))[0], want)


def test_conditional_keywords_and_single_branch() -> None:
    b = XlaBuilder("kw")
    index, x = params(b, "s32[]", "f32[2]")
    only = cf.Conditional(index, branch_computations=[_double], branch_operands=[x])
    c = b.build(only)
    check_text(c)
    np.testing.assert_array_equal(run(c, np.int32(4), np.ones(2, np.float32))[0], [2.0, 2.0])


def test_conditional_errors() -> None:
    expect_error(
        "Conditional", lambda b: cf.Conditional(*params(b, "s32[]", "f32[3]"), _double, mv.Constant(b, np.zeros(3, np.float32)), _double),  # fmt: skip
        "pred[] scalar", "s32[]",
    )  # fmt: skip
    expect_error(
        "Conditional", lambda b: cf.Conditional(*params(b, "pred[]", "f32[3]"), _double, mv.ConstantR0(b, np.int32(1)), lambda k: k),  # fmt: skip
        "must return the same shape", "f32[3]", "s32[]",
    )  # fmt: skip
    expect_error(
        "Conditional", lambda b: cf.Conditional(*params(b, "s32[]"), [_double, _double], [mv.Constant(b, np.zeros(3, np.float32))]),  # fmt: skip
        "2 computations and 1 operands", "f32[3]",
    )  # fmt: skip
    negate = computation("negate", ["f32[3]"], lambda x: ew.Neg(x))
    expect_error(
        "Conditional", lambda b: cf.Conditional(*params(b, "s32[]"), [negate], [mv.Constant(b, np.zeros(4, np.float32))]),  # fmt: skip
        "branch operand 0 (f32[4]{0})", "f32[3]",
    )  # fmt: skip
    expect_error(
        "Conditional", lambda b: cf.Conditional(*params(b, "pred[]"), [_double], [mv.Constant(b, np.zeros(3, np.float32))]),  # fmt: skip
        "s32[] scalar", "pred[]",
    )  # fmt: skip


# -- Call -------------------------------------------------------------------------------------


def test_call_callable_computation_and_nesting() -> None:
    axpy = computation("axpy", ["f32[]", "f32[4]", "f32[4]"], lambda a, x, y: a * x + y)
    b = XlaBuilder("calls")
    a, x, y = params(b, "f32[]", "f32[4]", "f32[4]")
    first = cf.Call(b, axpy, [a, x, y])
    # a callable that itself calls the XlaComputation
    second = cf.Call(b, lambda u, v: cf.Call(u.builder, axpy, [mv.ConstantR0(u.builder, np.float32(2)), u, v]), [first, y])  # fmt: skip
    constant = cf.Call(b, _seven(), [])  # no operands
    c = b.build(mv.Tuple(b, [first, second, constant]))
    assert c.program_shape.result.to_string(False) == "(f32[4], f32[4], s32[])"
    text = check_text(c)
    assert text.count(" call(") >= 3
    xs, ys = np.arange(4, dtype=np.float32), np.ones(4, np.float32)
    out1, out2, out3 = run(c, np.float32(3), xs, ys)
    np.testing.assert_array_equal(out1, 3 * xs + ys)
    np.testing.assert_array_equal(out2, 2 * (3 * xs + ys) + ys)
    assert out3 == 7


def _seven() -> XlaComputation:
    b = XlaBuilder("seven")
    return b.build(mv.ConstantR0(b, np.int32(7)))


def test_call_errors() -> None:
    axpy = computation("axpy", ["f32[]", "f32[4]", "f32[4]"], lambda a, x, y: a * x + y)
    expect_error(
        "Call", lambda b: cf.Call(b, axpy, params(b, "f32[]", "f32[4]")),
        "takes 3 parameters but is given 2", "f32[4]",
    )  # fmt: skip
    expect_error(
        "Call", lambda b: cf.Call(b, axpy, params(b, "f32[]", "f32[4]", "f32[5]")),
        "argument 2 has shape f32[5]", "f32[4]",
    )  # fmt: skip
    expect_error(
        "Call", lambda b: cf.Call(b, lambda x: ew.Add(x, mv.Constant(x.builder, np.zeros(3, np.float32))), params(b, "f32[4]")),  # fmt: skip
        "while tracing the computation", "f32[4]", "f32[3]",
    )  # fmt: skip


# -- CompositeCall -----------------------------------------------------------------------------


def test_composite_call_spec_example() -> None:
    # f32[] call(f32[] %cst), to_apply=%computation, is_composite=true, frontend_attributes={
    #   composite.name="foo.bar", composite.attributes={n = 1 : i32, tensor = dense<1> : tensor<i32>},
    #   composite.version="1"}
    decomposition = computation("computation", ["f32[]"], lambda x: x + 1)
    b = XlaBuilder("composite")
    cst = mv.ConstantR0(b, np.float32(41))
    attributes = "{n = 1 : i32, tensor = dense<1> : tensor<i32>}"
    result = cf.CompositeCall(b, decomposition, [cst], "foo.bar", attributes, 1)
    c = b.build(result)
    assert c.program_shape.result == S("f32[]")
    text = check_text(c)
    expected = (
        "call(constant.{}), to_apply={}, is_composite=true, frontend_attributes={{"
        'composite.attributes={},composite.name="foo.bar",composite.version="1"}}'
    )
    call = c.hlo_module.entry.root
    assert expected.format(cst.instruction.name.split(".")[1], call.attribute("to_apply").name, attributes) in text  # fmt: skip
    assert run(c)[0] == 42


def test_composite_call_defaults_and_builder_attributes() -> None:
    b = XlaBuilder("composite_defaults")
    b.set_frontend_attributes(FrontendAttributes({"stage": "1"}))
    (x,) = params(b, "f32[2]")
    result = cf.CompositeCall(b, lambda v: v * v, [x], "my.square")
    c = b.build(result)
    attributes = dict(c.hlo_module.entry.root.attribute("frontend_attributes"))
    assert attributes == {
        "composite.attributes": "{}",
        "composite.name": "my.square",
        "composite.version": "0",
        "stage": "1",
    }
    check_text(c)
    np.testing.assert_array_equal(run(c, np.array([3.0, -2.0], np.float32))[0], [9.0, 4.0])


def test_composite_call_errors() -> None:
    square = computation("square", ["f32[2]"], lambda v: v * v)
    expect_error(
        "CompositeCall", lambda b: cf.CompositeCall(b, square, params(b, "f32[3]"), "my.square"),
        "argument 0 has shape f32[3]", "f32[2]",
    )  # fmt: skip
    expect_error(
        "CompositeCall", lambda b: cf.CompositeCall(b, square, params(b, "f32[2]", "f32[2]"), "sq"),
        "takes 1 parameters but is given 2", "f32[2]",
    )  # fmt: skip
    expect_error(
        "CompositeCall", lambda b: cf.CompositeCall(b, square, params(b, "f32[2]"), ""),
        "name must be a non-empty string",
    )  # fmt: skip
    expect_error(
        "CompositeCall", lambda b: cf.CompositeCall(b, square, params(b, "f32[2]"), "sq", version=-1),  # fmt: skip
        "version must be a non-negative integer",
    )  # fmt: skip


# -- CustomCall (XLA cannot run unknown targets: building and printing only) ------------------


def test_custom_call_spec_examples() -> None:
    # operation_semantics: CustomCall("myfunc", {x, y}, f32[3x3])
    b = XlaBuilder("myfunc_example")
    x = mv.Constant(b, np.array([1, 2], np.float32))
    y = mv.Constant(b, np.array([[10, 20, 30], [40, 50, 60]], np.float32))
    call = cf.CustomCall(b, "myfunc", [x, y], S("f32[3,3]"))
    c = b.build(call)
    assert c.program_shape.result == S("f32[3,3]{1,0}")
    assert "custom-call(constant." in check_text(c)
    assert 'custom_call_target="myfunc"' in c.to_hlo_text()
    # custom_call.md, CPU: A[i] = B[i % 128] + C[i] with an opaque and a status-returning API
    b = XlaBuilder("do_it")
    p0, p1 = params(b, "f32[128]", "f32[2048]")
    call = cf.CustomCall(b, "do_custom_call", [p0, p1], "f32[2048]", opaque="some bytes", api_version=CustomCallApiVersion.API_VERSION_STATUS_RETURNING)  # fmt: skip
    c = b.build(call)
    text = check_text(c)
    assert 'api_version=API_VERSION_STATUS_RETURNING, backend_config="some bytes"' in text
    # custom_call.md: tuples in and out
    b = XlaBuilder("tuples")
    (p0,) = params(b, "(f32[32], (f32[64], f32[128]), f32[256])")
    c = b.build(cf.CustomCall(b, "do_custom_call", [p0], "(f32[512], f32[1024])"))
    assert c.program_shape.result.to_string(False) == "(f32[512], f32[1024])"
    check_text(c)


def test_custom_call_all_options() -> None:
    b = XlaBuilder("options")
    x, y = params(b, "f32[2,3]", "s32[4]")
    call = cf.CustomCall(
        b, "target", [x, y], "(s32[4], f32[2,3])", opaque="{}", has_side_effect=True,
        output_operand_aliasing=[((0,), (1, ())), OutputOperandAliasing((1,), 0, ())],
        literal=Literal.from_value(np.array([1.5, 2.0], np.float32)),
        schedule=CustomCallSchedule.SCHEDULE_LATEST,
        api_version=CustomCallApiVersion.API_VERSION_TYPED_FFI,
    )  # fmt: skip
    c = b.build(call)
    text = check_text(c)
    expected = (
        'custom_call_target="target", custom_call_has_side_effect=true, '
        "literal=f32[2]{0} {1.5, 2}, output_to_operand_aliasing={{0}: (1, {}), {1}: (0, {})}, "
        "schedule=SCHEDULE_LATEST, api_version=API_VERSION_TYPED_FFI, backend_config={}"
    )
    assert expected in text
    # Fixed layouts (XLA's CustomCallWithLayout).
    b = XlaBuilder("layouts")
    x, k = params(b, "f32[2,3]", "s32[]")
    call = cf.CustomCall(
        b, "column_major", [x, k], S("f32[3,2]{0,1}"),
        operand_shapes_with_layout=[S("f32[2,3]{0,1}"), S("s32[]")],
    )  # fmt: skip
    c = b.build(call)
    assert c.program_shape.result == S("f32[3,2]{0,1}")
    assert "operand_layout_constraints={f32[2,3]{0,1}, s32[]}" in check_text(c)


def test_custom_call_errors() -> None:
    expect_error(
        "CustomCall", lambda b: cf.CustomCall(b, "t", params(b, "f32[2,3]"), S("f32[2]{0}"), operand_shapes_with_layout=[S("f32[3,2]{1,0}")]),  # fmt: skip
        "does not match operand 0", "f32[2,3]",
    )  # fmt: skip
    expect_error(
        "CustomCall", lambda b: cf.CustomCall(b, "t", params(b, "f32[2]", "s32[5]"), "(s32[4], f32[])", output_operand_aliasing=[((0,), (1, ()))]),  # fmt: skip
        "the shapes differ", "s32[5]",
    )  # fmt: skip
    expect_error(
        "CustomCall", lambda b: cf.CustomCall(b, "t", params(b, "f32[2]", "f32[3]"), S("f32[2]{0}"), operand_shapes_with_layout=[S("f32[2]{0}")]),  # fmt: skip
        "needs one per operand", "f32[3]",
    )  # fmt: skip
    expect_error(
        "CustomCall", lambda b: cf.CustomCall(b, "$internal", params(b, "f32[2]"), "f32[2]"),
        "reserved",
    )  # fmt: skip
    expect_error(
        "CustomCall", lambda b: cf.CustomCall(b, "t", params(b, "f32[2]"), S("f32[2]"), operand_shapes_with_layout=[S("f32[2]{0}")]),  # fmt: skip
        "needs a layout",
    )  # fmt: skip
