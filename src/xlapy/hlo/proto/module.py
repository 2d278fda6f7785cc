"""``HloModule`` <-> XLA's ``HloModuleProto``.

Ids follow XLA: computations are numbered in post-order (callees first, as the
proto lists them) and an instruction's id is ``computation_id << 32 | n`` with ``n``
its position in the computation; operands, control predecessors, called
computations, the root and the schedule refer to instructions and computations by
these ids. Reading accepts any ids and checks that every reference resolves to
something defined before it, then verifies the module.

What the proto cannot hold is refused when writing: ``replica_count``,
``num_partitions`` and the header attributes xlapy keeps verbatim (the
``allow_spmd_sharding_propagation_*`` flags...) live in XLA's HloModuleConfig, not in
the module proto, so ``module_to_proto`` raises for them unless the caller passes
``drop_config=True`` to leave them out knowingly. Proto fields xlapy has no place
for (profile info, a device assignment, stack frames, cross-program prefetches...)
are refused when reading.
"""

from __future__ import annotations

from typing import Any

from ...errors import InvalidArgumentError, ParseError, UnimplementedError
from ...literal import Literal
from ...opcode import HloOpcode as Op
from ...shape import ProgramShape
from ...xla_data import CustomCallApiVersion
from ..aliasing import AliasEntry, AliasKind, BufferDonor, InputOutputAlias
from ..attributes import is_omitted_default
from ..computation import HloComputation
from ..instruction import COMPUTATION_LIST_ATTRIBUTES, HloInstruction, RawLiteral
from ..module import HloModule, ModuleConfig
from . import values
from .instruction import SPECIAL_ATTRIBUTES, read_attributes, uncovered_fields, write_attribute
from .literal import fill_literal_proto, literal_from_proto
from .schema import message_class, new_message
from .shape import (
    fill_shape_proto,
    program_shape_from_proto,
    program_shape_to_proto,
    shape_from_proto,
)

# Called computations, in the order of XLA's called_computation_ids, by opcode.
CALLED_ATTRIBUTES: dict[Op, tuple[str, ...]] = {
    Op.WHILE: ("body", "condition"),
    Op.SELECT_AND_SCATTER: ("select", "scatter"),
    Op.FUSION: ("calls",),
    Op.ASYNC_START: ("calls",),
    Op.ASYNC_UPDATE: ("calls",),
    Op.ASYNC_DONE: ("calls",),
    Op.CUSTOM_CALL: ("called_computations",),
}
# Every other opcode with one called computation names it to_apply.
DEFAULT_CALLED_ATTRIBUTE = "to_apply"

# XLA's print order of the opcode-specific attributes (the generic trailing ones are
# placed by HloInstruction.set_attribute); an opcode may order a pair differently.
ATTRIBUTE_ORDER: tuple[str, ...] = (
    "padding", "slice", "window", "dim_labels", "lhs_batch_dims", "lhs_contracting_dims",
    "rhs_batch_dims", "rhs_contracting_dims", "lhs_ragged_dims", "rhs_group_dims",
    "offset_dims", "collapsed_slice_dims", "start_index_map", "operand_batching_dims",
    "start_indices_batching_dims", "update_window_dims", "inserted_window_dims",
    "scatter_dims_to_operand_dims", "input_batching_dims", "scatter_indices_batching_dims",
    "index_vector_dim", "slice_sizes", "indices_are_sorted", "unique_indices",
    "condition", "body", "select", "scatter", "true_computation", "false_computation",
    "branch_computations", "epsilon", "feature_index", "fft_type", "fft_length", "k",
    "largest", "left_side", "lower", "unit_diagonal", "transpose_a", "infeed_config",
    "outfeed_shape", "outfeed_config", "kind", "calls", "iota_dimension", "distribution",
    "channel_id", "replica_groups", "source_target_pairs", "constrain_layout", "dimensions",
    "use_global_device_ids", "custom_call_target", "called_computations",
    "operand_layout_constraints", "output_to_operand_aliasing", "custom_call_has_side_effect", "schedule", "api_version", "dynamic_slice_sizes", "index",
    "algorithm", "delta", "direction", "type", "exponent_bits", "mantissa_bits",
    "result_accuracy", "feature_group_count", "batch_group_count", "operand_precision",
    "is_stable", "num_carries", "is_reverse", "is_associative", "to_apply", "is_composite",
)  # fmt: skip
OPCODE_ORDER_SWAPS: dict[Op, tuple[str, str]] = {
    # reduce-scatter prints use_global_device_ids before dimensions.
    Op.REDUCE_SCATTER: ("use_global_device_ids", "dimensions"),
}
_RANK = {name: i for i, name in enumerate(ATTRIBUTE_ORDER)}

