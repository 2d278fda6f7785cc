"""``HloInstruction``: one node of the HLO graph.

Everything an instruction carries besides its opcode, shape and operands is an
*attribute*, stored under the exact name HLO text uses (``dimensions``,
``window``, ``to_apply``, ``metadata``, ``backend_config``...), in the order the
text lists them. One generic mechanism instead of a subclass per opcode keeps
the parser and printer table-driven, and an attribute the registry does not
know survives verbatim as a :class:`RawAttribute` instead of being dropped.

Called computations are attributes too: their values are ``HloComputation``
objects (or lists of them for ``branch_computations`` and
``called_computations``), so renaming a computation renames every reference.
Control dependencies are not attributes: they are edges kept in both directions
(``control_predecessors`` / ``control_successors``), as are users.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArgumentError
from ..opcode import HloOpcode
from ..shape import Shape
from ..xla_data import (
    ConvolutionDimensionNumbers,
    DotDimensionNumbers,
    GatherDimensionNumbers,
    PaddingConfig,
    ScatterDimensionNumbers,
    Window,
)
from . import typed_attributes
from .lexer import c_unescape

if TYPE_CHECKING:
    from .computation import HloComputation


class CalledComputation:
    """The base of ``HloComputation``: what lets an instruction tell its called
    computations apart from other attribute values, since computation.py builds
    on this module and cannot be imported by it.
    """

    __slots__ = ()


@dataclass(frozen=True)
class RawAttribute:
    """An attribute value kept as the exact text it was written with.

    Used for attributes the attribute registry does not know, so that HLO text
    from newer XLA versions still round-trips.
    """

    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class RawLiteral:
    """A constant's body kept as text, for literals ``xlapy.literal`` cannot hold.

    The literal text format raises UnimplementedError for them (constants of an
    unbounded dynamic shape); the parser keeps their text so the module still
    prints back.
    """

    text: str
    shape: Shape

    def __str__(self) -> str:
        return self.text


# Attributes whose value is always a list of computations, printed as {a, b}.
COMPUTATION_LIST_ATTRIBUTES = frozenset({"branch_computations", "called_computations"})

# Where XLA prints the generic attributes, after the opcode-specific ones.
# A newly set attribute goes before the first of these that follows it.
TRAILING_ATTRIBUTE_ORDER = (
    "sharding",
    "frontend_attributes",
    "control-predecessors",
    "statistics",
    "origin",
    "metadata",
    "backend_config",
)
TRAILING_RANK = {name: i for i, name in enumerate(TRAILING_ATTRIBUTE_ORDER)}
CONTROL_PREDECESSORS = "control-predecessors"


class HloInstruction:
    """One HLO instruction; see the module docstring for how its data is stored."""

    def __init__(
        self,
        opcode: HloOpcode,
        shape: Shape,
        operands: Iterable[HloInstruction] = (),
        *,
        name: str | None = None,
        attributes: dict[str, Any] | None = None,
        parameter_number: int | None = None,
        literal: Any = None,
    ) -> None:
        if not isinstance(opcode, HloOpcode):
            opcode = HloOpcode.from_text(str(opcode))
        if not isinstance(shape, Shape):
            raise InvalidArgumentError(
                f"the shape of an instruction must be a Shape, not {shape!r}"
            )
        self.opcode = opcode
        self.shape = shape
        self._name = name if name is not None else opcode.value
        self.parameter_number = parameter_number
        self.literal = literal
        self.parent: HloComputation | None = None
        self._operands: list[HloInstruction] = []
        self._users: list[HloInstruction] = []
        self._control_predecessors: list[HloInstruction] = []
        self._control_successors: list[HloInstruction] = []
        # Name of the attribute that control-predecessors followed in the text
        # ("" when it came first), so that printing keeps the written order.
        self._control_after: str | None = None
        self.attributes: dict[str, Any] = {}
        for operand in operands:
            self.append_operand(operand)
        for key, value in (attributes or {}).items():
            self.set_attribute(key, value)

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, name: str) -> None:
        """Rename; inside a module the new name must be free there (see unique_name)."""
        module = self.parent.parent if self.parent is not None else None
        if module is not None and name != self._name:
            module._rename_instruction(self._name, name)
        self._name = name

    @staticmethod
    def create_parameter(number: int, shape: Shape, name: str | None = None) -> HloInstruction:
        return HloInstruction(
            HloOpcode.PARAMETER, shape, name=name or f"p{number}", parameter_number=number
        )

    @staticmethod
    def create_constant(literal: Any, name: str | None = None) -> HloInstruction:
        """A constant holding ``literal`` (an ``xlapy.literal.Literal``); its shape is the literal's."""
        return HloInstruction(HloOpcode.CONSTANT, literal.shape, name=name, literal=literal)

    # -- operands and users ---------------------------------------------------
    @property
    def operands(self) -> tuple[HloInstruction, ...]:
        return tuple(self._operands)

    def operand(self, index: int) -> HloInstruction:
        return self._operands[index]

    @property
    def operand_count(self) -> int:
        return len(self._operands)

    @property
    def users(self) -> tuple[HloInstruction, ...]:
        """Distinct instructions that use this one as an operand, in order of first use."""
        return tuple(self._users)

    @property
    def user_count(self) -> int:
        return len(self._users)

    def append_operand(self, operand: HloInstruction) -> None:
        if not isinstance(operand, HloInstruction):
            raise InvalidArgumentError(f"an operand must be an HloInstruction, not {operand!r}")
        self._operands.append(operand)
        if self not in operand._users:
            operand._users.append(self)

    def _drop_use_of(self, operand: HloInstruction) -> None:
        if operand not in self._operands and self in operand._users:
            operand._users.remove(self)

    def replace_operand(self, old: HloInstruction | int, new: HloInstruction) -> None:
        """Replace operand number ``old`` (an int) or every use of instruction ``old``."""
        if not isinstance(new, HloInstruction):
            raise InvalidArgumentError(f"the new operand must be an HloInstruction, not {new!r}")
        if isinstance(old, int):
            if not -len(self._operands) <= old < len(self._operands):
                raise InvalidArgumentError(
                    f"{self.name} has {len(self._operands)} operands; there is no operand {old}"
                )
            previous = self._operands[old]
            self._operands[old] = new
        else:
            if old not in self._operands:
                raise InvalidArgumentError(f"{old.name} is not an operand of {self.name}")
            previous = old
            self._operands = [new if op is old else op for op in self._operands]
        if self not in new._users:
            new._users.append(self)
        self._drop_use_of(previous)

    def replace_operands(self, operands: Sequence[HloInstruction]) -> None:
        """Set the whole operand list (users of old and new operands stay consistent)."""
        old = list(self._operands)
        self._operands = []
        for op in old:
            if self in op._users:
                op._users.remove(self)
        for op in operands:
            self.append_operand(op)

    def replace_all_uses_with(self, new: HloInstruction) -> None:
        """Make every user (and the parent's root slot) refer to ``new`` instead."""
        if new is self:
            return
        for user in list(self._users):
            user.replace_operand(self, new)
        if self.parent is not None and self.parent.root is self:
            self.parent.root = new

    def detach(self) -> None:
        """Drop all operand and control edges (before removing the instruction)."""
        self.replace_operands(())
        for pred in list(self._control_predecessors):
            self.remove_control_predecessor(pred)
        for succ in list(self._control_successors):
            succ.remove_control_predecessor(self)

    # -- control dependencies ---------------------------------------------------
    @property
    def control_predecessors(self) -> tuple[HloInstruction, ...]:
        return tuple(self._control_predecessors)

    @property
    def control_successors(self) -> tuple[HloInstruction, ...]:
        return tuple(self._control_successors)

    def add_control_predecessor(self, predecessor: HloInstruction) -> None:
        """``predecessor`` must run before this instruction (no-op if already so)."""
        if predecessor not in self._control_predecessors:
            self._control_predecessors.append(predecessor)
            predecessor._control_successors.append(self)

    def remove_control_predecessor(self, predecessor: HloInstruction) -> None:
        if predecessor in self._control_predecessors:
            self._control_predecessors.remove(predecessor)
            predecessor._control_successors.remove(self)

    # -- attributes -----------------------------------------------------------
    def attribute(self, name: str, default: Any = None) -> Any:
        """The value of attribute ``name`` (exact HLO text spelling), or ``default``."""
        return self.attributes.get(name, default)

    def has_attribute(self, name: str) -> bool:
        return name in self.attributes

    def set_attribute(self, name: str, value: Any) -> None:
        """Set an attribute; a new one goes where XLA would print it.

        An existing attribute keeps its position. A new opcode-specific one is
        placed before the generic trailing ones (sharding, metadata,
        backend_config...), and a new trailing one in XLA's order among them.
        """
        if name == CONTROL_PREDECESSORS:
            raise InvalidArgumentError(
                "control-predecessors are edges, not an attribute; use add_control_predecessor"
            )
        if name in self.attributes:
            self.attributes[name] = value
        else:
            rank = TRAILING_RANK.get(name, -1)
            items = list(self.attributes.items())
            at = len(items)
            for i, (key, _) in enumerate(items):
                key_rank = TRAILING_RANK.get(key, -1)
                if key_rank > rank and key_rank >= 0:
                    at = i
                    break
            items.insert(at, (name, value))
            self.attributes = dict(items)
        if self.opcode is HloOpcode.FUSION and name == "calls" and _is_computation(value):
            value.fusion_instruction = self

    def remove_attribute(self, name: str) -> Any:
        """Delete an attribute and return its value (None if it was not set)."""
        value = self.attributes.pop(name, None)
        if _is_computation(value) and value.fusion_instruction is self:
            value.fusion_instruction = None
        return value

    def called_computations(self) -> list[HloComputation]:
        """Every computation this instruction calls, in attribute order."""
        out: list[HloComputation] = []
        for value in self.attributes.values():
            if _is_computation(value):
                out.append(value)
            elif isinstance(value, (list, tuple)) and value and all(map(_is_computation, value)):
                out.extend(value)
        return out

    def replace_called_computation(self, old: HloComputation, new: HloComputation) -> None:
        """Point every reference to ``old`` at ``new``."""
        for key, value in list(self.attributes.items()):
            if value is old:
                if old.fusion_instruction is self:
                    old.fusion_instruction = None
                self.set_attribute(key, new)
            elif isinstance(value, (list, tuple)) and any(v is old for v in value):
                self.attributes[key] = type(value)(new if v is old else v for v in value)

    # -- conveniences ---------------------------------------------------------
    @property
    def is_root(self) -> bool:
        return self.parent is not None and self.parent.root is self

    @property
    def tuple_index(self) -> int:
        """The ``index`` of a get-tuple-element."""
        if self.opcode is not HloOpcode.GET_TUPLE_ELEMENT:
            raise InvalidArgumentError(
                f"{self.name} is a {self.opcode.value}, not a get-tuple-element"
            )
        return int(_plain(self.attributes["index"]))

    @property
    def to_apply(self) -> HloComputation | None:
        return self.attributes.get("to_apply")

    @property
    def fused_computation(self) -> HloComputation | None:
        """The computation a fusion calls (its ``calls`` attribute)."""
        return self.attributes.get("calls") if self.opcode is HloOpcode.FUSION else None

    @property
    def fusion_kind(self) -> str | None:
        kind = self.attributes.get("kind")
        if kind is None:
            return None
        kind = _plain(kind)
        return str(getattr(kind, "value", kind))  # "kLoop", whether an enum or text

    @property
    def custom_call_target(self) -> str | None:
        target = self.attributes.get("custom_call_target")
        if target is None:
            return None
        if isinstance(target, RawAttribute):
            return c_unescape(target.text.strip('"'))
        return str(target)

    # -- typed accessors (XLA's HloGatherInstruction::gather_dimension_numbers() ...) --
    @property
    def dot_dimension_numbers(self) -> DotDimensionNumbers:
        return typed_attributes.DOT.read(self.attribute)

    @property
    def gather_dimension_numbers(self) -> GatherDimensionNumbers:
        return typed_attributes.GATHER.read(self.attribute)

    @property
    def scatter_dimension_numbers(self) -> ScatterDimensionNumbers:
        return typed_attributes.SCATTER.read(self.attribute)

    @property
    def convolution_dimension_numbers(self) -> ConvolutionDimensionNumbers | None:
        return self.attributes.get("dim_labels")

    @property
    def window(self) -> Window | None:
        return self.attributes.get("window")

    @property
    def padding_config(self) -> PaddingConfig | None:
        return self.attributes.get("padding")

    @property
    def dimensions(self) -> tuple[int, ...]:
        """The ``dimensions={...}`` of broadcast, transpose, reduce, reverse, ... (or ())."""
        return typed_attributes.int_tuple(self.attributes.get("dimensions"))

    @property
    def slice_sizes(self) -> tuple[int, ...]:
        return typed_attributes.int_tuple(self.attributes.get("slice_sizes"))

    def set_dimension_numbers(self, value: Any) -> None:
        """Write dot, gather or scatter dimension numbers as the attributes text spells."""
        for name, attribute in typed_attributes.to_attributes(value).items():
            self.set_attribute(name, attribute)

    def iter_operands_unique(self) -> Iterator[HloInstruction]:
        seen: set[int] = set()
        for op in self._operands:
            if id(op) not in seen:
                seen.add(id(op))
                yield op

    def clone(
        self,
        operands: Sequence[HloInstruction] | None = None,
        *,
        shape: Shape | None = None,
        name: str | None = None,
    ) -> HloInstruction:
        """A copy with the same attributes (computations shared) and new operands.

        Control edges are not copied; the copy has no parent until added.
        """
        copy = HloInstruction(
            self.opcode,
            self.shape if shape is None else shape,
            self._operands if operands is None else operands,
            name=self.name if name is None else name,
            parameter_number=self.parameter_number,
            literal=self.literal,
        )
        copy.attributes = dict(self.attributes)
        copy._control_after = self._control_after
        return copy

    # ``to_text(verbose=False)``, one line of HLO text, comes from xlapy.hlo.printer,
    # which builds on this module; the package attaches it (xlapy/hlo/__init__.py).

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        ops = ", ".join(op.name for op in self._operands)
        return f"<HloInstruction {self.name} = {self.shape} {self.opcode.value}({ops})>"


def _is_computation(value: object) -> bool:
    return isinstance(value, CalledComputation)


def _plain(value: object) -> object:
    """Unwrap a RawAttribute to its text; typed values pass through."""
    if isinstance(value, RawAttribute):
        return value.text
    return value


__all__ = [
    "CalledComputation",
    "HloInstruction",
    "RawAttribute",
    "RawLiteral",
]
