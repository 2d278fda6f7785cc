"""Evaluator kernels of the movement family: ops that move data without computing on it.

Values are logical arrays (see the evaluator), so most of these are one numpy
call; layouts only matter to ``bitcast``, which reinterprets memory and so
goes through a physical buffer.

Dynamic shapes (XLA's bounded dynamic dimensions): a value is carried at its
*dynamic size*: a dimension ``<=6`` whose size is 3 is a numpy axis of 3.
The padding XLA keeps past the size in a buffer of the bound's size does not
exist here, so no kernel can let it affect a result (the CPU backend masks it,
``passes/expand/dynamic_padder.py``). ``set-dimension-size`` slices (or, growing
a size, pads with zeros, as the padder masks the elements it uncovers),
``get-dimension-size`` reads the numpy size, and the kernels whose result shape
is written in the instruction (broadcast, reshape) forward the operands' sizes.
"""

from __future__ import annotations

import numpy as np

from ...errors import InvalidArgumentError, UnimplementedError
from ...hlo.instruction import HloInstruction
from ...literal import Literal
from ...opcode import HloOpcode as Op
from ...shape import Shape, reshape_kept_dimensions
from ..core import (
    TOKEN,
    EvalContext,
    Value,
    c_contiguous,
    index_scalar,
    kernel,
    value_from_literal,
)


def dtype_of(shape: Shape) -> np.dtype:
    return shape.element_type.dtype


