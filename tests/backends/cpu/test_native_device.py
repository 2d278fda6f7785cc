"""replica-id, partition-id and the dynamic-size ops, natively on the CPU backend."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.client import CompileOptions
from xlapy.hlo import parse_module
from xlapy.literal import Literal


@settings(max_examples=6, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3))
def test_every_device_reads_its_own_replica_and_partition(replicas, partitions):
    text = """HloModule r
ENTRY e {
  x = u32[] parameter(0)
  r = u32[] replica-id()
  p = u32[] partition-id()
  s = u32[] add(r, x)
  ROOT t = (u32[], u32[]) tuple(s, p)
}"""
    options = CompileOptions(num_replicas=replicas, num_partitions=partitions)
    executable = xlapy.local_client("cpu").compile(parse_module(text), options)
    assert executable.fallback_ops == []
    devices = replicas * partitions
    arguments = [[Literal.from_value(np.uint32(100))] for _ in range(devices)]
    results = executable._executable.execute_replicated(arguments)
    got = [tuple(int(e.to_numpy()) for e in r.tuple_elements) for r in results]
    assert got == [(100 + i // partitions, i % partitions) for i in range(devices)]


TEXT = """HloModule d
ENTRY e {
  x = f32[4,5] parameter(0)
  s = s32[] parameter(1)
  g = s32[] get-dimension-size(x), dimensions={1}
  y = f32[4,<=5] set-dimension-size(x, s), dimensions={1}
  ROOT t = (s32[], f32[4,<=5]) tuple(g, y)
}"""


@pytest.mark.parametrize("size", [-1, 0, 3, 5, 6, 2**31 - 1])
def test_dynamic_sizes_are_checked_and_results_trimmed(size):
    text = TEXT
    cpu = xlapy.local_client("cpu").compile(parse_module(text))
    reference = xlapy.local_client("interpreter").compile(parse_module(text))
    assert cpu.fallback_ops == []
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    s = np.int32(size)
    try:
        want = reference(x, s)
    except xlapy.errors.XlaError as e:
        with pytest.raises(type(e), match="exceeds the bound|size"):
            cpu(x, s)
        return
    got = cpu(x, s)
    assert int(got[0]) == int(want[0]) == 5
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[1], x[:, :size])  # the result at its dynamic size


def test_infeed_and_outfeed_are_host_transfers_not_fallbacks():
    text = """HloModule f
ENTRY e {
  t = token[] after-all()
  in = ((f32[3], s32[]), token[]) infeed(t)
  d = (f32[3], s32[]) get-tuple-element(in), index=0
  x = f32[3] get-tuple-element(d), index=0
  n = s32[] get-tuple-element(d), index=1
  y = f32[3] add(x, x)
  t2 = token[] get-tuple-element(in), index=1
  o = token[] outfeed(y, t2), outfeed_shape=f32[3]
  ROOT r = s32[] add(n, n)
}"""
    executable = xlapy.local_client("cpu").compile(parse_module(text))
    assert executable.fallback_ops == []
    assert executable.host_callbacks == ["infeed", "outfeed"]
    for k in range(3):
        executable.infeed[0].put((np.float32([1, 2, 3]) * k, np.int32(k)))
        assert int(executable()) == 2 * k
        np.testing.assert_array_equal(executable.outfeed[0].get(timeout=1), [2 * k, 4 * k, 6 * k])
    executable.infeed[0].put((np.float32([1, 2]), np.int32(0)))
    with pytest.raises(xlapy.errors.InvalidArgumentError, match="expected data of shape f32"):
        executable()


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 5), min_size=1, max_size=3), st.data())
def test_dynamic_reshape_matches_the_interpreter(bounds, data):
    # XLA's rule: the result's bounds hold as many elements as the operand.
    total = int(np.prod(bounds))
    operand_dims = data.draw(st.sampled_from([[total], list(reversed(bounds))]))
    sizes = [data.draw(st.integers(-1, b + 1)) for b in bounds]
    shape = f"f32[{','.join(map(str, operand_dims))}]"
    out = "f32[" + ",".join(f"<={b}" for b in bounds) + "]"
    params = "\n".join(f"  s{d} = s32[] parameter({d + 1})" for d in range(len(bounds)))
    names = ", ".join(f"s{d}" for d in range(len(bounds)))
    text = f"""HloModule d
ENTRY e {{
  x = {shape} parameter(0)
{params}
  ROOT y = {out} dynamic-reshape(x, {names})
}}"""
    x = np.arange(1, 1 + int(np.prod(operand_dims)), dtype=np.float32).reshape(operand_dims)
    args = [x, *(np.int32(s) for s in sizes)]
    cpu = xlapy.local_client("cpu").compile(parse_module(text))
    reference = xlapy.local_client("interpreter").compile(parse_module(text))
    assert cpu.fallback_ops == []
    try:
        want = reference(*args)
    except xlapy.errors.XlaError as e:
        with pytest.raises(type(e)):
            cpu(*args)
        return
    np.testing.assert_array_equal(cpu(*args), want)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=3), st.integers(0, 2**64 - 1))
def test_rng_state_advances_natively_and_is_shared_with_rng(deltas, seed):
    lines = [
        f"  s{k} = u64[2] rng-get-and-update-state(), delta={d}" for k, d in enumerate(deltas)
    ]
    names = ", ".join(f"s{k}" for k in range(len(deltas)))
    shapes = ", ".join("u64[2]" for _ in deltas)
    text = f"""HloModule r
ENTRY e {{
{chr(10).join(lines)}
  lo = f32[] constant(0)
  hi = f32[] constant(1)
  u = f32[5] rng(lo, hi), distribution=rng_uniform
  ROOT t = ({shapes}, f32[5]) tuple({names}, u)
}}"""
    options = xlapy.CompileOptions(backend_options={"rng_seed": seed})
    cpu = xlapy.local_client("cpu").compile(parse_module(text), options)
    reference = xlapy.local_client("interpreter").compile(parse_module(text), options)
    assert "rng-get-and-update-state" not in cpu.fallback_ops
    for _ in range(2):  # the counter persists across calls
        got, want = cpu(), reference()
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)
