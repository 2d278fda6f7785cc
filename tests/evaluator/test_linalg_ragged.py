"""Interpreter kernels of ragged-dot (its three modes) and scaled-dot against numpy loops."""

import ml_dtypes
import numpy as np
import pytest

from xlapy.backends.interpreter import run
from xlapy.builder import XlaBuilder
from xlapy.evaluator.kernels import linalg_ragged  # noqa: F401  (registers kernels)
from xlapy.ops import linalg as la
from xlapy.ops import movement as mv
from xlapy.shape import Shape
from xlapy.types import PrimitiveType
from xlapy.xla_data import DotDimensionNumbers, RaggedDotDimensionNumbers

rng = np.random.default_rng(7)


def build(name, shapes, make):
    b = XlaBuilder(name)
    params = [
        mv.Parameter(b, i, Shape.parse(s).with_default_layout(), f"p{i}")
        for i, s in enumerate(shapes)
    ]
    make(*params)
    return b.build()


def ints(shape, low=-4, high=5, dtype=np.float32):
    return rng.integers(low, high, size=shape).astype(dtype)


def ragged(name, shapes, dn, args):
    def make(lhs, rhs, sizes):
        la.RaggedDot(lhs, rhs, sizes, dn)

    return run(build(name, shapes, make).hlo_module, *args)


def bounds(sizes):
    ends = np.cumsum(sizes)
    return list(zip((ends - sizes).tolist(), ends.tolist(), strict=True))


@pytest.mark.parametrize("sizes", [[2, 0, 3, 1], [1, 1, 1, 1], [0, 0, 0, 6], [1, 2, 0, 0]])
def test_ragged_non_contracting(sizes):
    # lhs [m, k], rhs [g, k, n], group_sizes [g] -> [m, n]; rows past the groups are zero.
    m, k, n, g = 6, 3, 4, 4
    lhs, rhs = ints((m, k)), ints((g, k, n))
    sizes = np.array(sizes, np.int32)
    dn = RaggedDotDimensionNumbers(
        DotDimensionNumbers((1,), (1,)), lhs_ragged_dimensions=(0,), rhs_group_dimensions=(0,)
    )
    got = ragged("rnc", ["f32[6,3]", "f32[4,3,4]", "s32[4]"], dn, [lhs, rhs, sizes])
    want = np.zeros((m, n), np.float32)
    for i, (lo, hi) in enumerate(bounds(sizes)):
        want[lo:hi] = lhs[lo:hi] @ rhs[i]
    np.testing.assert_array_equal(got, want)


def test_ragged_non_contracting_group_dim_last_and_batch():
    # lhs [b, m, k], rhs [b, k, n, g] (group dim last), group_sizes [b, g] vectorized.
    bsz, m, k, n, g = 2, 5, 3, 2, 3
    lhs, rhs = ints((bsz, m, k)), ints((bsz, k, n, g))
    sizes = np.array([[2, 1, 2], [0, 4, 0]], np.int32)
    dn = RaggedDotDimensionNumbers(
        DotDimensionNumbers((2,), (1,), (0,), (0,)),
        lhs_ragged_dimensions=(1,),
        rhs_group_dimensions=(3,),
    )
    got = ragged("rncb", ["f32[2,5,3]", "f32[2,3,2,3]", "s32[2,3]"], dn, [lhs, rhs, sizes])
    want = np.zeros((bsz, m, n), np.float32)
    for bi in range(bsz):
        for i, (lo, hi) in enumerate(bounds(sizes[bi])):
            want[bi, lo:hi] = lhs[bi, lo:hi] @ rhs[bi, :, :, i]
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("sizes", [[1, 3, 2], [0, 6, 0], [2, 2, 1]])
def test_ragged_contracting(sizes):
    # lhs [m, k], rhs [k, n], group_sizes [g] -> [g, m, n]: one partial dot per group.
    m, k, n = 3, 6, 4
    lhs, rhs = ints((m, k)), ints((k, n))
    sizes = np.array(sizes, np.int32)
    dn = RaggedDotDimensionNumbers(DotDimensionNumbers((1,), (0,)), lhs_ragged_dimensions=(1,))
    got = ragged("rc", ["f32[3,6]", "f32[6,4]", "s32[3]"], dn, [lhs, rhs, sizes])
    want = np.zeros((len(sizes), m, n), np.float32)
    for i, (lo, hi) in enumerate(bounds(sizes)):
        want[i] = lhs[:, lo:hi] @ rhs[lo:hi]
    np.testing.assert_array_equal(got, want)


def test_ragged_contracting_integer():
    lhs, rhs = ints((2, 4), dtype=np.int32), ints((4, 3), dtype=np.int32)
    sizes = np.array([3, 1], np.int32)
    dn = RaggedDotDimensionNumbers(DotDimensionNumbers((1,), (0,)), lhs_ragged_dimensions=(1,))
    got = ragged("rci", ["s32[2,4]", "s32[4,3]", "s32[2]"], dn, [lhs, rhs, sizes])
    want = np.stack([lhs[:, :3] @ rhs[:3], lhs[:, 3:] @ rhs[3:]])
    np.testing.assert_array_equal(got, want)


