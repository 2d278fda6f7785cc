"""Shape rules of the linear-algebra ops: dots, convolution, FFT, factorizations, batch norm.

These are the ops whose result dimensions are computed from the operands'
dimensions (contracted, windowed or transformed), so each rule repeats the
checks of XLA's ShapeInference with a message that says which dimension is
wrong and what would be valid. Where HLO text states the result element type
(dot's ``preferred_element_type``, a mixed-precision convolution), the
declared shape supplies it; otherwise XLA's "higher precision of the two
operands" rule does.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..opcode import HloOpcode as Op
from ..shape import UNBOUNDED_SIZE, Shape
from ..types import PrimitiveType
from ..xla_data import ConvolutionDimensionNumbers, FftType, Transpose, Window, WindowDimension
from ._core import InferenceContext, array_shape, rule

# -- shared helpers ------------------------------------------------------------------


def _precision_key(t: PrimitiveType) -> tuple[bool, int, int, int, bool]:
    """XLA's ordering for HigherPrecisionElementType: complex, then range, then precision."""
    part = t.component_type
    exponent, mantissa = part.exponent_mantissa_bits if part.is_float else (-1, -1)
    width = 1 if part.is_pred else part.bit_width
    return (t.is_complex, exponent, mantissa, width, part.is_signed_integral)


def higher_precision_type(a: PrimitiveType, b: PrimitiveType) -> PrimitiveType:
    """The element type XLA gives a mixed-precision dot or convolution without a stated one."""
    return a if _precision_key(a) >= _precision_key(b) else b


def _result_type(ctx: InferenceContext, lhs: Shape, rhs: Shape) -> PrimitiveType:
    """The stated result type (HLO's preferred_element_type) or XLA's default for the pair."""
    if ctx.declared is not None:
        if not ctx.declared.is_array:
            ctx.fail(f"the result must be an array, got {ctx.declared}")
        return ctx.declared.element_type
    return higher_precision_type(lhs.element_type, rhs.element_type)


def _sizes_agree(a: int, b: int) -> bool:
    return a == b or UNBOUNDED_SIZE in (a, b)


def _check_operand_precision(ctx: InferenceContext, count: int) -> None:
    """operand_precision, when given, has one entry per operand that it describes."""
    precision = ctx.attr("operand_precision", ())
    if len(precision) not in (0, count):
        ctx.fail(
            f"operand_precision has {len(precision)} entries; give one per operand "
            f"({count}) or none"
        )


class _DotNumbers:
    """The four dimension lists of a dot, read from their HLO attributes."""

    def __init__(self, ctx: InferenceContext) -> None:
        self.lhs_contracting = ctx.int_list("lhs_contracting_dims", [])
        self.rhs_contracting = ctx.int_list("rhs_contracting_dims", [])
        self.lhs_batch = ctx.int_list("lhs_batch_dims", [])
        self.rhs_batch = ctx.int_list("rhs_batch_dims", [])

    def lhs_free(self, rank: int) -> list[int]:
        return [d for d in range(rank) if d not in self.lhs_contracting + self.lhs_batch]

    def rhs_free(self, rank: int, excluded: Sequence[int] = ()) -> list[int]:
        skip = set(self.rhs_contracting + self.rhs_batch) | set(excluded)
        return [d for d in range(rank) if d not in skip]


def _check_dot_numbers(ctx: InferenceContext, lhs: Shape, rhs: Shape, dn: _DotNumbers) -> None:
    """XLA's ValidateDotDimensionNumbers plus the size checks of InferDotOpShape."""
    for side, shape, contracting, batch in (
        ("lhs", lhs, dn.lhs_contracting, dn.lhs_batch),
        ("rhs", rhs, dn.rhs_contracting, dn.rhs_batch),
    ):
        ctx.check_dimension_numbers(contracting, shape.rank, f"{side}_contracting_dims")
        ctx.check_dimension_numbers(batch, shape.rank, f"{side}_batch_dims")
        both = sorted(set(contracting) & set(batch))
        if both:
            ctx.fail(f"{side} dimension(s) {both} are both batch and contracting dimensions")
    for kind, lhs_dims, rhs_dims in (
        ("contracting", dn.lhs_contracting, dn.rhs_contracting),
        ("batch", dn.lhs_batch, dn.rhs_batch),
    ):
        if len(lhs_dims) != len(rhs_dims):
            ctx.fail(
                f"lhs_{kind}_dims {lhs_dims} and rhs_{kind}_dims {rhs_dims} must name the same "
                f"number of dimensions"
            )
        for a, b in zip(lhs_dims, rhs_dims, strict=True):
            if not _sizes_agree(lhs.dimensions[a], rhs.dimensions[b]):
                ctx.fail(
                    f"{kind} dimension sizes differ: lhs dimension {a} has size "
                    f"{lhs.dimensions[a]}, rhs dimension {b} has size {rhs.dimensions[b]}"
                )


