"""Where every value lives while an executable runs: buffer assignment.

Each non-fused computation the native code runs (the entry, while bodies and
conditions, conditional branches, called computations) is scheduled in its
post order. Every array value gets a :class:`Slot`:

- ``param``: leaf ``k`` of the computation's parameters (pointers passed in);
- ``result``: leaf ``k`` of the computation's result (pointers passed in), so
  the instruction that produces a result writes it in place, never through a
  temporary;
- ``constant``: a constant's data, baked into the code as an address;
- ``arena``: an offset into the executable's arena, one preallocated block per
  execution. Offsets are handed out by a best-fit heap simulation over the
  schedule, so a buffer whose last reader has run is reused.

Tuples are compile-time structure only: a tuple, get-tuple-element, bitcast or
reshape has the slots of its operand (no copy). A slot's lifetime is therefore
extended to the last reader of any value that contains it. The output of an
instruction never overlaps one of its operands (outputs are allocated before
dead operands are freed), except where the emitter declares that it can run in
place (elementwise kernels whose operand dies there).

Every computation gets its own region of the arena (regions do not overlap),
because a while body runs while its caller's buffers are alive.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from .runtime import guarded_memory

Op = HloOpcode
ALIGNMENT = 64


@dataclass(eq=False)
class Slot:
    """One array buffer: where it lives and how big it is."""

    kind: str  # "param" | "result" | "constant" | "arena"
    shape: Shape
    index: int = 0  # param/result leaf number
    offset: int = 0  # arena: bytes from the computation's region base (absolute after layout)
    constant: Any = None  # constant: the numpy array whose data the code reads
    owner: HloInstruction | None = None

    @property
    def byte_size(self) -> int:
        return (
            self.shape.element_count() * self.shape.element_type.byte_width
            if self.shape.is_array
            else 0
        )

    def __repr__(self) -> str:
        where = {"param": f"p{self.index}", "result": f"r{self.index}", "arena": f"@{self.offset}"}
        return f"<Slot {where.get(self.kind, self.kind)} {self.shape}>"


ValueTree = Slot | tuple | None  # a Slot per array leaf, tuples nest, None for tokens


def leaves(tree: ValueTree) -> list[Slot]:
    if tree is None:
        return []
    if isinstance(tree, Slot):
        return [tree]
    out: list[Slot] = []
    for element in tree:
        out.extend(leaves(element))
    return out


def subtree(tree: ValueTree, index: int) -> ValueTree:
    return tree[index]  # type: ignore[index]


def tree_for_shape(shape: Shape, make: Any) -> ValueTree:
    """A tree with ``make(leaf_shape)`` at every array leaf of ``shape``."""
    if shape.is_tuple:
        return tuple(tree_for_shape(s, make) for s in shape.tuple_shapes)
    if shape.is_array:
        return make(shape)
    return None


# Opcodes whose value is (part of) an operand's value: no buffer of their own.
def _alias_value(instruction: HloInstruction, operands: list[ValueTree]) -> ValueTree | bool:
    op = instruction.opcode
    if op is Op.TUPLE:
        return tuple(operands)
    if op is Op.GET_TUPLE_ELEMENT:
        return subtree(operands[0], instruction.tuple_index)
    if op in (Op.BITCAST, Op.RESHAPE) and isinstance(operands[0], Slot):
        return _reshaped(operands[0], instruction.shape)
    if op in (Op.OPTIMIZATION_BARRIER, Op.ADD_DEPENDENCY):
        return operands[0]
    return False


class _View(Slot):
    """A slot seen with another shape (a reshape or bitcast): same bytes, same lifetime."""


def _reshaped(slot: Slot, shape: Shape) -> Slot:
    view = _View(slot.kind, shape, slot.index, slot.offset, slot.constant, slot.owner)
    view.base = getattr(slot, "base", slot)  # type: ignore[attr-defined]
    return view


def base_of(slot: Slot) -> Slot:
    return getattr(slot, "base", slot)


@dataclass
class ComputationBuffers:
    """The buffers of one computation: a value tree per instruction and the region size."""

    computation: HloComputation
    values: dict[int, ValueTree] = field(default_factory=dict)  # id(instruction) -> tree
    schedule: list[HloInstruction] = field(default_factory=list)
    region_size: int = 0
    region_base: int = 0
    root_copies: list[tuple[Slot, int]] = field(default_factory=list)  # (source, result leaf)
    in_place: dict[int, int] = field(default_factory=dict)  # id(instr) -> operand number reused
    donated: dict[int, int] = field(
        default_factory=dict
    )  # result leaf -> parameter leaf sharing it
    guard_pages: list[int] = field(default_factory=list)  # region offsets (guard mode)

    def value(self, instruction: HloInstruction) -> ValueTree:
        return self.values[id(instruction)]


class _Heap:
    """Best-fit allocation of aligned byte ranges, with coalescing free lists."""

    def __init__(self) -> None:
        self.free: list[tuple[int, int]] = []  # sorted (offset, size)
        self.top = 0
        self.peak = 0  # the high-water mark: the size the region needs
        self.guard_pages: list[int] = []

    def allocate(self, size: int) -> int:
        size = max(ALIGNMENT, -(-size // ALIGNMENT) * ALIGNMENT)
        best = None
        for i, (_, free_size) in enumerate(self.free):
            if free_size >= size and (best is None or free_size < self.free[best][1]):
                best = i
        if best is not None:
            offset, free_size = self.free.pop(best)
            if free_size > size:
                bisect.insort(self.free, (offset + size, free_size - size))
            return offset
        offset = self.top
        self.top += size
        self.peak = max(self.peak, self.top)
        return offset

    def release(self, offset: int, size: int) -> None:
        size = max(ALIGNMENT, -(-size // ALIGNMENT) * ALIGNMENT)
        bisect.insort(self.free, (offset, size))
        merged: list[tuple[int, int]] = []
        for start, length in self.free:
            if merged and merged[-1][0] + merged[-1][1] == start:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((start, length))
        if merged and merged[-1][0] + merged[-1][1] == self.top:
            self.top = merged.pop()[0]
        self.free = merged


class _GuardedHeap(_Heap):
    """Guard mode (``guarded_memory``): every buffer gets pages of its own next to a guard
    page, and nothing is reused, so a stray access faults instead of hitting a neighbour."""

    def __init__(self, mode: str) -> None:
        super().__init__()
        self.mode = mode

    def allocate(self, size: int) -> int:
        offset, guard, self.top = guarded_memory.place(self.top, size, self.mode)
        self.guard_pages.append(guard)
        self.peak = self.top
        return offset

    def release(self, offset: int, size: int) -> None:
        pass


def assign_computation(
    computation: HloComputation,
    *,
    parameter_trees: list[ValueTree],
    result_shape: Shape,
    constant_data: Any,
    can_run_in_place: Any = None,
    donations: dict[int, int] | None = None,
    guard: str | None = None,
) -> ComputationBuffers:
    """Slots for every instruction of ``computation`` (see the module docstring).

    ``constant_data(instruction)`` gives the numpy array of a constant;
    ``can_run_in_place(instruction)`` the operand numbers whose buffer the
    instruction may overwrite when that operand dies there. ``donations`` maps
    result leaves to parameter leaves whose buffers the caller donates: where the
    producer of the result can run in place over that parameter (and is its last
    reader), the executable passes one buffer for both (``donated``). ``guard`` (a
    ``guarded_memory`` mode) lays every temporary out next to a guard page.
    """
    result = ComputationBuffers(computation)
    schedule = computation.post_order()
    result.schedule = schedule
    {id(i): n for n, i in enumerate(schedule)}
    root = computation.root

    # Which instructions produce a result leaf directly: a root leaf owned by an
    # instruction that makes a fresh buffer, and only its first occurrence.
    result_owner: dict[int, int] = {}  # id(instr) -> result leaf number (array-valued instrs)

    def claim_results(instruction: HloInstruction, first_leaf: int) -> None:
        op = instruction.opcode
        if op is Op.TUPLE:
            leaf = first_leaf
            for operand in instruction.operands:
                claim_results(operand, leaf)
                leaf += _leaf_count(operand.shape)
        elif (
            instruction.shape.is_array
            and op not in _NO_OWN_BUFFER
            and id(instruction) not in result_owner
        ):
            result_owner[id(instruction)] = first_leaf
        elif (
            instruction.shape.is_tuple
            and op in _MULTI_LEAF_OWNERS
            and id(instruction) not in result_owner
        ):
            result_owner[id(instruction)] = first_leaf

    claim_results(root, 0)

    heap = _GuardedHeap(guard) if guard else _Heap()
    last_use: dict[int, int] = {}  # id(base slot) -> position
    owned: dict[int, Slot] = {}

    def note_uses(tree: ValueTree, at: int) -> None:
        for slot in leaves(tree):
            base = base_of(slot)
            last_use[id(base)] = max(last_use.get(id(base), -1), at)

    # First pass: value trees (so that last uses are known before allocation).
    provisional: dict[int, ValueTree] = {}
    for n, instruction in enumerate(schedule):
        operands = [provisional[id(o)] for o in instruction.operands]
        for tree in operands:
            note_uses(tree, n)
        provisional[id(instruction)] = _value_of(
            instruction, operands, parameter_trees, constant_data, result_owner
        )
    note_uses(provisional[id(root)], len(schedule))

    position = {id(i): n for n, i in enumerate(schedule)}
    for leaf, parameter_leaf in (donations or {}).items():
        producer = next(
            (
                i
                for i in schedule
                if isinstance(provisional[id(i)], Slot)
                and provisional[id(i)].kind == "result"
                and provisional[id(i)].index == leaf
                and provisional[id(i)].owner is i
            ),
            None,
        )
        if producer is None or can_run_in_place is None:
            continue
        output = provisional[id(producer)]
        for k in can_run_in_place(producer):
            candidate = provisional[id(producer.operand(k))]
            base = base_of(candidate) if isinstance(candidate, Slot) else None
            readers = sum(
                base_of(s) is base for o in producer.operands for s in leaves(provisional[id(o)])
            )
            if (
                base is not None
                and base.kind == "param"
                and base.index == parameter_leaf
                and last_use.get(id(base)) == position[id(producer)]
                and candidate.byte_size == output.byte_size
                and readers == 1
            ):
                result.in_place[id(producer)] = k
                result.donated[leaf] = parameter_leaf
                break

    # Second pass: arena offsets in schedule order.
    for n, instruction in enumerate(schedule):
        tree = provisional[id(instruction)]
        reuse = None
        if (
            can_run_in_place is not None
            and isinstance(tree, Slot)
            and tree.kind == "arena"
            and tree.owner is instruction
        ):
            for k in can_run_in_place(instruction):
                candidate = provisional[id(instruction.operand(k))]
                if (
                    isinstance(candidate, Slot)
                    and candidate.kind == "arena"
                    and base_of(candidate) is candidate
                    and last_use.get(id(candidate)) == n
                    and candidate.byte_size == tree.byte_size
                    and sum(
                        base_of(s) is candidate
                        for o in instruction.operands
                        for s in leaves(provisional[id(o)])
                    )
                    == 1
                ):
                    reuse = candidate
                    result.in_place[id(instruction)] = k
                    break
        for slot in leaves(tree):
            if slot.kind == "arena" and slot.owner is instruction and base_of(slot) is slot:
                if reuse is not None:
                    slot.offset = reuse.offset
                    last_use[id(slot)] = max(last_use.get(id(slot), n), n)
                    owned.pop(id(reuse), None)
                    owned[id(slot)] = slot
                    reuse = None
                    continue
                slot.offset = heap.allocate(slot.byte_size)
                owned[id(slot)] = slot
        for key, slot in list(owned.items()):
            if last_use.get(key, n) <= n:
                heap.release(slot.offset, slot.byte_size)
                del owned[key]
    # Views share their base's offset.
    for tree in provisional.values():
        for slot in leaves(tree):
            base = base_of(slot)
            if base is not slot:
                slot.offset = base.offset
    result.values = provisional
    result.region_size = heap.peak
    result.guard_pages = heap.guard_pages

    # Result leaves not written in place by their producer get a copy at the end.
    root_tree = provisional[id(root)]
    for k, slot in enumerate(leaves(root_tree)):
        if not (slot.kind == "result" and slot.index == k):
            result.root_copies.append((slot, k))
    del result_shape
    return result


_NO_OWN_BUFFER = frozenset(
    {
        Op.PARAMETER,
        Op.CONSTANT,
        Op.TUPLE,
        Op.GET_TUPLE_ELEMENT,
        Op.BITCAST,
        Op.RESHAPE,
        Op.OPTIMIZATION_BARRIER,
        Op.ADD_DEPENDENCY,
    }
)
# Tuple-shaped instructions that write all their leaves themselves.
_MULTI_LEAF_OWNERS = frozenset(
    {Op.FUSION, Op.WHILE, Op.CONDITIONAL, Op.CALL, Op.CUSTOM_CALL, Op.SORT, Op.REDUCE}
)


def _leaf_count(shape: Shape) -> int:
    if shape.is_tuple:
        return sum(_leaf_count(s) for s in shape.tuple_shapes)
    return 1 if shape.is_array else 0


def _value_of(
    instruction: HloInstruction,
    operands: list[ValueTree],
    parameter_trees: list[ValueTree],
    constant_data: Any,
    result_owner: dict[int, int],
) -> ValueTree:
    op = instruction.opcode
    if op is Op.PARAMETER:
        return parameter_trees[instruction.parameter_number]
    if op is Op.CONSTANT and instruction.shape.is_array:
        return Slot(
            "constant", instruction.shape, constant=constant_data(instruction), owner=instruction
        )
    alias = _alias_value(instruction, operands)
    if alias is not False:
        return alias
    first_result = result_owner.get(id(instruction))
    counter = [first_result if first_result is not None else 0]

    def make(shape: Shape) -> Slot:
        if first_result is not None:
            slot = Slot("result", shape, index=counter[0], owner=instruction)
            counter[0] += 1
            return slot
        return Slot("arena", shape, owner=instruction)

    return tree_for_shape(instruction.shape, make)
