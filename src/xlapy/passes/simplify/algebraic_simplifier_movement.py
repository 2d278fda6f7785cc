"""Algebraic simplifier rules for data movement: reshape, broadcast, transpose, slice,
concatenate, pad, reverse, copy, bitcast, dynamic slices, get-tuple-element.

These move values without computing on them, so they hold for every element
type; what they must respect is the layout: an op that only changes the layout
(a copy or transpose to another layout) is never removed, since
:func:`~.algebraic_simplifier_support.if_same` compares layouts.

=======================================  ==========================================
rule                                     result
=======================================  ==========================================
reshape/transpose/broadcast/copy/        the operand, when its shape is the result's
bitcast/slice/pad/reverse that is
the identity
reshape(reshape(x))                      reshape(x)
broadcast(broadcast(x))                  one broadcast (dimensions composed)
transpose(transpose(x))                  one transpose (or x)
transpose moving only size-1 dimensions  reshape
slice(slice(x))                          one slice (starts and strides composed)
slice(concatenate(...)) inside one       a slice of that operand
operand
concatenate(x)                           x; empty operands dropped
concatenate(slice(x)[a:b], slice(x)[b:c])  slice(x)[a:c] (any run of adjacent slices)
reverse(reverse(x)) (same dimensions)    x
pad of an empty operand                  broadcast(padding value)
any movement of broadcast(scalar)        broadcast(scalar) of the result shape
(concatenate/pad of splats of one scalar too)
dynamic-slice with constant starts       slice (starts clamped as the op clamps them)
dynamic-update-slice covering all        the update (starts clamp to 0)
dynamic-update-slice of an empty update  the operand
get-tuple-element(tuple(...))            the element
=======================================  ==========================================

Not done: removing a copy of an entry parameter that is (part of) the entry's
result (the result would then be the parameter's own buffer, which a backend
that donates or reuses argument buffers must not hand out).
"""

from __future__ import annotations

import math

from ...hlo.instruction import HloInstruction
from ...literal import Literal
from .algebraic_simplifier_support import (
    Op,
    RuleTable,
    if_same,
    new,
    same_shape,
    splat_of,
    splat_scalar,
)


def _splat_movement(i: HloInstruction) -> HloInstruction | None:
    """Moving a broadcast scalar around only changes the shape: broadcast it anew."""
    scalar = splat_scalar(i.operand(0))
    if scalar is None:
        return None
    if i.opcode is Op.PAD and i.operand(1) is not scalar:
        return None
    if i.opcode is Op.BROADCAST and i.shape.rank == 0:
        return None
    return splat_of(i, scalar)


def _identity(i: HloInstruction) -> HloInstruction | None:
    """An op whose result has its operand's dimensions and moves nothing."""
    x = i.operand(0)
    if x.shape.dimensions != i.shape.dimensions:
        return None
    op = i.opcode
    if op is Op.TRANSPOSE and list(i.dimensions) != list(range(x.shape.rank)):
        return None
    if op is Op.BROADCAST and list(i.dimensions) != list(range(x.shape.rank)):
        return None
    if op is Op.REVERSE and any(x.shape.dimensions[d] > 1 for d in i.dimensions):
        return None
    if op is Op.SLICE and any(len(t) > 2 and int(t[2]) != 1 for t in i.attribute("slice")):
        return None
    if op is Op.PAD and any(t != (0, 0, 0) for t in i.attribute("padding").as_triples()):
        return None
    if op is Op.COPY and _copies_a_parameter_out(i):
        return None
    return if_same(x, i)


def _copies_a_parameter_out(copy: HloInstruction) -> bool:
    """A copy of an entry parameter that is (part of) the entry's result."""
    computation = copy.parent
    if not computation.is_entry or copy.operand(0).opcode is not Op.PARAMETER:
        return False
    root = computation.root
    return copy is root or (root.opcode is Op.TUPLE and copy in root.operands)


# -- reshape, broadcast, transpose ---------------------------------------------------------------


