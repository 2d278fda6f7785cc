"""ShardingPropagation: shardings flow forward and backward through the per-opcode rules,
annotations are kept, manual regions stay manual, the rest ends replicated."""

from __future__ import annotations

import pytest

from xlapy.errors import InvalidArgumentError, UnimplementedError
from xlapy.hlo import parse_module
from xlapy.hlo.attributes_sharding import format_sharding
from xlapy.passes.spmd import ShardingPropagation, partition


def propagated(text: str, n: int = 4) -> dict[str, str]:
    module = parse_module(text)
    ShardingPropagation(n).run(module)
    return {i.name: format_sharding(i.attribute("sharding")) for i in module.entry.instructions}


def test_forward_through_elementwise_broadcast_transpose_reshape_reduce():
    s = propagated("""HloModule m
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[8,6] parameter(0), sharding={devices=[4,1]<=[4]}
  n = f32[8,6] negate(x)
  t = f32[6,8] transpose(n), dimensions={1,0}
  bc = f32[6,8,2] broadcast(t), dimensions={0,1}
  r = f32[48] reshape(n)
  z = f32[] constant(0)
  d = f32[6] reduce(n, z), dimensions={0}, to_apply=add
  ROOT o = (f32[6,8,2], f32[48], f32[6]) tuple(bc, r, d)
}""")
    assert s["n"] == "{devices=[4,1]<=[4]}"
    assert s["t"] == "{devices=[1,4]<=[4]}"
    assert s["bc"] == "{devices=[1,4,1]<=[4]}"
    assert s["r"] == "{devices=[4]<=[4]}"
    assert s["d"] == "{replicated}"
    assert s["z"] == "{replicated}"


def test_dot_forward_combines_both_operands():
    s = propagated("""HloModule m
ENTRY e {
  a = f32[8,4] parameter(0), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  b = f32[4,6] parameter(1), sharding={devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}
  ROOT d = f32[8,6] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}""")
    assert s["d"] == "{devices=[2,2]<=[4]}"


def test_backward_from_the_root_reaches_the_parameters():
    s = propagated("""HloModule m
ENTRY e {
  x = f32[8,4] parameter(0)
  w = f32[4,6] parameter(1)
  d = f32[8,6] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[8,6] negate(d), sharding={devices=[1,4]<=[4]}
}""")
    assert s["d"] == "{devices=[1,4]<=[4]}"
    assert s["w"] == "{devices=[1,4]<=[4]}"
    assert s["x"] == "{replicated}"


def test_convolution_batch_propagates():
    s = propagated("""HloModule m
ENTRY e {
  x = f32[4,6,6,3] parameter(0), sharding={devices=[4,1,1,1]<=[4]}
  k = f32[3,3,3,8] parameter(1)
  ROOT c = f32[4,4,4,8] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
}""")
    assert s["c"] == "{devices=[4,1,1,1]<=[4]}"
    assert s["k"] == "{replicated}"


def test_annotations_are_kept_and_too_fine_tilings_dropped():
    s = propagated("""HloModule m
ENTRY e {
  x = f32[2,8] parameter(0), sharding={devices=[1,4]<=[4]}
  r = f32[16] reshape(x)
  y = f32[2,8] negate(x), sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
  ROOT t = (f32[16], f32[2,8]) tuple(r, y)
}""")
    assert s["y"] == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    assert s["r"] == "{replicated}"


def test_manual_region_stays_manual():
    s = propagated(
        """HloModule m
ENTRY e {
  x = f32[8,4] parameter(0), sharding={devices=[2,1]<=[2]}
  f = f32[4,4] custom-call(x), custom_call_target="SPMDFullToShardShape", sharding={manual}
  n = f32[4,4] negate(f)
  g = f32[8,4] custom-call(n), custom_call_target="SPMDShardToFullShape", sharding={devices=[2,1]<=[2]}
  ROOT c = f32[8,4] copy(g)
}""",
        n=2,
    )
    assert s["n"] == "{manual}"
    assert s["c"] == "{devices=[2,1]<=[2]}"


def test_clear_errors():
    partially_manual = """HloModule m
ENTRY e {
  ROOT x = f32[8] parameter(0), sharding={devices=[2,2]<=[4] last_tile_dims={manual}}
}"""
    with pytest.raises(UnimplementedError, match="partially manual"):
        partition(parse_module(partially_manual), 4)
    too_few = """HloModule m
ENTRY e {
  ROOT x = f32[8] parameter(0), sharding={devices=[2]<=[2]}
}"""
    with pytest.raises(InvalidArgumentError, match="runs on 4 partitions"):
        partition(parse_module(too_few), 4)


def test_a_sharding_constraint_shards_its_operand():
    s = propagated("""HloModule m
ENTRY e {
  x = f32[8,4] parameter(0)
  n = f32[8,4] negate(x)
  ROOT c = f32[8,4] custom-call(n), custom_call_target="Sharding", sharding={devices=[4,1]<=[4]}
}""")
    assert s["n"] == s["x"] == "{devices=[4,1]<=[4]}"
