"""Shape refinement: a shape-polymorphic StableHLO module made static for concrete arguments.

``jax.export`` writes modules whose dimensions are unknown (``tensor<?x4xf32>``):
the entry function checks the argument shapes with ``shape_assertion`` custom
calls, computes the dimension sizes with ``get_dimension_size`` and integer
arithmetic, passes them to the function that does the work as
``jax.global_constant`` arguments, and spells every shape that depends on them
with the ``dynamic_*`` ops (``dynamic_broadcast_in_dim``, ``dynamic_iota``,
``dynamic_reshape``, ...), whose shape operands are those computed sizes. HLO
has no unknown dimensions, so such a module runs the way XLA runs it: given the
argument shapes of one call, StableHLO's shape refinement
(``stablehlo-refine-arguments`` then ``stablehlo-refine-shapes``) gives every
value its static type, and the static module is compiled for that signature.

:func:`refine_module` does that on the parsed module (``stablehlo.ast``) and
returns a new, static one that the ordinary lowering turns into HLO:

- the entry function's arguments take the given shapes (each must agree with
  the declared type: same rank and element type, same size where it is static);
- every op's types are inferred from its refined operands. The engine is the
  lowering itself: each op is lowered through the builder, whose shape
  inference gives the result shapes, and shape operands (of the ``dynamic_*``
  ops) are folded to constants by the HLO evaluator exactly as the lowering
  folds them. A declared static size that disagrees with the inferred one is an
  error naming the op;
- a ``func.call`` gets a copy of its callee specialized to the refined operand
  types; the callee's ``jax.global_constant`` arguments (the dimension sizes)
  must fold to constants and become constants inside the copy, as JAX's
  refinement does (one copy per distinct set of types and constants);
- a ``shape_assertion`` custom call (operands: the predicate, then the values
  its message refers to as ``{0}``, ``{1}``, ...) is evaluated: when the
  predicate is false the refinement fails with an ``InvalidArgumentError``
  carrying the message formatted with those values, as JAX reports it; when it
  holds the call is removed. A predicate that does not fold is an error.

What refinement cannot make static is reported, not guessed: a result whose
unknown sizes its operands do not determine, or a shape operand computed from
run-time data.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..builder import XlaOp
from ..errors import InvalidArgumentError, UnimplementedError
from ..literal import Literal
from ..shape import Shape
from ..types import PrimitiveType
from . import ast
from .lower import Ctx, ProgramLowering, entry_function_name
from .lower.attrs import string_attr, symbol
from .lower.core import RETURN_OPS
from .lower.errors import invalid, unsupported
from .parse.types import element_name
from .refine_experimental import REWRITES

CALL_OPS = frozenset({"func.call", "call", "stablehlo.call"})
CUSTOM_CALL_OPS = frozenset({"stablehlo.custom_call", "mhlo.custom_call"})
# Calls pass dimension sizes as 0-d integers; a callee may return them (floor division
# helpers do). Values up to this many elements are followed through calls.
MAX_SHAPE_VALUE_ELEMENTS = 16
SHAPE_ASSERTION = "shape_assertion"
GLOBAL_CONSTANT = "jax.global_constant"
USES_SHAPE_POLYMORPHISM = "jax.uses_shape_polymorphism"


# -- types ---------------------------------------------------------------------------------------


def is_unknown(t: ast.MlirType) -> bool:
    """Whether ``t`` has an unknown (``?``, unbounded) dimension."""
    shape = t.shape
    return shape is not None and shape.is_unbounded_dynamic


def function_is_polymorphic(function: ast.Function) -> bool:
    """Whether an argument or a result of ``function`` has an unknown dimension."""
    return any(is_unknown(t) for _, t in function.arguments) or any(
        is_unknown(t) for t in function.result_types
    )


def module_is_polymorphic(module: ast.Module) -> bool:
    """Whether any type in ``module`` (signatures, ops, block arguments) is unknown."""
    return any(
        function_is_polymorphic(f) or _region_is_polymorphic(f.body) for f in module.functions
    )


def needs_refinement(module: ast.Module) -> bool:
    """Whether ``module`` must be refined before it is lowered: it has unknown
    dimensions, or says it uses shape polymorphism (``jax.uses_shape_polymorphism``,
    the attribute on which XLA runs shape refinement; its ``shape_assertion`` calls
    are then checked and removed even where every type is static)."""
    return bool(module.attributes.get(USES_SHAPE_POLYMORPHISM)) or module_is_polymorphic(module)


def _region_is_polymorphic(region: ast.Region) -> bool:
    for block in region.blocks:
        if any(is_unknown(t) for _, t in block.arguments):
            return True
        for op in block.operations:
            if any(is_unknown(t) for t in (*op.operand_types, *op.result_types)):
                return True
            if any(_region_is_polymorphic(inner) for inner in op.regions):
                return True
    return False


def static_type(declared: ast.MlirType, shape: Shape) -> ast.MlirType:
    """The MLIR type with ``declared``'s element type spelled as written and ``shape``'s
    (static) dimensions."""
    if not shape.is_array:
        return ast.MlirType(declared.text, shape)
    dims = "".join(f"{d}x" for d in shape.dimensions)
    return ast.MlirType(f"tensor<{dims}{element_name(declared)}>", shape.without_layout())


def agrees(declared: Shape, actual: Shape) -> bool:
    """Whether a static ``actual`` shape refines ``declared`` (``?`` matches any size)."""
    if not (declared.is_array and actual.is_array):
        return declared.without_layout() == actual.without_layout()
    if declared.element_type != actual.element_type or declared.rank != actual.rank:
        return False
    return all(
        d == a or unknown
        for d, a, unknown in zip(
            declared.dimensions, actual.dimensions, declared.dynamic_dimensions, strict=True
        )
    )


# -- the refining lowering ---------------------------------------------------------------------


class RefiningCtx(Ctx):
    """A block's lowering context that writes the inferred static types into the ops.

    The ops belong to the refinement's private copy of the module, so updating
    them in place is what builds the refined module.
    """

    program: RefiningProgram

    def bind(self, name: str, value: XlaOp) -> None:
        super().bind(name, value)
        self.program.record(self.function, name, value.shape)

    def result_shape(self, op: ast.Operation, index: int = 0) -> Shape:
        """The declared result shape, unknown sizes and all: lowerings that read only
        its element type (conversions, ``dynamic_iota``) work; a lowering that needs
        the unknown sizes is refused by the builder, which ``lower_op`` reports."""
        t = op.result_types[index] if index < len(op.result_types) else None
        if t is not None and is_unknown(t):
            return t.shape
        return super().result_shape(op, index)

    def check_result(self, op: ast.Operation, index: int, value: XlaOp) -> None:
        t = op.result_types[index]
        if not is_unknown(t):
            super().check_result(op, index, value)
            return
        if not agrees(t.shape, value.shape):
            raise invalid(
                op, f"result {index} is declared {t.text} but its operands give {value.shape}"
            )
        op.result_types[index] = static_type(t, value.shape)
        self.program.record(self.function, op.results[index], value.shape)

    def lower_op(self, op: ast.Operation) -> None:
        op.operand_types = [
            static_type(t, self.value(name, op).shape) if is_unknown(t) else t
            for name, t in zip(op.operands, op.operand_types, strict=True)
        ]
        if op.name in CALL_OPS:
            self.program.specialize_call(self, op)
        elif _is_shape_assertion(op):
            self.program.check_assertion(self, op)
            return
        elif op.name in CUSTOM_CALL_OPS:
            rewrite = REWRITES.get(string_attr(op, "call_target_name", ""))
            if rewrite is not None:
                rewrite(self, op, self.program.function)
        unknown = [i for i, t in enumerate(op.result_types) if is_unknown(t)]
        try:
            super().lower_op(op)
        except (InvalidArgumentError, UnimplementedError) as error:
            location = getattr(error, "stablehlo_location", None)
            if not unknown or op.name in CALL_OPS or location not in (None, (op.name, op.line)):
                raise
            raise unsupported(
                op,
                f"its result {unknown[0]} has type {op.result_types[unknown[0]].text}, whose "
                f"unknown sizes its operands do not determine ({error})",
            ) from error

    def known_value(self, name: str) -> np.ndarray | None:
        """As the lowering's, and also through calls: a call's result is known when the
        specialized callee returns a known value there."""
        definition = self.definition(name)
        if definition is not None and definition[0].name in CALL_OPS:
            op, index = definition
            returned = self.program.returned.get(symbol(op.attributes.get("callee")))
            return returned[index] if returned is not None and index < len(returned) else None
        return super().known_value(name)

    def lower_block(self, block: ast.Block) -> list[XlaOp]:
        results = super().lower_block(block)
        if self.parent is None:  # a function's body: remember the shape values it returns
            returns = [op for op in block.operations if op.name in RETURN_OPS]
            if returns:
                self.program.returned[self.function] = [
                    self.known_value(name) if _shape_like(self.value(name).shape) else None
                    for name in returns[0].operands
                ]
        return results


def _shape_like(shape: Shape) -> bool:
    """A small integer (or boolean) array: the kind of value that holds dimension sizes."""
    return (
        shape.is_array
        and (shape.element_type.is_integral or shape.element_type == PrimitiveType.PRED)
        and shape.rank <= 1
        and shape.element_count() <= MAX_SHAPE_VALUE_ELEMENTS
    )


def _scalar_integer(shape: Shape) -> bool:
    """A 0-d integer or boolean: a dimension size, or a predicate on sizes."""
    return (
        shape.is_array
        and shape.rank == 0
        and (shape.element_type.is_integral or shape.element_type == PrimitiveType.PRED)
    )


def _is_shape_assertion(op: ast.Operation) -> bool:
    return op.name in CUSTOM_CALL_OPS and string_attr(op, "call_target_name", "") == SHAPE_ASSERTION


class RefiningProgram(ProgramLowering):
    """Refines a private copy of a module, function by function, as it lowers them."""

    context = RefiningCtx

    def __init__(self, module: ast.Module, source_file: str = "") -> None:
        self.original = module
        module = copy.deepcopy(module)
        super().__init__(module, source_file)
        # (function, SSA name) -> the static shape the value got.
        self.shapes: dict[tuple[str, str], Shape] = {}
        # (callee, operand types, constant arguments) -> the specialized copy's name.
        self.specializations: dict[tuple[Any, ...], str] = {}
        self.assertions: set[int] = set()  # ids of the shape_assertion ops that held
        # function -> the known values it returns (None where not known).
        self.returned: dict[str, list[np.ndarray | None]] = {}

    def record(self, function: str, name: str, shape: Shape) -> None:
        self.shapes[(function, name)] = shape

    def check_function_result(self, function: ast.Function, index: int, value: XlaOp) -> None:
        t = function.result_types[index]
        if not is_unknown(t):
            super().check_function_result(function, index, value)
            return
        if not agrees(t.shape, value.shape):
            raise InvalidArgumentError(
                f"@{function.name} at line {function.line}: result {index} is declared "
                f"{t.text} but the function returns {value.shape}"
            )
        function.result_types[index] = static_type(t, value.shape)

    # -- calls ---------------------------------------------------------------------------
    def specialize_call(self, ctx: RefiningCtx, op: ast.Operation) -> None:
        """Point ``op`` at a copy of its callee refined to its operand types, with the
        callee's ``jax.global_constant`` arguments replaced by their folded values."""
        try:
            name = symbol(op.attributes.get("callee"))
        except TypeError:
            return  # the call lowering reports the malformed callee
        callee = self.original.function(name)  # as written: a specialization may rename it
        if len(callee.arguments) != len(op.operands):
            raise invalid(
                op, f"@{name} takes {len(callee.arguments)} arguments, got {len(op.operands)}"
            )
        constants: dict[int, np.ndarray] = {}
        attributes_of = callee.argument_attributes or [{}] * len(callee.arguments)
        for i, attributes in enumerate(attributes_of):
            marked = bool((attributes or {}).get(GLOBAL_CONSTANT))
            shape = op.operand_types[i].shape
            if not marked and not (shape is not None and _scalar_integer(shape)):
                continue
            value = ctx.known_value(op.operands[i])
            if value is not None:
                constants[i] = np.asarray(value)
            elif marked:
                raise unsupported(
                    op,
                    f"argument {i} of @{name} is a {GLOBAL_CONSTANT} "
                    f"({attributes[GLOBAL_CONSTANT]!r}) whose value {op.operands[i]} is "
                    "computed at run time; refinement needs it to fold to a constant",
                )
        key = (
            name,
            tuple(t.text for t in op.operand_types),
            tuple((i, v.dtype.str, v.tobytes()) for i, v in sorted(constants.items())),
        )
        specialized = self.specializations.get(key)
        if specialized is None:
            number = sum(k[0] == name for k in self.specializations)
            specialized = self._specialized_copy(callee, op, constants, number)
            self.specializations[key] = specialized
        op.attributes["callee"] = ast.SymbolRef(specialized)
        keep = [i for i in range(len(op.operands)) if i not in constants]
        op.operands = [op.operands[i] for i in keep]
        op.operand_types = [op.operand_types[i] for i in keep]

    def _specialized_copy(
        self, callee: ast.Function, op: ast.Operation, constants: dict[int, np.ndarray],
        number: int,
    ) -> str:  # fmt: skip
        """A copy of ``callee`` as written, with ``op``'s operand types as its argument
        types and its constant arguments as constants; its name (the callee's own for the
        first copy, which replaces it)."""
        function = copy.deepcopy(self.original.function(callee.name))
        while number and function.name in self.function_names:
            function.name = f"{callee.name}_refined_{number}"
            number += 1
        prologue, arguments, attributes = [], [], []
        argument_attributes = function.argument_attributes or [{}] * len(function.arguments)
        for i, ((arg, t), attrs) in enumerate(
            zip(function.arguments, argument_attributes, strict=True)
        ):
            refined = op.operand_types[i]
            if refined.shape is None or t.shape is None or not agrees(t.shape, refined.shape):
                raise invalid(
                    op, f"operand {i} has type {refined.text}; @{callee.name} takes {t.text}"
                )
            if i in constants:
                prologue.append(_constant_op(arg, refined, constants[i], function.line))
                continue
            arguments.append((arg, refined))
            attributes.append(attrs)
        function.arguments = arguments
        function.argument_attributes = attributes
        if function.body.blocks:
            function.body.blocks[0].operations[:0] = prologue
            function.body.blocks[0].arguments = list(arguments)
        self.add_function(function)
        return function.name

    # -- shape assertions ------------------------------------------------------------------
    def check_assertion(self, ctx: RefiningCtx, op: ast.Operation) -> None:
        """Evaluate a ``shape_assertion``: fail with its message, or drop it."""
        if not op.operands:
            raise invalid(op, "a shape_assertion needs its predicate as operand 0")
        values = [ctx.known_value(name) for name in op.operands]
        unknown = [name for name, v in zip(op.operands, values, strict=True) if v is None]
        if unknown:
            raise unsupported(
                op,
                f"the shape_assertion's operands {', '.join(unknown)} are computed at run "
                "time; refinement needs them to fold to constants",
            )
        if not bool(np.asarray(values[0]).all()):
            message = str(op.attributes.get("error_message", "shape assertion failed"))
            inputs = [np.asarray(v).item() if np.asarray(v).size == 1 else v for v in values[1:]]
            try:
                text = message.format(*inputs)
            except (IndexError, KeyError, ValueError):
                text = message
            error = InvalidArgumentError(text)
            error.stablehlo_location = (op.name, op.line)  # type: ignore[attr-defined]
            raise error
        self.assertions.add(id(op))


