"""Generate the JAX corpus: whole JAX programs with JAX's own results, run by tests without JAX.

Each program below is a small JAX function with fixed, seeded inputs. For each we write, into
``tests/data/jax_corpus/``:

* ``NAME.mlir`` -- the StableHLO that ``jax.jit(f).lower(*args).as_text()`` prints (for a
                   shape-polymorphic program: the module ``jax.export`` writes with symbolic
                   dimensions, which the importer must refine from the concrete arguments)
* ``NAME.hlo``  -- the HLO text of the same program, ``.compiler_ir('hlo').as_hlo_text()``
* ``NAME.npz``  -- ``in_0, in_1, ...`` (the arguments, flattened in pytree order, as the
                   lowered module takes them) and ``out_0, out_1, ...`` (what ``jax.jit(f)``
                   returned on XLA:CPU, flattened the same way)

plus ``MANIFEST.json``: per program its group, forms, input/output dtypes and shapes, the
custom-call targets in its HLO text, and its tolerances.

Tolerances (``rtol``/``atol`` per program, from its least precise floating output): XLA and
xlapy may sum in another order, fuse differently and use other (documented, <= 3 ULP)
approximations of the transcendental functions, so results are compared with
``|got - want| <= atol + rtol * |want|``. f16/bf16: 1e-2; f32/c64: rtol 2e-4, atol 2e-5
(a few ULPs times the depth of the longest chain of rounding ops in these small programs,
with room for reassociated dot/reduce sums); f64/c128: rtol 1e-9, atol 1e-11. Integers,
booleans and random bits compare exactly. Linear-algebra programs get ``LINALG_SCALE`` times
the float tolerance: their inputs are well conditioned by construction (condition number
below ~10), so a backward-stable LAPACK answer agrees to a few times the tolerance.
Decompositions are stored raw (signs and phases of Q, U, V, eigenvectors as XLA:CPU's LAPACK
returns them): the same routines with the same conventions give the same values, and a
backend that differs there does not run JAX programs unchanged.

Programs with 64-bit types are lowered under ``jax.enable_x64(True)``, scoped to that program.
The output is deterministic for a given JAX version (seeded inputs, no source locations).

Run: ``.venv/bin/python tools/gen_jax_corpus.py [--out DIR] [--only NAME,NAME]``.
"""

from __future__ import annotations

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import jax.scipy.linalg as jsl  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax import scipy as jsp  # noqa: E402
from jax.sharding import Mesh, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "tests" / "data" / "jax_corpus"

TOLERANCES = {  # (rtol, atol) by the output's element kind; see the module docstring
    "f16": (1e-2, 1e-2), "bf16": (1e-2, 1e-2),
    "f32": (2e-4, 2e-5), "c64": (2e-4, 2e-5),
    "f64": (1e-9, 1e-11), "c128": (1e-9, 1e-11),
}
LINALG_SCALE = 10.0
DTYPE_NAMES = {
    np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
    np.dtype(np.complex64): "c64", np.dtype(np.complex128): "c128", np.dtype(np.bool_): "pred",
    np.dtype(np.int8): "s8", np.dtype(np.int32): "s32", np.dtype(np.int64): "s64",
    np.dtype(np.uint8): "u8", np.dtype(np.uint32): "u32", np.dtype(np.uint64): "u64",
}
NP_DTYPES = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    group: str
    fn: Callable
    make_args: Callable[[np.random.Generator], tuple]
    x64: bool = False
    symbolic: tuple[str, ...] | None = None  # jax.export shape specs, one per argument
    tol_scale: float = 1.0


PROGRAMS: list[Program] = []


def program(group, make_args, *, name=None, x64=False, symbolic=None, tol_scale=1.0):
    def register(fn):
        PROGRAMS.append(Program(name or fn.__name__, group, fn, make_args, x64, symbolic,
                                tol_scale))
        return fn
    return register


def normal(rng, shape, dtype=np.float32):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        part = np.float32 if dtype == np.complex64 else np.float64
        return (rng.standard_normal(shape).astype(part)
                + 1j * rng.standard_normal(shape).astype(part)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# -- models -------------------------------------------------------------------------------

def _mlp_params(rng, dtype=np.float32):
    return {"w1": normal(rng, (8, 16), dtype) * 0.3, "b1": np.zeros(16, dtype),
            "w2": normal(rng, (16, 3), dtype) * 0.3, "b2": np.zeros(3, dtype)}


def _mlp_loss(p, x, y):
    h = jax.nn.relu(x @ p["w1"] + p["b1"])
    logits = h @ p["w2"] + p["b2"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))


