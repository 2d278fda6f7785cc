"""execute_replicated keeps each device's arena and large result buffers between calls,
and never writes into a result the caller still holds."""

from __future__ import annotations

import threading

import numpy as np

import xlapy
from xlapy.hlo import parse_module

N = 1 << 19  # 2 MiB of f32 per device: above the pool's threshold

ALL_REDUCE = f"""HloModule ar, num_partitions=4

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}}

ENTRY e {{
  p = f32[{N}] parameter(0)
  ROOT r = f32[{N}] all-reduce(p), channel_id=1, replica_groups={{}}, to_apply=add
}}
"""


def _run(executable, scale: float) -> list[np.ndarray]:
    inputs = [[np.full(N, scale * (d + 1), np.float32)] for d in range(4)]
    return executable.execute_replicated(inputs)


def test_results_held_by_the_caller_are_never_overwritten():
    executable = xlapy.local_client("cpu").compile(
        parse_module(ALL_REDUCE), xlapy.CompileOptions(num_partitions=4)
    )
    first = _run(executable, 1.0)
    second = _run(executable, 2.0)  # the first results are still held: fresh buffers
    assert all(np.all(r == 10.0) for r in first)
    assert all(np.all(r == 20.0) for r in second)
    del first
    third = _run(executable, 3.0)  # may reuse the first call's buffers now
    assert all(np.all(r == 30.0) for r in third) and all(np.all(r == 20.0) for r in second)


def test_concurrent_calls_use_memory_of_their_own():
    executable = xlapy.local_client("cpu").compile(
        parse_module(ALL_REDUCE), xlapy.CompileOptions(num_partitions=4)
    )
    results: dict[int, list[np.ndarray]] = {}

    def call(k: int) -> None:
        results[k] = _run(executable, float(k + 1))

    threads = [threading.Thread(target=call, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    for k in range(3):
        assert all(np.all(r == 10.0 * (k + 1)) for r in results[k]), k
