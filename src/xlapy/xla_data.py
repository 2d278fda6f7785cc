"""Attribute types of XLA operations, named as in ``xla_data.proto``.

Operations take structured attributes (dimension numbers, windows, padding,
replica groups, shardings, ...). Keeping XLA's names and enum numbering means
users of XLA, JAX and HLO text recognise every field, and serialized protos
line up. The values are immutable and hashable so instructions can share and
compare them. Each type checks what can be checked without knowing operand
shapes; shape-dependent checks belong to shape inference, which can phrase
them in terms of the operation.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from ._xla_data_util import enum_field, fail, int_tuple, same_length, unique
from .errors import InvalidArgumentError
from .types import PrimitiveType
from .xla_data_sharding import (
    AxisRef,
    ChannelHandle,
    ChannelType,
    CollectiveDeviceList,
    CollectiveOpGroupMode,
    DomainMetadata,
    IotaReplicaGroupList,
    Mesh,
    MeshAxesReplicaGroupList,
    OpSharding,
    OpShardingType,
    ReplicaGroup,
    ShardGroupType,
    SourceTarget,
)

# -- enums -----------------------------------------------------------------------


class Precision(enum.IntEnum):
    """PrecisionConfig.Precision: how hard a backend must try on dot/convolution."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2


class PrecisionAlgorithm(enum.IntEnum):
    """PrecisionConfig.Algorithm: ALG_DOT_{A}_{B}_{ACCUM}[_X{N}] as in xla_data.proto."""

    ALG_UNSET = 0
    ALG_DOT_ANY_F8_ANY_F8_F32 = 1
    ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM = 2
    ALG_DOT_F16_F16_F16 = 3
    ALG_DOT_F16_F16_F32 = 4
    ALG_DOT_BF16_BF16_BF16 = 5
    ALG_DOT_BF16_BF16_F32 = 6
    ALG_DOT_BF16_BF16_F32_X3 = 7
    ALG_DOT_BF16_BF16_F32_X6 = 8
    ALG_DOT_TF32_TF32_F32 = 9
    ALG_DOT_TF32_TF32_F32_X3 = 10
    ALG_DOT_F32_F32_F32 = 11
    ALG_DOT_F64_F64_F64 = 12
    ALG_DOT_BF16_BF16_F32_X9 = 13


class Padding(enum.Enum):
    """XlaBuilder's padding shorthand for windowed ops; see :func:`make_padding`."""

    SAME = "SAME"
    VALID = "VALID"


class PaddingType(enum.IntEnum):
    """The proto's PaddingType, carried by convolution custom-calls (``padding_type=``)."""

    PADDING_INVALID = 0
    PADDING_VALID = 1
    PADDING_SAME = 2


class ComparisonDirection(enum.Enum):
    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"

    @property
    def converse(self) -> ComparisonDirection:
        """The direction that gives the same result with the operands swapped."""
        return _CONVERSE[self]

    @property
    def inverse(self) -> ComparisonDirection:
        """The direction whose result is the negation (for a total order)."""
        return _INVERSE[self]


_D = ComparisonDirection
_CONVERSE = {_D.EQ: _D.EQ, _D.NE: _D.NE, _D.GE: _D.LE, _D.GT: _D.LT, _D.LE: _D.GE, _D.LT: _D.GT}
_INVERSE = {_D.EQ: _D.NE, _D.NE: _D.EQ, _D.GE: _D.LT, _D.GT: _D.LE, _D.LE: _D.GT, _D.LT: _D.GE}
del _D


class ComparisonType(enum.Enum):
    """How compare orders values; TOTALORDER also orders NaNs and signed zeros."""

    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"

    @staticmethod
    def default_for(element_type: object) -> ComparisonType:
        """The type XLA picks when compare has no ``type=`` (by the operands' element type)."""
        et = PrimitiveType(element_type)
        if et.is_float or et.is_complex:
            return ComparisonType.FLOAT
        if et.is_signed_integral:
            return ComparisonType.SIGNED
        if et.is_unsigned_integral or et.is_pred:
            return ComparisonType.UNSIGNED
        raise InvalidArgumentError(f"compare: {et} values cannot be compared")


class FftType(enum.IntEnum):
    FFT = 0
    IFFT = 1
    RFFT = 2
    IRFFT = 3


class RandomDistribution(enum.IntEnum):
    RNG_INVALID = 0
    RNG_UNIFORM = 1
    RNG_NORMAL = 2


