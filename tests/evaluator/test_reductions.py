"""Interpreter kernels of reduce, reduce-window, select-and-scatter, map, sort and top-k.

Expected values come from numpy (or plain loops that follow operation_semantics.md) and,
where floats or orders could differ, from the real XLA as well.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from xlapy.backends.interpreter import run
from xlapy.evaluator.kernels import indexing, movement, reductions  # noqa: F401


def binary(name, op, t="f32"):
    return f"""{name} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = {t}[] {op}(a, b)
}}
"""


ADD = binary("add", "add")
MAX = binary("max", "maximum")
MIN = binary("min", "minimum")
# JAX's argmax reducer (jnp.argmax lowers to this): NaN wins, ties go to the lower index.
ARGMAX = """
argmax {
  v0 = f32[] parameter(0)
  v1 = f32[] parameter(2)
  gt = pred[] compare(v0, v1), direction=GT
  isnan = pred[] compare(v0, v0), direction=NE
  keep = pred[] or(gt, isnan)
  v = f32[] select(keep, v0, v1)
  eq = pred[] compare(v0, v1), direction=EQ
  i0 = s32[] parameter(1)
  i1 = s32[] parameter(3)
  lt = pred[] compare(i0, i1), direction=LT
  tie = pred[] and(eq, lt)
  first = pred[] or(keep, tie)
  i = s32[] select(first, i0, i1)
  ROOT t = (f32[], s32[]) tuple(v, i)
}
"""
# JAX's comparator for jnp.sort of floats carrying an s32 operand: NaNs and zeros are
# canonicalized, then compared in the total order.
JAX_FLOAT_LT = """
jax_lt {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  qnan = f32[] constant(nan)
  zero = f32[] constant(0)
  x_nan = pred[] compare(x, x), direction=NE
  x_zero = pred[] compare(x, zero), direction=EQ
  x0 = f32[] select(x_zero, zero, x)
  xc = f32[] select(x_nan, qnan, x0)
  y_nan = pred[] compare(y, y), direction=NE
  y_zero = pred[] compare(y, zero), direction=EQ
  y0 = f32[] select(y_zero, zero, y)
  yc = f32[] select(y_nan, qnan, y0)
  ROOT lt = pred[] compare(xc, yc), direction=LT, type=TOTALORDER
}
"""


def module(body, *computations):
    return "HloModule m\n" + "\n".join(computations) + "\nENTRY e {\n" + body + "\n}\n"


def oracle():
    pytest.importorskip("jax", reason="the XLA oracle needs jax")
    from xlapy.testing.xla_oracle import run_hlo_text

    return run_hlo_text


# -- reduce ----------------------------------------------------------------------------------


def test_reduce_spec_examples_2d_and_3d():
    m = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    cube = np.broadcast_to(m, (4, 2, 3)).copy()
    text = module(
        """  m = f32[2,3] parameter(0)
  c = f32[4,2,3] parameter(1)
  z = f32[] constant(0)
  a = f32[3] reduce(m, z), dimensions={0}, to_apply=add
  b = f32[2] reduce(m, z), dimensions={1}, to_apply=add
  d0 = f32[2,3] reduce(c, z), dimensions={0}, to_apply=add
  d2 = f32[4,2] reduce(c, z), dimensions={2}, to_apply=add
  d01 = f32[3] reduce(c, z), dimensions={0,1}, to_apply=add
  all = f32[] reduce(c, z), dimensions={2,0,1}, to_apply=add
  ROOT r = (f32[3], f32[2], f32[2,3], f32[4,2], f32[3], f32[]) tuple(a, b, d0, d2, d01, all)""",
        ADD,
    )
    a, b, d0, d2, d01, total = run(text, m, cube)
    np.testing.assert_array_equal(a, [5, 7, 9])
    np.testing.assert_array_equal(b, [6, 15])
    np.testing.assert_array_equal(d0, [[4, 8, 12], [16, 20, 24]])
    np.testing.assert_array_equal(d2, [[6, 15]] * 4)
    np.testing.assert_array_equal(d01, [20, 28, 36])
    assert total == 84


def test_reduce_init_value_zero_size_and_rank_zero():
    text = module(
        """  x = s32[3,5] parameter(0)
  e = s32[0,4] parameter(1)
  s = s32[] parameter(2)
  init = s32[] constant(100)
  a = s32[3] reduce(x, init), dimensions={1}, to_apply=add
  b = s32[4] reduce(e, init), dimensions={0}, to_apply=add
  c = s32[0] reduce(e, init), dimensions={1}, to_apply=add
  d = s32[] reduce(s, init), dimensions={}, to_apply=add
  ROOT r = (s32[3], s32[4], s32[0], s32[]) tuple(a, b, c, d)""",
        binary("add", "add", "s32"),
    )
    x = np.arange(15, dtype=np.int32).reshape(3, 5)
    a, b, c, d = run(text, x, np.zeros((0, 4), np.int32), np.int32(7))
    np.testing.assert_array_equal(a, x.sum(axis=1) + 100)
    np.testing.assert_array_equal(b, [100] * 4)
    assert c.shape == (0,) and d == 107


@pytest.mark.parametrize(
    "t, op",
    [("s8", "add"), ("u32", "maximum"), ("s64", "multiply"), ("pred", "or"), ("pred", "and"),
     ("f64", "minimum"), ("c64", "add"), ("bf16", "add"), ("u4", "add")],
)  # fmt: skip
def test_reduce_element_types(t, op):
    dtype = {"s8": np.int8, "u32": np.uint32, "s64": np.int64, "pred": np.bool_, "f64": np.float64,
             "c64": np.complex64, "bf16": ml_dtypes.bfloat16, "u4": ml_dtypes.uint4}[t]  # fmt: skip
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (4, 6)).astype(dtype)
    ufunc = {"add": np.add, "maximum": np.maximum, "multiply": np.multiply, "or": np.logical_or,
             "and": np.logical_and, "minimum": np.minimum}[op]  # fmt: skip
    identity = {"add": 0, "maximum": 0, "multiply": 1, "or": False, "and": True, "minimum": 9}[op]
    text = module(
        f"""  x = {t}[4,6] parameter(0)
  init = {t}[] parameter(1)
  ROOT r = {t}[6] reduce(x, init), dimensions={{0}}, to_apply=f""",
        binary("f", op, t),
    )
    got = run(text, x, np.array(identity).astype(dtype))
    want = ufunc.reduce(x.astype(np.complex128 if t == "c64" else np.int64), axis=0)
    assert got.dtype == dtype
    np.testing.assert_array_equal(got, want.astype(dtype))


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_reduce_bf16_input_accumulates_in_the_reducers_f32(element):
    """1000 ones: every partial sum is exact in f32, most (257, 259...) are not in bf16."""
    x = np.ones((2, 1000), ml_dtypes.bfloat16)
    text = module(
        """  x = bf16[2,1000] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2] reduce(x, z), dimensions={1}, to_apply=acc""",
        f"""acc {{
  a = f32[] parameter(0)
  b = {element}[] parameter(1)
  c = f32[] convert(b)
  ROOT s = f32[] add(a, c)
}}""",
    )
    # XLA:CPU's verifier rejects mixed precision, so there is no oracle for this one.
    np.testing.assert_array_equal(run(text, x), [1000, 1000])


def test_variadic_argmax_reduce_as_jax_emits_it():
    x = np.array([[1, 5, 5, 2], [np.nan, 1, np.nan, 9], [-np.inf, -np.inf, -np.inf, -np.inf],
                  [0, 3, 7, 7]], np.float32)  # fmt: skip
    text = module(
        """  x = f32[4,4] parameter(0)
  iota = s32[4] iota(), iota_dimension=0
  idx = s32[4,4] broadcast(iota), dimensions={1}
  ninf = f32[] constant(-inf)
  zero = s32[] constant(0)
  ROOT r = (f32[4], s32[4]) reduce(x, idx, ninf, zero), dimensions={1}, to_apply=argmax""",
        ARGMAX,
    )
    values, indices = run(text, x)
    np.testing.assert_array_equal(indices, [1, 0, 0, 2])
    np.testing.assert_array_equal(values, [5, np.nan, -np.inf, 7])
    for got, want in zip((values, indices), oracle()(text, [x]), strict=True):
        np.testing.assert_array_equal(got, want)


def test_reduce_float_sums_match_xla_within_rounding():
    x = np.random.default_rng(0).standard_normal((3, 1000, 7)).astype(np.float32)
    text = module(
        """  x = f32[3,1000,7] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[7] reduce(x, z), dimensions={0,1}, to_apply=add""",
        ADD,
    )
    got = run(text, x)
    np.testing.assert_allclose(got, x.astype(np.float64).sum(axis=(0, 1)), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(got, oracle()(text, [x])[0], rtol=1e-5, atol=1e-4)


def test_reduce_with_non_default_layouts():
    import xlapy
    from xlapy.backends.interpreter import InterpreterBackend, InterpreterOptions
    from xlapy.hlo import parse_module

    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    text = module(
        """  x = f32[2,3,4]{0,2,1} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[2,4]{0,1} reduce(x, z), dimensions={1}, to_apply=add""",
        ADD,
    )
    executable = InterpreterBackend().compile(parse_module(text), InterpreterOptions())
    result = executable.execute([xlapy.Literal.from_numpy(x, layout=(0, 2, 1))])
    np.testing.assert_array_equal(result.to_numpy(), x.sum(axis=1))
    np.testing.assert_array_equal(result.data, x.sum(axis=1).T.ravel())


# -- reduce-window ---------------------------------------------------------------------------


def test_reduce_window_2x3_max_pool_spec_example():
    x = np.random.default_rng(2).integers(-50, 50, (4, 6)).astype(np.float32)
    text = module(
        """  x = f32[4,6] parameter(0)
  init = f32[] constant(-inf)
  ROOT r = f32[2,2] reduce-window(x, init), window={size=2x3 stride=2x3}, to_apply=max""",
        MAX,
    )
    np.testing.assert_array_equal(run(text, x), x.reshape(2, 2, 2, 3).max(axis=(1, 3)))


def test_reduce_window_valid_and_same_padding_spec_example():
    x = np.array([10000, 1000, 100, 10, 1], np.float32)
    text = module(
        """  x = f32[5] parameter(0)
  init = f32[] constant(3.40282347e+38)
  valid = f32[2] reduce-window(x, init), window={size=3 stride=2}, to_apply=min
  same = f32[3] reduce-window(x, init), window={size=3 stride=2 pad=1_1}, to_apply=min
  ROOT r = (f32[2], f32[3]) tuple(valid, same)""",
        MIN,
    )
    valid, same = run(text, x)
    np.testing.assert_array_equal(valid, [100, 1])
    np.testing.assert_array_equal(same, [1000, 10, 1])


@pytest.fixture(params=["stacked", "one by one"])
def window_strategy(request, monkeypatch):
    """Run a test with both ways reduce-window combines a window's elements."""
    if request.param == "one by one":
        monkeypatch.setattr(reductions, "_STACK_LIMIT", 0)
    return request.param


