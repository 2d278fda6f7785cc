"""The benchmark workloads, each defined once for xlapy, numpy and JAX.

A workload is one computation written three ways over the same inputs: an
xlapy builder function (the API users write programs with, so the suite
measures what they get), a numpy function (the reference result and the
baseline a Python user already has) and a JAX function (the real XLA, the bar
xlapy's CPU backend has to beat). Each states the bytes it must at least move
and the FLOPs it must do, so that a time can be read against the machine's
measured limits rather than only against the other engines.

``scale`` shrinks the sizes (``--quick`` passes 64) so that a run on the
interpreter takes seconds; only full-size numbers say anything about speed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import xlapy
from xlapy import computations, ops
from xlapy.builder import XlaBuilder, XlaComputation, XlaOp
from xlapy.xla_data import (
    ConvolutionDimensionNumbers,
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
)

F32 = xlapy.F32
S32 = xlapy.S32


@dataclass(frozen=True)
class Workload:
    """One benchmark: how to build it in xlapy, compute it in numpy and JAX, and what it costs.

    ``bound`` says which machine limit the time is read against: ``"memory"``
    (bytes / measured bandwidth), ``"compute"`` (FLOPs / measured peak),
    ``"latency"`` (neither: fixed costs such as calls and loop trips dominate) or
    ``"integer"`` (integer multiply-adds, which no measured roof bounds).
    ``jax_fn`` imports JAX inside its body so that the suite runs without JAX.
    """

    name: str
    build: Callable[[], XlaComputation]
    inputs: tuple[Any, ...]
    numpy_fn: Callable[..., Any]
    jax_fn: Callable[..., Any]
    bytes_read: int
    bytes_written: int
    flops: int
    bound: str
    rtol: float = 1e-5
    atol: float = 1e-5
    description: str = ""

    @property
    def bytes_moved(self) -> int:
        return self.bytes_read + self.bytes_written


def _rng() -> np.random.Generator:
    """A fresh generator with the fixed seed, so every run sees the same inputs."""
    return np.random.default_rng(0)


def _params(b: XlaBuilder, *shapes: tuple[str, list[int]]) -> list[XlaOp]:
    """Parameters 0..n-1 of f32/s32/s8 arrays, named p0, p1, ..."""
    types = {"f32": F32, "s32": S32, "s8": xlapy.S8}
    return [
        ops.Parameter(b, i, xlapy.Shape.array(types[t], dims), f"p{i}")
        for i, (t, dims) in enumerate(shapes)
    ]


def _add() -> XlaComputation:
    return computations.add(F32)


def _max() -> XlaComputation:
    return computations.max(F32)


# -- memory-bound elementwise ----------------------------------------------------------------


def ew_chain(scale: int = 1) -> Workload:
    n = (16 << 20) // scale
    x = _rng().standard_normal(n, dtype=np.float32)
    a, b = np.float32(0.7), np.float32(-0.2)

    def build() -> XlaComputation:
        bld = XlaBuilder("ew_chain")
        xp, ap, bp = _params(bld, ("f32", [n]), ("f32", []), ("f32", []))
        return bld.build(ops.Tanh(ap * xp + bp) * ops.Exp(-(xp * xp)) + 1.0)

    def jax_fn(x: Any, a: Any, b: Any) -> Any:
        import jax.numpy as jnp

        return jnp.tanh(a * x + b) * jnp.exp(-x * x) + 1

    return Workload(
        "ew_chain",
        build,
        (x, a, b),
        lambda x, a, b: np.tanh(a * x + b) * np.exp(-x * x) + 1,
        jax_fn,
        bytes_read=4 * n,
        bytes_written=4 * n,
        flops=8 * n,  # tanh and exp counted as one each: the chain is memory-bound
        bound="memory",
        rtol=1e-5,
        atol=1e-5,
        description=f"tanh(a*x+b)*exp(-x*x)+1, f32[{n}]",
    )


def axpy(scale: int = 1, n: int | None = None) -> Workload:
    """``n`` (elements) overrides the size ``scale`` gives (the size sweeps set it)."""
    n = n or (16 << 20) // scale
    rng = _rng()
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("axpy")
        ap, xp, yp = _params(bld, ("f32", []), ("f32", [n]), ("f32", [n]))
        return bld.build(ap * xp + yp)

    return Workload(
        "axpy",
        build,
        (np.float32(1.5), x, y),
        lambda a, x, y: a * x + y,
        lambda a, x, y: a * x + y,
        bytes_read=8 * n,
        bytes_written=4 * n,
        flops=2 * n,
        bound="memory",
        description=f"a*x+y, f32[{n}]",
    )


# -- reductions --------------------------------------------------------------------------------


def row_sums(scale: int = 1) -> Workload:
    m = 4096 // math.isqrt(scale)
    x = _rng().standard_normal((m, m), dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("row_sums")
        (xp,) = _params(bld, ("f32", [m, m]))
        return bld.build(ops.Reduce(xp, 0.0, _add(), [1]))

    def jax_fn(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.sum(x, axis=1)

    return Workload(
        "row_sums",
        build,
        (x,),
        lambda x: x.sum(axis=1),
        jax_fn,
        bytes_read=4 * m * m,
        bytes_written=4 * m,
        flops=m * m,
        bound="memory",
        rtol=1e-4,
        atol=1e-3,  # sums of 4096 N(0,1) values: orders of summation differ by ~1e-5 * 64
        description=f"sum over rows of f32[{m},{m}]",
    )


def maximum(scale: int = 1) -> Workload:
    n = (16 << 20) // scale
    x = _rng().standard_normal(n, dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("max")
        (xp,) = _params(bld, ("f32", [n]))
        return bld.build(ops.Reduce(xp, float("-inf"), _max(), [0]))

    def jax_fn(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.max(x)

    return Workload(
        "max",
        build,
        (x,),
        lambda x: x.max(),
        jax_fn,
        bytes_read=4 * n,
        bytes_written=4,
        flops=n,
        bound="memory",
        description=f"max of f32[{n}]",
    )


def softmax(scale: int = 1, rows: int | None = None) -> Workload:
    """``rows`` (of 1024) overrides the size ``scale`` gives (the size sweeps set it)."""
    rows, cols = rows or 4096 // scale, 1024
    x = _rng().standard_normal((rows, cols), dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("softmax")
        (xp,) = _params(bld, ("f32", [rows, cols]))
        m = ops.Reduce(xp, float("-inf"), _max(), [1])
        e = ops.Exp(ops.Sub(xp, m, [0]))
        return bld.build(ops.Div(e, ops.Reduce(e, 0.0, _add(), [1]), [0]))

    def np_softmax(x: np.ndarray) -> np.ndarray:
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def jax_softmax(x: Any) -> Any:
        import jax.numpy as jnp

        e = jnp.exp(x - jnp.max(x, axis=1, keepdims=True))
        return e / jnp.sum(e, axis=1, keepdims=True)

    return Workload(
        "softmax",
        build,
        (x,),
        np_softmax,
        jax_softmax,
        bytes_read=4 * rows * cols,
        bytes_written=4 * rows * cols,
        flops=5 * rows * cols,
        bound="memory",
        rtol=1e-4,
        atol=1e-7,
        description=f"row softmax of f32[{rows},{cols}]",
    )


def layer_norm(scale: int = 1) -> Workload:
    rows, cols, eps = 4096 // scale, 1024, 1e-5
    rng = _rng()
    x = rng.standard_normal((rows, cols), dtype=np.float32)
    gamma = rng.standard_normal(cols, dtype=np.float32)
    beta = rng.standard_normal(cols, dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("layer_norm")
        xp, gp, bp = _params(bld, ("f32", [rows, cols]), ("f32", [cols]), ("f32", [cols]))
        mean = ops.Reduce(xp, 0.0, _add(), [1]) / float(cols)
        d = ops.Sub(xp, mean, [0])
        var = ops.Reduce(d * d, 0.0, _add(), [1]) / float(cols)
        y = ops.Mul(d, ops.Rsqrt(var + eps), [0])
        return bld.build(ops.Add(ops.Mul(y, gp, [1]), bp, [1]))

    def np_ln(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
        d = x - x.mean(axis=1, keepdims=True)
        return d / np.sqrt((d * d).mean(axis=1, keepdims=True) + eps) * g + b

    def jax_ln(x: Any, g: Any, b: Any) -> Any:
        import jax.numpy as jnp

        d = x - jnp.mean(x, axis=1, keepdims=True)
        return d / jnp.sqrt(jnp.mean(d * d, axis=1, keepdims=True) + eps) * g + b

    return Workload(
        "layer_norm",
        build,
        (x, gamma, beta),
        np_ln,
        jax_ln,
        bytes_read=4 * rows * cols + 8 * cols,
        bytes_written=4 * rows * cols,
        flops=8 * rows * cols,
        bound="memory",
        rtol=1e-4,
        atol=1e-4,
        description=f"layer norm of f32[{rows},{cols}] over the last dimension, eps {eps}",
    )


# -- compute-bound -----------------------------------------------------------------------------


def matmul(scale: int = 1, n: int | None = None) -> Workload:
    """``n`` (square side) overrides the size ``scale`` gives (the size sweeps set it)."""
    n = n or 1024 // math.isqrt(scale)
    rng = _rng()
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("matmul")
        ap, bp = _params(bld, ("f32", [n, n]), ("f32", [n, n]))
        return bld.build(ops.Dot(ap, bp))

    return Workload(
        "matmul",
        build,
        (a, b),
        lambda a, b: a @ b,
        lambda a, b: a @ b,
        bytes_read=8 * n * n,
        bytes_written=4 * n * n,
        flops=2 * n**3,
        bound="compute",
        rtol=1e-4,
        atol=1e-3,  # dot products of 1024 N(0,1) terms; blocking orders differ
        description=f"f32[{n},{n}] x f32[{n},{n}]",
    )


def matmul_int8(scale: int = 1) -> Workload:
    """Quantized inference's product: s8 x s8 summed in s32. Read against no roof (the
    f32 FMA peak does not apply to int8 dot instructions); numpy has no integer BLAS,
    so its time is a plain loop's."""
    n = 512 // math.isqrt(scale)
    rng = _rng()
    a = rng.integers(-128, 128, (n, n), dtype=np.int8)
    b = rng.integers(-128, 128, (n, n), dtype=np.int8)

    def build() -> XlaComputation:
        bld = XlaBuilder("matmul_int8")
        ap, bp = _params(bld, ("s8", [n, n]), ("s8", [n, n]))
        return bld.build(ops.Dot(ap, bp, preferred_element_type=S32))

    def jax_fn(a: Any, b: Any) -> Any:
        import jax  # noqa: PLC0415
        import jax.numpy as jnp  # noqa: PLC0415

        return jax.lax.dot(a, b, preferred_element_type=jnp.int32)

    return Workload(
        "matmul_int8",
        build,
        (a, b),
        lambda a, b: a.astype(np.int32) @ b.astype(np.int32),
        jax_fn,
        bytes_read=2 * n * n,
        bytes_written=4 * n * n,
        flops=2 * n**3,
        bound="integer",
        rtol=0.0,
        atol=0.0,  # integer sums: exact
        description=f"s8[{n},{n}] x s8[{n},{n}] -> s32",
    )