def _onehot(rng, n, k, dtype=np.float32):
    return np.eye(k, dtype=dtype)[rng.integers(0, k, n)]


@program("models", lambda r: (_mlp_params(r), normal(r, (12, 8)), _onehot(r, 12, 3)))
def mlp_sgd_step(params, x, y):
    loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
    return loss, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


@program("models", lambda r: (_mlp_params(r, np.float64), normal(r, (12, 8), np.float64),
                              _onehot(r, 12, 3, np.float64)), x64=True)
def mlp_sgd_step_f64(params, x, y):
    loss, grads = jax.value_and_grad(_mlp_loss)(params, x, y)
    return loss, jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)


def _adam_args(r):
    p = _mlp_params(r)
    zeros = jax.tree_util.tree_map(np.zeros_like, p)
    return p, zeros, dict(zeros), np.int32(3), normal(r, (12, 8)), _onehot(r, 12, 3)


@program("models", _adam_args)
def mlp_adam_step(params, m, v, step, x, y):
    b1, b2, lr, eps = 0.9, 0.999, 1e-2, 1e-8
    loss, g = jax.value_and_grad(_mlp_loss)(params, x, y)
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
    t = (step + 1).astype(jnp.float32)
    def update(p, m, v):
        mh, vh = m / (1 - b1 ** t), v / (1 - b2 ** t)
        return p - lr * mh / (jnp.sqrt(vh) + eps)
    return loss, jax.tree_util.tree_map(update, params, m, v), m, v


def _cnn_args(r):
    return ({"k1": normal(r, (3, 3, 2, 4)) * 0.3, "k2": normal(r, (3, 3, 4, 4)) * 0.3,
             "w": normal(r, (4, 5)) * 0.3},
            normal(r, (2, 8, 8, 2)), _onehot(r, 2, 5))


def _cnn_loss(p, x, y):
    dn = ("NHWC", "HWIO", "NHWC")
    h = jax.nn.relu(lax.conv_general_dilated(x, p["k1"], (1, 1), "SAME", dimension_numbers=dn))
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.gelu(lax.conv_general_dilated(h, p["k2"], (2, 2), ((1, 1), (1, 1)),
                                             dimension_numbers=dn))
    h = jnp.mean(h, axis=(1, 2))
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(h @ p["w"]) * y, -1))


@program("models", _cnn_args)
def cnn_forward_grad(params, x, y):
    return jax.value_and_grad(_cnn_loss)(params, x, y)


def _block_args(r, d=8, t=6):
    return ({"wq": normal(r, (d, d)) * 0.3, "wk": normal(r, (d, d)) * 0.3,
             "wv": normal(r, (d, d)) * 0.3, "wo": normal(r, (d, d)) * 0.3,
             "g1": np.ones(d, np.float32), "g2": np.ones(d, np.float32),
             "w1": normal(r, (d, 4 * d)) * 0.3, "w2": normal(r, (4 * d, d)) * 0.3},
            normal(r, (2, t, d)))


def _layer_norm(x, g):
    mu = jnp.mean(x, -1, keepdims=True)
    var = jnp.var(x, -1, keepdims=True)
    return (x - mu) * lax.rsqrt(var + 1e-5) * g


def _block(p, x, heads=2):
    b, t, d = x.shape
    h = _layer_norm(x, p["g1"])
    def split(w):
        return (h @ w).reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)
    q, k, v = split(p["wq"]), split(p["wk"]), split(p["wv"])
    s = jnp.einsum("bhqd,bhkd->bhqk", q, k) / np.sqrt(d // heads)
    s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, -1e9)
    a = jnp.einsum("bhqk,bhkd->bhqd", jax.nn.softmax(s, -1), v)
    x = x + a.transpose(0, 2, 1, 3).reshape(b, t, d) @ p["wo"]
    return x + jax.nn.gelu(_layer_norm(x, p["g2"]) @ p["w1"]) @ p["w2"]


@program("models", _block_args)
def transformer_block(params, x):
    return _block(params, x)


@program("models", _block_args)
def transformer_block_grad(params, x):
    return jax.grad(lambda p: jnp.sum(_block(p, x) ** 2))(params)


def _rnn_args(r):
    return ({"wx": normal(r, (3, 5)) * 0.5, "wh": normal(r, (5, 5)) * 0.5,
             "b": np.zeros(5, np.float32)}, normal(r, (7, 3)), np.zeros(5, np.float32))


