"""Interpreter kernels of the linear-algebra ops: dot, convolution, FFT, factorizations, batch norm.

Every kernel computes in a wide *compute type* and rounds once to the result
type, because that is what XLA:CPU does: a dot or convolution of f16/bf16
accumulates in f32 (checked against XLA: 4096 f16 ones sum to 4096, and
2048+1+1 gives 2050, neither possible in f16), and an integer product wraps
modulo the result's width (s32 1000*7+3*5 to s8 gives 103). Mixed-type
operands are combined in the compute type of all the types involved, so an
f32 dot with an s32 result computes in f32 and converts at the end, as XLA
does (1.5*1.5+2.5*1.5 gives 6, not 3).

The factorizations follow XLA:CPU's expanders rather than LAPACK's error
reporting: a Cholesky of a matrix that is not positive definite gives a matrix
of NaNs (XLA fills the whole matrix, not just the failing columns), the
unused triangle is zero, and a triangular solve with a zero pivot yields
IEEE infinities/NaNs instead of raising.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ...xla_data import ConvolutionDimensionNumbers, FftType, Transpose, Window
from ..core import EvalContext, Value, kernel

# -- compute types ------------------------------------------------------------------------


def compute_dtype(*types: PrimitiveType) -> np.dtype:
    """The numpy type a product of these element types is accumulated in.

    Complex wins over float wins over integer; floats narrower than 32 bits
    accumulate in f32 (as XLA:CPU upcasts them), and integers in 64 bits,
    whose wrap-around agrees with any narrower result's modulo arithmetic.
    """
    if any(t.is_complex for t in types):
        wide = any(t in (PrimitiveType.C128, PrimitiveType.F64) for t in types)
        return np.dtype(np.complex128 if wide else np.complex64)
    if any(t.is_float for t in types):
        return np.dtype(np.float64 if PrimitiveType.F64 in types else np.float32)
    return np.dtype(np.int64)


def widen(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``x`` in the compute type; unsigned 64-bit values keep their bits (wrapping arithmetic)."""
    if dtype == np.int64 and x.dtype == np.uint64:
        return x.view(np.int64)
    return x.astype(dtype, copy=False)


def to_element_type(x: np.ndarray, t: PrimitiveType) -> np.ndarray:
    """Round a compute-type result to element type ``t`` the way XLA's convert does.

    Integers wrap; a float converted to an integer truncates toward zero and
    saturates (NaN becomes 0); a nonzero value becomes ``true`` for pred.
    """
    dtype = t.dtype
    if t.is_pred:
        return x != 0
    if t.is_integral and (x.dtype.kind in "fc"):
        x = np.real(x)
        info = np.iinfo(dtype) if not t.is_sub_byte else None
        lo, hi = (info.min, info.max) if info else _sub_byte_range(t)
        x = np.nan_to_num(np.trunc(x), nan=0.0, posinf=float(hi), neginf=float(lo))
        with np.errstate(invalid="ignore"):
            out = np.clip(x, lo, hi).astype(dtype)
        # float(hi) of a 64-bit type rounds up to 2**63 (or 2**64), which astype cannot hold.
        return np.where(x >= float(hi), np.array(hi, dtype), out)
    if t.is_integral and x.dtype.kind in "iu":
        bits = t.bit_width
        wrapped = x.astype(np.int64) & ((1 << bits) - 1) if bits < 64 else x
        if t.is_signed_integral and bits < 64:
            wrapped = np.where(wrapped >= (1 << (bits - 1)), wrapped - (1 << bits), wrapped)
        return np.asarray(wrapped).astype(dtype)
    if not t.is_complex and x.dtype.kind == "c":
        x = np.real(x)
    return np.asarray(x).astype(dtype)


def _sub_byte_range(t: PrimitiveType) -> tuple[int, int]:
    bits = t.bit_width
    return (
        (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)
        if t.is_signed_integral
        else (0, (1 << bits) - 1)
    )


def _float_compute(t: PrimitiveType) -> np.dtype:
    """The type a factorization of element type ``t`` runs in (at least f32)."""
    if t.is_complex:
        return np.dtype(np.complex128 if t == PrimitiveType.C128 else np.complex64)
    return np.dtype(np.float64 if t == PrimitiveType.F64 else np.float32)


def operand_element_type(instruction: HloInstruction, index: int) -> PrimitiveType:
    return instruction.operand(index).shape.element_type


# -- dot ----------------------------------------------------------------------------------


