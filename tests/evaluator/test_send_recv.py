"""Send/recv between devices by XLA's rules, on the interpreter (the evaluator's kernels).

XLA:CPU has no send/recv (``HLO opcode `send` is not supported by XLA:CPU
ThunkEmitter``), so the reference is XLA:GPU's definition (``GetP2PConfigForSendRecv``
and ``RunRecv``): ``_xla_send_recv_source_target_pairs`` names partition ids when the
instruction's channel_id is > 0 and replica ids when it is 0; a device that is no pair's
target receives zeros at once; a device that is no pair's source sends nothing. The
expected values are those rules applied with numpy.
"""

import time

import numpy as np
import pytest

import xlapy
from xlapy.client import CompileOptions
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module

PLATFORM = "interpreter"


def p2p_program(pairs: str, channel_id: int, extra: str = "") -> str:
    """Each device sends x and receives on the same channel; returns what it received."""
    attrs = f"channel_id={channel_id}, frontend_attributes={{_xla_send_recv_source_target_pairs={pairs}{extra}}}"
    return f"""HloModule p2p
ENTRY e {{
  x = f32[2,3] parameter(0)
  t = token[] after-all()
  s = (f32[2,3], u32[], token[]) send(x, t), {attrs}
  sd = token[] send-done(s), {attrs}
  r = (f32[2,3], u32[], token[]) recv(sd), {attrs}
  rd = (f32[2,3], token[]) recv-done(r), {attrs}
  ROOT v = f32[2,3] get-tuple-element(rd), index=0
}}"""


def run_p2p(text: str, replicas: int = 1, partitions: int = 1, timeout: float = 20.0):
    client = xlapy.local_client(PLATFORM)
    options = CompileOptions(replicas, partitions, {"collective_timeout": timeout})
    executable = client.compile(parse_module(text), options)
    n = replicas * partitions
    inputs = [np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * d for d in range(n)]
    start = time.monotonic()
    out = executable.execute_replicated([[x] for x in inputs])
    return inputs, out, time.monotonic() - start


def expected(inputs, pairs, replicas, partitions, cross_partition):
    """XLA's rule: target gets its source's value, every other device zeros."""
    out = [np.zeros_like(x) for x in inputs]
    for r in range(replicas):
        for p in range(partitions):
            me = p if cross_partition else r
            for source, target in pairs:
                if target == me:
                    peer = r * partitions + source if cross_partition else source * partitions + p
                    out[r * partitions + p] = inputs[peer]
    return out


def check(out, want):
    assert len(out) == len(want)
    for got, w in zip(out, want, strict=True):
        np.testing.assert_array_equal(got, w)


def test_recv_on_a_device_no_pair_targets_returns_zeros_at_once():
    # The case: replica 0 is no pair's target; it must not wait for the timeout.
    inputs, out, elapsed = run_p2p(p2p_program("{{0,1}}", 0), replicas=2, timeout=20.0)
    check(out, [np.zeros((2, 3), np.float32), inputs[0]])
    assert elapsed < 5.0


def test_chain_over_partitions_as_jax_psend_precv_writes_it():
    # JAX's shard_map psend/precv: channel_id=1, pairs over the 4 partitions.
    pairs = [(0, 1), (1, 2), (2, 3)]
    inputs, out, _ = run_p2p(p2p_program("{{0,1},{1,2},{2,3}}", 1), partitions=4)
    check(out, expected(inputs, pairs, 1, 4, cross_partition=True))
    np.testing.assert_array_equal(out[3], inputs[2])  # device 3's own send went nowhere


def test_ring_over_replicas_with_channel_id_zero():
    pairs = [(0, 1), (1, 2), (2, 0)]
    inputs, out, _ = run_p2p(p2p_program("{{0,1},{1,2},{2,0}}", 0), replicas=3)
    check(out, expected(inputs, pairs, 3, 1, cross_partition=False))


@pytest.mark.parametrize(
    ("channel_id", "cross_partition"), [(1, True), (0, False)], ids=["partitions", "replicas"]
)
def test_two_by_two_pairs_name_partitions_or_replicas_by_channel_id(channel_id, cross_partition):
    inputs, out, _ = run_p2p(p2p_program("{{1,0}}", channel_id), replicas=2, partitions=2)
    check(out, expected(inputs, [(1, 0)], 2, 2, cross_partition))
    # Spelled out for 2 x 2 (devices replica-major): who gets what.
    if cross_partition:
        check(out, [inputs[1], np.zeros((2, 3)), inputs[3], np.zeros((2, 3))])
    else:
        check(out, [inputs[2], inputs[3], np.zeros((2, 3)), np.zeros((2, 3))])


