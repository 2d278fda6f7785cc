"""Multi-output fusion: one reduce kernel computes what several kernels did.

Loop fusion leaves a kernel per reduce and a kernel per expensive value that
several consumers read. Here reduce kernels over the same iteration space
(``fusion_reduce.ReduceSpace``) take on more outputs, so the data is read
once and intermediate values are not written and read back:

* **Siblings.** Two reduces (or reduce fusions) that read the same operand
  over the same space become one ``kInput`` fusion whose root is a tuple of
  both: layer norm's ``sum(x)`` and ``sum(x*x)`` read ``x`` once.
* **Producer and consumer.** A loop fusion or fusible instruction of the
  input space that a reduce fusion reads, and that others read too, is
  computed inside the reduce kernel and written out as a *side output*
  (root ``tuple(reduce, value)``): softmax's ``e = exp(x - max)`` is computed
  once, while it is summed. Likewise a reduce kernel over the same space
  whose result the consumer only uses in its epilogue joins it.

Users of a multi-output fusion read their part with get-tuple-element.
Merging never creates a cycle: two siblings merge only if neither reaches
the other, and a producer only if none of its other users reaches the
consumer (else ``P -> X -> C`` would become ``F -> X -> F``).

``ReduceEpilogueFusion`` is the single-output case run before: an
elementwise loop over a reduce's result (the mean from a sum, ``rsqrt`` of a
variance) joins the reduce kernel as its epilogue, computed per output
element right after the reduction, instead of costing a kernel of its own.
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...xla_data import FusionKind
from ..pass_base import HloPass
from .decisions import FusionLog, record
from .instruction_fusion import fusible_computations
from .policy import CanEmit, default_can_emit
from .reduce_space import (
    ReduceSpace,
    elementwise_at_output,
    read_at_input_index,
    read_in_epilogue_only,
    reduce_space,
)
from .support import (
    create_fusion,
    finish_fusions,
    fuse_producer,
    is_multi_output,
    merge_fusions,
    parameter_of,
    reachable,
)

Op = HloOpcode


def _outputs_movable(instruction: HloInstruction) -> bool:
    """Whether the outputs of ``instruction`` can be renumbered: a multi-output fusion
    whose users all pick elements (a single-output one gets a get-tuple-element)."""
    if instruction.opcode is not Op.FUSION or not is_multi_output(instruction):
        return True
    return not instruction.is_root and all(
        u.opcode is Op.GET_TUPLE_ELEMENT for u in instruction.users
    )


# Why a pair was merged or kept apart (the decision log's reasons; ``decisions``).
_SIBLINGS = (
    "siblings: both reduce kernels read one operand over the same space; one read serves both"
)
_OTHER_SPACE = "siblings over different reduce spaces: one loop nest cannot run both"
_SIBLING_CYCLE = "siblings, but one reaches the other: merging would make a cycle"
_SIDE_OUTPUT = (
    "a loop value of the reduce's input space: computed while summed, written as a side output"
)
_EPILOGUE_INPUT = "a reduce kernel of the same space read only in the consumer's epilogue"
_PRODUCER_CYCLE = "another user of the producer reaches the consumer: fusing would make a cycle"
_NOT_ABSORBABLE = (
    "neither a loop value read at the reduce's input index nor a reduce of the same space "
    "read only in the epilogue"
)
_EPILOGUE = (
    "an elementwise loop over a reduce result it alone reads: joins the reduce as its epilogue"
)
_OTHER_READERS = "the reduce result has other readers (or is the root): it stays a kernel's output"
_OTHER_KEPT_DIMS = "the reduce's kept dimensions (or space) differ from the epilogue's"


def _as_fusion(instruction: HloInstruction) -> HloInstruction:
    if instruction.opcode is Op.FUSION:
        return instruction
    return create_fusion(instruction, FusionKind.kInput)


class MultiOutputFusion(HloPass):
    """Sibling and producer-consumer multi-output fusion of reduce kernels."""

    name = "multi-output-fusion"

    def __init__(
        self, can_emit: CanEmit = default_can_emit, decision_log: FusionLog | None = None
    ) -> None:
        self.can_emit = can_emit
        # Where tools read the decisions (``decisions``); None (the default) records nothing.
        self.decision_log = decision_log
        # Pairs kept apart in the current scan; logged only from the scan that merges
        # nothing (every scan after a merge starts over), so each is logged once.
        self._kept: list[tuple[HloInstruction, HloInstruction, str]] | None = None

    def run(self, module: HloModule) -> bool:
        changed = False
        log = self.decision_log
        for computation in fusible_computations(module):
            touched = False
            while True:
                self._kept = [] if log is not None else None
                if not (self._merge_siblings(computation) or self._absorb_producer(computation)):
                    break
                touched = True
            if log is not None and self._kept:
                for consumer, producer, reason in self._kept:
                    record(log, self.name, consumer, producer, False, reason)
            self._kept = None
            if touched:
                finish_fusions(computation)
            changed |= touched
        return changed

    def _keep(self, consumer: HloInstruction, producer: HloInstruction, reason: str) -> None:
        if self._kept is not None:
            self._kept.append((consumer, producer, reason))

    def _space(self, instruction: HloInstruction) -> ReduceSpace | None:
        if instruction.control_predecessors or instruction.control_successors:
            return None
        if not _outputs_movable(instruction):
            return None
        return reduce_space(instruction, self.can_emit)

    # -- siblings -----------------------------------------------------------------------

    def _merge_siblings(self, computation: HloComputation) -> bool:
        """Merge one pair of reduce kernels that read a common operand; True if done."""
        for value in computation.post_order():
            if not value.shape.is_array:
                continue
            dims = tuple(value.shape.dimensions)
            kernels = []
            for user in value.users:
                space = self._space(user)
                if space is not None and space.input_dims == dims:
                    kernels.append((user, space))
            for k, (first, space) in enumerate(kernels):
                for second, other in kernels[k + 1 :]:
                    if (
                        space == other
                        and not reachable(first, second)
                        and not reachable(second, first)
                    ):
                        into = _as_fusion(first)
                        if self.decision_log is not None:
                            record(self.decision_log, self.name, into, second, True, _SIBLINGS)
                        merge_fusions(into, _as_fusion(second))
                        return True
                    if self._kept is not None:
                        self._keep(
                            first, second, _SIBLING_CYCLE if space == other else _OTHER_SPACE
                        )
        return False

    # -- producer and consumer ----------------------------------------------------------

    def _absorb_producer(self, computation: HloComputation) -> bool:
        """Pull one producer into the reduce kernel that reads it; True if done."""
        for consumer in computation.post_order():
            space = self._space(consumer)
            if space is None:
                continue
            for producer in consumer.iter_operands_unique():
                if self._absorbable(consumer, producer, space):
                    fusion = _as_fusion(consumer)
                    others = producer.user_count > 1 or producer.is_root
                    if self.decision_log is not None:
                        reason = self._absorb_reason(consumer, producer, space)
                    fuse_producer(fusion, producer, keep_output=others)
                    if self.decision_log is not None:
                        record(self.decision_log, self.name, fusion, producer, True, reason)
                    return True
                if self._kept is not None and _worth_logging(producer):
                    self._keep(consumer, producer, self._absorb_reason(consumer, producer, space))
        return False

    def _absorb_reason(
        self, consumer: HloInstruction, producer: HloInstruction, space: ReduceSpace
    ) -> str:
        """The criterion of ``_absorbable`` that settles the pair (for the decision log)."""
        if producer.control_predecessors or producer.control_successors:
            return "it has control dependencies, which a fusion would lose"
        if not producer.shape.is_array:
            return "a tuple-shaped producer"
        side = self._side_output(consumer, producer, space)
        if not side and not self._epilogue_input(consumer, producer, space):
            return _NOT_ABSORBABLE
        if any(reachable(u, consumer) for u in producer.users if u is not consumer):
            return _PRODUCER_CYCLE
        return _SIDE_OUTPUT if side else _EPILOGUE_INPUT

    def _absorbable(
        self, consumer: HloInstruction, producer: HloInstruction, space: ReduceSpace
    ) -> bool:
        if producer.control_predecessors or producer.control_successors:
            return False
        if not producer.shape.is_array:
            return False
        if self._side_output(consumer, producer, space) or self._epilogue_input(
            consumer, producer, space
        ):
            return not any(reachable(u, consumer) for u in producer.users if u is not consumer)
        return False

    def _side_output(
        self, consumer: HloInstruction, producer: HloInstruction, space: ReduceSpace
    ) -> bool:
        """A loop value of the input space, read where the reduce loop visits it."""
        if tuple(producer.shape.dimensions) != space.input_dims:
            return False
        if producer.opcode is Op.FUSION:
            if producer.fusion_kind != "kLoop" or is_multi_output(producer):
                return False
        elif (
            producer.opcode in (Op.REDUCE, Op.CONSTANT, Op.PARAMETER)
            or not self.can_emit(producer)
            or producer.operand_count == 0
        ):
            return False
        if consumer.opcode is Op.REDUCE:
            inputs = consumer.operand_count // 2
            return all(o is not producer for o in consumer.operands[inputs:])
        return read_at_input_index(parameter_of(consumer, producer))

    def _epilogue_input(
        self, consumer: HloInstruction, producer: HloInstruction, space: ReduceSpace
    ) -> bool:
        """A reduce kernel of the same space whose result only the consumer's epilogue reads."""
        if consumer.opcode is not Op.FUSION or producer.opcode not in (Op.FUSION, Op.REDUCE):
            return False
        if producer.opcode is Op.FUSION and is_multi_output(producer):
            return False
        if self._space(producer) != space:
            return False
        return read_in_epilogue_only(parameter_of(consumer, producer), space.kept_dims)