class RandomAlgorithm(enum.IntEnum):
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2


class Transpose(enum.IntEnum):
    """TriangularSolveOptions.Transpose: what to do to ``a`` before solving."""

    TRANSPOSE_INVALID = 0
    NO_TRANSPOSE = 1
    TRANSPOSE = 2
    ADJOINT = 3


class CustomCallApiVersion(enum.IntEnum):
    """The calling convention of a custom-call target (hlo.proto)."""

    API_VERSION_UNSPECIFIED = 0
    API_VERSION_ORIGINAL = 1
    API_VERSION_STATUS_RETURNING = 2
    API_VERSION_STATUS_RETURNING_UNIFIED = 3
    API_VERSION_TYPED_FFI = 4


class CustomCallSchedule(enum.IntEnum):
    """A scheduling hint for custom-calls (hlo.proto)."""

    SCHEDULE_NONE = 0
    SCHEDULE_LATEST = 1
    SCHEDULE_EARLIEST = 2


class FusionKind(enum.Enum):
    """What a fusion computation is rooted in; values are XLA's text spelling."""

    kLoop = "kLoop"  # noqa: N815  (XLA's spelling, also what HLO text prints)
    kInput = "kInput"  # noqa: N815
    kOutput = "kOutput"  # noqa: N815
    kCustom = "kCustom"  # noqa: N815


class ProfileType(enum.IntEnum):
    INVALID = 0
    WINDOW = 1
    FLAG = 2
    INTEGER = 3


class ResultAccuracyMode(enum.IntEnum):
    DEFAULT = 0
    HIGHEST = 1


# -- dot and convolution --------------------------------------------------------


@dataclass(frozen=True)
class DotDimensionNumbers:
    lhs_contracting_dimensions: Sequence[int] = ()
    rhs_contracting_dimensions: Sequence[int] = ()
    lhs_batch_dimensions: Sequence[int] = ()
    rhs_batch_dimensions: Sequence[int] = ()

    def __post_init__(self) -> None:
        for name in (
            "lhs_contracting_dimensions",
            "rhs_contracting_dimensions",
            "lhs_batch_dimensions",
            "rhs_batch_dimensions",
        ):
            int_tuple(self, name)
            unique(self, name)
        same_length(self, "lhs_contracting_dimensions", "rhs_contracting_dimensions")
        same_length(self, "lhs_batch_dimensions", "rhs_batch_dimensions")
        for side in ("lhs", "rhs"):
            both = set(getattr(self, f"{side}_contracting_dimensions")) & set(
                getattr(self, f"{side}_batch_dimensions")
            )
            if both:
                raise fail(
                    "DotDimensionNumbers",
                    f"{side} dimension(s) {sorted(both)} are "
                    "both batch and contracting; a dimension can be only one",
                )


@dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    dot_dimension_numbers: DotDimensionNumbers = field(default_factory=DotDimensionNumbers)
    lhs_ragged_dimensions: Sequence[int] = ()
    rhs_group_dimensions: Sequence[int] = ()

    def __post_init__(self) -> None:
        int_tuple(self, "lhs_ragged_dimensions")
        int_tuple(self, "rhs_group_dimensions")
        if len(self.lhs_ragged_dimensions) != 1:
            raise fail(
                "RaggedDotDimensionNumbers",
                "lhs_ragged_dimensions must name exactly "
                f"one dimension, got {list(self.lhs_ragged_dimensions)}",
            )
        if len(self.rhs_group_dimensions) > 1:
            raise fail(
                "RaggedDotDimensionNumbers",
                "rhs_group_dimensions may name at most one "
                f"dimension, got {list(self.rhs_group_dimensions)}",
            )


