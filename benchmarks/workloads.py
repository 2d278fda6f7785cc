"""The benchmark workloads, each defined once for xlapy, numpy and JAX.

xlapy programs are HLO text (the form JAX and XLA print, and one of xlapy's
front doors); ``scale`` shrinks the sizes for a quick run. Every workload
states the bytes it must move and the FLOPs it must do, so that a time can be
read as a fraction of the machine's limits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Workload:
    name: str
    hlo: str
    inputs: list[np.ndarray]
    numpy_fn: Callable[..., Any]
    jax_fn: Callable[..., Any] | None
    bytes_moved: float
    flops: float
    bound: str  # "memory", "compute" or "latency"
    rtol: float = 1e-4


def _rng() -> np.random.Generator:
    return np.random.default_rng(0)


_REDUCERS = """
add { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b) }
max { a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] maximum(a, b) }
"""


def ew_chain(scale: int) -> Workload:
    n = (16 << 20) // scale
    x = _rng().standard_normal(n, dtype=np.float32)
    a, b = np.float32(0.7), np.float32(-0.2)
    hlo = f"""HloModule ew_chain
ENTRY main {{
  x = f32[{n}] parameter(0)
  a = f32[] parameter(1)
  b = f32[] parameter(2)
  ab = f32[{n}] broadcast(a), dimensions={{}}
  bb = f32[{n}] broadcast(b), dimensions={{}}
  ax = f32[{n}] multiply(ab, x)
  axb = f32[{n}] add(ax, bb)
  t = f32[{n}] tanh(axb)
  xx = f32[{n}] multiply(x, x)
  nxx = f32[{n}] negate(xx)
  e = f32[{n}] exponential(nxx)
  te = f32[{n}] multiply(t, e)
  one = f32[] constant(1)
  ob = f32[{n}] broadcast(one), dimensions={{}}
  ROOT r = f32[{n}] add(te, ob)
}}"""
    return Workload(
        "ew_chain",
        hlo,
        [x, a, b],
        lambda x, a, b: np.tanh(a * x + b) * np.exp(-x * x) + 1,
        lambda jnp: lambda x, a, b: jnp.tanh(a * x + b) * jnp.exp(-x * x) + 1,
        8 * n,
        8 * n,
        "memory",
    )


def axpy(scale: int) -> Workload:
    n = (16 << 20) // scale
    rng = _rng()
    x, y = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    hlo = f"""HloModule axpy
