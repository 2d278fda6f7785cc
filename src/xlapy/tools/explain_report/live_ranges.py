"""Live ranges of the arena buffers, read back from a computation's buffer assignment.

``buffers.assign_computation`` keeps the schedule and every instruction's value tree
(slots with their arena offsets) but not the live ranges it allocated by. They follow
from what it keeps: a buffer is born at the position of the instruction that owns it
and dies after the last instruction that reads it (or any view of it: a reshape, a
tuple element); one that is (part of) the result lives to the end of the schedule.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...backends.cpu.buffers import ALIGNMENT, ComputationBuffers, Slot, base_of, leaves


@dataclass(frozen=True)
class BufferRange:
    """One buffer of a computation and when it is alive (schedule positions, inclusive)."""

    instruction: str
    opcode: str
    shape: str
    kind: str  # "arena" | "param" | "result" | "constant"
    offset: int
    size: int  # bytes, rounded up to the arena's alignment for arena buffers
    start: int
    end: int
    in_place: bool = False  # reuses the buffer of an operand that dies here


def buffer_ranges(buffers: ComputationBuffers) -> list[BufferRange]:
    """Every buffer of the computation that an instruction of it owns, with its range."""
    schedule = buffers.schedule
    position = {id(i): n for n, i in enumerate(schedule)}
    last_read: dict[int, int] = {}
    for n, instruction in enumerate(schedule):
        for operand in instruction.operands:
            for slot in leaves(buffers.values.get(id(operand))):
                key = id(base_of(slot))
                last_read[key] = max(last_read.get(key, n), n)
    root = buffers.computation.root
    for slot in leaves(buffers.values.get(id(root))):
        last_read[id(base_of(slot))] = len(schedule)
    out: list[BufferRange] = []
    seen: set[int] = set()
    for instruction in schedule:
        for slot in leaves(buffers.values.get(id(instruction))):
            if slot.owner is not instruction or base_of(slot) is not slot or id(slot) in seen:
                continue
            seen.add(id(slot))
            start = position[id(instruction)]
            out.append(
                BufferRange(
                    instruction=instruction.name,
                    opcode=instruction.opcode.value,
                    shape=str(slot.shape),
                    kind=slot.kind,
                    offset=slot.offset if slot.kind == "arena" else 0,
                    size=_allocated(slot),
                    start=start,
                    end=max(start, last_read.get(id(slot), start)),
                    in_place=id(instruction) in buffers.in_place,
                )
            )
    return out


def _allocated(slot: Slot) -> int:
    size = slot.byte_size
    if slot.kind != "arena":
        return size
    return max(ALIGNMENT, -(-size // ALIGNMENT) * ALIGNMENT)


def overlapping(ranges: list[BufferRange]) -> list[tuple[BufferRange, BufferRange]]:
    """Pairs of arena buffers alive at once whose bytes overlap: none, if the assignment
    is right. A buffer is allocated before the dead operands of its instruction are
    freed, so ranges that only touch at one position overlap in time too, except for an
    in-place buffer, which takes over the operand that dies where it is born."""
    arena = [r for r in ranges if r.kind == "arena"]
    bad = []
    for k, a in enumerate(arena):
        for b in arena[k + 1 :]:
            same_time = a.start <= b.end and b.start <= a.end
            handed_over = (b.in_place and b.start == a.end) or (a.in_place and a.start == b.end)
            same_bytes = a.offset < b.offset + b.size and b.offset < a.offset + a.size
            if same_time and same_bytes and not handed_over:
                bad.append((a, b))
    return bad


__all__ = ["BufferRange", "buffer_ranges", "overlapping"]
