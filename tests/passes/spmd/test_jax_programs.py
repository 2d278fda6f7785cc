"""JAX programs: the Megatron MLP and a shard_map exported as Shardy StableHLO
(tests/data/spmd, written by generate.py) partitioned by xlapy give the global result,
and xlapy's per-device Megatron has the collectives XLA's partitioner emits."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from xlapy.hlo import parse_module
from xlapy.passes.spmd import partition
from xlapy.stablehlo import parse_program

DATA = pathlib.Path(__file__).parents[2] / "data" / "spmd"
RNG = np.random.default_rng(3)


def normal(*dims):
    return RNG.standard_normal(dims).astype(np.float32)


def lower(name: str):
    return parse_program((DATA / name).read_text()).hlo_module()


def test_shardy_megatron_gives_the_global_result_with_one_all_reduce(spmd):
    module = lower("megatron.mlir")
    args = [normal(4, 8), normal(8, 16), normal(16, 8)]
    actual, local, report = spmd.run_partitioned(module, args, 2)
    x, w1, w2 = args
    np.testing.assert_allclose(actual, np.maximum(x @ w1, 0) @ w2, rtol=1e-5, atol=1e-5)
    assert spmd.collectives(local) == {"all-reduce": 1}


def _entry_collectives(module) -> dict[str, int]:
    counts: dict[str, int] = {}
    for computation in module.computations:
        for instruction in computation.instructions:
            if instruction.opcode.is_collective:
                counts[instruction.opcode.value] = counts.get(instruction.opcode.value, 0) + 1
    return counts


def test_megatron_collectives_match_the_fixture_of_xla(spmd):
    module = lower("megatron.mlir")
    local, _ = partition(module, 2)
    xla = parse_module((DATA / "megatron.xla.hlo").read_text())
    assert spmd.collectives(local) == _entry_collectives(xla) == {"all-reduce": 1}


WORKER = """
import sys
import jax, jax.numpy as jnp, numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
m = Mesh(np.array(jax.devices()[:2]), ("x",))
def mlp(x, w1, w2):
    return jax.nn.gelu(x @ w1) @ w2
def loss(w, x, y):
    return jnp.mean((jnp.tanh(x @ w) - y) ** 2)
def step(w, x, y):
    return w - 0.1 * jax.grad(loss)(w, x, y)
programs = {
    "megatron": (mlp, (P(), P(None, "x"), P("x", None)), ((4, 8), (8, 16), (16, 8))),
    "data_parallel": (step, (P(), P("x", None), P("x", None)), ((8, 4), (16, 8), (16, 4))),
}
f, specs, shapes = programs[sys.argv[1]]
sh = tuple(NamedSharding(m, s) for s in specs)
args = [jax.ShapeDtypeStruct(s, jnp.float32) for s in shapes]
lowered = jax.jit(f, in_shardings=sh, out_shardings=NamedSharding(m, P())).lower(*args)
print(lowered.as_text())
print("=====")
print(lowered.compile().as_text())
"""


@pytest.mark.parametrize(
    "program,shapes",
    [
        ("megatron", ((4, 8), (8, 16), (16, 8))),
        ("data_parallel", ((8, 4), (16, 8), (16, 4))),
    ],
)
def test_collectives_match_xla_compiled_now(spmd, program, shapes):
    """JAX lowers (Shardy) and XLA partitions in a worker with two host devices; xlapy
    partitions JAX's StableHLO: same result, same collectives as XLA's compiled text."""
    pytest.importorskip("jax")
    env = dict(
        os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2", JAX_PLATFORMS="cpu"
    )
    done = subprocess.run(
        [sys.executable, "-c", WORKER, program],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    mlir, compiled = done.stdout.split("=====\n")
    module = parse_program(mlir).hlo_module()
    args = [normal(*s) for s in shapes]
    expected = spmd.run_global(module, args)
    actual, local, _ = spmd.run_partitioned(module, args, 2)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    assert (
        spmd.collectives(local) == _entry_collectives(parse_module(compiled)) == {"all-reduce": 1}
    )


def test_shard_map_manual_region_is_kept_as_written(spmd):
    module = lower("shard_map.mlir")
    x = normal(8, 4)
    actual, local, _ = spmd.run_partitioned(module, [x], 2)
    np.testing.assert_allclose(actual, (x[:4] + x[4:]) * 2, rtol=1e-6)
    assert spmd.collectives(local) == {"all-reduce": 1}
    text = str(local)
    assert "f32[4,4]" in text and "SPMDFullToShardShape" not in text
