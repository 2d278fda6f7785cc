"""Dot (batch, contracting, non-contracting, Megatron), reduce and convolution, partitioned
for 1, 2 and 4 devices: the assembled results equal the unpartitioned program's."""

from __future__ import annotations

import numpy as np
import pytest

RNG = np.random.default_rng(7)


def normal(*dims):
    return RNG.standard_normal(dims).astype(np.float32)


def ints(*dims):
    return RNG.integers(-9, 9, dims).astype(np.int32)


MEGATRON = """HloModule megatron
ENTRY e {
  x = f32[4,8] parameter(0), sharding={replicated}
  w1 = f32[8,16] parameter(1), sharding={devices=[1,$N]<=[$N]}
  w2 = f32[16,8] parameter(2), sharding={devices=[$N,1]<=[$N]}
  h = f32[4,16] dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  z = f32[] constant(0)
  zb = f32[4,16] broadcast(z), dimensions={}
  r = f32[4,16] maximum(h, zb)
  ROOT o = f32[4,8] dot(r, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}"""


def test_megatron_mlp_has_exactly_one_all_reduce(spmd):
    out = spmd.check(MEGATRON, [normal(4, 8), normal(8, 16), normal(16, 8)], exact=False)
    assert spmd.collectives(out[1][0]) == {}
    for n in (2, 4):
        assert spmd.collectives(out[n][0]) == {"all-reduce": 1}
        assert [e.instruction for e in out[n][1]] == ["o"]
    assert "f32[8,4] parameter(1)" in str(out[4][0])


DOT = """HloModule dot
ENTRY e {{
  a = s32[{a}] parameter(0), sharding={sa}
  b = s32[{b}] parameter(1), sharding={sb}
  ROOT d = s32[{o}] dot(a, b), {dnums}{root}
}}"""
MATMUL = "lhs_contracting_dims={1}, rhs_contracting_dims={0}"
BATCHED = (
    "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}"
)
T = "{devices=[$N,1]<=[$N]}"
C = "{devices=[1,$N]<=[$N]}"
R = "{replicated}"
B3 = "{devices=[$N,1,1]<=[$N]}"
MID3 = "{devices=[1,$N,1]<=[$N]}"


@pytest.mark.parametrize(
    "case,sa,sb,root,collectives",
    [
        ("rows of lhs", T, R, "", {}),
        ("columns of rhs", R, C, "", {}),
        ("contracting both", C, T, "", {"all-reduce": 1}),
        ("contracting lhs only", C, R, "", {"all-reduce": 1}),
        ("contracting, sharded result", C, T, T, {"reduce-scatter": 1}),
        ("contracting, result tiled on columns", C, T, C, {"reduce-scatter": 1}),
        (
            "rows and columns on a 2-D mesh",
            "{devices=[$A,1,$B]<=[$N] last_tile_dim_replicate}",
            "{devices=[1,$B,$A]<=[$N] last_tile_dim_replicate}",
            "",
            None,
        ),
        ("lhs rows, rhs columns on one axis", T, C, "", None),
        (
            "all of it on a 2-D mesh",
            "{devices=[$A,$B]<=[$N]}",
            "{devices=[$B,1,$A]<=[$N] last_tile_dim_replicate}",
            "",
            None,
        ),
    ],
)
def test_matmul(spmd, case, sa, sb, root, collectives):
    text = DOT.format(
        a="8,12",
        b="12,8",
        o="8,8",
        sa=sa,
        sb=sb,
        dnums=MATMUL,
        root=f", sharding={root}" if root else "",
    )
    out = spmd.check(text, [ints(8, 12), ints(12, 8)])
    if collectives is not None:
        assert spmd.collectives(out[4][0]) == collectives, case


@pytest.mark.parametrize(
    "sa,sb",
    [(B3, B3), (B3, R), ("{devices=[1,1,$N]<=[$N]}", MID3), (MID3, "{devices=[1,1,$N]<=[$N]}")],
)
def test_batched_dot(spmd, sa, sb):
    text = DOT.format(a="4,6,8", b="4,8,4", o="4,6,4", sa=sa, sb=sb, dnums=BATCHED, root="")
    out = spmd.check(text, [ints(4, 6, 8), ints(4, 8, 4)])
    if (sa, sb) == (B3, B3):
        assert spmd.collectives(out[4][0]) == {}