_ALIAS_KINDS = {AliasKind.MAY_ALIAS: 1, AliasKind.MUST_ALIAS: 2}
_CONFIG_FIELDS_OUTSIDE_PROTO = ("replica_count", "num_partitions")


# -- writing -----------------------------------------------------------------------


def module_to_proto(module: HloModule, *, drop_config: bool = False) -> Any:
    """``HloModuleProto`` of ``module``; see the module docstring for ids and refusals."""
    _check_config(module, drop_config)
    if module.stack_frame_tables:
        raise UnimplementedError(
            f"module {module.name}: its stack frame tables are kept as text by xlapy and "
            "cannot be written to StackFrameIndexProto"
        )
    proto = new_message("xla.HloModuleProto", name=module.name)
    computations = module.computation_post_order()
    computation_ids = {id(c): i for i, c in enumerate(computations)}
    instruction_ids: dict[int, int] = {}
    for computation in computations:
        base = computation_ids[id(computation)] << 32
        for n, instruction in enumerate(computation.post_order()):
            instruction_ids[id(instruction)] = base | n
    for computation in computations:
        _computation_to_proto(
            computation, proto.computations.add(), computation_ids, instruction_ids
        )
    entry = module.entry
    proto.entry_computation_name = entry.name
    proto.entry_computation_id = computation_ids[id(entry)]
    layout = module.entry_computation_layout
    # XLA requires one name per parameter in a ProgramShapeProto.
    names = [p.name for p in entry.parameters]
    proto.host_program_shape.CopyFrom(
        program_shape_to_proto(ProgramShape(layout.parameters, layout.result, names))
    )
    if module.is_scheduled:
        for computation in computations:
            if computation.is_fusion_computation:
                continue
            sequence = proto.schedule.sequences[computation_ids[id(computation)]]
            sequence.instruction_ids.extend(
                instruction_ids[id(i)] for i in computation.instructions
            )
    proto.input_output_alias.SetInParent()
    for alias in module.input_output_alias.entries:
        proto.input_output_alias.entries.add(
            output_shape_index=alias.output_index,
            parameter_number=alias.parameter_number,
            parameter_shape_index=alias.parameter_index,
            kind=_ALIAS_KINDS[alias.kind],
        )
    proto.buffer_donor.SetInParent()
    for number, index in module.buffer_donor.entries:
        proto.buffer_donor.entries.add(parameter_number=number, parameter_shape_index=index)
    proto.frontend_attributes.SetInParent()
    if module.frontend_attributes:
        values.frontend_attributes_to_proto(module.frontend_attributes, proto.frontend_attributes)
    return proto


def _check_config(module: HloModule, drop_config: bool) -> None:
    lost = [
        f"{name}={getattr(module, name)}"
        for name in _CONFIG_FIELDS_OUTSIDE_PROTO
        if getattr(module, name) != 1
    ]
    lost += [f"{name}={text}" for name, text in module.header_extras.items()]
    if lost and not drop_config:
        raise UnimplementedError(
            f"module {module.name}: {', '.join(lost)} belong to XLA's HloModuleConfig, which "
            "HloModuleProto does not hold; pass drop_config=True to write the module without them"
        )


