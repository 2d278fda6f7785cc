"""``XlaBuilder``, ``XlaOp`` and ``XlaComputation``: how users write XLA programs.

A builder appends HLO instructions to the computation it is building; every op
goes through :meth:`XlaBuilder.add_instruction`, which asks shape inference
for the result shape, so a mistake is caught at the call that made it, never
at run time. As in XLA, a builder remembers its *first* error and ``build()``
raises it with the file:line of the offending call; in die-immediately mode
the call itself raises.

Computations passed to ops (reducers, comparators, loop bodies, branches) may
be ``XlaComputation`` objects or Python callables, which are traced with a
sub-builder over parameters of the shapes the op needs.
"""

from __future__ import annotations

import functools
import inspect
import itertools
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from .errors import InvalidArgumentError, XlaError
from .hlo.computation import HloComputation
from .hlo.instruction import HloInstruction
from .hlo.module import HloModule
from .hlo.parser import parse_module
from .layout import Layout
from .literal import Literal
from .opcode import HloOpcode
from .shape import ProgramShape, Shape
from .shape_inference import infer_shape
from .types import PrimitiveType
from .xla_data import OpMetadata

_HLO_NAME_INVALID = re.compile(r"[^A-Za-z0-9_.\-]")
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_unique_ids = itertools.count(1)


# Modules of the package that are user programs themselves, not library internals.
_USER_PROGRAMS = frozenset({os.path.join(_PACKAGE_DIR, "demo.py")})


@functools.lru_cache(maxsize=4096)
def _normalized(filename: str) -> str:
    return os.path.normpath(filename)


def _caller_location() -> tuple[str, int]:
    """The first stack frame outside xlapy's library code: where the user called the op."""
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        # abspath of an absolute name is its normpath, the same every time: cached, since
        # every op of every expansion walks the stack (relative names depend on the cwd).
        path = _normalized(name) if os.path.isabs(name) else os.path.abspath(name)
        if not path.startswith(_PACKAGE_DIR + os.sep) or path in _USER_PROGRAMS:
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back
    return "<unknown>", 0


class XlaComputation:
    """A built computation: an ``HloModule`` whose entry is the program."""

    def __init__(self, module: HloModule) -> None:
        self._module = module

    @property
    def hlo_module(self) -> HloModule:
        return self._module

    @property
    def name(self) -> str:
        return self._module.entry.name

    @property
    def program_shape(self) -> ProgramShape:
        ps = self._module.entry.program_shape
        return ProgramShape(ps.parameters, ps.result, ps.parameter_names)

    def to_hlo_text(self, verbose: bool = False) -> str:
        return self._module.to_text(verbose=verbose)

    def as_hlo_text(self) -> str:  # the name XLA's Python client uses
        return self.to_hlo_text()

    @staticmethod
    def from_hlo_text(text: str) -> XlaComputation:
        return XlaComputation(parse_module(text))

    def __repr__(self) -> str:
        return f"<XlaComputation {self.name}: {self.program_shape}>"


def module_of(program: Any, caller: str) -> HloModule:
    """The ``HloModule`` of what a compile was handed (an ``XlaComputation`` or a module);
    ``caller`` names the call in the error for anything else."""
    if isinstance(program, XlaComputation):
        return program.hlo_module
    if isinstance(program, HloModule):
        return program
    raise InvalidArgumentError(
        f"{caller}: expected an XlaComputation or an HloModule, got {type(program).__name__}"
    )


class XlaOp:
    """A value being built: an instruction of an ``XlaBuilder``.

    Python operators build the matching ops (``a + b`` is ``ops.Add(a, b)``,
    ``a @ b`` is ``ops.Dot``; :mod:`xlapy.ops.operators` defines them); Python
    numbers on either side become constants of the other operand's element type. ``==`` stays identity (use ``ops.Eq``).
    """

    __slots__ = ("builder", "instruction")

    def __init__(self, builder: XlaBuilder, instruction: HloInstruction | None) -> None:
        self.builder = builder
        self.instruction = instruction  # None for an op whose construction failed

    @property
    def shape(self) -> Shape:
        return self.builder.get_shape(self)

    def __repr__(self) -> str:
        if self.instruction is None:
            return f"<XlaOp (failed) of {self.builder.name}>"
        return f"<XlaOp {self.instruction.name}: {self.instruction.shape}>"

    __hash__ = object.__hash__

    # The arithmetic, comparison and bitwise operators are xlapy.ops functions, which
    # build on this module: xlapy.ops.operators attaches them when xlapy.ops is imported.

    def __bool__(self) -> bool:
        raise InvalidArgumentError(
            "an XlaOp has no truth value at build time; use ops.Select or ops.Conditional "
            "for data-dependent choices"
        )


