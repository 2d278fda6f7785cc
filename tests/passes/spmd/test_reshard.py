"""Resharding between every pair of a set of shardings (tiled, 2-D, partially replicated,
permuted devices, replicated; even and uneven shapes) through ``custom-call @Sharding``:
the partitioned program returns the input unchanged."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

SHARDINGS = [
    "{replicated}",
    "{devices=[4,1]<=[4]}",
    "{devices=[1,4]<=[4]}",
    "{devices=[2,2]<=[4]}",
    "{devices=[2,2]<=[2,2]T(1,0)}",
    "{devices=[2,1,2]<=[4] last_tile_dim_replicate}",
    "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}",
    "{devices=[4,1]3,0,2,1}",
]


@pytest.mark.parametrize("dims", [(8, 8), (7, 5)])
def test_every_pair(spmd, dims):
    x = np.arange(np.prod(dims), dtype=np.int32).reshape(dims)
    shape = f"s32[{dims[0]},{dims[1]}]"
    for a, b in itertools.permutations(SHARDINGS, 2):
        text = f"""HloModule m
ENTRY e {{
  x = {shape} parameter(0), sharding={a}
  c = {shape} custom-call(x), custom_call_target="Sharding", sharding={b}
  ROOT n = {shape} negate(c), sharding={a}
}}"""
        spmd.check(text, [x], devices=(4,))


def _shardings(rank: int) -> list[str]:
    """Replicated, and every 4-device tiling (and 2-way tiling x 2 replicas) of a rank."""
    out = ["{replicated}"]
    for counts in itertools.product([1, 2, 4], repeat=rank):
        dims = ",".join(map(str, counts))
        if np.prod(counts) == 4:
            out.append(f"{{devices=[{dims}]<=[4]}}")
        if np.prod(counts) == 2:
            out.append(f"{{devices=[{dims},2]<=[4] last_tile_dim_replicate}}")
    return out


@pytest.mark.parametrize(
    "source,target", [((8, 6), (2, 4, 6)), ((2, 4, 6), (48,)), ((4, 6), (4, 2, 3))]
)
def test_reshape_between_every_pair_of_shardings(spmd, source, target):
    x = np.arange(np.prod(source), dtype=np.int32).reshape(source)
    src = ",".join(map(str, source))
    dst = ",".join(map(str, target))
    for a in _shardings(len(source)):
        for b in _shardings(len(target)):
            text = f"""HloModule m
ENTRY e {{
  x = s32[{src}] parameter(0), sharding={a}
  ROOT r = s32[{dst}] reshape(x), sharding={b}
}}"""
            spmd.check(text, [x], devices=(4,))
