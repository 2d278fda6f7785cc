"""Convolution NHWC x HWIO with unit strides and dilations: im2col block by block.

The input is copied once into a zero-padded buffer. Numbering output positions
over the padded width (``r = (b * Hp + y) * Wp + x``), the input under kernel
tap ``(i, j)`` for every position is the padded buffer shifted by
``(i * Wp + j) * C`` elements. Blocks of positions are spread over the cores;
each copies its positions' patches (every tap's C values side by side) into a
``[rows, KH * KW * C]`` matrix on the thread's stack and runs one single-threaded
GEMM against the weights read as ``[KH * KW * C, O]``, writing an ``[M, O]``
block of sums on the thread's stack, from which the block's valid ``Ho x Wo``
positions are copied to the output; the wasted border rows cost
``Hp * Wp / (Ho * Wo)`` - 1 extra work (6% for 64x64 SAME).
One GEMM with K = KH * KW * C keeps BLAS's kernel busy where one per tap
(K = C) spends more of its time packing. ``ConvolutionCanonicalizer`` brings the
other forms to this one. With xlapy's GEMM (the default, and ahead-of-time code) the
same steps run as the runtime library's kernels with the geometry as data
(``linalg_conv_library``); with OpenBLAS they are emitted here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import for_range, i64
from ..llvm_types import I8, I8_PTR, NotEmittable
from .linalg_conv_library import CONV_TYPES, emit_convolution
from .linalg_dot import GEMM_ROUTINES, emit_gemm
from .linalg_gemm_split import at, emit_row_blocks
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
PATCH_BYTES = 256 * 1024
ROW_QUANTUM = 48  # a multiple of every register tile's columns (12, 6, 4)


def _nhwc_hwio(instruction: HloInstruction) -> bool:
    d = instruction.attribute("dim_labels")
    return (
        d is not None
        and (d.input_batch_dimension, d.input_feature_dimension, tuple(d.input_spatial_dimensions))
        == (0, 3, (1, 2))
        and (
            d.kernel_input_feature_dimension,
            d.kernel_output_feature_dimension,
            tuple(d.kernel_spatial_dimensions),
        )
        == (2, 3, (0, 1))
        and (
            d.output_batch_dimension,
            d.output_feature_dimension,
            tuple(d.output_spatial_dimensions),
        )
        == (0, 3, (1, 2))
    )


@thunk_emitter(Op.CONVOLUTION)
def _convolution(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    x, w = instruction.operands
    et = instruction.shape.element_type
    if not (
        x.shape.element_type == w.shape.element_type == et
        and et in GEMM_ROUTINES
        and not et.is_complex
    ):
        raise NotEmittable(f"convolution of {x.shape} x {w.shape} -> {instruction.shape}")
    if (
        int(instruction.attribute("feature_group_count", 1) or 1) != 1
        or int(instruction.attribute("batch_group_count", 1) or 1) != 1
    ):
        raise NotEmittable("grouped convolution")
    if x.shape.rank != 4 or not _nhwc_hwio(instruction):
        raise NotEmittable("a convolution other than NHWC x HWIO -> NHWC")
    window = instruction.attribute("window")
    dims = list(window.dimensions) if window is not None else []
    if len(dims) != 2 or any(
        d.stride != 1
        or d.window_dilation != 1
        or d.base_dilation != 1
        or d.window_reversal
        or d.padding_low < 0
        or d.padding_high < 0
        for d in dims
    ):
        raise NotEmittable("a strided, dilated, reversed or cropped convolution")
    batch, height, width, channels = x.shape.dimensions
    kh, kw, kc, outs = w.shape.dimensions
    hp = height + dims[0].padding_low + dims[0].padding_high
    wp = width + dims[1].padding_low + dims[1].padding_high
    ho, wo = hp - kh + 1, wp - kw + 1
    if kc != channels or tuple(instruction.shape.dimensions) != (batch, ho, wo, outs):
        raise NotEmittable("unexpected convolution shapes")
    out = fe.value(instruction)
    if not isinstance(out, Slot) or min(batch, ho, wo, outs, channels, kh, kw) <= 0:
        raise NotEmittable("an empty convolution")
    size = et.byte_width
    m = batch * hp * wp - ((kh - 1) * wp + (kw - 1))
    padded_offset = fe.m.reserve(batch * hp * wp * channels * size)
    b = fe.b
    padded = b.gep(fe.arena_base, [i64(padded_offset)])
    source, target = fe.pointer(fe.value(x)), fe.pointer(out)
    depth = kh * kw * channels
    # Rows per block: the block's patches fill about PATCH_BYTES (L2-resident while the
    # GEMM reads them), a multiple of ROW_QUANTUM so that the GEMM has no partial tiles.
    block = max(ROW_QUANTUM, PATCH_BYTES // (depth * size) // ROW_QUANTUM * ROW_QUANTUM)
    if fe.m.gemm_loops and et in CONV_TYPES:  # the runtime library's kernels
        geometry = {
            "batch": batch, "height": height, "width": width, "channels": channels,
            "kh": kh, "kw": kw, "outs": outs, "pad_top": dims[0].padding_low,
            "pad_left": dims[1].padding_low, "hp": hp, "wp": wp, "ho": ho, "wo": wo,
            "block": block, "rows": m,
        }  # fmt: skip
        weights = fe.pointer(fe.value(w))
        emit_convolution(fe, et, geometry, (source, weights, target, padded))
        return
    memset = fe.m.ir.declare_intrinsic("llvm.memset", [I8_PTR, ir.IntType(64)])
    b.call(
        memset,
        [padded, I8(0), i64(batch * hp * wp * channels * size), ir.Constant(ir.IntType(1), 0)],
    )
    row_bytes = width * channels * size
    with for_range(b, 0, batch * height, "in_row") as row:
        bi = b.udiv(row, i64(height))
        y = b.urem(row, i64(height))
        dst_row = b.add(
            b.mul(b.add(b.mul(bi, i64(hp)), b.add(y, i64(dims[0].padding_low))), i64(wp)),
            i64(dims[1].padding_low),
        )
        fe.m.memcpy(
            b,
            b.gep(padded, [b.mul(dst_row, i64(channels * size))]),
            b.gep(source, [b.mul(row, i64(row_bytes))]),
            row_bytes,
        )
    # Per block (see the docstring), column-major: O x rows = (O x K) . (K x rows).
    weights = fe.pointer(fe.value(w))
    tap_bytes = channels * size

    def patches(kb, buffers, first, count_at, scratch):  # noqa: ANN001, ANN202
        rows, kernel, output = buffers
        count = kb.zext(kb.load(kb.bitcast(count_at, ir.IntType(32).as_pointer())), ir.IntType(64))
        with for_range(kb, 0, count, "patch_row") as r:
            source = at(kb, rows, kb.add(first, r), tap_bytes)
            target = at(kb, scratch, r, depth * size)
            # The kw taps of a kernel row are side by side in the padded input and in
            # the patch: one copy per kernel row (each constant-size copy costs LLVM
            # about a millisecond to lower).
            for i in range(kh):
                fe.m.memcpy(
                    kb,
                    kb.gep(target, [i64(i * kw * tap_bytes)]),
                    kb.gep(source, [i64(i * wp * tap_bytes)]),
                    kw * tap_bytes,
                )
        sums = kb.gep(scratch, [i64(block * depth * size)])
        emit_gemm(
            fe, et, outs, block, depth, kernel, outs, scratch, depth, sums, outs,
            builder=kb, n_at=count_at,
        )  # fmt: skip
        _copy_valid_rows(fe, kb, sums, output, first, count, (hp, wp, ho, wo), outs * size)

    emit_row_blocks(
        fe, f"conv_{instruction.name}", [padded, weights, target], m, block, patches,
        scratch_bytes=block * (depth + outs) * size,
    )  # fmt: skip


def _copy_valid_rows(fe, b, sums, output, first, count, grid, row_bytes) -> None:  # noqa: ANN001
    """The block's rows ``[first, first + count)`` of the padded grid (``hp x wp`` per
    image) that are output positions (``y < ho``, ``x < wo``), one run per grid row,
    from the block's sums (on the task's stack, still in cache) to the output. Writing
    the whole grid to a buffer of the arena and copying from it afterwards missed the
    cache on every store of the GEMM (a fifth of the convolution's time)."""
    hp, wp, ho, wo = grid
    memcpy = fe.m.ir.declare_intrinsic("llvm.memcpy", [I8_PTR, I8_PTR, ir.IntType(64)])
    last = b.add(first, count)
    with for_range(b, b.udiv(first, i64(wp)), b.udiv(b.add(last, i64(wp - 1)), i64(wp)), "grid_row") as g:
        start = b.mul(g, i64(wp))
        lo = b.select(b.icmp_signed(">", first, start), first, start)
        end = b.add(start, i64(wo))
        hi = b.select(b.icmp_signed("<", last, end), last, end)
        y = b.urem(g, i64(hp))
        with b.if_then(b.and_(b.icmp_signed("<", lo, hi), b.icmp_signed("<", y, i64(ho)))):
            image = b.udiv(g, i64(hp))
            out_row = b.add(b.mul(b.add(b.mul(image, i64(ho)), y), i64(wo)), b.sub(lo, start))
            length = b.mul(b.sub(hi, lo), i64(row_bytes))
            source = b.gep(sums, [b.mul(b.sub(lo, first), i64(row_bytes))])
            target = b.gep(output, [b.mul(out_row, i64(row_bytes))])
            b.call(memcpy, [target, source, length, ir.Constant(ir.IntType(1), 0)])
