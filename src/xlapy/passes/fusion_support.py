"""Building fusion instructions: wrap an instruction, pull a producer into a fusion.

A fusion instruction calls a fused computation whose parameters are the
fusion's operands. Pulling a producer in clones it into the fused computation
in place of the parameter that stood for it; the producer's own operands
become operands of the fusion (reusing a parameter when the fusion already
reads that value). A producer with other users outside stays where it is for
them (it is duplicated: only cheap producers are, see ``fusion``).
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.opcode import HloOpcode
from ..xla_data import FusionKind

Op = HloOpcode


def wrap_in_fusion(instruction: HloInstruction, kind: FusionKind) -> HloInstruction:
    """Replace ``instruction`` by a fusion containing just it; returns the fusion."""
    computation = instruction.parent
    module = computation.parent
    parameters = []
    operand_of: dict[int, HloInstruction] = {}
    fusion_operands: list[HloInstruction] = []
    for operand in instruction.operands:
        if id(operand) not in operand_of:
            parameter = HloInstruction.create_parameter(
                len(parameters), operand.shape, name=f"param_{len(parameters)}"
            )
            parameters.append(parameter)
            operand_of[id(operand)] = parameter
            fusion_operands.append(operand)
    clone = instruction.clone([operand_of[id(o)] for o in instruction.operands])
    fused = HloComputation("fused_computation", [*parameters, clone], root=clone)
    module.add_computation(fused)
    fusion = HloInstruction(
        Op.FUSION,
        instruction.shape,
        fusion_operands,
        name="fusion",
        attributes={"kind": kind, "calls": fused},
    )
    computation.add_instruction(fusion)
    computation.replace_instruction(instruction, fusion)
    return fusion


def fuse_producer(fusion: HloInstruction, producer: HloInstruction) -> None:
    """Clone ``producer`` (an operand of ``fusion``) into the fused computation."""
    fused = fusion.fused_computation
    parameter = next(
        p for p, o in zip(fused.parameters, fusion.operands, strict=True) if o is producer
    )
    # Parameters for the producer's operands (existing ones reused).
    existing = {id(o): p for p, o in zip(fused.parameters, fusion.operands, strict=True)}
    new_operands = list(fusion.operands)
    inner_operands = []
    for operand in producer.operands:
        inner = existing.get(id(operand))
        if inner is None:
            inner = HloInstruction.create_parameter(
                len(fused.parameters), operand.shape, name=f"param_{len(fused.parameters)}"
            )
            fused.add_instruction(inner)
            existing[id(operand)] = inner
            new_operands.append(operand)
        inner_operands.append(inner)
    clone = producer.clone(inner_operands)
    fused.add_instruction(clone)
    parameter.replace_all_uses_with(clone)
    # Drop the producer's parameter and renumber the rest in operand order.
    position = list(fusion.operands).index(producer)
    new_operands.pop(position)
    fused.remove_instruction(parameter)
    for number, p in enumerate(_parameters_in_order(fused, new_operands, existing)):
        p.parameter_number = number
    fusion.replace_operands(new_operands)


def _parameters_in_order(
    fused: HloComputation, operands: list[HloInstruction], by_operand: dict[int, HloInstruction]
) -> list[HloInstruction]:
    return [by_operand[id(o)] for o in operands]


def clone_body(
    source: HloComputation, into: HloComputation, parameters: list[HloInstruction]
) -> HloInstruction:
    """Copy ``source``'s instructions into ``into``, its parameter ``k`` standing for
    ``parameters[k]``; returns the copy of its root (inlining and fusing both do this)."""
    mapping: dict[int, HloInstruction] = {}
    for instruction in source.post_order():
        if instruction.opcode is Op.PARAMETER:
            mapping[id(instruction)] = parameters[instruction.parameter_number]
            continue
        clone = instruction.clone([mapping[id(o)] for o in instruction.operands])
        into.add_instruction(clone)
        mapping[id(instruction)] = clone
    return mapping[id(source.root)]
