"""XlaBuilder: the seed's axpy, the error policy, operators, sub-builders, text round trips."""

import inspect

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module

S = xlapy.Shape.parse


def axpy_with_parameters():
    b = XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, S("f32[]"), "alpha")
    x = ops.Parameter(b, 1, S("f32[10]"), "x")
    y = ops.Parameter(b, 2, S("f32[10]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def round_trips(computation: XlaComputation) -> None:
    text = computation.to_hlo_text()
    again = parse_module(text)
    assert again.to_text() == text
    assert XlaComputation.from_hlo_text(text).to_hlo_text() == text


def test_seed_axpy_with_parameters():
    c = axpy_with_parameters()
    assert str(c.program_shape) == "(alpha: f32[], x: f32[10]{0}, y: f32[10]{0}) -> f32[10]{0}"
    opcodes = [i.opcode.value for i in c.hlo_module.entry.instructions]
    # The scalar is broadcast explicitly, as XLA's builder does.
    assert opcodes == ["parameter"] * 3 + ["broadcast", "multiply", "add"]
    round_trips(c)


def test_seed_axpy_with_constants():
    b = XlaBuilder("axpy_constants")
    alpha = ops.ConstantR0(b, 3.14, xlapy.F32)
    x = ops.ConstantR1(b, np.arange(10, dtype=np.float32))
    y = ops.ConstantR1(b, np.ones(10, dtype=np.float32))
    result = ops.Add(ops.Mul(alpha, x), y)
    c = b.build(result)
    assert c.program_shape.result.compatible(S("f32[10]"))
    assert c.program_shape.parameters == ()
    round_trips(c)


def test_operators_build_the_spec_ops():
    b = XlaBuilder("operators")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    v = ops.Parameter(b, 1, S("f32[3,4]"), "v")
    n = ops.Parameter(b, 2, S("s32[2]"), "n")
    exprs = {
        "add": x + 1,
        "subtract": 2.0 - x,
        "multiply": x * x,
        "divide": x / 2,
        "remainder": x % 3,
        "power": x**2,
        "negate": -x,
        "abs": abs(x),
        "not": ~n,
        "and": n & 1,
        "or": n | 1,
        "xor": n ^ 1,
        "shift-left": n << 1,
        "shift-right-arithmetic": n >> 1,
    }
    for opcode, op in exprs.items():
        assert isinstance(op, XlaOp)
        assert op.instruction.opcode.value == opcode
    assert (x < 0).shape.compatible(S("pred[2,3]"))
    assert (x >= x).instruction.attributes["direction"].name == "GE"
    assert (x @ v).shape.compatible(S("f32[2,4]"))
    with pytest.raises(InvalidArgumentError, match="no truth value"):
        bool(x < 0)
    b.build()


def test_implicit_broadcasting_through_the_builder():
    b = XlaBuilder("bcast")
    m = ops.Parameter(b, 0, S("f32[2,3]"), "m")
    v = ops.Parameter(b, 1, S("f32[3]"), "v")
    w = ops.Parameter(b, 2, S("f32[2]"), "w")
    assert ops.Add(m, v, broadcast_dimensions=[1]).shape.compatible(S("f32[2,3]"))
    assert ops.Add(m, w, broadcast_dimensions=[0]).shape.compatible(S("f32[2,3]"))
    degenerate = ops.Parameter(b, 3, S("f32[2,1]"), "d")
    out = ops.Mul(degenerate, ops.Parameter(b, 4, S("f32[1,3]"), "e"))
    assert out.shape.compatible(S("f32[2,3]"))
    round_trips(b.build())


def test_first_error_is_reported_at_build_with_the_callers_line():
    b = XlaBuilder("bad")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    y = ops.Parameter(b, 1, S("f32[4]"), "y")
    bad = ops.Add(x, y)
    bad_line = inspect.currentframe().f_lineno - 1  # the line of the bad call
    assert bad.instruction is None
    later = ops.Neg(bad)  # ops on failed ops fail quietly
    assert later.instruction is None
    with pytest.raises(InvalidArgumentError) as info:
        b.build()
    message = str(info.value)
    assert "Add" in message and "f32[2,3]" in message and "f32[4]" in message
    assert "give broadcast_dimensions" in message
    assert f"test_builder.py:{bad_line}]" in message


def test_die_immediately_raises_at_the_call():
    b = XlaBuilder("die")
    b.set_die_immediately_on_error(True)
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    with pytest.raises(
        InvalidArgumentError, match=r"Transpose.*not a permutation.*test_builder.py:"
    ):
        ops.Transpose(x, [1])


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda b, x: ops.Reshape(x, [7]), "cannot reshape 6 elements"),
        (lambda b, x: ops.Slice(x, [0], [1]), "give one per dimension"),
        (
            lambda b, x: ops.ConcatInDim(b, [x, ops.Parameter(b, 1, S("s32[2,3]"))], 0),
            "element type",
        ),
        (lambda b, x: ops.Collapse(x, [1, 0]), "consecutive"),
        (lambda b, x: ops.BroadcastInDim(x, [2, 3, 4], [0]), "one entry per operand"),
        (lambda b, x: ops.Floor(ops.ConvertElementType(x, xlapy.S32)), "floating-point"),
    ],
)
def test_invalid_calls_name_the_op_and_shapes(make, message):
    b = XlaBuilder("invalid")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    make(b, x)
    with pytest.raises(InvalidArgumentError) as info:
        b.build()
    assert message in str(info.value)
    assert "f32[2,3]" in str(info.value) or "s32[2,3]" in str(info.value)