def test_ragged_batch():
    # Ragged batch dimension: each batch entry is a whole dot.
    lhs, rhs = ints((3, 2, 4)), ints((3, 4, 5))
    sizes = np.array([1, 2], np.int32)
    dn = RaggedDotDimensionNumbers(
        DotDimensionNumbers((2,), (1,), (0,), (0,)), lhs_ragged_dimensions=(0,)
    )
    got = ragged("rb", ["f32[3,2,4]", "f32[3,4,5]", "s32[2]"], dn, [lhs, rhs, sizes])
    want = np.stack([lhs[i] @ rhs[i] for i in range(3)])
    np.testing.assert_array_equal(got, want)


def scaled(name, shapes, dn, args):
    def make(lhs, rhs, ls, rs):
        la.ScaledDot(lhs, rhs, ls, rs, dn)

    return run(build(name, shapes, make).hlo_module, *args)


def test_scaled_dot_blocks():
    # lhs [m, k] with scale [m, k/4]; rhs [k, n] with scale [k/4, n]: blocks of 4 along k.
    m, k, n, block = 3, 8, 2, 4
    lhs, rhs = ints((m, k)), ints((k, n))
    ls, rs = ints((m, k // block), 1, 4), ints((k // block, n), 1, 4)
    dn = DotDimensionNumbers((1,), (0,))
    got = scaled("sd", ["f32[3,8]", "f32[8,2]", "f32[3,2]", "f32[2,2]"], dn, [lhs, rhs, ls, rs])
    a = np.empty_like(lhs)
    for i in range(m):
        for j in range(k):
            a[i, j] = lhs[i, j] * ls[i, j // block]
    b = np.empty_like(rhs)
    for i in range(k):
        for j in range(n):
            b[i, j] = rhs[i, j] * rs[i // block, j]
    np.testing.assert_array_equal(got, a @ b)


def test_scaled_dot_broadcast_scalar_scales_and_batch():
    # Size-1 scales broadcast over everything; a batch dimension is kept.
    lhs, rhs = ints((2, 3, 4)), ints((2, 4, 5))
    ls, rs = np.array([[[2.0]]], np.float32), np.array([[[0.5]], [[3.0]]], np.float32)
    dn = DotDimensionNumbers((2,), (1,), (0,), (0,))
    shapes = ["f32[2,3,4]", "f32[2,4,5]", "f32[1,1,1]", "f32[2,1,1]"]
    got = scaled("sdb", shapes, dn, [lhs, rhs, ls, rs])
    want = np.stack([(lhs[i] * 2.0) @ (rhs[i] * rs[i, 0, 0]) for i in range(2)])
    np.testing.assert_array_equal(got, want)


def test_scaled_dot_f8_with_e8m0_scales():
    lhs = ints((2, 4)).astype(ml_dtypes.float8_e4m3fn)
    rhs = ints((4, 3)).astype(ml_dtypes.float8_e4m3fn)
    ls = np.array([[2.0, 0.5], [4.0, 1.0]], np.float32).astype(ml_dtypes.float8_e8m0fnu)
    rs = np.array([[1.0, 2.0, 8.0], [0.25, 1.0, 2.0]], np.float32).astype(ml_dtypes.float8_e8m0fnu)

    def make(a, b, sa, sb):
        la.ScaledDot(a, b, sa, sb, DotDimensionNumbers((1,), (0,)), None, PrimitiveType.F32)

    shapes = ["f8e4m3fn[2,4]", "f8e4m3fn[4,3]", "f8e8m0fnu[2,2]", "f8e8m0fnu[2,3]"]
    got = run(build("sdf8", shapes, make).hlo_module, lhs, rhs, ls, rs)
    a = lhs.astype(np.float32) * np.repeat(ls.astype(np.float32), 2, axis=1)
    b = rhs.astype(np.float32) * np.repeat(rs.astype(np.float32), 2, axis=0)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, a @ b)


def test_ragged_contracting_vectorized_group_sizes():
    # lhs [b, m, k] ragged in k, group_sizes [b, g] per batch entry -> [g, b, m, n].
    lhs, rhs = ints((2, 2, 5)), ints((2, 5, 3))
    sizes = np.array([[2, 3], [5, 0]], np.int32)
    dn = RaggedDotDimensionNumbers(
        DotDimensionNumbers((2,), (1,), (0,), (0,)), lhs_ragged_dimensions=(2,)
    )
    got = ragged("rcv", ["f32[2,2,5]", "f32[2,5,3]", "s32[2,2]"], dn, [lhs, rhs, sizes])
    want = np.zeros((2, 2, 2, 3), np.float32)
    for bi in range(2):
        for i, (lo, hi) in enumerate(bounds(sizes[bi])):
            want[i, bi] = lhs[bi, :, lo:hi] @ rhs[bi, lo:hi]
    np.testing.assert_array_equal(got, want)