@pytest.mark.parametrize(
    "dims,tiled",
    [
        ("{1}", "{devices=[1,$N]<=[$N]}"),
        ("{1}", "{devices=[$N,1]<=[$N]}"),
        ("{0,1}", "{devices=[$A,$B]<=[$N]}"),
    ],
)
def test_reduce(spmd, dims, tiled):
    out_shape = "s32[]" if dims == "{0,1}" else "s32[8]"
    text = f"""HloModule m
add {{ a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] add(a, b) }}
max {{ a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT s = s32[] maximum(a, b) }}
ENTRY e {{
  x = s32[8,12] parameter(0), sharding={tiled}
  z = s32[] constant(0)
  lo = s32[] constant(-1000)
  s = {out_shape} reduce(x, z), dimensions={dims}, to_apply=add
  m = {out_shape} reduce(x, lo), dimensions={dims}, to_apply=max
  ROOT t = ({out_shape}, {out_shape}) tuple(s, m)
}}"""
    out = spmd.check(text, [ints(8, 12)])
    if tiled == "{devices=[1,$N]<=[$N]}":
        assert spmd.collectives(out[4][0]) == {"all-reduce": 2}


def test_uneven_contracting_dimension_is_gathered(spmd):
    text = DOT.format(a="6,10", b="10,6", o="6,6", sa=C, sb=T, dnums=MATMUL, root="")
    spmd.check(text, [ints(6, 10), ints(10, 6)], devices=(4,))


@pytest.mark.parametrize("tiled", ["{devices=[$N,1,1,1]<=[$N]}", "{devices=[1,1,1,$N]<=[$N]}"])
def test_convolution_batch_and_feature(spmd, tiled):
    lhs_sharding = tiled if tiled.startswith("{devices=[$N") else "{replicated}"
    rhs_sharding = "{replicated}" if lhs_sharding != "{replicated}" else tiled
    text = f"""HloModule m
ENTRY e {{
  x = f32[4,6,6,3] parameter(0), sharding={lhs_sharding}
  k = f32[3,3,3,8] parameter(1), sharding={rhs_sharding}
  ROOT c = f32[4,4,4,8] convolution(x, k), window={{size=3x3}}, dim_labels=b01f_01io->b01f
}}"""
    out = spmd.check(text, [normal(4, 6, 6, 3), normal(3, 3, 3, 8)], exact=False)
    assert spmd.collectives(out[4][0]) == {}


def test_megatron_on_the_cpu(spmd):
    spmd.check(
        MEGATRON,
        [normal(4, 8), normal(8, 16), normal(16, 8)],
        devices=(2,),
        exact=False,
        platform="cpu",
    )


OPERAND_SHARDINGS = [
    "{replicated}",
    "{devices=[4,1,1]<=[4]}",
    "{devices=[1,4,1]<=[4]}",
    "{devices=[1,1,4]<=[4]}",
    "{devices=[2,1,2]<=[4]}",
    "{devices=[1,2,2]<=[2,2]T(1,0)}",
    "{devices=[2,1,1,2]<=[4] last_tile_dim_replicate}",
    "{devices=[1,1,2,2]<=[4] last_tile_dim_replicate}",
]


@pytest.mark.parametrize("root", ["", ", sharding={devices=[1,2,2]<=[4]}"])
def test_batched_dot_every_pair_of_operand_shardings(spmd, root):
    """lhs [b, m, k] x rhs [b, k, n]: batch, free and contracting dims tiled in every
    combination, on a line and on a 2-D mesh, with and without a tiled result."""
    lhs, rhs = ints(4, 6, 8), ints(4, 8, 4)
    for sa in OPERAND_SHARDINGS:
        for sb in OPERAND_SHARDINGS:
            text = DOT.format(
                a="4,6,8", b="4,8,4", o="4,6,4", sa=sa, sb=sb, dnums=BATCHED, root=root
            )
            spmd.check(text, [lhs, rhs], devices=(4,))