def _dot_dimensions(
    lhs: Shape, rhs: Shape, dn: _DotNumbers, rhs_excluded: Sequence[int] = ()
) -> tuple[list[int], list[bool]]:
    """Batch dimensions, then lhs free dimensions, then rhs free dimensions."""
    dims: list[int] = []
    dynamic: list[bool] = []
    for a, b in zip(dn.lhs_batch, dn.rhs_batch, strict=True):
        size = lhs.dimensions[a] if lhs.dimensions[a] != UNBOUNDED_SIZE else rhs.dimensions[b]
        dims.append(size)
        dynamic.append(lhs.dynamic_dimensions[a] or rhs.dynamic_dimensions[b])
    for shape, free in ((lhs, dn.lhs_free(lhs.rank)), (rhs, dn.rhs_free(rhs.rank, rhs_excluded))):
        dims += [shape.dimensions[d] for d in free]
        dynamic += [shape.dynamic_dimensions[d] for d in free]
    return dims, dynamic


# -- dot, ragged-dot, scaled-dot --------------------------------------------------------


@rule(Op.DOT)
def _dot(ctx: InferenceContext) -> Shape:
    """DotGeneral; mixed operand types are allowed, as in XLA, and the result type is stated."""
    ctx.expect_operand_count(2)
    lhs, rhs = ctx.array(0, "lhs"), ctx.array(1, "rhs")
    dn = _DotNumbers(ctx)
    _check_dot_numbers(ctx, lhs, rhs, dn)
    _check_operand_precision(ctx, 2)
    dims, dynamic = _dot_dimensions(lhs, rhs, dn)
    return array_shape(_result_type(ctx, lhs, rhs), dims, dynamic)


@rule(Op.RAGGED_DOT)
def _ragged_dot(ctx: InferenceContext) -> Shape:
    """A dot whose lhs ragged dimension is split into groups of the sizes in operand 2.

    The ragged dimension's role picks the mode: a free (non-contracting) ragged
    dimension selects one rhs group per row, so rhs has a group dimension
    that disappears from the result; a contracting one produces one result per
    group (a new leading dimension of size g); a batch one behaves like dot.
    """
    ctx.expect_operand_count(3)
    lhs, rhs = ctx.array(0, "lhs"), ctx.array(1, "rhs")
    sizes = ctx.array(2, "group_sizes")
    if not sizes.element_type.is_integral:
        ctx.fail(f"group_sizes must have an integer element type, got {sizes}")
    dn = _DotNumbers(ctx)
    ragged = ctx.int_list("lhs_ragged_dims", [])
    group = ctx.int_list("rhs_group_dims", [])
    if len(ragged) != 1:
        ctx.fail(f"there must be exactly one ragged dimension in the lhs, got {ragged}")
    (r,) = ragged
    if not 0 <= r < lhs.rank:
        ctx.fail(f"lhs ragged dimension {r} is out of range [0, {lhs.rank})")
    if r in dn.lhs_contracting:
        mode = "contracting"
    elif r in dn.lhs_batch:
        mode = "batch"
    else:
        mode = "non-contracting"
    if mode == "non-contracting" and len(group) != 1:
        ctx.fail(
            f"a ragged non-contracting lhs dimension needs exactly one group dimension in the "
            f"rhs (rhs_group_dims), got {group}"
        )
    if mode != "non-contracting" and group:
        ctx.fail(
            f"there must be zero group dimensions in the rhs when the lhs ragged dimension is "
            f"a {mode} dimension, got rhs_group_dims={group}"
        )
    for g in group:
        if not 0 <= g < rhs.rank:
            ctx.fail(f"rhs group dimension {g} is out of range [0, {rhs.rank})")
        if g in dn.rhs_contracting or g in dn.rhs_batch:
            ctx.fail(f"rhs group dimension {g} cannot be a batch or contracting dimension")
    _check_dot_numbers(ctx, lhs, rhs, dn)
    _check_operand_precision(ctx, 2)

    groups = rhs.dimensions[group[0]] if group else sizes.dimensions[-1] if sizes.rank else 0
    # group_sizes is [g], or vectorized over the lhs batch dimensions and the
    # lhs dimensions of the ragged dimension's own kind that come before it.
    own_kind = {
        "contracting": lambda d: d in dn.lhs_contracting,
        "batch": lambda d: False,
        "non-contracting": lambda d: d not in dn.lhs_contracting,
    }[mode]
    prefix = [lhs.dimensions[d] for d in range(r) if d in dn.lhs_batch or own_kind(d)]
    if sizes.rank == 1:
        if sizes.dimensions[0] != groups:
            ctx.fail(
                f"rhs group dimension is expected to have size={sizes.dimensions[0]} (the "
                f"number of group sizes), got {groups}"
            )
    elif not prefix:
        ctx.fail(f"expected group_sizes to have rank 1, got {sizes.rank}")
    elif list(sizes.dimensions) != prefix + [groups]:
        ctx.fail(
            f"group_sizes is expected to have shape {prefix + [groups]} or [{groups}], got "
            f"{list(sizes.dimensions)}"
        )
    dims, dynamic = _dot_dimensions(lhs, rhs, dn, group)
    if mode == "contracting":
        dims, dynamic = [groups] + dims, [False] + dynamic
    return array_shape(_result_type(ctx, lhs, rhs), dims, dynamic)


