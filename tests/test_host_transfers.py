"""Host transfers: ``RecvFromHost`` / ``SendToHost`` fed and fetched by channel.

A send or recv with ``is_host_transfer=true`` talks to the host program, as infeed and
outfeed do: ``Executable.send_to_device(channel, value, device=0)`` feeds the program's
recv from the host on that channel, ``Executable.recv_from_device(channel, device=0,
timeout=None)`` fetches what its send to the host sent. Both backends; a recv the host
never feeds fails with ``DeadlineExceededError`` naming the channel.
"""

import threading

import numpy as np
import pytest

import xlapy
from xlapy import ops as C
from xlapy.builder import XlaBuilder
from xlapy.client import CompileOptions
from xlapy.errors import DeadlineExceededError, InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.ops import movement as M
from xlapy.shape import Shape
from xlapy.stablehlo import parse_module as parse_stablehlo
from xlapy.xla_data_sharding import ChannelHandle, ChannelType

PLATFORMS = ["interpreter", "cpu"]

# Receives a and b from the host (channels 1, 2), sends a*b and a+b back (channels 3, 4).
HOST_PROGRAM = """HloModule host
ENTRY e {
  x = f32[3] parameter(0)
  t = token[] after-all()
  ra = (f32[3], u32[], token[]) recv(t), channel_id=1, is_host_transfer=true
  rad = (f32[3], token[]) recv-done(ra), channel_id=1, is_host_transfer=true
  a = f32[3] get-tuple-element(rad), index=0
  t1 = token[] get-tuple-element(rad), index=1
  rb = (f32[3], u32[], token[]) recv(t1), channel_id=2, is_host_transfer=true
  rbd = (f32[3], token[]) recv-done(rb), channel_id=2, is_host_transfer=true
  b = f32[3] get-tuple-element(rbd), index=0
  t2 = token[] get-tuple-element(rbd), index=1
  p = f32[3] multiply(a, b)
  sp = (f32[3], u32[], token[]) send(p, t2), channel_id=3, is_host_transfer=true
  spd = token[] send-done(sp), channel_id=3, is_host_transfer=true
  q = f32[3] add(a, b)
  sq = (f32[3], u32[], token[]) send(q, spd), channel_id=4, is_host_transfer=true
  sqd = token[] send-done(sq), channel_id=4, is_host_transfer=true
  ROOT y = f32[3] add(x, p)
}"""


def compile_text(platform, text=HOST_PROGRAM, replicas=1, timeout=20.0):
    options = CompileOptions(num_replicas=replicas, backend_options={"collective_timeout": timeout})
    return xlapy.local_client(platform).compile(parse_module(text), options)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_feed_recv_from_host_and_fetch_send_to_host(platform):
    executable = compile_text(platform)
    a, b, x = np.float32([1, 2, 3]), np.float32([4, 5, 6]), np.float32([0.5, 0.5, 0.5])
    executable.send_to_device(1, a)
    executable.send_to_device(2, b)
    np.testing.assert_array_equal(executable(x), x + a * b)
    np.testing.assert_array_equal(executable.recv_from_device(3), a * b)
    np.testing.assert_array_equal(executable.recv_from_device(4), a + b)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_values_queue_per_channel_and_feed_runs_in_order(platform):
    executable = compile_text(platform)
    runs = [(np.float32([k, k, k]), np.float32([1, 2, 3 + k])) for k in range(3)]
    for a, b in runs:  # Fed before any run: each run takes the next value of each channel.
        executable.send_to_device(1, a)
        executable.send_to_device(2, [float(v) for v in b])  # a list takes the recv's type
    for a, b in runs:
        np.testing.assert_array_equal(executable(np.zeros(3, np.float32)), a * b)
    for a, b in runs:
        np.testing.assert_array_equal(executable.recv_from_device(3), a * b)
        np.testing.assert_array_equal(executable.recv_from_device(4), a + b)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_host_feeds_from_another_thread_while_the_program_waits(platform):
    executable = compile_text(platform)
    a, b = np.float32([2, 2, 2]), np.float32([3, 4, 5])

    def host():
        executable.send_to_device(1, a)
        executable.send_to_device(2, b)

    feeder = threading.Timer(0.2, host)
    feeder.start()
    np.testing.assert_array_equal(executable(np.zeros(3, np.float32)), a * b)
    feeder.join()


