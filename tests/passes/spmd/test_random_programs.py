"""Random shardings on fixed op chains (dot, broadcast, transpose, reduce, reshape, slice;
batched dot, concatenate, pad, reverse, dynamic-slice, reduce over two dims), on 4 and
8 devices, even and uneven shapes: the partitioned program gives the global result."""

from __future__ import annotations

import random

import numpy as np
import pytest

ADD = "add { a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT c = s32[] add(a, b) }"
MAX = "max { a = s32[] parameter(0)\n b = s32[] parameter(1)\n ROOT c = s32[] maximum(a, b) }"
RANK2 = [
    "{replicated}",
    "{devices=[4,1]<=[4]}",
    "{devices=[1,4]<=[4]}",
    "{devices=[2,2]<=[4]}",
    "{devices=[2,2]<=[2,2]T(1,0)}",
    "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
    "{devices=[1,2,2]<=[4] last_tile_dim_replicate}",
    "{devices=[2,2]1,3,0,2}",
    "{maximal device=2}",
]
RANK1 = ["{replicated}", "{devices=[4]<=[4]}", "{devices=[2,2]<=[4] last_tile_dim_replicate}"]
RANK3 = [
    "{replicated}",
    "{devices=[8,1,1]<=[8]}",
    "{devices=[1,2,4]<=[8]}",
    "{devices=[2,2,2]<=[2,2,2]T(2,0,1)}",
    "{devices=[2,1,2,2]<=[8] last_tile_dim_replicate}",
    "{devices=[1,4,1,2]<=[8] last_tile_dim_replicate}",
    "{devices=[4,1,2]7,6,5,4,3,2,1,0}",
]


def _maybe(r: random.Random, choices) -> str:
    return f", sharding={r.choice(choices)}" if r.random() < 0.4 else ""


def _ints(rng, *dims):
    return rng.integers(-5, 5, dims).astype(np.int32)


@pytest.mark.parametrize("seed", range(12))
def test_matmul_chain_on_four_devices(spmd, seed):
    r = random.Random(seed)
    a, b, c = r.choice([(8, 4, 12), (6, 5, 7), (4, 12, 6)])
    s2 = RANK2
    body = f"""  x = s32[{a},{b}] parameter(0), sharding={r.choice(s2)}
  w = s32[{b},{c}] parameter(1), sharding={r.choice(s2)}
  v = s32[{a}] parameter(2), sharding={r.choice(RANK1)}
  d = s32[{a},{c}] dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}{_maybe(r, s2)}
  bc = s32[{a},{c}] broadcast(v), dimensions={{0}}{_maybe(r, s2)}
  s = s32[{a},{c}] add(d, bc){_maybe(r, s2)}
  t = s32[{c},{a}] transpose(s), dimensions={{1,0}}{_maybe(r, s2)}
  z = s32[] constant(0)
  rd = s32[{c}] reduce(t, z), dimensions={{1}}, to_apply=add{_maybe(r, RANK1)}
  q = s32[{a * c}] reshape(t){_maybe(r, RANK1)}
  sl = s32[{c - 1},{a}] slice(t), slice={{[1:{c}], [0:{a}]}}{_maybe(r, s2)}
  ROOT o = (s32[{c}], s32[{a * c}], s32[{c - 1},{a}]) tuple(rd, q, sl)"""
    rng = np.random.default_rng(seed)
    args = [_ints(rng, a, b), _ints(rng, b, c), _ints(rng, a)]
    spmd.check(f"HloModule m\n{ADD}\nENTRY e {{\n{body}\n}}", args, devices=(4,))


@pytest.mark.parametrize("seed", range(8))
def test_batched_chain_on_eight_devices(spmd, seed):
    r = random.Random(seed)
    a, b, c = r.choice([(8, 4, 6), (5, 6, 7), (3, 9, 4)])
    s3 = RANK3
    body = f"""  x = s32[{a},{b},{c}] parameter(0), sharding={r.choice(s3)}
  y = s32[{a},{b},{c}] parameter(1), sharding={r.choice(s3)}
  k = s32[{a},{c},{b}] parameter(2), sharding={r.choice(s3)}
  m = s32[{a},{b},{c}] maximum(x, y){_maybe(r, s3)}
  d = s32[{a},{b},{b}] dot(m, k), lhs_batch_dims={{0}}, rhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_contracting_dims={{1}}{_maybe(r, s3)}
  c = s32[{a},{b},{2 * b}] concatenate(d, d), dimensions={{2}}{_maybe(r, s3)}
  z = s32[] constant(-7)
  p = s32[{a + 1},{b},{2 * b}] pad(c, z), padding=1_0x0_0x0_0{_maybe(r, s3)}
  rv = s32[{a + 1},{b},{2 * b}] reverse(p), dimensions={{0,2}}{_maybe(r, s3)}
  i = s32[] constant(1)
  ds = s32[{a},{b},{b}] dynamic-slice(rv, i, z, i), dynamic_slice_sizes={{{a},{b},{b}}}{_maybe(r, s3)}
  mx = s32[{b}] reduce(ds, z), dimensions={{0,2}}, to_apply=max
  ROOT o = (s32[{a},{b},{b}], s32[{b}]) tuple(ds, mx)"""
    rng = np.random.default_rng(seed)
    args = [_ints(rng, a, b, c), _ints(rng, a, b, c), _ints(rng, a, c, b)]
    spmd.check(f"HloModule m\n{MAX}\nENTRY e {{\n{body}\n}}", args, devices=(8,))
