"""The vectorizable exp, log, expm1 and tanh against numpy, within the ULP bounds that
``math_approx`` documents, with exact special values (NaN, infinities, zeros, denormals)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from xlapy.backends.cpu import math_approx
from xlapy.testing.cpu_kernels import elementwise_kernel
from xlapy.types import PrimitiveType as P

# name -> (numpy reference, sampling range, max ULPs for f32, max ULPs for f64)
FUNCTIONS = {
    "exponential": (np.exp, (-110.0, 90.0), 1, 1),
    "log": (np.log, None, 3, 3),
    "tanh": (np.tanh, (-12.0, 12.0), 3, 3),
    "exponential-minus-one": (np.expm1, (-30.0, 30.0), 2, 2),
}
TYPES = {P.F32: np.float32, P.F64: np.float64}
_kernels: dict = {}


def kernel(name, et):
    if (name, et) not in _kernels:
        fn = math_approx.APPROXIMATIONS[name]
        _kernels[name, et] = elementwise_kernel(lambda b, v: fn(b, v[0]), [et], et)
    return _kernels[name, et]


def reference(name, xs, dtype):
    with np.errstate(all="ignore"):
        return FUNCTIONS[name][0](xs.astype(np.float64)).astype(dtype)


def ulps(got, want, dtype):
    finite = np.isfinite(want)
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    if not finite.any():
        return 0.0
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    spacing = np.spacing(np.abs(want[finite])).astype(np.float64)
    return float(np.max(np.abs(g - w) / spacing))


def samples(name, dtype, n=200_000):
    rng = np.random.default_rng(7)
    if FUNCTIONS[name][1] is None:
        low = -140 if dtype == np.float32 else -700
        xs = np.exp(rng.uniform(low, 80, n))
    else:
        xs = rng.uniform(*FUNCTIONS[name][1], n)
    tiny = np.finfo(dtype).smallest_subnormal
    edges = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, tiny, -tiny, 1e-30, -1e-30]
    return np.concatenate([xs, edges]).astype(dtype)


@pytest.mark.parametrize("et", TYPES, ids=lambda t: t.hlo_name)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_within_documented_ulps(name, et):
    dtype = TYPES[et]
    xs = samples(name, dtype)
    got = kernel(name, et)(xs)
    bound = FUNCTIONS[name][2 if et is P.F32 else 3]
    assert ulps(got, reference(name, xs, dtype), dtype) <= bound


@settings(max_examples=60, deadline=None)
@given(st.floats(width=32, allow_nan=True, allow_infinity=True), st.sampled_from(sorted(FUNCTIONS)))
def test_any_f32_value(x, name):
    xs = np.array([x], np.float32)
    got = kernel(name, P.F32)(xs)
    assert ulps(got, reference(name, xs, np.float32), np.float32) <= FUNCTIONS[name][2]


def test_signed_zeros_survive():
    for name in ("tanh", "exponential-minus-one"):
        got = kernel(name, P.F32)(np.array([-0.0, 0.0], np.float32))
        assert np.signbit(got).tolist() == [True, False], name