def _computation_to_proto(
    computation: HloComputation, proto: Any, computation_ids: dict, instruction_ids: dict
) -> None:
    proto.name = computation.name
    proto.id = computation_ids[id(computation)]
    for instruction in computation.post_order():
        _instruction_to_proto(
            instruction, proto.instructions.add(), computation_ids, instruction_ids
        )
    shape = computation.program_shape
    names = [p.name for p in computation.parameters]
    proto.program_shape.CopyFrom(
        program_shape_to_proto(ProgramShape(shape.parameters, shape.result, names))
    )
    proto.root_id = instruction_ids[id(computation.root)]
    proto.is_fusion_computation = computation.is_fusion_computation
    if computation.execution_thread is not None:
        proto.execution_thread = computation.execution_thread


def _instruction_to_proto(
    instruction: HloInstruction, proto: Any, computation_ids: dict, instruction_ids: dict
) -> None:
    where = f"instruction {instruction.name}"
    proto.name = instruction.name
    proto.opcode = instruction.opcode.value
    proto.id = instruction_ids[id(instruction)]
    fill_shape_proto(proto.shape, instruction.shape)
    proto.operand_ids.extend(instruction_ids[id(op)] for op in instruction.operands)
    proto.control_predecessor_ids.extend(
        instruction_ids[id(p)] for p in instruction.control_predecessors
    )
    if instruction.opcode is Op.PARAMETER:
        proto.parameter_number = instruction.parameter_number
    if instruction.opcode is Op.CONSTANT:
        if isinstance(instruction.literal, RawLiteral) or not isinstance(
            instruction.literal, Literal
        ):
            raise UnimplementedError(
                f"{where}: its constant of {instruction.shape} is kept as text by xlapy and "
                "cannot be written to a LiteralProto"
            )
        fill_literal_proto(proto.literal, instruction.literal)
    called = _called_in_proto_order(instruction)
    proto.called_computation_ids.extend(computation_ids[id(c)] for c in called)
    for name, value in instruction.attributes.items():
        if _is_called_attribute(name, value):
            continue
        write_attribute(proto, instruction.opcode, name, value, where)
    _write_implied_fields(instruction, proto)


def _write_implied_fields(instruction: HloInstruction, proto: Any) -> None:
    """Fields whose absence from the text means a value the proto must spell out."""
    if instruction.opcode is Op.CUSTOM_CALL:
        if not instruction.has_attribute("api_version"):
            proto.custom_call_api_version = int(CustomCallApiVersion.API_VERSION_ORIGINAL)
        if instruction.has_attribute("operand_layout_constraints"):
            proto.constrain_layout = True  # XLA's text implies it by the constraints
    if instruction.opcode is Op.CONVOLUTION:
        proto.feature_group_count = instruction.attribute("feature_group_count", 1)
        proto.batch_group_count = instruction.attribute("batch_group_count", 1)


def _is_called_attribute(name: str, value: Any) -> bool:
    return isinstance(value, HloComputation) or (
        name in COMPUTATION_LIST_ATTRIBUTES and isinstance(value, (list, tuple))
    )


def _called_in_proto_order(instruction: HloInstruction) -> list[HloComputation]:
    names = CALLED_ATTRIBUTES.get(instruction.opcode)
    if names is None:
        return instruction.called_computations()
    out: list[HloComputation] = []
    for name in names:
        value = instruction.attribute(name)
        if isinstance(value, HloComputation):
            out.append(value)
        elif value:
            out.extend(value)
    if len(out) != len(instruction.called_computations()):
        extra = [c.name for c in instruction.called_computations() if c not in out]
        raise UnimplementedError(
            f"instruction {instruction.name}: {instruction.opcode.value} calls {extra} through "
            "attributes XLA's proto does not name for this opcode"
        )
    return out


def module_to_proto_bytes(module: HloModule, *, drop_config: bool = False) -> bytes:
    """The serialized ``HloModuleProto`` (deterministic: the same module, the same bytes)."""
    return module_to_proto(module, drop_config=drop_config).SerializeToString(deterministic=True)


# -- reading ---------------------------------------------------------------------------