@dataclass(frozen=True)
class ConvolutionDimensionNumbers:
    input_batch_dimension: int = 0
    input_feature_dimension: int = 1
    input_spatial_dimensions: Sequence[int] = ()
    kernel_input_feature_dimension: int = 0
    kernel_output_feature_dimension: int = 1
    kernel_spatial_dimensions: Sequence[int] = ()
    output_batch_dimension: int = 0
    output_feature_dimension: int = 1
    output_spatial_dimensions: Sequence[int] = ()

    def __post_init__(self) -> None:
        for part, scalars in (
            ("input", ("input_batch_dimension", "input_feature_dimension")),
            ("kernel", ("kernel_input_feature_dimension", "kernel_output_feature_dimension")),
            ("output", ("output_batch_dimension", "output_feature_dimension")),
        ):
            spatial = f"{part}_spatial_dimensions"
            int_tuple(self, spatial)
            for name in scalars:
                v = int(getattr(self, name))
                if v < 0:
                    raise fail("ConvolutionDimensionNumbers", f"{name}={v} must be >= 0")
                object.__setattr__(self, name, v)
            dims = [getattr(self, n) for n in scalars] + list(getattr(self, spatial))
            if len(set(dims)) != len(dims):
                raise fail(
                    "ConvolutionDimensionNumbers",
                    f"the {part} dimensions {dims} "
                    f"({', '.join(scalars)}, {spatial}) must all differ",
                )
        same_length(self, "input_spatial_dimensions", "kernel_spatial_dimensions")
        same_length(self, "input_spatial_dimensions", "output_spatial_dimensions")

    @property
    def num_spatial_dimensions(self) -> int:
        return len(self.input_spatial_dimensions)

    @staticmethod
    def default(num_spatial_dimensions: int = 2) -> ConvolutionDimensionNumbers:
        """XlaBuilder's default layout: batch/feature first, then spatial (b01f-style NCHW)."""
        spatial = tuple(range(2, 2 + num_spatial_dimensions))
        return ConvolutionDimensionNumbers(0, 1, spatial, 1, 0, spatial, 0, 1, spatial)


@dataclass(frozen=True)
class PrecisionConfig:
    operand_precision: Sequence[Precision] = ()
    algorithm: PrecisionAlgorithm = PrecisionAlgorithm.ALG_UNSET

    Precision = Precision  # the proto nests these enums in the message
    Algorithm = PrecisionAlgorithm

    def __post_init__(self) -> None:
        try:
            object.__setattr__(
                self, "operand_precision", tuple(Precision(p) for p in self.operand_precision)
            )
        except ValueError:
            raise fail(
                "PrecisionConfig",
                f"operand_precision={list(self.operand_precision)!r}"
                " must hold Precision values (DEFAULT, HIGH, HIGHEST)",
            ) from None
        enum_field(self, "algorithm", PrecisionAlgorithm)


# -- gather / scatter ------------------------------------------------------------


@dataclass(frozen=True)
class GatherDimensionNumbers:
    offset_dims: Sequence[int] = ()
    collapsed_slice_dims: Sequence[int] = ()
    start_index_map: Sequence[int] = ()
    index_vector_dim: int = 0
    operand_batching_dims: Sequence[int] = ()
    start_indices_batching_dims: Sequence[int] = ()

    def __post_init__(self) -> None:
        for name in (
            "offset_dims",
            "collapsed_slice_dims",
            "start_index_map",
            "operand_batching_dims",
            "start_indices_batching_dims",
        ):
            int_tuple(self, name)
        unique(self, "offset_dims", sorted_=True)
        unique(self, "collapsed_slice_dims", sorted_=True)
        unique(self, "start_index_map")
        unique(self, "operand_batching_dims", sorted_=True)
        unique(self, "start_indices_batching_dims")
        same_length(self, "operand_batching_dims", "start_indices_batching_dims")
        both = set(self.collapsed_slice_dims) & set(self.operand_batching_dims)
        if both:
            raise fail(
                "GatherDimensionNumbers",
                f"dimension(s) {sorted(both)} are in both "
                "collapsed_slice_dims and operand_batching_dims",
            )
        if int(self.index_vector_dim) < 0:
            raise fail(
                "GatherDimensionNumbers", f"index_vector_dim={self.index_vector_dim} must be >= 0"
            )
        object.__setattr__(self, "index_vector_dim", int(self.index_vector_dim))


