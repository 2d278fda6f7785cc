"""``HloModule``: computations, the entry, and the module-level configuration.

The module owns the name spaces: instruction names and computation names are
unique within it (as XLA's NameUniquer keeps them), and passes ask
:meth:`HloModule.unique_name` for new ones. Header attributes of the text
(``entry_computation_layout``, ``input_output_alias``, ``replica_count``...)
are typed fields; the ones xlapy does not interpret are kept verbatim in
``header_extras`` and printed back where they were.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidArgumentError
from .computation import HloComputation, ProgramShape
from .instruction import HloInstruction

ShapeIndex = tuple[int, ...]


class AliasKind(enum.StrEnum):
    """May-alias lets the runtime skip the alias; must-alias requires a donated input.

    A ``str`` enum, so ``entry.kind == "must-alias"`` holds.
    """

    MAY_ALIAS = "may-alias"
    MUST_ALIAS = "must-alias"


def _index(value: Sequence[int]) -> ShapeIndex:
    return tuple(int(i) for i in value)


def _check_parameter_number(what: str, number: int) -> int:
    number = int(number)
    if number < 0:
        raise InvalidArgumentError(f"{what}: parameter_number={number} must be >= 0")
    return number


@dataclass(frozen=True)
class AliasEntry:
    """An output buffer (at ``output_index``) that may reuse a parameter's buffer."""

    output_index: ShapeIndex
    parameter_number: int
    parameter_index: ShapeIndex = ()
    kind: AliasKind = AliasKind.MAY_ALIAS

    def __post_init__(self) -> None:
        object.__setattr__(self, "output_index", _index(self.output_index))
        object.__setattr__(self, "parameter_index", _index(self.parameter_index))
        object.__setattr__(
            self, "parameter_number", _check_parameter_number("AliasEntry", self.parameter_number)
        )
        try:
            object.__setattr__(self, "kind", AliasKind(self.kind))
        except ValueError:
            raise InvalidArgumentError(
                f"alias kind {self.kind!r} is not valid; use may-alias or must-alias"
            ) from None


@dataclass(frozen=True)
class InputOutputAlias:
    """The ``input_output_alias`` of a module (XLA's HloInputOutputAliasConfig)."""

    entries: tuple[AliasEntry, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "entries", tuple(self.entries))

    def __str__(self) -> str:
        from .attributes_module import MODULE_ATTRIBUTE_SYNTAX

        return MODULE_ATTRIBUTE_SYNTAX["input_output_alias"].format(self)


@dataclass(frozen=True)
class BufferDonor:
    """Parameters (and indices into them) whose buffers the program may reuse.

    ``entries`` holds ``(parameter_number, parameter_index)`` pairs.
    """

    entries: tuple[tuple[int, ShapeIndex], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(
            self,
            "entries",
            tuple(
                (_check_parameter_number("BufferDonor", number), _index(index))
                for number, index in self.entries
            ),
        )

    def __str__(self) -> str:
        from .attributes_module import MODULE_ATTRIBUTE_SYNTAX

        return MODULE_ATTRIBUTE_SYNTAX["buffer_donor"].format(self)


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
    def to_text(self, verbose: bool = False, *, options: Any = None) -> str:
        """HLO text: the short parsable form, or XLA's long form with ``verbose``.

        ``options`` (a :class:`~xlapy.hlo.printer.PrintOptions`) overrides both.
        """
        from .printer import PrintOptions, module_text

        if options is None:
            options = PrintOptions.long() if verbose else PrintOptions.short()
        return module_text(self, options)

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
        from .verifier import verify_module

        verify_module(self, check_shapes=check_shapes)

    def equals(self, other: HloModule) -> bool:
        """Same text in the most complete print form (for tests and pass fixpoints)."""
        from .printer import PrintOptions

        options = PrintOptions.full()
        return self.to_text(options=options) == other.to_text(options=options)


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