def _constant_op(name: str, t: ast.MlirType, value: np.ndarray, line: int) -> ast.Operation:
    """``name = stablehlo.constant dense<value> : t`` (a global constant made constant)."""
    element_type = t.shape.element_type
    array = np.asarray(value).astype(element_type.dtype).reshape(t.shape.dimensions)
    return ast.Operation(
        name="stablehlo.constant",
        operands=[],
        operand_types=[],
        results=[name],
        result_types=[t],
        attributes={"value": ast.DenseElements(Literal.from_value(array, element_type))},
        line=line,
    )


# -- the refined module ----------------------------------------------------------------------


def _finish_region(program: RefiningProgram, function: str, region: ast.Region) -> None:
    """Block arguments take their recorded static types; held assertions go."""
    for block in region.blocks:
        block.arguments = [
            (name, static_type(t, program.shapes[(function, name)]))
            if is_unknown(t) and (function, name) in program.shapes
            else (name, t)
            for name, t in block.arguments
        ]
        block.operations = [op for op in block.operations if id(op) not in program.assertions]
        for op in block.operations:
            # Terminators are not lowered as ops: their operands take the values' types.
            op.operand_types = [
                static_type(t, program.shapes[(function, name)])
                if is_unknown(t) and (function, name) in program.shapes
                else t
                for name, t in zip(op.operands, op.operand_types, strict=True)
            ]
            for inner in op.regions:
                _finish_region(program, function, inner)


