"""Linear algebra: dot_general, dot, convolution (and dynamic_conv), fft,
triangular_solve, cholesky, batch norm.

A StableHLO dot or convolution may declare a result element type other than
its operands' (JAX's ``preferred_element_type``); HLO has no such attribute,
the instruction's shape simply carries the type, so the declared type is what
the builder is asked for.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ... import ops
from ...builder import XlaOp
from ...xla_data import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    FftType,
    Precision,
    PrecisionAlgorithm,
    PrecisionConfig,
    Transpose,
)
from .. import ast
from .attrs import (
    attr,
    bool_attr,
    bools,
    enum_attr,
    enum_value,
    field_ints,
    fields,
    float_attr,
    int_attr,
    ints,
    pairs,
)
from .control import results_of
from .core import Ctx, lowering
from .errors import invalid, unsupported

# -- precision ---------------------------------------------------------------------------------

_ALGORITHM_TYPES = {"f8e4m3fn": "ANY_F8", "f8e5m2": "ANY_F8", "f8e4m3": "ANY_F8"}


def _algorithm(op: ast.Operation) -> PrecisionAlgorithm:
    """``#stablehlo.dot_algorithm<...>`` as the PrecisionAlgorithm XLA names it."""
    value = op.attributes.get("algorithm")
    if value is None:
        return PrecisionAlgorithm.ALG_UNSET
    f = value.fields if isinstance(value, ast.DialectAttr) else dict(value)

    def type_name(key: str) -> str:
        t = f.get(key)
        text = getattr(t, "text", str(t)).lower()
        return _ALGORITHM_TYPES.get(text, text.upper())

    lhs, rhs, acc = (
        type_name("lhs_precision_type"),
        type_name("rhs_precision_type"),
        type_name("accumulation_type"),
    )
    name = f"ALG_DOT_{lhs}_{rhs}_{acc}"
    ops_count = int(f.get("num_primitive_operations", 1))
    if ops_count > 1:
        name += f"_X{ops_count}"
    if lhs == "ANY_F8" and bool(f.get("allow_imprecise_accumulation", False)):
        name += "_FAST_ACCUM"
    if name not in PrecisionAlgorithm.__members__:
        raise unsupported(op, f"the dot algorithm {name} has no XLA equivalent")
    return PrecisionAlgorithm[name]


def _precision(op: ast.Operation, with_algorithm: bool) -> PrecisionConfig | None:
    value = op.attributes.get("precision_config")
    precision: list[Precision] = []
    for entry in value or ():
        name = enum_value(entry).upper()
        if name == "PACKED_NIBBLE":
            raise unsupported(op, "precision PACKED_NIBBLE")
        if name not in Precision.__members__:
            raise invalid(op, f"unknown precision {name}")
        precision.append(Precision[name])
    algorithm = _algorithm(op) if with_algorithm else PrecisionAlgorithm.ALG_UNSET
    if not precision and algorithm is PrecisionAlgorithm.ALG_UNSET:
        return None
    return PrecisionConfig(tuple(precision), algorithm)


def _preferred(ctx: Ctx, op: ast.Operation, lhs: XlaOp) -> Any:
    """The declared result element type when it differs from the operands'."""
    target = ctx.result_shape(op).element_type
    return None if target == lhs.shape.element_type else target


# -- dots -------------------------------------------------------------------------------------------