@dataclass(frozen=True)
class ScatterDimensionNumbers:
    update_window_dims: Sequence[int] = ()
    inserted_window_dims: Sequence[int] = ()
    scatter_dims_to_operand_dims: Sequence[int] = ()
    index_vector_dim: int = 0
    input_batching_dims: Sequence[int] = ()
    scatter_indices_batching_dims: Sequence[int] = ()

    def __post_init__(self) -> None:
        for name in (
            "update_window_dims",
            "inserted_window_dims",
            "scatter_dims_to_operand_dims",
            "input_batching_dims",
            "scatter_indices_batching_dims",
        ):
            int_tuple(self, name)
        unique(self, "update_window_dims", sorted_=True)
        unique(self, "inserted_window_dims", sorted_=True)
        unique(self, "scatter_dims_to_operand_dims")
        unique(self, "input_batching_dims", sorted_=True)
        unique(self, "scatter_indices_batching_dims")
        same_length(self, "input_batching_dims", "scatter_indices_batching_dims")
        both = set(self.inserted_window_dims) & set(self.input_batching_dims)
        if both:
            raise fail(
                "ScatterDimensionNumbers",
                f"dimension(s) {sorted(both)} are in both "
                "inserted_window_dims and input_batching_dims",
            )
        if int(self.index_vector_dim) < 0:
            raise fail(
                "ScatterDimensionNumbers", f"index_vector_dim={self.index_vector_dim} must be >= 0"
            )
        object.__setattr__(self, "index_vector_dim", int(self.index_vector_dim))


# -- padding and windows ---------------------------------------------------------


@dataclass(frozen=True)
class PaddingConfigDimension:
    """Negative edge padding removes elements; interior padding cannot be negative."""

    edge_padding_low: int = 0
    edge_padding_high: int = 0
    interior_padding: int = 0

    def __post_init__(self) -> None:
        for name in ("edge_padding_low", "edge_padding_high", "interior_padding"):
            object.__setattr__(self, name, int(getattr(self, name)))
        if self.interior_padding < 0:
            raise fail(
                "PaddingConfigDimension",
                f"interior_padding={self.interior_padding} "
                "must be >= 0 (only edge padding may be negative)",
            )


@dataclass(frozen=True)
class PaddingConfig:
    dimensions: Sequence[PaddingConfigDimension] = ()

    def __post_init__(self) -> None:
        dims = tuple(self.dimensions)
        if not all(isinstance(d, PaddingConfigDimension) for d in dims):
            raise fail(
                "PaddingConfig",
                "dimensions must be PaddingConfigDimension values; "
                "use PaddingConfig.from_triples([(lo, hi, interior), ...])",
            )
        object.__setattr__(self, "dimensions", dims)

    @staticmethod
    def from_triples(triples: Iterable[Sequence[int]]) -> PaddingConfig:
        dims = []
        for t in triples:
            if len(t) != 3:
                raise fail("PaddingConfig", f"{tuple(t)} is not a (low, high, interior) triple")
            dims.append(PaddingConfigDimension(*t))
        return PaddingConfig(tuple(dims))

    @staticmethod
    def from_pairs(pairs: Iterable[Sequence[int]]) -> PaddingConfig:
        """Edge padding only, as ``(low, high)`` per dimension."""
        return PaddingConfig(tuple(PaddingConfigDimension(int(lo), int(hi)) for lo, hi in pairs))

    def as_triples(self) -> tuple[tuple[int, int, int], ...]:
        return tuple(
            (d.edge_padding_low, d.edge_padding_high, d.interior_padding) for d in self.dimensions
        )


@dataclass(frozen=True)
class WindowDimension:
    """One window dimension; defaults are the identity (stride and dilations of 1)."""

    size: int = 1
    stride: int = 1
    padding_low: int = 0
    padding_high: int = 0
    window_dilation: int = 1
    base_dilation: int = 1
    window_reversal: bool = False

    def __post_init__(self) -> None:
        for name in (
            "size",
            "stride",
            "padding_low",
            "padding_high",
            "window_dilation",
            "base_dilation",
        ):
            object.__setattr__(self, name, int(getattr(self, name)))
        object.__setattr__(self, "window_reversal", bool(self.window_reversal))
        for name in ("size", "stride", "window_dilation", "base_dilation"):
            if getattr(self, name) < 1:
                raise fail("WindowDimension", f"{name}={getattr(self, name)} must be >= 1")


