"""Send/recv between devices by XLA's rules on the CPU backend.

The native code calls the evaluator's send/recv kernels as host transfers (listed in
``host_callbacks``, not ``fallback_ops``), so the rules are XLA:GPU's, as on the
interpreter (tests/evaluator/test_send_recv.py; XLA:CPU itself has no send/recv):
pairs name partitions when channel_id > 0 and replicas when it is 0, a device that is no
pair's target receives zeros at once, a device that is no pair's source sends nothing.
Every case is also checked against the interpreter.
"""

import time

import numpy as np
import pytest

import xlapy
from xlapy.client import CompileOptions
from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module


def p2p_program(pairs: str | None, channel_id: int, shape: str = "f32[2,3]") -> str:
    front = f", frontend_attributes={{_xla_send_recv_source_target_pairs={pairs}}}" if pairs else ""
    attrs = f"channel_id={channel_id}{front}"
    return f"""HloModule p2p
ENTRY e {{
  x = {shape} parameter(0)
  t = token[] after-all()
  s = ({shape}, u32[], token[]) send(x, t), {attrs}
  sd = token[] send-done(s), {attrs}
  r = ({shape}, u32[], token[]) recv(sd), {attrs}
  rd = ({shape}, token[]) recv-done(r), {attrs}
  ROOT v = {shape} get-tuple-element(rd), index=0
}}"""


def run_both(text, replicas=1, partitions=1, dtype=np.float32, timeout=20.0):
    n = replicas * partitions
    inputs = [(np.arange(6).reshape(2, 3) + 10 * d).astype(dtype) for d in range(n)]
    results = {}
    for platform in ("cpu", "interpreter"):
        options = CompileOptions(replicas, partitions, {"collective_timeout": timeout})
        executable = xlapy.local_client(platform).compile(parse_module(text), options)
        if platform == "cpu":
            assert executable.fallback_ops == []
            assert {"send", "recv"} <= set(executable.host_callbacks)
        start = time.monotonic()
        results[platform] = executable.execute_replicated([[x] for x in inputs])
        results[platform + "_seconds"] = time.monotonic() - start
    for got, want in zip(results["cpu"], results["interpreter"], strict=True):
        np.testing.assert_array_equal(got, want)
    return inputs, results["cpu"], results["cpu_seconds"]


def zeros(dtype=np.float32):
    return np.zeros((2, 3), dtype)


def check(out, want):
    for got, w in zip(out, want, strict=True):
        np.testing.assert_array_equal(got, w)


def test_recv_on_a_device_no_pair_targets_returns_zeros_at_once():
    inputs, out, seconds = run_both(p2p_program("{{0,1}}", 0), replicas=2)
    check(out, [zeros(), inputs[0]])
    assert seconds < 5.0


def test_chain_over_four_partitions():
    inputs, out, _ = run_both(p2p_program("{{0,1},{1,2},{2,3}}", 1), partitions=4)
    check(out, [zeros(), inputs[0], inputs[1], inputs[2]])


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64, np.bool_])
def test_ring_over_replicas_every_type(dtype):
    pairs = "{{0,1},{1,2},{2,0}}"
    name = {np.int32: "s32", np.float64: "f64", np.complex64: "c64", np.bool_: "pred"}[dtype]
    inputs, out, _ = run_both(p2p_program(pairs, 0, f"{name}[2,3]"), replicas=3, dtype=dtype)
    check(out, [inputs[2], inputs[0], inputs[1]])


def test_two_by_two_channel_id_picks_partitions_or_replicas():
    inputs, out, _ = run_both(p2p_program("{{1,0}}", 1), replicas=2, partitions=2)
    check(out, [inputs[1], zeros(), inputs[3], zeros()])
    inputs, out, _ = run_both(p2p_program("{{1,0}}", 0), replicas=2, partitions=2)
    check(out, [inputs[2], inputs[3], zeros(), zeros()])


def test_one_device_send_reaches_its_own_recv():
    inputs, out, _ = run_both(p2p_program(None, 3))
    check(out, inputs)
    # The single-device call path (not execute_replicated) too.
    executable = xlapy.local_client("cpu").compile(parse_module(p2p_program(None, 3)))
    np.testing.assert_array_equal(executable(inputs[0]), inputs[0])


def test_pairs_naming_a_missing_partition_fail_at_compile_time():
    # channel_id=1: the ids are partition ids, and a 2-replica program has one partition.
    with pytest.raises(InvalidArgumentError, match=r"send s: .*names target partition 1"):
        xlapy.local_client("cpu").compile(
            parse_module(p2p_program("{{0,1}}", 1)), CompileOptions(num_replicas=2)
        )


def test_validation_bounds_are_refused_as_unfinished():
    text = p2p_program("{{0,1}}", 0).replace(
        "{{0,1}}}", '{{0,1}},_xla_send_recv_validation="invalid"}'
    )
    with pytest.raises(UnimplementedError, match="not supported yet"):
        xlapy.local_client("cpu").compile(parse_module(text), CompileOptions(num_replicas=2))
