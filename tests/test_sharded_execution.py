"""Sharded programs through the client: ``client.compile`` partitions a global program with
shardings, ``exe(*global_arrays)`` shards, runs every device and assembles, and the result
equals the unpartitioned program's, for every pattern the partitioner handles, on 1, 2 and 4
devices; ``execute_sharded`` chains on device buffers; JAX's Shardy modules partition; a
module already partitioned (by XLA or xlapy) is not partitioned again."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

import xlapy
from xlapy.client import CompileOptions, GlobalData
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module
from xlapy.passes.spmd import partition
from xlapy.stablehlo import parse_program

DATA = pathlib.Path(__file__).parent / "data" / "spmd"
RNG = np.random.default_rng(11)
I32 = np.int32
MESH = {1: (1, 1), 2: (2, 1), 4: (2, 2)}


def iota(*dims, dtype=I32, start=0):
    return (np.arange(np.prod(dims)) + start).astype(dtype).reshape(dims)


def ints(*dims):
    return RNG.integers(-9, 9, dims).astype(I32)


def normal(*dims):
    return RNG.standard_normal(dims).astype(np.float32)


def client(platform="interpreter", devices=4):
    return xlapy.local_client(platform, device_count=devices)


def for_devices(text: str, n: int) -> str:
    a, b = MESH[n]
    return text.replace("$N", str(n)).replace("$A", str(a)).replace("$B", str(b))


def collectives(module) -> dict[str, int]:
    counts: dict[str, int] = {}
    for instruction in module.entry.instructions:
        if instruction.opcode.is_collective:
            counts[instruction.opcode.value] = counts.get(instruction.opcode.value, 0) + 1
    return counts


def compare(actual, expected, exact):
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected, strict=True):
            compare(a, e, exact)
    elif exact:
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def run_through_client(text, args, devices=(1, 2, 4), platform="interpreter", exact=True):
    """exe(*global) == the unpartitioned program for each device count; {n: executable}."""
    expected = client("interpreter").compile(parse_module(for_devices(text, 1)))(*args)
    out = {}
    for n in devices:
        # one partition still goes through the partitioner when asked to
        options = CompileOptions(num_partitions=n, use_spmd_partitioning=True if n == 1 else None)
        exe = client(platform).compile(parse_module(for_devices(text, n)), options)
        assert exe.partitioning_report is not None
        compare(exe(*args), expected, exact)
        out[n] = exe
    return out


ADD = """add { a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b) }
"""
CMP = """cmp { a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT }
"""

# name -> (HLO text with $N/$A/$B, argument maker, exact)
PATTERNS = {
    "elementwise": (
        """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[$N,1]<=[$N]}
  a = s32[8,6] add(x, y)
  ROOT m = s32[8,6] multiply(a, x)
}""",
        lambda: [iota(8, 6), iota(8, 6, start=3)],
    ),
    "all-to-all between tilings": (
        """HloModule m
ENTRY e {
  x = s32[8,8] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,8] parameter(1), sharding={devices=[1,$N]<=[$N]}
  ROOT a = s32[8,8] subtract(x, y), sharding={devices=[$N,1]<=[$N]}
}""",
        lambda: [iota(8, 8), ints(8, 8)],
    ),
    "2-D mesh, partial replication": (
        """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$A,$B]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[$A,1,$B]<=[$N] last_tile_dim_replicate}
  ROOT a = s32[8,6] add(x, y), sharding={devices=[1,$A,$B]<=[$N] last_tile_dim_replicate}
}""",
        lambda: [iota(8, 6), iota(8, 6, start=7)],
    ),
    "broadcast and transpose": (
        """HloModule m
ENTRY e {
  x = s32[8] parameter(0), sharding={devices=[$N]<=[$N]}
  b = s32[8,6] broadcast(x), dimensions={0}
  c = s32[6,8] broadcast(x), dimensions={1}, sharding={devices=[$N,1]<=[$N]}
  t = s32[8,6] transpose(c), dimensions={1,0}
  ROOT a = s32[8,6] add(b, t)
}""",
        lambda: [iota(8)],
    ),
    "reshape": (
        """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  r = s32[4,2,6] reshape(x)
  y = s32[8,6] parameter(1), sharding={devices=[1,$N]<=[$N]}
  f = s32[48] reshape(y)
  ROOT t = (s32[4,2,6], s32[48]) tuple(r, f)
}""",
        lambda: [iota(8, 6), ints(8, 6)],
    ),
    "slice, pad, reverse, concatenate": (
        """HloModule m