@rule(Op.SCALED_DOT)
def _scaled_dot(ctx: InferenceContext) -> Shape:
    """A dot of lhs*lhs_scale and rhs*rhs_scale, each scale repeated over blocks.

    A scale has its operand's rank, and each of its dimensions divides the
    operand's (equal sizes, size-1 broadcasts and contracting-dimension blocks
    are all cases of that); the result is the dot of the unscaled operands.
    """
    ctx.expect_operand_count(4)
    lhs, rhs = ctx.array(0, "lhs"), ctx.array(1, "rhs")
    for index, operand, name in ((2, lhs, "lhs"), (3, rhs, "rhs")):
        scale = ctx.array(index, f"{name}_scale")
        if scale.rank != operand.rank:
            ctx.fail(
                f"{name}_scale {scale} must have the rank of {name} {operand} ({operand.rank})"
            )
        for d, (n, s) in enumerate(zip(operand.dimensions, scale.dimensions, strict=True)):
            if (s == 0 and n != 0) or (s != 0 and n % s != 0):
                ctx.fail(
                    f"{name} dimension {d} (size {n}) must be a multiple of {name}_scale "
                    f"dimension {d} (size {s})"
                )
    dn = _DotNumbers(ctx)
    _check_dot_numbers(ctx, lhs, rhs, dn)
    _check_operand_precision(ctx, 2)
    dims, dynamic = _dot_dimensions(lhs, rhs, dn)
    return array_shape(_result_type(ctx, lhs, rhs), dims, dynamic)


# -- convolution -------------------------------------------------------------------------


def _dilated(size: int, dilation: int) -> int:
    return 0 if size == 0 else (size - 1) * dilation + 1


def window_output_size(ctx: InferenceContext, base: int, dim: WindowDimension, index: int) -> int:
    """Valid window placements along one dimension (XLA's InferWindowOutputShape)."""
    if base == UNBOUNDED_SIZE:
        return UNBOUNDED_SIZE
    padded = dim.padding_low + _dilated(base, dim.base_dilation) + dim.padding_high
    if padded < 0:
        ctx.fail(
            f"window dimension {index}: padding {dim.padding_low}_{dim.padding_high} removes "
            f"more than the {_dilated(base, dim.base_dilation)} elements of the dilated base"
        )
    window = _dilated(dim.size, dim.window_dilation)
    if padded == 0 or window > padded:
        return 0
    return (padded - window) // dim.stride + 1