@pytest.mark.parametrize("platform", PLATFORMS)
def test_replicated_program_has_host_channels_per_device(platform):
    executable = compile_text(platform, replicas=2)
    for device in range(2):
        executable.send_to_device(1, np.full(3, device + 1, np.float32), device=device)
        executable.send_to_device(2, np.float32([1, 2, 3]), device=device)
    out = executable.execute_replicated([[np.zeros(3, np.float32)]] * 2)
    np.testing.assert_array_equal(out[0], [1, 2, 3])
    np.testing.assert_array_equal(out[1], [2, 4, 6])
    np.testing.assert_array_equal(executable.recv_from_device(4, device=1), [3, 4, 5])
    np.testing.assert_array_equal(executable.recv_from_device(4, device=0), [2, 3, 4])


@pytest.mark.parametrize("platform", PLATFORMS)
def test_unfed_recv_from_host_times_out_naming_the_channel(platform):
    executable = compile_text(platform, timeout=0.2)
    executable.send_to_device(1, np.ones(3, np.float32))  # channel 2 is never fed
    with pytest.raises(DeadlineExceededError, match=r"recv rb: the host sent nothing on channel 2"):
        executable(np.zeros(3, np.float32))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_fetch_with_nothing_sent_times_out_naming_the_channel(platform):
    executable = compile_text(platform)
    with pytest.raises(DeadlineExceededError, match=r"channel 3 of|on channel 3 within 0.05 s"):
        executable.recv_from_device(3, timeout=0.05)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_host_side_mistakes_are_clear_errors(platform):
    executable = compile_text(platform)
    with pytest.raises(InvalidArgumentError, match=r"no recv from the host .* on channel 3; its host channels: recv from host \[1, 2\], send to host \[3, 4\]"):  # fmt: skip
        executable.send_to_device(3, np.ones(3, np.float32))
    with pytest.raises(InvalidArgumentError, match="no send to the host .* on channel 1"):
        executable.recv_from_device(1)
    with pytest.raises(InvalidArgumentError, match=r"receives f32\[3\] on this channel, got f32\[4\]"):  # fmt: skip
        executable.send_to_device(1, np.ones(4, np.float32))
    with pytest.raises(InvalidArgumentError, match=r"receives f32\[3\] on this channel, got f64\[3\]"):  # fmt: skip
        executable.send_to_device(1, np.ones(3, np.float64))
    with pytest.raises(InvalidArgumentError, match=r"device must be an int in 0..0"):
        executable.send_to_device(1, np.ones(3, np.float32), device=1)
    with pytest.raises(InvalidArgumentError, match="DEVICE_TO_HOST channel; send_to_device takes a HOST_TO_DEVICE"):  # fmt: skip
        executable.send_to_device(ChannelHandle(1, ChannelType.DEVICE_TO_HOST), np.ones(3))
    with pytest.raises(InvalidArgumentError, match="channel must be a channel id"):
        executable.recv_from_device("3")


@pytest.mark.parametrize("platform", PLATFORMS)
def test_builder_recv_from_host_and_send_to_host_with_channel_handles(platform):
    b = XlaBuilder("host_builder")
    token = M.CreateToken(b)
    to_device = ChannelHandle(5, ChannelType.HOST_TO_DEVICE)
    to_host = ChannelHandle(6, ChannelType.DEVICE_TO_HOST)
    received = C.RecvFromHost(token, Shape.parse("s32[2,2]"), to_device)
    value = M.GetTupleElement(received, 0)
    doubled = C.Add(value, value)
    C.SendToHost(doubled, M.GetTupleElement(received, 1), Shape.parse("s32[2,2]"), to_host)
    M.Tuple(b, [value])
    executable = xlapy.local_client(platform).compile(b.build())
    data = np.int32([[1, 2], [3, 4]])
    executable.send_to_device(to_device, data)
    (out,) = executable()
    np.testing.assert_array_equal(out, data)
    np.testing.assert_array_equal(executable.recv_from_device(to_host), 2 * data)


STABLEHLO_HOST = """
func.func public @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %t = stablehlo.create_token : !stablehlo.token
  %r:2 = "stablehlo.recv"(%t) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<3xf32>, !stablehlo.token)
  %y = stablehlo.add %x, %r#0 : tensor<3xf32>
  %s = "stablehlo.send"(%y, %r#1) {channel_handle = #stablehlo.channel_handle<handle = 2, type = 2>, is_host_transfer = true} : (tensor<3xf32>, !stablehlo.token) -> !stablehlo.token
  return %y : tensor<3xf32>
}
"""


@pytest.mark.parametrize("platform", PLATFORMS)
def test_stablehlo_host_send_and_recv(platform):
    executable = xlapy.local_client(platform).compile(parse_stablehlo(STABLEHLO_HOST))
    executable.send_to_device(1, np.float32([1, 2, 3]))
    np.testing.assert_array_equal(executable(np.float32([10, 10, 10])), [11, 12, 13])
    np.testing.assert_array_equal(executable.recv_from_device(2), [11, 12, 13])
