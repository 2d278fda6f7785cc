"""Who a send reaches and who a recv hears: XLA's rules for point-to-point transfers.

A device-to-device ``send``/``recv`` names its peers in the frontend attribute
``_xla_send_recv_source_target_pairs`` (``"{{0,1},{1,2}}"``: XLA's replica-groups
text, one ``{source,target}`` pair per group), as XLA's GPU backend reads it
(``GetP2PConfigForSendRecv``):

* the ids are **partition ids** (peers share the replica) when the instruction has a
  ``channel_id`` greater than 0, and **replica ids** (peers share the partition) when
  its ``channel_id`` is 0 or absent: XLA's ``GetCollectiveOpGroupMode(channel_id > 0,
  nullopt)``, cross-partition or cross-replica (send/recv have no
  ``use_global_device_ids``);
* a device that is the source of a pair sends to that pair's target; a device that is
  no pair's source sends nothing (its send completes at once);
* a device that is the target of a pair receives from that pair's source; a device that
  is no pair's target gets **zeros** at once (XLA's ``RunRecv`` zeroes the destination
  buffer when the device has no source peer), as collective-permute gives zeros to
  devices that are no pair's target (operation_semantics.md, CollectivePermute).

XLA:CPU has no send/recv at all (``HLO opcode `send` is not supported by XLA:CPU
ThunkEmitter``), so these are XLA:GPU's rules. Without the attribute (which XLA:GPU
requires) xlapy lets a device's send reach its own recv on the same channel, so that a
one-device program that sends to itself runs. ``_xla_send_recv_validation`` (XLA:GPU's
per-iteration bounds of pipelined loops) is not supported yet and is refused at compile
time.
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgumentError, ParseError, UnimplementedError
from ..hlo.attributes import parse_attribute
from ..hlo.instruction import HloInstruction
from ..opcode import HloOpcode as Op

PAIRS_ATTRIBUTE = "_xla_send_recv_source_target_pairs"
VALIDATION_ATTRIBUTE = "_xla_send_recv_validation"
POINT_TO_POINT = frozenset({Op.SEND, Op.RECV, Op.SEND_DONE, Op.RECV_DONE})


def _what(instruction: HloInstruction) -> str:
    return f"{instruction.opcode.value} {instruction.name}"


def _frontend(instruction: HloInstruction, name: str) -> str | None:
    attributes = instruction.attributes.get("frontend_attributes")
    return dict(attributes).get(name) if attributes else None


def is_host_transfer(instruction: HloInstruction) -> bool:
    return bool(instruction.attributes.get("is_host_transfer", False))


def channel_of(instruction: HloInstruction) -> int:
    return int(instruction.attributes.get("channel_id", 0) or 0)


def cross_partition(instruction: HloInstruction) -> bool:
    """True when the pairs name partitions (``channel_id > 0``), False for replicas."""
    return channel_of(instruction) > 0


def source_target_pairs(instruction: HloInstruction) -> list[tuple[int, int]] | None:
    """The instruction's ``_xla_send_recv_source_target_pairs``, or None without one."""
    text = _frontend(instruction, PAIRS_ATTRIBUTE)
    if text is None:
        return None
    try:
        pairs = parse_attribute(Op.COLLECTIVE_PERMUTE, "source_target_pairs", text)
    except ParseError as e:
        raise InvalidArgumentError(
            f"{_what(instruction)}: {PAIRS_ATTRIBUTE}={text!r} is not a list of "
            f"{{source,target}} pairs such as {{{{0,1}},{{1,2}}}}: {e}"
        ) from None
    return [(p.source, p.target) for p in pairs]  # type: ignore[attr-defined]


def _ids(device: Any, instruction: HloInstruction) -> tuple[int, int, str]:
    """(this device's id in the pairs' id space, how many ids there are, their kind)."""
    if cross_partition(instruction):
        return device.partition_id, device.num_partitions, "partition"
    return device.replica_id, device.num_replicas, "replica"


def _global(device: Any, instruction: HloInstruction, peer: int) -> int:
    """Device index (replica-major, then partition) of id ``peer`` in ``device``'s group."""
    if cross_partition(instruction):
        return device.replica_id * device.num_partitions + peer
    return peer * device.num_partitions + device.partition_id


def send_target(device: Any, instruction: HloInstruction) -> int | None:
    """The device index a send on ``device`` reaches, or None when it sends nothing."""
    pairs = source_target_pairs(instruction)
    if pairs is None:
        return device.index
    me, _, _ = _ids(device, instruction)
    for source, target in pairs:
        if source == me:
            return _global(device, instruction, target)
    return None


def recv_source(device: Any, instruction: HloInstruction) -> int | None:
    """The device index a recv on ``device`` hears from, or None (it gets zeros)."""
    pairs = source_target_pairs(instruction)
    if pairs is None:
        return device.index
    me, _, _ = _ids(device, instruction)
    for source, target in pairs:
        if target == me:
            return _global(device, instruction, source)
    return None


def check_send_recv(instruction: HloInstruction, num_replicas: int, num_partitions: int) -> None:
    """Compile-time check of a send/recv's pairs against the run's device counts."""
    if instruction.opcode not in POINT_TO_POINT or is_host_transfer(instruction):
        return
    if _frontend(instruction, VALIDATION_ATTRIBUTE) is not None:
        raise UnimplementedError(
            f"{_what(instruction)}: {VALIDATION_ATTRIBUTE} (XLA:GPU's per-iteration bounds of "
            "pipelined send/recv) is not supported yet; drop the attribute to transfer on "
            "every execution"
        )
    pairs = source_target_pairs(instruction)
    if pairs is None:
        return
    partitions = cross_partition(instruction)
    count, kind = (num_partitions, "partition") if partitions else (num_replicas, "replica")
    sources: set[int] = set()
    targets: set[int] = set()
    for source, target in pairs:
        for role, peer in (("source", source), ("target", target)):
            if not 0 <= peer < count:
                raise InvalidArgumentError(
                    f"{_what(instruction)}: {PAIRS_ATTRIBUTE} pair {{{source},{target}}} names "
                    f"{role} {kind} {peer}, but the program runs on {num_replicas} replica(s) x "
                    f"{num_partitions} partition(s); valid {kind} ids are 0..{count - 1} (the "
                    f"pairs name partitions when channel_id > 0, replicas when channel_id is 0; "
                    f"this one has channel_id={channel_of(instruction)})"
                )
        for role, peer, seen in (("source", source, sources), ("target", target, targets)):
            if peer in seen:
                raise InvalidArgumentError(
                    f"{_what(instruction)}: {PAIRS_ATTRIBUTE} names {role} {kind} {peer} more "
                    "than once; each device sends to at most one target and receives from at "
                    "most one source"
                )
            seen.add(peer)


__all__ = [
    "PAIRS_ATTRIBUTE",
    "POINT_TO_POINT",
    "VALIDATION_ATTRIBUTE",
    "channel_of",
    "check_send_recv",
    "cross_partition",
    "is_host_transfer",
    "recv_source",
    "send_target",
    "source_target_pairs",
]
