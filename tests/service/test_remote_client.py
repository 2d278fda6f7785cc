"""The seed's client API against a real ``xlapy serve`` process."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import xlapy
from xlapy import Shape, ops
from xlapy.errors import FailedPreconditionError, InvalidArgumentError, XlaError
from xlapy.literal_text import format_literal


def _axpy() -> xlapy.XlaComputation:
    b = xlapy.XlaBuilder("axpy")
    alpha = ops.Parameter(b, 0, Shape.parse("f32[]"), "alpha")
    x = ops.Parameter(b, 1, Shape.parse("f32[10]"), "x")
    y = ops.Parameter(b, 2, Shape.parse("f32[10]"), "y")
    ops.Add(ops.Mul(alpha, x), y)
    return b.build()


def test_seed_axpy_with_parameters(server):
    # The seed's first example, word for word but for the line that makes the client.
    client = xlapy.connect(server.address, token=server.token)
    computation = _axpy()
    alpha_data = client.transfer_to_server(np.float32(2.0))
    x_data = client.transfer_to_server(np.arange(10, dtype=np.float32))
    y_data = client.transfer_to_server(np.ones(10, dtype=np.float32))
    result = client.execute_and_transfer(computation, [alpha_data, x_data, y_data])
    assert format_literal(result) == "f32[10] {1, 3, 5, 7, 9, 11, 13, 15, 17, 19}"
    executable = client.compile(computation)
    args = (np.float32(0.5), np.arange(10, dtype=np.float32), np.zeros(10, np.float32))
    np.testing.assert_array_equal(executable(*args), 0.5 * np.arange(10, dtype=np.float32))
    client.close()


def test_seed_axpy_with_constants(client):
    b = xlapy.XlaBuilder("axpy_constants")
    alpha = ops.ConstantR0(b, 3.14, xlapy.F32)
    x = ops.ConstantR1(b, np.arange(10, dtype=np.float32))
    y = ops.ConstantR1(b, np.full(10, 5.0, dtype=np.float32))
    ops.Add(ops.Mul(alpha, x), y)
    result = client.execute_and_transfer(b.build())
    expected = np.float32(3.14) * np.arange(10, dtype=np.float32) + 5
    np.testing.assert_array_equal(result.to_numpy(), expected)


def test_the_demo_axpy_runs_unchanged_against_the_remote_client(client, monkeypatch, capsys):
    from xlapy import demo

    monkeypatch.setattr(xlapy, "local_client", lambda platform=None: client)
    demo.axpy()
    out = capsys.readouterr().out
    assert "run on the cpu client" in out
    assert "execute_and_transfer(alpha=2, x=0..9, y=1) -> f32[10] {1, 3, 5, 7, 9," in out
    assert "-> [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5]" in out
    assert "execute_and_transfer() -> f32[10] {5, 8.14, 11.28" in out


def test_handles_are_used_across_calls(client):
    b = xlapy.XlaBuilder("double")
    ops.Mul(ops.Parameter(b, 0, Shape.parse("f32[4]"), "x"), ops.ConstantR0(b, 2.0, xlapy.F32))
    double = client.compile(b.build())
    x = client.transfer_to_server(np.float32([1, 2, 3, 4]))
    once = double.execute([x])
    twice = double.execute([once])
    thrice = client.execute(double, [twice])
    assert client.get_shape(once) == Shape.parse("f32[4]{0}")
    assert thrice.shape == Shape.parse("f32[4]{0}")
    np.testing.assert_array_equal(client.transfer(twice).to_numpy(), [4, 8, 12, 16])
    np.testing.assert_array_equal(client.transfer(thrice).to_numpy(), [8, 16, 24, 32])
    # The same handles again, mixed with a value sent inline.
    np.testing.assert_array_equal(double(once), [4, 8, 12, 16])
    np.testing.assert_array_equal(client.transfer(x).to_numpy(), [1, 2, 3, 4])


def test_deleted_and_collected_handles_free_server_memory(client, poll):
    before = client.stats()["session"]["handles_live"]
    data = client.transfer_to_server(np.zeros(1000, np.float64))
    assert client.stats()["session"]["bytes_held"] >= 8000
    data.delete()
    assert data.is_deleted and "deleted" in repr(data)
    with pytest.raises(FailedPreconditionError):
        data.delete()
    with pytest.raises(InvalidArgumentError, match="deleted"):
        client.transfer(data)
    collected = [client.transfer_to_server(np.ones(100, np.int32)) for _ in range(5)]
    assert client.stats()["session"]["handles_live"] == before + 5
    del collected
    gc.collect()
    assert poll(lambda: client.stats()["session"]["handles_live"] == before)


def test_large_values_are_streamed_both_ways(client, server):
    # Four times the server's message bound: streamed in chunks each way.
    big = np.random.default_rng(0).standard_normal(4 * server_message_elements()).astype(np.float32)
    handle = client.transfer_to_server(big)
    np.testing.assert_array_equal(client.transfer(handle).to_numpy(), big)
    b = xlapy.XlaBuilder("negate")
    ops.Neg(ops.Parameter(b, 0, Shape.array(xlapy.F32, big.shape), "x"))
    negate = client.compile(b.build())
    np.testing.assert_array_equal(negate(big), -big)  # streamed in, too big to come back inline
    np.testing.assert_array_equal(client.transfer(negate.execute([handle])).to_numpy(), -big)


def server_message_elements() -> int:
    return (1 << 20) // 4


def test_tuples_layouts_and_narrow_types_round_trip(client):
    value = xlapy.Literal.from_value(
        (np.arange(6, dtype=np.int8).reshape(2, 3), (np.float32(1.5), np.array([True, False])))
    )
    back = client.transfer(client.transfer_to_server(value))
    assert back.equal(value)
    column_major = xlapy.Literal.from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3), (0, 1))
    back = client.transfer(client.transfer_to_server(column_major))
    assert back.shape == column_major.shape and back.equal(column_major)
    halves = np.array([1.5, -2.25], dtype=xlapy.BF16.dtype)
    np.testing.assert_array_equal(
        client.transfer(client.transfer_to_server(halves)).to_numpy(), halves
    )


def test_compile_from_hlo_and_stablehlo_text(client):
    hlo = """HloModule add_one