def _rnn(p, xs, h0):
    def cell(h, x):
        h = jnp.tanh(x @ p["wx"] + h @ p["wh"] + p["b"])
        return h, h
    return lax.scan(cell, h0, xs)


@program("models", _rnn_args)
def scan_rnn(params, xs, h0):
    return _rnn(params, xs, h0)


@program("models", _rnn_args)
def scan_rnn_grad(params, xs, h0):
    return jax.grad(lambda p: jnp.sum(_rnn(p, xs, h0)[1] ** 2))(params)


@program("models", lambda r: (_mlp_params(r), normal(r, (6, 8)), _onehot(r, 6, 3)))
def vmap_per_example_grads(params, x, y):
    return jax.vmap(jax.grad(_mlp_loss), in_axes=(None, 0, 0))(params, x[:, None], y[:, None])


@program("models", lambda r: (normal(r, (4,)),))
def hessian_and_jacobians(x):
    f = lambda x: jnp.sum(jnp.sin(x) * x ** 2) + jnp.prod(x)  # noqa: E731
    g = lambda x: jnp.stack([jnp.sum(x ** 3), jnp.dot(x, jnp.cos(x))])  # noqa: E731
    return jax.hessian(f)(x), jax.jacfwd(g)(x), jax.jacrev(g)(x)


@program("models", lambda r: (normal(r, (3, 7)) * 3, np.array([0, 2, 6], np.int32)))
def jax_nn_functions(x, labels):
    nn = jax.nn
    return (nn.relu(x), nn.relu6(x), nn.gelu(x), nn.gelu(x, approximate=False), nn.silu(x),
            nn.softplus(x), nn.sigmoid(x), nn.log_sigmoid(x), nn.elu(x), nn.selu(x),
            nn.leaky_relu(x), nn.hard_tanh(x), nn.softmax(x), nn.log_softmax(x),
            nn.logsumexp(x, axis=1), nn.one_hot(labels, 7), nn.standardize(x, axis=-1),
            nn.celu(x), nn.glu(x[:, :6]), nn.sparse_plus(x))


# -- linear algebra -----------------------------------------------------------------------

def _spd(r, n, dtype):
    a = normal(r, (n, n), dtype)
    return (a @ a.conj().T / n + np.eye(n, dtype=dtype)).astype(dtype)


def _well(r, n, dtype, m=None):
    return (normal(r, (m or n, n), dtype) + 4 * np.eye(m or n, n, dtype=dtype)).astype(dtype)


def _herm(r, n, dtype):
    a = normal(r, (n, n), dtype)
    return ((a + a.conj().T) / 2).astype(dtype)


def linalg_program(base, make_args, dtypes=("f32", "f64", "c64", "c128")):
    def register(fn):
        for dt in dtypes:
            np_dtype = NP_DTYPES[dt]
            PROGRAMS.append(Program(
                f"{base}_{dt}", "linalg", fn,
                lambda r, np_dtype=np_dtype: make_args(r, np_dtype),
                x64=dt in ("f64", "c128"), tol_scale=LINALG_SCALE))
        return fn
    return register


@linalg_program("linalg_solve_inv_det", lambda r, d: (_well(r, 4, d), normal(r, (4, 2), d)))
def _solve_inv_det(a, b):
    sign, logdet = jnp.linalg.slogdet(a)
    return (jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a), sign, logdet,
            jsl.solve(a, b), jsl.inv(a), jsl.det(a))


@linalg_program("linalg_qr", lambda r, d: (normal(r, (5, 3), d),))
def _qr(a):
    q, r = jnp.linalg.qr(a)
    qc, rc = jnp.linalg.qr(a, mode="complete")
    return q, r, qc, rc, jnp.linalg.qr(a, mode="r"), jsl.qr(a.T, mode="economic")


@linalg_program("linalg_eigh", lambda r, d: (_herm(r, 4, d),))
def _eigh(a):
    w, v = jnp.linalg.eigh(a)
    return w, v, jnp.linalg.eigvalsh(a), jsl.eigh(a, eigvals_only=True)


@linalg_program("linalg_svd", lambda r, d: (normal(r, (5, 3), d),))
def _svd(a):
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    uf, sf, vhf = jnp.linalg.svd(a)
    return (u, s, vh, uf, sf, vhf, jnp.linalg.svd(a, compute_uv=False), jnp.linalg.pinv(a),
            jnp.linalg.matrix_rank(a), jnp.linalg.norm(a, 2), jnp.linalg.norm(a, "nuc"),
            jnp.linalg.cond(a))