def refine_module(
    module: ast.Module,
    argument_shapes: Sequence[Shape],
    function: str | None = None,
    source_file: str = "",
) -> ast.Module:
    """A static copy of ``module`` for a call of ``function`` (default: the entry) with
    arguments of ``argument_shapes`` (see the module docstring). ``module`` is not changed."""
    name = entry_function_name(module) if function is None else function.lstrip("@")
    program = RefiningProgram(module, source_file)
    entry = program.function(name)
    _refine_arguments(entry, argument_shapes)
    program.entry_module(name)  # lowering it refines every op it reaches
    for refined in program.module.functions:
        if refined.name == name or refined.name in program.specializations.values():
            _finish_region(program, refined.name, refined.body)
    return program.module


def _refine_arguments(function: ast.Function, shapes: Sequence[Shape]) -> None:
    """Give ``function``'s arguments the concrete ``shapes`` (StableHLO's refine-arguments)."""
    declared = [t for _, t in function.arguments]
    if len(shapes) != len(declared):
        signature = ", ".join(t.text for t in declared)
        raise InvalidArgumentError(
            f"@{function.name} takes {len(declared)} arguments ({signature}), got {len(shapes)}"
        )
    refined = []
    for i, ((name, t), shape) in enumerate(zip(function.arguments, shapes, strict=True)):
        if t.shape is None or not shape.is_static or not agrees(t.shape, shape):
            raise InvalidArgumentError(
                f"argument {i} ({name}) of @{function.name}: expected {t.text}, got {shape}"
            )
        refined.append((name, static_type(t, shape) if is_unknown(t) else t))
    function.arguments = refined
    if function.body.blocks:  # (a declaration without a body is reported by the lowering)
        function.body.blocks[0].arguments = list(refined)


__all__ = [
    "agrees",
    "function_is_polymorphic",
    "is_unknown",
    "module_is_polymorphic",
    "needs_refinement",
    "refine_module",
    "static_type",
]