def mlp(scale: int = 1) -> Workload:
    batch, width, out = 256 // min(scale, 16), 1024, 10
    rng = _rng()
    x = rng.standard_normal((batch, width), dtype=np.float32)
    w0, w1 = (rng.standard_normal((width, width), dtype=np.float32) / 32 for _ in range(2))
    w2 = rng.standard_normal((width, out), dtype=np.float32) / 32
    b0, b1 = (rng.standard_normal(width, dtype=np.float32) for _ in range(2))
    b2 = rng.standard_normal(out, dtype=np.float32)
    widths = [(width, width), (width, width), (width, out)]

    def build() -> XlaComputation:
        bld = XlaBuilder("mlp")
        shapes: list[tuple[str, list[int]]] = [("f32", [batch, width])]
        for fan_in, fan_out in widths:
            shapes += [("f32", [fan_in, fan_out]), ("f32", [fan_out])]
        xp, *layers = _params(bld, *shapes)
        h = xp
        for k in range(3):
            h = ops.Add(ops.Dot(h, layers[2 * k]), layers[2 * k + 1], [1])
            if k < 2:
                h = ops.Max(h, 0.0)
        return bld.build(h)

    def np_mlp(x, w0, b0, w1, b1, w2, b2):  # noqa: ANN001, ANN202  (positional like the others)
        h = np.maximum(x @ w0 + b0, 0)
        h = np.maximum(h @ w1 + b1, 0)
        return h @ w2 + b2

    def jax_mlp(x, w0, b0, w1, b1, w2, b2):  # noqa: ANN001, ANN202
        import jax.numpy as jnp

        h = jnp.maximum(x @ w0 + b0, 0)
        h = jnp.maximum(h @ w1 + b1, 0)
        return h @ w2 + b2

    weights = sum(4 * (i * o + o) for i, o in widths)
    return Workload(
        "mlp",
        build,
        (x, w0, b0, w1, b1, w2, b2),
        np_mlp,
        jax_mlp,
        bytes_read=4 * batch * width + weights,
        bytes_written=4 * batch * out,
        flops=sum(2 * batch * i * o for i, o in widths),
        bound="compute",
        rtol=1e-4,
        atol=1e-3,
        description=f"batch {batch}, {width}-{width}-{width}-{out}, relu, biases",
    )


