"""The shape of a reduce kernel, and what it can compute on the way.

The loop emitter runs a reduce fusion as one loop nest: over the kept
dimensions outside, the reduced ones inside. Besides its reduces (all over
the same input space and dimensions) it can write *side outputs* (values of
the input space, stored as the loop visits each element) and *epilogues*
(elementwise functions of the reduce results, computed once per output
element after the inner loop). The multi-output passes only build fusions of
that form; ``reduce_space`` says whether an instruction is one and over which
space, so two kernels over the same space can become one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from .policy import CanEmit

Op = HloOpcode


@dataclass(frozen=True)
class ReduceSpace:
    """Where a reduce kernel iterates: the input's dimensions and the reduced ones."""

    input_dims: tuple[int, ...]
    reduced: tuple[int, ...]

    @property
    def kept_dims(self) -> tuple[int, ...]:
        return tuple(d for k, d in enumerate(self.input_dims) if k not in self.reduced)


def _space_of(reduce: HloInstruction) -> ReduceSpace | None:
    if not reduce.shape.is_array:
        return None  # variadic: its outputs are not one array each
    dims = tuple(sorted(int(d) for d in reduce.attribute("dimensions")))
    if not dims:
        return None
    return ReduceSpace(tuple(reduce.operand(0).shape.dimensions), dims)


def reduce_space(instruction: HloInstruction, can_emit: CanEmit) -> ReduceSpace | None:
    """The space of a reduce kernel the emitter runs as one loop nest, or None.

    A bare reduce, or a ``kInput`` fusion whose reduces share one space, none
    of which reads another's result, and whose every other value that reads a
    reduce result is elementwise over the kept dimensions (an epilogue).
    """
    if instruction.opcode is Op.REDUCE:
        return _space_of(instruction) if can_emit(instruction) else None
    if instruction.opcode is not Op.FUSION or instruction.fusion_kind != "kInput":
        return None
    fused = instruction.fused_computation
    reduces = [i for i in fused.instructions if i.opcode is Op.REDUCE]
    spaces = {_space_of(r) for r in reduces}
    if len(spaces) != 1 or None in spaces:
        return None
    (space,) = spaces
    after_reduce: set[int] = set()
    for value in fused.post_order():
        reads_reduce = any(o.opcode is Op.REDUCE or id(o) in after_reduce for o in value.operands)
        if not reads_reduce:
            continue
        if value.opcode is Op.REDUCE:
            return None  # a reduce of a reduce needs two passes
        if value is fused.root and value.opcode is Op.TUPLE:
            continue
        if not _elementwise_at(value, space.kept_dims):
            return None
        after_reduce.add(id(value))
    for output in _outputs(instruction):
        shape = tuple(output.shape.dimensions)
        if not (
            output.opcode is Op.REDUCE
            or id(output) in after_reduce
            or (shape == space.input_dims and output.opcode is not Op.PARAMETER)
        ):
            return None
    return space


def _outputs(fusion: HloInstruction) -> list[HloInstruction]:
    root = fusion.fused_computation.root
    return list(root.operands) if root.opcode is Op.TUPLE else [root]


def _elementwise_at(value: HloInstruction, dims: tuple[int, ...]) -> bool:
    op = value.opcode
    return (
        op.is_elementwise
        and op is not Op.MAP
        and value.shape.is_array
        and tuple(value.shape.dimensions) == dims
    )


def read_at_input_index(value: HloInstruction) -> bool:
    """Whether a fused ``value`` is read only where the reduce loop visits it: as a
    reduce input, as an output, or by elementwise ops of its shape read the same way."""
    dims = tuple(value.shape.dimensions)
    for user, read in _readers(value):
        if user.opcode is Op.REDUCE:
            inputs = user.operand_count // 2
            if any(o is read for o in user.operands[inputs:]):
                return False  # an init value: read once per output element
        elif not _elementwise_at(user, dims):
            return False
    return True


def read_in_epilogue_only(value: HloInstruction, kept_dims: tuple[int, ...]) -> bool:
    """Whether a fused ``value`` is read only by epilogue code: elementwise over the kept
    dimensions and never on the way into a reduce."""
    return all(_elementwise_at(user, kept_dims) for user, _ in _readers(value))


def _readers(value: HloInstruction) -> Iterator[tuple[HloInstruction, HloInstruction]]:
    """``(reader, value it reads)`` for the readers of ``value`` and, through elementwise
    readers, of what they compute (not the fusion's output tuple)."""
    seen = {id(value)}
    stack = [value]
    while stack:
        node = stack.pop()
        for user in node.users:
            if user.opcode is Op.TUPLE:
                continue
            yield user, node
            if user.opcode.is_elementwise and id(user) not in seen:
                seen.add(id(user))
                stack.append(user)


def elementwise_at_output(fusion: HloInstruction) -> bool:
    """Whether every value of a loop fusion is computed at the output's own index from
    values of its shape, scalars and scalar broadcasts (so it can be an epilogue)."""
    if not fusion.shape.is_array:
        return False
    dims = tuple(fusion.shape.dimensions)
    for instruction in fusion.fused_computation.instructions:
        op = instruction.opcode
        if not instruction.shape.is_array:
            return False
        if instruction.shape.is_scalar and op in (Op.CONSTANT, Op.PARAMETER):
            continue
        if op is Op.BROADCAST and instruction.operand(0).shape.is_scalar:
            continue
        if op is Op.PARAMETER and tuple(instruction.shape.dimensions) == dims:
            continue
        if not _elementwise_at(instruction, dims):
            return False
    return True


__all__ = [
    "ReduceSpace",
    "elementwise_at_output",
    "read_at_input_index",
    "read_in_epilogue_only",
    "reduce_space",
]
