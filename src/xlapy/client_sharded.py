"""Sharded executables: when the client partitions, and how global arrays meet devices.

Why: a program written for whole arrays with ``sharding=`` annotations runs on N
partitions only once it is split into the program each device runs
(``xlapy.passes.spmd.partition``), and its caller thinks in global arrays. This
module decides whether a module is to be partitioned (``should_partition``),
and ``ShardedSignature`` remembers the global shapes and the entry shardings so
that ``Executable.__call__`` can cut each global argument into per-device
pieces and glue the per-device results back into global arrays.

The rule for "already partitioned": XLA's SPMD partitioner names the entry it
builds ``<name>_spmd`` (JAX's ``compile().as_text()`` shows ``main.1_spmd``),
and so does xlapy's; a scheduled module (``is_scheduled=true``) is a compiler's
output, past partitioning. Such a module's shapes are already per device: it is
never partitioned again, and its global shapes are its local shapes times the
tile counts of its entry shardings.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .errors import InvalidArgumentError, UnimplementedError
from .hlo.module import HloModule
from .passes.spmd import (
    PartitionReport,
    assemble_shards,
    entry_shardings,
    partition,
    shard_array,
)
from .passes.spmd.tiling import from_op_sharding
from .shape import Shape
from .xla_data_sharding import OpSharding, OpShardingType

PARTITIONED_SUFFIX = "_spmd"


def is_partitioned(module: HloModule) -> bool:
    """Whether ``module`` is already the per-device program (see the module docstring)."""
    return module.entry.name.endswith(PARTITIONED_SUFFIX) or module.config.is_scheduled


def has_shardings(module: HloModule) -> bool:
    """Whether any entry instruction carries a ``sharding=`` annotation."""
    return any(i.attribute("sharding") is not None for i in module.entry.instructions)


def should_partition(module: HloModule, num_partitions: int, requested: bool | None) -> bool:
    """Whether the client runs the SPMD partitioner: ``requested`` when given (True on an
    already partitioned module is an error); otherwise when there are several
    partitions and a global program with shardings."""
    if requested is None:
        return num_partitions > 1 and has_shardings(module) and not is_partitioned(module)
    if requested and is_partitioned(module):
        raise InvalidArgumentError(
            f"compiling {module.name} with use_spmd_partitioning=True: the module is "
            f"already partitioned (its entry {module.entry.name!r} ends in "
            f"{PARTITIONED_SUFFIX!r} or it is scheduled), so its shapes are per device; "
            "leave use_spmd_partitioning unset or False"
        )
    return bool(requested)


def _array_sharding(sharding: OpSharding | None, shape: Shape, what: str) -> OpSharding | None:
    if shape.is_tuple or (sharding is not None and sharding.type is OpShardingType.TUPLE):
        raise UnimplementedError(
            f"{what} is a tuple ({shape}); sharded executables take and return arrays or "
            "one tuple of arrays"
        )
    return sharding


def _leaf_shardings(sharding: OpSharding | None, shape: Shape) -> list[OpSharding | None]:
    """One sharding per leaf of a (flat) result shape."""
    if not shape.is_tuple:
        return [_array_sharding(sharding, shape, "the result")]
    count = len(shape.tuple_shapes)
    if sharding is not None and sharding.type is OpShardingType.TUPLE:
        leaves = list(sharding.tuple_shardings)
    else:
        leaves = [sharding] * count
    for i, leaf in enumerate(shape.tuple_shapes):
        _array_sharding(leaves[i], leaf, f"result {i}")
    return leaves


def _global_dims(local: Shape, sharding: OpSharding | None, n: int) -> tuple[int, ...]:
    counts = from_op_sharding(sharding, local.rank, n).counts
    return tuple(int(d) * int(c) for d, c in zip(local.dimensions, counts, strict=True))


@dataclass
class ShardedSignature:
    """Global shapes and entry shardings of a program that runs one piece per partition."""

    parameter_shapes: list[Shape]
    parameter_shardings: list[OpSharding | None]
    result_dims: list[tuple[int, ...]]
    result_shardings: list[OpSharding | None]
    result_is_tuple: bool
    num_partitions: int

    @staticmethod
    def of(global_shapes: Sequence[Shape], result: Shape, local: HloModule, n: int):
        params, out = entry_shardings(local)
        for i, (sharding, shape) in enumerate(zip(params, global_shapes, strict=True)):
            _array_sharding(sharding, shape, f"parameter {i}")
        leaves = list(result.tuple_shapes) if result.is_tuple else [result]
        return ShardedSignature(
            list(global_shapes),
            list(params),
            [tuple(leaf.dimensions) for leaf in leaves],
            _leaf_shardings(out, result),
            result.is_tuple,
            n,
        )

    @staticmethod
    def of_partitioned(local: HloModule, n: int) -> ShardedSignature | None:
        """The signature of a module partitioned elsewhere (XLA's text), read from its
        entry shardings; None when it has none (then it runs as a replicated program)."""
        if not has_shardings(local):
            return None
        entry = local.entry.program_shape
        params, out = entry_shardings(local)
        shapes = []
        for i, (sharding, shape) in enumerate(zip(params, entry.parameters, strict=True)):
            _array_sharding(sharding, shape, f"parameter {i}")
            shapes.append(Shape.array(shape.element_type, _global_dims(shape, sharding, n)))
        result = entry.result
        leaves = list(result.tuple_shapes) if result.is_tuple else [result]
        shardings = _leaf_shardings(out, result)
        dims = [_global_dims(leaf, s, n) for leaf, s in zip(leaves, shardings, strict=True)]
        return ShardedSignature(shapes, list(params), dims, shardings, result.is_tuple, n)

    def shard_arguments(self, arguments: Sequence[Any], what: str) -> list[list[np.ndarray]]:
        """One list of pieces per partition, from the global arguments."""
        if len(arguments) != len(self.parameter_shapes):
            signature = ", ".join(str(s) for s in self.parameter_shapes)
            raise InvalidArgumentError(
                f"{what} takes {len(self.parameter_shapes)} global arguments ({signature}), "
                f"got {len(arguments)}"
            )
        per_partition: list[list[np.ndarray]] = [[] for _ in range(self.num_partitions)]
        for i, (value, shape, sharding) in enumerate(
            zip(arguments, self.parameter_shapes, self.parameter_shardings, strict=True)
        ):
            array = np.asarray(value, dtype=shape.element_type.dtype)
            if tuple(array.shape) != tuple(shape.dimensions):
                raise InvalidArgumentError(
                    f"argument {i} of {what}: expected the global array {shape}, got shape "
                    f"{list(array.shape)} (a sharded executable takes whole arrays and cuts "
                    "them by its entry shardings; use execute_sharded for per-device pieces)"
                )
            for p, piece in enumerate(shard_array(array, sharding, self.num_partitions)):
                per_partition[p].append(piece)
        return per_partition

    def assemble(self, pieces: Sequence[Any]) -> Any:
        """The global result from one result per partition (numpy, tuples for tuples)."""
        if len(pieces) != self.num_partitions:
            raise InvalidArgumentError(
                f"assembling a result needs one piece per partition ({self.num_partitions}), "
                f"got {len(pieces)}"
            )
        leaves = []
        for k, (dims, sharding) in enumerate(
            zip(self.result_dims, self.result_shardings, strict=True)
        ):
            leaf = [p[k] for p in pieces] if self.result_is_tuple else list(pieces)
            leaves.append(assemble_shards(leaf, sharding, dims))
        return tuple(leaves) if self.result_is_tuple else leaves[0]


def partition_for_compile(
    module: HloModule, num_partitions: int
) -> tuple[HloModule, PartitionReport, ShardedSignature]:
    """The per-device module, the partitioner's report and the global signature."""
    entry = module.entry.program_shape
    local, report = partition(module, num_partitions)
    signature = ShardedSignature.of(entry.parameters, entry.result, local, num_partitions)
    return local, report, signature


__all__ = [
    "PARTITIONED_SUFFIX",
    "ShardedSignature",
    "has_shardings",
    "is_partitioned",
    "partition_for_compile",
    "should_partition",
]