class BuildFailed(Exception):
    """Raised inside op functions once the builder holds an error (never escapes)."""


class XlaBuilder:
    """Builds one computation; see the module docstring."""

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise InvalidArgumentError(f"a builder needs a non-empty name, got {name!r}")
        # HLO names are [A-Za-z_][A-Za-z0-9_.-]*; other characters would not read back.
        self.name = _HLO_NAME_INVALID.sub("_", name)
        if not self.name[0].isalpha() and self.name[0] != "_":
            self.name = "_" + self.name
        self._computation = HloComputation(name)
        self._callees: list[HloComputation] = []  # called computations, callees first
        self._embedded: dict[int, HloComputation] = {}  # id(XlaComputation) -> its entry here
        self._parameters: dict[int, XlaOp] = {}
        self._first_error: XlaError | None = None
        self._die_immediately = False
        self._parent: XlaBuilder | None = None
        self._built = False
        self._metadata: OpMetadata | None = None
        self._sharding: Any = None
        self._frontend_attributes: Any = None
        # The last token of token-less infeeds/outfeeds, which chain in program order.
        self.feed_tokens: dict[str, XlaOp] = {}
        self._channel_ids = itertools.count(1)

    # -- configuration -------------------------------------------------------------
    def set_die_immediately_on_error(self, enabled: bool = True) -> None:
        """Raise at the failing call instead of recording the error for ``build()``."""
        self._die_immediately = bool(enabled)

    def set_op_metadata(self, metadata: OpMetadata | None) -> None:
        """Metadata attached to every following op (file:line is added per call)."""
        self._metadata = metadata

    def clear_op_metadata(self) -> None:
        self._metadata = None

    def set_sharding(self, sharding: Any) -> None:
        self._sharding = sharding

    def clear_sharding(self) -> None:
        self._sharding = None

    def set_frontend_attributes(self, attributes: Any) -> None:
        self._frontend_attributes = attributes

    def create_sub_builder(self, name: str) -> XlaBuilder:
        """A builder for a computation this one will call (reducer, body, branch)."""
        child = XlaBuilder(f"{name}.{next(_unique_ids)}")
        child._parent = self
        child._die_immediately = self._die_immediately
        return child

    def next_channel_id(self) -> int:
        """A channel id not yet handed out by this builder's root builder."""
        root = self
        while root._parent is not None:
            root = root._parent
        return next(root._channel_ids)

    # -- errors -------------------------------------------------------------------------
    @property
    def first_error(self) -> XlaError | None:
        return self._first_error

    def report_error(self, error: XlaError) -> None:
        """Record ``error`` (the first one wins) or raise it in die-immediately mode.

        After ``build()`` there is no later call to report to, so it raises.
        """
        if self._die_immediately or self._built:
            raise error
        if self._first_error is None:
            self._first_error = error

    def _located(self, error: XlaError) -> XlaError:
        file, line = _caller_location()
        located = type(error)(f"{error} [at {file}:{line}]")
        located.__cause__ = error.__cause__
        return located

    # -- shapes -------------------------------------------------------------------------
    def get_shape(self, op: XlaOp) -> Shape:
        self._check_own(op, "get_shape")
        if op.instruction is None:
            raise self._first_error or InvalidArgumentError("the op was not built")
        return op.instruction.shape

    def get_program_shape(self) -> ProgramShape:
        params = sorted(self._parameters.items())
        root = self._default_root()
        return ProgramShape(
            [p.instruction.shape for _, p in params],
            root.shape,
            [p.instruction.name for _, p in params],
        )

    def _check_own(self, op: XlaOp, what: str) -> None:
        if not isinstance(op, XlaOp):
            raise InvalidArgumentError(f"{what}: expected an XlaOp, got {type(op).__name__}")
        if op.builder is not self:
            raise InvalidArgumentError(
                f"{what}: the op belongs to builder {op.builder.name!r}, not {self.name!r}; "
                "ops cannot be shared between builders"
            )

    # -- adding instructions ----------------------------------------------------------
    def add_instruction(
        self,
        opcode: HloOpcode,
        operands: Sequence[XlaOp],
        *,
        attributes: Mapping[str, Any] | None = None,
        computations: Mapping[str, HloComputation | Sequence[HloComputation]] | None = None,
        declared: Shape | None = None,
        op_name: str,
        literal: Literal | None = None,
        parameter_number: int | None = None,
        name: str | None = None,
        result_layout: Layout | Shape | None = None,
    ) -> XlaOp:
        """Infer the shape, create the instruction, attach metadata; the one way in.

        Shape inference gives default layouts; ``result_layout`` pins the
        layout of the result (a Layout for the result or every element of a
        tuple result, or a compatible Shape carrying the layouts), for ops whose
        callers constrain it (collectives with ``layout=``).
        """
        if self._built:
            raise InvalidArgumentError(
                f"{op_name}: builder {self.name!r} has already built its computation"
            )
        instructions = []
        for i, op in enumerate(operands):
            self._check_own_operand(op, op_name, i)
            if op.instruction is None:
                raise BuildFailed()
            instructions.append(op.instruction)
        attributes = dict(attributes or {})
        computations = dict(computations or {})
        program_shapes = {
            key: (
                [c.program_shape for c in value]
                if isinstance(value, (list, tuple))
                else value.program_shape
            )
            for key, value in computations.items()
        }
        shape = infer_shape(
            opcode,
            [i.shape for i in instructions],
            attributes,
            program_shapes,
            declared=declared,
            op_name=op_name,
        )
        if isinstance(result_layout, Shape):
            if not result_layout.compatible(shape):
                raise InvalidArgumentError(
                    f"{op_name}: the requested result {result_layout} is not compatible with "
                    f"the inferred {shape}"
                )
            shape = result_layout
        elif result_layout is not None:
            shape = (
                Shape.tuple(s.with_layout(result_layout) for s in shape.tuple_shapes)
                if shape.is_tuple
                else shape.with_layout(result_layout)
            )
        merged: dict[str, Any] = dict(attributes)
        for key, value in computations.items():
            merged[key] = list(value) if isinstance(value, (list, tuple)) else value
        file, line = _caller_location()
        metadata = OpMetadata(
            op_type=op_name,
            op_name=self._metadata.op_name if self._metadata else "",
            source_file=file,
            source_line=line,
        )
        merged["metadata"] = metadata
        if self._sharding is not None:
            merged["sharding"] = self._sharding
        if self._frontend_attributes is not None:
            merged["frontend_attributes"] = self._frontend_attributes
        instruction = HloInstruction(
            opcode,
            shape,
            instructions,
            name=name or f"{opcode.value}.{next(_unique_ids)}",
            attributes=merged,
            parameter_number=parameter_number,
            literal=literal,
        )
        self._computation.add_instruction(instruction)
        return XlaOp(self, instruction)

    def _check_own_operand(self, op: Any, op_name: str, index: int) -> None:
        if not isinstance(op, XlaOp):
            raise InvalidArgumentError(
                f"{op_name}: operand {index} must be an XlaOp, got {type(op).__name__}"
            )
        if op.builder is not self:
            raise InvalidArgumentError(
                f"{op_name}: operand {index} belongs to builder {op.builder.name!r}, not "
                f"{self.name!r}; ops cannot be shared between builders"
            )

    def failed_op(self) -> XlaOp:
        return XlaOp(self, None)

    # -- parameters and constants ---------------------------------------------------------
    def add_parameter(
        self,
        parameter_number: int,
        shape: Shape | str,
        name: str = "",
        replicated_at_leaf_buffers: Sequence[bool] | None = None,
    ) -> XlaOp:
        """Input ``parameter_number`` of the computation (``ops.Parameter``)."""
        if isinstance(shape, str):
            shape = Shape.parse(shape)
        if not isinstance(shape, Shape):
            raise InvalidArgumentError(f"Parameter: shape must be a Shape, got {shape!r}")
        number = int(parameter_number)
        if number < 0:
            raise InvalidArgumentError(f"Parameter: parameter_number must be >= 0, got {number}")
        if not shape.has_layout:  # tuples get default layouts on every element too
            shape = shape.with_default_layout()
        attributes = {}
        if replicated_at_leaf_buffers is not None:
            attributes["parameter_replication"] = tuple(bool(b) for b in replicated_at_leaf_buffers)
        if number in self._parameters:
            raise InvalidArgumentError(
                f"Parameter: parameter number {number} is already used by "
                f"{self._parameters[number].instruction.name}"
            )
        op = self.add_instruction(
            HloOpcode.PARAMETER,
            [],
            attributes=attributes,
            declared=shape,
            op_name="Parameter",
            parameter_number=number,
            name=name or None,
        )
        self.register_parameter(number, op, "Parameter")
        return op

    def add_constant(self, value: Any, element_type: PrimitiveType | None = None) -> XlaOp:
        """A constant from a Literal or a Python or numpy value, in ``element_type`` when given."""
        if isinstance(value, Literal):
            literal = value
        else:
            if element_type is not None and not isinstance(value, np.ndarray):
                value = np.asarray(value, dtype=element_type.dtype)
            elif element_type is not None:
                value = value.astype(element_type.dtype)
            literal = Literal.from_value(value)
        return self.add_instruction(
            HloOpcode.CONSTANT, [], declared=literal.shape, literal=literal, op_name="Constant"
        )

    def register_parameter(self, number: int, op: XlaOp, op_name: str) -> None:
        if number in self._parameters:
            raise InvalidArgumentError(
                f"{op_name}: parameter number {number} is already used by "
                f"{self._parameters[number].instruction.name}"
            )
        self._parameters[number] = op

    # -- called computations --------------------------------------------------------------
    def computation_arg(
        self,
        computation: XlaComputation | Callable[..., Any],
        parameter_shapes: Sequence[Shape],
        op_name: str,
        role: str,
    ) -> HloComputation:
        """The ``HloComputation`` (inside this builder) for a computation argument.

        An ``XlaComputation`` is copied in (once per builder); a Python callable
        is traced with a sub-builder whose parameters have ``parameter_shapes``.
        """
        if isinstance(computation, XlaComputation):
            return self._embed(computation)
        if not callable(computation):
            raise InvalidArgumentError(
                f"{op_name}: the {role} must be an XlaComputation or a Python callable, "
                f"got {type(computation).__name__}"
            )
        return self._embed(self._trace(computation, parameter_shapes, op_name, role))

    def _trace(
        self,
        fn: Callable[..., Any],
        parameter_shapes: Sequence[Shape],
        op_name: str,
        role: str,
    ) -> XlaComputation:
        sub = self.create_sub_builder(getattr(fn, "__name__", role).strip("<>") or role)
        sub._die_immediately = True  # an error inside the trace belongs to this call
        params = [_parameter(sub, i, shape, f"p{i}") for i, shape in enumerate(parameter_shapes)]
        try:
            inspect.signature(fn).bind(*params)
        except TypeError:
            shapes = ", ".join(str(s) for s in parameter_shapes)
            raise InvalidArgumentError(
                f"{op_name}: the {role} must take {len(params)} parameters ({shapes}); "
                f"{getattr(fn, '__name__', 'the callable')}{inspect.signature(fn)} does not"
            ) from None
        except ValueError:  # no signature to check (some builtins): let the call decide
            pass
        try:
            result = fn(*params)
        except XlaError as e:
            raise type(e)(f"{op_name}: while tracing the {role}: {e}") from None
        if isinstance(result, (tuple, list)):
            result = _tuple(sub, list(result))
        elif not isinstance(result, XlaOp):
            result = _constant(sub, result) if _is_constant_like(result) else result
        if not isinstance(result, XlaOp) or result.builder is not sub:
            raise InvalidArgumentError(
                f"{op_name}: the {role} must return ops built from its parameters, "
                f"got {type(result).__name__}"
            )
        return sub.build(result)

    def _embed(self, computation: XlaComputation) -> HloComputation:
        """Copy ``computation`` (and everything it calls) into this builder, once."""
        key = id(computation)
        if key not in self._embedded:
            copy = computation.hlo_module.clone()
            entry = copy.entry
            for callee in copy.computations:
                copy.detach_computation(callee)
                self._callees.append(callee)
            self._embedded[key] = entry
        return self._embedded[key]

    # -- building -------------------------------------------------------------------------
    def _default_root(self) -> HloInstruction:
        instructions = self._computation.instructions
        if not instructions:
            raise InvalidArgumentError(f"builder {self.name!r} has no ops to build")
        return instructions[-1]

    def build(self, root: XlaOp | None = None) -> XlaComputation:
        """The computation built so far, with ``root`` (default: the last op) as its result."""
        if self._first_error is not None:
            raise self._first_error
        if self._built:
            raise InvalidArgumentError(f"builder {self.name!r} has already been built")
        if root is not None:
            self._check_own(root, "build")
            if root.instruction is None:
                raise self._first_error or InvalidArgumentError("build: the root op failed")
            root_instruction = root.instruction
        else:
            root_instruction = self._default_root()
        numbers = sorted(self._parameters)
        if numbers != list(range(len(numbers))):
            missing = sorted(set(range(max(numbers) + 1)) - set(numbers))
            raise InvalidArgumentError(
                f"build {self.name!r}: parameters are numbered {numbers}; they must be "
                f"0..{len(numbers) - 1} without gaps (missing {missing})"
            )
        self._computation.root = root_instruction
        module = HloModule(self.name)
        for callee in self._callees:
            module.add_computation(callee, append=True)
        module.add_computation(self._computation, entry=True, append=True)
        self._built = True
        return XlaComputation(module)


