"""Interpreter kernels of the data-movement ops, checked against numpy and the real XLA."""

import ml_dtypes
import numpy as np
import pytest

import xlapy
from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions, run
from xlapy.evaluator.kernels import movement  # noqa: F401  (registers the kernels)
from xlapy.hlo import parse_module

TYPES = {
    "pred": np.bool_,
    "s4": ml_dtypes.int4,
    "u4": ml_dtypes.uint4,
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "f32": np.float32,
    "f64": np.float64,
    "f8e4m3fn": ml_dtypes.float8_e4m3fn,
    "f8e5m2": ml_dtypes.float8_e5m2,
    "c64": np.complex64,
    "c128": np.complex128,
}


def sample(type_name, shape, seed=0):
    """Distinct-ish values that every type represents exactly (small integers)."""
    rng = np.random.default_rng(seed)
    dtype = TYPES[type_name]
    if type_name == "pred":
        return rng.integers(0, 2, shape).astype(bool)
    values = rng.integers(0, 7, shape)
    if type_name.startswith("c"):
        return (values + 1j * rng.integers(0, 7, shape)).astype(dtype)
    return values.astype(dtype)


def module(body, *computations):
    return "HloModule m\n" + "\n".join(computations) + "\nENTRY e {\n" + body + "\n}\n"


def run_literal(text, *literals):
    executable = InterpreterBackend().compile(parse_module(text), InterpreterOptions())
    return executable.execute(list(literals))


# -- constants, tuples and plumbing -------------------------------------------------------


def test_constant_arrays_scalars_and_tuples():
    text = module(
        """  a = f32[2,2] constant({{1, 2}, {3, 4}})
  b = s32[] constant(-7)
  c = pred[3] constant({true, false, true})
  z = f32[0,3] constant({})
  t = (s32[], pred[3]) tuple(b, c)
  ROOT r = (f32[2,2], (s32[], pred[3]), f32[0,3]) tuple(a, t, z)"""
    )
    a, (b, c), z = run(text)
    np.testing.assert_array_equal(a, [[1, 2], [3, 4]])
    assert b.shape == () and b == -7 and b.dtype == np.int32
    np.testing.assert_array_equal(c, [True, False, True])
    assert z.shape == (0, 3)


def test_get_tuple_element_of_nested_tuples():
    text = module(
        """  p = (f32[2], (s32[], u8[3])) parameter(0)
  inner = (s32[], u8[3]) get-tuple-element(p), index=1
  ROOT u = u8[3] get-tuple-element(inner), index=1"""
    )
    arg = (np.ones(2, np.float32), (np.int32(5), np.array([7, 8, 9], np.uint8)))
    np.testing.assert_array_equal(run(text, arg), [7, 8, 9])


def test_opt_barrier_after_all_add_dependency_pass_values_through():
    text = module(
        """  p = f32[3] parameter(0)
  q = s32[] parameter(1)
  t = (f32[3], s32[]) tuple(p, q)
  b = (f32[3], s32[]) opt-barrier(t)
  tok0 = token[] after-all()
  tok = token[] after-all(tok0, tok0)
  x = f32[3] get-tuple-element(b), index=0
  ROOT d = f32[3] add-dependency(x, tok)"""
    )
    x = np.array([1, 2, 3], np.float32)
    np.testing.assert_array_equal(run(text, x, np.int32(4)), x)


def test_domain_passes_its_operand_through():
    text = module(
        """  p = f32[2] parameter(0)
  ROOT d = f32[2] domain(p), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}"""
    )
    np.testing.assert_array_equal(run(text, np.array([1, 2], np.float32)), [1, 2])


# -- every element type through the movement ops -------------------------------------------


