"""The client API of seed 004: handles, compile once and run many, argument checks."""

import numpy as np
import pytest

import xlapy
from xlapy import ops
from xlapy.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)

S = xlapy.Shape.parse


def axpy():
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, S("f32[]"), "alpha")
    x = ops.Parameter(b, 1, S("f32[10]"), "x")
    y = ops.Parameter(b, 2, S("f32[10]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def test_seed_axpy_parameters_through_handles():
    client = xlapy.ClientLibrary.local_client()
    assert client is xlapy.local_client()  # one client per platform
    alpha = client.transfer_to_server(np.float32(2.0))
    x = client.transfer_to_server(np.arange(10, dtype=np.float32))
    y = client.transfer_to_server(xlapy.Literal.from_numpy(np.ones(10, np.float32)))
    result = client.execute_and_transfer(axpy(), [alpha, x, y])
    assert isinstance(result, xlapy.Literal)
    np.testing.assert_array_equal(result.to_numpy(), 2 * np.arange(10) + 1)
    handle = client.execute(axpy(), [alpha, x, y])
    assert handle.shape.compatible(S("f32[10]"))
    np.testing.assert_array_equal(client.transfer(handle).to_numpy(), 2 * np.arange(10) + 1)


def test_seed_axpy_constants():
    b = xlapy.XlaBuilder("axpy_constants")
    alpha = ops.ConstantR0(b, 3.14, xlapy.F32)
    x = ops.ConstantR1(b, np.arange(10, dtype=np.float32))
    y = ops.ConstantR1(b, np.full(10, 5.0, np.float32))
    ops.Add(ops.Mul(alpha, x), y)
    result = xlapy.local_client().execute_and_transfer(b.build())
    expected = np.float32(3.14) * np.arange(10, dtype=np.float32) + np.float32(5)
    np.testing.assert_array_equal(result.to_numpy(), expected)


def test_compile_once_call_many_times():
    exe = xlapy.local_client().compile(axpy())
    for k in range(3):
        out = exe(np.float32(k), np.arange(10, dtype=np.float32), np.zeros(10, np.float32))
        np.testing.assert_array_equal(out, k * np.arange(10))
    assert exe.fallback_ops == []  # the CPU backend (the default) compiles axpy natively
    interpreted = xlapy.local_client("interpreter").compile(axpy())
    assert "add" in interpreted.fallback_ops  # the interpreter runs every op through kernels


def test_tuple_results_come_back_nested():
    b = xlapy.XlaBuilder("nested")
    x = ops.Parameter(b, 0, S("s32[2]"), "x")
    ops.Tuple(b, [x, ops.Tuple(b, [ops.Neg(x), ops.ConstantR0(b, True)])])
    out = xlapy.local_client().compile(b.build())(np.int32([1, 2]))
    assert isinstance(out, tuple) and isinstance(out[1], tuple)
    np.testing.assert_array_equal(out[1][0], [-1, -2])
    assert out[1][1] == np.True_


def test_arguments_are_checked_by_name_and_shape():
    exe = xlapy.local_client().compile(axpy())
    with pytest.raises(
        InvalidArgumentError, match=r"argument 1 \(x\).*expected f32\[10\].*got f32\[9\]"
    ):
        exe(np.float32(1), np.zeros(9, np.float32), np.zeros(10, np.float32))
    with pytest.raises(InvalidArgumentError, match=r"argument 2 \(y\).*got s32\[10\]"):
        exe(np.float32(1), np.zeros(10, np.float32), np.zeros(10, np.int32))
    with pytest.raises(InvalidArgumentError, match="takes 3 arguments.*got 2"):
        exe(np.float32(1), np.zeros(10, np.float32))
    with pytest.raises(InvalidArgumentError, match="cannot turn"):
        exe(np.float32(1), object(), np.zeros(10, np.float32))


def test_arguments_are_never_modified():
    x = np.arange(10, dtype=np.float32)
    x.setflags(write=False)
    y = np.ones(10, np.float32)
    before = y.copy()
    xlapy.local_client().compile(axpy())(np.float32(2), x, y)
    np.testing.assert_array_equal(y, before)


def test_non_default_layouts_in_and_out():
    text = """HloModule t
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{0,1} negate(x)
}"""
    module = xlapy.hlo.parse_module(text)
    exe = xlapy.local_client().compile(module)
    arg = xlapy.Literal.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))  # row-major
    result = exe.execute_literals([arg])
    assert str(result.shape) == "f32[2,3]{0,1}"
    np.testing.assert_array_equal(result.data, [0, -3, -1, -4, -2, -5])  # column-major


def test_global_data_lifecycle():
    client = xlapy.local_client()
    handle = client.transfer_to_server([1, 2, 3])
    assert handle.shape.compatible(S("s32[3]"))
    handle.delete()
    assert handle.is_deleted
    with pytest.raises(FailedPreconditionError, match="deleted"):
        client.transfer(handle)
    with pytest.raises(FailedPreconditionError, match="already deleted"):
        handle.delete()


def test_platforms():
    assert xlapy.local_client("interpreter").devices()[0].platform == "interpreter"
    assert xlapy.local_client("cpu").devices()[0].platform == "cpu"
    with pytest.raises(NotFoundError, match="unknown platform 'tpu'"):
        xlapy.local_client("tpu")
    with pytest.raises(InvalidArgumentError, match="num_replicas"):
        xlapy.CompileOptions(num_replicas=0)


def test_seed_while_loop_adds_a_constant_vector_1000_times():
    b = xlapy.XlaBuilder("while")
    init = ops.Tuple(
        b, [ops.ConstantR0(b, 0, xlapy.S32), ops.ConstantR1(b, np.zeros(4, np.float32))]
    )

    def condition(state):
        return ops.Lt(ops.GetTupleElement(state, 0), 1000)

    def body(state):
        i, v = ops.GetTupleElement(state, 0), ops.GetTupleElement(state, 1)
        step = ops.ConstantR1(state.builder, np.float32([1, 2, 3, 4]))
        return ops.Tuple(state.builder, [i + 1, v + step])

    ops.GetTupleElement(ops.While(condition, body, init), 1)
    out = xlapy.local_client().compile(b.build())()
    np.testing.assert_array_equal(out, 1000 * np.float32([1, 2, 3, 4]))


def test_infeed_and_outfeed_queues_per_device():
    b = xlapy.XlaBuilder("feeds")
    x = ops.Infeed(b, S("f32[3]"))
    doubled = ops.Mul(x, 2.0)
    ops.Outfeed(doubled, S("f32[3]"), "")
    ops.Add(doubled, 1.0)
    exe = xlapy.local_client().compile(b.build())
    exe.infeed[0].put(np.float32([1, 2, 3]))
    np.testing.assert_array_equal(exe(), [3, 5, 7])
    np.testing.assert_array_equal(exe.outfeed[0].get(timeout=1), [2, 4, 6])


def test_compile_names_what_it_takes_when_given_something_else():
    client = xlapy.local_client("interpreter")
    with pytest.raises(
        InvalidArgumentError, match=r"compile: expected an XlaComputation or an HloModule, got list"
    ):
        client.compile([1, 2])
