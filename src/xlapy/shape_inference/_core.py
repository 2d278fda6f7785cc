"""The machinery every shape rule shares: the rule table, the context, errors.

A rule is a function ``(ctx) -> Shape`` registered for one or more opcodes.
Rules read operand shapes, attributes (named and typed as in HLO text) and the
program shapes of called computations from the context, and report problems
through ``ctx.fail`` so that every message has the same form: the op, the
operand shapes, what was wrong and what would be valid.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ..errors import InvalidArgumentError
from ..opcode import HloOpcode
from ..shape import ProgramShape, Shape
from ..types import PrimitiveType

Rule = Callable[["InferenceContext"], Shape]
RULES: dict[HloOpcode, Rule] = {}

_REQUIRED = object()


def rule(*opcodes: HloOpcode) -> Callable[[Rule], Rule]:
    """Register ``fn`` as the one shape rule of each opcode."""

    def register(fn: Rule) -> Rule:
        for opcode in opcodes:
            if opcode in RULES:
                raise RuntimeError(f"two shape rules for {opcode.value}")
            RULES[opcode] = fn
        return fn

    return register


@dataclass
class InferenceContext:
    """What a rule may look at; see the module docstring."""

    opcode: HloOpcode
    operands: tuple[Shape, ...]
    attributes: Mapping[str, Any] = field(default_factory=dict)
    computations: Mapping[str, ProgramShape | Sequence[ProgramShape]] = field(default_factory=dict)
    # The result shape written in HLO text or requested by the builder: the
    # only source of the result for ops such as reshape, broadcast or convert.
    declared: Shape | None = None
    op_name: str | None = None

    @property
    def name(self) -> str:
        return self.op_name or self.opcode.value

    # -- errors -------------------------------------------------------------
    def fail(self, message: str) -> NoReturn:
        shapes = ", ".join(str(s) for s in self.operands) or "none"
        raise InvalidArgumentError(f"{self.name}: {message} (operand shapes: {shapes})")

    # -- operands -------------------------------------------------------------
    def expect_operand_count(self, count: int) -> None:
        if len(self.operands) != count:
            self.fail(f"takes {count} operand{'s' if count != 1 else ''}, got {len(self.operands)}")

    def array(self, index: int, what: str = "operand") -> Shape:
        """Operand ``index``, which must be an array."""
        if index >= len(self.operands):
            self.fail(f"missing {what} (operand {index})")
        shape = self.operands[index]
        if not shape.is_array:
            self.fail(f"{what} (operand {index}) must be an array, got {shape}")
        return shape

    def arrays(self) -> list[Shape]:
        return [self.array(i) for i in range(len(self.operands))]

    def check_same_dimensions(
        self, shapes: Sequence[Shape], noun: str, *, plural: str | None = None, note: str = ""
    ) -> None:
        """Every shape has the dimensions of the first (``noun`` names them in the message)."""
        first = shapes[0]
        for i, shape in enumerate(shapes[1:], start=1):
            if shape.dimensions != first.dimensions:
                self.fail(
                    f"all {plural or noun + 's'} must have the same dimensions{note}: {noun} {i} "
                    f"has {list(shape.dimensions)}, {noun} 0 has {list(first.dimensions)}"
                )

    def same_dimension_arrays(self, note: str = "") -> list[Shape]:
        """The operands of map and sort: at least one array, all of the same dimensions."""
        if not self.operands:
            self.fail("needs at least one operand")
        arrays = self.arrays()
        self.check_same_dimensions(arrays, "operand", note=note)
        return arrays

    # -- attributes -------------------------------------------------------------
    def attr(self, name: str, default: Any = _REQUIRED) -> Any:
        value = self.attributes.get(name, default)
        if value is _REQUIRED:
            self.fail(f"needs the attribute {name}=")
        return value

    def int_list(self, name: str, default: Any = _REQUIRED) -> list[int]:
        value = self.attr(name, default)
        try:
            return [int(v) for v in value]
        except TypeError:
            self.fail(f"attribute {name} must be a list of integers, got {value!r}")

    def computation(self, name: str) -> ProgramShape:
        comp = self.computations.get(name)
        if comp is None:
            self.fail(f"needs a called computation {name}=")
        if not isinstance(comp, ProgramShape):
            self.fail(f"{name}= must name one computation")
        return comp

    def declared_shape(self) -> Shape:
        if self.declared is None:
            self.fail("its result shape cannot be inferred from the operands; it must be given")
        return self.declared

    # -- common checks -----------------------------------------------------------
    def check_dimension_numbers(
        self, dims: Sequence[int], rank: int, what: str, *, unique: bool = True
    ) -> None:
        for d in dims:
            if not 0 <= d < rank:
                self.fail(f"{what} {list(dims)} has {d}, outside [0, {rank}) for rank {rank}")
        if unique and len(set(dims)) != len(dims):
            self.fail(f"{what} {list(dims)} repeats a dimension")

    def check_permutation(self, perm: Sequence[int], rank: int, what: str) -> None:
        if sorted(perm) != list(range(rank)):
            self.fail(f"{what} {list(perm)} is not a permutation of 0..{rank - 1}")

    def element_type_is(
        self, shape: Shape, predicate: Callable[[PrimitiveType], bool], expected: str
    ) -> None:
        if not predicate(shape.element_type):
            self.fail(f"expects {expected} element types, got {shape.element_type.hlo_name}")


def array_shape(
    element_type: PrimitiveType,
    dimensions: Sequence[int],
    dynamic: Sequence[bool] | None = None,
) -> Shape:
    """A result shape: default layout, as XLA's shape inference produces."""
    return Shape.array(element_type, dimensions, dynamic_dimensions=dynamic)


def same_element_type(a: PrimitiveType, b: PrimitiveType) -> bool:
    return a == b
