"""Lowering a parsed StableHLO module (``stablehlo.ast``) to an ``HloModule``.

Every op goes through the builder (``xlapy.ops``), so shape inference checks
the program as it is imported, exactly as it checks programs written with the
builder, and an imported module is verified HLO by construction. The MLIR
types declared on each op are then compared with what the builder inferred:
a mismatch means the program (or a lowering) is wrong, and it is reported at
the op's line rather than discovered later as a wrong answer.

The lowering is table-driven (:data:`LOWERINGS`, op name -> function); the
sibling modules of this package fill the table, one op family each, when the
package imports them (they import this module; it imports none of them). A
lowering function takes the :class:`Ctx` of the block being lowered and the
op, and returns one ``XlaOp`` per MLIR result.

Values known at import time (shape operands of the dynamic-shape ops,
constants a region captures) are computed by the HLO evaluator on the HLO the
defining op lowers to, so they are exactly what the program computes.

Regions become HLO computations through sub-builders. StableHLO regions may
use values defined outside them; HLO computations may not. Constants (and
values that fold to constants) are re-created inside the computation, as
XLA's exporter sinks them; ``while``, ``if`` and ``case`` pass any other
captured value explicitly (as extra loop state or branch operands). Ops
whose computation signature is fixed (reducers, comparators) cannot, and say so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from ... import ops
from ...builder import XlaBuilder, XlaComputation, XlaOp
from ...errors import InvalidArgumentError, NotFoundError, UnimplementedError, XlaError
from ...evaluator import evaluate_computation
from ...hlo.module import HloModule
from ...literal import Literal
from ...shape import Shape
from ...xla_data import OpMetadata
from .. import ast
from .errors import invalid, located, unsupported, where

Lowering = Callable[["Ctx", ast.Operation], list[XlaOp]]

LOWERINGS: dict[str, Lowering] = {}

RETURN_OPS = frozenset({"func.return", "return", "stablehlo.return", "mhlo.return", "sdy.return"})

# Hooks that read attributes every op or function may carry (shardings): filled by the
# modules that know them (``control_sharding``), called after an op or a function is lowered.
# An op's: (ctx, op, its results, the instructions its lowering made).
RESULT_ANNOTATORS: list[Callable[[Ctx, ast.Operation, list[XlaOp], list[Any]], None]] = []
# A function's: (ctx, function, its parameters, its results) -> the results to return.
FUNCTION_ANNOTATORS: list[Callable[[Ctx, ast.Function, list[XlaOp], list[XlaOp]], list[XlaOp]]] = []


def lowering(*names: str) -> Callable[[Lowering], Lowering]:
    """Register ``fn`` as the lowering of the ops ``names``."""

    def register(fn: Lowering) -> Lowering:
        for name in names:
            LOWERINGS[name] = fn
        return fn

    return register


# -- types ---------------------------------------------------------------------------------------


def shape_of_type(t: ast.MlirType, op: ast.Operation | None = None, what: str = "") -> Shape:
    """The HLO shape of an MLIR type, or an UnimplementedError naming the type."""
    shape = t.shape
    if shape is None:
        kind = "quantized type" if "quant." in t.text else "type"
        message = f"the {kind} {t.text}{' of ' + what if what else ''} has no HLO equivalent"
        if op is None:
            raise UnimplementedError(f"{message} is not supported yet")
        raise unsupported(op, message)
    if _is_unbounded(shape):
        message = (
            f"the dynamic type {t.text} has no bound; HLO dynamic shapes are bounded-only "
            "(give the dimensions a #stablehlo.bounds or make them static)"
        )
        if op is None:
            raise UnimplementedError(message)
        raise unsupported(op, message)
    return shape


def _is_unbounded(shape: Shape) -> bool:
    if shape.is_tuple:
        return any(_is_unbounded(s) for s in shape.tuple_shapes)
    return shape.is_array and shape.is_unbounded_dynamic


def _same_shape(actual: Shape, declared: Shape) -> bool:
    return actual.without_layout() == declared.without_layout()


# -- values known while importing ------------------------------------------------------------------

# Ops whose result constant operands determine at import time (shape operands of the
# dynamic-shape ops, constants a region captures).
_FOLDABLE = frozenset(
    {
        "stablehlo.constant",
        "stablehlo.convert",
        "stablehlo.reshape",
        "stablehlo.broadcast_in_dim",
        "stablehlo.concatenate",
        "stablehlo.slice",
        "stablehlo.get_dimension_size",
        "stablehlo.add",
        "stablehlo.subtract",
        "stablehlo.multiply",
        "stablehlo.negate",
        "stablehlo.maximum",
        "stablehlo.minimum",
        # The rest of what jax.export's dimension arithmetic uses (floor division,
        # modulo, max with 0, the predicates of shape_assertion).
        "stablehlo.divide",
        "stablehlo.remainder",
        "stablehlo.abs",
        "stablehlo.sign",
        "stablehlo.clamp",
        "stablehlo.compare",
        "stablehlo.select",
        "stablehlo.and",
        "stablehlo.or",
        "stablehlo.not",
    }
)
# Of those, the ones folded on integers only: float rounding is left to the backend.
_INTEGER_ONLY = frozenset(
    {
        "stablehlo.add",
        "stablehlo.subtract",
        "stablehlo.multiply",
        "stablehlo.negate",
        "stablehlo.maximum",
        "stablehlo.minimum",
        "stablehlo.divide",
        "stablehlo.remainder",
        "stablehlo.abs",
        "stablehlo.sign",
        "stablehlo.clamp",
    }
)


def _fold(ctx: Ctx, op: ast.Operation, index: int) -> np.ndarray | None:
    """The value of result ``index`` of ``op`` when its operands are known, else None."""
    if op.name == "stablehlo.constant":
        value = op.attributes.get("value")
        return value.literal.to_numpy() if isinstance(value, ast.DenseElements) else None
    declared = op.result_types[index].shape if index < len(op.result_types) else None
    if declared is None or not declared.is_array or not declared.is_static:
        return None
    if op.name == "stablehlo.get_dimension_size":
        # A static dimension is in the operand's type: its value need not be known.
        operand = op.operand_types[0].shape
        if operand is None or not operand.is_static:
            return None
        dim = int(op.attributes.get("dimension", 0))
        return np.asarray(operand.dimensions[dim], declared.element_type.dtype)
    if op.name in _INTEGER_ONLY and (
        declared.element_type.is_float or declared.element_type.is_complex
    ):
        return None
    operands = [ctx.known_literal(name) for name in op.operands]
    if any(literal is None for literal in operands):
        return None
    return _evaluate(ctx, op, index, operands)


def _evaluate(
    ctx: Ctx, op: ast.Operation, index: int, operands: list[Literal | None]
) -> np.ndarray | None:
    """Result ``index`` of ``op`` on constant ``operands``, by the HLO evaluator.

    The op is lowered again, onto constants in a scratch builder, and the HLO
    it becomes is evaluated: a value known at import time is exactly the value
    the program computes when run (conversions saturate, integers wrap).
    """
    builder = XlaBuilder("fold")
    builder.set_die_immediately_on_error(True)
    scratch = Ctx(ctx.program, builder, ctx.function)
    for name, literal in zip(op.operands, operands, strict=True):
        scratch.bind(name, ops.ConstantLiteral(builder, literal))
    try:
        results = LOWERINGS[op.name](scratch, op)
        computation = builder.build(results[index]).hlo_module.entry
        with np.errstate(all="ignore"):
            return evaluate_computation(computation, []).to_numpy()
    except XlaError:
        return None


# -- regions -----------------------------------------------------------------------------------


def _walk_region(region: ast.Region) -> Iterator[ast.Operation]:
    for block in region.blocks:
        for op in block.operations:
            yield op
            for inner in op.regions:
                yield from _walk_region(inner)


def free_values(regions: Sequence[ast.Region]) -> list[str]:
    """Values the regions use but do not define, in order of first use."""
    defined: set[str] = set()
    for region in regions:
        for block in region.blocks:
            defined.update(name for name, _ in block.arguments)
        for op in _walk_region(region):
            defined.update(op.results)
            for inner in op.regions:
                for block in inner.blocks:
                    defined.update(name for name, _ in block.arguments)
    free: dict[str, None] = {}
    for region in regions:
        for op in _walk_region(region):
            for name in op.operands:
                if name not in defined:
                    free.setdefault(name)
    return list(free)


def results_of(ctx: Ctx, value: XlaOp, op: ast.Operation) -> list[XlaOp]:
    """An HLO value standing for the op's results: itself for one, its elements otherwise."""
    count = len(op.results)
    if count == 1:
        return [value]
    return ctx.unpack(value, count)


