"""Loop and input fusion: producers computed inside their consumers' loops.

Working from the root up (consumers before producers), every fusible consumer
pulls in its fusible operands, and then the operands of what it pulled in, so
a chain of elementwise and movement ops becomes one loop that reads its
inputs once and writes its output once (``kLoop``). A reduce pulls in the
producers of its inputs and its constant init values (input fusion,
``kInput``); a reduce is only ever the root of a fusion, so nothing fuses
through a reduce into its users: those are separate kernels (the
``multi_output_fusion`` passes join some of them afterwards).

Fusion must never add work or break the graph:

* a producer with other users is duplicated into the consumer only if it is
  cheap (``fusion_policy.is_expensive``); an expensive one is computed once;
* an expensive producer never fuses where the consumer reads its elements
  more than once (a broadcast of ``exp(x)`` would compute ``exp`` per copy);
* scalar constants are fused (copied freely); larger constants stay outside
  and are read through a fused parameter, so each exists once in memory;
* no cycle can arise: a producer fused into its only user leaves the graph,
  and a duplicated one stays for its other users while its copy reads the
  producer's own operands, which precede both. (The multi-output passes,
  where this is not automatic, check reachability.)

Which instructions the backend can compile inside a fusion is the
``can_emit`` parameter (``fusion_policy.default_can_emit`` by default).
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...xla_data import FusionKind
from ..pass_base import HloPass
from .decisions import FusionLog, record
from .policy import (
    EXPENSIVE,
    MOVEMENT,
    CanEmit,
    default_can_emit,
    forget_reuse,
    is_expensive,
    reuses_elements,
)
from .support import create_fusion, finish_fusions, fuse_producer

Op = HloOpcode

# Control flow whose called computations run as code of their own (and get fused).
_CONTROL_FLOW = frozenset({Op.WHILE, Op.CONDITIONAL, Op.CALL})
# Never fused into a consumer: values from outside, tuples, and reduces (only ever a
# fusion's root; nothing fuses through them into their users).
_NEVER_PRODUCERS = frozenset({Op.PARAMETER, Op.GET_TUPLE_ELEMENT, Op.TUPLE, Op.REDUCE})
# Fusion kinds the loop emitter extends with more producers.
_EXTENSIBLE_KINDS = frozenset({"kLoop", "kInput"})

# The policy's answers, as (fused, reason): ``verdict`` returns these constants, so the
# decision costs no more than a bool and a decision log (``decisions``) reads the reason.
_NEVER_REASONS = {
    Op.PARAMETER: "a parameter is a value from outside the computation",
    Op.GET_TUPLE_ELEMENT: "get-tuple-element only names part of a tuple",
    Op.TUPLE: "a tuple is structure, not a value a loop computes",
    Op.REDUCE: "a reduce is only ever a fusion's root: nothing fuses through it",
}
_CONTROL_EDGES = "it has control dependencies, which a fusion would lose"
_INPUT_FUSION = "a reduce (kInput) or multi-output fusion never merges into its consumer"
_LARGE_CONSTANT = (
    "a non-scalar constant stays outside (one copy in memory, read through a parameter)"
)
_NOT_EMITTABLE = "the backend cannot emit this producer inside a fused loop (can_emit)"
_UNSEEN = object()
_KEPT_SHARED = (False, "expensive and read by several users: fusing would compute it once per user")
_KEPT_REREAD = (
    False,
    "expensive and the consumer reads its elements more than once: fusing would compute "
    "it once per read",
)
_FUSED_ONLY_USER = (True, "cheap, and this consumer is its only user")
_FUSED_DUPLICATED = (True, "cheap: duplicated into this consumer, its other users keep theirs")
_FUSED_EXPENSIVE = (True, "expensive, but this is its only user and reads each element once")


def fusible_computations(module: HloModule) -> list[HloComputation]:
    """The computations that run as code: the entry and what control flow calls
    (not fused computations, reducers or comparators)."""
    out, seen = [], set()
    stack = [module.entry]
    while stack:
        computation = stack.pop()
        if id(computation) in seen:
            continue
        seen.add(id(computation))
        out.append(computation)
        for instruction in computation.instructions:
            if instruction.opcode in _CONTROL_FLOW:
                stack.extend(instruction.called_computations())
    return out


class InstructionFusion(HloPass):
    """Loop fusion of elementwise and movement ops, and input fusion into reduces."""

    name = "fusion"

    def __init__(
        self, can_emit: CanEmit = default_can_emit, decision_log: FusionLog | None = None
    ) -> None:
        self.can_emit = can_emit
        # Where tools read the decisions (``decisions``); None (the default) records nothing.
        self.decision_log = decision_log
        self._fusible: dict[HloInstruction, str | None] = {}  # producer -> why not, or None

    def run(self, module: HloModule) -> bool:
        forget_reuse()  # other passes may have edited fused computations since
        self._fusible = {}  # per producer, for this run
        changed = False
        for computation in fusible_computations(module):
            changed |= self._fuse_computation(computation)
        self._fusible = {}
        return changed

    def _fuse_computation(self, computation: HloComputation) -> bool:
        changed = False
        for consumer in reversed(computation.post_order()):
            if consumer.parent is computation:  # else fused away earlier in this walk
                changed |= self._fuse_into(consumer)
        if changed:
            finish_fusions(computation)
        return changed

    def _fuse_into(self, consumer: HloInstruction) -> bool:
        """Pull fusible producers into ``consumer`` until none is left."""
        if consumer.user_count == 0 and not consumer.is_root:
            return False  # dead: a fusion of it would outlive DCE (fusions may have effects)
        kind = self.consumer_kind(consumer)
        log = self.decision_log
        if kind is None:
            if log is not None:
                self._log_refused_consumer(log, consumer)
            return False
        changed = False
        while True:
            producer = next(
                (p for p in consumer.iter_operands_unique() if self.should_fuse(consumer, p)),
                None,
            )
            if producer is None:
                if log is not None:  # the last scan settled every remaining operand
                    for kept in consumer.iter_operands_unique():
                        record(log, self.name, consumer, kept, *self.verdict(consumer, kept))
                return changed
            reason = self.verdict(consumer, producer)[1] if log is not None else ""
            if consumer.opcode is not Op.FUSION:
                consumer = create_fusion(consumer, kind)
            fuse_producer(consumer, producer)
            if log is not None:
                record(log, self.name, consumer, producer, True, reason)
            changed = True

    def _log_refused_consumer(self, log: FusionLog, consumer: HloInstruction) -> None:
        """Record why a consumer that roots no fusion took none of its operands."""
        if consumer.operand_count == 0 or (consumer.user_count == 0 and not consumer.is_root):
            return
        if consumer.opcode is Op.FUSION:
            reason = f"the consumer is a {consumer.fusion_kind} fusion, which takes no producers"
        else:
            reason = "the backend cannot emit the consumer as a fused loop (can_emit)"
        for producer in consumer.iter_operands_unique():
            record(log, self.name, consumer, producer, False, reason)

    def consumer_kind(self, consumer: HloInstruction) -> FusionKind | None:
        """The kind of fusion ``consumer`` roots, or None if it takes no producers."""
        op = consumer.opcode
        if op is Op.FUSION:
            kind = consumer.fusion_kind
            return FusionKind(kind) if kind in _EXTENSIBLE_KINDS else None
        if consumer.operand_count == 0:
            return None
        if not self.can_emit(consumer):
            return None
        return FusionKind.kInput if op is Op.REDUCE else FusionKind.kLoop

    def should_fuse(self, consumer: HloInstruction, producer: HloInstruction) -> bool:
        """Whether ``producer`` may be computed inside ``consumer`` (see the module docstring)."""
        return self.verdict(consumer, producer)[0]

    def verdict(self, consumer: HloInstruction, producer: HloInstruction) -> tuple[bool, str]:
        """``(fused, reason)`` for ``producer`` -> ``consumer``: the decision and the
        policy's criterion that settled it."""
        refusal = self._fusible.get(producer, _UNSEEN)
        if refusal is _UNSEEN:
            refusal = self._fusible[producer] = self._producer_refusal(producer)
        if refusal is not None:
            return False, refusal  # type: ignore[return-value]
        expensive = is_expensive(producer)
        uses = producer.user_count + (1 if producer.is_root else 0)
        if uses > 1 and expensive:
            return _KEPT_SHARED  # would be computed twice
        if expensive and any(
            reuses_elements(consumer, k) for k, o in enumerate(consumer.operands) if o is producer
        ):
            return _KEPT_REREAD  # would be computed once per read
        if expensive:
            return _FUSED_EXPENSIVE
        return _FUSED_DUPLICATED if uses > 1 else _FUSED_ONLY_USER

    def _producer_refusal(self, producer: HloInstruction) -> str | None:
        """Why ``producer`` may not be in a fusion at all (its uses aside), or None."""
        op = producer.opcode
        if op in _NEVER_PRODUCERS:
            return _NEVER_REASONS[op]
        if producer.control_predecessors or producer.control_successors:
            return _CONTROL_EDGES
        if op is Op.FUSION:
            # A loop fusion merges into its consumer; a reduce (kInput) never does.
            loop = (
                producer.fusion_kind == "kLoop"
                and producer.fused_computation.root.opcode is not Op.TUPLE
            )
            return None if loop else _INPUT_FUSION
        if op is Op.CONSTANT and not producer.shape.is_scalar:
            return _LARGE_CONSTANT  # one copy in memory, read through a parameter
        return None if self.can_emit(producer) else _NOT_EMITTABLE


__all__ = [
    "EXPENSIVE",
    "MOVEMENT",
    "InstructionFusion",
    "default_can_emit",
    "fusible_computations",
]
