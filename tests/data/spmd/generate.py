"""Writes the JAX-exported fixtures of the SPMD tests (run from the repository root):

    XLA_FLAGS=--xla_force_host_platform_device_count=2 python tests/data/spmd/generate.py

megatron.mlir: the Megatron MLP as jax.jit lowers it with NamedSharding on a 2-device
mesh (Shardy StableHLO); megatron.xla.hlo: the same program after XLA's own SPMD
partitioner (``.compile().as_text()``), whose collectives the tests compare with xlapy's;
shard_map.mlir: a shard_map (manual region) with a psum inside.
"""

from __future__ import annotations

import pathlib
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

HERE = pathlib.Path(__file__).parent


def mesh() -> Mesh:
    return Mesh(np.array(jax.devices()[:2]), ("model",))


def megatron():
    m = mesh()

    def mlp(x, w1, w2):
        return jax.nn.relu(x @ w1) @ w2

    shardings = (
        NamedSharding(m, P()),
        NamedSharding(m, P(None, "model")),
        NamedSharding(m, P("model", None)),
    )
    args = (
        jax.ShapeDtypeStruct((4, 8), jnp.float32),
        jax.ShapeDtypeStruct((8, 16), jnp.float32),
        jax.ShapeDtypeStruct((16, 8), jnp.float32),
    )
    lowered = jax.jit(mlp, in_shardings=shardings, out_shardings=NamedSharding(m, P())).lower(*args)
    return lowered.as_text(), lowered.compile().as_text()


def shard_map_program():
    m = mesh()

    def body(x):
        return jax.lax.psum(x * 2.0, "model")

    f = jax.shard_map(body, mesh=m, in_specs=P("model", None), out_specs=P(None, None))
    lowered = jax.jit(f).lower(jax.ShapeDtypeStruct((8, 4), jnp.float32))
    return lowered.as_text()


def main(out: pathlib.Path = HERE) -> None:
    if len(jax.devices()) < 2:
        sys.exit("run with XLA_FLAGS=--xla_force_host_platform_device_count=2")
    mlir, compiled = megatron()
    (out / "megatron.mlir").write_text(mlir)
    (out / "megatron.xla.hlo").write_text(compiled)
    (out / "shard_map.mlir").write_text(shard_map_program())


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
