"""Bounded dynamic dimensions as static buffers: XLA's DynamicDimensionInference and
DynamicPadder in one pass, for the CPU backend.

XLA runs a dynamic dimension (``f32[<=6]``) in a buffer of its bound's size: the
first ``size`` elements along it are the value, the rest is padding that must
not change any result. This pass makes that so. It walks the entry computation
once, in post order, and gives every dynamic dimension whose size is known an
``s32[]`` instruction holding that size (the inference): entry parameters get
one new ``s32[]`` parameter per dynamic dimension (the executable passes the
argument's size there), ``set-dimension-size`` and ``dynamic-reshape`` give
their size operands, and every op that keeps a dimension forwards its size
(elementwise ops, broadcast, transpose, reshapes that keep the dimension whole,
reduce, dot, tuples, slices and pads with the size they compute, concatenate
with the sum). At the same time it rewrites what the padding would otherwise
reach (the padder):

- ``get-dimension-size`` becomes the size (or the bound, for a static dimension);
- ``reduce`` reads ``select(iota < size, x, init)``, so padding adds the init value;
- ``dot`` reads zeros past the size of a contracted dimension;
- ``pad`` pads ``select(iota < size, x, value)``, so the padding value follows
  the last valid element;
- ``concatenate`` along a dynamic dimension writes each operand right after the
  previous one's size (a chain of ``dynamic-update-slice`` into a zero buffer);
- ``set-dimension-size`` masks the elements past the operand's own size to zero
  (the interpreter's choice for a growing size) and stays as the native
  pass-through that checks the size against the bound;
- ``dynamic-reshape`` of an operand with dynamic sizes reads it compacted (a
  gather that moves its valid elements, row-major in its dynamic shape, to the
  front), since its native emitter lays out the operand's leading elements.

The entry's result then carries its sizes out: the root becomes a tuple of the
result's leaves followed by an ``s32[]`` per dynamic dimension, and
``module.dynamic_signature`` tells the executable which parameter dimensions to
pass and which result dimensions to trim. Shapes keep their ``<=`` marks (they
annotate; every buffer is at its bound). An op that would let padding through
and has no rule here (sort, reverse, a while loop carrying a dynamic size...)
is refused with an ``UnimplementedError`` naming it; a dynamic dimension whose
size nothing set (a broadcast or iota into ``f32[<=6]``) is at its bound.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import UnimplementedError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...hlo.typed_attributes import to_attributes
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape, reshape_kept_dimensions
from ...types import PrimitiveType
from ...xla_data import ComparisonDirection, GatherDimensionNumbers
from ..creation import (
    make,
    make_binary,
    make_broadcast,
    make_compare,
    make_constant,
    make_get_tuple_element,
    make_iota,
    make_reshape,
    make_select,
    make_tuple,
)
from ..pass_base import HloPass

Op = HloOpcode
S32 = PrimitiveType.S32
Size = HloInstruction | None  # the s32[] holding a dimension's size; None: at its bound
Sizes = Any  # tuple[Size, ...] for an array, a tuple of Sizes for a tuple, () otherwise

# Opcodes that make or read dynamic sizes: only the entry computation may hold them.
DYNAMIC_OPS = frozenset({Op.SET_DIMENSION_SIZE, Op.GET_DIMENSION_SIZE, Op.DYNAMIC_RESHAPE})


@dataclass
class DynamicSignature:
    """What the executable must do around a padded entry computation.

    ``parameter_sizes``: (parameter number, dimension) for each appended ``s32[]``
    parameter, in order; ``result_sizes``: (result leaf, dimension) for each ``s32[]``
    that follows the ``result_leaves`` leaves of the root tuple.
    """

    parameter_sizes: list[tuple[int, int]] = field(default_factory=list)
    result_sizes: list[tuple[int, int]] = field(default_factory=list)
    result_leaves: int = 0


def has_dynamic_dimensions(module: HloModule) -> bool:
    """Whether any instruction has a dynamic shape or makes or reads a dynamic size."""
    return any(
        not i.shape.is_static or i.opcode in DYNAMIC_OPS for i in module.instructions()
    )


class DynamicPadder(HloPass):
    """Dynamic dimensions become bound-sized buffers plus explicit sizes (see above)."""

    name = "dynamic-padder"

    def run(self, module: HloModule) -> bool:
        if getattr(module, "dynamic_signature", None) is not None:
            return False  # padded already
        if not has_dynamic_dimensions(module):
            return False
        for computation in module.computations:
            if computation is module.entry:
                continue
            for instruction in computation.instructions:
                if instruction.opcode in DYNAMIC_OPS:
                    raise UnimplementedError(
                        f"{instruction.opcode.value} {instruction.name} sits in "
                        f"{computation.name}; the CPU backend runs dynamic sizes only in the "
                        "entry computation"
                    )
        module.dynamic_signature = _Padder(module.entry).run()
        module.config.entry_computation_layout = None  # the entry takes and returns more now
        return True


class _Padder:
    def __init__(self, entry: HloComputation) -> None:
        self.entry = entry
        self.sizes: dict[int, Sizes] = {}
        self.signature = DynamicSignature()

    # -- constants and masks -----------------------------------------------------------------
    def s32(self, value: int) -> HloInstruction:
        return make_constant(self.entry, Literal.from_value(np.int32(value)))

    def zero(self, element_type: PrimitiveType) -> HloInstruction:
        return make_constant(self.entry, Literal.from_value(np.zeros((), element_type.dtype)))

    def size_or_bound(self, instruction: HloInstruction, dim: int) -> HloInstruction:
        size = self.of(instruction)[dim]
        return size if size is not None else self.s32(instruction.shape.dimensions[dim])

    def mask(
        self, x: HloInstruction, dims: dict[int, HloInstruction], value: HloInstruction
    ) -> HloInstruction:
        """``x`` with ``value`` past ``dims[d]`` along each dimension d."""
        if not dims:
            return x
        index_shape = Shape.array(S32, x.shape.dimensions)
        inside = None
        for d, size in sorted(dims.items()):
            iota = make_iota(self.entry, index_shape, d)
            limit = make_broadcast(size, index_shape, [])
            below = make_compare(ComparisonDirection.LT, iota, limit)
            inside = below if inside is None else make_binary(Op.AND, inside, below)
        return make_select(inside, x, make_broadcast(value, x.shape, []))

    def compact(self, x: HloInstruction, sizes: dict[int, HloInstruction]) -> HloInstruction:
        """``x``'s valid elements first, row-major in its dynamic shape (a gather of one
        element per position: position i reads the element whose dynamic row-major
        index is i; positions past the valid count read clamped, unused elements)."""
        bounds = x.shape.dimensions
        total = math.prod(bounds)
        index_shape = Shape.array(S32, [total])
        rest = make_iota(self.entry, index_shape, 0)
        offset = None
        stride = 1
        for d in reversed(range(len(bounds))):
            size = sizes.get(d)
            if size is None:
                size = self.s32(bounds[d])
            else:  # a size of 0 leaves nothing valid; 1 keeps the division defined
                size = make_binary(Op.MAXIMUM, size, self.s32(1))
            size = make_broadcast(size, index_shape, [])
            digit = make_binary(Op.REMAINDER, rest, size)
            rest = make_binary(Op.DIVIDE, rest, size)
            scale = make_broadcast(self.s32(stride), index_shape, [])
            term = make_binary(Op.MULTIPLY, digit, scale)
            offset = term if offset is None else make_binary(Op.ADD, offset, term)
            stride *= bounds[d]
        et = x.shape.element_type
        flat = make_reshape(x, Shape.array(et, [total]))
        starts = make_reshape(offset, Shape.array(S32, [total, 1]))
        numbers = GatherDimensionNumbers(
            offset_dims=(), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1
        )
        attributes = {**to_attributes(numbers), "slice_sizes": (1,)}
        gathered = make(Op.GATHER, [flat, starts], attributes)
        return make_reshape(gathered, Shape.array(et, bounds))

    def known(self, instruction: HloInstruction) -> dict[int, HloInstruction]:
        return {d: s for d, s in enumerate(self.of(instruction)) if s is not None}

    # -- sizes ---------------------------------------------------------------------------------
    def of(self, instruction: HloInstruction) -> Sizes:
        sizes = self.sizes.get(id(instruction))
        return sizes if sizes is not None else _unknown(instruction.shape)

    def run(self) -> DynamicSignature:
        self.add_size_parameters()
        for instruction in list(self.entry.post_order()):
            if instruction.parent is not self.entry or instruction.opcode is Op.PARAMETER:
                continue
            rule = _RULES.get(instruction.opcode)
            if rule is None:
                rule = _elementwise if instruction.opcode.is_elementwise else _refuse_dynamic
            result = rule(self, instruction)
            if isinstance(result, _Replace):
                self.entry.replace_instruction(instruction, result.value)
                self.sizes[id(result.value)] = result.sizes
            else:
                self.sizes[id(instruction)] = result
        self.carry_result_sizes()
        self.entry.sort_topologically()
        return self.signature

    def add_size_parameters(self) -> None:
        parameters = self.entry.parameters
        number = len(parameters)
        for p in parameters:
            if p.shape.is_tuple and not p.shape.is_static:
                raise UnimplementedError(
                    f"parameter {p.name} ({p.shape}) has dynamic dimensions inside a tuple; "
                    "the CPU backend takes them in array parameters only"
                )
            if not p.shape.is_array:
                continue
            sizes: list[Size] = []
            for d in range(p.shape.rank):
                if not p.shape.is_dynamic_dimension(d):
                    sizes.append(None)
                    continue
                size = HloInstruction.create_parameter(
                    number, Shape.array(S32, []), f"{p.name}.size{d}"
                )
                self.entry.add_instruction(size)
                self.signature.parameter_sizes.append((p.parameter_number, d))
                sizes.append(size)
                number += 1
            self.sizes[id(p)] = tuple(sizes)

    def carry_result_sizes(self) -> None:
        root = self.entry.root
        leaves: list[tuple[HloInstruction, tuple[Size, ...]]] = []
        _flatten(root, self.of(root), leaves)
        self.signature.result_leaves = len(leaves)
        extra = []
        for k, (_, sizes) in enumerate(leaves):
            for d, size in enumerate(sizes):
                if size is not None:
                    self.signature.result_sizes.append((k, d))
                    extra.append(size)
        if extra:
            self.entry.root = make_tuple([leaf for leaf, _ in leaves] + extra, self.entry)
        else:
            self.signature.result_leaves = 0  # nothing to trim: the results as they are


@dataclass
class _Replace:
    """What a rule returns to replace the instruction: the value and its sizes."""

    value: HloInstruction
    sizes: Sizes


def _unknown(shape: Shape) -> Sizes:
    if shape.is_tuple:
        return tuple(_unknown(s) for s in shape.tuple_shapes)
    if shape.is_array:
        return (None,) * shape.rank
    return ()


def _flatten(
    value: HloInstruction, sizes: Sizes, out: list[tuple[HloInstruction, tuple[Size, ...]]]
) -> None:
    """The array leaves of ``value`` (tuple elements read with get-tuple-element)."""
    if value.shape.is_tuple:
        for k in range(len(value.shape.tuple_shapes)):
            element = (
                value.operand(k) if value.opcode is Op.TUPLE else make_get_tuple_element(value, k)
            )
            _flatten(element, sizes[k], out)
    elif value.shape.is_array:
        out.append((value, tuple(sizes)))


# -- rules: one per opcode; each returns the result's sizes, or a _Replace --------------


Rule = Callable[[_Padder, HloInstruction], Any]
_RULES: dict[HloOpcode, Rule] = {}


def _rule(*opcodes: HloOpcode) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        for opcode in opcodes:
            _RULES[opcode] = fn
        return fn

    return register


def _any_known(padder: _Padder, instruction: HloInstruction) -> bool:
    return any(_has_known(padder.of(o)) for o in instruction.operands)


def _refuse_dynamic(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """An op without a rule: fine while no operand has a dynamic size."""
    for k, operand in enumerate(instruction.operands):
        if _has_known(padder.of(operand)):
            raise UnimplementedError(
                f"{instruction.opcode.value} {instruction.name}: operand {k} ({operand.shape}) "
                "has a dynamic size, and the CPU backend cannot yet keep its padding out of "
                f"a {instruction.opcode.value}; dynamic sizes run through elementwise ops, "
                "broadcast, transpose, reshape, slice, pad, concatenate, reduce and dot"
            )
    return _unknown(instruction.shape)


def _has_known(sizes: Sizes) -> bool:
    return any(_has_known(s) if isinstance(s, tuple) else s is not None for s in sizes)


def _elementwise(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """Same-shaped operands: each dimension's size from the first operand that has one."""
    if instruction.opcode is Op.MAP and _any_known(padder, instruction):
        return _refuse_dynamic(padder, instruction)
    rank = instruction.shape.rank if instruction.shape.is_array else 0
    sizes: list[Size] = [None] * rank
    for operand in instruction.operands:
        if operand.shape.is_array and operand.shape.rank == rank:
            for d, size in enumerate(padder.of(operand)):
                if sizes[d] is None:
                    sizes[d] = size
    return tuple(sizes)