def test_send_from_a_device_that_is_no_source_does_nothing():
    # Only device 1 sends (to 0); device 0's send is dropped, so device 1 gets zeros, and
    # a second run starts with empty mailboxes.
    client = xlapy.local_client(PLATFORM)
    executable = client.compile(parse_module(p2p_program("{{1,0}}", 0)), CompileOptions(2))
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 7, np.float32)
    for _ in range(2):
        out = executable.execute_replicated([[a], [b]])
        check(out, [b, np.zeros((2, 3))])


LOOP = """HloModule loop
cond {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT c = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[2]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[2] get-tuple-element(s), index=1
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  fi = f32[] convert(i1)
  v = f32[2] broadcast(fi), dimensions={}
  t = token[] after-all()
  snd = (f32[2], u32[], token[]) send(v, t), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  sd = token[] send-done(snd), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  r = (f32[2], u32[], token[]) recv(sd), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  rd = (f32[2], token[]) recv-done(r), channel_id=0, frontend_attributes={_xla_send_recv_source_target_pairs={{0,1}}}
  got = f32[2] get-tuple-element(rd), index=0
  ten = f32[] constant(10)
  tens = f32[2] broadcast(ten), dimensions={}
  scaled = f32[2] multiply(acc, tens)
  acc1 = f32[2] add(scaled, got)
  ROOT out = (s32[], f32[2]) tuple(i1, acc1)
}
ENTRY e {
  x = f32[2] parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[2]) tuple(zero, x)
  w = (s32[], f32[2]) while(init), condition=cond, body=body
  ROOT acc = f32[2] get-tuple-element(w), index=1
}"""


def test_sends_in_a_loop_arrive_in_order():
    client = xlapy.local_client(PLATFORM)
    executable = client.compile(parse_module(LOOP), CompileOptions(2))
    out = executable.execute_replicated([[np.zeros(2, np.float32)]] * 2)
    # Replica 1 receives 1, 2, 3 in turn (acc = ((0*10+1)*10+2)*10+3); replica 0 zeros.
    check(out, [np.zeros(2), np.full(2, 123.0)])


def test_one_device_without_pairs_receives_its_own_send():
    text = p2p_program("{{0,0}}", 5).replace(
        ", frontend_attributes={_xla_send_recv_source_target_pairs={{0,0}}}", ""
    )
    inputs, out, _ = run_p2p(text)
    check(out, inputs)


@pytest.mark.parametrize(
    ("pairs", "channel_id", "replicas", "partitions", "match"),
    [
        # channel_id > 0: ids are partitions, and a 2-replica program has only partition 0.
        ("{{0,1}}", 1, 2, 1, r"names target partition 1.*1 partition\(s\).*channel_id=1"),
        ("{{0,2}}", 0, 2, 1, r"names target replica 2.*valid replica ids are 0..1"),
        ("{{0,1},{1,1}}", 0, 2, 1, "names target replica 1 more than once"),
        ("{{0,1},{0,0}}", 0, 2, 1, "names source replica 0 more than once"),
        (
            "{{0,1,2}}",
            0,
            3,
            1,
            r"send s: _xla_send_recv_source_target_pairs='\{\{0,1,2\}\}' is not",
        ),
    ],
)
def test_pairs_naming_missing_devices_fail_at_compile_time(
    pairs, channel_id, replicas, partitions, match
):
    client = xlapy.local_client(PLATFORM)
    with pytest.raises(InvalidArgumentError, match=match):
        client.compile(
            parse_module(p2p_program(pairs, channel_id)), CompileOptions(replicas, partitions)
        )


def test_pipelined_validation_bounds_are_refused_as_unfinished():
    text = p2p_program("{{0,1}}", 0, ",_xla_send_recv_validation={{0,1}}")
    with pytest.raises(UnimplementedError, match="_xla_send_recv_validation.*not supported yet"):
        xlapy.local_client(PLATFORM).compile(parse_module(text), CompileOptions(2))