ENTRY main {{
  a = f32[] parameter(0)
  x = f32[{n}] parameter(1)
  y = f32[{n}] parameter(2)
  ab = f32[{n}] broadcast(a), dimensions={{}}
  ax = f32[{n}] multiply(ab, x)
  ROOT r = f32[{n}] add(ax, y)
}}"""
    return Workload(
        "axpy",
        hlo,
        [np.float32(1.5), x, y],
        lambda a, x, y: a * x + y,
        lambda jnp: lambda a, x, y: a * x + y,
        12 * n,
        2 * n,
        "memory",
    )


def row_sums(scale: int) -> Workload:
    m = 4096 // int(scale**0.5)
    x = _rng().standard_normal((m, m), dtype=np.float32)
    hlo = f"""HloModule row_sums
{_REDUCERS}
ENTRY main {{
  x = f32[{m},{m}] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[{m}] reduce(x, z), dimensions={{1}}, to_apply=add
}}"""
    return Workload(
        "row_sums",
        hlo,
        [x],
        lambda x: x.sum(axis=1),
        lambda jnp: lambda x: jnp.sum(x, axis=1),
        4 * m * m,
        m * m,
        "memory",
        rtol=1e-3,
    )


def maximum(scale: int) -> Workload:
    n = (16 << 20) // scale
    x = _rng().standard_normal(n, dtype=np.float32)
    hlo = f"""HloModule max
{_REDUCERS}
ENTRY main {{
  x = f32[{n}] parameter(0)
  ninf = f32[] constant(-inf)
  ROOT r = f32[] reduce(x, ninf), dimensions={{0}}, to_apply=max
}}"""
    return Workload(
        "max", hlo, [x], lambda x: x.max(), lambda jnp: lambda x: jnp.max(x), 4 * n, n, "memory"
    )


def softmax(scale: int) -> Workload:
    rows, cols = 4096 // scale, 1024
    x = _rng().standard_normal((rows, cols), dtype=np.float32)
    hlo = f"""HloModule softmax
{_REDUCERS}
ENTRY main {{
  x = f32[{rows},{cols}] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[{rows}] reduce(x, ninf), dimensions={{1}}, to_apply=max
  mb = f32[{rows},{cols}] broadcast(m), dimensions={{0}}
  d = f32[{rows},{cols}] subtract(x, mb)
  e = f32[{rows},{cols}] exponential(d)
  z = f32[] constant(0)
  s = f32[{rows}] reduce(e, z), dimensions={{1}}, to_apply=add
  sb = f32[{rows},{cols}] broadcast(s), dimensions={{0}}
  ROOT r = f32[{rows},{cols}] divide(e, sb)
}}"""

    def np_softmax(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def jax_softmax(jnp: Any) -> Callable:
        def f(x: Any) -> Any:
            e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
            return e / jnp.sum(e, axis=1, keepdims=True)

        return f

    return Workload(
        "softmax", hlo, [x], np_softmax, jax_softmax, 8 * rows * cols, 5 * rows * cols, "memory"
    )


def layer_norm(scale: int) -> Workload:
    rows, cols = 4096 // scale, 1024
    rng = _rng()
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    gamma, beta = (
        rng.standard_normal(cols, dtype=np.float32),
        rng.standard_normal(cols, dtype=np.float32),
    )
    hlo = f"""HloModule layer_norm
{_REDUCERS}
ENTRY main {{
  x = f32[{rows},{cols}] parameter(0)
  g = f32[{cols}] parameter(1)
  bta = f32[{cols}] parameter(2)
  z = f32[] constant(0)
  n = f32[] constant({cols})
  s = f32[{rows}] reduce(x, z), dimensions={{1}}, to_apply=add
  nb = f32[{rows}] broadcast(n), dimensions={{}}
  mean = f32[{rows}] divide(s, nb)
  mb = f32[{rows},{cols}] broadcast(mean), dimensions={{0}}
  d = f32[{rows},{cols}] subtract(x, mb)
  dd = f32[{rows},{cols}] multiply(d, d)
  v = f32[{rows}] reduce(dd, z), dimensions={{1}}, to_apply=add
  var = f32[{rows}] divide(v, nb)
  eps = f32[] constant(1e-05)
  eb = f32[{rows}] broadcast(eps), dimensions={{}}
  ve = f32[{rows}] add(var, eb)
  inv = f32[{rows}] rsqrt(ve)
  ib = f32[{rows},{cols}] broadcast(inv), dimensions={{0}}
  y = f32[{rows},{cols}] multiply(d, ib)
  gb = f32[{rows},{cols}] broadcast(g), dimensions={{1}}
  bb = f32[{rows},{cols}] broadcast(bta), dimensions={{1}}
  yg = f32[{rows},{cols}] multiply(y, gb)
  ROOT r = f32[{rows},{cols}] add(yg, bb)
}}"""

    def np_ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        mean = x.mean(axis=1, keepdims=True)
        d = x - mean
        return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + 1e-5) * g + b

    def jax_ln(jnp: Any) -> Callable:
        def f(x: Any, g: Any, b: Any) -> Any:
            mean = jnp.mean(x, axis=1, keepdims=True)
            d = x - mean
            return d / jnp.sqrt(jnp.mean(d * d, axis=1, keepdims=True) + 1e-5) * g + b

        return f

    return Workload(
        "layer_norm",
        hlo,
        [x, gamma, beta],
        np_ln,
        jax_ln,
        8 * rows * cols,
        8 * rows * cols,
        "memory",
        rtol=1e-3,
    )


def matmul(scale: int) -> Workload:
    n = 1024 // int(scale**0.5)
    rng = _rng()
    a, b = (
        rng.standard_normal((n, n), dtype=np.float32),
        rng.standard_normal((n, n), dtype=np.float32),
    )
    hlo = f"""HloModule matmul
