"""Linear-algebra ops: dots, convolutions, FFT, Cholesky, triangular solve, batch norm.

Signatures follow XLA's C++ free functions (xla_builder.h) with snake_case
keywords. The functions translate XLA's builder arguments (dimension-number
messages, padding shorthands, precision configs, preferred element types) into
the HLO attributes the shape rules read, in the order XLA prints them, so the
text they produce is the text XLA itself would print and parses back unchanged.
Everything that depends on operand shapes is left to shape inference; what is
checked here is only what shape inference cannot see (argument lists whose
lengths must agree before a window can even be formed, for instance).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

from ..builder import XlaBuilder, XlaOp, builder_op, primitive_type, shape_of
from ..errors import InvalidArgumentError
from ..hlo.typed_attributes import to_attributes
from ..opcode import HloOpcode as Op
from ..shape_inference import infer_shape
from ..types import PrimitiveType
from ..xla_data import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    Padding,
    Precision,
    PrecisionAlgorithm,
    PrecisionConfig,
    RaggedDotDimensionNumbers,
    Transpose,
    Window,
    make_padding,
)
from ._support import (
    int_tuple,
    operand_pair,
    require_op,
)

# -- shared helpers -----------------------------------------------------------------------


def _fail(op_name: str, message: str, operands: Sequence[XlaOp]) -> NoReturn:
    """Raise in the same form as shape inference: the op, the problem, the operand shapes."""
    shapes = ", ".join(str(shape_of(op)) for op in operands) or "none"
    raise InvalidArgumentError(f"{op_name}: {message} (operand shapes: {shapes})")


def _builder(operand: XlaOp) -> XlaBuilder:
    return operand.builder


def _precision_attributes(
    config: PrecisionConfig | None, op_name: str, operands: Sequence[XlaOp], algorithm_ok: bool
) -> dict[str, Any]:
    """operand_precision and algorithm, left out when default (XLA does not print those)."""
    if config is None:
        return {}
    if not isinstance(config, PrecisionConfig):
        raise InvalidArgumentError(
            f"{op_name}: precision_config must be a PrecisionConfig or None, got "
            f"{type(config).__name__}"
        )
    precision = tuple(config.operand_precision)
    if len(precision) not in (0, 2):
        _fail(
            op_name,
            f"precision_config.operand_precision has {len(precision)} entries; give one per "
            f"operand (lhs and rhs) or none",
            operands,
        )
    attributes: dict[str, Any] = {}
    if any(p is not Precision.DEFAULT for p in precision):
        attributes["operand_precision"] = precision
    if config.algorithm is not PrecisionAlgorithm.ALG_UNSET:
        if not algorithm_ok:
            _fail(
                op_name,
                f"precision_config.algorithm={config.algorithm.name} is not available: HLO "
                f"convolutions carry only operand_precision",
                operands,
            )
        attributes["algorithm"] = config.algorithm
    return attributes


def _add_typed(
    opcode: Op,
    operands: Sequence[XlaOp],
    attributes: dict[str, Any],
    preferred_element_type: Any,
    op_name: str,
) -> XlaOp:
    """Add a dot or convolution whose result element type may be requested.

    HLO has no preferred_element_type attribute: the requested type is simply
    the element type of the instruction's shape. So the dimensions come from
    shape inference and the element type from the caller, with XLA's one
    restriction (MaybeUpcast): an integer result may not become narrower.
    """
    builder = _builder(operands[0])
    if preferred_element_type is None:
        return builder.add_instruction(opcode, operands, attributes=attributes, op_name=op_name)
    target = primitive_type(preferred_element_type, op_name)
    inferred = infer_shape(opcode, [shape_of(o) for o in operands], attributes, op_name=op_name)
    natural = inferred.element_type
    if target != natural and not natural.is_float and target.bit_width < natural.bit_width:
        _fail(
            op_name,
            f"preferred_element_type {target.hlo_name} must not be narrower than the "
            f"operands' type {natural.hlo_name}",
            operands,
        )
    declared = inferred.with_element_type(target)
    return builder.add_instruction(
        opcode, operands, attributes=attributes, declared=declared, op_name=op_name
    )


# -- dots -------------------------------------------------------------------------------


def _dot_attributes(dn: DotDimensionNumbers, op_name: str) -> dict[str, Any]:
    """XLA prints batch dimensions only when there are some, contracting ones always."""
    if not isinstance(dn, DotDimensionNumbers):
        raise InvalidArgumentError(
            f"{op_name}: dimension_numbers must be a DotDimensionNumbers, got {type(dn).__name__}"
        )
    return to_attributes(dn)


def _dot_general(
    op_name: str,
    lhs: XlaOp,
    rhs: XlaOp,
    dimension_numbers: DotDimensionNumbers,
    precision_config: PrecisionConfig | None,
    preferred_element_type: Any,
) -> XlaOp:
    attributes = _dot_attributes(dimension_numbers, op_name)
    attributes.update(_precision_attributes(precision_config, op_name, [lhs, rhs], True))
    return _add_typed(Op.DOT, [lhs, rhs], attributes, preferred_element_type, op_name)


@builder_op("Dot")
def Dot(
    lhs: Any,
    rhs: Any,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """Vector/matrix products: contracts lhs dimension 1 (0 for a vector) with rhs dimension 0.

    This is XLA's choice of contracting dimensions for every rank, so a rank-3
    lhs contracts its dimension 1 too; use DotGeneral to say otherwise.
    """
    lhs, rhs = operand_pair(lhs, rhs, "Dot")
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    if not (lhs_shape.is_array and rhs_shape.is_array) or 0 in (lhs_shape.rank, rhs_shape.rank):
        _fail("Dot", "needs arrays of rank >= 1 (use Mul to scale by a scalar)", [lhs, rhs])
    dn = DotDimensionNumbers(
        lhs_contracting_dimensions=(0 if lhs_shape.rank == 1 else 1,),
        rhs_contracting_dimensions=(0,),
    )
    return _dot_general("Dot", lhs, rhs, dn, precision_config, preferred_element_type)


@builder_op("DotGeneral")
def DotGeneral(
    lhs: Any,
    rhs: Any,
    dimension_numbers: DotDimensionNumbers,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """Sum of products over the contracting dimensions, batched over the batch dimensions."""
    lhs, rhs = operand_pair(lhs, rhs, "DotGeneral")
    return _dot_general(
        "DotGeneral", lhs, rhs, dimension_numbers, precision_config, preferred_element_type
    )


@builder_op("RaggedDot")
def RaggedDot(
    lhs: XlaOp,
    rhs: XlaOp,
    group_sizes: XlaOp,
    dimension_numbers: RaggedDotDimensionNumbers,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """A dot whose lhs ragged dimension is cut into groups of ``group_sizes`` rows."""
    operands = [
        require_op(lhs, "lhs", "RaggedDot"),
        require_op(rhs, "rhs", "RaggedDot"),
        require_op(group_sizes, "group_sizes", "RaggedDot"),
    ]
    if not isinstance(dimension_numbers, RaggedDotDimensionNumbers):
        raise InvalidArgumentError(
            "RaggedDot: dimension_numbers must be a RaggedDotDimensionNumbers, got "
            f"{type(dimension_numbers).__name__}"
        )
    attributes = _dot_attributes(dimension_numbers.dot_dimension_numbers, "RaggedDot")
    attributes["lhs_ragged_dims"] = tuple(dimension_numbers.lhs_ragged_dimensions)
    if dimension_numbers.rhs_group_dimensions:
        attributes["rhs_group_dims"] = tuple(dimension_numbers.rhs_group_dimensions)
    attributes.update(_precision_attributes(precision_config, "RaggedDot", operands, True))
    return _add_typed(Op.RAGGED_DOT, operands, attributes, preferred_element_type, "RaggedDot")


@builder_op("ScaledDot")
def ScaledDot(
    lhs: XlaOp,
    rhs: XlaOp,
    lhs_scale: XlaOp,
    rhs_scale: XlaOp,
    dimension_numbers: DotDimensionNumbers,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """DotGeneral of lhs*lhs_scale and rhs*rhs_scale, each scale repeated over blocks.

    The operands come in the order of HLO's ``scaled-dot`` instruction (both
    operands, then both scales), as the instruction prints them.
    """
    names = ("lhs", "rhs", "lhs_scale", "rhs_scale")
    operands = [
        require_op(v, n, "ScaledDot")
        for v, n in zip((lhs, rhs, lhs_scale, rhs_scale), names, strict=True)
    ]
    attributes = _dot_attributes(dimension_numbers, "ScaledDot")
    attributes.update(_precision_attributes(precision_config, "ScaledDot", operands[:2], True))
    return _add_typed(Op.SCALED_DOT, operands, attributes, preferred_element_type, "ScaledDot")


# -- convolutions ---------------------------------------------------------------------------


def _padding_pairs(padding: Any, op_name: str) -> tuple[tuple[int, int], ...]:
    try:
        pairs = tuple((int(lo), int(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: padding must be a sequence of (low, high) integer pairs, got {padding!r}"
        ) from None
    return pairs


def _as_padding(padding: Padding | str, op_name: str) -> Padding:
    if isinstance(padding, Padding):
        return padding
    if isinstance(padding, str) and padding.upper() in Padding.__members__:
        return Padding[padding.upper()]
    raise InvalidArgumentError(
        f"{op_name}: padding must be Padding.SAME or Padding.VALID (or a list of (low, high) "
        f"pairs with ConvWithGeneralPadding/ConvGeneral), got {padding!r}"
    )


def _check_conv_operands(
    op_name: str, lhs: XlaOp, rhs: XlaOp, dn: ConvolutionDimensionNumbers
) -> int:
    """XLA's VerifyConvolution: equal ranks and dimension numbers that fit them."""
    if not isinstance(dn, ConvolutionDimensionNumbers):
        raise InvalidArgumentError(
            f"{op_name}: dimension_numbers must be a ConvolutionDimensionNumbers, got "
            f"{type(dn).__name__}"
        )
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    if not (lhs_shape.is_array and rhs_shape.is_array):
        _fail(op_name, "the lhs and rhs must be arrays", [lhs, rhs])
    if lhs_shape.rank != rhs_shape.rank:
        _fail(op_name, "the lhs and rhs must have the same number of dimensions", [lhs, rhs])
    spatial = lhs_shape.rank - 2
    if spatial < 0:
        _fail(op_name, "the operands need a batch and a feature dimension (rank >= 2)", [lhs, rhs])
    if dn.num_spatial_dimensions != spatial:
        _fail(
            op_name,
            f"dimension_numbers name {dn.num_spatial_dimensions} spatial dimensions but "
            f"operands of rank {lhs_shape.rank} have {spatial}",
            [lhs, rhs],
        )
    for name, dims in (
        ("input_spatial_dimensions", dn.input_spatial_dimensions),
        ("kernel_spatial_dimensions", dn.kernel_spatial_dimensions),
    ):
        bad = [d for d in dims if not 0 <= d < lhs_shape.rank]
        if bad:
            _fail(
                op_name,
                f"dimension_numbers.{name} {list(dims)} has dimensions outside "
                f"[0, {lhs_shape.rank})",
                [lhs, rhs],
            )
    return spatial


