"""Bounded dynamic dimensions as XLA defines them, on both backends.

A dimension ``<=6`` holds any size from 0 to 6; the elements past the size are
padding that no result may see. The interpreter carries values at their dynamic
sizes; the CPU backend runs buffers at their bounds with the sizes beside them
(``passes/expand/dynamic_padder.py``). The expected numbers of the first table
are XLA's (XLA:CPU through jaxlib 0.10.2, ``xlapy.testing.xla_oracle``), stored
here so the tests need no JAX; a result with a dynamic dimension is compared at
its dynamic size, which is how PjRt hands it back (and how XLA's literal lays it
out: the valid elements first, row-major in the dynamic shape).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import xlapy
from xlapy.errors import InvalidArgumentError, ParseError, UnimplementedError
from xlapy.hlo import parse_module

PLATFORMS = ["interpreter", "cpu"]

COMPUTATIONS = """add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = f32[] maximum(a, b)
}
"""


def module(body: str) -> str:
    return "HloModule m\n" + COMPUTATIONS + "ENTRY e {\n" + body + "\n}\n"


def run(platform: str, text: str, *arguments):
    executable = xlapy.local_client(platform).compile(parse_module(text))
    if platform == "cpu":
        assert executable.fallback_ops == []
    return executable(*arguments)


X = np.arange(20, dtype=np.float32).reshape(4, 5)
Y = (np.arange(15, dtype=np.float32).reshape(5, 3) - 7) / 2
SET = """  x = f32[4,5] parameter(0)
  n = s32[] parameter(1)
  d = f32[4,<=5] set-dimension-size(x, n), dimensions={1}