def region(op: ast.Operation, index: int = 0) -> ast.Region:
    """The op's region ``index``, or the error saying the op lacks it."""
    if len(op.regions) <= index:
        raise invalid(op, f"needs {index + 1} region(s), got {len(op.regions)}")
    return op.regions[index]


def single_block(region: ast.Region, op: ast.Operation, role: str) -> ast.Block:
    if len(region.blocks) != 1:
        raise invalid(
            op, f"the {role} region must have exactly one block, got {len(region.blocks)}"
        )
    return region.blocks[0]


# -- the lowering context ----------------------------------------------------------------------


class Ctx:
    """What lowering one block needs: its builder and the values visible in it.

    A region gets a child context over a sub-builder; ``parent`` links it to
    the context the region appears in, where the values it captures live.
    """

    def __init__(
        self, program: ProgramLowering, builder: XlaBuilder, function: str,
        parent: Ctx | None = None,
    ) -> None:  # fmt: skip
        self.program = program
        self.builder = builder
        self.function = function
        self.parent = parent
        self.values: dict[str, XlaOp] = {}
        self.definitions: dict[str, tuple[ast.Operation, int]] = {}
        self._known: dict[str, np.ndarray | None] = {}

    # -- values ----------------------------------------------------------------------------
    def value(self, name: str, op: ast.Operation | None = None) -> XlaOp:
        found = self.values.get(name)
        if found is not None:
            return found
        context = f"{where(op)}: " if op is not None else ""
        scope = self.parent
        while scope is not None:
            if name in scope.values:
                raise UnimplementedError(
                    f"{context}{name} is defined outside the region that uses it, and this "
                    "region cannot capture values (only constants)"
                )
            scope = scope.parent
        raise InvalidArgumentError(f"{context}{name} is used but never defined")

    def operands(self, op: ast.Operation) -> list[XlaOp]:
        return [self.value(name, op) for name in op.operands]

    def bind(self, name: str, value: XlaOp) -> None:
        self.values[name] = value

    def definition(self, name: str) -> tuple[ast.Operation, int] | None:
        """The op defining ``name`` in the nearest scope that binds it (None for arguments)."""
        scope: Ctx | None = self
        while scope is not None:
            if name in scope.definitions:
                return scope.definitions[name]
            if name in scope.values:  # a block argument or parameter, shadowing outer names
                return None
            scope = scope.parent
        return None

    def known_value(self, name: str) -> np.ndarray | None:
        """The value of ``name`` if it is a constant or folds to one, else None."""
        if name in self._known:
            return self._known[name]
        definition = self.definition(name)
        value = None
        if definition is not None and definition[0].name in _FOLDABLE:
            value = _fold(self, *definition)
        self._known[name] = value
        return value

    def known_ints(self, name: str, op: ast.Operation, what: str) -> tuple[int, ...]:
        """A shape-like operand that must be known at import time (dynamic-shape ops)."""
        value = self.known_value(name)
        if value is None:
            raise unsupported(
                op,
                f"its {what} operand {name} is computed at run time; HLO shapes are static "
                "(dynamic shapes are bounded-only), so it must be a constant",
            )
        return tuple(int(v) for v in np.asarray(value).reshape(-1))

    def known_literal(self, name: str) -> Literal | None:
        value = self.known_value(name)
        if value is None:
            return None
        definition = self.definition(name)
        assert definition is not None
        op, index = definition
        if op.name == "stablehlo.constant":
            return op.attributes["value"].literal
        shape = op.result_types[index].shape
        return Literal.from_value(np.asarray(value), shape.element_type)

    # -- types -------------------------------------------------------------------------------
    def result_shape(self, op: ast.Operation, index: int = 0) -> Shape:
        if index >= len(op.result_types):
            raise invalid(op, f"the op has no result {index}")
        return shape_of_type(op.result_types[index], op, f"result {index}")

    def unpack(self, value: XlaOp, count: int) -> list[XlaOp]:
        """The elements of a tuple-shaped HLO result, one per MLIR result."""
        return [ops.GetTupleElement(value, i) for i in range(count)]

    def pack(self, values: Sequence[XlaOp]) -> XlaOp:
        """One value for several (an HLO tuple), or the value itself for one."""
        return values[0] if len(values) == 1 else ops.Tuple(self.builder, list(values))

    # -- ops -----------------------------------------------------------------------------------
    def lower_block(self, block: ast.Block) -> list[XlaOp]:
        """Lower the block's ops; the values its terminator returns."""
        for op in block.operations:
            if op.name in RETURN_OPS:
                return self.operands(op)
            self.lower_op(op)
        return []

    def lower_op(self, op: ast.Operation) -> None:
        for what, types in (("operand", op.operand_types), ("result", op.result_types)):
            for i, t in enumerate(types):
                if t.shape is None:
                    shape_of_type(t, op, f"{what} {i}")
        fn = LOWERINGS.get(op.name)
        if fn is None:
            raise unsupported(op)
        start = len(self.builder._computation.instructions)
        try:
            results = fn(self, op)
            if len(results) != len(op.results):
                raise invalid(
                    op, f"the lowering made {len(results)} values for {len(op.results)} results"
                )
            for i, value in enumerate(results):
                self.check_result(op, i, value)
            made = self.builder._computation.instructions[start:]
            for annotate in RESULT_ANNOTATORS:
                annotate(self, op, results, made)
        except XlaError as error:
            raise located(error, op) from error
        except (ValueError, TypeError, KeyError, IndexError) as error:
            # A malformed op (operand or attribute counts) that a lowering unpacked blindly.
            raise invalid(op, f"malformed op ({type(error).__name__}: {error})") from error
        self._stamp(made, op)
        for i, (name, value) in enumerate(zip(op.results, results, strict=True)):
            self.values[name] = value
            self.definitions[name] = (op, i)

    def check_result(self, op: ast.Operation, index: int, value: XlaOp) -> None:
        """The op's declared result ``index`` must be what the builder inferred.

        Shape refinement (``stablehlo.refine``) overrides this to take the inferred
        shape where the declared one has unknown (``?``) dimensions.
        """
        t = op.result_types[index]
        declared = shape_of_type(t, op, f"result {index}")
        actual = value.shape
        if not _same_shape(actual, declared):
            raise invalid(
                op,
                f"result {index} is declared {t.text} ({declared}) but the operands give {actual}",
            )

    def _stamp(self, instructions: Sequence[Any], op: ast.Operation) -> None:
        """Metadata pointing at the MLIR op each instruction comes from (not at xlapy)."""
        metadata = OpMetadata(
            op_type=op.name,
            op_name=f"{self.function}/{op.results[0].lstrip('%')}" if op.results else self.function,
            source_file=self.program.source_file,
            source_line=max(int(op.line), 0),
        )
        for instruction in instructions:
            if instruction.has_attribute("metadata"):
                instruction.set_attribute("metadata", metadata)

    # -- regions -------------------------------------------------------------------------------
    def child(self, role: str) -> Ctx:
        sub = self.builder.create_sub_builder(role)
        return type(self)(self.program, sub, self.function, parent=self)

    def _capture(
        self, child: Ctx, regions: Sequence[ast.Region], op: ast.Operation, passable: bool
    ) -> list[str]:
        """Bind the constants the regions capture in ``child``; the other captured names.

        Those others must be passed in as parameters (``passable``) or are an error.
        """
        passed = []
        for name in free_values(regions):
            literal = self.known_literal(name)
            if literal is not None:
                child.bind(name, ops.ConstantLiteral(child.builder, literal))
                child.definitions[name] = self.definition(name)  # still a known constant
                continue
            self.value(name, op)  # defined at all?
            if not passable:
                raise unsupported(
                    op,
                    f"its region uses {name}, defined outside it; only constants can be "
                    "captured by this op's computations",
                )
            passed.append(name)
        return passed

    def computation(
        self, region: ast.Region, op: ast.Operation, role: str,
        pack_results: bool = True,
    ) -> XlaComputation:  # fmt: skip
        """A region with a fixed signature (a reducer, a comparator) as a computation.

        Its block arguments are the parameters, in order, with their declared
        types (0-d tensors: scalars); it may capture constants only.
        """
        block = single_block(region, op, role)
        child = self.child(role)
        self._capture(child, [region], op, passable=False)
        for i, (name, t) in enumerate(block.arguments):
            shape = shape_of_type(t, op, f"argument {name} of the {role}")
            child.bind(name, ops.Parameter(child.builder, i, shape, _param_name(name, i)))
        results = child.lower_block(block)
        if not results:
            raise invalid(op, f"the {role} region returns nothing")
        root = child.pack(results) if pack_results else results[0]
        return child.builder.build(root)

    def capturing_computation(
        self,
        regions: Sequence[ast.Region],
        op: ast.Operation,
        role: str,
        state: Sequence[Shape],
        arguments: Sequence[str] | None,
        captured: Sequence[str],
        results: Callable[[Ctx, list[XlaOp], list[XlaOp]], XlaOp],
        region_index: int = 0,
    ) -> XlaComputation:
        """A region of while/if/case: one parameter (a tuple unless it is one array).

        The parameter holds ``state`` (bound to the block's arguments, or to
        ``arguments`` names) followed by the ``captured`` values; ``results``
        makes the root from the block's results and the parameter elements.
        """
        region = regions[region_index]
        block = single_block(region, op, role)
        child = self.child(role)
        self._capture(child, [region], op, passable=True)
        shapes = [*state, *(self.value(name, op).shape for name in captured)]
        tupled = len(shapes) != 1
        param_shape = Shape.tuple(shapes) if tupled else shapes[0]
        param = ops.Parameter(child.builder, 0, param_shape, f"{role}_state")
        elements = (
            [ops.GetTupleElement(param, i) for i in range(len(shapes))] if tupled else [param]
        )
        names = [name for name, _ in block.arguments] if arguments is None else list(arguments)
        if len(names) != len(state):
            raise invalid(
                op, f"the {role} region takes {len(names)} arguments for {len(state)} values"
            )
        for name, value in zip([*names, *captured], elements, strict=True):
            child.bind(name, value)
        returned = child.lower_block(block)
        root = results(child, returned, elements)
        return child.builder.build(root)