@linalg_program("linalg_cholesky", lambda r, d: (_spd(r, 4, d), normal(r, (4, 2), d)))
def _cholesky(a, b):
    c, low = jsl.cho_factor(a, lower=True)
    return (jnp.linalg.cholesky(a), jsl.cholesky(a), jsl.cholesky(a, lower=True),
            jsl.cho_solve((c, low), b))


@linalg_program("linalg_solve_triangular",
                lambda r, d: (_well(r, 4, d), normal(r, (4, 2), d)))
def _solve_triangular(a, b):
    return (jsl.solve_triangular(a, b, lower=True), jsl.solve_triangular(a, b, trans=1),
            jsl.solve_triangular(a, b, lower=True, unit_diagonal=True),
            lax.linalg.triangular_solve(a, b.T, left_side=False, lower=False))


@linalg_program("linalg_lu", lambda r, d: (normal(r, (4, 4), d), normal(r, (4, 2), d)))
def _lu(a, b):
    p, l, u = jsl.lu(a)
    lu, piv = jsl.lu_factor(a)
    return p, l, u, lu, piv, jsl.lu_solve((lu, piv), b)


@linalg_program("linalg_lstsq", lambda r, d: (normal(r, (6, 3), d), normal(r, (6, 2), d)))
def _lstsq(a, b):
    x, resid, rank, s = jnp.linalg.lstsq(a, b)
    return x, resid, rank, s


@linalg_program("linalg_eig", lambda r, d: (_well(r, 4, d),))
def _eig(a):
    w, v = jnp.linalg.eig(a)
    return w, v, jnp.linalg.eigvals(a)


@linalg_program("linalg_schur_hessenberg", lambda r, d: (normal(r, (4, 4), d),))
def _schur(a):
    t, z = jsl.schur(a)
    h, q = jsl.hessenberg(a, calc_q=True)
    return t, z, h, q


@linalg_program("linalg_matfuncs", lambda r, d: (normal(r, (4, 4), d) * 0.5,))
def _matfuncs(a):
    return (jsl.expm(a), jnp.linalg.matrix_power(a, 5), jnp.linalg.matrix_power(a + 3 * jnp.eye(4, dtype=a.dtype), -2),
            jnp.linalg.norm(a), jnp.linalg.norm(a, 1), jnp.linalg.norm(a, -jnp.inf),
            jnp.linalg.norm(a[0]), jnp.linalg.norm(a[0], 3))


@linalg_program("linalg_tridiagonal",
                lambda r, d: (normal(r, (5,), d), normal(r, (5,), d) + 4, normal(r, (5,), d),
                              normal(r, (5, 2), d)))
def _tridiagonal(dl, d, du, b):
    dl = dl.at[0].set(0)
    du = du.at[-1].set(0)
    return lax.linalg.tridiagonal_solve(dl, d, du, b)


@linalg_program("linalg_eigh_tridiagonal",
                lambda r, d: (normal(r, (5,), d), normal(r, (4,), d)), dtypes=("f32",))
def _eigh_tridiagonal(d, e):
    return jsl.eigh_tridiagonal(d, e, eigvals_only=True)


# -- random -------------------------------------------------------------------------------

def _key_args(impl):
    def make(r):
        return (np.asarray(jax.random.key_data(jax.random.key(42, impl=impl))),)
    return make


def _random_draws(raw, impl, which):
    key = jax.random.wrap_key_data(raw, impl=impl)
    logits = jnp.log(jnp.array([0.1, 0.2, 0.3, 0.4], jnp.float32))
    draws = {
        "uniform": lambda k: jax.random.uniform(k, (3, 4)),
        "normal": lambda k: jax.random.normal(k, (5,)),
        "bernoulli": lambda k: jax.random.bernoulli(k, 0.3, (8,)),
        "categorical": lambda k: jax.random.categorical(k, logits, shape=(6,)),
        "permutation": lambda k: jax.random.permutation(k, 10),
        "randint": lambda k: jax.random.randint(k, (4,), 0, 100),
    }
    keys = jax.random.split(key, len(which))
    return tuple(draws[w](k) for w, k in zip(which, keys, strict=True))


@program("random", _key_args("threefry2x32"))
def random_threefry(raw):
    return _random_draws(raw, "threefry2x32",
                         ("uniform", "normal", "bernoulli", "categorical", "permutation"))


@program("random", _key_args("rbg"))
def random_rbg(raw):
    return _random_draws(raw, "rbg", ("uniform", "normal", "randint"))