ENTRY main {
  p = s32[3] parameter(0)
  one = s32[] constant(1)
  b = s32[3] broadcast(one), dimensions={}
  ROOT r = s32[3] add(p, b)
}
"""
    np.testing.assert_array_equal(client.compile(hlo)(np.int32([1, 2, 3])), [2, 3, 4])
    mlir = """func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %x, %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
    np.testing.assert_array_equal(client.compile(mlir)(np.float32([3, 4])), [9, 16])


def test_bad_programs_and_arguments_are_clear_errors(client):
    with pytest.raises(XlaError, match="Compile"):
        client.compile("HloModule broken\nENTRY main { ROOT x = f32[] nonsense() }")
    exe = client.compile(_axpy())
    with pytest.raises(InvalidArgumentError, match="takes 3 arguments"):
        exe(np.float32(1))
    with pytest.raises(InvalidArgumentError, match="f32\\[10\\]"):
        exe(np.float32(1), np.zeros(3, np.float32), np.zeros(10, np.float32))
    with pytest.raises(InvalidArgumentError, match="cannot be set remotely"):
        client.compile(_axpy(), xlapy.CompileOptions(backend_options={"dump_dir": "/tmp"}))
    # The session still works after every refusal.
    np.testing.assert_array_equal(
        exe(np.float32(1), np.ones(10, np.float32), np.ones(10, np.float32)), 2
    )


def test_infeed_and_outfeed_over_the_wire(client):
    b = xlapy.XlaBuilder("feeds")
    x = ops.Infeed(b, Shape.parse("f32[3]"))
    doubled = ops.Mul(x, 2.0)
    ops.Outfeed(doubled, Shape.parse("f32[3]"), "")
    ops.Add(doubled, 1.0)
    exe = client.compile(b.build())
    exe.infeed[0].put(np.float32([1, 2, 3]))
    np.testing.assert_array_equal(exe(), [3, 5, 7])
    np.testing.assert_array_equal(exe.outfeed[0].get(timeout=5), [2, 4, 6])
    with pytest.raises(xlapy.DeadlineExceededError, match="outfeed"):
        exe.transfer_from_outfeed(0, timeout=0.2)


def test_devices_health_and_stats(client):
    assert client.device_count() == 1
    assert str(client.devices()[0]) == "cpu:0"
    health = client.health()
    assert health["status"] == "SERVING" and health["sessions"] >= 1
    stats = client.stats()
    assert stats["server"]["sessions_live"] >= 1
    assert stats["session"]["requests"] >= 1
    assert "RemoteClient cpu" in repr(client)