def _check_conv_numbers(ctx: InferenceContext, dn: ConvolutionDimensionNumbers, rank: int) -> None:
    for part, dims in (
        ("input", [dn.input_batch_dimension, dn.input_feature_dimension]),
        ("kernel", [dn.kernel_input_feature_dimension, dn.kernel_output_feature_dimension]),
        ("output", [dn.output_batch_dimension, dn.output_feature_dimension]),
    ):
        dims += list(getattr(dn, f"{part}_spatial_dimensions"))
        if sorted(dims) != list(range(rank)):
            ctx.fail(
                f"dim_labels: the {part} dimensions {dims} must contain each dimension 0..{rank - 1}"
                f" exactly once"
            )


@rule(Op.CONVOLUTION)
def _convolution(ctx: InferenceContext) -> Shape:
    """XLA's InferConvolveShape: grouped, batch-grouped and dilated convolutions."""
    ctx.expect_operand_count(2)
    lhs, rhs = ctx.array(0, "lhs"), ctx.array(1, "rhs")
    dn: ConvolutionDimensionNumbers = ctx.attr("dim_labels")
    window: Window = ctx.attr("window", Window())
    fgc = int(ctx.attr("feature_group_count", 1))
    bgc = int(ctx.attr("batch_group_count", 1))
    if fgc <= 0:
        ctx.fail(f"feature_group_count must be a positive number, got {fgc}")
    if bgc <= 0:
        ctx.fail(f"batch_group_count must be a positive number, got {bgc}")
    if fgc > 1 and bgc > 1:
        ctx.fail(
            f"batch_group_count ({bgc}) and feature_group_count ({fgc}) cannot both be "
            f"greater than 1"
        )
    n = dn.num_spatial_dimensions
    if len(window.dimensions) != n:
        ctx.fail(
            f"the window has {len(window.dimensions)} dimensions but dim_labels name {n} "
            f"spatial dimensions; they must agree"
        )
    for name, shape in (("lhs", lhs), ("rhs", rhs)):
        if shape.rank != n + 2:
            ctx.fail(
                f"the {name} must have rank {n + 2} ({n} spatial dimensions plus two), got {shape}"
            )
    _check_conv_numbers(ctx, dn, n + 2)
    _check_operand_precision(ctx, 2)

    in_features = lhs.dimensions[dn.input_feature_dimension]
    batch = lhs.dimensions[dn.input_batch_dimension]
    kernel_in = rhs.dimensions[dn.kernel_input_feature_dimension]
    kernel_out = rhs.dimensions[dn.kernel_output_feature_dimension]
    if kernel_out % bgc:
        ctx.fail(
            f"the output feature dimension size ({kernel_out}, rhs dimension "
            f"{dn.kernel_output_feature_dimension}) must be a multiple of batch_group_count "
            f"({bgc})"
        )
    if in_features % fgc or in_features // fgc != kernel_in:
        ctx.fail(
            f"the lhs feature dimension (size {in_features}) must be a multiple of "
            f"feature_group_count ({fgc}) and lhs features / feature_group_count must equal "
            f"the rhs input feature dimension (size {kernel_in})"
        )
    if kernel_out % fgc:
        ctx.fail(
            f"the output feature dimension size ({kernel_out}) must be divisible by "
            f"feature_group_count ({fgc})"
        )
    if batch != UNBOUNDED_SIZE and batch % bgc:
        ctx.fail(
            f"the lhs batch dimension (size {batch}) must be divisible by batch_group_count ({bgc})"
        )
    kernel_spatial = [rhs.dimensions[d] for d in dn.kernel_spatial_dimensions]
    sizes = [d.size for d in window.dimensions]
    if kernel_spatial != sizes:
        ctx.fail(
            f"the window sizes {sizes} do not match the rhs spatial dimensions {kernel_spatial}"
        )
    if rhs.dynamic_dimensions[dn.kernel_output_feature_dimension]:
        ctx.fail("a dynamic output feature dimension on the kernel is not supported")

    dims = [0] * (n + 2)
    dynamic = [False] * (n + 2)
    dims[dn.output_batch_dimension] = batch if batch == UNBOUNDED_SIZE else batch // bgc
    dynamic[dn.output_batch_dimension] = lhs.dynamic_dimensions[dn.input_batch_dimension]
    dims[dn.output_feature_dimension] = kernel_out
    for i, wd in enumerate(window.dimensions):
        out = dn.output_spatial_dimensions[i]
        dims[out] = window_output_size(ctx, lhs.dimensions[dn.input_spatial_dimensions[i]], wd, i)
        dynamic[out] = (
            lhs.dynamic_dimensions[dn.input_spatial_dimensions[i]]
            or rhs.dynamic_dimensions[dn.kernel_spatial_dimensions[i]]
        )
    return array_shape(_result_type(ctx, lhs, rhs), dims, dynamic)