def _param_name(name: str, index: int) -> str:
    text = re.sub(r"[^A-Za-z0-9_.-]", "_", name.lstrip("%"))
    return text if text[:1].isalpha() else f"arg{index}"


# -- functions and modules --------------------------------------------------------------------


class ProgramLowering:
    """Lowers the functions of one module; each callee once, as an HLO computation.

    ``context`` is the class of the blocks' contexts, and ``check_function_result``
    compares a function's declared results with what it returns: shape refinement
    (``stablehlo.refine``) replaces both.
    """

    context: type[Ctx] = Ctx

    def __init__(self, module: ast.Module, source_file: str = "") -> None:
        self.module = module
        self.source_file = source_file
        self._functions = {f.name: f for f in module.functions}
        self._computations: dict[str, XlaComputation] = {}
        self._active: list[str] = []

    def function(self, name: str) -> ast.Function:
        function = self._functions.get(name)
        if function is None:
            known = ", ".join(f"@{n}" for n in self._functions) or "none"
            raise NotFoundError(f"the module has no function @{name} (functions: {known})")
        return function

    @property
    def function_names(self) -> set[str]:
        return set(self._functions)

    def add_function(self, function: ast.Function) -> None:
        """Make ``function`` callable by name (a specialized copy, say), replacing any
        function of that name."""
        self._functions[function.name] = function
        self._computations.pop(function.name, None)
        names = [f.name for f in self.module.functions]
        if function.name in names:
            self.module.functions[names.index(function.name)] = function
        else:
            self.module.functions.append(function)

    def callee(self, name: str, op: ast.Operation) -> XlaComputation:
        """The computation of function ``name`` (built on first use)."""
        if name in self._computations:
            return self._computations[name]
        if name in self._active:
            cycle = " -> ".join(f"@{n}" for n in [*self._active, name])
            raise invalid(op, f"recursive calls cannot be lowered to HLO ({cycle})")
        function = self.function(name)
        computation = self._lower_function(function, XlaBuilder(name))
        self._computations[name] = computation
        return computation

    def _lower_function(self, function: ast.Function, builder: XlaBuilder) -> XlaComputation:
        builder.set_die_immediately_on_error(True)
        self._active.append(function.name)
        try:
            ctx = self.context(self, builder, function.name)
            params = []
            for i, (name, t) in enumerate(function.arguments):
                shape = _function_type_shape(t, function, f"argument {name}")
                params.append(ops.Parameter(builder, i, shape, _param_name(name, i)))
                ctx.bind(name, params[-1])
            if len(function.body.blocks) != 1:
                raise UnimplementedError(
                    f"@{function.name} at line {function.line}: functions with "
                    f"{len(function.body.blocks)} blocks are not supported yet (one block only)"
                )
            results = ctx.lower_block(function.body.blocks[0])
            if len(results) != len(function.result_types):
                raise InvalidArgumentError(
                    f"@{function.name} at line {function.line}: returns {len(results)} values "
                    f"but its type declares {len(function.result_types)} results"
                )
            for i, value in enumerate(results):
                self.check_function_result(function, i, value)
            for annotate in FUNCTION_ANNOTATORS:
                results = annotate(ctx, function, params, results)
            root = ctx.pack(results) if results else ops.Tuple(builder, [])
            return builder.build(root)
        finally:
            self._active.pop()

    def check_function_result(self, function: ast.Function, index: int, value: XlaOp) -> None:
        """The function's declared result ``index`` must be the shape it returns."""
        t = function.result_types[index]
        declared = _function_type_shape(t, function, f"result {index}")
        if not _same_shape(value.shape, declared):
            raise InvalidArgumentError(
                f"@{function.name} at line {function.line}: result {index} is declared "
                f"{t.text} but the function returns {value.shape}"
            )

    def entry_module(self, name: str) -> HloModule:
        """An HloModule with function ``name`` as its entry computation."""
        function = self.function(name)
        computation = self._lower_function(function, XlaBuilder(name))
        module = computation.hlo_module
        module.name = _module_name(self.module.name or name)
        module.replica_count = int(self.module.attributes.get("mhlo.num_replicas", 1) or 1)
        module.num_partitions = int(self.module.attributes.get("mhlo.num_partitions", 1) or 1)
        return module