@kernel(Op.CONSTANT)
def _constant(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    literal = instruction.literal
    if not isinstance(literal, Literal):
        raise ctx.fail(
            instruction, f"the constant's value was not parsed into a literal ({literal!r})"
        )
    return value_from_literal(literal)


@kernel(Op.BROADCAST)
def _broadcast(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    x = np.asarray(operands[0])
    dims = tuple(instruction.attributes.get("dimensions", ()))
    out = list(instruction.shape.dimensions)
    operand = instruction.operand(0).shape
    expanded = [1] * len(out)
    for i, d in enumerate(dims):
        expanded[d] = x.shape[i]
        if operand.is_dynamic_dimension(i):  # a dynamic size goes where its dimension goes
            out[d] = x.shape[i]
    return np.array(np.broadcast_to(x.reshape(expanded), out), order="C")


@kernel(Op.RESHAPE)
def _reshape(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    # Logical reshape is row-major whatever the layouts: XLA's definition.
    x = np.asarray(operands[0])
    bounds = instruction.operand(0).shape.dimensions
    if x.shape == tuple(bounds):
        return np.array(x.reshape(instruction.shape.dimensions))
    out = list(instruction.shape.dimensions)
    kept = reshape_kept_dimensions(bounds, out)
    for d, (size, bound) in enumerate(zip(x.shape, bounds, strict=True)):
        if size == bound:
            continue
        if d not in kept:
            raise UnimplementedError(
                f"reshape {instruction.name}: dimension {d} of {instruction.operand(0).shape} "
                f"has the dynamic size {size}, and the reshape to {instruction.shape} does not "
                "keep that dimension whole; only reshapes that keep a dynamic dimension run"
            )
        out[kept[d]] = size
    return np.array(x.reshape(out))


@kernel(Op.TRANSPOSE)
def _transpose(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return c_contiguous(np.transpose(operands[0], instruction.attributes["dimensions"]))


@kernel(Op.REVERSE)
def _reverse(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    dims = tuple(instruction.attributes.get("dimensions", ()))
    return c_contiguous(np.flip(operands[0], axis=dims)) if dims else np.array(operands[0])


@kernel(Op.SLICE)
def _slice(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    triples = instruction.attributes["slice"]
    index = tuple(slice(int(a), int(b), int(c)) for a, b, c in triples)
    return np.array(np.asarray(operands[0])[index])


@kernel(Op.CONCATENATE)
def _concatenate(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    (axis,) = instruction.attributes["dimensions"]
    return np.concatenate([np.asarray(o) for o in operands], axis=axis)


def pad_array(x: np.ndarray, value: object, triples: list[tuple[int, int, int]]) -> np.ndarray:
    """Pad with interior padding first, then (possibly negative) edge padding.

    Shared with reduce-window, whose base dilation is interior padding with the
    init value. Computes where the dilated operand lands in the result and
    copies the part of it that survives negative edges, in one assignment.
    """
    out_shape, src, dst = [], [], []
    for size, (low, high, interior) in zip(x.shape, triples, strict=True):
        dilated = size + max(size - 1, 0) * interior
        out = low + dilated + high
        if out < 0:
            raise InvalidArgumentError(f"padding {low}_{high}_{interior} of {size} is negative")
        out_shape.append(out)
        # Dilated position p lands at low + p; keep the positions in [0, out).
        first = max(0, -low)
        last = min(dilated, out - low)  # exclusive
        step = interior + 1
        # Operand elements sit at dilated positions i * step: those in [first, last).
        i0 = -(-first // step)
        i1 = -(-last // step) if last > 0 else 0
        i1 = max(i0, min(i1, size))
        src.append(slice(i0, i1))
        dst.append(slice(low + i0 * step, low + i0 * step + (i1 - i0 - 1) * step + 1, step))
    result = np.full(out_shape, value, dtype=x.dtype)
    if all(s.stop > s.start for s in src):
        result[tuple(dst)] = x[tuple(src)]
    return result


@kernel(Op.PAD)
def _pad(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    x, value = np.asarray(operands[0]), np.asarray(operands[1])
    triples = list(instruction.attributes["padding"].as_triples())
    return pad_array(x, value, triples)


@kernel(Op.IOTA)
def _iota(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    shape = instruction.shape
    axis = int(instruction.attributes["iota_dimension"])
    n = shape.dimensions[axis]
    # Count in int64 and convert once, so that narrow types (f8, s4) round or
    # wrap exactly as a conversion of the index would.
    line = np.arange(n, dtype=np.int64)
    if shape.element_type.is_float or shape.element_type.is_complex:
        line = line.astype(np.float64)
    line = line.astype(dtype_of(shape))
    expanded = [1] * shape.rank
    expanded[axis] = n
    return np.array(np.broadcast_to(line.reshape(expanded), shape.dimensions), order="C")


@kernel(Op.TUPLE)
def _tuple(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return tuple(operands)


@kernel(Op.GET_TUPLE_ELEMENT)
def _get_tuple_element(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    return operands[0][instruction.tuple_index]


@kernel(Op.OPT_BARRIER, Op.DOMAIN, Op.ADD_DEPENDENCY)
def _forward(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Ops that only constrain scheduling or sharding: the value passes through."""
    return operands[0]


@kernel(Op.AFTER_ALL)
def _after_all(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    return TOKEN


def _with_layout(shape: Shape) -> Shape:
    """``shape`` with its own layout, or the default one when the text gave none."""
    return shape if shape.layout is not None else shape.with_default_layout()


@kernel(Op.BITCAST)
def _bitcast(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """Reinterpret the operand's physical buffer (its layout) as the result's.

    A bitcast is defined on memory, not on logical values: the same bytes read
    through the result's dimensions and layout. Same-type bitcasts reuse the
    element buffer directly; type-changing ones go through bytes.
    """
    source = _with_layout(instruction.operands[0].shape)
    target = _with_layout(instruction.shape)
    x = np.asarray(operands[0])
    literal = Literal.from_numpy(x, layout=source.layout, element_type=source.element_type)
    data = literal.data
    if source.element_type != target.element_type:
        if source.element_type.is_sub_byte or target.element_type.is_sub_byte:
            raise UnimplementedError(
                f"bitcast {instruction.name}: reinterpreting sub-byte element types "
                f"({source.element_type} -> {target.element_type}) is not supported"
            )
        data = np.frombuffer(data.tobytes(), dtype=dtype_of(target))
    try:
        result = Literal(target, c_contiguous(data))
    except InvalidArgumentError as e:
        raise ctx.fail(instruction, f"the buffers of {source} and {target} differ: {e}") from None
    return np.array(result.to_numpy())


@kernel(Op.GET_DIMENSION_SIZE)
def _get_dimension_size(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """The dynamic size: values are carried at it (see the module docstring)."""
    (dim,) = instruction.attributes["dimensions"]
    return np.array(np.asarray(operands[0]).shape[dim], dtype=np.int32)


@kernel(Op.SET_DIMENSION_SIZE)
def _set_dimension_size(
    ctx: EvalContext, instruction: HloInstruction, operands: list[Value]
) -> Value:
    """The operand at the new size: its leading elements, then zeros where a size grows
    past the operand's (the elements XLA uncovers there are whatever its buffer held; the
    CPU backend's padder makes them zeros as here)."""
    (dim,) = instruction.attributes["dimensions"]
    x = np.asarray(operands[0])
    size = index_scalar(operands[1])
    bound = instruction.shape.dimensions[dim]
    if not 0 <= size <= bound:
        raise ctx.fail(instruction, f"size {size} exceeds the bound {bound} of dim {dim}")
    if size <= x.shape[dim]:
        return c_contiguous(x[(slice(None),) * dim + (slice(0, size),)])
    widths = [(0, 0)] * x.ndim
    widths[dim] = (0, size - x.shape[dim])
    return np.pad(x, widths)


@kernel(Op.DYNAMIC_RESHAPE)
def _dynamic_reshape(ctx: EvalContext, instruction: HloInstruction, operands: list[Value]) -> Value:
    """The operand's leading elements (row-major) reshaped into the dynamic sizes.

    The sizes must fit the bounds and hold at most the operand's elements; XLA reads
    undefined data past them, xlapy raises, on both backends.
    """
    x = np.asarray(operands[0])
    bounds = instruction.shape.dimensions
    sizes = [index_scalar(v) for v in operands[1:]]
    for d, (size, bound) in enumerate(zip(sizes, bounds, strict=True)):
        if not 0 <= size <= bound:
            raise ctx.fail(instruction, f"size {size} of dim {d} is outside [0, {bound}]")
    count = int(np.prod(sizes, dtype=np.int64))
    if count > x.size:
        raise ctx.fail(
            instruction, f"sizes {sizes} need {count} elements; the operand has {x.size}"
        )
    return np.array(x.reshape(-1)[:count].reshape(sizes))


__all__ = ["dtype_of", "pad_array"]