@lowering("stablehlo.dot_general", "mhlo.dot_general")
def _dot_general(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs, rhs = ctx.operands(op)
    dn = fields(op, "dot_dimension_numbers", "stablehlo.dot")
    numbers = DotDimensionNumbers(
        lhs_contracting_dimensions=field_ints(dn, "lhs_contracting_dimensions"),
        rhs_contracting_dimensions=field_ints(dn, "rhs_contracting_dimensions"),
        lhs_batch_dimensions=field_ints(dn, "lhs_batching_dimensions"),
        rhs_batch_dimensions=field_ints(dn, "rhs_batching_dimensions"),
    )
    return [ops.DotGeneral(lhs, rhs, numbers, _precision(op, True), _preferred(ctx, op, lhs))]


@lowering("stablehlo.dot", "mhlo.dot")
def _dot(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs, rhs = ctx.operands(op)
    return [ops.Dot(lhs, rhs, _precision(op, False), _preferred(ctx, op, lhs))]


# -- convolution ------------------------------------------------------------------------------------


def _conv_dimension_numbers(op: ast.Operation) -> ConvolutionDimensionNumbers:
    value = attr(op, "dimension_numbers")
    if isinstance(value, ast.ConvDimensionNumbers):
        f = {name: getattr(value, name) for name in value.__dataclass_fields__}
    else:
        f = fields(op, "dimension_numbers", "stablehlo.conv")
    names = (
        "input_batch_dimension",
        "input_feature_dimension",
        "kernel_input_feature_dimension",
        "kernel_output_feature_dimension",
        "output_batch_dimension",
        "output_feature_dimension",
    )
    spatial = ("input_spatial_dimensions", "kernel_spatial_dimensions", "output_spatial_dimensions")
    try:
        return ConvolutionDimensionNumbers(
            **{n: int(f[n]) for n in names}, **{n: field_ints(f, n) for n in spatial}
        )
    except KeyError as e:
        raise invalid(op, f"dimension_numbers lacks {e.args[0]}") from None


def _convolution(
    ctx: Ctx, op: ast.Operation, lhs: XlaOp, rhs: XlaOp, padding: Sequence[tuple[int, int]]
) -> XlaOp:
    spatial = max(lhs.shape.rank - 2, 0)
    return ops.ConvGeneralDilated(
        lhs,
        rhs,
        ints(op, "window_strides", None) or (1,) * spatial,
        padding,
        ints(op, "lhs_dilation", None) or (),
        ints(op, "rhs_dilation", None) or (),
        _conv_dimension_numbers(op),
        int_attr(op, "feature_group_count", 1),
        int_attr(op, "batch_group_count", 1),
        _precision(op, False),
        _preferred(ctx, op, lhs),
        bools(op, "window_reversal", None),
    )


@lowering("stablehlo.convolution", "mhlo.convolution")
def _convolution_op(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs, rhs = ctx.operands(op)
    padding = pairs(op, "padding", max(lhs.shape.rank - 2, 0))
    return [_convolution(ctx, op, lhs, rhs, padding)]


@lowering("stablehlo.dynamic_conv", "mhlo.dynamic_conv")
def _dynamic_conv(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    lhs = ctx.value(op.operands[0], op)
    rhs = ctx.value(op.operands[1], op)
    flat = ctx.known_ints(op.operands[2], op, "padding")
    padding = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2)]
    return [_convolution(ctx, op, lhs, rhs, padding)]


# -- fft and factorizations ----------------------------------------------------------------------


@lowering("stablehlo.fft", "mhlo.fft")
def _fft(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (x,) = ctx.operands(op)
    kind = enum_attr(op, "fft_type")
    if kind not in FftType.__members__:
        raise invalid(op, f"unknown fft_type {kind}")
    return [ops.Fft(x, FftType[kind], ints(op, "fft_length"))]


@lowering("stablehlo.cholesky", "mhlo.cholesky")
def _cholesky(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (a,) = ctx.operands(op)
    return [ops.Cholesky(a, bool_attr(op, "lower"))]


@lowering("stablehlo.triangular_solve", "mhlo.triangular_solve")
def _triangular_solve(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    a, b = ctx.operands(op)
    transpose = enum_attr(op, "transpose_a", "NO_TRANSPOSE")
    if transpose not in Transpose.__members__ or transpose == "TRANSPOSE_INVALID":
        raise invalid(op, f"unknown transpose_a {transpose}")
    return [
        ops.TriangularSolve(
            a,
            b,
            bool_attr(op, "left_side"),
            bool_attr(op, "lower"),
            bool_attr(op, "unit_diagonal"),
            Transpose[transpose],
        )  # fmt: skip
    ]


def _batch_norm(fn):
    def lower(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
        operands = ctx.operands(op)
        value = fn(*operands, float_attr(op, "epsilon"), int_attr(op, "feature_index"))
        return results_of(ctx, value, op)

    return lower


lowering("stablehlo.batch_norm_training", "mhlo.batch_norm_training")(
    _batch_norm(ops.BatchNormTraining)
)
lowering("stablehlo.batch_norm_inference", "mhlo.batch_norm_inference")(
    _batch_norm(ops.BatchNormInference)
)
lowering("stablehlo.batch_norm_grad", "mhlo.batch_norm_grad")(_batch_norm(ops.BatchNormGrad))

__all__: list[str] = []