# -- fft -----------------------------------------------------------------------------------


@rule(Op.FFT)
def _fft(ctx: InferenceContext) -> Shape:
    """FFT/IFFT keep the shape; RFFT halves the innermost axis (n/2+1), IRFFT restores it."""
    ctx.expect_operand_count(1)
    x = ctx.array(0)
    fft_type = FftType(ctx.attr("fft_type"))
    lengths = ctx.int_list("fft_length")
    k = len(lengths)
    if not 1 <= k <= 3:
        ctx.fail(f"fft_length {lengths} must have 1 to 3 entries (FFT of rank 1-3)")
    if x.rank < k:
        ctx.fail(f"an FFT of rank {k} needs an operand of rank at least {k}, got {x}")
    trailing = list(x.dimensions[x.rank - k :])
    name = fft_type.name
    dims = list(x.dimensions)
    if fft_type in (FftType.FFT, FftType.IFFT):
        if not x.element_type.is_complex:
            ctx.fail(f"{name} needs a complex operand, got {x.element_type.hlo_name}")
        if trailing != lengths:
            ctx.fail(
                f"{name} needs the innermost dimensions {trailing} to equal fft_length {lengths}"
            )
        return array_shape(x.element_type, dims, x.dynamic_dimensions)
    if fft_type is FftType.RFFT:
        if x.element_type not in (PrimitiveType.F32, PrimitiveType.F64):
            ctx.fail(f"RFFT needs an f32 or f64 operand, got {x.element_type.hlo_name}")
        if trailing != lengths:
            ctx.fail(
                f"RFFT needs the innermost dimensions {trailing} to equal fft_length {lengths}"
            )
        if lengths[-1] != 0:
            dims[-1] = lengths[-1] // 2 + 1
        complex_type = (
            PrimitiveType.C64 if x.element_type == PrimitiveType.F32 else PrimitiveType.C128
        )
        return array_shape(complex_type, dims, x.dynamic_dimensions)
    if not x.element_type.is_complex:
        ctx.fail(f"IRFFT needs a complex operand, got {x.element_type.hlo_name}")
    if trailing[:-1] != lengths[:-1]:
        ctx.fail(
            f"IRFFT needs all but the innermost of the dimensions {trailing} to equal "
            f"fft_length {lengths[:-1]}"
        )
    expected = lengths[-1] // 2 + 1
    if (trailing[-1] != 0 or lengths[-1] != 0) and trailing[-1] != expected:
        ctx.fail(
            f"IRFFT needs the innermost dimension (size {trailing[-1]}) to be "
            f"fft_length[-1]/2+1 = {expected}"
        )
    dims[-1] = lengths[-1]
    return array_shape(x.element_type.component_type, dims, x.dynamic_dimensions)


# -- factorizations -----------------------------------------------------------------------


def _check_square_batch(ctx: InferenceContext, a: Shape, what: str) -> None:
    ctx.element_type_is(a, lambda t: t.is_float or t.is_complex, "floating-point or complex")
    if a.rank < 2:
        ctx.fail(f"{what} must have rank >= 2 (a batch of matrices), got {a}")
    if a.dimensions[-1] != a.dimensions[-2]:
        ctx.fail(f"the two minor dimensions of {what} must have equal size, got {a}")


