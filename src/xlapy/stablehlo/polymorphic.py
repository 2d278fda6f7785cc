"""Shape-polymorphic programs: compiled once per concrete signature, at call time.

A module from ``jax.export`` with symbolic dimensions has no HLO of its own: its
entry function takes ``tensor<?x4xf32>``. ``stablehlo.parse_module`` returns a
:class:`PolymorphicModule` for it instead of an HloModule. Compiled by a client
(``client.compile(module)``, which calls ``module.compile_per_signature(client)``), it gives a
:class:`PolymorphicExecutable`: each call looks at its arguments' shapes and
element types, refines the module to them (``stablehlo.refine``), lowers and
compiles the static module the first time that signature is seen, and runs the
executable of that signature. This is how XLA runs such modules (PJRT refines
them from the argument types when it compiles them; JAX compiles once per
concrete shape).

This module stays in the importer's layer: it reaches the client only through
the object handed to ``compile_per_signature`` (``LocalClient.compile`` recognizes
a module by that method, so the client need not import the importer).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..hlo.module import HloModule
from ..literal import Literal
from ..shape import Shape
from ..types import PrimitiveType
from . import ast
from .lower import lower_module
from .refine import refine_module

# The key of one concrete signature: (element type, dimensions) per argument.
Signature = tuple[tuple[PrimitiveType, tuple[int, ...]], ...]


class PolymorphicModule:
    """A StableHLO module with unknown dimensions, refined to static HLO per signature."""

    def __init__(
        self, module: ast.Module, function: str, source_file: str = "",
        transforms: Sequence[Callable[[HloModule], HloModule]] = (),
    ) -> None:  # fmt: skip
        self.module = module
        self.function = function
        self.source_file = source_file
        self.transforms = tuple(transforms)
        self._hlo: dict[Signature, HloModule] = {}
        self._lock = threading.Lock()

    def map_hlo(self, transform: Callable[[HloModule], HloModule]) -> PolymorphicModule:
        """The same program with ``transform`` applied to each signature's HloModule
        (a fresh clone) before it is compiled: what a caller would do to an HloModule
        (run passes, set options) done once the module exists."""
        return PolymorphicModule(
            self.module, self.function, self.source_file, (*self.transforms, transform)
        )

    @property
    def name(self) -> str:
        return self.module.name or self.function

    @property
    def parameter_types(self) -> list[str]:
        """The entry function's argument types as written (``tensor<?x4xf32>``)."""
        return [t.text for _, t in self.module.function(self.function).arguments]

    def refine(self, argument_shapes: Sequence[Shape]) -> ast.Module:
        """The static module for arguments of ``argument_shapes`` (``stablehlo.refine``)."""
        return refine_module(self.module, argument_shapes, self.function, self.source_file)

    def hlo_module(self, argument_shapes: Sequence[Shape]) -> HloModule:
        """The HloModule for arguments of ``argument_shapes`` (lowered once per signature;
        a fresh clone each time, so callers may change it), after the ``map_hlo``
        transforms."""
        key = signature_of_shapes(argument_shapes)
        with self._lock:
            module = self._hlo.get(key)
        if module is None:
            refined = self.refine(argument_shapes)
            module = lower_module(refined, self.function, self.source_file)
            with self._lock:
                module = self._hlo.setdefault(key, module)
        module = module.clone()
        for transform in self.transforms:
            module = transform(module)
        return module

    def compile_per_signature(self, client: Any, options: Any = None) -> PolymorphicExecutable:
        """An executable that compiles with ``client`` (``options`` as given to its
        ``compile``) once per concrete signature it is called with."""
        return PolymorphicExecutable(self, client, options)

    def __repr__(self) -> str:
        return f"<stablehlo.PolymorphicModule {self.name}({', '.join(self.parameter_types)})>"


class PolymorphicExecutable:
    """Called like an ``Executable``; compiles one per signature of its arguments."""

    def __init__(self, module: PolymorphicModule, client: Any, options: Any = None) -> None:
        self.module = module
        self.client = client
        self.options = options
        self._executables: dict[Signature, Any] = {}
        self._lock = threading.Lock()

    @property
    def signatures(self) -> list[Signature]:
        """The signatures compiled so far, in order."""
        return list(self._executables)

    def executable_for(self, arguments: Sequence[Any]) -> Any:
        """The client's executable for the shapes of ``arguments`` (compiled on first use)."""
        shapes = [argument_shape(a, i) for i, a in enumerate(arguments)]
        key = signature_of_shapes(shapes)
        with self._lock:
            executable = self._executables.get(key)
        if executable is None:
            hlo = self.module.hlo_module(shapes)
            executable = self.client.compile(hlo, self.options)
            with self._lock:
                executable = self._executables.setdefault(key, executable)
        return executable

    def __call__(self, *arguments: Any) -> Any:
        return self.executable_for(arguments)(*arguments)

    def execute_literals(self, arguments: Sequence[Any]) -> Literal:
        return self.executable_for(arguments).execute_literals(arguments)

    def execute(self, arguments: Sequence[Any]) -> Any:
        return self.executable_for(arguments).execute(arguments)

    @property
    def fallback_ops(self) -> list[str]:
        """Ops that run through interpreter kernels in any signature compiled so far."""
        return sorted({op for e in self._executables.values() for op in e.fallback_ops})

    @property
    def host_callbacks(self) -> list[str]:
        return sorted({t for e in self._executables.values() for t in e.host_callbacks})

    def __repr__(self) -> str:
        return (
            f"<PolymorphicExecutable {self.module.name}: {len(self._executables)} "
            "signature(s) compiled>"
        )


def argument_shape(argument: Any, index: int = 0) -> Shape:
    """The shape of a call argument: a Literal's or handle's own, an array's from numpy."""
    shape = getattr(argument, "shape", None)
    if isinstance(shape, Shape):
        return shape
    try:
        array = np.asarray(argument)
    except (TypeError, ValueError) as error:
        raise InvalidArgumentError(
            f"argument {index}: {type(argument).__name__} is not an array ({error})"
        ) from None
    return Shape.array(PrimitiveType.from_dtype(array.dtype), array.shape)


def signature_of_shapes(shapes: Sequence[Shape]) -> Signature:
    """The cache key of argument shapes: element type and dimensions of each."""
    key = []
    for shape in shapes:
        if not shape.is_array:
            raise InvalidArgumentError(
                f"a shape-polymorphic module takes arrays; got an argument of shape {shape}"
            )
        key.append((shape.element_type, tuple(shape.dimensions)))
    return tuple(key)


__all__ = [
    "PolymorphicExecutable",
    "PolymorphicModule",
    "Signature",
    "argument_shape",
    "signature_of_shapes",
]