def _paired_extents(
    lhs: np.ndarray, rhs: np.ndarray, left: list[int], right: list[int]
) -> tuple[np.ndarray, np.ndarray]:
    """Paired dimensions cut to the smaller size: a dynamic operand (carried at its
    size) contracts only with the valid part of a static one, as XLA's padder masks it."""
    for a, b in zip(left, right, strict=True):
        n = min(lhs.shape[a], rhs.shape[b])
        if lhs.shape[a] != n:
            lhs = lhs[(slice(None),) * a + (slice(0, n),)]
        if rhs.shape[b] != n:
            rhs = rhs[(slice(None),) * b + (slice(0, n),)]
    return lhs, rhs


@kernel(Op.DOT)
def _dot(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """DotGeneral as one batched matmul: [batch, free, contracting] x [batch, contracting, free]."""
    lhs, rhs = operands
    dn = instruction.dot_dimension_numbers
    lc, rc = list(dn.lhs_contracting_dimensions), list(dn.rhs_contracting_dimensions)
    lb, rb = list(dn.lhs_batch_dimensions), list(dn.rhs_batch_dimensions)
    lhs, rhs = _paired_extents(np.asarray(lhs), np.asarray(rhs), lc + lb, rc + rb)
    lf = [d for d in range(lhs.ndim) if d not in lc + lb]
    rf = [d for d in range(rhs.ndim) if d not in rc + rb]
    out_type = instruction.shape.element_type
    dtype = compute_dtype(
        operand_element_type(instruction, 0), operand_element_type(instruction, 1), out_type
    )
    a, b = widen(lhs, dtype), widen(rhs, dtype)

    def size(x: np.ndarray, dims: list[int]) -> int:
        return int(np.prod([x.shape[d] for d in dims], dtype=np.int64))

    batch = [lhs.shape[d] for d in lb]
    a = a.transpose(lb + lf + lc).reshape(size(lhs, lb), size(lhs, lf), size(lhs, lc))
    b = b.transpose(rb + rc + rf).reshape(size(rhs, rb), size(rhs, rc), size(rhs, rf))
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.matmul(a, b)
    dims = batch + [lhs.shape[d] for d in lf] + [rhs.shape[d] for d in rf]
    return to_element_type(product.reshape(dims), out_type)


# -- convolution ---------------------------------------------------------------------------


def _prepare_base(x: np.ndarray, window: Window) -> np.ndarray:
    """Dilate and pad (or crop, for negative padding) the spatial axes 2.. of ``x``."""
    for i, wd in enumerate(window.dimensions):
        axis = 2 + i
        n = x.shape[axis]
        if wd.base_dilation > 1 and n > 0:
            shape = list(x.shape)
            shape[axis] = (n - 1) * wd.base_dilation + 1
            dilated = np.zeros(shape, x.dtype)
            index = [slice(None)] * x.ndim
            index[axis] = slice(None, None, wd.base_dilation)
            dilated[tuple(index)] = x
            x = dilated
        lo, hi = wd.padding_low, wd.padding_high
        crop = [slice(None)] * x.ndim
        crop[axis] = slice(max(-lo, 0), x.shape[axis] - max(-hi, 0))
        x = x[tuple(crop)]
        pads = [(0, 0)] * x.ndim
        pads[axis] = (max(lo, 0), max(hi, 0))
        x = np.pad(x, pads)
    return x


@kernel(Op.CONVOLUTION)
def _convolution(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """A sum over kernel positions of channel matmuls, in canonical [N, C, spatial] order.

    For each kernel offset the strided input slice it meets is multiplied by
    that offset's [O, I] kernel slice; feature groups and batch groups become
    a leading group axis of the matmul. Lhs batch group b is the b-th
    contiguous block of the batch dimension, and output-feature group q the
    q-th contiguous block of output features (checked against XLA).
    """
    lhs, rhs = operands
    dn: ConvolutionDimensionNumbers = instruction.attribute("dim_labels")
    window: Window = instruction.attribute("window", Window())
    G = int(instruction.attribute("feature_group_count", 1))
    B = int(instruction.attribute("batch_group_count", 1))
    out_shape = instruction.shape
    out_type = out_shape.element_type
    dtype = compute_dtype(
        operand_element_type(instruction, 0), operand_element_type(instruction, 1), out_type
    )

    x = widen(lhs, dtype).transpose(
        [dn.input_batch_dimension, dn.input_feature_dimension, *dn.input_spatial_dimensions]
    )
    w = widen(rhs, dtype).transpose(
        [
            dn.kernel_output_feature_dimension,
            dn.kernel_input_feature_dimension,
            *dn.kernel_spatial_dimensions,
        ]
    )
    reversed_axes = [2 + i for i, wd in enumerate(window.dimensions) if wd.window_reversal]
    if reversed_axes:
        w = np.flip(w, reversed_axes)
    out_spatial = [out_shape.dimensions[d] for d in dn.output_spatial_dimensions]
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    Nb, Cg, Og = N // B, I, O // (B * G)
    P = int(np.prod(out_spatial, dtype=np.int64))
    acc = np.zeros((B, G, Nb, P, Og), dtype)
    if acc.size and Cg:
        x = _prepare_base(x, window)
        wg = w.reshape(B, G, Og, Cg, *w.shape[2:])
        for offset in itertools.product(*(range(k) for k in w.shape[2:])):
            index: list[slice] = [slice(None), slice(None)]
            for k, wd, n in zip(offset, window.dimensions, out_spatial, strict=True):
                start = k * wd.window_dilation
                index.append(slice(start, start + wd.stride * (n - 1) + 1, wd.stride))
            patch = x[tuple(index)].reshape(B, Nb, G, Cg, P).transpose(0, 2, 1, 4, 3)
            kernel_slice = wg[(Ellipsis, *offset)].transpose(0, 1, 3, 2)  # [B, G, Cg, Og]
            with np.errstate(over="ignore", invalid="ignore"):
                acc += np.matmul(patch, kernel_slice[:, :, None])
    # [B, G, Nb, P, Og] -> [Nb, (B, G, Og) = O, P] -> the output's own dimension order.
    canonical = acc.transpose(2, 0, 1, 4, 3).reshape(Nb, O, *out_spatial)
    order = [dn.output_batch_dimension, dn.output_feature_dimension, *dn.output_spatial_dimensions]
    return to_element_type(canonical.transpose(np.argsort(order)), out_type)


# -- fft ----------------------------------------------------------------------------------


@kernel(Op.FFT)
def _fft(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """numpy's pocketfft over the innermost len(fft_length) axes (XLA's IFFT is normalized)."""
    (x,) = operands
    fft_type = FftType(instruction.attribute("fft_type"))
    lengths = [int(n) for n in instruction.attribute("fft_length")]
    shape = instruction.shape
    if 0 in x.shape or 0 in shape.dimensions or 0 in lengths:
        return np.zeros(shape.dimensions, shape.element_type.dtype)
    axes = list(range(x.ndim - len(lengths), x.ndim))
    if fft_type is FftType.FFT:
        y = np.fft.fftn(x, s=lengths, axes=axes)
    elif fft_type is FftType.IFFT:
        y = np.fft.ifftn(x, s=lengths, axes=axes)
    elif fft_type is FftType.RFFT:
        y = np.fft.rfftn(x, s=lengths, axes=axes)
    else:
        y = np.fft.irfftn(x, s=lengths, axes=axes)
    return np.asarray(y).astype(shape.element_type.dtype)


# -- factorizations -----------------------------------------------------------------------


def _adjoint(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


@kernel(Op.CHOLESKY)
def _cholesky(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Reads only the ``lower`` (or upper) triangle; a non-PD matrix becomes all NaN, as in XLA."""
    (a,) = operands
    t = instruction.shape.element_type
    lower = bool(instruction.attribute("lower", False))
    a = a.astype(_float_compute(t))
    tri = np.tril(a) if lower else np.triu(a)
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    diagonal = np.real(np.diagonal(tri, axis1=-2, axis2=-1))
    hermitian = strict + _adjoint(strict)
    index = np.arange(a.shape[-1])
    hermitian[..., index, index] = diagonal
    batch = hermitian.reshape(-1, *a.shape[-2:])
    factors = np.full_like(batch, np.nan)  # XLA's answer for a matrix that is not PD
    finite = np.flatnonzero(np.isfinite(batch).all(axis=(-2, -1)))
    try:
        factors[finite] = np.linalg.cholesky(batch[finite])
    except np.linalg.LinAlgError:  # some matrix is not PD: find which, one at a time
        for i in finite:
            try:
                factors[i] = np.linalg.cholesky(batch[i])
            except np.linalg.LinAlgError:
                factors[i] = np.nan
    result = factors.reshape(a.shape)
    if not lower:
        result = _adjoint(result)
    return to_element_type(result, t)


def _substitute(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """Solve t @ x = b for triangular t ([..., M, M]) by substitution over rows.

    A row loop with vector work per row (rather than LAPACK) so that a zero
    pivot gives IEEE inf/NaN the way XLA's expanded solver does.
    """
    m = t.shape[-1]
    x = np.zeros_like(b)
    rows = range(m) if lower else range(m - 1, -1, -1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in rows:
            done = slice(0, i) if lower else slice(i + 1, m)
            partial = np.einsum("...j,...jk->...k", t[..., i, done], x[..., done, :])
            x[..., i, :] = (b[..., i, :] - partial) / t[..., i, i, None]
    return x


@kernel(Op.TRIANGULAR_SOLVE)
def _triangular_solve(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """op(a) x = b (left_side) or x op(a) = b, reading only a's ``lower``/upper triangle."""
    a, b = operands
    t = instruction.shape.element_type
    dtype = _float_compute(t)
    attr = instruction.attribute
    lower = bool(attr("lower", False))
    transpose = Transpose(attr("transpose_a", Transpose.NO_TRANSPOSE))
    a = a.astype(dtype)
    a = np.tril(a) if lower else np.triu(a)
    if attr("unit_diagonal", False):
        index = np.arange(a.shape[-1])
        a[..., index, index] = 1
    b = b.astype(dtype)
    if transpose is Transpose.TRANSPOSE:
        a, lower = np.swapaxes(a, -1, -2), not lower
    elif transpose is Transpose.ADJOINT:
        a, lower = _adjoint(a), not lower
    if attr("left_side", False):
        x = _substitute(a, b, lower)
    else:  # x A = b  <=>  A^T x^T = b^T
        x = np.swapaxes(
            _substitute(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2), not lower), -1, -2
        )
    return to_element_type(x, t)


# -- batch normalization ------------------------------------------------------------------


def _feature_axes(x: np.ndarray, feature_index: int) -> tuple[tuple[int, ...], list[int]]:
    """The reduced axes, and the broadcast shape of a per-feature vector."""
    axes = tuple(d for d in range(x.ndim) if d != feature_index)
    shape = [1] * x.ndim
    shape[feature_index] = x.shape[feature_index]
    return axes, shape


def _batch_norm_inputs(
    instruction: HloInstruction, operands: Sequence[np.ndarray]
) -> tuple[list[np.ndarray], float, tuple[int, ...], list[int]]:
    """Operands in f64 (precise enough for every float type), epsilon, axes, vector shape."""
    wide = [np.asarray(v).astype(np.float64) for v in operands]
    epsilon = float(instruction.attribute("epsilon"))
    axes, shape = _feature_axes(wide[0], int(instruction.attribute("feature_index")))
    return wide, epsilon, axes, shape


@kernel(Op.BATCH_NORM_TRAINING)
def _batch_norm_training(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """(normalized, mean, biased variance) over every dimension but the feature one."""
    (x, scale, offset), eps, axes, shape = _batch_norm_inputs(instruction, operands)
    with np.errstate(invalid="ignore", divide="ignore"):
        count = np.prod([x.shape[d] for d in axes])
        mean = x.sum(axis=axes) / count
        var = ((x - mean.reshape(shape)) ** 2).sum(axis=axes) / count
        y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
        y = y * scale.reshape(shape) + offset.reshape(shape)
    types = [s.element_type for s in instruction.shape.tuple_shapes]
    return tuple(to_element_type(v, t) for v, t in zip((y, mean, var), types, strict=True))


@kernel(Op.BATCH_NORM_INFERENCE)
def _batch_norm_inference(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    (x, scale, offset, mean, var), eps, _, shape = _batch_norm_inputs(instruction, operands)
    with np.errstate(invalid="ignore", divide="ignore"):
        y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
        y = y * scale.reshape(shape) + offset.reshape(shape)
    return to_element_type(y, instruction.shape.element_type)


@kernel(Op.BATCH_NORM_GRAD)
def _batch_norm_grad(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """(d operand, d scale, d offset) of batch-norm-training, given the saved mean/variance."""
    (x, scale, mean, var, dy), eps, axes, shape = _batch_norm_inputs(instruction, operands)
    count = np.prod([x.shape[d] for d in axes])
    with np.errstate(invalid="ignore", divide="ignore"):
        inv_std = 1.0 / np.sqrt(var + eps)
        centered = x - mean.reshape(shape)
        d_offset = dy.sum(axis=axes)
        d_centered = (dy * centered).sum(axis=axes)
        d_scale = d_centered * inv_std
        dx = (scale * inv_std).reshape(shape) * (
            dy
            - (d_offset / count).reshape(shape)
            - centered * (d_centered / (count * (var + eps))).reshape(shape)
        )
    types = [s.element_type for s in instruction.shape.tuple_shapes]
    return tuple(
        to_element_type(np.asarray(v), t)
        for v, t in zip((dx, d_scale, d_offset), types, strict=True)
    )


__all__ = ["compute_dtype", "operand_element_type", "to_element_type", "widen"]