def _check_lengths(op_name: str, spatial: int, operands: Sequence[XlaOp], **lists: Any) -> None:
    for name, values in lists.items():
        if values is not None and len(values) != spatial:
            _fail(
                op_name,
                f"{name} has {len(values)} entries; it needs one per spatial dimension ({spatial})",
                operands,
            )


def _convolution(
    op_name: str,
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Any,
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    dimension_numbers: ConvolutionDimensionNumbers | None,
    feature_group_count: int,
    batch_group_count: int,
    precision_config: PrecisionConfig | None,
    preferred_element_type: Any,
    window_reversal: Sequence[bool] | None = None,
) -> XlaOp:
    """All convolution entry points end here (XLA's ConvGeneralDilated).

    ``padding`` is a Padding shorthand or (low, high) pairs; ``dimension_numbers``
    None means XLA's default layout (batch, feature, spatial...) for as many
    spatial dimensions as there are strides.
    """
    lhs, rhs = operand_pair(lhs, rhs, op_name)
    strides = int_tuple(window_strides, "window_strides", op_name)
    if dimension_numbers is None:  # the default layout, sized by the operands' rank
        dimension_numbers = ConvolutionDimensionNumbers.default(max(shape_of(lhs).rank - 2, 0))
    dn = dimension_numbers
    spatial = _check_conv_operands(op_name, lhs, rhs, dn)
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    kernel = [rhs_shape.dimensions[d] for d in dn.kernel_spatial_dimensions]
    lhs_dil = int_tuple(lhs_dilation, "lhs_dilation", op_name) if lhs_dilation else None
    rhs_dil = int_tuple(rhs_dilation, "rhs_dilation", op_name) if rhs_dilation else None
    reversal = tuple(bool(r) for r in window_reversal) if window_reversal else None
    _check_lengths(
        op_name,
        spatial,
        [lhs, rhs],
        window_strides=strides,
        lhs_dilation=lhs_dil,
        rhs_dilation=rhs_dil,
        window_reversal=reversal,
    )
    for name, values in (
        ("window_strides", strides),
        ("lhs_dilation", lhs_dil),
        ("rhs_dilation", rhs_dil),
        ("the kernel's spatial sizes", kernel),
    ):
        if any(v < 1 for v in values or ()):
            _fail(op_name, f"{name} must all be >= 1, got {list(values)}", [lhs, rhs])
    if isinstance(padding, (Padding, str)):
        base = [lhs_shape.dimensions[d] for d in dn.input_spatial_dimensions]
        pairs = make_padding(base, kernel, strides, _as_padding(padding, op_name))
    else:
        pairs = _padding_pairs(padding, op_name)
        _check_lengths(op_name, spatial, [lhs, rhs], padding=pairs)
    attributes: dict[str, Any] = {}
    if spatial:
        window = Window.make(kernel, strides, pairs, lhs_dil, rhs_dil, reversal)
        attributes["window"] = window
    attributes["dim_labels"] = dn
    if int(feature_group_count) != 1:
        attributes["feature_group_count"] = int(feature_group_count)
    if int(batch_group_count) != 1:
        attributes["batch_group_count"] = int(batch_group_count)
    attributes.update(_precision_attributes(precision_config, op_name, [lhs, rhs], False))
    return _add_typed(Op.CONVOLUTION, [lhs, rhs], attributes, preferred_element_type, op_name)