"""

# name -> (entry body, arguments after x and n, XLA's results for n = 3)
XLA_CASES = {
    # issue 18: the size is 3 and the sum covers 3 columns (xlapy said 5 and [10,35,60,85])
    "reduce": (
        SET
        + """  g = s32[] get-dimension-size(d), dimensions={1}
  z = f32[] constant(0)
  r = f32[4] reduce(d, z), dimensions={1}, to_apply=add
  ROOT t = (s32[], f32[4]) tuple(g, r)""",
        [],
        [3, [3.0, 18.0, 33.0, 48.0]],
    ),
    "elementwise": (
        SET
        + """  m = f32[4,<=5] multiply(d, d)
  e = f32[4,<=5] negate(m)
  z = f32[] constant(-inf)
  r = f32[4] reduce(e, z), dimensions={1}, to_apply=max
  s = f32[4,<=5] add(d, x)
  z0 = f32[] constant(0)
  q = f32[4] reduce(s, z0), dimensions={1}, to_apply=add
  ROOT t = (f32[4], f32[4]) tuple(r, q)""",
        [],
        [[-0.0, -25.0, -100.0, -225.0], [6.0, 36.0, 66.0, 96.0]],
    ),
    "concatenate": (
        SET
        + """  c = f32[4,<=10] concatenate(d, d), dimensions={1}
  g = s32[] get-dimension-size(c), dimensions={1}
  ROOT t = (s32[], f32[4,<=10]) tuple(g, c)""",
        [],
        [6, [[0, 1, 2, 0, 1, 2], [5, 6, 7, 5, 6, 7], [10, 11, 12, 10, 11, 12], [15, 16, 17, 15, 16, 17]]],
    ),
    "dot_contracting": (
        SET
        + """  y = f32[5,3] parameter(2)
  e = f32[<=5,3] set-dimension-size(y, n), dimensions={0}
  a = f32[4,3] dot(d, e), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  b = f32[4,3] dot(d, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[4,3], f32[4,3]) tuple(a, b)""",
        [Y],
        [[[-3.0, -1.5, 0.0], [-33.0, -24.0, -15.0], [-63.0, -46.5, -30.0], [-93.0, -69.0, -45.0]]]
        * 2,
    ),
    "dot_free": (
        """  x = f32[4,5] parameter(0)
  n = s32[] parameter(1)
  y = f32[5,3] parameter(2)
  d = f32[<=4,5] set-dimension-size(x, n), dimensions={0}
  a = f32[<=4,3] dot(d, y), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  g = s32[] get-dimension-size(a), dimensions={0}
  ROOT t = (s32[], f32[<=4,3]) tuple(g, a)""",
        [Y],
        [3, [[10.0, 15.0, 20.0], [-2.5, 15.0, 32.5], [-15.0, 15.0, 45.0]]],
    ),
    "pad": (
        SET
        + """  v = f32[] constant(-1)
  p = f32[4,<=12] pad(d, v), padding=0_0x1_2_1
  g = s32[] get-dimension-size(p), dimensions={1}
  ROOT t = (s32[], f32[4,<=12]) tuple(g, p)""",
        [],
        [
            8,
            [
                [-1, 0, -1, 1, -1, 2, -1, -1],
                [-1, 5, -1, 6, -1, 7, -1, -1],
                [-1, 10, -1, 11, -1, 12, -1, -1],
                [-1, 15, -1, 16, -1, 17, -1, -1],
            ],
        ],
    ),
    "slice_transpose": (
        SET
        + """  s = f32[4,<=4] slice(d), slice={[0:4], [1:5]}
  t = f32[<=4,4] transpose(s), dimensions={1,0}
  z = f32[] constant(0)
  r = f32[4] reduce(t, z), dimensions={0}, to_apply=add
  g = s32[] get-dimension-size(t), dimensions={0}
  ROOT o = (s32[], f32[4]) tuple(g, r)""",
        [],
        [2, [3.0, 13.0, 23.0, 33.0]],
    ),
    "broadcast_reshape": (
        SET
        + """  b = f32[2,4,<=5] broadcast(d), dimensions={1,2}
  r = f32[8,<=5] reshape(b)
  z = f32[] constant(0)
  s = f32[8] reduce(r, z), dimensions={1}, to_apply=add
  g = s32[] get-dimension-size(r), dimensions={1}
  ROOT o = (s32[], f32[8]) tuple(g, s)""",
        [],
        [3, [3.0, 18.0, 33.0, 48.0] * 2],
    ),
}


@pytest.mark.parametrize("platform", PLATFORMS)
@pytest.mark.parametrize("case", sorted(XLA_CASES))
def test_dynamic_programs_give_xla_answers(platform, case):
    body, extra, want = XLA_CASES[case]
    got = run(platform, module(body), X, np.int32(3), *extra)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, np.asarray(w, dtype=g.dtype))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_dynamic_reshape_gives_xla_answer(platform):
    text = module(
        """  x = f32[2,6] parameter(0)
  a = s32[] constant(4)
  b = s32[] constant(3)
  ROOT r = f32[4,<=3] dynamic-reshape(x, a, b)"""
    )
    got = run(platform, text, np.arange(12, dtype=np.float32).reshape(2, 6))
    np.testing.assert_array_equal(got, np.arange(12, dtype=np.float32).reshape(4, 3))


JAX_TEXT = Path(__file__).parent / "data" / "hlo_corpus" / "raw_dynamic_shapes.hlo"


@pytest.mark.parametrize("platform", PLATFORMS)
def test_jax_dynamic_reshape_of_a_dynamic_operand(platform):
    """JAX's HLO (``lax`` set_dimension_size, then reshape into ``<=14``) with the reshaped
    value returned too: XLA gives the valid elements row-major in the dynamic shape."""
    text = JAX_TEXT.read_text()
    text = text.replace(
        "ROOT corpus_dynamic_shapes.17 = s32[] add(",
        "a = s32[] add(",
    ).replace("->s32[]}", "->(s32[], f32[<=14]{0})}")
    text = text.rstrip().rstrip("}") + (
        "  ROOT t = (s32[], f32[<=14]{0}) tuple(a, corpus_dynamic_shapes.15)\n}\n"
    )
    executable = xlapy.local_client(platform).compile(parse_module(text))
    x = np.arange(14, dtype=np.float32).reshape(2, 7)
    xla = {0: (0, []), 3: (9, [0, 1, 2, 7, 8, 9]), 7: (21, list(range(14)))}
    for n, (total, flat) in xla.items():
        got_total, got_flat = executable(x, np.int32(n))
        assert int(got_total) == total
        np.testing.assert_array_equal(got_flat, np.float32(flat))
    if platform == "cpu":
        assert executable.fallback_ops == []
        padded = executable.hlo_module_after_optimizations
        assert padded.dynamic_signature.result_sizes == [(1, 0)]
        assert not any(i.opcode.value == "get-dimension-size" for i in padded.instructions())


def test_dynamic_reshape_bounds_must_hold_the_operand():
    """XLA (CreateDynamicReshape) requires equal element counts of the bounds."""
    text = module(
        """  x = f32[2,6] parameter(0)
  a = s32[] constant(4)
  b = s32[] constant(3)
  ROOT r = f32[4,<=6] dynamic-reshape(x, a, b)"""
    )
    with pytest.raises(ParseError, match=r"f32\[4,<=6\] holds 24 elements.*f32\[2,6\] holds 12"):
        parse_module(text)


# -- bounded parameters ----------------------------------------------------------------------

BOUNDED = module(
    """  x = f32[<=6] parameter(0)
  z = f32[] constant(0)
  y = f32[<=6] add(x, x)
  r = f32[] reduce(x, z), dimensions={0}, to_apply=add
  g = s32[] get-dimension-size(x), dimensions={0}
  ROOT t = (f32[<=6], f32[], s32[]) tuple(y, r, g)"""
)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_bounded_parameter_takes_every_size_up_to_its_bound(platform):
    executable = xlapy.local_client(platform).compile(parse_module(BOUNDED))
    for n in range(7):
        x = np.arange(1, n + 1, dtype=np.float32)
        y, r, g = executable(x)
        np.testing.assert_array_equal(y, 2 * x)  # comes back at its dynamic size
        assert float(r) == x.sum() and int(g) == n
    with pytest.raises(
        InvalidArgumentError, match=r"argument 0 \(x\).*f32\[<=6\].*size 7, more than its bound 6"
    ):
        executable(np.zeros(7, np.float32))
    with pytest.raises(InvalidArgumentError, match=r"expected f32\[<=6\], got s32"):
        executable(np.zeros(3, np.int32))


@pytest.mark.parametrize("platform", PLATFORMS)
def test_bounded_matrix_parameter_keeps_static_dimensions_checked(platform):
    text = module(
        """  x = f32[<=4,3] parameter(0)
  w = f32[3,2] parameter(1)
  ROOT d = f32[<=4,2] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}"""
    )
    executable = xlapy.local_client(platform).compile(parse_module(text))
    w = np.float32([[1, 2], [3, 4], [5, 6]])
    for n in (0, 2, 4):
        x = np.arange(3 * n, dtype=np.float32).reshape(n, 3)
        np.testing.assert_array_equal(executable(x, w), x @ w)
    with pytest.raises(InvalidArgumentError, match="dimension 1 has size 2; it is static, of size 3"):
        executable(np.zeros((2, 2), np.float32), w)


@pytest.mark.parametrize("platform", PLATFORMS)
def test_growing_a_size_uncovers_zeros(platform):
    """XLA leaves the uncovered elements unspecified; both backends make them zeros."""
    text = module(
        SET
        + """  four = s32[] constant(4)
  e = f32[4,<=5] set-dimension-size(d, four), dimensions={1}
  ROOT r = f32[4,<=5] add(e, e)"""
    )
    got = run(platform, text, X, np.int32(2))
    want = np.zeros((4, 4), np.float32)
    want[:, :2] = 2 * X[:, :2]
    np.testing.assert_array_equal(got, want)


def test_cpu_refuses_ops_that_would_read_padding():
    text = module(
        SET
        + """  ROOT r = f32[4,<=5] reverse(d), dimensions={1}"""
    )
    with pytest.raises(UnimplementedError, match="reverse .*dynamic size"):
        run("cpu", text, X, np.int32(3))
    # The interpreter carries the value at its size, so it reverses the valid part.
    np.testing.assert_array_equal(run("interpreter", text, X, np.int32(3)), X[:, 2::-1])


# -- every size: CPU == interpreter == numpy on the valid part ------------------------------

EVERY_OP_BODY = """  z = f32[] constant(0)
  sum = f32[4] reduce(d, z), dimensions={1}, to_apply=add
  ninf = f32[] constant(-inf)
  top = f32[4] reduce(d, ninf), dimensions={1}, to_apply=max
  e = f32[<=5,3] set-dimension-size(y, n), dimensions={0}
  dot = f32[4,3] dot(d, e), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  c = f32[4,<=10] concatenate(d, x), dimensions={1}
  v = f32[] constant(-1)
  p = f32[4,<=11] pad(d, v), padding=0_0x1_1_1
  m = f32[4,<=5] multiply(d, x)
  ROOT t = (f32[4], f32[4], f32[4,3], f32[4,<=10], f32[4,<=11], f32[4,<=5]) tuple(sum, top, dot, c, p, m)"""

# The size set inside the program, or given by a bounded parameter's argument.
EVERY_OP = {
    "set-dimension-size": module(SET + """  y = f32[5,3] parameter(2)\n""" + EVERY_OP_BODY),
    "bounded parameter": module(
        """  d = f32[4,<=5] parameter(0)
  n = s32[] parameter(1)
  y = f32[5,3] parameter(2)
  x = f32[4,5] parameter(3)
