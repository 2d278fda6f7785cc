"""Loop and input fusion: producers computed inside their consumers' loops.

Working from the root up (consumers before producers), every fusible consumer
pulls in its fusible operands, so a chain of elementwise and movement ops
becomes one loop that reads its inputs once and writes its output once. A
reduce pulls in the producers of its input (input fusion, ``kInput``); nothing
fuses through a reduce into its users.

A producer with other users is duplicated into the consumer only if it is
cheap; an expensive one (divide, power, transcendental functions) is never
duplicated, and never fused where its consumer would read each of its elements
more than once (a broadcast, a pad...): fusion must not add work. Fusing P into
C is refused when another path leads from P to C, which would make a cycle.
"""

from __future__ import annotations

from collections.abc import Callable

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from ..xla_data import FusionKind
from .fusion_support import fuse_producer, wrap_in_fusion
from .pass_base import HloPass

Op = HloOpcode

MOVEMENT = frozenset(
    {
        Op.BROADCAST,
        Op.RESHAPE,
        Op.TRANSPOSE,
        Op.SLICE,
        Op.CONCATENATE,
        Op.PAD,
        Op.IOTA,
        Op.REVERSE,
        Op.DYNAMIC_SLICE,
        Op.CONSTANT,
        Op.COPY,
    }
)
EXPENSIVE = frozenset(
    {
        Op.DIVIDE,
        Op.POWER,
        Op.REMAINDER,
        Op.EXPONENTIAL,
        Op.EXPONENTIAL_MINUS_ONE,
        Op.LOG,
        Op.LOG_PLUS_ONE,
        Op.TANH,
        Op.LOGISTIC,
        Op.SINE,
        Op.COSINE,
        Op.TAN,
        Op.ATAN2,
        Op.ERF,
        Op.SQRT,
        Op.RSQRT,
        Op.CBRT,
    }
)
# Consumers that read each element of an operand at most once per output element
# and at the same position: an expensive producer may fuse into these.
_SAME_INDEX_READERS = frozenset({Op.RESHAPE, Op.COPY, Op.CONVERT, Op.BITCAST})
_WORK_PER_DUPLICATE_LIMIT = 1  # cheap producers only


def default_can_emit(instruction: HloInstruction) -> bool:
    """Whether the CPU emitter can generate ``instruction`` inside a fused loop."""
    shape = instruction.shape
    if not shape.is_array:
        return False
    types = [shape.element_type] + [
        o.shape.element_type for o in instruction.operands if o.shape.is_array
    ]
    if any(t.is_complex for t in types):
        return False
    if any(not o.shape.is_array for o in instruction.operands):
        return False
    op = instruction.opcode
    if op is Op.CONSTANT:
        return shape.is_scalar
    return op.is_elementwise or op in MOVEMENT


def _is_cheap(instruction: HloInstruction) -> bool:
    op = instruction.opcode
    return op not in EXPENSIVE and (op.is_elementwise or op in MOVEMENT)


def _reads_once(consumer: HloInstruction, producer: HloInstruction) -> bool:
    """True when ``consumer`` reads each element of ``producer`` once, where it is."""
    op = consumer.opcode
    if op.is_elementwise:
        return producer.shape.dimensions == consumer.shape.dimensions
    if op is Op.REDUCE:
        return True
    if op is Op.FUSION:
        fused = consumer.fused_computation
        parameter = next(
            p for p, o in zip(fused.parameters, consumer.operands, strict=True) if o is producer
        )
        return all(_reads_once(u, parameter) for u in parameter.users)
    return op in _SAME_INDEX_READERS or op in (Op.SLICE, Op.TRANSPOSE, Op.DYNAMIC_SLICE)


class InstructionFusion(HloPass):
    """Loop fusion of elementwise and movement ops, and input fusion into reduces."""

    name = "fusion"

    def __init__(self, can_emit: Callable[[HloInstruction], bool] = default_can_emit) -> None:
        self.can_emit = can_emit

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in _control_flow_computations(module):
            changed |= self._fuse(computation)
        return changed

    def _consumer_kind(self, instruction: HloInstruction) -> FusionKind | None:
        op = instruction.opcode
        if op is Op.FUSION:
            return None  # already a fusion: producers are pulled in directly
        if op is Op.REDUCE and all(o.shape.is_array for o in instruction.operands):
            reducer_ok = all(
                i.shape.is_scalar or i.opcode is Op.TUPLE for i in instruction.to_apply.instructions
            )
            return FusionKind.kInput if reducer_ok else None
        if self.can_emit(instruction) and instruction.opcode is not Op.CONSTANT:
            return FusionKind.kLoop
        return None

    def _fusible_producer(self, producer: HloInstruction, consumer: HloInstruction) -> bool:
        if producer.opcode in (Op.PARAMETER,) or not self.can_emit(producer):
            return False
        if producer.parent.root is producer and producer.user_count > 0:
            return False
        if producer.opcode in EXPENSIVE and not _reads_once(consumer, producer):
            return False
        if producer.user_count > 1 and not _is_cheap(producer):
            return False
        # No cycle can arise: a producer with one user moves into it, and a producer
        # with several users stays for the others while its copy joins the fusion.
        return True

    def _fuse(self, computation: HloComputation) -> bool:
        changed = False
        for instruction in reversed(computation.post_order()):
            if instruction.parent is not computation:
                continue  # replaced by a fusion earlier in this walk
            consumer = instruction
            progress = True
            while progress:
                progress = False
                for producer in list(consumer.operands):
                    if not self._fusible_producer(producer, consumer):
                        continue
                    if consumer.opcode is not Op.FUSION:
                        kind = self._consumer_kind(consumer)
                        if kind is None:
                            break
                        consumer = wrap_in_fusion(consumer, kind)
                    fuse_producer(consumer, producer)
                    if producer.user_count == 0 and producer is not computation.root:
                        computation.remove_instruction(producer)
                    changed = progress = True
                    break
        if changed:
            computation.sort_topologically()
            for instruction in computation.instructions:
                if instruction.opcode is Op.FUSION:
                    instruction.fused_computation.sort_topologically()
        return changed


def _control_flow_computations(module: HloModule) -> list[HloComputation]:
    """The computations that run as code: the entry and what control flow calls."""
    out, seen = [], set()
    stack = [module.entry]
    while stack:
        computation = stack.pop()
        if id(computation) in seen:
            continue
        seen.add(id(computation))
        out.append(computation)
        for instruction in computation.instructions:
            op = instruction.opcode
            if op in (Op.WHILE, Op.CONDITIONAL, Op.CALL):
                stack.extend(instruction.called_computations())
    return out