@pytest.mark.parametrize("t", sorted(TYPES))
def test_movement_ops_keep_every_element_type(t):
    """Broadcast, transpose, reverse, slice, reshape, concatenate, pad and dynamic slices."""
    x = sample(t, (2, 3, 4))
    y = sample(t, (2, 3, 1), seed=1)
    pad_value = sample(t, (), seed=2)
    u = sample(t, (1, 2, 2), seed=3)
    text = module(
        f"""  x = {t}[2,3,4] parameter(0)
  y = {t}[2,3,1] parameter(1)
  v = {t}[] parameter(2)
  u = {t}[1,2,2] parameter(3)
  i = s32[] parameter(4)
  b = {t}[5,2,3,4] broadcast(x), dimensions={{1,2,3}}
  tr = {t}[4,2,3] transpose(x), dimensions={{2,0,1}}
  rv = {t}[2,3,4] reverse(x), dimensions={{0,2}}
  sl = {t}[2,2,2] slice(x), slice={{[0:2], [1:3], [0:4:2]}}
  rs = {t}[6,4] reshape(x)
  cc = {t}[2,3,5] concatenate(x, y), dimensions={{2}}
  pd = {t}[3,5,5] pad(x, v), padding=1_0x0_0_1x-1_2
  ds = {t}[1,2,2] dynamic-slice(x, i, i, i), dynamic_slice_sizes={{1,2,2}}
  dus = {t}[2,3,4] dynamic-update-slice(x, u, i, i, i)
  ROOT r = ({t}[5,2,3,4], {t}[4,2,3], {t}[2,3,4], {t}[2,2,2], {t}[6,4], {t}[2,3,5], {t}[3,5,5], {t}[1,2,2], {t}[2,3,4]) tuple(b, tr, rv, sl, rs, cc, pd, ds, dus)"""
    )
    out = run(text, x, y, pad_value, u, np.int32(1))
    padded = np.full((3, 5, 5), pad_value, dtype=x.dtype)
    padded[1:, 0:5:2, 0:3] = x[:, :, 1:]
    updated = x.copy()
    updated[1:2, 1:3, 1:3] = u
    expected = [
        np.broadcast_to(x, (5, 2, 3, 4)),
        np.transpose(x, (2, 0, 1)),
        x[::-1, :, ::-1],
        x[0:2, 1:3, 0:4:2],
        x.reshape(6, 4),
        np.concatenate([x, y], axis=2),
        padded,
        x[1:2, 1:3, 1:3],
        updated,
    ]
    for got, want in zip(out, expected, strict=True):
        assert got.dtype == x.dtype
        np.testing.assert_array_equal(got, want)


# -- the ops one by one -------------------------------------------------------------------


def test_broadcast_maps_operand_dimensions_to_any_result_dimensions():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    text = module(
        """  p = f32[2,3] parameter(0)
  ROOT b = f32[2,4,3] broadcast(p), dimensions={0,2}"""
    )
    np.testing.assert_array_equal(run(text, x), np.broadcast_to(x[:, None, :], (2, 4, 3)))


def test_broadcast_scalar_size_one_and_zero_size():
    text = module(
        """  s = f32[] parameter(0)
  one = f32[1,3] parameter(1)
  a = f32[2,2] broadcast(s), dimensions={}
  b = f32[4,3] broadcast(one), dimensions={0,1}
  c = f32[0,3] broadcast(s), dimensions={}
  ROOT r = (f32[2,2], f32[4,3], f32[0,3]) tuple(a, b, c)"""
    )
    one = np.array([[1, 2, 3]], np.float32)
    a, b, c = run(text, np.float32(5), one)
    np.testing.assert_array_equal(a, np.full((2, 2), 5))
    np.testing.assert_array_equal(b, np.broadcast_to(one, (4, 3)))
    assert c.shape == (0, 3)


def test_reshape_spec_examples():
    v = np.array(
        [[[10, 11, 12], [15, 16, 17]], [[20, 21, 22], [25, 26, 27]],
         [[30, 31, 32], [35, 36, 37]], [[40, 41, 42], [45, 46, 47]]],
        np.float32,
    )  # fmt: skip
    text = module(
        """  v = f32[4,2,3] parameter(0)
  s = f32[1,1] parameter(1)
  a = f32[24] reshape(v)
  b = f32[8,3] reshape(v)
  c = f32[] reshape(s)
  d = f32[1,1] reshape(c)
  ROOT r = (f32[24], f32[8,3], f32[], f32[1,1]) tuple(a, b, c, d)"""
    )
    a, b, c, d = run(text, v, np.array([[5]], np.float32))
    np.testing.assert_array_equal(a, v.reshape(24))
    np.testing.assert_array_equal(b, [[10, 11, 12], [15, 16, 17], [20, 21, 22], [25, 26, 27],
                                      [30, 31, 32], [35, 36, 37], [40, 41, 42], [45, 46, 47]])  # fmt: skip
    assert c.shape == () and c == 5
    np.testing.assert_array_equal(d, [[5]])


