"""What every GPU reduction kernel is built from: the reduces of an instruction (plans,
as the CPU's ``emit_reduction`` reads a fusion: reduces over one input space, side
outputs of that space, epilogues over the reduced space) and the steps on partial
results (accumulate, combine across a warp and a block, finish with the init value).

A partial result carries a validity flag instead of an identity element (a reducer
has none in general): a thread that saw no element holds an invalid partial, combining
with it keeps the other side, and the init value joins exactly once, when the last
partial becomes the output. So ``add`` with init 1 adds 1 once, whatever the grid.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ...cpu.elemental import emit_convert
from ...cpu.emit.loops import converted, emit_scalar_computation
from ...cpu.ir_support import Index, i64, store_element, typed_pointer
from ...cpu.llvm_types import NotEmittable, llvm_type
from .nvvm import I32, WARP, barrier, loop_with_state, shared_array, shared_slot, shuffle_down
from .plan import KernelFrame

Op = HloOpcode
I1 = ir.IntType(1)
TRUE = ir.Constant(I1, 1)
FALSE = ir.Constant(I1, 0)
Values = list[ir.Value]


def _ints(value: object) -> list[int]:
    return [int(v) for v in value]  # type: ignore[union-attr]


@dataclass(frozen=True)
class ReductionSpace:
    """The input space of a reduction and how it splits into kept and reduced dims."""

    in_dims: tuple[int, ...]
    reduced: tuple[int, ...]

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(d for d in range(len(self.in_dims)) if d not in self.reduced)

    @property
    def kept_dims(self) -> tuple[int, ...]:
        return tuple(self.in_dims[d] for d in self.kept)

    @property
    def reduced_dims(self) -> tuple[int, ...]:
        return tuple(self.in_dims[d] for d in self.reduced)

    @property
    def kept_count(self) -> int:
        return math.prod(self.kept_dims)

    @property
    def reduced_count(self) -> int:
        return math.prod(self.reduced_dims)

    @property
    def is_row(self) -> bool:
        """The reduced dims are the innermost ones: each output reads one contiguous row."""
        rank = len(self.in_dims)
        return self.reduced == tuple(range(rank - len(self.reduced), rank))

    def input_index(
        self,
        b: ir.IRBuilder,
        kept_linear: ir.Value,
        kept_multi: Sequence[ir.Value] | None,
        j: ir.Value,
    ) -> Index:
        """The input element ``j`` (linear over the reduced dims) of output ``kept_linear``."""
        if self.is_row:
            return Index(self.in_dims, linear=b.add(b.mul(kept_linear, i64(self.reduced_count)), j))
        reduced_multi = Index(self.reduced_dims, linear=j).multi(b)
        multi: list[ir.Value] = [i64(0)] * len(self.in_dims)
        for d, v in zip(self.kept, kept_multi or (), strict=True):
            multi[d] = v
        for d, v in zip(self.reduced, reduced_multi, strict=True):
            multi[d] = v
        return Index(self.in_dims, multi=multi)


def reduces_of(
    instruction: HloInstruction, computation: HloComputation | None
) -> tuple[list[HloInstruction], list[HloInstruction]]:
    """(roots, reduces) of a reduce instruction or of a fusion containing reduces."""
    if computation is None:
        return [instruction], [instruction]
    root = computation.root
    roots = list(root.operands) if root.opcode is Op.TUPLE else [root]
    reduces = [r for r in roots if r.opcode is Op.REDUCE]
    reduces += [i for i in computation.instructions if i.opcode is Op.REDUCE and i not in reduces]
    return roots, reduces


def reduction_space(
    instruction: HloInstruction, computation: HloComputation | None
) -> ReductionSpace:
    """The one input space every reduce of ``instruction`` shares (else NotEmittable)."""
    _, reduces = reduces_of(instruction, computation)
    if not reduces:
        raise NotEmittable(f"{instruction.name} contains no reduce")
    first = reduces[0]
    space = ReductionSpace(
        tuple(first.operand(0).shape.dimensions),
        tuple(sorted(_ints(first.attribute("dimensions")))),
    )
    for r in reduces:
        if (
            tuple(r.operand(0).shape.dimensions) != space.in_dims
            or tuple(sorted(_ints(r.attribute("dimensions")))) != space.reduced
        ):
            raise NotEmittable(
                f"{instruction.name}: a fusion of reduces over different input shapes or dimensions"
            )
    return space


@dataclass
class ReducePlan:
    """One reduce: its input and init generators (in the reducer's types), its reducer and
    where its results go."""

    instruction: HloInstruction
    inputs: list
    inits: list
    reducer: HloComputation
    types: list  # the reduce's output element types
    accumulator_types: list  # the reducer's result types
    outputs: list = field(default_factory=list)  # typed pointers (none for inner reduces)

    def as_cpu_plan(self) -> dict:
        """The dict form ``cpu.emit.loops.plain_reduce`` reads."""
        return {"reducer": self.reducer, "inputs": self.inputs}


class Reduction:
    """The reduces, side outputs and epilogues of one kernel frame."""

    def __init__(self, frame: KernelFrame, computation: HloComputation | None) -> None:
        instruction = frame.instruction
        if computation is None:
            frame.bind_operands()
        else:
            frame.bind_parameters()
        self.frame = frame
        self.b = frame.b
        self.emitter = frame.emitter
        self.space = reduction_space(instruction, computation)
        roots, reduces = reduces_of(instruction, computation)
        in_dims = self.space.in_dims
        sides = [r for r in roots if r.opcode is not Op.REDUCE and r.shape.dimensions == in_dims]
        self.epilogues = [r for r in roots if r.opcode is not Op.REDUCE and r not in sides]
        kept_dims = self.space.kept_dims
        for e in self.epilogues:
            if tuple(e.shape.dimensions) != kept_dims or not self.space.reduced:
                raise NotEmittable(
                    f"{instruction.name}: output {e.name} {e.shape} is neither reduced nor of the "
                    f"input space {list(in_dims)}"
                )
        if self.epilogues and any(not r.shape.is_array for r in reduces):
            raise NotEmittable(f"{instruction.name}: an epilogue over a variadic reduce")
        self.plans = [self._plan(r) for r in reduces]
        b = self.b
        leaf = 0
        self.side_stores = []
        self.epilogue_outputs = {}
        for r in roots:
            if r.opcode is Op.REDUCE:
                plan = next(p for p in self.plans if p.instruction is r)
                plan.outputs = [
                    typed_pointer(b, frame.outputs[leaf + j], t) for j, t in enumerate(plan.types)
                ]
                leaf += len(plan.types)
                continue
            pointer = typed_pointer(b, frame.outputs[leaf], r.shape.element_type)
            if r in sides:
                self.side_stores.append((pointer, self.emitter.generator(r)))
            else:
                self.epilogue_outputs[id(r)] = pointer
            leaf += 1
        if leaf != len(frame.outputs):
            raise NotEmittable(f"{instruction.name}: unexpected outputs of a reduce fusion")

    def _plan(self, r: HloInstruction) -> ReducePlan:
        n = r.operand_count // 2
        reducer = r.to_apply
        param_types = [p.shape.element_type for p in reducer.parameters]
        root = reducer.root
        shapes = root.shape.tuple_shapes if root.shape.is_tuple else [root.shape]
        outputs = r.shape.tuple_shapes if r.shape.is_tuple else [r.shape]
        gen = self.emitter.generator
        return ReducePlan(
            instruction=r,
            inputs=[
                converted(gen(r.operand(k)), r.operand(k).shape.element_type, param_types[n + k])
                for k in range(n)
            ],
            inits=[
                converted(
                    gen(r.operand(n + k)), r.operand(n + k).shape.element_type, param_types[k]
                )
                for k in range(n)
            ],
            reducer=reducer,
            types=[s.element_type for s in outputs],
            accumulator_types=[s.element_type for s in shapes],
        )

    # -- partial results: flat lists of values, plan after plan ----------------------------

    @property
    def accumulator_llvm_types(self) -> list[ir.Type]:
        return [llvm_type(t) for p in self.plans for t in p.accumulator_types]

    def split(self, flat: Sequence[ir.Value]) -> list[Values]:
        out, k = [], 0
        for p in self.plans:
            size = len(p.accumulator_types)
            out.append(list(flat[k : k + size]))
            k += size
        return out

    def combine(self, a: Sequence[ir.Value], c: Sequence[ir.Value]) -> Values:
        """The reducer applied plan by plan to two flat partial results."""
        out: Values = []
        for p, x, y in zip(self.plans, self.split(a), self.split(c), strict=True):
            out += emit_scalar_computation(self.b, p.reducer, [*x, *y])
        return out

    def element(self, index: Index, store_sides: bool = True) -> Values:
        """The input values at ``index`` (flat), storing the side outputs on the way."""
        b = self.b
        if store_sides:
            for pointer, generator in self.side_stores:
                store_element(b, generator(b, index), b.gep(pointer, [index.linear(b)]))
        return [g(b, index) for p in self.plans for g in p.inputs]

    def accumulate(
        self, start: ir.Value, stop: int, step: ir.Value | int, source: Callable[[ir.Value], Values]
    ) -> tuple[Values, ir.Value]:
        """A thread's partial over ``range(start, stop, step)``: (values, valid)."""
        b = self.b
        zeros = [ir.Constant(t, None) for t in self.accumulator_llvm_types]

        def body(j: ir.Value, state: Values) -> Values:
            acc, valid = state[:-1], state[-1]
            values = source(j)
            combined = self.combine(acc, values)
            return [b.select(valid, c, v) for c, v in zip(combined, values, strict=True)] + [TRUE]

        state = loop_with_state(b, start, i64(stop), step, [*zeros, FALSE], body)
        return state[:-1], state[-1]

    def merge(
        self, acc: Values, valid: ir.Value, other: Values, other_valid: ir.Value
    ) -> tuple[Values, ir.Value]:
        """Two partials with their flags: the reducer of both when both are valid."""
        b = self.b
        combined = self.combine(acc, other)
        both = b.and_(valid, other_valid)
        out = [
            b.select(both, c, b.select(valid, x, y))
            for c, x, y in zip(combined, acc, other, strict=True)
        ]
        return out, b.or_(valid, other_valid)

    def warp_reduce(self, acc: Values, valid: ir.Value) -> tuple[Values, ir.Value]:
        """A shuffle tree over the warp: lane 0 ends with the warp's partial."""
        b = self.b
        for delta in (16, 8, 4, 2, 1):
            other = [shuffle_down(b, v, delta) for v in acc]
            other_valid = b.trunc(shuffle_down(b, b.zext(valid, I32), delta), I1)
            acc, valid = self.merge(acc, valid, other, other_valid)
        return acc, valid

    def block_reduce(
        self, acc: Values, valid: ir.Value, thread: ir.Value, threads: int
    ) -> tuple[Values, ir.Value]:
        """Thread 0 ends with the block's partial: warps by shuffles, then the warps'
        partials through shared memory. Call in block-uniform control flow."""
        b = self.b
        warps = threads // WARP
        acc, valid = self.warp_reduce(acc, valid)
        if warps == 1:
            return acc, valid
        module = self.frame.module
        lane = b.and_(thread, i64(WARP - 1))
        warp = b.lshr(thread, i64(5))
        slots = [
            shared_array(module.ir, t, warps, module.unique_name(f"{self.frame.name}_partial"))
            for t in self.accumulator_llvm_types
        ]
        flags = shared_array(
            module.ir, ir.IntType(8), warps, module.unique_name(f"{self.frame.name}_valid")
        )
        with b.if_then(b.icmp_unsigned("==", lane, i64(0))):
            for slot, value in zip(slots, acc, strict=True):
                b.store(value, shared_slot(b, slot, warp))
            b.store(b.zext(valid, ir.IntType(8)), shared_slot(b, flags, warp))
        barrier(b)
        present = b.icmp_unsigned("<", lane, i64(warps))
        source = b.select(present, lane, i64(0))
        acc = [b.load(shared_slot(b, slot, source)) for slot in slots]
        loaded = b.icmp_unsigned(
            "!=", b.load(shared_slot(b, flags, source)), ir.Constant(ir.IntType(8), 0)
        )
        acc, valid = self.warp_reduce(acc, b.and_(present, loaded))
        barrier(b)  # the shared slots are free again (a loop may reduce the next row)
        return acc, valid

    def finish(self, acc: Values, valid: ir.Value | None, kept_linear: ir.Value) -> None:
        """Apply the init values once (only when ``valid`` is given: a partial without
        them), convert, store the outputs and the epilogues of output ``kept_linear``."""
        b = self.b
        scalar = Index((), multi=[])
        inits = [g(b, scalar) for p in self.plans for g in p.inits]
        if valid is not None:
            combined = self.combine(inits, acc)
            acc = [b.select(valid, c, i) for c, i in zip(combined, inits, strict=True)]
        kept_dims = self.space.kept_dims
        for p, values in zip(self.plans, self.split(acc), strict=True):
            results = [
                emit_convert(b, v, have, want)
                for v, have, want in zip(values, p.accumulator_types, p.types, strict=True)
            ]
            for pointer, value in zip(p.outputs, results, strict=False):
                store_element(b, value, b.gep(pointer, [kept_linear]))
            if self.epilogues:
                self.emitter.bind(p.instruction, lambda b, index, value=results[0]: value)
        if self.epilogues:
            index = Index(kept_dims, linear=kept_linear)
            for e in self.epilogues:
                pointer = self.epilogue_outputs[id(e)]
                store_element(b, self.emitter.generator(e)(b, index), b.gep(pointer, [kept_linear]))