F = TypeVar("F", bound=Callable[..., Any])


def find_builder(args: Sequence[Any], kwargs: Mapping[str, Any]) -> XlaBuilder | None:
    """The builder of the first XlaBuilder or XlaOp among the arguments (lists searched)."""
    stack = list(args) + list(kwargs.values())
    while stack:
        value = stack.pop(0)
        if isinstance(value, XlaBuilder):
            return value
        if isinstance(value, XlaOp):
            return value.builder
        if isinstance(value, (list, tuple)):
            stack.extend(value)
    return None


def builder_op(name: str) -> Callable[[F], F]:
    """Wrap an op function with the builder's error policy (module docstring).

    An ``XlaError`` raised while building becomes the builder's first error
    (located at the user's call) and the op a failed one, or is raised at once
    in die-immediately mode; after a first error, ops return failed ops.
    """

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            builder = find_builder(args, kwargs)
            if builder is None:
                raise InvalidArgumentError(
                    f"{name}: needs an XlaOp operand or an XlaBuilder argument to build with"
                )
            if builder.first_error is not None and not builder._die_immediately:
                return builder.failed_op()
            try:
                return fn(*args, **kwargs)
            except BuildFailed:
                return builder.failed_op()
            except XlaError as error:
                builder.report_error(builder._located(error))
                return builder.failed_op()

        wrapper.op_name = name  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


