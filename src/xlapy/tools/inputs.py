"""What ``xlapy run`` and ``xlapy bisect`` feed a module: the module file itself, and its
arguments, read from an ``.npz`` file or drawn at random by parameter type.

Random arguments keep to ranges where every op is well defined for most values
(floats in [-1, 1), small integers), so that a disagreement they expose is a bug
rather than two valid roundings of an overflow. Integer parameters whose values
become indices (gather and scatter indices, dynamic-slice starts, directly or
through integer arithmetic) get small non-negative values, so that they select
real rows rather than being clamped.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import stablehlo
from ..errors import InvalidArgumentError, UnimplementedError, XlaError
from ..hlo import parse_module
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from ..shape import Shape
from ..types import PrimitiveType

# The operands each opcode reads as indices (a variadic scatter's N inputs come first,
# then its indices, then N updates).
_INDEX_OPERANDS: dict[HloOpcode, Callable[[HloInstruction], Sequence[HloInstruction]]] = {
    HloOpcode.GATHER: lambda i: i.operands[1:2],
    HloOpcode.SCATTER: lambda i: i.operands[i.operand_count // 2 : i.operand_count // 2 + 1],
    HloOpcode.DYNAMIC_SLICE: lambda i: i.operands[1:],
    HloOpcode.DYNAMIC_UPDATE_SLICE: lambda i: i.operands[2:],
}
_INDEX_RANGE = 4  # indices drawn from [0, 4)
_INT_RANGE = 8  # other signed integers from [-8, 8), unsigned from [0, 8)


def read_text(path: str) -> str:
    """The file's text (``-``: standard input), a missing file as one readable error."""
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        raise XlaError(f"cannot read {path}: {e.strerror}") from None


def load_module(path: str) -> Any:
    """An ``HloModule`` from HLO text, or from StableHLO text for a ``.mlir`` file (which
    may be a ``PolymorphicModule`` when its entry has dimensions of unknown size)."""
    text = read_text(path)
    return stablehlo.parse_module(text) if path.endswith(".mlir") else parse_module(text)


def concrete_module(module: Any, inputs: Sequence[np.ndarray] | None, command: str) -> HloModule:
    """``module`` as an ``HloModule``: a shape-polymorphic StableHLO module is refined to
    the shapes of ``inputs``; without inputs there are no shapes to refine it to."""
    if isinstance(module, HloModule):
        return module
    if not hasattr(module, "hlo_module"):
        raise InvalidArgumentError(f"{command}: expected an HloModule, got {type(module).__name__}")
    if inputs is None:
        raise UnimplementedError(
            f"{command}: {module.name} is shape-polymorphic (arguments "
            f"{', '.join(module.parameter_types)}); random inputs need static shapes: "
            "give concrete arguments with --inputs FILE.npz"
        )
    shapes = [Shape.array(PrimitiveType.from_dtype(a.dtype), a.shape) for a in inputs]
    return module.hlo_module(shapes)


def index_parameters(module: HloModule) -> set[int]:
    """Numbers of the entry parameters whose values end up as indices: read by an index
    operand directly or through integer arithmetic (JAX converts, clamps and wraps
    negative indices before a gather)."""
    numbers: set[int] = set()
    stack: list[HloInstruction] = []
    for instruction in module.entry.instructions:
        index_operands = _INDEX_OPERANDS.get(instruction.opcode)
        if index_operands is not None:
            stack.extend(index_operands(instruction))
    seen: set[int] = set()
    while stack:
        value = stack.pop()
        if id(value) in seen or not (value.shape.is_array and value.shape.element_type.is_integral):
            continue
        seen.add(id(value))
        if value.opcode is HloOpcode.PARAMETER:
            numbers.add(value.parameter_number)
        else:
            stack.extend(value.operands)
    return numbers


def random_value(shape: Shape, rng: np.random.Generator, index: bool = False) -> Any:
    """One argument of ``shape`` (tuples as tuples), in the well-behaved ranges above."""
    if shape.is_tuple:
        return tuple(random_value(s, rng, index) for s in shape.tuple_shapes)
    if not shape.is_array:
        raise UnimplementedError(
            f"random inputs: no value for a parameter of shape {shape}; give --inputs"
        )
    et, dims = shape.element_type, shape.dimensions
    dtype = et.dtype
    if et.is_pred:
        return rng.integers(0, 2, dims).astype(np.bool_)
    if et.is_complex:
        parts = rng.uniform(-1.0, 1.0, (2, *dims))
        return (parts[0] + 1j * parts[1]).astype(dtype)
    if et.is_float:
        return rng.uniform(-1.0, 1.0, dims).astype(dtype)
    if index:
        return rng.integers(0, _INDEX_RANGE, dims).astype(dtype)
    half = min(_INT_RANGE, 1 << (et.bit_width - 1))  # s4, u2...: inside the type
    low, high = (-half, half) if et.is_signed_integral else (0, 2 * half)
    return rng.integers(low, high, dims).astype(dtype)


def random_inputs(module: HloModule, seed: int = 0) -> list[Any]:
    """One random argument per entry parameter, the same for the same ``seed``."""
    rng = np.random.default_rng(seed)
    indices = index_parameters(module)
    return [
        random_value(p.shape, rng, index=p.parameter_number in indices)
        for p in module.entry.parameters
    ]


def _position(key: str) -> int | None:
    match = re.search(r"(\d+)$", key)
    return int(match.group(1)) if match else None


def read_npz(path: str, module: Any = None) -> list[np.ndarray]:
    """Arguments from an ``.npz`` file: keys named after the entry's parameters, or
    numbered (``np.savez(path, a, b)``'s ``arr_0, arr_1``; ``arg0``, ``in_1``...); keys
    starting with ``out`` are expected results, not arguments."""
    try:
        archive = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise XlaError(f"cannot read inputs from {path}: {e}") from None
    with archive:
        # Files that hold expected results too (the JAX corpus's in_N / out_N): the inputs only.
        keys = [key for key in archive.keys() if not key.startswith("out")]
        names = []
        if isinstance(module, HloModule):
            names = [p.name for p in module.entry.parameters]
        if names and set(names) == set(keys):
            return [archive[name] for name in names]
        positions = {key: _position(key) for key in keys}
        if any(p is None for p in positions.values()):
            raise InvalidArgumentError(
                f"{path}: cannot tell the order of arguments {sorted(keys)}; name them after "
                f"the parameters ({', '.join(names) or 'in order'}) or number them (arr_0, arr_1...)"
            )
        return [archive[key] for key in sorted(keys, key=lambda k: positions[k])]


def leaves(value: Any) -> list[Any]:
    """The arrays of a (nested) tuple result, in order."""
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in leaves(v)]
    return [value]


def write_npz(path: str, outputs: Any) -> None:
    """The result's arrays as ``output_0, output_1...`` (a tuple's leaves in order)."""
    arrays = {f"output_{i}": np.asarray(v) for i, v in enumerate(leaves(outputs))}
    try:
        np.savez(path, **arrays)
    except OSError as e:
        raise XlaError(f"cannot write {path}: {e.strerror}") from None


def describe_inputs(module: HloModule, inputs: Sequence[Any]) -> str:
    """One line per argument: parameter name, shape and values (short arrays in full)."""
    lines = []
    for parameter, value in zip(module.entry.parameters, inputs, strict=True):
        text = np.array2string(np.asarray(value), threshold=64, separator=", ")
        lines.append(f"{parameter.name} {parameter.shape} = {text}")
    return "\n".join(lines)