def test_cumulative_sum_as_jax_emits_it(window_strategy):
    """jax.lax.cumsum on CPU: a reduce-window whose low padding is the window size - 1."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    text = module(
        """  x = f32[3,4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[3,4] reduce-window(x, z), window={size=1x4 pad=0_0x3_0}, to_apply=add""",
        ADD,
    )
    np.testing.assert_array_equal(run(text, x), np.cumsum(x, axis=1))


def test_variadic_reduce_window_argmax(window_strategy):
    x = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3], np.float32)
    text = module(
        """  x = f32[10] parameter(0)
  idx = s32[10] iota(), iota_dimension=0
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  ROOT r = (f32[5], s32[5]) reduce-window(x, idx, ninf, m1), window={size=3 stride=2 pad=1_0}, to_apply=argmax""",
        ARGMAX,
    )
    values, indices = run(text, x)
    padded = np.concatenate([[-np.inf], x])
    windows = np.array([padded[2 * i : 2 * i + 3] for i in range(5)])
    np.testing.assert_array_equal(values, windows.max(axis=1))
    np.testing.assert_array_equal(indices, 2 * np.arange(5) + windows.argmax(axis=1) - 1)
    for got, want in zip((values, indices), oracle()(text, [x]), strict=True):
        np.testing.assert_array_equal(got, want)


def ref_reduce_window(x, init, fn, window):
    """Every window position, element by element: base dilation holes and padding are init."""
    sizes, strides, pads, base, wdil = window
    out_shape = []
    for n, w, s, (lo, hi), b, d in zip(x.shape, sizes, strides, pads, base, wdil, strict=True):
        span = lo + ((n - 1) * b + 1 if n else 0) + hi
        extent = (w - 1) * d + 1
        out_shape.append(0 if span < extent else (span - extent) // s + 1)
    result = np.zeros(out_shape, x.dtype)
    for out in np.ndindex(*out_shape):
        acc = init
        for k in np.ndindex(*sizes):
            value = init
            at = []
            for o, kk, s, (lo, _), b, d, n in zip(
                out, k, strides, pads, base, wdil, x.shape, strict=True
            ):
                p = o * s + kk * d - lo
                at.append(p // b if p >= 0 and p % b == 0 and p // b < n else None)
            if None not in at:
                value = x[tuple(at)]
            acc = fn(acc, value)
        result[out] = acc
    return result


def window_text(window):
    sizes, strides, pads, base, wdil = window
    x = "x".join
    return (f"size={x(map(str, sizes))} stride={x(map(str, strides))} "
            f"pad={x(f'{lo}_{hi}' for lo, hi in pads)} lhs_dilate={x(map(str, base))} "
            f"rhs_dilate={x(map(str, wdil))}")  # fmt: skip


@st.composite
def windows(draw):
    rank = draw(st.integers(1, 3))
    size = st.integers(0, 9).map(lambda v: 0 if v == 0 else 1 + (v - 1) % 5)  # 0 now and then
    shape = draw(st.lists(size, min_size=rank, max_size=rank))
    sizes = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    strides = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    base = draw(st.lists(st.integers(1, 2), min_size=rank, max_size=rank))
    wdil = draw(st.lists(st.integers(1, 2), min_size=rank, max_size=rank))
    pads = []
    for n, b in zip(shape, base, strict=True):
        dilated = (n - 1) * b + 1 if n else 0
        lo = draw(st.integers(-min(dilated, 2), 2))
        hi = draw(st.integers(-min(dilated + lo, 2), 2))
        pads.append((lo, hi))
    op = draw(st.sampled_from(["add", "max"]))
    return shape, (sizes, strides, pads, base, wdil), op, draw(st.integers(0, 2**32 - 1))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(windows())
def test_reduce_window_random_configurations(config):
    shape, window, op, seed = config
    x = np.random.default_rng(seed).integers(-9, 9, shape).astype(np.float32)
    init = np.float32(0 if op == "add" else -100)
    fn = {"add": lambda a, b: a + b, "max": max}[op]
    want = ref_reduce_window(x, init, fn, window)
    dims = ",".join(map(str, want.shape))
    text = module(
        f"""  x = f32[{",".join(map(str, shape))}] parameter(0)
  init = f32[] parameter(1)
  ROOT r = f32[{dims}] reduce-window(x, init), window={{{window_text(window)}}}, to_apply={op}""",
        ADD,
        MAX,
    )
    np.testing.assert_array_equal(run(text, x, init), want)
    np.testing.assert_array_equal(oracle()(text, [x, init])[0], want)


# -- select-and-scatter ----------------------------------------------------------------------


GE = """
ge {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GE
}
"""


def ref_select_and_scatter(x, source, init, sizes, strides, pads):
    result = np.full(x.shape, init, x.dtype)
    for out in np.ndindex(*source.shape):
        best = None
        for k in np.ndindex(*sizes):
            at = tuple(
                o * s + kk - lo for o, s, kk, (lo, _) in zip(out, strides, k, pads, strict=True)
            )
            if all(0 <= a < n for a, n in zip(at, x.shape, strict=True)):
                if best is None or not x[best] >= x[at]:
                    best = at
        if best is not None:
            result[best] += source[out]
    return result


@pytest.mark.parametrize(
    "shape, sizes, strides, pads",
    [((4, 6), (2, 3), (2, 3), ((0, 0), (0, 0))),
     ((4, 5), (3, 3), (1, 2), ((1, 1), (0, 1))),  # overlapping windows collide
     ((5,), (3,), (1,), ((2, 2),)),  # windows entirely in the padding select nothing
     ((3, 3), (2, 2), (1, 1), ((0, 0), (0, 0)))],
)  # fmt: skip
def test_select_and_scatter_max_pool_gradient(shape, sizes, strides, pads):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, shape).astype(np.float32)  # ties: the first in the window wins
    out = [
        (n + lo + hi - w) // s + 1
        for n, w, s, (lo, hi) in zip(shape, sizes, strides, pads, strict=True)
    ]
    source = rng.integers(1, 9, out).astype(np.float32)
    want = ref_select_and_scatter(x, source, np.float32(0), sizes, strides, pads)
    window = (f"size={'x'.join(map(str, sizes))} stride={'x'.join(map(str, strides))} "
              f"pad={'x'.join(f'{lo}_{hi}' for lo, hi in pads)}")  # fmt: skip
    text = module(
        f"""  x = f32[{",".join(map(str, shape))}] parameter(0)
  s = f32[{",".join(map(str, out))}] parameter(1)
  z = f32[] constant(0)
  ROOT r = f32[{",".join(map(str, shape))}] select-and-scatter(x, s, z), window={{{window}}}, select=ge, scatter=add""",
        GE,
        ADD,
    )
    np.testing.assert_array_equal(run(text, x, source), want)
    np.testing.assert_array_equal(oracle()(text, [x, source])[0], want)


# -- map -------------------------------------------------------------------------------------


def test_map_binary_constant_and_rank_zero():
    text = module(
        """  x = f32[2,3] parameter(0)
  y = f32[2,3] parameter(1)
  s = s32[] parameter(2)
  a = f32[2,3] map(x, y), dimensions={0,1}, to_apply=fma
  b = s32[2,3] map(x), dimensions={0,1}, to_apply=seven
  c = s32[] map(s), dimensions={}, to_apply=inc
  ROOT r = (f32[2,3], s32[2,3], s32[]) tuple(a, b, c)""",
        """fma {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  m = f32[] multiply(a, b)
  ROOT c = f32[] add(m, a)
}""",
        """seven {
  a = f32[] parameter(0)
  ROOT c = s32[] constant(7)
}""",
        """inc {
  a = s32[] parameter(0)
  one = s32[] constant(1)
  ROOT c = s32[] add(a, one)
}""",
    )
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    y = x + 1
    a, b, c = run(text, x, y, np.int32(4))
    np.testing.assert_array_equal(a, x * y + x)
    np.testing.assert_array_equal(b, np.full((2, 3), 7))
    assert c == 5


# -- sort ------------------------------------------------------------------------------------


def compare(name, t, direction, kind=""):
    extra = f", type={kind}" if kind else ""
    return f"""{name} {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  ROOT c = pred[] compare(a, b), direction={direction}{extra}
}}
"""


def test_sort_spec_example_three_operands():
    text = module(
        """  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  c = f32[2] parameter(2)
  ROOT r = (s32[2], s32[2], f32[2]) sort(a, b, c), dimensions={0}, to_apply=lt3""",
        """lt3 {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  c0 = f32[] parameter(4)
  c1 = f32[] parameter(5)
  ROOT lt = pred[] compare(a0, a1), direction=LT
}""",
    )
    a, b, c = run(text, np.array([3, 1], np.int32), np.array([42, 50], np.int32),
                  np.array([-3.0, 1.1], np.float32))  # fmt: skip
    np.testing.assert_array_equal(a, [1, 3])
    np.testing.assert_array_equal(b, [50, 42])
    np.testing.assert_array_equal(c, np.array([1.1, -3.0], np.float32))


@pytest.mark.parametrize("t", ["s32", "u8", "u64", "s4", "pred", "f16", "bf16"])
@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_sort_is_stable_for_every_key_type_both_ways(t, direction):
    """Keys with many ties, carried indices: the order of the ties is the input order."""
    dtype = {"s32": np.int32, "u8": np.uint8, "u64": np.uint64, "s4": ml_dtypes.int4,
             "pred": np.bool_, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[t]  # fmt: skip
    keys = np.random.default_rng(4).integers(0, 2 if t == "pred" else 5, (3, 40)).astype(dtype)
    kind = "TOTALORDER" if t in ("f16", "bf16") else ""
    text = module(
        f"""  k = {t}[3,40] parameter(0)
  i = s32[3,40] iota(), iota_dimension=1
  ROOT r = ({t}[3,40], s32[3,40]) sort(k, i), dimensions={{1}}, is_stable=true, to_apply=cmp""",
        f"""cmp {{
  a = {t}[] parameter(0)
  b = {t}[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction={direction}{", type=" + kind if kind else ""}
}}""",
    )
    got_keys, got_index = run(text, keys)
    wide = keys.astype(np.float64)
    order = np.argsort(wide if direction == "LT" else -wide, axis=1, kind="stable")
    np.testing.assert_array_equal(got_index, order)
    np.testing.assert_array_equal(got_keys, np.take_along_axis(keys, order, axis=1))


@pytest.mark.parametrize("direction", ["LT", "GT"])
def test_sort_total_order_of_floats_matches_xla(direction):
    """-NaN < -inf < ... < -0 < +0 < ... < inf < NaN, ties kept in input order."""
    x = np.array([[0.0, -0.0, np.nan, 1, -np.inf, -np.nan, np.inf, -0.0, 1, np.nan, 0.0, -2]],
                 np.float32)  # fmt: skip
    text = module(
        """  x = f32[1,12] parameter(0)
  i = s32[1,12] iota(), iota_dimension=1
  ROOT r = (f32[1,12], s32[1,12]) sort(x, i), dimensions={1}, is_stable=true, to_apply=cmp""",
        f"""cmp {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT r = pred[] compare(a, b), direction={direction}, type=TOTALORDER
}}""",
    )
    values, index = run(text, x)
    want = [5, 4, 11, 1, 7, 0, 10, 3, 8, 6, 2, 9]
    if direction == "GT":  # stable descending: ties still in input order
        want = [2, 9, 6, 3, 8, 0, 10, 1, 7, 11, 4, 5]
    np.testing.assert_array_equal(index[0], want)
    for got, expected in zip((values, index), oracle()(text, [x]), strict=True):
        np.testing.assert_array_equal(got.view(np.int32) if got.dtype == np.float32 else got,
                                      expected.view(np.int32) if got.dtype == np.float32 else expected)  # fmt: skip


def test_sort_with_jax_float_comparator_matches_xla():
    """The general (merge sort) path: NaNs last, -0 and 0 equal, stable."""
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 4, (4, 50)).astype(np.float32)
    x[x == 3] = np.nan
    x[x == -3] = -0.0
    text = module(
        """  x = f32[4,50] parameter(0)
  i = s32[4,50] iota(), iota_dimension=1
  ROOT r = (f32[4,50], s32[4,50]) sort(x, i), dimensions={1}, is_stable=true, to_apply=jax_lt""",
        JAX_FLOAT_LT,
    )
    values, index = run(text, x)
    key = np.where(np.isnan(x), np.inf, x) + 0.0  # nan after inf: sort by (is_nan, value)
    order = np.lexsort((key, np.isnan(x)), axis=1)
    np.testing.assert_array_equal(index, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, axis=1))
    for got, want in zip((values, index), oracle()(text, [x]), strict=True):
        np.testing.assert_array_equal(got, want)


def test_sort_along_dimension_zero_with_lexicographic_keys():
    """jax.lax.sort with num_keys=2: ties of the first key are ordered by the second."""
    a = np.array([[2, 1], [1, 1], [2, 0], [1, 1]], np.int32)
    b = np.array([[5, 3], [7, 2], [1, 9], [6, 2]], np.int32)
    text = module(
        """  a = s32[4,2] parameter(0)
  b = s32[4,2] parameter(1)
  ROOT r = (s32[4,2], s32[4,2]) sort(a, b), dimensions={0}, to_apply=lex""",
        """lex {
  a0 = s32[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  lt = pred[] compare(a0, a1), direction=LT
  eq = pred[] compare(a0, a1), direction=EQ
  lt2 = pred[] compare(b0, b1), direction=LT
  tie = pred[] and(eq, lt2)
  ROOT r = pred[] or(lt, tie)
}""",
    )
    got_a, got_b = run(text, a, b)
    order = np.lexsort((b, a), axis=0)
    np.testing.assert_array_equal(got_a, np.take_along_axis(a, order, axis=0))
    np.testing.assert_array_equal(got_b, np.take_along_axis(b, order, axis=0))


def test_computations_that_cannot_run_batched_run_per_element():
    """A reshape inside makes the reducer and comparator non-elementwise: one call per element."""
    x = np.random.default_rng(8).integers(0, 9, (3, 17)).astype(np.float32)
    text = module(
        """  x = f32[3,17] parameter(0)
  z = f32[] constant(0)
  s = f32[3] reduce(x, z), dimensions={1}, to_apply=add_reshaped
  o = f32[3,17] sort(x), dimensions={1}, to_apply=gt_reshaped
  ROOT r = (f32[3], f32[3,17]) tuple(s, o)""",
        """add_reshaped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[1] reshape(b)
  d = f32[] reshape(c)
  ROOT e = f32[] add(a, d)
}""",
        """gt_reshaped {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = f32[1] reshape(b)
  d = f32[] reshape(c)
  ROOT e = pred[] compare(a, d), direction=GT
}""",
    )
    total, ordered = run(text, x)
    np.testing.assert_array_equal(total, x.sum(axis=1))
    np.testing.assert_array_equal(ordered, -np.sort(-x, axis=1))


def test_sort_large_general_path_and_degenerate_sizes():
    x = np.random.default_rng(6).standard_normal(2000).astype(np.float32)
    text = module(
        """  x = f32[2000] parameter(0)
  ROOT r = f32[2000] sort(x), dimensions={0}, to_apply=lt""",
        compare("lt", "f32", "LT"),  # a FLOAT compare: the merge sort path
    )
    np.testing.assert_array_equal(run(text, x), np.sort(x))
    text = module(
        """  e = f32[3,0] parameter(0)
  one = f32[1,3] parameter(1)
  a = f32[3,0] sort(e), dimensions={1}, to_apply=lt
  b = f32[1,3] sort(one), dimensions={0}, to_apply=lt
  ROOT r = (f32[3,0], f32[1,3]) tuple(a, b)""",
        compare("lt", "f32", "LT"),
    )
    one = np.array([[3, 1, 2]], np.float32)
    a, b = run(text, np.zeros((3, 0), np.float32), one)
    assert a.shape == (3, 0)
    np.testing.assert_array_equal(b, one)


# -- top-k -----------------------------------------------------------------------------------


@pytest.mark.parametrize("largest", [True, False])
def test_topk_ties_nans_and_signed_zeros_match_xla(largest):
    x = np.array([[1, np.nan, -0.0, 0.0, 3, -np.nan, 3, 1],
                  [5, 4, 4, 4, -np.inf, np.inf, 0, 2]], np.float32)  # fmt: skip
    text = module(
        f"""  x = f32[2,8] parameter(0)
  ROOT r = (f32[2,5], s32[2,5]) topk(x), k=5, largest={"true" if largest else "false"}"""
    )
    values, indices = run(text, x)
    for got, want in zip((values, indices), oracle()(text, [x]), strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.take_along_axis(x, indices, axis=1), values)
    if largest:
        np.testing.assert_array_equal(indices[1], [5, 0, 1, 2, 3])  # ties: lower index first


@pytest.mark.parametrize("t", ["s32", "u16", "s8", "bf16", "f64"])
def test_topk_integer_and_float_types(t):
    dtype = {"s32": np.int32, "u16": np.uint16, "s8": np.int8, "bf16": ml_dtypes.bfloat16,
             "f64": np.float64}[t]  # fmt: skip
    x = np.random.default_rng(7).integers(0, 6, (3, 2, 9)).astype(dtype)
    text = module(
        f"""  x = {t}[3,2,9] parameter(0)
  ROOT r = ({t}[3,2,4], s32[3,2,4]) topk(x), k=4, largest=true"""
    )
    values, indices = run(text, x)
    order = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :4]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, axis=-1))
    assert values.dtype == dtype and indices.dtype == np.int32


def test_topk_k_zero_and_one_dimensional():
    text = module(
        """  x = f32[4] parameter(0)
  a = (f32[0], s32[0]) topk(x), k=0, largest=true
  b = (f32[2], s32[2]) topk(x), k=2, largest=false
  av = f32[0] get-tuple-element(a), index=0
  bv = f32[2] get-tuple-element(b), index=0
  bi = s32[2] get-tuple-element(b), index=1
  ROOT r = (f32[0], f32[2], s32[2]) tuple(av, bv, bi)"""
    )
    av, bv, bi = run(text, np.array([4, 2, 3, 1], np.float32))
    assert av.shape == (0,)
    np.testing.assert_array_equal(bv, [1, 2])
    np.testing.assert_array_equal(bi, [3, 1])
