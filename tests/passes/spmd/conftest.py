"""The harness of the SPMD tests: partition HLO text for N devices, run the pieces on N
interpreter (or CPU) devices, assemble, and compare with the unpartitioned program."""

from __future__ import annotations

import numpy as np
import pytest

import xlapy
from xlapy.client import CompileOptions
from xlapy.hlo import parse_module
from xlapy.hlo.module import HloModule
from xlapy.opcode import HloOpcode
from xlapy.passes.spmd import assemble_shards, entry_shardings, partition, shard_array
from xlapy.xla_data_sharding import OpShardingType

_CLIENTS: dict[str, object] = {}


def client(platform: str):
    if platform not in _CLIENTS:
        _CLIENTS[platform] = xlapy.local_client(platform)
    return _CLIENTS[platform]


def run_partitioned(module: HloModule, args, n: int, platform: str = "interpreter"):
    """(global result, per-device module, report) of ``module`` split over ``n`` devices."""
    local, report = partition(module, n)
    exe = client(platform).compile(local, CompileOptions(num_partitions=n))
    params, out = entry_shardings(local)
    pieces = [shard_array(a, s, n) for a, s in zip(args, params, strict=True)]
    results = exe.execute_replicated([[p[d] for p in pieces] for d in range(n)])
    shape = module.entry.root.shape
    if shape.is_tuple:
        leaves = (
            out.tuple_shardings
            if out.type is OpShardingType.TUPLE
            else [out] * len(shape.tuple_shapes)
        )
        value = tuple(
            assemble_shards([r[i] for r in results], s, leaf.dimensions)
            for i, (s, leaf) in enumerate(zip(leaves, shape.tuple_shapes, strict=True))
        )
    else:
        value = assemble_shards(results, out, shape.dimensions)
    return value, local, report


def run_global(module: HloModule, args):
    return client("interpreter").compile(module)(*args)


def collectives(module: HloModule) -> dict[str, int]:
    """Opcode -> count of the collectives in the entry computation."""
    counts: dict[str, int] = {}
    for instruction in module.entry.instructions:
        if instruction.opcode.is_collective:
            counts[instruction.opcode.value] = counts.get(instruction.opcode.value, 0) + 1
    return counts


def _compare(actual, expected, exact: bool) -> None:
    if isinstance(expected, tuple):
        for a, e in zip(actual, expected, strict=True):
            _compare(a, e, exact)
        return
    if exact:
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


MESH = {1: (1, 1), 2: (2, 1), 4: (2, 2), 8: (4, 2)}


def for_devices(text: str, n: int) -> str:
    """``text`` with $N (the device count) and $A x $B (a 2-D mesh of them) filled in."""
    a, b = MESH[n]
    return text.replace("$N", str(n)).replace("$A", str(a)).replace("$B", str(b))


def check(text: str, args, devices=(1, 2, 4), *, exact: bool = True, platform: str = "interpreter"):
    """Partitioned == unpartitioned for each device count; returns {n: (module, report)}.

    ``text`` may use $N, $A and $B (see :func:`for_devices`) in its shardings."""
    expected = run_global(parse_module(for_devices(text, 1)), args)
    out = {}
    for n in devices:
        module = parse_module(for_devices(text, n))
        actual, local, report = run_partitioned(module, args, n, platform)
        _compare(actual, expected, exact)
        assert str(parse_module(str(local))) == str(local)  # the per-device text reads back
        out[n] = (local, report)
    return out


@pytest.fixture
def spmd():
    class Harness:
        pass

    h = Harness()
    h.check = check
    h.collectives = collectives
    h.run_partitioned = run_partitioned
    h.run_global = run_global
    h.parse = parse_module
    h.opcode = HloOpcode
    return h
