"""Multi-output fusion: a loop fusion computed inside the reduce fusion that reads it.

Softmax computes ``e = exp(x - max)`` and needs it twice: summed, and divided by
the sum. Loop fusion must not duplicate the exponential, so ``e`` is written to
memory by one kernel and read back by the reduce. Here the producer moves into
the reduce fusion as a second output (the reduce kernel writes ``e`` while it
sums it), saving a pass over the data: the fusion's root becomes
``tuple(reduce, e)`` and every user reads its part with get-tuple-element.

Only when the producer's value is exactly the reduce's input space (the reduce
kernel visits each of its elements once) and nothing else depends on the
reduce fusion through the producer.
"""

from __future__ import annotations

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from ..shape import Shape
from ..xla_data import FusionKind
from .fusion import _control_flow_computations
from .fusion_support import clone_body
from .pass_base import HloPass

Op = HloOpcode


def _reduce_root(fusion: HloInstruction) -> HloInstruction | None:
    root = fusion.fused_computation.root
    return root if root.opcode is Op.REDUCE and root.shape.is_array else None


def _inline_loop_fusion(consumer: HloInstruction, producer: HloInstruction) -> HloInstruction:
    """Clone ``producer``'s fused computation into ``consumer``'s; returns the clone of its root."""
    fused = consumer.fused_computation
    inner = producer.fused_computation
    parameter = next(
        p for p, o in zip(fused.parameters, consumer.operands, strict=True) if o is producer
    )
    existing = {id(o): p for p, o in zip(fused.parameters, consumer.operands, strict=True)}
    new_operands = list(consumer.operands)
    inner_parameters = []
    for outer in producer.operands:
        p = existing.get(id(outer))
        if p is None:
            p = HloInstruction.create_parameter(len(new_operands), outer.shape, name="param")
            fused.add_instruction(p)
            existing[id(outer)] = p
            new_operands.append(outer)
        inner_parameters.append(p)
    root_clone = clone_body(inner, fused, inner_parameters)
    parameter.replace_all_uses_with(root_clone)
    position = new_operands.index(producer)
    new_operands.pop(position)
    fused.remove_instruction(parameter)
    for number, operand in enumerate(new_operands):
        existing[id(operand)].parameter_number = number
    consumer.replace_operands(new_operands)
    return root_clone


class MultiOutputFusion(HloPass):
    name = "multi-output-fusion"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in _control_flow_computations(module):
            changed |= self._run(computation, module)
        return changed

    def _run(self, computation: HloComputation, module: HloModule) -> bool:
        changed = False
        for consumer in list(computation.instructions):
            if consumer.parent is not computation or consumer.opcode is not Op.FUSION:
                continue
            reduce = _reduce_root(consumer)
            if reduce is None:
                continue
            input_dims = reduce.operand(0).shape.dimensions
            for producer in consumer.operands:
                if (
                    producer.opcode is not Op.FUSION
                    or producer.fusion_kind != "kLoop"
                    or not producer.shape.is_array
                    or producer.shape.dimensions != input_dims
                    or producer.user_count < 2
                    or producer is computation.root
                ):
                    continue
                self._merge(computation, consumer, producer, reduce)
                changed = True
                break
        if changed:
            computation.sort_topologically()
        return changed

    def _merge(
        self,
        computation: HloComputation,
        consumer: HloInstruction,
        producer: HloInstruction,
        reduce: HloInstruction,
    ) -> None:
        value = _inline_loop_fusion(consumer, producer)
        fused = consumer.fused_computation
        root = HloInstruction(Op.TUPLE, Shape.tuple([reduce.shape, value.shape]), [reduce, value])
        fused.add_instruction(root)
        fused.root = root
        fused.sort_topologically()
        old_users = [u for u in consumer.users]
        consumer.shape = root.shape
        reduced = HloInstruction(
            Op.GET_TUPLE_ELEMENT, reduce.shape, [consumer], attributes={"index": 0}
        )
        computation.add_instruction(reduced)
        for user in old_users:
            user.replace_operand(consumer, reduced)
        if computation.root is consumer:
            computation.root = reduced
        side = HloInstruction(
            Op.GET_TUPLE_ELEMENT, value.shape, [consumer], attributes={"index": 1}
        )
        computation.add_instruction(side)
        producer.replace_all_uses_with(side)
        if computation.root is producer:
            computation.root = side
        computation.remove_instruction(producer)


def _elementwise_at_output(fusion: HloInstruction) -> bool:
    """Whether every value of a loop fusion is read at the output's own index."""
    dims = fusion.shape.dimensions if fusion.shape.is_array else None
    if dims is None:
        return False
    for instruction in fusion.fused_computation.instructions:
        shape = instruction.shape
        if not shape.is_array:
            return False
        op = instruction.opcode
        if shape.is_scalar and op in (Op.CONSTANT, Op.PARAMETER):
            continue
        if op is Op.BROADCAST and instruction.operand(0).shape.is_scalar:
            continue
        if shape.dimensions != dims or not (op.is_elementwise or op is Op.PARAMETER):
            return False
        if op.is_elementwise and any(
            o.shape.dimensions not in (dims, ()) for o in instruction.operands
        ):
            return False
    return True


class ReduceEpilogueFusion(HloPass):
    """An elementwise function of a reduce's result joins the reduce kernel.

    Layer norm divides a row sum by the row length, and takes ``rsqrt`` of the
    variance: each is a tiny loop over the reduce's output. Computed inside the
    reduce kernel (per output element, right after the reduction), it costs no
    kernel launch and no round trip through memory.
    """

    name = "reduce-epilogue-fusion"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in _control_flow_computations(module):
            for consumer in list(computation.instructions):
                if consumer.parent is not computation or consumer.opcode is not Op.FUSION:
                    continue
                if consumer.fusion_kind != "kLoop" or not _elementwise_at_output(consumer):
                    continue
                for producer in consumer.operands:
                    if (
                        producer.opcode is Op.FUSION
                        and producer.fusion_kind == "kInput"
                        and producer.user_count == 1
                        and producer.shape.is_array
                        and _reduce_root(producer) is not None
                        and producer.shape.dimensions == consumer.shape.dimensions
                    ):
                        _inline_loop_fusion(consumer, producer)
                        computation.remove_instruction(producer)
                        consumer.set_attribute("kind", FusionKind.kInput)
                        consumer.fused_computation.sort_topologically()
                        changed = True
                        break
            if changed:
                computation.sort_topologically()
        return changed