@rule(Op.CHOLESKY)
def _cholesky(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(1)
    a = ctx.array(0, "a")
    _check_square_batch(ctx, a, "a")
    return array_shape(a.element_type, a.dimensions, a.dynamic_dimensions)


@rule(Op.TRIANGULAR_SOLVE)
def _triangular_solve(ctx: InferenceContext) -> Shape:
    """a is [..., M, M]; b is [..., M, K] when left_side, else [..., K, M]; x has b's shape."""
    ctx.expect_operand_count(2)
    a, b = ctx.array(0, "a"), ctx.array(1, "b")
    _check_square_batch(ctx, a, "a")
    if a.element_type != b.element_type:
        ctx.fail(
            f"a and b must have the same element type, got {a.element_type.hlo_name} and "
            f"{b.element_type.hlo_name}"
        )
    if b.rank != a.rank:
        ctx.fail(f"a and b must have equal rank, got {a} and {b}")
    left = bool(ctx.attr("left_side", False))
    shared = b.dimensions[-2] if left else b.dimensions[-1]
    if shared != a.dimensions[-1]:
        which = "second-to-last" if left else "last"
        ctx.fail(
            f"with left_side={str(left).lower()} the {which} dimension of b (size {shared}) must "
            f"equal the size of a's matrices ({a.dimensions[-1]})"
        )
    if a.dimensions[:-2] != b.dimensions[:-2]:
        ctx.fail(
            f"the batch dimensions of a {list(a.dimensions[:-2])} and b "
            f"{list(b.dimensions[:-2])} must be equal"
        )
    transpose = ctx.attr("transpose_a", Transpose.NO_TRANSPOSE)
    if Transpose(transpose) is Transpose.TRANSPOSE_INVALID:
        ctx.fail("transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT")
    return array_shape(b.element_type, b.dimensions, b.dynamic_dimensions)


# -- batch normalization ------------------------------------------------------------------


def _same_type_ignoring_fp_precision(a: PrimitiveType, b: PrimitiveType) -> bool:
    return a == b or (a.is_float and b.is_float)


def _batch_norm_operand(ctx: InferenceContext) -> tuple[Shape, int]:
    x = ctx.array(0)
    feature_index = int(ctx.attr("feature_index"))
    if x.rank < 1:
        ctx.fail(f"the operand must have rank >= 1, got {x}")
    if not 0 <= feature_index < x.rank:
        ctx.fail(f"feature_index {feature_index} is outside [0, {x.rank}) for the operand {x}")
    ctx.element_type_is(x, lambda t: t.is_float, "floating-point")
    return x, feature_index


def _check_feature_vectors(
    ctx: InferenceContext, x: Shape, feature_index: int, names: Sequence[str]
) -> Shape:
    """Operands 1.. are per-feature vectors of the operand's type; returns that vector shape."""
    features = x.dimensions[feature_index]
    for i, name in enumerate(names, start=1):
        v = ctx.array(i, name)
        if v.rank != 1:
            ctx.fail(f"{name} (operand {i}) must have rank 1, got {v}")
        if not _same_type_ignoring_fp_precision(v.element_type, x.element_type):
            ctx.fail(
                f"{name} (operand {i}) has element type {v.element_type.hlo_name}; it must be "
                f"the operand's, {x.element_type.hlo_name}"
            )
        if v.dimensions[0] != features:
            ctx.fail(
                f"{name} (operand {i}) has {v.dimensions[0]} elements; it must have one per "
                f"feature ({features}, operand dimension {feature_index})"
            )
    return array_shape(x.element_type, [features])


@rule(Op.BATCH_NORM_TRAINING)
def _batch_norm_training(ctx: InferenceContext) -> Shape:
    """(normalized operand, batch mean, batch variance)."""
    ctx.expect_operand_count(3)
    x, fi = _batch_norm_operand(ctx)
    vector = _check_feature_vectors(ctx, x, fi, ("scale", "offset"))
    return Shape.tuple(
        [array_shape(x.element_type, x.dimensions, x.dynamic_dimensions), vector, vector]
    )


@rule(Op.BATCH_NORM_INFERENCE)
def _batch_norm_inference(ctx: InferenceContext) -> Shape:
    ctx.expect_operand_count(5)
    x, fi = _batch_norm_operand(ctx)
    _check_feature_vectors(ctx, x, fi, ("scale", "offset", "mean", "variance"))
    return array_shape(x.element_type, x.dimensions, x.dynamic_dimensions)


@rule(Op.BATCH_NORM_GRAD)
def _batch_norm_grad(ctx: InferenceContext) -> Shape:
    """(grad operand, grad scale, grad offset); grad_output must match the operand."""
    ctx.expect_operand_count(5)
    x, fi = _batch_norm_operand(ctx)
    vector = _check_feature_vectors(ctx, x, fi, ("scale", "mean", "variance"))
    grad = ctx.array(4, "grad_output")
    same_type = _same_type_ignoring_fp_precision(grad.element_type, x.element_type)
    if not same_type or grad.dimensions != x.dimensions:
        ctx.fail(f"grad_output (operand 4) must have the operand's shape {x}, got {grad}")
    return Shape.tuple(
        [array_shape(x.element_type, x.dimensions, x.dynamic_dimensions), vector, vector]
    )