def test_transpose_and_reverse_rank_zero_and_zero_size():
    text = module(
        """  s = f32[] parameter(0)
  z = f32[0,2] parameter(1)
  a = f32[] transpose(s), dimensions={}
  b = f32[2,0] transpose(z), dimensions={1,0}
  c = f32[0,2] reverse(z), dimensions={0,1}
  d = f32[] reverse(s), dimensions={}
  ROOT r = (f32[], f32[2,0], f32[0,2], f32[]) tuple(a, b, c, d)"""
    )
    a, b, c, d = run(text, np.float32(3), np.zeros((0, 2), np.float32))
    assert a == 3 and d == 3 and b.shape == (2, 0) and c.shape == (0, 2)


def test_slice_spec_examples_and_strides():
    a = np.arange(5, dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    text = module(
        """  a = f32[5] parameter(0)
  b = f32[4,3] parameter(1)
  s1 = f32[2] slice(a), slice={[2:4]}
  s2 = f32[2,2] slice(b), slice={[2:4], [1:3]}
  s3 = f32[2,1] slice(b), slice={[0:4:3], [2:3:5]}
  s4 = f32[0,3] slice(b), slice={[1:1], [0:3]}
  ROOT r = (f32[2], f32[2,2], f32[2,1], f32[0,3]) tuple(s1, s2, s3, s4)"""
    )
    s1, s2, s3, s4 = run(text, a, b)
    np.testing.assert_array_equal(s1, [2, 3])
    np.testing.assert_array_equal(s2, [[7, 8], [10, 11]])
    np.testing.assert_array_equal(s3, b[0:4:3, 2:3:5])
    assert s4.shape == (0, 3)


def test_dynamic_slice_spec_examples():
    text = module(
        """  a = f32[5] parameter(0)
  b = f32[4,3] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  x = f32[2] dynamic-slice(a, i), dynamic_slice_sizes={2}
  y = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}
  ROOT r = (f32[2], f32[2,2]) tuple(x, y)"""
    )
    a = np.arange(5, dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    x, y = run(text, a, b, np.int32(2), np.int32(1))
    np.testing.assert_array_equal(x, [2, 3])
    np.testing.assert_array_equal(y, [[7, 8], [10, 11]])


INDEX_TYPES = {
    "s8": np.int8,
    "s16": np.int16,
    "s32": np.int32,
    "s64": np.int64,
    "u8": np.uint8,
    "u16": np.uint16,
    "u32": np.uint32,
    "u64": np.uint64,
    "s4": ml_dtypes.int4,
}


@pytest.mark.parametrize("t", sorted(INDEX_TYPES))
def test_dynamic_slices_clamp_starts_of_every_index_type(t):
    dtype = INDEX_TYPES[t]
    info = ml_dtypes.iinfo(dtype) if t == "s4" else np.iinfo(dtype)
    text = module(
        f"""  b = f32[4,5] parameter(0)
  u = f32[2,2] parameter(1)
  i = {t}[] parameter(2)
  j = {t}[] parameter(3)
  x = f32[2,3] dynamic-slice(b, i, j), dynamic_slice_sizes={{2,3}}
  y = f32[4,5] dynamic-update-slice(b, u, i, j)
  ROOT r = (f32[2,3], f32[4,5]) tuple(x, y)"""
    )
    b = np.arange(20, dtype=np.float32).reshape(4, 5)
    u = -np.ones((2, 2), np.float32)
    for i, j in [(info.max, info.min), (info.min, 1), (1, info.max), (2, 2)]:
        x, y = run(text, b, u, np.array(i, dtype), np.array(j, dtype))
        ci, cj = min(max(int(i), 0), 2), min(max(int(j), 0), 2)
        np.testing.assert_array_equal(x, b[ci : ci + 2, cj : cj + 3])
        di, dj = min(max(int(i), 0), 2), min(max(int(j), 0), 3)
        want = b.copy()
        want[di : di + 2, dj : dj + 2] = u
        np.testing.assert_array_equal(y, want)


def test_dynamic_update_slice_spec_examples_and_rank_zero():
    text = module(
        """  a = f32[5] parameter(0)
  ua = f32[2] parameter(1)
  b = f32[4,3] parameter(2)
  ub = f32[3,2] parameter(3)
  i = s32[] parameter(4)
  s = f32[] parameter(5)
  x = f32[5] dynamic-update-slice(a, ua, i)
  one = s32[] constant(1)
  y = f32[4,3] dynamic-update-slice(b, ub, one, one)
  z = f32[] dynamic-update-slice(s, s)
  ROOT r = (f32[5], f32[4,3], f32[]) tuple(x, y, z)"""
    )
    a = np.arange(5, dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    ub = np.arange(12, 18, dtype=np.float32).reshape(3, 2)
    x, y, z = run(text, a, np.array([5, 6], np.float32), b, ub, np.int32(2), np.float32(9))
    np.testing.assert_array_equal(x, [0, 1, 5, 6, 4])
    np.testing.assert_array_equal(y, [[0, 1, 2], [3, 12, 13], [6, 14, 15], [9, 16, 17]])
    assert z == 9


def test_concatenate_with_zero_size_operands():
    text = module(
        """  a = s32[2,1] parameter(0)
  b = s32[2,0] parameter(1)
  c = s32[2,3] parameter(2)
  ROOT r = s32[2,4] concatenate(a, b, c), dimensions={1}"""
    )
    a = np.array([[1], [2]], np.int32)
    c = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = run(text, a, np.zeros((2, 0), np.int32), c)
    np.testing.assert_array_equal(out, np.concatenate([a, c], axis=1))


def reference_pad(x, value, triples):
    """Place each element at low + i * (interior + 1) if that lands inside the result."""
    out_shape = [
        lo + n + max(n - 1, 0) * it + hi for n, (lo, hi, it) in zip(x.shape, triples, strict=True)
    ]
    result = np.full(out_shape, value, dtype=x.dtype)
    for index in np.ndindex(*x.shape):
        at = tuple(lo + i * (it + 1) for i, (lo, _, it) in zip(index, triples, strict=True))
        if all(0 <= a < n for a, n in zip(at, out_shape, strict=True)):
            result[at] = x[index]
    return result


PAD_CASES = [
    [(0, 0, 0), (0, 0, 0)],
    [(1, 2, 0), (0, 1, 1)],
    [(-1, 0, 1), (2, -2, 2)],
    [(-3, -2, 1), (-1, -1, 0)],  # removes everything in dim 0 but one hole
    [(0, -1, 0), (-2, 0, 3)],
    [(-5, 0, 2), (0, 0, 0)],  # empties dim 0
]


@pytest.mark.parametrize("triples", PAD_CASES)
def test_pad_negative_edges_and_interior(triples):
    x = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
    want = reference_pad(x, np.float32(-1), triples)
    config = "x".join(f"{lo}_{hi}" + (f"_{it}" if it else "") for lo, hi, it in triples)
    dims = ",".join(str(d) for d in want.shape)
    text = module(
        f"""  p = f32[3,4] parameter(0)
  v = f32[] constant(-1)
  ROOT r = f32[{dims}] pad(p, v), padding={config}"""
    )
    np.testing.assert_array_equal(run(text, x), want)


def test_pad_of_zero_size_operand_is_all_padding():
    text = module(
        """  z = f32[0,2] parameter(0)
  v = f32[] constant(7)
  ROOT b = f32[3,2] pad(z, v), padding=1_2_5x0_0"""
    )
    np.testing.assert_array_equal(run(text, np.zeros((0, 2), np.float32)), np.full((3, 2), 7))


@pytest.mark.parametrize("t", ["s32", "u8", "s4", "f32", "bf16", "f8e4m3fn", "c64", "f64"])
def test_iota_along_each_dimension(t):
    text = module(
        f"""  a = {t}[3,4,2] iota(), iota_dimension=0
  b = {t}[3,4,2] iota(), iota_dimension=1
  c = {t}[3,4,2] iota(), iota_dimension=2
  ROOT r = ({t}[3,4,2], {t}[3,4,2], {t}[3,4,2]) tuple(a, b, c)"""
    )
    grids = np.indices((3, 4, 2))
    for got, grid in zip(run(text), grids, strict=True):
        assert got.dtype == TYPES[t]
        np.testing.assert_array_equal(got, grid.astype(TYPES[t]))


# -- layouts and bitcast -------------------------------------------------------------------


def test_non_default_layouts_in_and_out():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    text = module(
        """  p = f32[2,3]{0,1} parameter(0)
  t = f32[3,2]{0,1} transpose(p), dimensions={1,0}
  s = f32[2,2]{0,1} slice(p), slice={[0:2], [1:3]}
  ROOT r = (f32[3,2]{0,1}, f32[2,2]{0,1}) tuple(t, s)"""
    )
    argument = xlapy.Literal.from_numpy(x, layout=(0, 1))
    np.testing.assert_array_equal(argument.data, x.T.ravel())  # column-major buffer
    t, s = run_literal(text, argument).tuple_elements
    np.testing.assert_array_equal(t.to_numpy(), x.T)
    np.testing.assert_array_equal(t.data, x.ravel())  # x.T in column-major order
    np.testing.assert_array_equal(s.data, x[:, 1:3].T.ravel())


def test_bitcast_reinterprets_the_physical_buffer():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    text = module(
        """  p = f32[2,3]{1,0} parameter(0)
  q = f32[2,3]{0,1} parameter(1)
  a = f32[3,2]{0,1} bitcast(p)
  b = f32[6]{0} bitcast(q)
  c = s32[2,3]{1,0} bitcast(p)
  d = f32[3,2]{1,0} bitcast(p)
  ROOT r = (f32[3,2]{0,1}, f32[6]{0}, s32[2,3]{1,0}, f32[3,2]{1,0}) tuple(a, b, c, d)"""
    )
    column_major = xlapy.Literal.from_numpy(x, layout=(0, 1))
    a, b, c, d = (
        e.to_numpy()
        for e in run_literal(text, xlapy.Literal.from_numpy(x), column_major).tuple_elements
    )
    np.testing.assert_array_equal(a, x.T)  # same bytes, read column-major as [3,2]
    np.testing.assert_array_equal(b, x.T.ravel())
    np.testing.assert_array_equal(c, x.view(np.int32))
    np.testing.assert_array_equal(d, x.reshape(3, 2))


# -- dynamic shapes (carried at their dynamic sizes, as XLA's results come back) ---------


def test_dimension_sizes_and_dynamic_reshape_at_their_dynamic_sizes():
    text = module(
        """  p = f32[6] parameter(0)
  n = s32[] parameter(1)
  d = f32[<=6] set-dimension-size(p, n), dimensions={0}
  size = s32[] get-dimension-size(d), dimensions={0}
  two = s32[] constant(2)
  r = f32[<=2,<=3] dynamic-reshape(p, two, n)
  ROOT t = (f32[<=6], s32[], f32[<=2,<=3]) tuple(d, size, r)"""
    )
    x = np.arange(1, 7, dtype=np.float32)
    d, size, r = run(text, x, np.int32(2))
    np.testing.assert_array_equal(d, x[:2])  # XLA: the first 2 elements are the value
    assert size == 2
    np.testing.assert_array_equal(r, [[1, 2], [3, 4]])  # the leading elements, 2 x 2


# -- the real XLA as a second oracle -------------------------------------------------------


def test_pad_and_dynamic_slice_match_xla():
    pytest.importorskip("jax", reason="the XLA oracle needs jax")
    from xlapy.testing.xla_oracle import run_hlo_text

    text = module(
        """  p = f32[3,4] parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  v = f32[] constant(-1)
  a = f32[6,6] pad(p, v), padding=-1_2_1x1_-2_1
  b = f32[2,3] dynamic-slice(p, i, j), dynamic_slice_sizes={2,3}
  u = f32[2,2] slice(p), slice={[0:2], [0:2]}
  c = f32[3,4] dynamic-update-slice(p, u, i, j)
  ROOT r = (f32[6,6], f32[2,3], f32[3,4]) tuple(a, b, c)"""
    )
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    for i, j in [(7, -3), (1, 1), (0, 9)]:
        args = [x, np.int32(i), np.int32(j)]  # jax narrows 64-bit arguments
        for got, want in zip(run(text, *args), run_hlo_text(text, args), strict=True):
            np.testing.assert_array_equal(got, want)