def module_from_proto(source: Any, *, verify: bool = True) -> HloModule:
    """An ``HloModule`` from an ``HloModuleProto`` message or its serialized bytes."""
    proto = _as_message(source)
    check_no_unknown_fields(proto, "HloModuleProto")
    _refuse_module_fields(proto)
    module = HloModule(proto.name or "module", ModuleConfig())
    computations: dict[int, HloComputation] = {}
    for computation_proto in proto.computations:
        if computation_proto.id in computations:
            raise InvalidArgumentError(
                f"HloModuleProto {proto.name}: computation id {computation_proto.id} is used twice"
            )
        computations[computation_proto.id] = _computation_from_proto(
            computation_proto, computations
        )
    entry = computations.get(proto.entry_computation_id)
    if entry is None:
        raise InvalidArgumentError(
            f"HloModuleProto {proto.name}: entry_computation_id {proto.entry_computation_id} "
            "names no computation"
        )
    for computation in _xla_post_order(list(computations.values())):
        name = computation.name
        module.add_computation(computation, entry=computation is entry, append=True)
        if computation.name != name:
            raise InvalidArgumentError(
                f"HloModuleProto {proto.name}: computation name {name!r} is used twice"
            )
    _read_module_config(proto, module, computations)
    if verify:
        module.verify()
    return module


def _xla_post_order(computations: list[HloComputation]) -> list[HloComputation]:
    """XLA's computation post-order: from each computation nobody calls (in proto order),
    depth first through the instructions' called computations in proto order, callees
    before callers. Storing this order makes xlapy print computations as XLA does."""
    called = {id(c) for computation in computations for c in _callees(computation)}
    done: set[int] = set()
    out: list[HloComputation] = []
    for root in computations:
        if id(root) in called or id(root) in done:
            continue
        stack = [(root, iter(_callees(root)))]
        done.add(id(root))
        while stack:
            computation, callees = stack[-1]
            for callee in callees:
                if id(callee) not in done:
                    done.add(id(callee))
                    stack.append((callee, iter(_callees(callee))))
                    break
            else:
                stack.pop()
                out.append(computation)
    out.extend(c for c in computations if id(c) not in done)
    return out


def _callees(computation: HloComputation) -> list[HloComputation]:
    return [c for i in computation.instructions for c in _called_in_proto_order(i)]


def _as_message(source: Any) -> Any:
    cls = message_class("xla.HloModuleProto")
    if isinstance(source, (bytes, bytearray, memoryview)):
        from google.protobuf.message import DecodeError

        try:
            return cls.FromString(bytes(source))
        except DecodeError as e:
            raise ParseError(f"these bytes are not an HloModuleProto: {e}") from None
    if getattr(getattr(source, "DESCRIPTOR", None), "full_name", None) != "xla.HloModuleProto":
        raise InvalidArgumentError(
            f"module_from_proto needs an xla.HloModuleProto or its bytes, not {type(source).__name__}"
        )
    if type(source) is not cls:  # another pool's class (jaxlib's, say): go through bytes
        return cls.FromString(source.SerializeToString())
    return source


def check_no_unknown_fields(message: Any, where: str) -> None:
    """Refuse fields this schema does not know (a newer XLA's), anywhere in ``message``."""
    from google.protobuf import unknown_fields

    unknown = unknown_fields.UnknownFieldSet(message)
    if len(unknown):
        numbers = sorted({field.field_number for field in unknown})
        raise UnimplementedError(
            f"{where} ({message.DESCRIPTOR.full_name}) has fields xlapy's schema does not know: "
            f"numbers {numbers}"
        )
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None:
            continue
        if descriptor.message_type.GetOptions().map_entry:
            items = (
                value.values()
                if descriptor.message_type.fields_by_name["value"].message_type
                else []
            )
            for item in items:
                check_no_unknown_fields(item, f"{where}.{descriptor.name}")
        elif descriptor.is_repeated:
            for i, item in enumerate(value):
                check_no_unknown_fields(item, f"{where}.{descriptor.name}[{i}]")
        else:
            check_no_unknown_fields(value, f"{where}.{descriptor.name}")


