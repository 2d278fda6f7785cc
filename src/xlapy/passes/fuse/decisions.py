"""The fusion passes' decision log: what was fused into what, what was kept apart, and why.

A tool that explains a compile (``xlapy explain``) attaches a list to a fusion
pass (``InstructionFusion(..., decision_log=log)`` or ``pass.decision_log = log``)
and the pass appends one :class:`FusionDecision` per producer/consumer pair it
settled. The reasons are the policy's own criteria, returned by the same code that
decides (``InstructionFusion.verdict``), so the log cannot drift from what the
pass does. With no log attached (the default) the passes build no record at all.

A pair the pass looked at several times (the loop fusion rescans a consumer's
operands after every producer it pulls in) is logged once, as it was finally
settled: a fused pair when it was fused, a kept pair from the consumer's last scan.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...hlo.instruction import HloInstruction


@dataclass(frozen=True)
class FusionDecision:
    """One producer/consumer pair a fusion pass settled.

    ``consumer`` is named as it was right after the decision: the fusion that now
    computes it when the pair was fused (a fusion may later be merged into another;
    ``merged`` decisions of the multi-output passes record that).
    """

    pass_name: str
    computation: str
    consumer: str
    consumer_opcode: str
    producer: str
    producer_opcode: str
    fused: bool
    reason: str


FusionLog = list[FusionDecision]


def record(
    log: FusionLog,
    pass_name: str,
    consumer: HloInstruction,
    producer: HloInstruction,
    fused: bool,
    reason: str,
) -> None:
    """Append the decision on ``producer`` -> ``consumer`` to ``log``."""
    parent = consumer.parent
    log.append(
        FusionDecision(
            pass_name=pass_name,
            computation=parent.name if parent is not None else "",
            consumer=consumer.name,
            consumer_opcode=_describe(consumer),
            producer=producer.name,
            producer_opcode=_describe(producer),
            fused=fused,
            reason=reason,
        )
    )


def _describe(instruction: HloInstruction) -> str:
    """The opcode, with the kind for a fusion (``fusion:kLoop``)."""
    if instruction.opcode.value == "fusion":
        return f"fusion:{instruction.fusion_kind}"
    return instruction.opcode.value


__all__ = ["FusionDecision", "FusionLog", "record"]