"""
        + EVERY_OP_BODY
    ),
}


def numpy_every_op(x: np.ndarray, n: int, y: np.ndarray) -> list[np.ndarray]:
    d = x[:, :n]
    padded = np.full((4, 2 + n + max(n - 1, 0)), -1, np.float32)  # low 1, interior 1, high 1
    padded[:, 1 : 1 + 2 * n : 2] = d
    return [
        d.sum(axis=1),
        d.max(axis=1, initial=-np.inf),
        d @ y[:n],
        np.concatenate([d, x], axis=1),
        padded,
        d * x[:, :n],
    ]


@pytest.mark.parametrize("where", sorted(EVERY_OP))
@settings(max_examples=3, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_every_size_agrees_on_both_backends_and_numpy(where, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 5)).astype(np.float32)
    y = rng.standard_normal((5, 3)).astype(np.float32)
    executables = [
        xlapy.local_client(platform).compile(parse_module(EVERY_OP[where]))
        for platform in PLATFORMS
    ]
    for n in range(6):  # every size from 0 to the bound
        if where == "bounded parameter":
            arguments = (x[:, :n], np.int32(n), y, x)
        else:
            arguments = (x, np.int32(n), y)
        interpreter, cpu = (e(*arguments) for e in executables)
        for a, b, want in zip(cpu, interpreter, numpy_every_op(x, n, y), strict=True):
            assert a.shape == b.shape == want.shape
            np.testing.assert_allclose(a, want, rtol=1e-5, atol=1e-5)
            np.testing.assert_allclose(b, want, rtol=1e-5, atol=1e-5)
