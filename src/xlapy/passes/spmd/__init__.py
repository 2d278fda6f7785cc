"""SPMD: sharding propagation and the SPMD partitioner (XLA's GSPMD), as passes.

``partition(module, num_partitions)`` gives the per-device module and a report of
where data moves; ``shard_array`` / ``assemble_shards`` cut global numpy arrays
into per-device pieces by a sharding and glue them back. See docs/spmd.md.
"""

from .layout_of_shards import assemble_shards, shard_array
from .partitioner import PartitionReport, SpmdPartitioner, entry_shardings, partition
from .propagation import ShardingPropagation
from .tiling import Tiling, from_op_sharding, to_op_sharding

__all__ = [
    "PartitionReport",
    "ShardingPropagation",
    "SpmdPartitioner",
    "Tiling",
    "assemble_shards",
    "entry_shardings",
    "from_op_sharding",
    "partition",
    "shard_array",
    "to_op_sharding",
]
