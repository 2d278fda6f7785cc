"""Instruction attributes <-> ``HloInstructionProto`` fields, one table row each.

xlapy keeps an instruction's attributes under their HLO text names
(``lhs_contracting_dims``, ``slice``, ``direction``...); the proto has a field, or a
field of a sub-message, for each. :data:`ROWS` pairs them: attribute name, the
field path in the proto, how the value is converted (:class:`Kind`), the opcodes
the row applies to (None: every opcode) and whether the attribute is read even when
the proto field holds its zero value (``index=0`` of a get-tuple-element).

Writing, an attribute no row covers raises ``UnimplementedError`` naming it, and
reading, a set field no row covers does too: nothing is dropped silently. Values that
equal what XLA leaves out of the text (``feature_group_count=1``, an all-default
``operand_precision``...) are not made attributes when reading, so a module read from
XLA's proto prints as XLA prints it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ...errors import UnimplementedError
from ...opcode import HloOpcode as Op
from ...xla_data import (
    ComparisonDirection,
    ComparisonType,
    ConvolutionDimensionNumbers,
    CustomCallApiVersion,
    CustomCallSchedule,
    FftType,
    FusionKind,
    OpMetadata,
    OutputOperandAliasing,
    PaddingConfig,
    PaddingType,
    Precision,
    PrecisionAlgorithm,
    RandomAlgorithm,
    RandomDistribution,
    SourceTarget,
    StatisticsViz,
    Transpose,
    Window,
)
from ..attributes import ConvolutionKind
from . import values
from .shape import fill_shape_proto, shape_from_proto


@dataclass(frozen=True)
class Kind:
    """How a value moves between xlapy and one proto field: ``put(message, field, value)``
    writes it; ``get(message, field)`` reads it back."""

    put: Callable[[Any, str, Any], None]
    get: Callable[[Any, str], Any]


def _set(message: Any, field: str, value: Any) -> None:
    setattr(message, field, value)


def _extend(message: Any, field: str, value: Any) -> None:
    getattr(message, field).extend(int(v) for v in value)


def _enum(cls: type) -> Kind:
    return Kind(lambda m, f, v: setattr(m, f, int(cls(v))), lambda m, f: cls(getattr(m, f)))


def _text_enum(cls: type) -> Kind:
    """An enum the proto keeps as its name (comparison direction and type)."""
    return Kind(lambda m, f, v: setattr(m, f, cls(v).name), lambda m, f: cls[getattr(m, f)])


def _message(cls: type) -> Kind:
    return Kind(
        lambda m, f, v: values.dataclass_to_proto(v, getattr(m, f)),
        lambda m, f: values.dataclass_from_proto(getattr(m, f), cls),
    )


def _repeated_message(cls: type) -> Kind:
    def put(m: Any, f: str, v: Any) -> None:
        for element in v:
            values.dataclass_to_proto(element, getattr(m, f).add())

    return Kind(put, lambda m, f: tuple(values.dataclass_from_proto(x, cls) for x in getattr(m, f)))


def _put_slice(m: Any, f: str, ranges: Any) -> None:
    for start, limit, stride in ranges:
        getattr(m, f).add(start=start, limit=limit, stride=stride)


def _put_shapes(m: Any, f: str, shapes: Any) -> None:
    for shape in shapes:
        fill_shape_proto(getattr(m, f).add(), shape)


INT = Kind(_set, lambda m, f: int(getattr(m, f)))
BOOL = Kind(_set, lambda m, f: bool(getattr(m, f)))
FLOAT = Kind(_set, lambda m, f: float(getattr(m, f)))
STRING = Kind(_set, lambda m, f: str(getattr(m, f)))
BYTES = Kind(lambda m, f, v: setattr(m, f, str(v).encode()), lambda m, f: getattr(m, f).decode())
INTS = Kind(_extend, lambda m, f: tuple(int(v) for v in getattr(m, f)))
# One int kept in a repeated field (iota_dimension, a reshape's inferred dimension).
FIRST_INT = Kind(lambda m, f, v: getattr(m, f).append(int(v)), lambda m, f: int(getattr(m, f)[0]))
SLICE = Kind(_put_slice, lambda m, f: tuple((d.start, d.limit, d.stride) for d in getattr(m, f)))
SHAPE = Kind(
    lambda m, f, v: fill_shape_proto(getattr(m, f), v), lambda m, f: shape_from_proto(getattr(m, f))
)
SHAPES = Kind(_put_shapes, lambda m, f: tuple(shape_from_proto(s) for s in getattr(m, f)))
PRECISIONS = Kind(_extend, lambda m, f: tuple(Precision(p) for p in getattr(m, f)))
BOOLS = Kind(
    lambda m, f, v: getattr(m, f).extend(bool(b) for b in v),
    lambda m, f: tuple(bool(b) for b in getattr(m, f)),
)
FUSION_KIND = Kind(
    lambda m, f, v: setattr(m, f, FusionKind(v).value), lambda m, f: FusionKind(getattr(m, f))
)
TRI_STATE = Kind(lambda m, f, v: setattr(m, f, 1 if v else 2), lambda m, f: getattr(m, f) == 1)
CONV_KIND = Kind(
    lambda m, f, v: setattr(m, f, list(ConvolutionKind).index(ConvolutionKind(v)) + 1),
    lambda m, f: list(ConvolutionKind)[getattr(m, f) - 1],
)
SHARDING = Kind(
    lambda m, f, v: values.sharding_to_proto(v, getattr(m, f)),
    lambda m, f: values.sharding_from_proto(getattr(m, f)),
)
FRONTEND = Kind(
    lambda m, f, v: values.frontend_attributes_to_proto(v, getattr(m, f)),
    lambda m, f: values.frontend_attributes_from_proto(getattr(m, f)),
)
ACCURACY = Kind(
    lambda m, f, v: values.result_accuracy_to_proto(v, getattr(m, f)),
    lambda m, f: values.result_accuracy_from_proto(getattr(m, f)),
)


@dataclass(frozen=True)
class Row:
    """One attribute and its proto field; see the module docstring."""

    name: str
    path: str
    kind: Kind
    opcodes: frozenset[Op] | None = None
    always: bool = False

    def applies(self, opcode: Op) -> bool:
        return self.opcodes is None or opcode in self.opcodes


def _ops(*opcodes: Op) -> frozenset[Op]:
    return frozenset(opcodes)


_GATHER, _SCATTER = _ops(Op.GATHER), _ops(Op.SCATTER)
_DOTS = _ops(Op.DOT, Op.SCALED_DOT)
_ALWAYS_DIMENSIONS = _ops(Op.BROADCAST, Op.TRANSPOSE, Op.REDUCE, Op.REVERSE)
_DOT_FIELDS = (
    ("lhs_contracting_dims", "lhs_contracting_dimensions"),
    ("rhs_contracting_dims", "rhs_contracting_dimensions"),
    ("lhs_batch_dims", "lhs_batch_dimensions"),
    ("rhs_batch_dims", "rhs_batch_dimensions"),
)
_GATHER_FIELDS = (
    "offset_dims", "collapsed_slice_dims", "start_index_map", "index_vector_dim",
    "operand_batching_dims", "start_indices_batching_dims",
)  # fmt: skip
_SCATTER_FIELDS = (
    "update_window_dims", "inserted_window_dims", "scatter_dims_to_operand_dims",
    "index_vector_dim", "input_batching_dims", "scatter_indices_batching_dims",
)  # fmt: skip

ROWS: tuple[Row, ...] = (
    Row("iota_dimension", "dimensions", FIRST_INT, _ops(Op.IOTA), always=True),
    Row("inferred_dimension", "dimensions", FIRST_INT, _ops(Op.RESHAPE)),
    Row("dimensions", "dimensions", INTS, _ALWAYS_DIMENSIONS, always=True),
    Row("dimensions", "dimensions", INTS),
    Row("slice", "slice_dimensions", SLICE),
    Row("padding", "padding_config", _message(PaddingConfig), _ops(Op.PAD), always=True),
    Row("window", "window", _message(Window)),
    Row("dim_labels", "convolution_dimension_numbers", _message(ConvolutionDimensionNumbers)),
    Row("feature_group_count", "feature_group_count", INT),
    Row("batch_group_count", "batch_group_count", INT),
    *(Row(n, f"dot_dimension_numbers.{f}", INTS, _DOTS, always=True) for n, f in _DOT_FIELDS),
    *(
        Row(n, f"ragged_dot_dimension_numbers.dot_dimension_numbers.{f}", INTS, _ops(Op.RAGGED_DOT), always=True)
        for n, f in _DOT_FIELDS
    ),
    Row("lhs_ragged_dims", "ragged_dot_dimension_numbers.lhs_ragged_dimensions", INTS, _ops(Op.RAGGED_DOT), always=True),
    Row("rhs_group_dims", "ragged_dot_dimension_numbers.rhs_group_dimensions", INTS, _ops(Op.RAGGED_DOT), always=True),
    Row("operand_precision", "precision_config.operand_precision", PRECISIONS),
    Row("algorithm", "rng_algorithm", _enum(RandomAlgorithm), _ops(Op.RNG_BIT_GENERATOR), always=True),
    Row("algorithm", "precision_config.algorithm", _enum(PrecisionAlgorithm)),
    *(Row(n, f"gather_dimension_numbers.{n}", INTS if n != "index_vector_dim" else INT, _GATHER, always=True) for n in _GATHER_FIELDS),
    Row("slice_sizes", "gather_slice_sizes", INTS, _GATHER, always=True),
    *(Row(n, f"scatter_dimension_numbers.{n}", INTS if n != "index_vector_dim" else INT, _SCATTER, always=True) for n in _SCATTER_FIELDS),
    Row("indices_are_sorted", "indices_are_sorted", BOOL),
    Row("unique_indices", "unique_indices", BOOL),
    Row("direction", "comparison_direction", _text_enum(ComparisonDirection), _ops(Op.COMPARE), always=True),
    Row("type", "comparison_type", _text_enum(ComparisonType), _ops(Op.COMPARE)),
    Row("fft_type", "fft_type", _enum(FftType), _ops(Op.FFT), always=True),
    Row("fft_length", "fft_length", INTS, _ops(Op.FFT), always=True),
    Row("distribution", "distribution", _enum(RandomDistribution), _ops(Op.RNG), always=True),
    Row("epsilon", "epsilon", FLOAT),
    Row("feature_index", "feature_index", INT, _ops(Op.BATCH_NORM_GRAD, Op.BATCH_NORM_INFERENCE, Op.BATCH_NORM_TRAINING), always=True),
    Row("exponent_bits", "exponent_bits", INT, _ops(Op.REDUCE_PRECISION), always=True),
    Row("mantissa_bits", "mantissa_bits", INT, _ops(Op.REDUCE_PRECISION), always=True),
    Row("dynamic_slice_sizes", "dynamic_slice_sizes", INTS),
    Row("index", "tuple_index", INT, _ops(Op.GET_TUPLE_ELEMENT), always=True),
    Row("channel_id", "channel_id", INT),
    Row("use_global_device_ids", "use_global_device_ids", BOOL),
    Row("constrain_layout", "constrain_layout", BOOL),
    Row("is_host_transfer", "is_host_transfer", BOOL),
    Row("is_stable", "is_stable", BOOL),
    Row("is_composite", "is_composite", BOOL),
    Row("is_reverse", "is_reverse", BOOL),
    Row("num_carries", "num_carries", INT),
    Row("is_associative", "is_associative", TRI_STATE),
    Row("k", "k", INT, _ops(Op.TOPK), always=True),
    Row("largest", "largest", BOOL, _ops(Op.TOPK), always=True),
    Row("delta", "delta", INT, _ops(Op.RNG_GET_AND_UPDATE_STATE), always=True),
    Row("left_side", "triangular_solve_options.left_side", BOOL, _ops(Op.TRIANGULAR_SOLVE)),
    Row("lower", "triangular_solve_options.lower", BOOL, _ops(Op.TRIANGULAR_SOLVE)),
    Row("unit_diagonal", "triangular_solve_options.unit_diagonal", BOOL, _ops(Op.TRIANGULAR_SOLVE)),
    Row("transpose_a", "triangular_solve_options.transpose_a", _enum(Transpose), _ops(Op.TRIANGULAR_SOLVE), always=True),
    Row("lower", "cholesky_options.lower", BOOL, _ops(Op.CHOLESKY)),
    Row("custom_call_target", "custom_call_target", STRING, _ops(Op.CUSTOM_CALL), always=True),
    Row("custom_call_has_side_effect", "custom_call_has_side_effect", BOOL),
    Row("api_version", "custom_call_api_version", _enum(CustomCallApiVersion), _ops(Op.CUSTOM_CALL)),
    Row("schedule", "custom_call_schedule", _enum(CustomCallSchedule)),
    Row("operand_layout_constraints", "operand_shapes_with_layout", SHAPES),
    Row("output_to_operand_aliasing", "output_operand_aliasing", _repeated_message(OutputOperandAliasing)),
    Row("padding_type", "padding_type", _enum(PaddingType)),
    Row("convolution_kind", "conv_kind", CONV_KIND),
    Row("infeed_config", "infeed_config", BYTES),
    Row("outfeed_config", "outfeed_config", BYTES),
    Row("outfeed_shape", "outfeed_shape", SHAPE),
    Row("kind", "fusion_kind", FUSION_KIND, _ops(Op.FUSION), always=True),
    Row("source_target_pairs", "source_target_pairs", _repeated_message(SourceTarget)),
    Row("async_execution_thread", "async_execution_thread", STRING),
    Row("cross_program_prefetch_index", "cross_program_prefetch_index", INT),
    Row("parameter_replication", "parameter_replication.replicated_at_leaf_buffers", BOOLS),
    Row("sharding", "sharding", SHARDING),
    Row("frontend_attributes", "frontend_attributes", FRONTEND),
    Row("statistics", "statistics_viz", _message(StatisticsViz)),
    Row("result_accuracy", "result_accuracy", ACCURACY),
    Row("metadata", "metadata", _message(OpMetadata)),
    Row("backend_config", "backend_config", BYTES),
)  # fmt: skip

# Fields written by the module converter or by the special cases below, not by ROWS.
STRUCTURAL_FIELDS = frozenset(
    {
        "name", "opcode", "shape", "id", "operand_ids", "control_predecessor_ids",
        "called_computation_ids", "literal", "parameter_number", "collective_device_list",
        "iota_collective_device_list", "mesh_axes_replica_group_list", "replica_groups",
        "domain_entry_sharding", "domain_exit_sharding",
    }
)  # fmt: skip
# Attributes handled outside ROWS: called computations, replica groups and domains.
SPECIAL_ATTRIBUTES = frozenset({"replica_groups", "domain"})


def rows_for(opcode: Op, name: str) -> list[Row]:
    return [row for row in ROWS if row.name == name and row.applies(opcode)]


def _parent(message: Any, path: str) -> tuple[Any, str]:
    *parents, field = path.split(".")
    for part in parents:
        message = getattr(message, part)
    return message, field


def write_attribute(proto: Any, opcode: Op, name: str, value: Any, where: str) -> None:
    """Write attribute ``name`` of an ``opcode`` instruction into its proto."""
    if name == "replica_groups":
        values.device_list_to_proto(value, proto)
        return
    if name == "domain":
        entry, exit_ = values.domain_to_protos(value)
        proto.domain_entry_sharding.CopyFrom(entry)
        proto.domain_exit_sharding.CopyFrom(exit_)
        return
    rows = rows_for(opcode, name)
    if not rows:
        raise UnimplementedError(
            f"{where}: attribute {name}={value!s} of {opcode.value} has no field in "
            "HloInstructionProto that xlapy knows"
        )
    row = rows[0]
    parent, field = _parent(proto, row.path)
    row.kind.put(parent, field, value)


def _is_set(message: Any, path: str) -> bool:
    *parents, field = path.split(".")
    for part in parents:
        if not message.HasField(part):
            return False
        message = getattr(message, part)
    descriptor = message.DESCRIPTOR.fields_by_name[field]
    if descriptor.is_repeated:
        return len(getattr(message, field)) > 0
    if descriptor.message_type is not None or descriptor.containing_oneof is not None:
        return message.HasField(field)
    return bool(getattr(message, field))


def read_attributes(proto: Any, opcode: Op) -> tuple[list[tuple[str, Any]], set[str]]:
    """The attributes ``ROWS`` read from ``proto``, and the field paths they covered."""
    out: list[tuple[str, Any]] = []
    covered: set[str] = set()
    taken: set[str] = set()
    for row in ROWS:
        if not row.applies(opcode) or row.name in taken:
            continue
        top = row.path.split(".")[0]
        if row.path in covered and top == row.path:
            continue
        if not (row.always or _is_set(proto, row.path)):
            covered.add(row.path)
            continue
        parent, field = _parent(proto, row.path)
        if row.kind is FIRST_INT and not len(getattr(parent, field)):
            continue
        out.append((row.name, row.kind.get(parent, field)))
        taken.add(row.name)
        covered.add(row.path)
    return out, covered


def uncovered_fields(proto: Any, covered: set[str]) -> list[str]:
    """Set fields (paths into sub-messages too) that no row and no special case read."""
    problems: list[str] = []
    for descriptor, value in proto.ListFields():
        name = descriptor.name
        if name in STRUCTURAL_FIELDS or name in covered:
            continue
        if (
            descriptor.message_type is not None
            and not descriptor.is_repeated
            and not value.ByteSize()
        ):
            continue  # an empty sub-message says nothing (XLA writes some, e.g. sparsity_config)
        subpaths = [p for p in covered if p.startswith(name + ".")]
        if descriptor.message_type is not None and not descriptor.is_repeated and subpaths:
            problems.extend(_uncovered_in(value, name, covered))
            continue
        problems.append(name)
    return problems


def _uncovered_in(message: Any, prefix: str, covered: set[str]) -> list[str]:
    problems = []
    for descriptor, value in message.ListFields():
        path = f"{prefix}.{descriptor.name}"
        if path in covered:
            continue
        if descriptor.message_type is not None and any(p.startswith(path + ".") for p in covered):
            problems.extend(_uncovered_in(value, path, covered))
        else:
            problems.append(path)
    return problems


__all__ = [
    "ROWS",
    "Row",
    "STRUCTURAL_FIELDS",
    "read_attributes",
    "rows_for",
    "uncovered_fields",
    "write_attribute",
]