ENTRY main {{
  a = f32[{n},{n}] parameter(0)
  b = f32[{n},{n}] parameter(1)
  ROOT r = f32[{n},{n}] dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}"""
    return Workload(
        "matmul",
        hlo,
        [a, b],
        lambda a, b: a @ b,
        lambda jnp: lambda a, b: a @ b,
        12 * n * n,
        2 * n**3,
        "compute",
        rtol=1e-3,
    )


def mlp(scale: int) -> Workload:
    batch, width, out = 256 // min(scale, 16), 1024, 10
    rng = _rng()
    x = rng.standard_normal((batch, width), dtype=np.float32)
    ws = [rng.standard_normal((width, width), dtype=np.float32) / 32 for _ in range(2)]
    w3 = rng.standard_normal((width, out), dtype=np.float32) / 32
    bs = [rng.standard_normal(width, dtype=np.float32) for _ in range(2)]
    b3 = rng.standard_normal(out, dtype=np.float32)
    lines = [f"  x = f32[{batch},{width}] parameter(0)"]
    params = 1
    previous = "x"
    zero = "  zero = f32[] constant(0)"
    lines.append(zero)
    lines.append(f"  zb = f32[{batch},{width}] broadcast(zero), dimensions={{}}")
    for layer, (cols) in enumerate([width, width, out]):
        lines.append(f"  w{layer} = f32[{width},{cols}] parameter({params})")
        lines.append(f"  b{layer} = f32[{cols}] parameter({params + 1})")
        params += 2
        lines.append(
            f"  h{layer} = f32[{batch},{cols}] dot({previous}, w{layer}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}"
        )
        lines.append(f"  bb{layer} = f32[{batch},{cols}] broadcast(b{layer}), dimensions={{1}}")
        lines.append(f"  a{layer} = f32[{batch},{cols}] add(h{layer}, bb{layer})")
        if layer < 2:
            lines.append(f"  r{layer} = f32[{batch},{cols}] maximum(a{layer}, zb)")
            previous = f"r{layer}"
        else:
            previous = f"a{layer}"
    body = "\n".join(lines).replace(f"  ROOT {previous}", previous)
    hlo = f"HloModule mlp\nENTRY main {{\n{body}\n  ROOT out = f32[{batch},{out}] copy({previous})\n}}"
    inputs = [x, ws[0], bs[0], ws[1], bs[1], w3, b3]

    def np_mlp(x, w0, b0, w1, b1, w2, b2):  # noqa: ANN001, ANN202
        h = np.maximum(x @ w0 + b0, 0)
        h = np.maximum(h @ w1 + b1, 0)
        return h @ w2 + b2

    def jax_mlp(jnp: Any) -> Callable:
        def f(x, w0, b0, w1, b1, w2, b2):  # noqa: ANN001, ANN202
            h = jnp.maximum(x @ w0 + b0, 0)
            h = jnp.maximum(h @ w1 + b1, 0)
            return h @ w2 + b2

        return f

    flops = 2 * batch * width * (2 * width + out)
    return Workload(
        "mlp",
        hlo,
        inputs,
        np_mlp,
        jax_mlp,
        4 * (2 * width * width + width * out),
        flops,
        "compute",
        rtol=1e-3,
    )


def while_loop(scale: int) -> Workload:
    n, trips = 1024, 1000
    x = _rng().standard_normal(n, dtype=np.float32)
    c = np.full(n, 0.5, np.float32)
    hlo = f"""HloModule while_loop
cond {{
  p = (s32[], f32[{n}], f32[{n}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  limit = s32[] constant({trips})
  ROOT lt = pred[] compare(i, limit), direction=LT
}}
body {{
  p = (s32[], f32[{n}], f32[{n}]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  acc = f32[{n}] get-tuple-element(p), index=1
  c = f32[{n}] get-tuple-element(p), index=2
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  acc1 = f32[{n}] add(acc, c)
  ROOT t = (s32[], f32[{n}], f32[{n}]) tuple(i1, acc1, c)
}}
ENTRY main {{
  x = f32[{n}] parameter(0)
  c = f32[{n}] parameter(1)
  zero = s32[] constant(0)
  init = (s32[], f32[{n}], f32[{n}]) tuple(zero, x, c)
  w = (s32[], f32[{n}], f32[{n}]) while(init), condition=cond, body=body
  ROOT r = f32[{n}] get-tuple-element(w), index=1
}}"""

    def np_loop(x: np.ndarray, c: np.ndarray) -> np.ndarray:
        acc = x.copy()
        for _ in range(trips):
            acc += c
        return acc

    def jax_loop(jnp: Any) -> Callable:
        import jax

        return lambda x, c: jax.lax.fori_loop(0, trips, lambda i, acc: acc + c, x)

    return Workload(
        "while_loop", hlo, [x, c], np_loop, jax_loop, 8 * n * trips, n * trips, "latency"
    )


def call_latency(scale: int) -> Workload:
    x, y = np.ones(4, np.float32), np.arange(4, dtype=np.float32)
    hlo = """HloModule call_latency
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT r = f32[4] add(x, y)
}"""
    return Workload(
        "call_latency", hlo, [x, y], np.add, lambda jnp: lambda x, y: x + y, 48, 4, "latency"
    )


def transpose(scale: int) -> Workload:
    m = 4096 // int(scale**0.5)
    x = _rng().standard_normal((m, m), dtype=np.float32)
    hlo = f"""HloModule transpose
ENTRY main {{
  x = f32[{m},{m}] parameter(0)
  ROOT t = f32[{m},{m}] transpose(x), dimensions={{1,0}}
}}"""
    return Workload(
        "transpose",
        hlo,
        [x],
        lambda x: np.ascontiguousarray(x.T),
        lambda jnp: lambda x: jnp.transpose(x),
        8 * m * m,
        0,
        "memory",
    )


def conv2d(scale: int) -> Workload:
    batch = max(1, 8 // scale)
    rng = _rng()
    x = rng.standard_normal((batch, 64, 64, 32), dtype=np.float32)
    w = rng.standard_normal((3, 3, 32, 64), dtype=np.float32)
    hlo = f"""HloModule conv2d
ENTRY main {{
  x = f32[{batch},64,64,32] parameter(0)
  w = f32[3,3,32,64] parameter(1)
  ROOT c = f32[{batch},64,64,64] convolution(x, w), window={{size=3x3 pad=1_1x1_1}}, dim_labels=b01f_01io->b01f
}}"""

    def np_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        out = np.zeros((x.shape[0], 64, 64, 64), np.float32)
        for i in range(3):
            for j in range(3):
                out += padded[:, i : i + 64, j : j + 64, :] @ w[i, j]
        return out

    def jax_conv(jnp: Any) -> Callable:
        import jax

        return lambda x, w: jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    flops = 2 * batch * 64 * 64 * 64 * 3 * 3 * 32
    return Workload(
        "conv2d", hlo, [x, w], np_conv, jax_conv, 4 * x.size * 3, flops, "compute", rtol=1e-3
    )


def gather_rows(scale: int) -> Workload:
    rows, width, picks = 100_000 // scale, 128, 65536 // scale
    rng = _rng()
    table = rng.standard_normal((rows, width), dtype=np.float32)
    idx = rng.integers(0, rows, (picks, 1)).astype(np.int32)
    hlo = f"""HloModule gather_rows
ENTRY main {{
  t = f32[{rows},{width}] parameter(0)
  i = s32[{picks},1] parameter(1)
  ROOT g = f32[{picks},{width}] gather(t, i), offset_dims={{1}}, collapsed_slice_dims={{0}}, start_index_map={{0}}, index_vector_dim=1, slice_sizes={{1,{width}}}
}}"""
    return Workload(
        "gather",
        hlo,
        [table, idx],
        lambda t, i: t[i[:, 0]],
        lambda jnp: lambda t, i: t[i[:, 0]],
        8 * picks * width,
        0,
        "memory",
    )


ALL = [ew_chain, axpy, row_sums, maximum, softmax, layer_norm, matmul, mlp, while_loop,
       call_latency, transpose, conv2d, gather_rows]  # fmt: skip