def test_parameter_numbering_must_have_no_gaps():
    b = XlaBuilder("gaps")
    ops.Parameter(b, 0, S("f32[]"), "a")
    ops.Parameter(b, 2, S("f32[]"), "c")
    with pytest.raises(InvalidArgumentError, match=r"without gaps \(missing \[1\]\)"):
        b.build()


def test_duplicate_parameter_numbers():
    b = XlaBuilder("dup")
    ops.Parameter(b, 0, S("f32[]"), "a")
    ops.Parameter(b, 0, S("f32[]"), "b")
    with pytest.raises(InvalidArgumentError, match="already used"):
        b.build()


def test_ops_cannot_mix_builders():
    a, b = XlaBuilder("a"), XlaBuilder("b")
    x = ops.Parameter(a, 0, S("f32[]"), "x")
    y = ops.Parameter(b, 0, S("f32[]"), "y")
    ops.Add(x, y)
    with pytest.raises(InvalidArgumentError, match="belongs to builder"):
        a.build()


def test_get_shape_and_program_shape():
    b = XlaBuilder("shapes")
    x = ops.Parameter(b, 0, S("f32[2,3]"), "x")
    t = ops.Transpose(x, [1, 0])
    assert b.get_shape(t).compatible(S("f32[3,2]"))
    assert str(b.get_program_shape()) == "(x: f32[2,3]{1,0}) -> f32[3,2]{1,0}"


def test_build_once():
    b = XlaBuilder("once")
    x = ops.Parameter(b, 0, S("f32[]"), "x")
    b.build()
    with pytest.raises(InvalidArgumentError, match="already been built"):
        b.build()
    # An op added after build() has nobody to report to later: it raises at once.
    with pytest.raises(InvalidArgumentError, match="already built its computation"):
        ops.Neg(x)


def test_metadata_records_the_python_call_site():
    b = XlaBuilder("meta")
    x = ops.Parameter(b, 0, S("f32[2]"), "x")
    y = ops.Exp(x)
    metadata = y.instruction.attributes["metadata"]
    assert metadata.op_type == "Exp"
    assert metadata.source_file.endswith("test_builder.py")
    assert metadata.source_line > 0
    assert "source_file" in b.build().to_hlo_text(verbose=True)


def test_sub_builders_and_embedded_computations():
    b = XlaBuilder("outer")
    sub = b.create_sub_builder("add")
    p, q = ops.Parameter(sub, 0, S("f32[]")), ops.Parameter(sub, 1, S("f32[]"))
    add = sub.build(ops.Add(p, q))
    assert add.program_shape.result.compatible(S("f32[]"))
    x = ops.Parameter(b, 0, S("f32[4]"), "x")
    from xlapy.opcode import HloOpcode

    reducer = b.computation_arg(add, [], "Reduce", "reducer")
    assert b.computation_arg(add, [], "Reduce", "reducer") is reducer  # embedded once
    traced = b.computation_arg(lambda u, v: ops.Max(u, v), [S("f32[]"), S("f32[]")], "R", "r")
    assert traced.root.opcode is HloOpcode.MAXIMUM
    init = ops.ConstantR0(b, 0.0, xlapy.F32)
    b.add_instruction(
        HloOpcode.REDUCE, [x, init], attributes={"dimensions": (0,)},
        computations={"to_apply": reducer}, op_name="Reduce",
    )  # fmt: skip
    c = b.build()
    assert len(c.hlo_module.computations) == 3  # add, the traced max, and the entry
    round_trips(c)


def test_constants_of_every_array_type_build_and_print():
    b = XlaBuilder("constants")
    parts = []
    for t in xlapy.types.ARRAY_TYPES:
        value = np.zeros((2,), dtype=t.dtype)
        parts.append(ops.Constant(b, value))
    ops.Tuple(b, parts)
    c = b.build()
    round_trips(c)
    assert len(c.program_shape.result.tuple_shapes) == len(xlapy.types.ARRAY_TYPES)