@_rule(Op.COPY, Op.CONVERT, Op.REDUCE_PRECISION, Op.BITCAST_CONVERT)
def _same_shape(padder: _Padder, instruction: HloInstruction) -> Sizes:
    operand = instruction.operand(0)
    if operand.shape.rank != instruction.shape.rank:
        return _refuse_dynamic(padder, instruction)
    return padder.of(operand)


@_rule(Op.CONSTANT, Op.IOTA, Op.RNG, Op.AFTER_ALL, Op.PARTITION_ID, Op.REPLICA_ID)
def _no_sizes(padder: _Padder, instruction: HloInstruction) -> Sizes:
    return _unknown(instruction.shape)


@_rule(Op.GET_DIMENSION_SIZE)
def _get_dimension_size(padder: _Padder, instruction: HloInstruction) -> Any:
    (dim,) = instruction.dimensions
    return _Replace(padder.size_or_bound(instruction.operand(0), dim), ())


@_rule(Op.SET_DIMENSION_SIZE)
def _set_dimension_size(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """The size operand becomes the dimension's size; the instruction stays (its native
    emitter checks the size against the bound and passes the buffer through)."""
    (dim,) = instruction.dimensions
    operand, size = instruction.operands
    old = padder.of(operand)
    if old[dim] is not None:  # a growing size uncovers zeros, as in the interpreter
        zero = padder.zero(operand.shape.element_type)
        instruction.replace_operand(0, padder.mask(operand, {dim: old[dim]}, zero))
    sizes = list(old)
    sizes[dim] = size
    return tuple(sizes)


@_rule(Op.DYNAMIC_RESHAPE)
def _dynamic_reshape(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """The native emitter lays the operand's leading elements out in the sizes; an operand
    with dynamic sizes of its own is compacted first (its valid elements, row-major in
    its dynamic shape, moved to the front of its buffer)."""
    operand = instruction.operand(0)
    known = padder.known(operand)
    if known and operand.shape.element_count():
        instruction.replace_operand(0, padder.compact(operand, known))
    return tuple(
        size if instruction.shape.is_dynamic_dimension(d) else None
        for d, size in enumerate(instruction.operands[1:])
    )


@_rule(Op.BROADCAST)
def _broadcast(padder: _Padder, instruction: HloInstruction) -> Sizes:
    sizes: list[Size] = [None] * instruction.shape.rank
    for i, d in enumerate(instruction.dimensions):
        sizes[d] = padder.of(instruction.operand(0))[i]
    return tuple(sizes)


@_rule(Op.TRANSPOSE)
def _transpose(padder: _Padder, instruction: HloInstruction) -> Sizes:
    sizes = padder.of(instruction.operand(0))
    return tuple(sizes[p] for p in instruction.dimensions)


@_rule(Op.RESHAPE)
def _reshape(padder: _Padder, instruction: HloInstruction) -> Sizes:
    operand = instruction.operand(0)
    kept = reshape_kept_dimensions(operand.shape.dimensions, instruction.shape.dimensions)
    sizes: list[Size] = [None] * instruction.shape.rank
    for d, size in padder.known(operand).items():
        if d not in kept:
            raise UnimplementedError(
                f"reshape {instruction.name}: dimension {d} of {operand.shape} has a dynamic "
                f"size and the reshape to {instruction.shape} does not keep it whole"
            )
        sizes[kept[d]] = size
    return tuple(sizes)


@_rule(Op.TUPLE)
def _tuple(padder: _Padder, instruction: HloInstruction) -> Sizes:
    return tuple(padder.of(o) for o in instruction.operands)


@_rule(Op.GET_TUPLE_ELEMENT)
def _get_tuple_element(padder: _Padder, instruction: HloInstruction) -> Sizes:
    return padder.of(instruction.operand(0))[instruction.tuple_index]


@_rule(Op.SLICE)
def _slice(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """The slice of the valid part: ceil((min(size, limit) - start) / stride), at least 0."""
    operand = instruction.operand(0)
    sizes: list[Size] = [None] * instruction.shape.rank
    triples = instruction.attribute("slice")
    for d, size in padder.known(operand).items():
        start, limit, stride = (int(v) for v in triples[d])
        if instruction.shape.dimensions[d] == 1 and not instruction.shape.is_dynamic_dimension(d):
            continue
        end = make_binary(Op.MINIMUM, size, padder.s32(limit))
        count = make_binary(Op.SUBTRACT, end, padder.s32(start - (stride - 1)))
        count = make_binary(Op.DIVIDE, count, padder.s32(stride))
        sizes[d] = make_binary(Op.MAXIMUM, count, padder.s32(0))
    return tuple(sizes)


@_rule(Op.PAD)
def _pad(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """Padding goes after the valid part: the operand's padding becomes the padding value."""
    operand, value = instruction.operands
    known = padder.known(operand)
    if not known:
        return _unknown(instruction.shape)
    instruction.replace_operand(0, padder.mask(operand, known, value))
    sizes: list[Size] = [None] * instruction.shape.rank
    for d, size in known.items():
        low, high, interior = instruction.padding_config.as_triples()[d]
        before = make_binary(Op.SUBTRACT, size, padder.s32(1))
        gaps = make_binary(Op.MAXIMUM, before, padder.s32(0))
        total = make_binary(Op.ADD, size, make_binary(Op.MULTIPLY, gaps, padder.s32(interior)))
        total = make_binary(Op.ADD, total, padder.s32(low + high))
        sizes[d] = make_binary(Op.MAXIMUM, total, padder.s32(0))
    return tuple(sizes)


@_rule(Op.CONCATENATE)
def _concatenate(padder: _Padder, instruction: HloInstruction) -> Any:
    (axis,) = instruction.dimensions
    operands = instruction.operands
    sizes = list(_elementwise_except(padder, operands, axis))
    if all(padder.of(o)[axis] is None for o in operands):
        return tuple(sizes)
    shape = instruction.shape
    value = make_broadcast(padder.zero(shape.element_type), shape, [])
    offset = padder.s32(0)
    origin = padder.s32(0)
    for operand in operands:
        starts = [offset if d == axis else origin for d in range(shape.rank)]
        value = make(Op.DYNAMIC_UPDATE_SLICE, [value, operand, *starts])
        offset = make_binary(Op.ADD, offset, padder.size_or_bound(operand, axis))
    sizes[axis] = offset
    return _Replace(value, tuple(sizes))


def _elementwise_except(padder: _Padder, operands: Any, axis: int) -> list[Size]:
    rank = operands[0].shape.rank
    sizes: list[Size] = [None] * rank
    for operand in operands:
        for d, size in enumerate(padder.of(operand)):
            if d != axis and sizes[d] is None:
                sizes[d] = size
    return sizes


@_rule(Op.REDUCE)
def _reduce(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """Padding along a reduced dimension reads as the init value, which changes nothing."""
    n = instruction.operand_count // 2
    reduced = set(instruction.dimensions)
    inputs, inits = instruction.operands[:n], instruction.operands[n:]
    for k, (x, init) in enumerate(zip(inputs, inits, strict=True)):
        masked = {d: s for d, s in padder.known(x).items() if d in reduced}
        if masked:
            instruction.replace_operand(k, padder.mask(x, masked, init))
    first = padder.of(inputs[0])
    kept = tuple(first[d] for d in range(len(first)) if d not in reduced)
    if instruction.shape.is_tuple:
        return tuple(kept for _ in range(n))
    return kept


@_rule(Op.DOT)
def _dot(padder: _Padder, instruction: HloInstruction) -> Sizes:
    """Zeros past the size of a contracted dimension (on both sides, whichever knows it)."""
    lhs, rhs = instruction.operands
    dn = instruction.dot_dimension_numbers
    ls, rs = padder.of(lhs), padder.of(rhs)
    lmask, rmask = {}, {}
    for a, b in zip(dn.lhs_contracting_dimensions, dn.rhs_contracting_dimensions, strict=True):
        size = ls[a] if ls[a] is not None else rs[b]
        if size is not None:
            lmask[a], rmask[b] = size, size
    if lmask:
        instruction.replace_operand(0, padder.mask(lhs, lmask, padder.zero(lhs.shape.element_type)))
        instruction.replace_operand(1, padder.mask(rhs, rmask, padder.zero(rhs.shape.element_type)))
    batch = [
        ls[a] if ls[a] is not None else rs[b]
        for a, b in zip(dn.lhs_batch_dimensions, dn.rhs_batch_dimensions, strict=True)
    ]
    used_l = set(dn.lhs_batch_dimensions) | set(dn.lhs_contracting_dimensions)
    used_r = set(dn.rhs_batch_dimensions) | set(dn.rhs_contracting_dimensions)
    free_l = [ls[d] for d in range(lhs.shape.rank) if d not in used_l]
    free_r = [rs[d] for d in range(rhs.shape.rank) if d not in used_r]
    return tuple(batch + free_l + free_r)


__all__ = ["DYNAMIC_OPS", "DynamicPadder", "DynamicSignature", "has_dynamic_dimensions"]