ENTRY e {
  x = s32[8,8] parameter(0), sharding={devices=[1,$N]<=[$N]}
  s = s32[8,5] slice(x), slice={[0:8], [1:6]}
  z = s32[] constant(-1)
  p = s32[8,8] pad(s, z), padding=0_0x2_1
  r = s32[8,8] reverse(p), dimensions={1}
  c = s32[16,8] concatenate(r, x), dimensions={0}
  ROOT o = s32[16,8] add(c, c)
}""",
        lambda: [ints(8, 8)],
    ),
    "halo exchange": (
        """HloModule m
ENTRY e {
  x = s32[16,3] parameter(0), sharding={devices=[$N,1]<=[$N]}
  ROOT s = s32[12,3] slice(x), slice={[1:13], [0:3]}, sharding={devices=[$N,1]<=[$N]}
}""",
        lambda: [iota(16, 3)],
    ),
    "dynamic-slice and gather": (
        """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  i = s32[] parameter(1), sharding={replicated}
  z = s32[] constant(0)
  d = s32[4,6] dynamic-slice(x, i, z), dynamic_slice_sizes={4,6}
  idx = s32[3,1] parameter(2), sharding={replicated}
  g = s32[3,6] gather(x, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  ROOT t = (s32[4,6], s32[3,6]) tuple(d, g), sharding={{devices=[$N,1]<=[$N]}, {replicated}}
}""",
        lambda: [iota(8, 6), np.int32(3), np.array([[7], [0], [2]], I32)],
    ),
    "sort and scatter": (
        CMP
        + ADD
        + """ENTRY e {
  x = s32[8,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  s = s32[8,4] sort(x), dimensions={0}, to_apply=cmp
  idx = s32[2,1] constant({{1},{6}})
  upd = s32[2,4] constant({{1,2,3,4},{5,6,7,8}})
  ROOT sc = s32[8,4] scatter(s, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add, sharding={devices=[$N,1]<=[$N]}
}""",
        lambda: [ints(8, 4)],
    ),
    "megatron dot": (
        """HloModule megatron
ENTRY e {
  x = s32[4,8] parameter(0), sharding={replicated}
  w1 = s32[8,16] parameter(1), sharding={devices=[1,$N]<=[$N]}
  w2 = s32[16,8] parameter(2), sharding={devices=[$N,1]<=[$N]}
  h = s32[4,16] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = s32[] constant(0)
  zb = s32[4,16] broadcast(z), dimensions={}
  r = s32[4,16] maximum(h, zb)
  ROOT o = s32[4,8] dot(r, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}""",
        lambda: [ints(4, 8), ints(8, 16), ints(16, 8)],
    ),
    "reduce-scatter dot": (
        """HloModule m
ENTRY e {
  a = s32[8,12] parameter(0), sharding={devices=[1,$N]<=[$N]}
  b = s32[12,8] parameter(1), sharding={devices=[$N,1]<=[$N]}
  ROOT d = s32[8,8] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sharding={devices=[$N,1]<=[$N]}
}""",
        lambda: [ints(8, 12), ints(12, 8)],
    ),
    "batched dot": (
        """HloModule m
ENTRY e {
  a = s32[4,6,8] parameter(0), sharding={devices=[$N,1,1]<=[$N]}
  b = s32[4,8,4] parameter(1), sharding={devices=[1,1,$N]<=[$N]}
  ROOT d = s32[4,6,4] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}""",
        lambda: [ints(4, 6, 8), ints(4, 8, 4)],
    ),
    "reduce over tiled dims": (
        ADD
        + """ENTRY e {
  x = s32[8,12] parameter(0), sharding={devices=[$A,$B]<=[$N]}
  z = s32[] constant(0)
  s = s32[8] reduce(x, z), dimensions={1}, to_apply=add
  ROOT t = s32[] reduce(x, z), dimensions={0,1}, to_apply=add
}""",
        lambda: [ints(8, 12)],
    ),
    "convolution batch": (
        """HloModule m
ENTRY e {
  x = s32[4,6,6,3] parameter(0), sharding={devices=[$N,1,1,1]<=[$N]}
  k = s32[3,3,3,8] parameter(1), sharding={replicated}
  ROOT c = s32[4,4,4,8] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
}""",
        lambda: [ints(4, 6, 6, 3), ints(3, 3, 3, 8)],
    ),
    "uneven dims": (
        """HloModule m
ENTRY e {
  x = s32[7,5] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[7,5] negate(x), sharding={devices=[1,$N]<=[$N]}
  ROOT t = (s32[7,5], s32[7,5]) tuple(x, y), sharding={{devices=[$N,1]<=[$N]}, {replicated}}
}""",
        lambda: [iota(7, 5)],
    ),
    "maximal": (
        """HloModule m
ENTRY e {
  x = s32[4,4] parameter(0), sharding={maximal device=0}
  y = s32[4,4] negate(x)
  ROOT a = s32[4,4] add(y, x), sharding={maximal device=0}
}""",
        lambda: [iota(4, 4)],
    ),
    "while on whole values": (
        """HloModule m
cond { s = (s32[], s32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT }
body { s = (s32[], s32[8,4]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = s32[8,4] get-tuple-element(s), index=1
  one = s32[] constant(1)
  j = s32[] add(i, one)
  y = s32[8,4] add(x, x)
  ROOT t = (s32[], s32[8,4]) tuple(j, y) }
ENTRY e {
  x = s32[8,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  z = s32[] constant(0)
  t = (s32[], s32[8,4]) tuple(z, x)
  w = (s32[], s32[8,4]) while(t), condition=cond, body=body
  ROOT r = s32[8,4] get-tuple-element(w), index=1, sharding={devices=[$N,1]<=[$N]}
}""",
        lambda: [iota(8, 4)],
    ),
}


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_every_pattern_through_the_client_on_the_interpreter(name):
    text, make_args = PATTERNS[name]
    run_through_client(text, make_args())


@pytest.mark.parametrize("name", ["megatron dot", "all-to-all between tilings", "halo exchange"])
def test_patterns_on_the_cpu(name):
    text, make_args = PATTERNS[name]
    run_through_client(text, make_args(), devices=(4,), platform="cpu")


def test_partitioning_report_lists_the_gathers():
    text, make_args = PATTERNS["dynamic-slice and gather"]
    exe = client().compile(parse_module(for_devices(text, 4)), CompileOptions(num_partitions=4))
    actions = {e.instruction: e.action for e in exe.partitioning_report}
    assert "gathered dims [0]" in actions["d"] and "whole operands" in actions["g"]
    printed = str(exe.partitioning_report)
    assert printed.startswith("partitioned for 4 devices:") and "g:" in printed


def test_megatron_moves_one_all_reduce_and_runs_on_shards():
    text, make_args = PATTERNS["megatron dot"]
    exe = client().compile(parse_module(for_devices(text, 4)), CompileOptions(num_partitions=4))
    assert collectives(exe.hlo_module) == {"all-reduce": 1}
    assert exe.sharded_signature is not None
    assert [str(s) for s in exe.program_shape.parameters][1].startswith("s32[8,4]")


def test_execute_sharded_chains_on_device_buffers():
    """Two data-parallel steps: the outputs of the first (handles) feed the second as
    they are; only the end goes to numpy."""
    text = """HloModule step
ENTRY e {
  w = f32[4,4] parameter(0), sharding={replicated}
  x = f32[8,4] parameter(1), sharding={devices=[$N,1]<=[$N]}
  h = f32[8,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  t = f32[8,4] tanh(h)
  ROOT r = (f32[4,4], f32[8,4]) tuple(w, t), sharding={{replicated}, {devices=[$N,1]<=[$N]}}
}"""
    w, x = normal(4, 4), normal(8, 4)
    exe = client().compile(parse_module(for_devices(text, 4)), CompileOptions(num_partitions=4))
    pieces = [[w, x[2 * d : 2 * d + 2]] for d in range(4)]
    first = exe.execute_sharded(pieces)
    assert all(isinstance(h, GlobalData) for row in first for h in row)
    second = exe.execute_sharded(first)
    assert all(isinstance(h, GlobalData) for row in second for h in row)
    local = np.concatenate([client().transfer(row[1]).to_numpy() for row in second])
    np.testing.assert_allclose(local, np.tanh(np.tanh(x @ w) @ w), rtol=1e-5, atol=1e-6)
    as_numpy = exe.execute_sharded(first, return_handles=False)
    np.testing.assert_allclose(np.concatenate([row[1] for row in as_numpy]), local)
    assert exe.local_logical_ids == [0, 1, 2, 3]


def test_execute_sharded_wants_one_list_per_device():
    text, make_args = PATTERNS["elementwise"]
    exe = client().compile(parse_module(for_devices(text, 2)), CompileOptions(num_partitions=2))
    with pytest.raises(InvalidArgumentError, match="2 local devices"):
        exe.execute_sharded([[iota(4, 6), iota(4, 6)]])


def test_global_argument_of_the_wrong_shape_is_a_clear_error():
    text, _ = PATTERNS["elementwise"]
    exe = client().compile(parse_module(for_devices(text, 2)), CompileOptions(num_partitions=2))
    with pytest.raises(InvalidArgumentError, match="expected the global array s32\\[8,6\\]"):
        exe(iota(4, 6), iota(8, 6))


def test_jax_shardy_megatron_through_the_client():
    module = parse_program((DATA / "megatron.mlir").read_text()).hlo_module()
    x, w1, w2 = normal(4, 8), normal(8, 16), normal(16, 8)
    exe = client().compile(module, CompileOptions(num_partitions=2))
    np.testing.assert_allclose(exe(x, w1, w2), np.maximum(x @ w1, 0) @ w2, rtol=1e-5, atol=1e-5)
    assert collectives(exe.hlo_module) == {"all-reduce": 1}


def test_jax_shard_map_through_the_client():
    module = parse_program((DATA / "shard_map.mlir").read_text()).hlo_module()
    x = normal(8, 4)
    exe = client().compile(module, CompileOptions(num_partitions=2))
    np.testing.assert_allclose(exe(x), (x[:4] + x[4:]) * 2, rtol=1e-6)


def test_a_module_xla_partitioned_is_not_partitioned_again():
    """JAX's text after compile(): shapes per device, entry named *_spmd, scheduled.
    The client runs it as it is, and global arrays still go in and out."""
    module = parse_module((DATA / "megatron.xla.hlo").read_text())
    x, w1, w2 = normal(4, 8), normal(8, 16), normal(16, 8)
    exe = client().compile(module, CompileOptions(num_partitions=2))
    assert exe.partitioning_report is None
    assert str(exe.program_shape.parameters[1]).startswith("f32[8,8]")
    np.testing.assert_allclose(exe(x, w1, w2), np.maximum(x @ w1, 0) @ w2, rtol=1e-5, atol=1e-5)
    with pytest.raises(InvalidArgumentError, match="already partitioned"):
        client().compile(module, CompileOptions(num_partitions=2, use_spmd_partitioning=True))


def test_a_module_xlapy_partitioned_is_not_partitioned_again():
    text, make_args = PATTERNS["reduce-scatter dot"]
    local, _ = partition(parse_module(for_devices(text, 4)), 4)
    assert local.entry.name.endswith("_spmd")
    reread = parse_module(str(local))
    exe = client().compile(reread, CompileOptions(num_partitions=4))
    assert exe.partitioning_report is None
    assert collectives(exe.hlo_module) == collectives(local)
    args = make_args()
    np.testing.assert_array_equal(exe(*args), args[0] @ args[1])


def test_shardings_without_partitions_run_the_global_program():
    text, make_args = PATTERNS["elementwise"]
    exe = client().compile(parse_module(for_devices(text, 2)))
    assert exe.partitioning_report is None and exe.sharded_signature is None
    x, y = make_args()
    np.testing.assert_array_equal(exe(x, y), (x + y) * x)


def test_replicas_times_partitions_give_one_global_result_per_replica():
    text, make_args = PATTERNS["elementwise"]
    options = CompileOptions(num_replicas=2, num_partitions=2)
    exe = client().compile(parse_module(for_devices(text, 2)), options)
    x, y = make_args()
    results = exe(x, y)
    assert len(results) == 2
    for r in results:
        np.testing.assert_array_equal(r, (x + y) * x)
