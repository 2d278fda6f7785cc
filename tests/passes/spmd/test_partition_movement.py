"""Elementwise, broadcast, reshape, transpose, slice/concat/pad/reverse, dynamic-slice,
partially replicated, maximal and uneven shardings: partitioned for 1, 2 and 4 devices,
run on the interpreter, assembled, equal to the unpartitioned program."""

from __future__ import annotations

import numpy as np
import pytest

I32 = np.int32


def iota(*dims, dtype=I32, start=0):
    return (np.arange(np.prod(dims)) + start).astype(dtype).reshape(dims)


def test_elementwise_keeps_the_tiling_and_moves_nothing(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[$N,1]<=[$N]}
  a = s32[8,6] add(x, y)
  ROOT m = s32[8,6] multiply(a, x)
}"""
    out = spmd.check(text, [iota(8, 6), iota(8, 6, start=3)])
    for module, report in out.values():
        assert spmd.collectives(module) == {}
        assert len(report) == 0
    assert "s32[2,6] parameter(0)" in str(out[4][0])


def test_elementwise_on_differently_tiled_operands_moves_one(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,8] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,8] parameter(1), sharding={devices=[1,$N]<=[$N]}
  ROOT a = s32[8,8] subtract(x, y), sharding={devices=[$N,1]<=[$N]}
}"""
    out = spmd.check(text, [iota(8, 8), iota(8, 8, start=5) * 3])
    assert spmd.collectives(out[4][0]) == {"all-to-all": 1}
    assert any(e.action == "all-to-all" for e in out[4][1])


def test_two_dimensional_mesh_and_partial_replication(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$A,$B]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[$A,1,$B]<=[$N] last_tile_dim_replicate}
  ROOT a = s32[8,6] add(x, y), sharding={devices=[1,$A,$B]<=[$N] last_tile_dim_replicate}
}"""
    spmd.check(text, [iota(8, 6), iota(8, 6, start=7)])


def test_explicit_device_order(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,4] parameter(0), sharding={devices=[4,1]3,1,0,2}
  y = s32[8,4] parameter(1), sharding={devices=[4,1]0,1,2,3}
  ROOT a = s32[8,4] add(x, y), sharding={devices=[2,2]2,0,3,1}
}"""
    spmd.check(text, [iota(8, 4), iota(8, 4, start=1)], devices=(4,))


def test_broadcast_into_a_tiled_dimension(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8] parameter(0), sharding={devices=[$N]<=[$N]}
  b = s32[8,6] broadcast(x), dimensions={0}
  c = s32[6,8] broadcast(x), dimensions={1}, sharding={devices=[$N,1]<=[$N]}
  t = s32[8,6] transpose(c), dimensions={1,0}
  ROOT a = s32[8,6] add(b, t)
}"""
    spmd.check(text, [iota(8)])


@pytest.mark.parametrize(
    "source,target,sharding",
    [
        ("s32[8,6]", "s32[48]", "{devices=[$N,1]<=[$N]}"),
        ("s32[8,6]", "s32[4,2,6]", "{devices=[$N,1]<=[$N]}"),
        ("s32[8,6]", "s32[2,4,6]", "{devices=[$N,1]<=[$N]}"),
        ("s32[2,4,6]", "s32[48]", "{devices=[$A,$B,1]<=[$N]}"),
        ("s32[4,6]", "s32[4,2,3]", "{devices=[1,$N]<=[$N]}"),
        ("s32[4,2,6]", "s32[8,6]", "{devices=[$N,1,1]<=[$N]}"),
        ("s32[8,6]", "s32[48]", "{devices=[1,$N]<=[$N]}"),
    ],
)
def test_reshape(spmd, source, target, sharding):
    dims = [int(d) for d in source[4:-1].split(",")]
    text = f"""HloModule m
ENTRY e {{
  x = {source} parameter(0), sharding={sharding}
  ROOT r = {target} reshape(x)
}}"""
    out = spmd.check(text, [iota(*dims)])
    if sharding == "{devices=[1,$N]<=[$N]}":
        assert any("all-gather" in e.action for e in out[4][1])
    else:
        assert spmd.collectives(out[4][0]) == {}


def test_transpose_moving_the_tiled_dimension_is_an_all_to_all(spmd):
    text = """HloModule m
ENTRY e {
  x = f32[8,8] parameter(0), sharding={devices=[$N,1]<=[$N]}
  t = f32[8,8] transpose(x), dimensions={1,0}
  ROOT c = f32[8,8] copy(t), sharding={devices=[$N,1]<=[$N]}
}"""
    out = spmd.check(text, [iota(8, 8, dtype=np.float32)])
    assert spmd.collectives(out[2][0]) == {"all-to-all": 1}


@pytest.mark.parametrize("tiled", ["{devices=[$N,1]<=[$N]}", "{devices=[1,$N]<=[$N]}"])
def test_slice_pad_reverse_concatenate(spmd, tiled):
    text = f"""HloModule m
