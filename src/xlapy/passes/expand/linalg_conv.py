"""``ConvolutionCanonicalizer``: any float convolution with one or two spatial
dimensions as the form a GEMM-per-tap emitter takes (NHWC x HWIO -> NHWC, unit
strides, no dilation, padding >= 0, one feature group), with movement ops around.

Why: every other form is that one on rearranged data:

* dimension labels: transposes to ``[N, S..., C]`` and ``[K..., I, O]`` and back;
* one spatial dimension: a unit second one;
* window reversal: the kernel reversed;
* window (rhs) dilation: zeros between kernel taps (interior padding of the
  kernel), base (lhs) dilation: zeros between input elements;
* negative padding: a slice of the input; positive padding stays in the window;
* strides: the unit-stride result sliced with the stride (the skipped positions
  are computed and dropped: simple, and cheap for the usual strides of 2);
* feature groups: one convolution per group on its block of input channels and
  output features, concatenated; batch groups likewise on blocks of the batch;
* f16/bf16 (and mixed float types): the interpreter accumulates in f32 (f64 when
  any type is f64) and rounds once, so the operands are converted up and the
  result down around the f32/f64 convolution.

Integer convolutions become, after the same rearrangements, a sum over kernel
taps of integer dots ``[N*H*W, C] x [C, O]`` in the result's width (products
and sums wrap modulo 2^width, so the interpreter's 64-bit accumulation gives the
same bits). Complex convolutions and three spatial dimensions are left alone. The expansion
is built with the builder (so every shape is inferred and checked) and spliced in place of
the instruction.
"""

from __future__ import annotations

import math

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...hlo.instruction import HloInstruction
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import ConvolutionDimensionNumbers, PaddingConfig, WindowDimension
from ..rewrite import ExpanderPass, splice_computation

Op = HloOpcode
P = PrimitiveType
FLOATS = (P.F16, P.BF16, P.F32, P.F64)
INTS = (P.S8, P.S16, P.S32, P.S64, P.U8, P.U16, P.U32, P.U64)
NHWC_HWIO = ConvolutionDimensionNumbers(
    input_batch_dimension=0, input_feature_dimension=3, input_spatial_dimensions=(1, 2),
    kernel_input_feature_dimension=2, kernel_output_feature_dimension=3,
    kernel_spatial_dimensions=(0, 1), output_batch_dimension=0, output_feature_dimension=3,
    output_spatial_dimensions=(1, 2),
)  # fmt: skip


def native_form(instruction: HloInstruction) -> bool:
    d = instruction.convolution_dimension_numbers
    window = instruction.window
    dims = list(window.dimensions) if window is not None else []
    x, w = instruction.operands
    et = instruction.shape.element_type
    return (
        et in (P.F32, P.F64)
        and x.shape.element_type == w.shape.element_type == et
        and int(instruction.attribute("feature_group_count", 1) or 1) == 1
        and len(dims) == 2
        and (d.input_batch_dimension, d.input_feature_dimension) == (0, 3)
        and tuple(d.input_spatial_dimensions) == (1, 2)
        and (d.kernel_input_feature_dimension, d.kernel_output_feature_dimension) == (2, 3)
        and tuple(d.kernel_spatial_dimensions) == (0, 1)
        and (d.output_batch_dimension, d.output_feature_dimension) == (0, 3)
        and tuple(d.output_spatial_dimensions) == (1, 2)
        and all(
            wd.stride == 1
            and wd.window_dilation == 1
            and wd.base_dilation == 1
            and not wd.window_reversal
            and wd.padding_low >= 0
            and wd.padding_high >= 0
            for wd in dims
        )
    )


def dims_of(value: XlaOp) -> list[int]:
    return list(value.shape.dimensions)


def pad_one(value: XlaOp, zero: XlaOp, dim: int, interior: int) -> XlaOp:
    """``interior`` zeros between the elements of dimension ``dim``."""
    triples = [(0, 0, 0)] * len(dims_of(value))
    triples[dim] = (0, 0, interior)
    return ops.Pad(value, zero, PaddingConfig.from_triples(triples))


def block(value: XlaOp, dim: int, start: int, stop: int) -> XlaOp:
    """Elements ``start:stop`` of dimension ``dim``, all of the others."""
    dims = dims_of(value)
    starts, limits = [0] * len(dims), list(dims)
    starts[dim], limits[dim] = start, stop
    return ops.Slice(value, starts, limits, [1] * len(dims))