# What tracing a callable builds, with the error policy of ops.Parameter, ops.Tuple
# and ops.Constant (which are these builder methods behind builder_op).
_parameter = builder_op("Parameter")(XlaBuilder.add_parameter)
_constant = builder_op("Constant")(XlaBuilder.add_constant)


@builder_op("Tuple")
def _tuple(builder: XlaBuilder, elements: Sequence[XlaOp]) -> XlaOp:
    return builder.add_instruction(HloOpcode.TUPLE, list(elements), op_name="Tuple")


def shape_of(op: XlaOp) -> Shape:
    """The op's shape; a failed op ends the op function quietly (its error is recorded)."""
    if op.instruction is None:
        raise BuildFailed()
    return op.instruction.shape


def primitive_type(value: Any, op_name: str) -> PrimitiveType:
    """An element type from a PrimitiveType, a numpy dtype or an HLO name."""
    if isinstance(value, PrimitiveType):
        return value
    if isinstance(value, str):
        return PrimitiveType.from_hlo_name(value)
    try:
        return PrimitiveType.from_dtype(value)
    except InvalidArgumentError:
        raise InvalidArgumentError(
            f"{op_name}: {value!r} is not an element type (use e.g. xlapy.F32 or np.float32)"
        ) from None


def _is_constant_like(value: Any) -> bool:
    return isinstance(value, (bool, int, float, complex, np.generic, np.ndarray, Literal))


__all__ = [
    "BuildFailed",
    "XlaBuilder",
    "XlaComputation",
    "XlaOp",
    "builder_op",
    "find_builder",
    "module_of",
    "primitive_type",
    "shape_of",
]
