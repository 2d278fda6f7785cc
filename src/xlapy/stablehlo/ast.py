"""The MLIR text of a StableHLO program, parsed but not yet lowered.

The parser (``stablehlo.parse``) reads both the *pretty* form of each op
(``stablehlo.add %a, %b : tensor<4xf32>``) and the *generic* form
(``"stablehlo.add"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>``)
into the same :class:`Operation`, with attributes under their generic names
(``comparison_direction``, ``broadcast_dimensions``, ``dot_dimension_numbers``)
as MLIR itself would hold them. The lowering (``stablehlo.lower``) then needs
to understand one form only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..errors import NotFoundError
from ..literal import Literal
from ..shape import Shape

# -- types -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class MlirType:
    """A value's type: ``shape`` for tensors, tokens and tuples; ``text`` as written.

    ``shape`` is None for types with no HLO shape (e.g. a quantized element
    type, kept so that the lowering can say precisely what is unsupported).
    """

    text: str
    shape: Shape | None

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class FunctionType:
    inputs: tuple[MlirType, ...]
    results: tuple[MlirType, ...]


# -- attributes ------------------------------------------------------------------------------
# Attribute values are plain Python where MLIR has a plain meaning:
#   integer -> int, float -> float, bool -> bool, string -> str, unit -> True,
#   array [a, b] -> list, dictionary {a = b} -> dict, array<i64: 1, 2> -> tuple[int, ...],
#   a type used as an attribute -> MlirType,
# and one of the classes below otherwise.


class TypedInt(int):
    """An integer of a typed-FFI dictionary (``mode = 86 : ui8``): the value, and its
    text as written, which XLA carries verbatim into the HLO ``backend_config``."""

    text: str

    def __new__(cls, value: int, text: str) -> TypedInt:
        obj = super().__new__(cls, value)
        obj.text = text
        return obj


class TypedFloat(float):
    """A float of a typed-FFI dictionary (``recall_target = 0.949999988 : f32``)."""

    text: str

    def __new__(cls, value: float, text: str) -> TypedFloat:
        obj = super().__new__(cls, value)
        obj.text = text
        return obj


@dataclass(frozen=True)
class DenseElements:
    """``dense<...> : tensor<...>`` (splat, nested lists or hex): a host value."""

    literal: Literal


@dataclass(frozen=True)
class SymbolRef:
    """``@name`` (a function or custom-call target)."""

    name: str


@dataclass(frozen=True)
class EnumAttr:
    """``#stablehlo<comparison_direction LT>`` -> EnumAttr("comparison_direction", "LT")."""

    kind: str
    value: str


@dataclass(frozen=True)
class DialectAttr:
    """A structured dialect attribute, e.g. ``#stablehlo.gather<offset_dims = [1], ...>`` or
    ``#stablehlo.channel_handle<handle = 1, type = 0>``: name without ``#`` and its fields."""

    name: str
    fields: dict[str, Any]


@dataclass(frozen=True)
class ConvDimensionNumbers:
    """The pretty form ``[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`` of a convolution's
    ``dimension_numbers`` (also given as ``#stablehlo.conv<...>``)."""

    input_batch_dimension: int
    input_feature_dimension: int
    input_spatial_dimensions: tuple[int, ...]
    kernel_input_feature_dimension: int
    kernel_output_feature_dimension: int
    kernel_spatial_dimensions: tuple[int, ...]
    output_batch_dimension: int
    output_feature_dimension: int
    output_spatial_dimensions: tuple[int, ...]


@dataclass(frozen=True)
class OpaqueAttr:
    """An attribute the parser read but does not model, kept as its text."""

    text: str


# -- Shardy (``sdy``) attributes -------------------------------------------------------------


@dataclass(frozen=True)
class SdyAxis:
    """A mesh axis ``"x"``, or its sub-axis ``"x":(pre_size)size``."""

    name: str
    pre_size: int | None = None
    size: int | None = None


@dataclass(frozen=True)
class SdyDim:
    """How one dimension is sharded: ``{"x", "y"}`` (major to minor), ``{"x", ?}`` (open),
    with an optional priority ``p1``."""

    axes: tuple[SdyAxis, ...]
    closed: bool = True
    priority: int | None = None


@dataclass(frozen=True)
class SdyMesh:
    """``<["x"=2, "y"=4]>`` and its optional ``device_ids=[...]`` (iota when empty)."""

    axes: tuple[tuple[str, int], ...]
    device_ids: tuple[int, ...] = ()


@dataclass(frozen=True)
class SdySharding:
    """``#sdy.sharding<@mesh, [{"x"}, {}], replicated={"y"}>``: ``mesh`` is the name of
    a module-level ``sdy.mesh`` or an inline :class:`SdyMesh`."""

    mesh: str | SdyMesh
    dims: tuple[SdyDim, ...]
    replicated: tuple[SdyAxis, ...] = ()
    unreduced: tuple[SdyAxis, ...] = ()


@dataclass(frozen=True)
class SdyManualAxes:
    """``#sdy<manual_axes{"x", "y"}>`` (a ``manual_computation``'s manual axes)."""

    axes: tuple[str, ...]


# -- operations ------------------------------------------------------------------------------


@dataclass
class Block:
    arguments: list[tuple[str, MlirType]] = field(default_factory=list)
    operations: list[Operation] = field(default_factory=list)


@dataclass
class Region:
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Operation:
    """One op. Operand and result names are SSA names; ``%r#1`` names result 1 of ``%r``."""

    name: str  # "stablehlo.add", "func.return", "check.expect_eq", "interpreter.run_parallel"
    operands: list[str]
    operand_types: list[MlirType]
    results: list[str]  # expanded: an op with results %r:2 has ["%r#0", "%r#1"]
    result_types: list[MlirType]
    attributes: dict[str, Any] = field(default_factory=dict)
    regions: list[Region] = field(default_factory=list)
    line: int = 0
    column: int = 0


@dataclass
class Function:
    name: str  # without "@"
    visibility: str  # "public" (default) or "private"
    arguments: list[tuple[str, MlirType]]
    argument_attributes: list[dict[str, Any]]
    result_types: list[MlirType]
    result_attributes: list[dict[str, Any]]
    body: Region
    line: int = 0
    # Added for the parser: attributes of the function op itself (``attributes {..}``).
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Module:
    name: str | None
    attributes: dict[str, Any]
    functions: list[Function]
    line: int = 0

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise NotFoundError(f"the module has no function @{name}")


__all__ = [
    "Block",
    "ConvDimensionNumbers",
    "DenseElements",
    "DialectAttr",
    "EnumAttr",
    "Function",
    "FunctionType",
    "MlirType",
    "Module",
    "OpaqueAttr",
    "Operation",
    "Region",
    "SdyAxis",
    "SdyDim",
    "SdyManualAxes",
    "SdyMesh",
    "SdySharding",
    "SymbolRef",
    "TypedFloat",
    "TypedInt",
]