def expansion(instruction: HloInstruction) -> XlaComputation | None:
    x, w = instruction.operands
    out = instruction.shape
    types = (x.shape.element_type, w.shape.element_type, out.element_type)
    floats = all(t in FLOATS for t in types)
    if not (floats or all(t in INTS for t in types)) or native_form(instruction):
        return None
    batch_groups = int(instruction.attribute("batch_group_count", 1) or 1)
    d = instruction.convolution_dimension_numbers
    window = instruction.window
    wds = list(window.dimensions) if window is not None else []
    spatial = len(d.input_spatial_dimensions)
    if spatial not in (1, 2) or len(wds) != spatial:
        return None
    feature_groups = int(instruction.attribute("feature_group_count", 1) or 1)
    if feature_groups > 1 and batch_groups > 1:
        return None
    groups = max(feature_groups, batch_groups)
    # Integers: products and sums wrap modulo 2^width, so the result's width will do.
    compute = (P.F64 if P.F64 in types else P.F32) if floats else out.element_type
    b = XlaBuilder(f"{instruction.name}_expanded")
    xp = ops.Parameter(b, 0, Shape.array(x.shape.element_type, x.shape.dimensions), "x")
    wp = ops.Parameter(b, 1, Shape.array(w.shape.element_type, w.shape.dimensions), "w")
    if (
        math.prod(out.dimensions) == 0
        or math.prod(x.shape.dimensions) == 0
        or math.prod(w.shape.dimensions) == 0
    ):
        zero_out = ops.ConstantLiteral(b, Literal.scalar(0, out.element_type))
        return b.build(ops.Broadcast(zero_out, list(out.dimensions)))

    def converted(value: XlaOp) -> XlaOp:
        et = value.shape.element_type
        return value if et == compute else ops.ConvertElementType(value, compute)

    x_order = [d.input_batch_dimension, *d.input_spatial_dimensions, d.input_feature_dimension]
    w_order = [*d.kernel_spatial_dimensions, d.kernel_input_feature_dimension,
               d.kernel_output_feature_dimension]  # fmt: skip
    xv = ops.Transpose(converted(xp), x_order)
    wv = ops.Transpose(converted(wp), w_order)
    if spatial == 1:  # a unit first spatial dimension
        n, s, c = dims_of(xv)
        xv = ops.Reshape(xv, [n, 1, s, c])
        k, i, o = dims_of(wv)
        wv = ops.Reshape(wv, [1, k, i, o])
        wds = [WindowDimension(), *wds]
    zero = ops.ConstantLiteral(b, Literal.scalar(0, compute))
    sizes, strides, low_high = [], [], []
    for i, wd in enumerate(wds):
        if wd.window_reversal:
            wv = ops.Rev(wv, [i])
        if wd.window_dilation > 1 and dims_of(wv)[i] > 1:
            wv = pad_one(wv, zero, i, wd.window_dilation - 1)
        if wd.base_dilation > 1 and dims_of(xv)[1 + i] > 1:
            xv = pad_one(xv, zero, 1 + i, wd.base_dilation - 1)
        lo, hi = wd.padding_low, wd.padding_high
        if lo < 0 or hi < 0:
            n = dims_of(xv)[1 + i]
            start, stop = max(-lo, 0), n - max(-hi, 0)
            if stop < start:
                return None
            xv = block(xv, 1 + i, start, stop)
        low_high.append((max(lo, 0), max(hi, 0)))
        strides.append(wd.stride)
        sizes.append(dims_of(wv)[i])
    x_dims, w_dims = dims_of(xv), dims_of(wv)
    n_all = x_dims[0]
    n_b = n_all // batch_groups  # each batch group is a contiguous block of the batch
    c_in, c_g = x_dims[3], w_dims[2]
    o_all = w_dims[3]
    o_g = o_all // groups
    full = [x_dims[1 + i] + low_high[i][0] + low_high[i][1] - sizes[i] + 1 for i in range(2)]
    if any(f <= 0 for f in full) or c_in != c_g * feature_groups or n_all != n_b * batch_groups:
        return None
    parts = []
    for g in range(groups):
        xg, wg = xv, wv
        if feature_groups > 1:  # a block of input channels
            xg = block(xv, 3, g * c_g, (g + 1) * c_g)
        if batch_groups > 1:  # a block of the batch
            xg = block(xv, 0, g * n_b, (g + 1) * n_b)
        if groups > 1:  # its block of output features
            wg = block(wv, 3, g * o_g, (g + 1) * o_g)
        if floats:
            parts.append(ops.ConvGeneralDilated(xg, wg, [1, 1], low_high, [], [], NHWC_HWIO))
        else:
            parts.append(tap_sum(xg, wg, low_high, full, zero))
    y = parts[0] if groups == 1 else ops.ConcatInDim(b, parts, 3)
    if any(s > 1 for s in strides):
        y = ops.Slice(y, [0, 0, 0, 0], [n_b, full[0], full[1], o_all], [1, *strides, 1])
    if spatial == 1:
        y_dims = dims_of(y)
        y = ops.Reshape(y, [y_dims[0], y_dims[2], y_dims[3]])
    order = [d.output_batch_dimension, *d.output_spatial_dimensions, d.output_feature_dimension]
    y = ops.Transpose(y, [order.index(p) for p in range(len(order))])
    if dims_of(y) != list(out.dimensions):
        return None
    if out.element_type != compute:
        y = ops.ConvertElementType(y, out.element_type)
    return b.build(y)


def tap_sum(x: XlaOp, w: XlaOp, low_high: list, full: list[int], zero: XlaOp) -> XlaOp:
    """The unit-stride NHWC x HWIO convolution as a sum over kernel taps of dots
    ``[N*H*W, C] x [C, O]`` (integer dots run as native loops)."""
    n, _, _, c = dims_of(x)
    kh, kw, _, o = dims_of(w)
    triples = [(0, 0, 0), (*low_high[0], 0), (*low_high[1], 0), (0, 0, 0)]
    padded = ops.Pad(x, zero, PaddingConfig.from_triples(triples))
    rows = n * full[0] * full[1]
    total = None
    for i in range(kh):
        for j in range(kw):
            window = ops.Slice(padded, [0, i, j, 0], [n, i + full[0], j + full[1], c], [1] * 4)
            flat = ops.Reshape(window, [rows, c])
            tap = ops.Slice(w, [i, j, 0, 0], [i + 1, j + 1, c, o], [1] * 4)
            product = ops.Dot(flat, ops.Reshape(tap, [c, o]))
            total = product if total is None else ops.Add(total, product)
    return ops.Reshape(total, [n, full[0], full[1], o])


def canonicalize_convolution(instruction: HloInstruction) -> HloInstruction | None:
    built = expansion(instruction)
    return None if built is None else splice_computation(instruction, built)


class ConvolutionCanonicalizer(ExpanderPass):
    name = "convolution-canonicalizer"
    opcodes = frozenset({Op.CONVOLUTION})

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        return canonicalize_convolution(instruction)