@program("random", _key_args("unsafe_rbg"))
def random_unsafe_rbg(raw):
    return _random_draws(raw, "unsafe_rbg", ("uniform", "bernoulli"))


@program("random", _key_args("threefry2x32"), x64=True)
def random_threefry_f64(raw):
    key = jax.random.wrap_key_data(raw, impl="threefry2x32")
    k1, k2 = jax.random.split(key)
    return jax.random.uniform(k1, (4,), jnp.float64), jax.random.normal(k2, (4,), jnp.float64)


# -- sorting ------------------------------------------------------------------------------

@program("sorting", lambda r: (normal(r, (4, 9)), r.integers(0, 5, (4, 9)).astype(np.int32)))
def sort_argsort(x, keys):
    return (jnp.sort(x, axis=-1), jnp.sort(x, axis=0, descending=True), jnp.argsort(keys, -1),
            jnp.argsort(x, axis=0, descending=True), lax.sort((keys, x), num_keys=1),
            jnp.lexsort((x, keys)), jnp.median(x, axis=1), jnp.unique_values(keys[0], size=5,
                                                                             fill_value=-1))


@program("sorting", lambda r: (normal(r, (3, 16)),))
def top_k(x):
    v, i = lax.top_k(x, 4)
    return v, i, jnp.partition(x, 3, axis=-1)[:, 3]


@program("sorting", lambda r: (normal(r, (3, 32)),))
def approx_max_k(x):
    return lax.approx_max_k(x, 4), lax.approx_min_k(x, 2)


# -- fft ----------------------------------------------------------------------------------

def _fft_all(x, c):
    return (jnp.fft.fft(c), jnp.fft.ifft(c), jnp.fft.rfft(x), jnp.fft.irfft(jnp.fft.rfft(x)),
            jnp.fft.irfft(c, n=10), jnp.fft.fft2(c), jnp.fft.ifft2(c), jnp.fft.rfft2(x),
            jnp.fft.fftn(c, axes=(0,)), jnp.fft.fftshift(jnp.fft.fftfreq(8)))


@program("fft", lambda r: (normal(r, (4, 8)), normal(r, (4, 8), np.complex64)))
def fft_c64(x, c):
    return _fft_all(x, c)


@program("fft", lambda r: (normal(r, (4, 6), np.float64), normal(r, (4, 6), np.complex128)),
         x64=True)
def fft_c128(x, c):
    return _fft_all(x, c)


# -- control flow -------------------------------------------------------------------------

@program("control", lambda r: (np.float32(1.5), np.int32(10)))
def while_loop(x, n):
    def body(s):
        i, v = s
        return i + 1, jnp.where(v > 4, v / 2, v * 3 + 1)
    return lax.while_loop(lambda s: s[0] < n, body, (0, x))


@program("control", lambda r: (normal(r, (5,)), np.int32(2), np.bool_(True)))
def cond_switch(x, i, p):
    branches = [jnp.sin, jnp.cos, lambda v: v ** 2, jnp.exp]
    a = lax.switch(i, branches, x)
    b = lax.cond(p, lambda v: v.sum(), lambda v: v.prod(), x)
    c = lax.switch(i + 5, branches, x)  # clamped to the last branch
    return a, b, c


@program("control", lambda r: (normal(r, (4,)),))
def fori_loop(x):
    def body(i, v):
        return v * 0.9 + jnp.sin(v + i)
    fixed = lax.fori_loop(0, 6, body, x)
    unrolled = lax.fori_loop(0, 3, body, x, unroll=True)
    m = lax.map(lambda v: jnp.cumsum(v) * v, jnp.stack([x, 2 * x]))
    return fixed, unrolled, m


@program("control", lambda r: (normal(r, (6,)),))
def associative_scan_cumulative(x):
    return (lax.associative_scan(jnp.add, x), jnp.cumsum(x), jnp.cumprod(x),
            lax.cummax(x), lax.cumlogsumexp(x))


# -- sharding on one device ---------------------------------------------------------------

def _mesh():
    return Mesh(np.array(jax.devices()[:1]), ("x",))


@program("sharding", lambda r: (normal(r, (4, 8)), normal(r, (8, 3))))
def shard_map_matmul(a, b):
    mesh = _mesh()
    def local(a, b):
        return lax.psum(a @ b, "x"), a * 2
    return jax.shard_map(local, mesh=mesh, in_specs=(P("x", None), P()),
                         out_specs=(P(), P("x", None)))(a, b)