def conv2d(scale: int = 1, batch: int | None = None) -> Workload:
    """``batch`` overrides the batch ``scale`` gives (the size sweeps set it; the images
    stay 64x64 at scale 1)."""
    if batch is None:
        batch = max(1, 8 // scale)
        spatial = 64 // math.isqrt(max(1, scale * batch // 8))
    else:
        spatial = max(4, 64 // math.isqrt(scale))
    cin, cout = 32, 64
    rng = _rng()
    x = rng.standard_normal((batch, spatial, spatial, cin), dtype=np.float32)
    w = rng.standard_normal((3, 3, cin, cout), dtype=np.float32) / 16
    nhwc = ConvolutionDimensionNumbers(
        input_batch_dimension=0,
        input_feature_dimension=3,
        input_spatial_dimensions=(1, 2),
        kernel_input_feature_dimension=2,
        kernel_output_feature_dimension=3,
        kernel_spatial_dimensions=(0, 1),
        output_batch_dimension=0,
        output_feature_dimension=3,
        output_spatial_dimensions=(1, 2),
    )

    def build() -> XlaComputation:
        bld = XlaBuilder("conv2d")
        xp, wp = _params(bld, ("f32", list(x.shape)), ("f32", list(w.shape)))
        return bld.build(ops.ConvWithGeneralDimensions(xp, wp, [1, 1], "SAME", nhwc))

    def np_conv(x: np.ndarray, w: np.ndarray) -> np.ndarray:
        """SAME 3x3 convolution as nine shifted GEMMs (numpy has no convolution of its own)."""
        padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
        out = np.zeros((*x.shape[:3], w.shape[3]), np.float32)
        for i in range(3):
            for j in range(3):
                out += padded[:, i : i + spatial, j : j + spatial, :] @ w[i, j]
        return out

    def jax_conv(x: Any, w: Any) -> Any:
        import jax

        return jax.lax.conv_general_dilated(
            x, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    pixels = batch * spatial * spatial
    return Workload(
        "conv2d",
        build,
        (x, w),
        np_conv,
        jax_conv,
        bytes_read=4 * (x.size + w.size),
        bytes_written=4 * pixels * cout,
        flops=2 * pixels * cout * 9 * cin,
        bound="compute",
        rtol=1e-4,
        atol=1e-4,
        description=f"NHWC{list(x.shape)} * HWIO{list(w.shape)}, SAME",
    )


# -- control flow and latency ------------------------------------------------------------------


def while_loop(scale: int = 1) -> Workload:
    n, trips = 1024, max(1, 1000 // scale)
    x = _rng().standard_normal(n, dtype=np.float32)
    step = np.linspace(0, 1, n, dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("while_loop")
        (xp,) = _params(bld, ("f32", [n]))

        def condition(state: XlaOp) -> XlaOp:
            return ops.Lt(ops.GetTupleElement(state, 0), trips)

        def body(state: XlaOp) -> XlaOp:
            i, acc = ops.GetTupleElement(state, 0), ops.GetTupleElement(state, 1)
            return ops.Tuple(state.builder, [i + 1, acc + ops.Constant(state.builder, step)])

        init = ops.Tuple(bld, [ops.ConstantR0(bld, 0, S32), xp])
        return bld.build(ops.GetTupleElement(ops.While(condition, body, init), 1))

    def np_loop(x: np.ndarray) -> np.ndarray:
        acc = x.copy()
        for _ in range(trips):
            acc += step
        return acc

    def jax_loop(x: Any) -> Any:
        import jax

        return jax.lax.fori_loop(0, trips, lambda i, acc: acc + step, x)

    return Workload(
        "while_loop",
        build,
        (x,),
        np_loop,
        jax_loop,
        bytes_read=4 * n * trips,
        bytes_written=4 * n * trips,
        flops=n * trips,
        bound="latency",
        rtol=1e-5,
        atol=1e-4,
        description=f"{trips} trips of acc += constant f32[{n}]",
    )


def call_latency(scale: int = 1) -> Workload:
    x, y = np.ones(4, np.float32), np.arange(4, dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("call_latency")
        xp, yp = _params(bld, ("f32", [4]), ("f32", [4]))
        return bld.build(xp + yp)

    return Workload(
        "call_latency",
        build,
        (x, y),
        np.add,
        lambda x, y: x + y,
        bytes_read=32,
        bytes_written=16,
        flops=4,
        bound="latency",
        description="f32[4] + f32[4]: the cost of one call",
    )


# -- data movement -----------------------------------------------------------------------------


def transpose(scale: int = 1) -> Workload:
    m = 4096 // math.isqrt(scale)
    x = _rng().standard_normal((m, m), dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("transpose")
        (xp,) = _params(bld, ("f32", [m, m]))
        return bld.build(ops.Transpose(xp, [1, 0]))

    def jax_fn(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.transpose(x)

    return Workload(
        "transpose",
        build,
        (x,),
        lambda x: np.ascontiguousarray(x.T),
        jax_fn,
        bytes_read=4 * m * m,
        bytes_written=4 * m * m,
        flops=0,
        bound="memory",
        rtol=0,
        atol=0,
        description=f"materialized transpose of f32[{m},{m}]",
    )


def gather(scale: int = 1) -> Workload:
    rows, width, picks = 100_000 // scale, 128, 65536 // scale
    rng = _rng()
    table = rng.standard_normal((rows, width), dtype=np.float32)
    idx = rng.integers(0, rows, (picks, 1)).astype(np.int32)
    dnums = GatherDimensionNumbers(
        offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1
    )

    def build() -> XlaComputation:
        bld = XlaBuilder("gather")
        tp, ip = _params(bld, ("f32", [rows, width]), ("s32", [picks, 1]))
        return bld.build(ops.Gather(tp, ip, dnums, [1, width]))

    return Workload(
        "gather",
        build,
        (table, idx),
        lambda t, i: t[i[:, 0]],
        lambda t, i: t[i[:, 0]],
        bytes_read=4 * picks * (width + 1),
        bytes_written=4 * picks * width,
        flops=0,
        bound="memory",
        rtol=0,
        atol=0,
        description=f"{picks} random rows of f32[{rows},{width}]",
    )


def scatter_add(scale: int = 1) -> Workload:
    """An embedding gradient: rows of updates added into a table at random (repeated) rows."""
    rows, width, picks = 100_000 // scale, 128, 65536 // scale
    rng = _rng()
    table = rng.standard_normal((rows, width), dtype=np.float32)
    idx = rng.integers(0, rows, (picks, 1)).astype(np.int32)
    updates = rng.standard_normal((picks, width), dtype=np.float32)
    dnums = ScatterDimensionNumbers(
        update_window_dims=(1,),
        inserted_window_dims=(0,),
        scatter_dims_to_operand_dims=(0,),
        index_vector_dim=1,
    )

    def build() -> XlaComputation:
        bld = XlaBuilder("scatter_add")
        tp, ip, up = _params(
            bld, ("f32", [rows, width]), ("s32", [picks, 1]), ("f32", [picks, width])
        )
        return bld.build(ops.Scatter(tp, ip, up, _add(), dnums))

    def np_scatter_add(t: np.ndarray, i: np.ndarray, u: np.ndarray) -> np.ndarray:
        out = t.copy()
        np.add.at(out, i[:, 0], u)
        return out

    def jax_scatter_add(t: Any, i: Any, u: Any) -> Any:
        return t.at[i[:, 0]].add(u)

    return Workload(
        "scatter_add",
        build,
        (table, idx, updates),
        np_scatter_add,
        jax_scatter_add,
        bytes_read=4 * rows * width + 4 * picks * (2 * width + 1),
        bytes_written=4 * rows * width,
        flops=picks * width,
        bound="memory",
        rtol=1e-5,
        atol=1e-5,
        description=f"{picks} rows added at random rows of f32[{rows},{width}]",
    )


def sort_rows(scale: int = 1) -> Workload:
    rows, cols = 512 // scale, 4096
    x = _rng().standard_normal((rows, cols), dtype=np.float32)

    def build() -> XlaComputation:
        bld = XlaBuilder("sort")
        (xp,) = _params(bld, ("f32", [rows, cols]))
        return bld.build(ops.Sort(xp, dimension=1))

    def jax_sort(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.sort(x, axis=1)

    return Workload(
        "sort",
        build,
        (x,),
        lambda x: np.sort(x, axis=1),
        jax_sort,
        bytes_read=4 * rows * cols,
        bytes_written=4 * rows * cols,
        flops=0,  # comparisons, not floating-point work
        bound="latency",
        rtol=0,
        atol=0,
        description=f"sort each row of f32[{rows},{cols}]",
    )


def fft(scale: int = 1) -> Workload:
    rows, n = max(1, 256 // scale), 1024
    rng = _rng()
    x = (rng.standard_normal((rows, n)) + 1j * rng.standard_normal((rows, n))).astype(np.complex64)

    def build() -> XlaComputation:
        bld = XlaBuilder("fft")
        xp = ops.Parameter(bld, 0, xlapy.Shape.array(xlapy.C64, [rows, n]), "p0")
        return bld.build(ops.Fft(xp, "FFT", [n]))

    def jax_fft(x: Any) -> Any:
        import jax.numpy as jnp

        return jnp.fft.fft(x, axis=1)

    return Workload(
        "fft",
        build,
        (x,),
        lambda x: np.fft.fft(x, axis=1).astype(np.complex64),
        jax_fft,
        bytes_read=8 * rows * n,
        bytes_written=8 * rows * n,
        flops=int(5 * rows * n * math.log2(n)),  # the radix-2 count, by convention
        bound="compute",
        rtol=1e-4,
        atol=1e-3,  # outputs of magnitude ~32 from sums of 1024 terms
        description=f"FFT of each row of c64[{rows},{n}]",
    )


WORKLOADS: dict[str, Callable[[int], Workload]] = {
    "ew_chain": ew_chain,
    "axpy": axpy,
    "row_sums": row_sums,
    "max": maximum,
    "softmax": softmax,
    "layer_norm": layer_norm,
    "matmul": matmul,
    "matmul_int8": matmul_int8,
    "mlp": mlp,
    "while_loop": while_loop,
    "call_latency": call_latency,
    "transpose": transpose,
    "conv2d": conv2d,
    "gather": gather,
    "scatter_add": scatter_add,
    "sort": sort_rows,
    "fft": fft,
}
"""Name -> maker, in report order; a maker takes ``scale`` (1 = the issue's sizes). Keyed by
name so that ``--filter`` creates only the inputs it runs."""