_REFUSED_MODULE_FIELDS = (
    "cross_program_prefetches", "profile_info", "device_assignment", "stack_frame_index",
    "original_value_recovery_table", "spmd_output_sharding", "spmd_parameters_shardings",
    "payloads", "is_dynamic", "use_auto_spmd_partitioning",
)  # fmt: skip


def _refuse_module_fields(proto: Any) -> None:
    for descriptor, _ in proto.ListFields():
        if descriptor.name in _REFUSED_MODULE_FIELDS:
            raise UnimplementedError(
                f"HloModuleProto {proto.name}: field {descriptor.name} is set; xlapy's "
                "HloModule has no place for it"
            )


def _computation_from_proto(proto: Any, computations: dict[int, HloComputation]) -> HloComputation:
    computation = HloComputation(proto.name)
    if proto.execution_thread:
        computation.execution_thread = proto.execution_thread
    by_id: dict[int, HloInstruction] = {}
    for instruction_proto in proto.instructions:
        instruction = _instruction_from_proto(instruction_proto, by_id, computations, proto.name)
        if instruction_proto.id in by_id:
            raise InvalidArgumentError(
                f"computation {proto.name}: instruction id {instruction_proto.id} is used twice"
            )
        by_id[instruction_proto.id] = instruction
        computation.add_instruction(instruction)
    root = by_id.get(proto.root_id)
    if root is None:
        raise InvalidArgumentError(
            f"computation {proto.name}: root_id {proto.root_id} names no instruction of it"
        )
    computation.root = root
    return computation


def _lookup(table: dict, key: int, what: str, where: str) -> Any:
    try:
        return table[key]
    except KeyError:
        raise InvalidArgumentError(
            f"{where}: {what} id {key} is not defined before it (ids must refer to earlier "
            "instructions of the same computation, or to earlier computations)"
        ) from None


def _instruction_from_proto(
    proto: Any, by_id: dict, computations: dict, computation_name: str
) -> HloInstruction:
    where = f"instruction {proto.name!r} of computation {computation_name}"
    try:
        opcode = Op.from_text(proto.opcode)
    except (InvalidArgumentError, ValueError, KeyError):
        raise InvalidArgumentError(f"{where}: unknown opcode {proto.opcode!r}") from None
    if not proto.HasField("shape"):
        raise InvalidArgumentError(f"{where}: HloInstructionProto has no shape")
    operands = [_lookup(by_id, i, "operand", where) for i in proto.operand_ids]
    called = [
        _lookup(computations, i, "called computation", where) for i in proto.called_computation_ids
    ]
    literal = None
    if opcode is Op.CONSTANT:
        if not proto.HasField("literal"):
            raise InvalidArgumentError(f"{where}: a constant needs a literal")
        literal = literal_from_proto(proto.literal)
    elif proto.HasField("literal"):
        raise InvalidArgumentError(f"{where}: only constants carry a literal")
    instruction = HloInstruction(
        opcode,
        shape_from_proto(proto.shape),
        operands,
        name=proto.name,
        parameter_number=proto.parameter_number if opcode is Op.PARAMETER else None,
        literal=literal,
    )
    for predecessor_id in proto.control_predecessor_ids:
        instruction.add_control_predecessor(
            _lookup(by_id, predecessor_id, "control predecessor", where)
        )
    attributes, covered = read_attributes(proto, opcode)
    if opcode is Op.CUSTOM_CALL and len(proto.operand_shapes_with_layout):
        # XLA's text leaves constrain_layout out: the layout constraints imply it.
        attributes = [(n, v) for n, v in attributes if n != "constrain_layout"]
    problems = uncovered_fields(proto, covered)
    if proto.parameter_number and opcode is not Op.PARAMETER:
        problems.append("parameter_number")
    if problems:
        raise UnimplementedError(
            f"{where}: HloInstructionProto fields {', '.join(problems)} are set on a "
            f"{opcode.value}; xlapy does not support them there"
        )
    devices = values.device_list_from_proto(proto)
    if devices is not None:
        attributes.append(("replica_groups", devices))
    if proto.HasField("domain_entry_sharding") or proto.HasField("domain_exit_sharding"):
        attributes.append(
            (
                "domain",
                values.domain_from_protos(proto.domain_entry_sharding, proto.domain_exit_sharding),
            )
        )
    attributes.extend(_called_attributes(opcode, called, operands))
    element_type = (
        operands[0].shape.element_type if operands and operands[0].shape.is_array else None
    )
    kept = [
        (name, value)
        for name, value in attributes
        if name in SPECIAL_ATTRIBUTES
        or not is_omitted_default(opcode, name, value, operand_element_type=element_type)
    ]
    for name, value in sorted(kept, key=lambda item: _rank(opcode, item[0])):
        instruction.set_attribute(name, value)
    return instruction