@program("sharding", lambda r: (normal(r, (4, 8)),))
def with_sharding_constraint(x):
    s = NamedSharding(_mesh(), P("x", None))
    y = lax.with_sharding_constraint(jnp.sin(x), s)
    return lax.with_sharding_constraint(y @ y.T, NamedSharding(_mesh(), P()))


def _sharded_jit(fn):
    s = NamedSharding(_mesh(), P("x"))
    return jax.jit(fn, in_shardings=(s, s), out_shardings=s, keep_unused=True)


@program("sharding", lambda r: (normal(r, (8,)), normal(r, (8,))))
def named_sharding_jit(x, y):
    return x * y + jnp.tanh(x)


# -- dynamic shapes (jax.export with symbolic dimensions) ---------------------------------

@program("dynamic", lambda r: (normal(r, (5, 4)),), symbolic=("n, 4",))
def dynamic_rows(x):
    return jnp.sum(jnp.sin(x) * 2, axis=0), x.T @ x, jnp.concatenate([x, x * 2], 0)


@program("dynamic", lambda r: (normal(r, (3, 6)), normal(r, (6,))), symbolic=("b, k", "k"))
def dynamic_matvec(a, v):
    return a @ v, jnp.max(a, axis=1), jnp.arange(a.shape[0]) * 2


@program("dynamic", lambda r: (normal(r, (4, 6)),), symbolic=("b, 6",))
def dynamic_reshape_slice(x):
    b = x.shape[0]
    return (x.reshape(-1), x.reshape(b * 2, 3), x[1:], x[:, ::2], jnp.cumsum(x, 0),
            jax.nn.softmax(x, axis=0), jnp.pad(x, ((1, 2), (0, 0))))


@program("dynamic", lambda r: (normal(r, (6, 3)),), symbolic=("2*k, 3",))
def dynamic_even_rows(x):
    k = x.shape[0] // 2
    return x.reshape(k, 6), x[:k] - x[k:], jnp.zeros((k + 1, 2), jnp.float32) + x[0, 0]


@program("dynamic", lambda r: (normal(r, (5, 8)), normal(r, (8, 4)),
                               np.array([4, 0, 2], np.int32)), symbolic=("b, 8", "8, 4", "m"))
def dynamic_batch_mlp(x, w, idx):
    h = jax.nn.relu(x @ w + 1.0)
    return (h, jnp.mean(h, axis=0), jnp.sort(x, axis=0), jnp.argmax(x, axis=0), x[idx],
            lax.fori_loop(0, 3, lambda i, c: c * 0.5 + jnp.tanh(c), h))


@program("dynamic", lambda r: (normal(r, (2, 6, 6, 3)), normal(r, (3, 3, 3, 4))),
         symbolic=("b, 6, 6, 3", "3, 3, 3, 4"))
def dynamic_conv_batch(x, k):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return y, jnp.max(y, axis=(1, 2))


# -- assorted array programs --------------------------------------------------------------

@program("arrays", lambda r: (normal(r, (5, 4)), np.array([3, 0, 3, 1], np.int32),
                              normal(r, (4, 4))))
def gather_scatter(x, idx, u):
    return (x[idx], x[idx, 1:3], x.at[idx].add(u), x.at[idx].set(u), x.at[idx, 0].max(u[:, 0]),
            jnp.take_along_axis(x, jnp.argsort(x, 0), 0), x[::-2, ::3],
            lax.dynamic_slice(x, (idx[0], 1), (2, 2)),
            lax.dynamic_update_slice(x, u[:2], (idx[1], 0)))


@program("arrays", lambda r: (normal(r, (2, 3, 4)), normal(r, (4, 5)), normal(r, (2, 5, 3))))
def einsum_dot(a, b, c):
    return (jnp.einsum("bij,jk->bik", a, b), jnp.einsum("bij,bki->bjk", a, c),
            jnp.tensordot(a, b, 1), jnp.linalg.multi_dot([a[0], b, c[0]]), jnp.trace(a[0, :, :3]),
            jnp.outer(b[0], b[1]), jnp.kron(b[:2, :2], b[2:, :2]))


