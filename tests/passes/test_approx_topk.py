"""ApproxTopkExpander: XLA's ApproxTopK custom call as an exact sort + slices."""

from __future__ import annotations

import numpy as np
import pytest

from xlapy.backends import cpu
from xlapy.backends.interpreter import run
from xlapy.errors import InvalidArgumentError
from xlapy.hlo import parse_module as parse_hlo
from xlapy.opcode import HloOpcode
from xlapy.passes import ApproxTopkExpander
from xlapy.stablehlo import parse_module

jax = pytest.importorskip("jax")

RNG = np.random.default_rng(11)


def _expanded(module):
    assert ApproxTopkExpander().run(module)
    assert not [
        i for c in module.computations for i in c.instructions
        if i.opcode is HloOpcode.CUSTOM_CALL
    ]  # fmt: skip
    return module


CASES = [
    ("max_k3", lambda a: jax.lax.approx_max_k(a, 3), (3, 8), np.float32),
    (
        "min_k2_dim0",
        lambda a: jax.lax.approx_min_k(a, 2, reduction_dimension=0),
        (5, 4),
        np.float32,
    ),
    (
        "min_no_aggregate",
        lambda a: jax.lax.approx_min_k(
            a, 2, reduction_dimension=0, recall_target=0.9, aggregate_to_topk=False
        ),  # fmt: skip
        (3, 8),
        np.float32,
    ),
    (
        "max_f64_rank3",
        lambda a: jax.lax.approx_max_k(a, 4, reduction_dimension=1),
        (2, 9, 3),
        np.float64,
    ),
    ("max_f16", lambda a: jax.lax.approx_max_k(a, 2), (4, 6), np.float16),
]


@pytest.mark.parametrize("fn, shape, dtype", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_approx_topk_matches_jax_on_both_backends(fn, shape, dtype):
    x = (RNG.permutation(np.prod(shape)).reshape(shape) / 4).astype(dtype)  # no ties
    with jax.enable_x64(dtype == np.float64):
        lowered = jax.jit(fn).lower(x)
        expected = [np.asarray(v) for v in jax.jit(fn)(x)]
        text = lowered.as_text()
    assert "ApproxTopK" in text
    for backend in (run, cpu.run):
        got = backend(_expanded(parse_module(text)), x)
        for e, g in zip(expected, got, strict=True):
            np.testing.assert_array_equal(g, e)


def test_hlo_text_form_with_to_apply():
    text = """
HloModule m

gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  ROOT c = pred[] compare(a, b), direction=GT
}

ENTRY main {
  x = f32[2,6]{1,0} parameter(0)
  iota = s32[2,6]{1,0} iota(), iota_dimension=1
  ninf = f32[] constant(-inf)
  m1 = s32[] constant(-1)
  ROOT t = (f32[2,2]{1,0}, s32[2,2]{1,0}) custom-call(x, iota, ninf, m1), custom_call_target="ApproxTopK", to_apply=gt, backend_config={aggregate_to_topk = true, reduction_dim = 1 : i64, top_k = 2 : i64}
}
"""
    x = RNG.standard_normal((2, 6)).astype(np.float32)
    order = np.argsort(-x, axis=1, kind="stable")[:, :2]
    for backend in (run, cpu.run):
        values, indices = backend(_expanded(parse_hlo(text)), x)
        np.testing.assert_array_equal(indices, order)
        np.testing.assert_array_equal(values, np.take_along_axis(x, order, axis=1))


def test_malformed_calls_are_clear_errors():
    base = """
HloModule m

gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT c = pred[] compare(a, b), direction=GT
}

ENTRY main {
  x = f32[2,6]{1,0} parameter(0)
  ninf = f32[] constant(-inf)
  ROOT t = f32[2,RESULT]{1,0} custom-call(x, ninf), custom_call_target="ApproxTopK", to_apply=gt, backend_config={reduction_dim = 1 : i64, top_k = 2 : i64}
}
"""
    with pytest.raises(InvalidArgumentError, match="ApproxTopK.*does not fit input"):
        ApproxTopkExpander().run(parse_hlo(base.replace("RESULT", "7")))
    odd = base.replace("custom-call(x, ninf)", "custom-call(x)").replace("RESULT", "2")
    with pytest.raises(InvalidArgumentError, match="n inputs and n init values, got 1"):
        ApproxTopkExpander().run(parse_hlo(odd))