def _worth_logging(producer: HloInstruction) -> bool:
    """Producers whose absorption was a real question: computed values, not inputs."""
    return producer.opcode not in (Op.PARAMETER, Op.CONSTANT, Op.GET_TUPLE_ELEMENT)


class ReduceEpilogueFusion(HloPass):
    """An elementwise loop over reduce results joins the reduce kernel as its epilogue.

    Layer norm divides a row sum by the row length, and takes ``rsqrt`` of the
    variance: each is a tiny loop over the reduce's output. Computed inside the
    reduce kernel (per output element, right after the reduction), it costs no
    kernel launch and no round trip through memory. Only reduce kernels the
    loop reads alone, all over one space, join: the reduce is then no longer
    the fusion's root, which the emitter supports for exactly this shape.
    """

    name = "reduce-epilogue-fusion"

    def __init__(
        self, can_emit: CanEmit = default_can_emit, decision_log: FusionLog | None = None
    ) -> None:
        self.can_emit = can_emit
        # Where tools read the decisions (``decisions``); None (the default) records nothing.
        self.decision_log = decision_log

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in fusible_computations(module):
            touched = False
            for consumer in list(computation.instructions):
                if consumer.parent is computation:
                    touched |= self._fuse_epilogue(consumer)
            if touched:
                finish_fusions(computation)
            changed |= touched
        return changed

    def _fuse_epilogue(self, consumer: HloInstruction) -> bool:
        if not self._epilogue_shaped(consumer):
            return False
        dims = tuple(consumer.shape.dimensions)
        producers: list[HloInstruction] = []
        space = None
        log = self.decision_log
        for producer in consumer.iter_operands_unique():
            candidate = self._single_reader_reduce(producer)
            if candidate is None or candidate.kept_dims != dims:
                if log is not None and reduce_space(producer, self.can_emit) is not None:
                    reason = _OTHER_READERS if candidate is None else _OTHER_KEPT_DIMS
                    record(log, self.name, consumer, producer, False, reason)
                continue
            if space is None or candidate == space:
                space = candidate
                producers.append(producer)
            elif log is not None:
                record(log, self.name, consumer, producer, False, _OTHER_KEPT_DIMS)
        if not producers:
            return False
        if consumer.opcode is not Op.FUSION:
            consumer = create_fusion(consumer, FusionKind.kLoop)
        for producer in producers:
            if log is not None:
                record(log, self.name, consumer, producer, True, _EPILOGUE)
            fuse_producer(consumer, producer)
        return True

    def _epilogue_shaped(self, consumer: HloInstruction) -> bool:
        if consumer.control_predecessors or consumer.control_successors:
            return False
        if consumer.opcode is Op.FUSION:
            return (
                consumer.fusion_kind == "kLoop"
                and not is_multi_output(consumer)
                and elementwise_at_output(consumer)
            )
        op = consumer.opcode
        return (
            op.is_elementwise
            and self.can_emit(consumer)
            and all(o.shape.dimensions == consumer.shape.dimensions for o in consumer.operands)
        )

    def _single_reader_reduce(self, producer: HloInstruction) -> ReduceSpace | None:
        if producer.user_count != 1 or producer.is_root or not producer.shape.is_array:
            return None
        if producer.control_predecessors or producer.control_successors:
            return None
        if producer.opcode is Op.FUSION and is_multi_output(producer):
            return None
        return reduce_space(producer, self.can_emit)


__all__ = ["MultiOutputFusion", "ReduceEpilogueFusion"]