@program("arrays", lambda r: (normal(r, (4, 6)) * 4,))
def mixed_precision(x):
    h = x.astype(jnp.float16)
    b = x.astype(jnp.bfloat16)
    i = x.astype(jnp.int8)
    return ((h * h + 1).astype(jnp.float32), (b @ b.T).astype(jnp.float32),
            (i // 3) % 5, jnp.round(x).astype(jnp.uint8), (x > 0) ^ (i < 2),
            jnp.nextafter(x, jnp.inf), jnp.clip(x, -1, 1))


@program("arrays", lambda r: (r.integers(-100, 100, (3, 5)).astype(np.int64),
                              r.integers(0, 2 ** 63, (4,), dtype=np.uint64)), x64=True)
def integer_ops_64(a, u):
    return (a * 3 - 7, a // 4, a % 7, jnp.left_shift(a, 3), a >> 2, jnp.abs(a), jnp.sign(a),
            u >> 5, u * np.uint64(3), jnp.bitwise_xor(u, u >> 7), lax.population_count(u),
            lax.clz(u), a.astype(jnp.float64) / 3, jnp.sum(a, 1), jnp.max(a, 0))


@program("arrays", lambda r: (normal(r, (6, 5)) * 2,))
def special_functions(x):
    a = jnp.abs(x) + 0.5
    return (jsp.special.erf(x), jsp.special.erfc(x), jsp.special.erfinv(jnp.tanh(x)),
            jsp.special.gammaln(a), jsp.special.digamma(a), jsp.special.expit(x),
            jsp.special.logit(jax.nn.sigmoid(x)), jsp.special.xlogy(a, a),
            jsp.special.i0e(x), jsp.special.i1e(x), jnp.arctan2(x, a), jnp.arcsinh(x), jnp.log1p(a),
            jnp.expm1(x), jnp.cbrt(x), jnp.hypot(x, a))


@program("arrays", lambda r: (normal(r, (4, 6)), normal(r, (4, 6), np.complex64)))
def complex_elementwise(x, c):
    return (jnp.exp(c), jnp.log(c), jnp.sqrt(c), jnp.abs(c), jnp.angle(c), c * c.conj(),
            c / (c + 1), jnp.sin(c), jnp.tanh(c), jnp.real(c) + x, jax.lax.complex(x, x),
            jnp.sum(c, 1), c @ c.T)


@program("arrays", lambda r: (normal(r, (2, 6, 6, 3)),))
def pooling_and_padding(x):
    return (lax.reduce_window(x, 0.0, lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME"),
            jnp.pad(x, ((0, 0), (1, 2), (0, 0), (0, 0)), mode="reflect")[:, :, 0, 0],
            jnp.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)), constant_values=-1.0).sum((1, 2)),
            jax.image.resize(x, (2, 3, 3, 3), "linear"),
            jnp.flip(x, 1)[:, 0, :, 0], jnp.roll(x, 2, axis=2)[:, :, 0, 0])


# -- the driver ---------------------------------------------------------------------------

_HLO_TARGET_RE = re.compile(r'custom_call_target="([^"]+)"')
# StableHLO custom calls, pretty (`stablehlo.custom_call @T(`) and generic (`call_target_name =
# "T"`), and the Shardy ops/attributes (`sdy.mesh`, `sdy.sharding_constraint`, ...).
_MLIR_TARGET_RE = re.compile(r'custom_call @([\w.$-]+)|call_target_name = "([^"]+)"|\b(sdy\.[a-z_]+)')


def custom_call_targets(hlo_text: str) -> list[str]:
    return sorted(set(_HLO_TARGET_RE.findall(hlo_text)))


def mlir_targets(mlir_text: str) -> list[str]:
    return sorted({a or b or c for a, b, c in _MLIR_TARGET_RE.findall(mlir_text)})


def _dtype_name(a: np.ndarray) -> str:
    return DTYPE_NAMES.get(a.dtype, str(a.dtype))


def _tolerance(p: Program, outs: list[np.ndarray]) -> tuple[float, float]:
    floats = [TOLERANCES[_dtype_name(o)] for o in outs if _dtype_name(o) in TOLERANCES]
    if not floats:
        return 0.0, 0.0
    rtol = max(t[0] for t in floats) * p.tol_scale
    atol = max(t[1] for t in floats) * p.tol_scale
    return rtol, atol


def _jitted(p: Program):
    if p.group == "sharding" and p.name == "named_sharding_jit":
        return _sharded_jit(p.fn)
    return jax.jit(p.fn, keep_unused=True)


