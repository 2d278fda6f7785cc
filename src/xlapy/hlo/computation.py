"""``HloComputation``: a named graph of instructions with parameters and a root.

The instruction list keeps the order the text (or the builder) gave; that
order is what gets printed whenever it is a valid definition-before-use
order, and the stable post-order below is used otherwise, so printing never
reorders text that was already well ordered.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError
from ..opcode import HloOpcode
from ..shape import ProgramShape
from .instruction import CalledComputation, HloInstruction

if TYPE_CHECKING:
    from .module import HloModule


class HloComputation(CalledComputation):
    """A computation: see the module docstring."""

    def __init__(
        self,
        name: str,
        instructions: Sequence[HloInstruction] = (),
        root: HloInstruction | None = None,
    ) -> None:
        self._name = name
        self.parent: HloModule | None = None
        self.execution_thread: str | None = None
        # Set when a fusion instruction calls this computation (XLA's FusionInstruction()).
        self.fusion_instruction: HloInstruction | None = None
        self._instructions: list[HloInstruction] = []
        self._root: HloInstruction | None = None
        for instruction in instructions:
            self.add_instruction(instruction)
        if root is not None:
            self.root = root

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        """Rename; inside a module the new name must be free there."""
        if self.parent is not None and name != self._name:
            self.parent._rename_computation(self._name, name)
        self._name = name

    # -- instructions ---------------------------------------------------------
    @property
    def instructions(self) -> tuple[HloInstruction, ...]:
        return tuple(self._instructions)

    @property
    def instruction_count(self) -> int:
        return len(self._instructions)

    def __iter__(self) -> Iterator[HloInstruction]:
        return iter(list(self._instructions))

    def __len__(self) -> int:
        return len(self._instructions)

    def instruction(self, name: str) -> HloInstruction:
        """The instruction called ``name``; NotFound as InvalidArgumentError."""
        for instruction in self._instructions:
            if instruction.name == name:
                return instruction
        raise InvalidArgumentError(f"computation {self.name} has no instruction named {name!r}")

    def add_instruction(
        self, instruction: HloInstruction, *, name: str | None = None
    ) -> HloInstruction:
        """Append ``instruction``; in a module its name is made unique there.

        Returns the instruction so that builders can chain calls.
        """
        if instruction.parent is not None and instruction.parent is not self:
            raise InvalidArgumentError(
                f"{instruction.name} already belongs to computation {instruction.parent.name}"
            )
        if instruction.parent is self:
            return instruction
        if name is not None:
            instruction.name = name
        if self.parent is not None:
            instruction.name = self.parent._claim_instruction_name(instruction.name)
        instruction.parent = self
        self._instructions.append(instruction)
        if self._root is None:
            self._root = instruction
        return instruction

    def remove_instruction(self, instruction: HloInstruction) -> None:
        """Remove an instruction that nothing uses any more (operand edges are dropped)."""
        if instruction.parent is not self:
            raise InvalidArgumentError(f"{instruction.name} is not in computation {self.name}")
        if instruction.users:
            users = ", ".join(u.name for u in instruction.users)
            raise InvalidArgumentError(
                f"cannot remove {instruction.name} from {self.name}: it is still used by {users}"
            )
        if instruction is self._root:
            raise InvalidArgumentError(
                f"cannot remove {instruction.name}: it is the root of {self.name}; set a new root first"
            )
        instruction.detach()
        self._instructions.remove(instruction)
        instruction.parent = None
        if self.parent is not None:
            self.parent._release_instruction_name(instruction.name)

    def replace_instruction(self, old: HloInstruction, new: HloInstruction) -> None:
        """Redirect every use of ``old`` (and the root) to ``new``, then remove ``old``."""
        if new.parent is None:
            self.add_instruction(new)
        old.replace_all_uses_with(new)
        for pred in old.control_predecessors:
            new.add_control_predecessor(pred)
        for succ in old.control_successors:
            succ.add_control_predecessor(new)
        self.remove_instruction(old)

    @property
    def root(self) -> HloInstruction:
        if self._root is None:
            raise InvalidArgumentError(f"computation {self.name} has no instructions")
        return self._root

    @root.setter
    def root(self, instruction: HloInstruction) -> None:
        if instruction.parent is not self:
            raise InvalidArgumentError(
                f"the root of {self.name} must be one of its instructions; {instruction.name} is not"
            )
        self._root = instruction

    # -- parameters -----------------------------------------------------------
    @property
    def parameters(self) -> tuple[HloInstruction, ...]:
        """Parameter instructions ordered by parameter number."""
        params = [i for i in self._instructions if i.opcode is HloOpcode.PARAMETER]
        return tuple(sorted(params, key=lambda p: p.parameter_number))

    @property
    def parameter_count(self) -> int:
        return sum(1 for i in self._instructions if i.opcode is HloOpcode.PARAMETER)

    def parameter(self, number: int) -> HloInstruction:
        for instruction in self._instructions:
            if instruction.opcode is HloOpcode.PARAMETER and instruction.parameter_number == number:
                return instruction
        raise InvalidArgumentError(
            f"computation {self.name} has {self.parameter_count} parameters; no parameter {number}"
        )

    @property
    def program_shape(self) -> ProgramShape:
        params = self.parameters
        return ProgramShape(
            tuple(p.shape for p in params), self.root.shape, tuple(p.name for p in params)
        )

    # -- properties -----------------------------------------------------------
    @property
    def is_entry(self) -> bool:
        return self.parent is not None and self.parent.entry is self

    @property
    def is_fusion_computation(self) -> bool:
        return self.fusion_instruction is not None

    def called_computations(self) -> list[HloComputation]:
        """Computations called directly by instructions of this one (no duplicates)."""
        out: list[HloComputation] = []
        for instruction in self._instructions:
            for callee in instruction.called_computations():
                if callee not in out:
                    out.append(callee)
        return out

    # -- orders ---------------------------------------------------------------
    def sort_topologically(self) -> None:
        """Reorder the instruction list so every instruction follows its operands
        (passes that add instructions call this so the text reads top to bottom)."""
        self._instructions[:] = self.post_order()

    def set_instruction_order(self, order: Sequence[HloInstruction]) -> None:
        """Make ``order`` the instruction list (a scheduled module's sequence, read from an
        HloModuleProto's schedule): it must hold each instruction once, every one after
        its operands and control predecessors."""
        if len(order) != len(self._instructions) or {id(i) for i in order} != {
            id(i) for i in self._instructions
        }:
            raise InvalidArgumentError(
                f"instruction order for {self.name} must list each of its "
                f"{len(self._instructions)} instructions once; got {len(order)} entries"
            )
        seen: set[int] = set()
        for instruction in order:
            for before in (*instruction.operands, *instruction.control_predecessors):
                if id(before) not in seen:
                    raise InvalidArgumentError(
                        f"instruction order for {self.name} puts {instruction.name} before "
                        f"{before.name}, which it uses"
                    )
            seen.add(id(instruction))
        self._instructions[:] = order

    def post_order(self) -> list[HloInstruction]:
        """Every instruction after its operands and control predecessors.

        Stable: instructions are visited in list order, so a list that is
        already in definition-before-use order comes back unchanged.
        """
        done: set[int] = set()
        out: list[HloInstruction] = []
        for start in self._instructions:
            if id(start) in done:
                continue
            stack = [(start, start._operands + start._control_predecessors, 0)]
            on_stack = {id(start)}
            while stack:
                node, deps, i = stack[-1]
                while i < len(deps) and (id(deps[i]) in done or deps[i].parent is not self):
                    i += 1
                if i < len(deps):
                    stack[-1] = (node, deps, i + 1)
                    child = deps[i]
                    if id(child) in on_stack:
                        raise InvalidArgumentError(
                            f"computation {self.name} has a cycle through {child.name}"
                        )
                    stack.append((child, child._operands + child._control_predecessors, 0))
                    on_stack.add(id(child))
                    continue
                stack.pop()
                on_stack.discard(id(node))
                done.add(id(node))
                out.append(node)
        return out

    def __repr__(self) -> str:
        return f"<HloComputation {self.name}: {len(self._instructions)} instructions>"

    # ``to_text(verbose=False)`` comes from xlapy.hlo.printer, which builds on this
    # module; the package attaches it (xlapy/hlo/__init__.py).

    def __str__(self) -> str:
        return self.to_text()


__all__ = ["HloComputation", "ProgramShape"]