def _function_type_shape(t: ast.MlirType, function: ast.Function, what: str) -> Shape:
    try:
        return shape_of_type(t)
    except UnimplementedError as e:
        raise UnimplementedError(f"@{function.name} at line {function.line}, {what}: {e}") from None


def _module_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "module"


def entry_function_name(module: ast.Module) -> str:
    """``main``, else the one public function."""
    names = [f.name for f in module.functions]
    if "main" in names:
        return "main"
    public = [f.name for f in module.functions if f.visibility != "private"]
    if len(public) == 1:
        return public[0]
    if not names:
        raise InvalidArgumentError("the module has no functions")
    raise InvalidArgumentError(
        f"the module has no @main and {len(public)} public functions "
        f"({', '.join('@' + n for n in public)}); use parse_program(text).hlo_module(name)"
    )


def lower_module(
    module: ast.Module, function: str | None = None, source_file: str = ""
) -> HloModule:
    """The HloModule with ``function`` (default: the entry function) as entry."""
    name = function if function is not None else entry_function_name(module)
    return ProgramLowering(module, source_file).entry_module(name)


__all__ = [
    "FUNCTION_ANNOTATORS",
    "LOWERINGS",
    "RESULT_ANNOTATORS",
    "Ctx",
    "ProgramLowering",
    "entry_function_name",
    "free_values",
    "lower_module",
    "lowering",
    "region",
    "results_of",
    "shape_of_type",
    "single_block",
]
