"""``HloModule``: computations, the entry, and the module-level configuration.

The module owns the name spaces: instruction names and computation names are
unique within it (as XLA's NameUniquer keeps them), and passes ask
:meth:`HloModule.unique_name` for new ones. Header attributes of the text
(``entry_computation_layout``, ``input_output_alias``, ``replica_count``...)
are typed fields; the ones xlapy does not interpret are kept verbatim in
``header_extras`` and printed back where they were.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError
from .aliasing import AliasEntry, AliasKind, BufferDonor, InputOutputAlias, ShapeIndex
from .computation import HloComputation, ProgramShape
from .instruction import HloInstruction
from .verifier import verify_module

# XLA's print order of header attributes; new ones are printed in this order
# after the ones that came from the text.
HEADER_ORDER = (
    "is_scheduled",
    "input_output_alias",
    "buffer_donor",
    "alias_passthrough_params",
    "entry_computation_layout",
    "allow_spmd_sharding_propagation_to_parameters",
    "allow_spmd_sharding_propagation_to_output",
    "replica_count",
    "num_partitions",
    "frontend_attributes",
)
_SUFFIX = re.compile(r"^(.*)\.(\d+)$")


@dataclass
class ModuleConfig:
    """Module-level settings carried by the ``HloModule`` header line."""

    is_scheduled: bool = False
    entry_computation_layout: ProgramShape | None = None
    input_output_alias: InputOutputAlias | None = None
    buffer_donor: BufferDonor | None = None
    replica_count: int = 1
    num_partitions: int = 1
    frontend_attributes: Any = None
    # Header attributes kept verbatim: name -> value text.
    extras: dict[str, str] = field(default_factory=dict)
    # Names in the order the text wrote them (printing keeps it).
    order: list[str] = field(default_factory=list)


class HloModule:
    """A module: see the module docstring."""

    def __init__(self, name: str, config: ModuleConfig | None = None) -> None:
        self.name = name
        self.config = config if config is not None else ModuleConfig()
        self._computations: list[HloComputation] = []
        self._entry: HloComputation | None = None
        self._instruction_names: set[str] = set()
        self._computation_names: set[str] = set()
        self._next_suffix: dict[str, int] = {}
        # The FileNames/FunctionNames/FileLocations/StackFrames tables, verbatim.
        self.stack_frame_tables: str | None = None

    # -- computations ---------------------------------------------------------
    @property
    def computations(self) -> tuple[HloComputation, ...]:
        return tuple(self._computations)

    @property
    def entry(self) -> HloComputation:
        if self._entry is None:
            raise InvalidArgumentError(f"module {self.name} has no entry computation")
        return self._entry

    @entry.setter
    def entry(self, computation: HloComputation) -> None:
        if computation.parent is not self:
            raise InvalidArgumentError(f"{computation.name} is not a computation of {self.name}")
        self._entry = computation

    entry_computation = entry

    def computation(self, name: str) -> HloComputation:
        for computation in self._computations:
            if computation.name == name:
                return computation
        raise InvalidArgumentError(f"module {self.name} has no computation named {name!r}")

    def add_computation(
        self, computation: HloComputation, *, entry: bool = False, append: bool = False
    ) -> HloComputation:
        """Add a computation, making its name and its instructions' names unique here.

        A non-entry computation is placed before the entry (unless ``append``)
        so that printed text still defines callees before their callers.
        """
        if computation.parent is not None:
            raise InvalidArgumentError(f"{computation.name} already belongs to a module")
        computation.name = self._claim(self._computation_names, computation.name)
        for instruction in computation.instructions:
            instruction.name = self._claim_instruction_name(instruction.name)
        computation.parent = self
        if append or entry or self._entry is None or self._entry not in self._computations:
            self._computations.append(computation)
        else:
            self._computations.insert(self._computations.index(self._entry), computation)
        if entry:
            self._entry = computation
        return computation

    def detach_computation(self, computation: HloComputation) -> None:
        """Take ``computation`` out of this module, references and all, to add elsewhere.

        Unlike ``remove_computation`` it may still be called: the builder moves
        a cloned callee together with its callers into the module it builds.
        """
        if computation.parent is not self:
            raise InvalidArgumentError(f"{computation.name} is not a computation of {self.name}")
        self._computations.remove(computation)
        if computation is self._entry:
            self._entry = None
        computation.parent = None
        self._computation_names.discard(computation.name)
        for instruction in computation.instructions:
            self._instruction_names.discard(instruction.name)

    def remove_computation(self, computation: HloComputation) -> None:
        if computation.parent is not self:
            raise InvalidArgumentError(f"{computation.name} is not a computation of {self.name}")
        if computation is self._entry:
            raise InvalidArgumentError(f"cannot remove the entry computation {computation.name}")
        callers = [i.name for i in self.instructions() if computation in i.called_computations()]
        if callers:
            raise InvalidArgumentError(
                f"cannot remove {computation.name}: called by {', '.join(callers)}"
            )
        self._computations.remove(computation)
        computation.parent = None
        self._computation_names.discard(computation.name)
        for instruction in computation.instructions:
            self._instruction_names.discard(instruction.name)

    def computation_post_order(self) -> list[HloComputation]:
        """Computations with every callee before its callers (XLA's parser needs that).

        Stable: when the stored order already defines callees first, it is
        returned unchanged.
        """
        done: set[int] = set()
        out: list[HloComputation] = []
        # Depth-first with an explicit stack: call chains can be longer than Python's
        # recursion limit.
        for start in self._computations:
            if id(start) in done:
                continue
            path = {id(start)}
            stack = [(start, iter(start.called_computations()))]
            while stack:
                computation, callees = stack[-1]
                for callee in callees:
                    if callee.parent is not self or id(callee) in done:
                        continue
                    if id(callee) in path:
                        raise InvalidArgumentError(f"computation {callee.name} calls itself")
                    path.add(id(callee))
                    stack.append((callee, iter(callee.called_computations())))
                    break
                else:
                    stack.pop()
                    path.discard(id(computation))
                    done.add(id(computation))
                    out.append(computation)
        return out

    def instructions(self) -> Iterator[HloInstruction]:
        """Every instruction of every computation, in order."""
        for computation in self._computations:
            yield from computation.instructions

    def callers(self, computation: HloComputation) -> list[HloInstruction]:
        """Instructions anywhere in the module that call ``computation``."""
        return [i for i in self.instructions() if computation in i.called_computations()]

    # -- names ----------------------------------------------------------------
    def unique_name(self, prefix: str) -> str:
        """An instruction name not yet used in this module, reserved for the caller."""
        return self._claim_instruction_name(prefix)

    def unique_computation_name(self, prefix: str) -> str:
        return self._claim(self._computation_names, prefix)

    def _claim_instruction_name(self, name: str) -> str:
        return self._claim(self._instruction_names, name)

    def _release_instruction_name(self, name: str) -> None:
        self._instruction_names.discard(name)

    def _rename_instruction(self, old: str, new: str) -> None:
        self._rename(self._instruction_names, old, new, "an instruction")

    def _rename_computation(self, old: str, new: str) -> None:
        self._rename(self._computation_names, old, new, "a computation")

    def _rename(self, used: set[str], old: str, new: str, what: str) -> None:
        if new in used:
            raise InvalidArgumentError(
                f"{what} of module {self.name} is already called {new!r}; "
                f"ask unique_name({new!r}) for a free name"
            )
        used.discard(old)
        used.add(new)

    def _claim(self, used: set[str], name: str) -> str:
        if name not in used:
            used.add(name)
            return name
        m = _SUFFIX.match(name)
        base = m.group(1) if m else name
        k = self._next_suffix.get(base, 1)
        while f"{base}.{k}" in used:
            k += 1
        self._next_suffix[base] = k + 1
        unique = f"{base}.{k}"
        used.add(unique)
        return unique

    # -- configuration ----------------------------------------------------------
    @property
    def is_scheduled(self) -> bool:
        return self.config.is_scheduled

    @is_scheduled.setter
    def is_scheduled(self, value: bool) -> None:
        self.config.is_scheduled = bool(value)

    @property
    def entry_computation_layout(self) -> ProgramShape:
        """Entry parameter and result shapes with layouts (from the text or the entry)."""
        if self.config.entry_computation_layout is not None:
            return self.config.entry_computation_layout
        shape = self.entry.program_shape
        return ProgramShape(
            tuple(s.with_default_layout() if not s.has_layout else s for s in shape.parameters),
            shape.result if shape.result.has_layout else shape.result.with_default_layout(),
        )

    @entry_computation_layout.setter
    def entry_computation_layout(self, layout: ProgramShape | None) -> None:
        self.config.entry_computation_layout = layout

    @property
    def input_output_alias(self) -> InputOutputAlias:
        return self.config.input_output_alias or InputOutputAlias()

    @input_output_alias.setter
    def input_output_alias(self, value: InputOutputAlias | None) -> None:
        self.config.input_output_alias = value

    @property
    def buffer_donor(self) -> BufferDonor:
        return self.config.buffer_donor or BufferDonor()

    @buffer_donor.setter
    def buffer_donor(self, value: BufferDonor | None) -> None:
        self.config.buffer_donor = value

    @property
    def replica_count(self) -> int:
        return self.config.replica_count

    @replica_count.setter
    def replica_count(self, value: int) -> None:
        self.config.replica_count = int(value)

    @property
    def num_partitions(self) -> int:
        return self.config.num_partitions

    @num_partitions.setter
    def num_partitions(self, value: int) -> None:
        self.config.num_partitions = int(value)

    @property
    def frontend_attributes(self) -> Any:
        return self.config.frontend_attributes

    @frontend_attributes.setter
    def frontend_attributes(self, value: Any) -> None:
        self.config.frontend_attributes = value

    @property
    def header_extras(self) -> dict[str, str]:
        return self.config.extras

    # -- text, copies, comparison ---------------------------------------------------
    # ``to_text(verbose=False, *, options=None)`` and ``equals(other)`` print through
    # xlapy.hlo.printer, which builds on this module; the package attaches them
    # (xlapy/hlo/__init__.py) before any of its modules can be used.
    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"<HloModule {self.name}: {len(self._computations)} computations>"

    def clone(self, name: str | None = None) -> HloModule:
        """A deep copy: new instructions and computations, attribute values shared.

        Attribute values and literals are treated as immutable, as in XLA.
        """
        config = ModuleConfig(
            is_scheduled=self.config.is_scheduled,
            entry_computation_layout=self.config.entry_computation_layout,
            input_output_alias=self.config.input_output_alias,
            buffer_donor=self.config.buffer_donor,
            replica_count=self.config.replica_count,
            num_partitions=self.config.num_partitions,
            frontend_attributes=self.config.frontend_attributes,
            extras=dict(self.config.extras),
            order=list(self.config.order),
        )
        copy = HloModule(self.name if name is None else name, config)
        copy.stack_frame_tables = self.stack_frame_tables
        computation_map: dict[int, HloComputation] = {}
        instruction_map: dict[int, HloInstruction] = {}
        for computation in self._computations:
            new_computation = HloComputation(computation.name)
            new_computation.execution_thread = computation.execution_thread
            computation_map[id(computation)] = new_computation
            for instruction in computation.post_order():
                new_instruction = instruction.clone(
                    [instruction_map[id(op)] for op in instruction.operands]
                )
                instruction_map[id(instruction)] = new_instruction
                new_computation.add_instruction(new_instruction)
            new_computation.root = instruction_map[id(computation.root)]
        for computation in self._computations:
            for instruction in computation.instructions:
                new_instruction = instruction_map[id(instruction)]
                for pred in instruction.control_predecessors:
                    new_instruction.add_control_predecessor(instruction_map[id(pred)])
                for key, value in instruction.attributes.items():
                    if isinstance(value, HloComputation):
                        new_instruction.set_attribute(key, computation_map[id(value)])
                    elif (
                        isinstance(value, (list, tuple))
                        and value
                        and all(isinstance(v, HloComputation) for v in value)
                    ):
                        new_instruction.attributes[key] = type(value)(
                            computation_map[id(v)] for v in value
                        )
        for computation in self._computations:
            copy.add_computation(
                computation_map[id(computation)], entry=computation is self._entry, append=True
            )
        return copy

    def verify(self, *, check_shapes: bool = True) -> None:
        """Raise ``InvalidArgumentError`` listing every problem (see ``xlapy.hlo.verifier``)."""
        verify_module(self, check_shapes=check_shapes)


def make_module(
    name: str, computations: Sequence[HloComputation], entry: HloComputation | None = None
) -> HloModule:
    """A module from finished computations; the last one is the entry unless given."""
    module = HloModule(name)
    entry = entry if entry is not None else computations[-1]
    for computation in computations:
        module.add_computation(computation, entry=computation is entry)
    return module


__all__ = [
    "AliasEntry",
    "AliasKind",
    "BufferDonor",
    "HEADER_ORDER",
    "HloModule",
    "InputOutputAlias",
    "ModuleConfig",
    "ShapeIndex",
    "make_module",
]