def _rank(opcode: Op, name: str) -> float:
    swap = OPCODE_ORDER_SWAPS.get(opcode)
    if swap is not None and name in swap:
        first, second = swap
        low = min(_RANK[first], _RANK[second])
        return low + (0.25 if name == first else 0.5)
    return _RANK.get(name, len(_RANK))


def _called_attributes(opcode: Op, called: list, operands: list) -> list[tuple[str, Any]]:
    if not called:
        return []
    if opcode is Op.CONDITIONAL:
        if (
            operands
            and operands[0].shape.is_array
            and operands[0].shape.element_type.is_pred
            and len(called) == 2
        ):
            return [("true_computation", called[0]), ("false_computation", called[1])]
        return [("branch_computations", list(called))]
    names = CALLED_ATTRIBUTES.get(opcode)
    if names == ("called_computations",):
        return [("called_computations", list(called))]
    if names is None:
        names = (DEFAULT_CALLED_ATTRIBUTE,)
    if len(names) != len(called):
        raise InvalidArgumentError(
            f"a {opcode.value} calls {len(names)} computation(s) ({', '.join(names)}); the proto "
            f"lists {len(called)}"
        )
    return list(zip(names, called, strict=True))


def _read_module_config(proto: Any, module: HloModule, computations: dict) -> None:
    if proto.HasField("host_program_shape"):
        layout = program_shape_from_proto(proto.host_program_shape)
        module.entry_computation_layout = ProgramShape(layout.parameters, layout.result)
    if proto.HasField("schedule") and len(proto.schedule.sequences):
        module.is_scheduled = True
        protos = {c.id: c for c in proto.computations}
        for computation_id, sequence in proto.schedule.sequences.items():
            computation = _lookup(computations, computation_id, "scheduled computation", "schedule")
            # The reader adds instructions in the proto's order: pair them with their ids.
            ids = [i.id for i in protos[computation_id].instructions]
            by_id = dict(zip(ids, computation.instructions, strict=True))
            where = f"schedule of {computation.name}"
            computation.set_instruction_order(
                [
                    _lookup(by_id, i, "scheduled instruction", where)
                    for i in sequence.instruction_ids
                ]
            )
    entries = []
    for entry in proto.input_output_alias.entries:
        if entry.kind not in (1, 2):
            raise InvalidArgumentError(
                f"input_output_alias entry has kind {entry.kind}; use MAY_ALIAS or MUST_ALIAS"
            )
        entries.append(
            AliasEntry(
                tuple(entry.output_shape_index),
                entry.parameter_number,
                tuple(entry.parameter_shape_index),
                AliasKind.MAY_ALIAS if entry.kind == 1 else AliasKind.MUST_ALIAS,
            )
        )
    if entries:
        module.input_output_alias = InputOutputAlias(tuple(entries))
    donors = tuple(
        (d.parameter_number, tuple(d.parameter_shape_index)) for d in proto.buffer_donor.entries
    )
    if donors:
        module.buffer_donor = BufferDonor(donors)
    if len(proto.frontend_attributes.map):
        module.frontend_attributes = values.frontend_attributes_from_proto(
            proto.frontend_attributes
        )


__all__ = [
    "CALLED_ATTRIBUTES",
    "check_no_unknown_fields",
    "module_from_proto",
    "module_to_proto",
    "module_to_proto_bytes",
]