@dataclass(frozen=True)
class Window:
    dimensions: Sequence[WindowDimension] = ()

    def __post_init__(self) -> None:
        dims = tuple(self.dimensions)
        if not all(isinstance(d, WindowDimension) for d in dims):
            raise fail(
                "Window",
                "dimensions must be WindowDimension values; "
                "use Window.make(sizes, strides, padding, ...)",
            )
        object.__setattr__(self, "dimensions", dims)

    @staticmethod
    def make(
        sizes: Sequence[int],
        strides: Sequence[int] | None = None,
        padding: Sequence[tuple[int, int]] | None = None,
        lhs_dilation: Sequence[int] | None = None,
        rhs_dilation: Sequence[int] | None = None,
        reversal: Sequence[bool] | None = None,
    ) -> Window:
        """Build from per-field lists, the shape XlaBuilder's arguments come in."""
        n = len(sizes)
        for name, seq in (
            ("strides", strides),
            ("padding", padding),
            ("lhs_dilation", lhs_dilation),
            ("rhs_dilation", rhs_dilation),
            ("reversal", reversal),
        ):
            if seq is not None and len(seq) != n:
                raise fail(
                    "Window", f"{name} has {len(seq)} entries but the window has {n} dimensions"
                )
        return Window(
            tuple(
                WindowDimension(
                    size=sizes[i],
                    stride=strides[i] if strides is not None else 1,
                    padding_low=padding[i][0] if padding is not None else 0,
                    padding_high=padding[i][1] if padding is not None else 0,
                    window_dilation=rhs_dilation[i] if rhs_dilation is not None else 1,
                    base_dilation=lhs_dilation[i] if lhs_dilation is not None else 1,
                    window_reversal=reversal[i] if reversal is not None else False,
                )
                for i in range(n)
            )
        )