@builder_op("Conv")
def Conv(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Padding | str,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """Convolution in the default layout (lhs [b, f, spatial...], rhs [o, i, spatial...])."""
    return _convolution(
        "Conv", lhs, rhs, window_strides, _as_padding(padding, "Conv"), None, None, None,
        feature_group_count, batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


@builder_op("ConvWithGeneralPadding")
def ConvWithGeneralPadding(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """Default-layout convolution with explicit (low, high) padding (negative crops)."""
    name = "ConvWithGeneralPadding"
    return _convolution(
        name, lhs, rhs, window_strides, _padding_pairs(padding, name), None, None, None,
        feature_group_count, batch_group_count, precision_config, preferred_element_type,
    )  # fmt: skip


@builder_op("ConvWithGeneralDimensions")
def ConvWithGeneralDimensions(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Padding | str,
    dimension_numbers: ConvolutionDimensionNumbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """SAME/VALID convolution with the dimension layout given by ``dimension_numbers``."""
    name = "ConvWithGeneralDimensions"
    return _convolution(
        name, lhs, rhs, window_strides, _as_padding(padding, name), None, None,
        dimension_numbers, feature_group_count, batch_group_count, precision_config,
        preferred_element_type,
    )  # fmt: skip


@builder_op("ConvGeneral")
def ConvGeneral(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    dimension_numbers: ConvolutionDimensionNumbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
) -> XlaOp:
    """Convolution with explicit padding pairs and dimension layout."""
    name = "ConvGeneral"
    return _convolution(
        name, lhs, rhs, window_strides, _padding_pairs(padding, name), None, None,
        dimension_numbers, feature_group_count, batch_group_count, precision_config,
        preferred_element_type,
    )  # fmt: skip


@builder_op("ConvGeneralDilated")
def ConvGeneralDilated(
    lhs: Any,
    rhs: Any,
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: ConvolutionDimensionNumbers,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision_config: PrecisionConfig | None = None,
    preferred_element_type: PrimitiveType | Any = None,
    window_reversal: Sequence[bool] | None = None,
) -> XlaOp:
    """The general convolution: dilations (empty lists mean 1s) and optional kernel reversal."""
    name = "ConvGeneralDilated"
    return _convolution(
        name, lhs, rhs, window_strides, _padding_pairs(padding, name), lhs_dilation,
        rhs_dilation, dimension_numbers, feature_group_count, batch_group_count,
        precision_config, preferred_element_type, window_reversal,
    )  # fmt: skip


# -- fft and factorizations -----------------------------------------------------------------


@builder_op("Fft")
def Fft(operand: XlaOp, fft_type: FftType | str, fft_length: Sequence[int]) -> XlaOp:
    """FFT/IFFT/RFFT/IRFFT over the innermost ``len(fft_length)`` dimensions."""
    operand = require_op(operand, "operand", "Fft")
    if isinstance(fft_type, str) and fft_type.upper() in FftType.__members__:
        fft_type = FftType[fft_type.upper()]
    if fft_type not in set(FftType):
        raise InvalidArgumentError(
            f"Fft: fft_type must be one of FFT, IFFT, RFFT, IRFFT, got {fft_type!r}"
        )
    attributes = {
        "fft_type": FftType(fft_type),
        "fft_length": int_tuple(fft_length, "fft_length", "Fft"),
    }
    return _builder(operand).add_instruction(
        Op.FFT, [operand], attributes=attributes, op_name="Fft"
    )


@builder_op("Cholesky")
def Cholesky(a: XlaOp, lower: bool = True) -> XlaOp:
    """Cholesky factors of a batch of Hermitian positive-definite matrices.

    Only the ``lower`` (or upper) triangle is read and written; XLA leaves the
    other triangle implementation-defined and gives NaNs for matrices that
    are not positive definite.
    """
    a = require_op(a, "a", "Cholesky")
    attributes = {"lower": True} if lower else {}
    return _builder(a).add_instruction(Op.CHOLESKY, [a], attributes=attributes, op_name="Cholesky")


def _as_transpose(value: Any) -> Transpose:
    if isinstance(value, str) and value.upper() in Transpose.__members__:
        value = Transpose[value.upper()]
    try:
        transpose = Transpose(value)
    except ValueError:
        transpose = Transpose.TRANSPOSE_INVALID
    if transpose is Transpose.TRANSPOSE_INVALID:
        raise InvalidArgumentError(
            f"TriangularSolve: transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT, got "
            f"{value!r}"
        )
    return transpose


@builder_op("TriangularSolve")
def TriangularSolve(
    a: XlaOp,
    b: XlaOp,
    left_side: bool,
    lower: bool,
    unit_diagonal: bool,
    transpose_a: Transpose | str,
) -> XlaOp:
    """Solve op(a) x = b (``left_side``) or x op(a) = b for x, a being triangular."""
    a = require_op(a, "a", "TriangularSolve")
    b = require_op(b, "b", "TriangularSolve")
    attributes: dict[str, Any] = {}
    for name, value in (
        ("left_side", left_side),
        ("lower", lower),
        ("unit_diagonal", unit_diagonal),
    ):
        if value:
            attributes[name] = True
    attributes["transpose_a"] = _as_transpose(transpose_a)
    return _builder(a).add_instruction(
        Op.TRIANGULAR_SOLVE, [a, b], attributes=attributes, op_name="TriangularSolve"
    )


# -- batch normalization --------------------------------------------------------------------


def _batch_norm(
    op_name: str, opcode: Op, operands: Sequence[tuple[str, Any]], epsilon: float,
    feature_index: int,
) -> XlaOp:  # fmt: skip
    ops = [require_op(v, n, op_name) for n, v in operands]
    try:
        attributes = {"epsilon": float(epsilon), "feature_index": int(feature_index)}
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{op_name}: epsilon must be a number and feature_index an integer, got "
            f"{epsilon!r} and {feature_index!r}"
        ) from None
    return _builder(ops[0]).add_instruction(opcode, ops, attributes=attributes, op_name=op_name)


@builder_op("BatchNormTraining")
def BatchNormTraining(
    operand: XlaOp, scale: XlaOp, offset: XlaOp, epsilon: float, feature_index: int
) -> XlaOp:
    """(normalized, batch_mean, batch_var), moments taken over all but the feature dimension."""
    return _batch_norm(
        "BatchNormTraining", Op.BATCH_NORM_TRAINING,
        [("operand", operand), ("scale", scale), ("offset", offset)], epsilon, feature_index,
    )  # fmt: skip


@builder_op("BatchNormInference")
def BatchNormInference(
    operand: XlaOp,
    scale: XlaOp,
    offset: XlaOp,
    mean: XlaOp,
    variance: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """Normalize with given moments instead of computing them (no reductions at run time)."""
    return _batch_norm(
        "BatchNormInference", Op.BATCH_NORM_INFERENCE,
        [("operand", operand), ("scale", scale), ("offset", offset), ("mean", mean),
         ("variance", variance)], epsilon, feature_index,
    )  # fmt: skip


@builder_op("BatchNormGrad")
def BatchNormGrad(
    operand: XlaOp,
    scale: XlaOp,
    batch_mean: XlaOp,
    batch_var: XlaOp,
    grad_output: XlaOp,
    epsilon: float,
    feature_index: int,
) -> XlaOp:
    """(grad_operand, grad_scale, grad_offset) of BatchNormTraining."""
    return _batch_norm(
        "BatchNormGrad", Op.BATCH_NORM_GRAD,
        [("operand", operand), ("scale", scale), ("batch_mean", batch_mean),
         ("batch_var", batch_var), ("grad_output", grad_output)], epsilon, feature_index,
    )  # fmt: skip


__all__ = [
    "BatchNormGrad",
    "BatchNormInference",
    "BatchNormTraining",
    "Cholesky",
    "Conv",
    "ConvGeneral",
    "ConvGeneralDilated",
    "ConvWithGeneralDimensions",
    "ConvWithGeneralPadding",
    "Dot",
    "DotGeneral",
    "Fft",
    "RaggedDot",
    "ScaledDot",
    "TriangularSolve",
]
