"""The state of one partitioning run, shared by the per-opcode handlers.

Why: a handler needs, for each global operand, its per-device instruction and
the tiling that piece has now, a way to ask for it in another tiling (cached, so
two users asking for the same layout share one collective), and a way to emit
the per-device copy of an op with new operands. Keeping that here lets each
handler in :mod:`.handlers` and :mod:`.handlers_linalg` be a few lines.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InternalError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ..creation import make
from .local_builder import LocalBuilder
from .tiling import Tiling

Op = HloOpcode
Value = Tiling | tuple[Tiling, ...]


def split_attributes(instruction: HloInstruction) -> tuple[dict, dict]:
    """(plain attributes without sharding, called-computation attributes)."""
    plain, called = {}, {}
    for key, value in instruction.attributes.items():
        if key == "sharding":
            continue
        is_list = (
            isinstance(value, (list, tuple))
            and value
            and all(isinstance(v, HloComputation) for v in value)
        )
        if isinstance(value, HloComputation) or is_list:
            called[key] = value
        else:
            plain[key] = value
    return plain, called


def _array_tiling(value: Value, instruction: HloInstruction) -> Tiling:
    if not isinstance(value, Tiling):
        raise InternalError(
            f"SPMD partitioner: {instruction.name} ({instruction.shape}) has a tuple sharding "
            "where an array one was expected"
        )
    return value


class Partitioning:
    """Maps each global instruction to its local piece and that piece's tiling."""

    def __init__(self, builder: LocalBuilder, targets: dict[HloInstruction, Value]) -> None:
        self.builder = builder
        self.targets = targets
        self.local: dict[HloInstruction, HloInstruction] = {}
        self.tilings: dict[HloInstruction, Value] = {}
        self._resharded: dict[tuple[int, bytes, tuple[int, ...]], HloInstruction] = {}

    @property
    def num_devices(self) -> int:
        return self.builder.num_devices

    def tiling(self, instruction: HloInstruction) -> Tiling:
        return _array_tiling(self.tilings[instruction], instruction)

    def target(self, instruction: HloInstruction) -> Tiling:
        return _array_tiling(self.targets[instruction], instruction)

    def operand_as(self, operand: HloInstruction, tiling: Tiling, user: str) -> HloInstruction:
        """The local piece of ``operand`` as ``tiling`` lays it out."""
        current = self.tiling(operand)
        if current.same_as(tiling) or current.manual:
            return self.local[operand]
        key = (id(operand), tiling.coords()[:, :-1].tobytes(), tiling.counts)
        if key not in self._resharded:
            self._resharded[key] = self.builder.reshard(
                self.local[operand],
                current,
                tiling,
                operand.shape.dimensions,
                f"{user} <- {operand.name}",
            )
        return self._resharded[key]

    def replicated(self, operand: HloInstruction, user: str) -> HloInstruction:
        """The whole of ``operand`` on every device (tuples leaf by leaf)."""
        value = self.tilings[operand]
        if isinstance(value, Tiling):
            return self.operand_as(operand, Tiling.replicated(value.rank, self.num_devices), user)
        local = self.local[operand]
        leaves = []
        for index, (leaf, leaf_shape) in enumerate(
            zip(value, operand.shape.tuple_shapes, strict=True)
        ):
            element = make(Op.GET_TUPLE_ELEMENT, [local], {"index": index})
            if leaf_shape.is_array and not leaf.is_replicated and not leaf.manual:
                full = Tiling.replicated(leaf.rank, self.num_devices)
                element = self.builder.reshard(
                    element, leaf, full, leaf_shape.dimensions, f"{user} <- {operand.name}"
                )
            leaves.append(element)
        return make(Op.TUPLE, leaves, computation=self.builder.computation)

    def is_tiled(self, operand: HloInstruction) -> bool:
        value = self.tilings[operand]
        leaves = value if isinstance(value, tuple) else (value,)
        return any(not leaf.is_replicated and not leaf.manual for leaf in leaves)

    def remake(
        self,
        instruction: HloInstruction,
        operands: Sequence[HloInstruction],
        *,
        declared: Shape | None = None,
        attributes: dict | None = None,
    ) -> HloInstruction:
        """The per-device copy of ``instruction`` on ``operands``, its shape inferred."""
        plain, called = split_attributes(instruction)
        if attributes:
            plain.update(attributes)
        return make(
            instruction.opcode,
            list(operands),
            plain,
            computations=called,
            declared=declared,
            computation=self.builder.computation,
            literal=instruction.literal,
        )

    def clone_global(
        self, instruction: HloInstruction, operands: Sequence[HloInstruction]
    ) -> HloInstruction:
        """``instruction`` with its global shape on ``operands`` (all whole)."""
        copy = instruction.clone(list(operands))
        copy.remove_attribute("sharding")
        return self.builder.computation.add_instruction(copy)


__all__ = ["Partitioning", "Value", "split_attributes"]