def _reshape_reshape(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.RESHAPE:
        return new(i, Op.RESHAPE, [x.operand(0)])
    return None


def _broadcast_broadcast(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is not Op.BROADCAST:
        return None
    outer = list(i.dimensions)
    inner = list(x.dimensions)
    return new(i, Op.BROADCAST, [x.operand(0)], {"dimensions": tuple(outer[d] for d in inner)})


def _transpose_transpose(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is not Op.TRANSPOSE:
        return None
    outer, inner = list(i.dimensions), list(x.dimensions)
    composed = tuple(inner[d] for d in outer)
    if composed == tuple(range(len(composed))) and same_shape(x.operand(0).shape, i.shape):
        return x.operand(0)
    return new(i, Op.TRANSPOSE, [x.operand(0)], {"dimensions": composed})


def _transpose_of_unit_dims(i: HloInstruction) -> HloInstruction | None:
    """A transpose that keeps the dimensions of size > 1 in order is a reshape."""
    perm = list(i.dimensions)
    dims = i.operand(0).shape.dimensions
    moved = [d for d in perm if dims[d] != 1]
    if perm == sorted(perm) or moved != sorted(moved):
        return None
    return new(i, Op.RESHAPE, [i.operand(0)])


# -- slice, concatenate, pad, reverse ---------------------------------------------------------


def _triples(i: HloInstruction) -> list[tuple[int, int, int]]:
    return [(int(t[0]), int(t[1]), int(t[2]) if len(t) > 2 else 1) for t in i.attribute("slice")]


def _slice(
    i: HloInstruction, x: HloInstruction, triples: list[tuple[int, int, int]]
) -> HloInstruction:
    return new(i, Op.SLICE, [x], {"slice": tuple(triples)})


def _slice_slice(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is not Op.SLICE:
        return None
    combined = []
    for (s1, _, t1), (s2, _, t2), n in zip(
        _triples(x), _triples(i), i.shape.dimensions, strict=True
    ):
        start, stride = s1 + s2 * t1, t1 * t2
        combined.append((start, start + (n - 1) * stride + 1, stride) if n else (0, 0, 1))
    return _slice(i, x.operand(0), combined)


def _slice_concatenate(i: HloInstruction) -> HloInstruction | None:
    """A slice that lies within one operand of a concatenate slices that operand."""
    x = i.operand(0)
    if x.opcode is not Op.CONCATENATE:
        return None
    (axis,) = x.dimensions
    triples = _triples(i)
    start, _, stride = triples[axis]
    n = i.shape.dimensions[axis]
    if n == 0:
        return None
    last = start + (n - 1) * stride
    offset = 0
    for operand in x.operands:
        size = operand.shape.dimensions[axis]
        if offset <= start and last < offset + size:
            triples[axis] = (start - offset, last - offset + 1, stride)
            return _slice(i, operand, triples)
        offset += size
    return None


def _concatenate(i: HloInstruction) -> HloInstruction | None:
    (axis,) = i.dimensions
    operands = list(i.operands)
    if len(operands) == 1:
        return if_same(operands[0], i)
    kept = [o for o in operands if o.shape.dimensions[axis] > 0]
    if 0 < len(kept) < len(operands):
        if len(kept) == 1:
            return if_same(kept[0], i)
        return new(i, Op.CONCATENATE, kept, {"dimensions": (axis,)})
    scalars = {id(splat_scalar(o)) for o in operands}
    if len(scalars) == 1 and splat_scalar(operands[0]) is not None:
        return splat_of(i, splat_scalar(operands[0]))
    runs = _runs_of_adjacent_slices(operands, axis)
    if len(runs) == len(operands):
        return None
    if len(runs) == 1:  # one slice re-formed: that slice, with the concatenate's shape
        return new(i, Op.SLICE, [operands[0].operand(0)], {"slice": _merged_window(runs[0], axis)})
    merged = []
    for run in runs:
        if len(run) == 1:
            merged.append(run[0])
            continue
        dims = list(run[0].shape.dimensions)
        dims[axis] = sum(o.shape.dimensions[axis] for o in run)
        shape = run[0].shape.with_dimensions(dims)
        window = {"slice": _merged_window(run, axis)}
        merged.append(new(i, Op.SLICE, [run[0].operand(0)], window, shape))
    return new(i, Op.CONCATENATE, merged, {"dimensions": (axis,)})


def _joins(a: HloInstruction, b: HloInstruction, axis: int) -> bool:
    """Whether slices ``a`` then ``b`` of one operand are one slice along ``axis``."""
    if a.opcode is not Op.SLICE or b.opcode is not Op.SLICE or a.operand(0) is not b.operand(0):
        return False
    if a.shape.dimensions[axis] == 0 or b.shape.dimensions[axis] == 0:
        return False
    ta, tb = _triples(a), _triples(b)
    if any(ta[d] != tb[d] for d in range(len(ta)) if d != axis):
        return False
    (sa, _, stride), (sb, _, stride_b) = ta[axis], tb[axis]
    return stride == stride_b and sb == sa + a.shape.dimensions[axis] * stride


def _runs_of_adjacent_slices(
    operands: list[HloInstruction], axis: int
) -> list[list[HloInstruction]]:
    """The operands grouped into maximal runs of slices that continue one another."""
    runs: list[list[HloInstruction]] = []
    for operand in operands:
        if runs and _joins(runs[-1][-1], operand, axis):
            runs[-1].append(operand)
        else:
            runs.append([operand])
    return runs


def _merged_window(run: list[HloInstruction], axis: int) -> tuple[tuple[int, int, int], ...]:
    triples = _triples(run[0])
    start, _, stride = triples[axis]
    count = sum(o.shape.dimensions[axis] for o in run)
    triples[axis] = (start, start + (count - 1) * stride + 1, stride)
    return tuple(triples)


def _pad_empty(i: HloInstruction) -> HloInstruction | None:
    if math.prod(i.operand(0).shape.dimensions) == 0:
        return splat_of(i, i.operand(1))
    return None


def _reverse_reverse(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.REVERSE and sorted(x.dimensions) == sorted(i.dimensions):
        return if_same(x.operand(0), i)
    return None


# -- dynamic slices, tuples -----------------------------------------------------------------


def _constant_index(i: HloInstruction) -> int | None:
    if i.opcode is not Op.CONSTANT or not isinstance(i.literal, Literal) or i.shape.rank != 0:
        return None
    return int(i.literal.to_numpy())


def _dynamic_slice(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    sizes = i.shape.dimensions
    if sizes == x.shape.dimensions:
        return if_same(x, i)  # every start clamps to 0
    starts = [_constant_index(o) for o in i.operands[1:]]
    if len(starts) != x.shape.rank or any(s is None for s in starts):
        return None
    triples = []
    for start, size, dim in zip(starts, sizes, x.shape.dimensions, strict=True):
        begin = min(max(int(start), 0), dim - size)  # the op clamps its starts like this
        triples.append((begin, begin + size, 1))
    return _slice(i, x, triples)


def _dynamic_update_slice(i: HloInstruction) -> HloInstruction | None:
    operand, update = i.operand(0), i.operand(1)
    if update.shape.dimensions == i.shape.dimensions:
        return if_same(update, i)
    if math.prod(update.shape.dimensions) == 0:
        return if_same(operand, i)
    return None


def _get_tuple_element(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.opcode is Op.TUPLE:
        return if_same(x.operand(i.tuple_index), i)
    return None


RULES: RuleTable = {
    Op.RESHAPE: (_identity, _splat_movement, _reshape_reshape),
    Op.BROADCAST: (_identity, _broadcast_broadcast),
    Op.TRANSPOSE: (_identity, _splat_movement, _transpose_transpose, _transpose_of_unit_dims),
    Op.COPY: (_identity, _splat_movement),
    Op.BITCAST: (_identity,),
    Op.SLICE: (_identity, _splat_movement, _slice_slice, _slice_concatenate),
    Op.CONCATENATE: (_concatenate,),
    Op.PAD: (_identity, _pad_empty, _splat_movement),
    Op.REVERSE: (_identity, _splat_movement, _reverse_reverse),
    Op.DYNAMIC_SLICE: (_splat_movement, _dynamic_slice),
    Op.DYNAMIC_UPDATE_SLICE: (_dynamic_update_slice,),
    Op.GET_TUPLE_ELEMENT: (_get_tuple_element,),
}

__all__ = ["RULES"]