def make_padding(
    input_dimensions: Sequence[int],
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Padding,
) -> tuple[tuple[int, int], ...]:
    """(low, high) padding per dimension for SAME/VALID, as XLA's MakePadding computes it.

    SAME keeps ceil(input / stride) outputs and puts the odd element of padding
    at the high end, matching TensorFlow and XLA.
    """
    if not (len(input_dimensions) == len(window_dimensions) == len(window_strides)):
        raise InvalidArgumentError(
            "make_padding: input_dimensions, window_dimensions and window_strides must have "
            f"the same length, got {len(input_dimensions)}, {len(window_dimensions)}, "
            f"{len(window_strides)}"
        )
    if Padding(padding) is Padding.VALID:
        return tuple((0, 0) for _ in input_dimensions)
    out = []
    triples = zip(input_dimensions, window_dimensions, window_strides, strict=True)
    for size, window, stride in triples:
        if stride < 1:
            raise InvalidArgumentError(f"make_padding: stride {stride} must be >= 1")
        output = -(-size // stride)
        total = max((output - 1) * stride + window - size, 0)
        out.append((total // 2, total - total // 2))
    return tuple(out)


# -- linear algebra ----------------------------------------------------------------


@dataclass(frozen=True)
class TriangularSolveOptions:
    left_side: bool = False
    lower: bool = False
    unit_diagonal: bool = False
    transpose_a: Transpose = Transpose.NO_TRANSPOSE

    Transpose = Transpose

    def __post_init__(self) -> None:
        for name in ("left_side", "lower", "unit_diagonal"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        enum_field(self, "transpose_a", Transpose)
        if self.transpose_a is Transpose.TRANSPOSE_INVALID:
            raise fail(
                "TriangularSolveOptions", "transpose_a must be NO_TRANSPOSE, TRANSPOSE or ADJOINT"
            )


@dataclass(frozen=True)
class CholeskyOptions:
    lower: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "lower", bool(self.lower))


# -- metadata and annotations ----------------------------------------------------


@dataclass(frozen=True)
class OpMetadata:
    """Where an op came from; fields in the order XLA prints them."""

    op_type: str = ""
    op_name: str = ""
    source_file: str = ""
    source_line: int = 0
    source_end_line: int = 0
    source_column: int = 0
    source_end_column: int = 0
    profile_type: Sequence[ProfileType] = ()
    deduplicated_name: str = ""
    scheduling_name: str = ""
    stack_frame_id: int = 0

    def __post_init__(self) -> None:
        for name in ("op_type", "op_name", "source_file", "deduplicated_name", "scheduling_name"):
            if not isinstance(getattr(self, name), str):
                raise fail("OpMetadata", f"{name} must be a string")
        for name in (
            "source_line",
            "source_end_line",
            "source_column",
            "source_end_column",
            "stack_frame_id",
        ):
            v = int(getattr(self, name))
            if v < 0:
                raise fail("OpMetadata", f"{name}={v} must be >= 0 (0 means unset)")
            object.__setattr__(self, name, v)
        try:
            object.__setattr__(
                self, "profile_type", tuple(ProfileType(p) for p in self.profile_type)
            )
        except ValueError:
            raise fail(
                "OpMetadata", f"profile_type={list(self.profile_type)} holds an unknown ProfileType"
            ) from None

    @property
    def is_empty(self) -> bool:
        return self == OpMetadata()


@dataclass(frozen=True)
class FrontendAttributes(Mapping[str, str]):
    """String key/value hints from the frontend; iterates in sorted key order as XLA prints."""

    map: Mapping[str, str] | Iterable[tuple[str, str]] = ()

    def __post_init__(self) -> None:
        items = dict(self.map.items() if isinstance(self.map, Mapping) else self.map)
        for k, v in items.items():
            if not isinstance(k, str) or not isinstance(v, str):
                raise fail("FrontendAttributes", f"{k!r}: {v!r} - keys and values must be strings")
        object.__setattr__(self, "map", tuple(sorted(items.items())))

    def __getitem__(self, key: str) -> str:
        for k, v in self.map:
            if k == key:
                return v
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (k for k, _ in self.map)

    def __len__(self) -> int:
        return len(self.map)

    def __hash__(self) -> int:
        return hash(self.map)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrontendAttributes):
            return self.map == other.map
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrontendAttributes({dict(self.map)!r})"


@dataclass(frozen=True)
class Statistic:
    stat_name: str
    stat_val: float


@dataclass(frozen=True)
class StatisticsViz:
    stat_index_to_visualize: int = 0
    statistics: Sequence[Statistic] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "statistics", tuple(self.statistics))


@dataclass(frozen=True)
class ResultAccuracy:
    """Requested accuracy of a transcendental unary op: a mode, or explicit tolerances."""

    mode: ResultAccuracyMode | None = ResultAccuracyMode.DEFAULT
    atol: float = 0.0
    rtol: float = 0.0
    ulps: int = 0

    Mode = ResultAccuracyMode

    def __post_init__(self) -> None:
        if self.mode is not None:
            enum_field(self, "mode", ResultAccuracyMode)
            if (self.atol, self.rtol, self.ulps) != (0.0, 0.0, 0):
                raise fail(
                    "ResultAccuracy",
                    "give either a mode or tolerances (atol, rtol, "
                    "ulps), not both; use mode=None for tolerances",
                )
        if self.atol < 0 or self.rtol < 0 or self.ulps < 0:
            raise fail("ResultAccuracy", "atol, rtol and ulps must be >= 0")

    @staticmethod
    def tolerance(atol: float = 0.0, rtol: float = 0.0, ulps: int = 0) -> ResultAccuracy:
        return ResultAccuracy(None, float(atol), float(rtol), int(ulps))


@dataclass(frozen=True)
class OutputOperandAliasing:
    """Output buffer at ``output_shape_index`` reuses operand ``operand_index``'s buffer."""

    output_shape_index: Sequence[int] = ()
    operand_index: int = 0
    operand_shape_index: Sequence[int] = ()

    def __post_init__(self) -> None:
        int_tuple(self, "output_shape_index")
        int_tuple(self, "operand_shape_index")
        object.__setattr__(self, "operand_index", int(self.operand_index))
        if self.operand_index < 0:
            raise fail("OutputOperandAliasing", f"operand_index={self.operand_index} must be >= 0")


__all__ = [
    "Precision",
    "PrecisionAlgorithm",
    "Padding",
    "PaddingType",
    "ComparisonDirection",
    "ComparisonType",
    "FftType",
    "RandomDistribution",
    "RandomAlgorithm",
    "Transpose",
    "ChannelType",
    "CustomCallApiVersion",
    "CustomCallSchedule",
    "FusionKind",
    "OpShardingType",
    "ShardGroupType",
    "ProfileType",
    "CollectiveOpGroupMode",
    "ResultAccuracyMode",
    "DotDimensionNumbers",
    "RaggedDotDimensionNumbers",
    "ConvolutionDimensionNumbers",
    "PrecisionConfig",
    "GatherDimensionNumbers",
    "ScatterDimensionNumbers",
    "PaddingConfigDimension",
    "PaddingConfig",
    "WindowDimension",
    "Window",
    "make_padding",
    "ReplicaGroup",
    "IotaReplicaGroupList",
    "Mesh",
    "AxisRef",
    "MeshAxesReplicaGroupList",
    "CollectiveDeviceList",
    "ChannelHandle",
    "SourceTarget",
    "TriangularSolveOptions",
    "CholeskyOptions",
    "OpMetadata",
    "FrontendAttributes",
    "Statistic",
    "StatisticsViz",
    "ResultAccuracy",
    "OutputOperandAliasing",
    "OpSharding",
    "DomainMetadata",
]
