"""Interpreter kernels of ragged-dot and scaled-dot, built on the dot kernel's arithmetic.

ragged-dot cuts the lhs ragged dimension into consecutive groups of the sizes
in ``group_sizes`` (positions past the last group belong to none). Its mode is
the ragged dimension's role:

* non-contracting: group ``i``'s rows multiply rhs matrix ``i`` (rhs_group_dims
  names the dimension that selects it, absent from the result); rows in no
  group give zeros;
* contracting: result ``[i, ...]`` is the dot over group ``i``'s part of the
  contracting dimension only (a new leading result dimension of size g);
* batch: every batch entry is a whole dot, so the result is the plain dot.

``group_sizes`` is ``[g]`` or vectorized over a prefix of lhs dimensions (the
batch dimensions and the dimensions of the ragged dimension's kind that come
before it), as the shape rule allows.

scaled-dot multiplies each operand in f32 by its scale repeated along each
dimension it divides, then computes the dot.
"""

from __future__ import annotations

import numpy as np

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode as Op
from ...types import PrimitiveType
from ..core import EvalContext, Value, kernel
from .linalg import compute_dtype, operand_element_type, to_element_type, widen


def _dot_numbers(instruction: HloInstruction) -> tuple[list[int], list[int], list[int], list[int]]:
    dn = instruction.dot_dimension_numbers
    return (
        list(dn.lhs_contracting_dimensions),
        list(dn.rhs_contracting_dimensions),
        list(dn.lhs_batch_dimensions),
        list(dn.rhs_batch_dimensions),
    )


def dot_general(
    a: np.ndarray,
    b: np.ndarray,
    lc: list[int],
    rc: list[int],
    lb: list[int],
    rb: list[int],
) -> np.ndarray:
    """DotGeneral of two arrays already in the compute type: batch, lhs free, rhs free dims."""
    lf = [d for d in range(a.ndim) if d not in lc + lb]
    rf = [d for d in range(b.ndim) if d not in rc + rb]

    def size(x: np.ndarray, dims: list[int]) -> int:
        return int(np.prod([x.shape[d] for d in dims], dtype=np.int64))

    dims = [a.shape[d] for d in lb] + [a.shape[d] for d in lf] + [b.shape[d] for d in rf]
    x = a.transpose(lb + lf + lc).reshape(size(a, lb), size(a, lf), size(a, lc))
    y = b.transpose(rb + rc + rf).reshape(size(b, rb), size(b, rc), size(b, rf))
    with np.errstate(over="ignore", invalid="ignore"):
        product = np.matmul(x, y)
    return product.reshape(dims)


def _group_masks(
    lhs_shape: tuple[int, ...], sizes: np.ndarray, ragged: int, prefix: list[int]
) -> list[np.ndarray]:
    """For each group, a boolean mask of lhs's shape (broadcastable) selecting its positions."""
    sizes = np.asarray(sizes).astype(np.int64)
    ends = np.cumsum(sizes, axis=-1)
    starts = ends - sizes
    rank = len(lhs_shape)
    # Where group_sizes' leading dimensions sit in the lhs (a rank-1 group_sizes shares one
    # set of sizes across every prefix position).
    lead = prefix if sizes.ndim > 1 else []
    bshape = [1] * rank
    for d in lead:
        bshape[d] = lhs_shape[d]
    index_shape = [1] * rank
    index_shape[ragged] = lhs_shape[ragged]
    index = np.arange(lhs_shape[ragged], dtype=np.int64).reshape(index_shape)
    masks = []
    for i in range(sizes.shape[-1]):
        lo = starts[..., i].reshape(bshape)
        hi = ends[..., i].reshape(bshape)
        masks.append((index >= lo) & (index < hi))
    return masks


@kernel(Op.RAGGED_DOT)
def _ragged_dot(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    lhs, rhs, sizes = operands
    lc, rc, lb, rb = _dot_numbers(instruction)
    (r,) = (int(d) for d in instruction.attribute("lhs_ragged_dims", ()))
    group = [int(d) for d in instruction.attribute("rhs_group_dims", ())]
    out_type = instruction.shape.element_type
    dtype = compute_dtype(
        operand_element_type(instruction, 0), operand_element_type(instruction, 1), out_type
    )
    a, b = widen(lhs, dtype), widen(rhs, dtype)

    if r in lb:
        return to_element_type(dot_general(a, b, lc, rc, lb, rb), out_type)
    contracting = r in lc
    prefix = [d for d in range(r) if d in lb or (d in lc if contracting else d not in lc)]
    masks = _group_masks(lhs.shape, sizes, r, prefix)
    zero = np.zeros((), dtype)
    if contracting:
        parts = [dot_general(np.where(m, a, zero), b, lc, rc, lb, rb) for m in masks]
        result = np.stack(parts) if parts else np.zeros(instruction.shape.dimensions, dtype)
        return to_element_type(result.reshape(instruction.shape.dimensions), out_type)

    # Non-contracting: each row group multiplies its own rhs matrix.
    (g,) = group

    def shift(dims: list[int]) -> list[int]:
        return [d - 1 if d > g else d for d in dims]

    result = np.zeros(instruction.shape.dimensions, dtype)
    for i, m in enumerate(masks):
        if i >= b.shape[g]:
            break
        part = dot_general(
            np.where(m, a, zero), np.take(b, i, axis=g), lc, shift(rc), lb, shift(rb)
        )
        with np.errstate(over="ignore", invalid="ignore"):
            result = result + part
    return to_element_type(result, out_type)


def _apply_scale(x: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``x * scale`` in f32, the scale repeated along each dimension to ``x``'s size."""
    s = np.asarray(scale).astype(np.float32)
    for d, (n, k) in enumerate(zip(x.shape, s.shape, strict=True)):
        if k != n and k != 0:
            s = np.repeat(s, n // k, axis=d)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x).astype(np.float32) * s.reshape(x.shape)


@kernel(Op.SCALED_DOT)
def _scaled_dot(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    lhs, rhs, lhs_scale, rhs_scale = operands
    lc, rc, lb, rb = _dot_numbers(instruction)
    out_type = instruction.shape.element_type
    dtype = compute_dtype(PrimitiveType.F32, PrimitiveType.F32, out_type)
    a = widen(_apply_scale(lhs, lhs_scale), dtype)
    b = widen(_apply_scale(rhs, rhs_scale), dtype)
    return to_element_type(dot_general(a, b, lc, rc, lb, rb), out_type)