def generate(p: Program) -> tuple[dict[str, str], list[np.ndarray], list[np.ndarray]]:
    with jax.enable_x64(True) if p.x64 else contextlib.nullcontext():
        args = p.make_args(np.random.default_rng(_seed(p.name)))
        jitted = _jitted(p)
        lowered = jitted.lower(*args)
        texts = {".hlo": lowered.compiler_ir("hlo").as_hlo_text()}
        if p.symbolic is None:
            texts[".mlir"] = lowered.as_text()
        else:
            specs = [jax.ShapeDtypeStruct(jax.export.symbolic_shape(s, scope=_SCOPE),
                                          np.asarray(a).dtype)
                     for s, a in zip(p.symbolic, args, strict=True)]
            texts[".mlir"] = jax.export.export(jitted)(*specs).mlir_module()
        outs = jitted(*args)
        ins = [np.asarray(a) for a in jax.tree_util.tree_leaves(args)]
        outs = [np.asarray(o) for o in jax.tree_util.tree_leaves(outs)]
    return texts, ins, outs


_SCOPE = jax.export.SymbolicScope()


def _seed(name: str) -> int:
    return sum((i + 1) * ord(c) for i, c in enumerate(name))  # stable across runs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--only", default="", help="comma-separated program names")
    ap.add_argument("--verbose-errors", action="store_true")
    args = ap.parse_args(argv)

    names = [p.name for p in PROGRAMS]
    assert len(set(names)) == len(names), "duplicate program names"
    only = {s for s in args.only.split(",") if s}
    if only - set(names):
        ap.error(f"unknown programs: {sorted(only - set(names))}")
    programs = [p for p in PROGRAMS if not only or p.name in only]

    args.out.mkdir(parents=True, exist_ok=True)
    manifest_path = args.out / "MANIFEST.json"
    entries: dict[str, dict] = {}
    if only and manifest_path.exists():
        entries = json.loads(manifest_path.read_text())["programs"]
    elif not only:  # a full run owns the directory
        for f in args.out.iterdir():
            if f.suffix in (".mlir", ".hlo", ".npz"):
                f.unlink()

    skipped: dict[str, str] = {}
    for p in programs:
        try:
            texts, ins, outs = generate(p)
        except Exception as e:  # a program JAX cannot lower on this machine is reported
            reason = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            skipped[p.name] = reason
            print(f"SKIP {p.name}: {reason}", file=sys.stderr)
            if args.verbose_errors:
                traceback.print_exc()
            continue
        for suffix, text in texts.items():
            (args.out / (p.name + suffix)).write_text(text)
        arrays = {f"in_{i}": a for i, a in enumerate(ins)}
        arrays.update({f"out_{i}": a for i, a in enumerate(outs)})
        np.savez_compressed(args.out / (p.name + ".npz"), **arrays)
        rtol, atol = _tolerance(p, outs)
        entries[p.name] = {
            "group": p.group,
            "forms": sorted(texts),
            "dynamic": p.symbolic is not None,
            "x64": p.x64,
            "inputs": [f"{_dtype_name(a)}{list(a.shape)}" for a in ins],
            "outputs": [f"{_dtype_name(a)}{list(a.shape)}" for a in outs],
            "custom_call_targets": custom_call_targets(texts[".hlo"]),
            "mlir_targets": mlir_targets(texts[".mlir"]),
            "rtol": rtol,
            "atol": atol,
        }

    targets = sorted({t for e in entries.values() for t in e["custom_call_targets"]})
    mlir_only = sorted({t for e in entries.values() for t in e["mlir_targets"]} - set(targets))
    manifest = {
        "generator": "tools/gen_jax_corpus.py",
        "jax_version": jax.__version__,
        "tolerances": {k: list(v) for k, v in TOLERANCES.items()},
        "linalg_scale": LINALG_SCALE,
        "custom_call_targets": targets,
        "mlir_only_targets": mlir_only,
        "skipped": skipped,
        "programs": dict(sorted(entries.items())),
    }
    rows = ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}"
                      for k, v in manifest["programs"].items())
    head = ",\n".join(f" {json.dumps(k)}: {json.dumps(v)}"
                      for k, v in manifest.items() if k != "programs")
    text = "{\n" + head + ',\n "programs": {\n' + rows + "\n }\n}\n"
    assert json.loads(text) == manifest
    manifest_path.write_text(text)

    size = sum(f.stat().st_size for f in args.out.iterdir())
    groups = sorted({e["group"] for e in entries.values()})
    print(f"{len(entries)} programs ({', '.join(groups)}), {len(skipped)} skipped, "
          f"{size / 1e6:.2f} MB in {args.out}")
    print(f"{len(targets)} distinct custom-call targets in the HLO texts: {' '.join(targets)}")
    print(f"only in the StableHLO texts (custom calls, Shardy ops): {' '.join(mlir_only)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
