"""xlapy.jax.jit: a JAX function runs on xlapy unchanged, pytrees in and out, cached per
signature as jax.jit caches."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import xlapy.jax as xjax  # noqa: E402
from xlapy.errors import InvalidArgumentError  # noqa: E402


def _mlp_step(params, x, y, lr):
    def loss(p):
        h = jnp.tanh(x @ p["w1"] + p["b1"])
        return jnp.mean((h @ p["w2"] - y) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree_util.tree_map(lambda p, g: p - lr * g, params, grads)


@pytest.mark.parametrize("platform", ["cpu", "interpreter"])
def test_a_training_step_matches_jax(platform):
    rng = np.random.default_rng(0)
    params = {
        "w1": rng.standard_normal((4, 8), np.float32),
        "b1": np.zeros(8, np.float32),
        "w2": rng.standard_normal((8, 2), np.float32),
    }
    x = rng.standard_normal((16, 4), np.float32)
    y = rng.standard_normal((16, 2), np.float32)
    step = xjax.jit(_mlp_step, static_argnums=3, platform=platform)
    value, new = step(params, x, y, 0.1)
    want_value, want = jax.jit(_mlp_step, static_argnums=3)(params, x, y, 0.1)
    assert isinstance(new, dict) and set(new) == {"w1", "b1", "w2"}
    np.testing.assert_allclose(value, want_value, rtol=1e-5)
    for k in new:
        assert isinstance(new[k], np.ndarray) and new[k].dtype == np.float32
        np.testing.assert_allclose(new[k], want[k], rtol=1e-5, atol=1e-6)


def test_compiles_once_per_signature():
    f = xjax.jit(lambda x, n: x * n, static_argnames="n")
    a = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(f(a, n=2), a * 2)
    np.testing.assert_array_equal(f(a + 1, n=2), (a + 1) * 2)
    assert f.cache_size == 1
    np.testing.assert_array_equal(f(a, n=3), a * 3)  # a new static value
    np.testing.assert_array_equal(f(np.arange(4, dtype=np.float32), n=3), np.arange(4) * 3)
    assert f.cache_size == 3
    f(np.arange(3, dtype=np.int32), n=3)  # a new dtype
    assert f.cache_size == 4


def test_decorator_forms_nested_outputs_and_the_module():
    @xjax.jit
    def f(x, pair):
        a, b = pair
        return {"sum": x + a, "parts": (x * b, jnp.sort(x))}

    x = np.array([3.0, 1.0, 2.0], np.float32)
    out = f(x, (np.float32(1.0), np.ones(3, np.float32)))
    np.testing.assert_array_equal(out["sum"], x + 1)
    np.testing.assert_array_equal(out["parts"][0], x)
    np.testing.assert_array_equal(out["parts"][1], np.sort(x))
    module = f.lower(x, (np.float32(1.0), np.ones(3, np.float32)))
    assert "sort" in module.to_text()


def test_unused_arguments_and_python_scalars():
    f = xjax.jit(lambda x, unused, s: x + s)
    x = np.ones(2, np.float32)
    np.testing.assert_array_equal(f(x, np.zeros(5), 2.0), x + 2)
    assert f(x, np.zeros(5), 2.0).dtype == np.float32  # a weakly typed Python scalar


def test_bad_static_arguments_are_clear():
    with pytest.raises(InvalidArgumentError, match="static_argnums"):
        xjax.jit(lambda x, n: x * n, static_argnums=5)
    f = xjax.jit(lambda *xs: xs[0], static_argnums=3)
    with pytest.raises(InvalidArgumentError, match="static_argnums names argument 3"):
        f(np.ones(2), 2)
    g = xjax.jit(lambda x, n: x, static_argnums=1)
    with pytest.raises(InvalidArgumentError, match="hashable"):
        g(np.ones(2), [1, 2])


def test_denormals_are_flushed_as_on_xla_cpu_unless_asked_otherwise():
    x = np.array([1e-39, 3e-39, -2e-40, 1.0], np.float32)

    def double(v):
        return v * np.float32(2.0)

    want = np.asarray(jax.jit(double)(x))  # XLA:CPU flushes: [0, 0, -0, 2]
    got = xjax.jit(double)(x)
    np.testing.assert_array_equal(got.view(np.uint32), want.view(np.uint32))
    ieee = xjax.jit(double, flush_denormals=False)(x)
    np.testing.assert_array_equal(ieee, x * np.float32(2.0))
    assert ieee[0] != 0
