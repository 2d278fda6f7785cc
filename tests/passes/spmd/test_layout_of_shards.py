"""shard_array / assemble_shards: the per-device pieces of a global array by a sharding."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.errors import InvalidArgumentError
from xlapy.passes.spmd import Tiling, assemble_shards, from_op_sharding, shard_array, to_op_sharding
from xlapy.xla_data_sharding import OpSharding


def test_tiled_pieces_follow_the_device_order():
    x = np.arange(16).reshape(4, 4)
    pieces = shard_array(x, OpSharding.tiled((2, 2), (3, 2, 1, 0)), 4)
    np.testing.assert_array_equal(pieces[3], x[:2, :2])
    np.testing.assert_array_equal(pieces[0], x[2:, 2:])
    np.testing.assert_array_equal(
        assemble_shards(pieces, OpSharding.tiled((2, 2), (3, 2, 1, 0)), (4, 4)), x
    )


def test_partial_replication_and_uneven_padding():
    x = np.arange(10).reshape(5, 2)
    sharding = OpSharding.tiled((2, 1, 2), last_tile_dim_replicate=True)
    pieces = shard_array(x, sharding, 4)
    assert [p.shape for p in pieces] == [(3, 2)] * 4
    np.testing.assert_array_equal(pieces[0], pieces[1])
    np.testing.assert_array_equal(pieces[2], [[6, 7], [8, 9], [0, 0]])
    np.testing.assert_array_equal(assemble_shards(pieces, sharding, (5, 2)), x)


def test_replicas_that_disagree_are_refused():
    sharding = OpSharding.replicated()
    with pytest.raises(InvalidArgumentError, match="disagree"):
        assemble_shards([np.zeros(2), np.ones(2)], sharding, (2,))


def test_round_trip_through_op_sharding():
    for sharding in (
        OpSharding.replicated(),
        OpSharding.tiled((2, 2)),
        OpSharding.tiled((1, 2, 2), (0, 2, 1, 3), last_tile_dim_replicate=True),
    ):
        tiling = from_op_sharding(sharding, 2, 4)
        again = from_op_sharding(to_op_sharding(tiling), 2, 4)
        assert isinstance(again, Tiling) and tiling.same_as(again)
