"""Element generators: the value of an instruction at an index, as LLVM IR.

This is how fused loops are built (XLA's elemental IR emitter): the kernel
loops over its output and asks the root's generator for the element at each
index; a generator asks its operands' generators for the elements it needs.
Elementwise ops pass the index through, movement ops (broadcast, transpose,
slice, pad, ...) map it, and a reshape keeps the linear index, so data moves
only through registers and nothing is materialized in between.

Generated values are cached per (instruction, index), so a value with several
users inside one fusion is computed once per element.

Generators call generators, so a deep expression would be deep Python
recursion. Two things keep it bounded: generators are created operands first
(iteratively), and a chain of elementwise ops, which reads one index all the
way down, is evaluated bottom-up before its top is asked (``_warm``), so only
index-changing (movement) ops nest calls. An expression with more than
``MAX_GENERATOR_DEPTH`` of those on one path is ``NotEmittable``: the fusion
then runs through the interpreter's kernel rather than overflowing the stack.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..elemental import emit_convert, emit_elemental
from ..ir_support import I64, Index, checked_index, i64, load_element, typed_pointer
from ..llvm_types import NotEmittable, llvm_type

Op = HloOpcode
Generator = Callable[[ir.IRBuilder, Index], ir.Value]


def _ints(value: Any) -> list[int]:
    if value is None:
        return []
    if hasattr(value, "values"):
        value = value.values
    return [int(v) for v in value]


def scalar_constant(value: Any, element_type: PrimitiveType) -> ir.Constant:
    """An LLVM constant with the exact bits of a numpy scalar of ``element_type``."""
    array = np.asarray(value, dtype=element_type.dtype).reshape(())
    ty = llvm_type(element_type)
    if element_type.is_complex:  # the two parts, each with its exact bits
        part = element_type.component_type
        return ir.Constant(
            ty, [scalar_constant(array.real, part), scalar_constant(array.imag, part)]
        )
    if element_type.is_integral or element_type is PrimitiveType.PRED:
        bits = (
            int(array.astype(np.int64))
            if element_type.is_signed_integral
            else int(array.astype(np.uint64))
        )
        width = ty.width
        return ir.Constant(ty, bits & ((1 << width) - 1))
    width = element_type.dtype.itemsize * 8
    bits = int(array.view(f"u{width // 8}"))
    if isinstance(ty, ir.IntType):
        return ir.Constant(ty, bits)
    return ir.Constant(ir.IntType(width), bits).bitcast(ty)


# Not elementwise in the trait table (their shapes may differ), yet computed per element
# when the widths agree: emit.elementwise_bitcast routes only that case here.
_PER_ELEMENT = frozenset({HloOpcode.BITCAST_CONVERT})


# Index-changing generators one element may nest (each costs a few Python frames).
MAX_GENERATOR_DEPTH = 128


class ElementEmitter:
    """Generators for the instructions of one computation (fused, or a single instruction)."""

    def __init__(
        self,
        parameters: Sequence[Generator],
        constant_pointer: Callable[[np.ndarray], ir.Value],
    ) -> None:
        self.parameters = list(parameters)
        self.constant_pointer = constant_pointer
        self._generators: dict[int, Generator] = {}
        self._cache: dict[tuple[int, int], ir.Value] = {}
        self._keep: list[Index] = []
        # Instructions whose generator is this emitter's own cached one, and how many
        # index-changing generators its evaluation nests.
        self._depth: dict[int, int] = {}
        # Instructions whose generator reads its same-shaped operands at its own index.
        self._passes_index: set[int] = set()

    def reset_cache(self) -> None:
        """Forget cached values (call when the builder moves to another loop body)."""
        self._cache.clear()

    def generator(self, instruction: HloInstruction) -> Generator:
        key = id(instruction)
        if key not in self._generators:
            for node in self._missing(instruction):
                self._create(node)
        return self._generators[key]

    def _missing(self, instruction: HloInstruction) -> list[HloInstruction]:
        """``instruction`` and its transitive operands without a generator, operands first
        (iterative, so that a long chain does not recurse)."""
        order: list[HloInstruction] = []
        seen = {id(instruction)}
        stack = [(instruction, iter(instruction.operands))]
        while stack:
            node, pending = stack[-1]
            for operand in pending:
                if id(operand) not in seen and id(operand) not in self._generators:
                    seen.add(id(operand))
                    stack.append((operand, iter(operand.operands)))
                    break
            else:
                stack.pop()
                order.append(node)
        return order

    def _create(self, instruction: HloInstruction) -> None:
        """The cached generator of ``instruction``, whose operands have theirs already."""
        key = id(instruction)
        rule = GENERATORS.get(instruction.opcode)
        if rule is None and (
            instruction.opcode.is_elementwise or instruction.opcode in _PER_ELEMENT
        ):
            rule = _elementwise
        if rule is None:
            raise NotEmittable(f"{instruction.opcode.value} cannot be generated per element")
        passes_index = rule is _elementwise or rule is _identity
        depth = max(
            (
                self._depth.get(id(o), 0)
                + (0 if passes_index and o.shape.dimensions == instruction.shape.dimensions else 1)
                for o in instruction.operands
            ),
            default=0,
        )
        if depth > MAX_GENERATOR_DEPTH:
            raise NotEmittable(
                f"the fused expression at {instruction.name} nests {depth} index-changing ops "
                f"(more than {MAX_GENERATOR_DEPTH})"
            )
        raw = rule(self, instruction)

        def cached(b: ir.IRBuilder, index: Index, raw: Generator = raw) -> ir.Value:
            cache_key = (key, id(index))
            value = self._cache.get(cache_key)
            if value is None:
                if passes_index:
                    self._warm(instruction, b, index)
                value = raw(b, index)
                self._cache[cache_key] = value
                self._keep.append(index)  # ids stay unique while cached
            return value

        self._generators[key] = cached
        self._depth[key] = depth
        if passes_index:
            self._passes_index.add(key)

    def _warm(self, instruction: HloInstruction, b: ir.IRBuilder, index: Index) -> None:
        """Evaluate the operands of ``instruction`` that read ``index`` itself (chains of
        elementwise ops), deepest first, so that asking ``instruction`` finds them
        cached instead of recursing down the chain."""
        order: list[HloInstruction] = []
        seen: set[int] = set()
        stack = [(instruction, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            stack.append((node, True))
            if id(node) not in self._passes_index:
                continue
            for operand in node.operands:
                k = id(operand)
                if (
                    k not in seen
                    and k in self._depth
                    and operand.shape.dimensions == index.dims
                    and (k, id(index)) not in self._cache
                ):
                    seen.add(k)
                    stack.append((operand, False))
        for node in order[:-1]:  # the last one is ``instruction`` itself
            self._generators[id(node)](b, index)

    def bind(self, instruction: HloInstruction, generator: Generator) -> None:
        """Use ``generator`` for ``instruction`` (e.g. a buffer it was materialized in)."""
        self._generators[id(instruction)] = generator
        self._depth.pop(id(instruction), None)
        self._passes_index.discard(id(instruction))

    def operand(self, instruction: HloInstruction, k: int) -> Generator:
        return self.generator(instruction.operand(k))


def computation_generator(
    computation: HloComputation,
    parameters: Sequence[Generator],
    constant_pointer: Callable[[np.ndarray], ir.Value],
) -> tuple[ElementEmitter, Generator]:
    emitter = ElementEmitter(parameters, constant_pointer)
    return emitter, emitter.generator(computation.root)


def buffer_reader(pointer: ir.Value, element_type: PrimitiveType, dims: Sequence[int]) -> Generator:
    """A generator reading a row-major buffer (``pointer`` is an i8*)."""

    count = math.prod(dims)

    def read(b: ir.IRBuilder, index: Index) -> ir.Value:
        typed = typed_pointer(b, pointer, element_type)
        if not dims:
            return load_element(b, typed)
        linear = index.with_dims(dims).linear(b) if index.dims != tuple(dims) else index.linear(b)
        return load_element(b, b.gep(typed, [checked_index(b, linear, count)]))

    return read


# -- rules -----------------------------------------------------------------------------


def _same_index(b: ir.IRBuilder, index: Index, operand: HloInstruction) -> Index:
    dims = operand.shape.dimensions
    if dims == index.dims:
        return index
    if not dims:
        return Index((), multi=[])
    raise NotEmittable(f"operand {operand.name} of shape {operand.shape} is not elementwise here")


def _elementwise(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:

    operand_generators = [emitter.generator(o) for o in instruction.operands]

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        values = [
            g(b, _same_index(b, index, o))
            for g, o in zip(operand_generators, instruction.operands, strict=True)
        ]
        return emit_elemental(b, instruction, values)

    return gen


def _parameter(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    return emitter.parameters[instruction.parameter_number]


def _constant(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    shape = instruction.shape
    data = instruction.literal.to_numpy() if hasattr(instruction.literal, "to_numpy") else None
    if data is None:
        raise NotEmittable(f"constant {instruction.name} has no value xlapy can read")
    if shape.is_scalar:
        constant = scalar_constant(data, shape.element_type)
        return lambda b, index: constant
    array = np.ascontiguousarray(data)
    pointer_holder: list[ir.Value] = []

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        pointer = emitter.constant_pointer(array)
        return buffer_reader(pointer, shape.element_type, shape.dimensions)(b, index)

    del pointer_holder
    return gen


def _identity(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    return lambda b, index: operand(b, index)


def _reshape(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    operand_dims = instruction.operand(0).shape.dimensions
    if instruction.opcode is Op.BITCAST and not _is_plain_reshape(instruction):
        raise NotEmittable("a bitcast that changes the layout")

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        if not operand_dims:
            return operand(b, Index((), multi=[]))
        index.linear(b)
        return operand(b, index.with_dims(operand_dims))

    return gen


def _is_plain_reshape(instruction: HloInstruction) -> bool:
    for shape in (instruction.shape, instruction.operand(0).shape):
        layout = shape.layout
        if layout is not None and tuple(layout.minor_to_major) != tuple(
            reversed(range(shape.rank))
        ):
            return False
    return instruction.shape.element_type == instruction.operand(0).shape.element_type


def _broadcast(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    dims = _ints(instruction.attribute("dimensions"))
    operand_dims = instruction.operand(0).shape.dimensions

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        if not operand_dims:
            return operand(b, Index((), multi=[]))
        multi = index.multi(b)
        return operand(b, Index(operand_dims, multi=[multi[d] for d in dims]))

    return gen


def _transpose(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    perm = _ints(instruction.attribute("dimensions"))
    operand_dims = instruction.operand(0).shape.dimensions

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        source: list[ir.Value] = [i64(0)] * len(perm)
        for out_dim, in_dim in enumerate(perm):
            source[in_dim] = multi[out_dim]
        return operand(b, Index(operand_dims, multi=source))

    return gen


def _slice(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    spec = instruction.attribute("slice")
    starts = [int(t[0]) for t in spec]
    strides = [int(t[2]) if len(t) > 2 else 1 for t in spec]
    operand_dims = instruction.operand(0).shape.dimensions

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        source = [
            b.add(b.mul(m, i64(stride)) if stride != 1 else m, i64(start))
            if (start or stride != 1)
            else m
            for m, start, stride in zip(multi, starts, strides, strict=True)
        ]
        return operand(b, Index(operand_dims, multi=source))

    return gen


def _reverse(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    dims = set(_ints(instruction.attribute("dimensions")))
    operand_dims = instruction.operand(0).shape.dimensions

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        source = [
            b.sub(i64(size - 1), m) if d in dims else m
            for d, (m, size) in enumerate(zip(multi, operand_dims, strict=True))
        ]
        return operand(b, Index(operand_dims, multi=source))

    return gen


def _iota(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:

    dim = int(instruction.attribute("iota_dimension"))
    et = instruction.shape.element_type

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        return emit_convert(b, index.multi(b)[dim], PrimitiveType.S64, et)

    return gen


def _concatenate(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    dim = _ints(instruction.attribute("dimensions"))[0]
    pieces = []
    offset = 0
    for k, operand in enumerate(instruction.operands):
        size = operand.shape.dimensions[dim]
        pieces.append((emitter.operand(instruction, k), operand.shape.dimensions, offset, size))
        offset += size

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        position = multi[dim]
        result = None
        for generator, dims, start, size in pieces:
            if size == 0:
                continue
            local = b.sub(position, i64(start)) if start else position
            # Clamp so that every read is in bounds; the select picks the right piece.
            clamped = _clamp(b, local, 0, size - 1)
            value = generator(
                b, Index(dims, multi=[clamped if d == dim else m for d, m in enumerate(multi)])
            )
            if result is None:
                result = value
            else:
                result = b.select(b.icmp_signed(">=", position, i64(start)), value, result)
        if result is None:
            raise NotEmittable("concatenate of empty operands")
        return result

    return gen


def _clamp(b: ir.IRBuilder, value: ir.Value, low: int, high: int) -> ir.Value:
    value = b.select(b.icmp_signed("<", value, i64(low)), i64(low), value)
    return b.select(b.icmp_signed(">", value, i64(high)), i64(high), value)


def _pad(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    pad_value = emitter.operand(instruction, 1)
    dims_config = [tuple(int(v) for v in t) for t in instruction.attribute("padding").as_triples()]
    operand_dims = instruction.operand(0).shape.dimensions

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        inside = ir.Constant(ir.IntType(1), 1)
        source = []
        for m, d, size in zip(multi, dims_config, operand_dims, strict=True):
            low, interior = d[0], d[2]
            t = b.sub(m, i64(low)) if low else m
            if size == 0:
                inside = ir.Constant(ir.IntType(1), 0)
                source.append(i64(0))
                continue
            ok = b.icmp_signed(">=", t, i64(0))
            if interior:
                step = i64(interior + 1)
                safe_t = b.select(ok, t, i64(0))
                ok = b.and_(ok, b.icmp_unsigned("==", b.urem(safe_t, step), i64(0)))
                t = b.udiv(safe_t, step)
            ok = b.and_(ok, b.icmp_signed("<", t, i64(size)))
            inside = b.and_(inside, ok)
            source.append(_clamp(b, t, 0, size - 1))
        padding = pad_value(b, Index((), multi=[]))
        if any(s == 0 for s in operand_dims):
            return padding
        value = operand(b, Index(operand_dims, multi=source))
        return b.select(inside, value, padding)

    return gen


def start_index(b: ir.IRBuilder, value: ir.Value, et: PrimitiveType, limit: int) -> ir.Value:
    """A dynamic start index as i64, clamped to [0, limit] (unsigned types compare unsigned)."""
    if value.type.width < 64:
        value = b.sext(value, I64) if et.is_signed_integral else b.zext(value, I64)
    if et.is_signed_integral:
        return _clamp(b, value, 0, limit)
    return b.select(b.icmp_unsigned(">", value, i64(limit)), i64(limit), value)


def _dynamic_slice(emitter: ElementEmitter, instruction: HloInstruction) -> Generator:
    operand = emitter.operand(instruction, 0)
    operand_shape = instruction.operand(0).shape
    sizes = instruction.shape.dimensions
    starts = [emitter.operand(instruction, k) for k in range(1, instruction.operand_count)]
    start_types = [
        instruction.operand(k).shape.element_type for k in range(1, instruction.operand_count)
    ]
    for et in start_types:
        if not et.is_integral or et.bit_width < 8:
            raise NotEmittable(f"dynamic-slice start indices of type {et.hlo_name}")

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        source = []
        for d, (m, start, et) in enumerate(zip(multi, starts, start_types, strict=True)):
            limit = operand_shape.dimensions[d] - sizes[d]
            value = start_index(b, start(b, Index((), multi=[])), et, limit)
            source.append(b.add(value, m))
        return operand(b, Index(operand_shape.dimensions, multi=source))

    return gen


GENERATORS: dict[HloOpcode, Callable[[ElementEmitter, HloInstruction], Generator]] = {
    Op.PARAMETER: _parameter,
    Op.CONSTANT: _constant,
    Op.COPY: _identity,
    Op.RESHAPE: _reshape,
    Op.BITCAST: _reshape,
    Op.BROADCAST: _broadcast,
    Op.TRANSPOSE: _transpose,
    Op.SLICE: _slice,
    Op.REVERSE: _reverse,
    Op.IOTA: _iota,
    Op.CONCATENATE: _concatenate,
    Op.PAD: _pad,
    Op.DYNAMIC_SLICE: _dynamic_slice,
}

__all__ = [
    "MAX_GENERATOR_DEPTH",
    "ElementEmitter",
    "GENERATORS",
    "Generator",
    "I64",
    "buffer_reader",
    "computation_generator",
    "scalar_constant",
]