ENTRY e {{
  x = s32[8,8] parameter(0), sharding={tiled}
  s = s32[8,5] slice(x), slice={{[0:8], [1:6]}}
  z = s32[] constant(-1)
  p = s32[8,8] pad(s, z), padding=0_0x2_1
  r = s32[8,8] reverse(p), dimensions={{1}}
  c = s32[16,8] concatenate(r, x), dimensions={{0}}
  ROOT o = s32[16,8] add(c, c)
}}"""
    spmd.check(text, [iota(8, 8)])


def test_dynamic_slice_and_gather_replicate_the_operand(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  i = s32[] parameter(1), sharding={replicated}
  z = s32[] constant(0)
  d = s32[4,6] dynamic-slice(x, i, z), dynamic_slice_sizes={4,6}
  idx = s32[3,1] parameter(2), sharding={replicated}
  g = s32[3,6] gather(x, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,6}
  ROOT t = (s32[4,6], s32[3,6]) tuple(d, g), sharding={{devices=[$N,1]<=[$N]}, {replicated}}
}"""
    out = spmd.check(text, [iota(8, 6), np.int32(3), np.array([[7], [0], [2]], I32)])
    actions = {e.instruction: e.action for e in out[4][1]}
    assert "gathered dims [0]" in actions["d"] and "whole operands" in actions["g"]


def test_dynamic_slice_and_update_of_untiled_dims_run_locally(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  i = s32[] parameter(1), sharding={replicated}
  z = s32[] constant(0)
  d = s32[8,3] dynamic-slice(x, z, i), dynamic_slice_sizes={8,3}
  u = s32[8,6] dynamic-update-slice(x, d, z, i)
  ROOT t = (s32[8,3], s32[8,6]) tuple(d, u)
}"""
    out = spmd.check(text, [iota(8, 6), np.int32(2)])
    assert spmd.collectives(out[4][0]) == {}


def test_sort_along_an_untiled_dimension_runs_locally(spmd):
    text = """HloModule m
cmp { a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT lt = pred[] compare(a, b), direction=GT }
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[$N,1]<=[$N]}
  ROOT s = (s32[8,6], s32[8,6]) sort(x, y), dimensions={1}, to_apply=cmp
}"""
    x = np.random.default_rng(2).integers(-50, 50, (8, 6)).astype(I32)
    out = spmd.check(text, [x, iota(8, 6)])
    assert spmd.collectives(out[4][0]) == {}


def test_sort_and_scatter_replicate(spmd):
    text = """HloModule m
cmp { a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT lt = pred[] compare(a, b), direction=LT }
add { a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b) }
ENTRY e {
  x = s32[8,4] parameter(0), sharding={devices=[$N,1]<=[$N]}
  s = s32[8,4] sort(x), dimensions={0}, to_apply=cmp
  idx = s32[2,1] constant({{1},{6}})
  upd = s32[2,4] constant({{1,2,3,4},{5,6,7,8}})
  ROOT sc = s32[8,4] scatter(s, idx, upd), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add, sharding={devices=[$N,1]<=[$N]}
}"""
    x = np.random.default_rng(1).integers(-50, 50, (8, 4)).astype(I32)
    spmd.check(text, [x])


def test_uneven_dimensions_are_padded(spmd):
    text = """HloModule m
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
ENTRY e {
  x = f32[7,5] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = f32[7,5] exponential(x)
  z = f32[] constant(0)
  r = f32[5] reduce(y, z), dimensions={0}, to_apply=add
  ROOT t = (f32[7,5], f32[5]) tuple(y, r)
}"""
    x = np.linspace(-1, 1, 35, dtype=np.float32).reshape(7, 5)
    out = spmd.check(text, [x], exact=False)
    assert "f32[2,5] parameter(0)" in str(out[4][0])


def test_maximal_sharding(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[4,4] parameter(0), sharding={maximal device=0}
  y = s32[4,4] negate(x)
  ROOT a = s32[4,4] add(y, x), sharding={maximal device=0}
}"""
    spmd.check(text, [iota(4, 4)])


def test_integer_program_on_the_cpu(spmd):
    text = """HloModule m
ENTRY e {
  x = s32[8,6] parameter(0), sharding={devices=[$N,1]<=[$N]}
  y = s32[8,6] parameter(1), sharding={devices=[1,$N]<=[$N]}
  a = s32[8,6] add(x, y)
  ROOT t = s32[6,8] transpose(a), dimensions={1,0}, sharding={devices=[1,$N]<=[$N]}
}"""
    spmd.check(text, [iota(8, 6), iota(8, 6, start=2)], devices=(2,), platform="cpu")


@pytest.mark.parametrize(
    "size,window", [(16, "[1:13]"), (16, "[0:15]"), (16, "[3:16]"), (15, "[2:11]"), (16, "[5:9]")]
)
def test_slice_of_a_tiled_dimension_by_halo_exchange(spmd, size, window):
    start, limit = (int(v) for v in window[1:-1].split(":"))
    text = f"""HloModule m
ENTRY e {{
  x = s32[{size},3] parameter(0), sharding={{devices=[$N,1]<=[$N]}}
  ROOT s = s32[{limit - start},3] slice(x), slice={{{window}, [0:3]}}, sharding={{devices=[$N,1]<=[$N]}}
}}"""
    out = spmd.check(text, [iota(size, 3)])
    assert set(spmd.collectives(out[4][0])) <= {"collective-permute"}


def test_while_loop_runs_on_whole_values(spmd):
    text = """HloModule m
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
}"""
    out = spmd.check(text, [iota(8, 4)])
    assert spmd.collectives(out[4][0]) == {"all-gather": 1}
