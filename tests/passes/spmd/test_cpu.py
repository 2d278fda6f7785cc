"""The collectives the partitioner emits (all-to-all, reduce-scatter, collective-permute
halos, all-gather of uneven tiles) run on the CPU backend's devices too."""

from __future__ import annotations

import numpy as np


def test_transpose_all_to_all_and_uneven_gather_on_the_cpu(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,8] parameter(0), sharding={devices=[$N,1]<=[$N]}
  t = s32[8,8] transpose(x), dimensions={1,0}
  y = s32[7,5] parameter(1), sharding={devices=[$A,$B]<=[$N]}
  n = s32[7,5] negate(y), sharding={devices=[1,$N]<=[$N]}
  ROOT r = (s32[8,8], s32[7,5]) tuple(t, n), sharding={{devices=[$N,1]<=[$N]}, {replicated}}
}"""
    x = np.arange(64, dtype=np.int32).reshape(8, 8)
    y = np.arange(35, dtype=np.int32).reshape(7, 5)
    out = spmd.check(text, [x, y], devices=(4,), platform="cpu")
    assert spmd.collectives(out[4][0])["all-to-all"] == 1


def test_halo_slice_and_reduce_scatter_dot_on_the_cpu(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[16,12] parameter(0), sharding={devices=[$N,1]<=[$N]}
  s = s32[12,12] slice(x), slice={[1:13], [0:12]}, sharding={devices=[1,$N]<=[$N]}
  w = s32[12,8] parameter(1), sharding={devices=[$N,1]<=[$N]}
  ROOT d = s32[12,8] dot(s, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[$N,1]<=[$N]}
}"""
    rng = np.random.default_rng(5)
    x = rng.integers(-9, 9, (16, 12)).astype(np.int32)
    w = rng.integers(-9, 9, (12, 8)).astype(np.int32)
    out = spmd.check(text, [x, w], devices=(4,), platform="cpu")
    counts = spmd.collectives(out[4][0])
    assert counts["collective-permute"] >= 1 and counts["reduce-scatter"] == 1
