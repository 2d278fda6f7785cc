"""Loop kernels: fusions, single elementwise or movement instructions, and reductions.

A kernel is ``void k(i8** buffers, i64 start, i64 stop)`` over a range of its
iteration space (so that ``xlapy_parallel_for`` can split it); it forwards to
an always-inlined body whose buffer arguments are ``noalias`` (except a buffer
written in place), which lets LLVM vectorize without runtime alias checks.

Loops run over the output in row-major order, innermost dimension innermost.
When every value of a loop fusion is read at the same linear position
(elementwise chains, reshapes, scalar broadcasts), the loop is one flat loop
over blocks of elements. Reductions let LLVM reassociate the reducer (the
spec leaves the order of a reduction to the implementation), so the loop
vectorizer keeps vector partial results.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....passes import default_can_emit
from ..buffers import leaves
from ..elemental import emit_convert, emit_elemental, is_native_type
from ..elemental.support import WIDE_VECTORS, mark_compute_heavy
from ..ir_support import Index, for_range, i64, store_element, typed_pointer
from ..llvm_types import I8_PTR, I64, KERNEL_TYPE, VOID, NotEmittable
from . import reduce_minmax
from .generators import GENERATORS, ElementEmitter, Generator, buffer_reader, scalar_constant

Op = HloOpcode
PARALLEL_MIN_ELEMENTS = 1 << 17  # below this, starting threads costs more than it saves
# Vectors in flight in a reduction's innermost loop (ir_support.for_range).
REDUCE_INTERLEAVE = 8
# A 512-bit loop computing a polynomial approximation (softmax's exp) keeps 2: 4 copies
# ran 4% faster (softmax 4096 x 1024: 0.93 against 0.98 of XLA's time) but doubled the
# kernel's LLVM time (25 -> 13 ms to optimize, 22 -> 10 to make code), the larger part of
# the compile the issue measures against XLA's.
HEAVY_INTERLEAVE = 2
FLAT_BLOCK = 1024  # elements per parallel work unit of a flat loop

# Opcodes a flat loop can generate without a multi-index.
_LINEAR_SAFE = frozenset({Op.PARAMETER, Op.CONSTANT, Op.RESHAPE, Op.BITCAST, Op.COPY, Op.TUPLE})


class Kernel:
    """A kernel function under construction (see the module docstring)."""

    def __init__(self, fe: object, name: str, n_buffers: int, aliased: Sequence[int] = ()) -> None:
        m = fe.m  # type: ignore[attr-defined]
        self.m = m
        self.n_buffers = n_buffers
        self.function = ir.Function(m.ir, KERNEL_TYPE, m.unique_name(name))
        self.function.linkage = "internal"
        body_type = ir.FunctionType(VOID, [I8_PTR] * n_buffers + [I64, I64])
        self.body = ir.Function(m.ir, body_type, m.unique_name(name + ".body"))
        self.body.linkage = "internal"
        self.body.attributes.add("alwaysinline")
        for k, arg in enumerate(self.body.args[:n_buffers]):
            if k not in aliased:
                arg.add_attribute("noalias")
        self.buffers = list(self.body.args[:n_buffers])
        # Set while a row group is emitted: iterate over rows of this many (row_groups).
        self.rows: int | None = getattr(fe, "row_mode", None)
        self.start, self.stop = self.body.args[n_buffers:]
        self.b = ir.IRBuilder(self.body.append_basic_block("entry"))

    def finish(self) -> None:
        self.b.ret_void()
        if WIDE_VECTORS in self.body.attributes:  # see elemental.support.mark_compute_heavy
            self.function.attributes.add("noinline")
            mark_compute_heavy(self.function)
        b = ir.IRBuilder(self.function.append_basic_block("entry"))
        table, start, stop = self.function.args
        pointers = [b.load(b.gep(table, [i64(k)])) for k in range(self.n_buffers)]
        b.call(self.body, [*pointers, start, stop])
        b.ret_void()
        self.m.kernel_count += 1

    def discard(self) -> None:
        for function in (self.function, self.body):
            self.m.ir.globals.pop(function.name, None)


def is_loop_opcode(op: HloOpcode) -> bool:
    """Whether instructions of ``op`` become loop kernels here (when no emitter of
    ``THUNK_EMITTERS`` takes them first)."""
    return op is Op.FUSION or op is Op.REDUCE or op.is_elementwise or op in GENERATORS


def try_emit(fe: object, instruction: HloInstruction) -> bool:
    """Emit ``instruction`` as a loop kernel if it is one; False if it is not."""
    op = instruction.opcode
    if not is_loop_opcode(op):
        return False
    computation = instruction.fused_computation if op is Op.FUSION else None
    emit_fused(fe, instruction, computation)
    return True


def can_emit_fused(instruction: HloInstruction) -> bool:
    """What this module's kernels generate inside a fusion (the fusion pass asks): the
    pass's default set, on the element types ``elemental`` has native code for."""
    if not default_can_emit(instruction):
        return False
    shapes = [instruction.shape, *(o.shape for o in instruction.operands)]
    return all(is_native_type(s.element_type) for s in shapes if s.is_array)


def emit_single(fe: object, instruction: HloInstruction) -> None:
    """Emit one instruction that ``elemental`` computes per element as its own loop kernel
    (for ops the trait table does not call elementwise, such as bitcast-convert)."""
    emit_fused(fe, instruction, None)


def can_run_in_place(instruction: HloInstruction) -> list[int]:
    """Operands whose buffer the kernel of ``instruction`` may overwrite (read at the same index)."""
    op = instruction.opcode
    if op in (Op.DYNAMIC_UPDATE_SLICE, Op.SCATTER) and instruction.shape.is_array:
        return [0]
    if op.is_elementwise and instruction.shape.is_array:
        return [
            k
            for k, o in enumerate(instruction.operands)
            if o.shape.dimensions == instruction.shape.dimensions
            and o.shape.element_type.byte_width == instruction.shape.element_type.byte_width
        ]
    if op is Op.FUSION and instruction.shape.is_array and instruction.fusion_kind == "kLoop":
        computation = instruction.fused_computation
        if not _is_linear(computation):
            return []
        return [
            k
            for k, o in enumerate(instruction.operands)
            if o.shape.dimensions == instruction.shape.dimensions
            and o.shape.element_type.byte_width == instruction.shape.element_type.byte_width
        ]
    return []


def _is_linear(computation: HloComputation) -> bool:
    """True when every value is read at the output's linear position (a flat loop works)."""
    root = computation.root
    count = None
    for instruction in computation.instructions:
        shape = instruction.shape
        if shape.is_tuple:
            if instruction is not root:
                return False
            continue
        op = instruction.opcode
        if op is Op.BROADCAST and instruction.operand(0).shape.is_scalar:
            continue
        if shape.is_scalar and op in (Op.CONSTANT, Op.PARAMETER):
            continue
        if not (op in _LINEAR_SAFE or op.is_elementwise):
            return False
        if op.is_elementwise and any(
            o.shape.dimensions != shape.dimensions for o in instruction.operands
        ):
            return False
        n = shape.element_count()
        if count is None:
            count = n
        elif n != count:
            return False
    return True


def emit_fused(fe: object, instruction: HloInstruction, computation: HloComputation | None) -> None:
    """One kernel for a fusion (``computation``) or for a single instruction."""
    for operand in instruction.operands:
        if not operand.shape.is_array:
            raise NotEmittable(f"{instruction.opcode.value} with a {operand.shape} operand")
    outputs = leaves(fe.value(instruction))  # type: ignore[attr-defined]
    if not outputs:
        raise NotEmittable("no array output")
    in_place = fe.buffers.in_place.get(id(instruction))  # type: ignore[attr-defined]
    n_in = instruction.operand_count
    aliased = (in_place, n_in) if in_place is not None else ()
    kernel = Kernel(
        fe, f"{instruction.opcode.value}_{instruction.name}", n_in + len(outputs), aliased
    )
    try:
        emitter = ElementEmitter(
            [],
            constant_pointer=lambda array: fe.m.constant_pointer(kernel.b, array),  # type: ignore[attr-defined]
        )
        readers = [
            buffer_reader(kernel.buffers[k], o.shape.element_type, o.shape.dimensions)
            for k, o in enumerate(instruction.operands)
        ]
        if computation is None:
            for operand, reader in zip(instruction.operands, readers, strict=True):
                emitter.bind(operand, reader)
            roots = [instruction]
            linear = _single_is_linear(instruction)
        else:
            emitter.parameters = readers
            root = computation.root
            roots = list(root.operands) if root.opcode is Op.TUPLE else [root]
            linear = _is_linear(computation)
        out_pointers = kernel.buffers[n_in:]
        if (
            computation is not None
            and any(i.opcode is Op.REDUCE for i in computation.instructions)
            or any(r.opcode is Op.REDUCE for r in roots)
        ):
            n, parallel = emit_reduction(kernel, emitter, roots, out_pointers, computation)
        else:
            tiled = _transposes_minor_dim(computation.instructions if computation else roots)
            n, parallel = _emit_elementwise_loop(
                kernel, emitter, roots, out_pointers, linear, tiled
            )
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    pointers = fe.operand_leaf_pointers(instruction) + [fe.pointer(s) for s in outputs]  # type: ignore[attr-defined]
    fe.call_kernel(kernel.function, pointers, n, parallel)  # type: ignore[attr-defined]


def _single_is_linear(instruction: HloInstruction) -> bool:
    op = instruction.opcode
    if op.is_elementwise:
        return all(
            o.shape.dimensions == instruction.shape.dimensions or o.shape.is_scalar
            for o in instruction.operands
        )
    return op in (Op.RESHAPE, Op.BITCAST, Op.COPY)


def _emit_elementwise_loop(
    kernel: Kernel,
    emitter: ElementEmitter,
    roots: list[HloInstruction],
    outputs: list[ir.Value],
    linear: bool,
    tiled: bool = False,
) -> tuple[int, bool]:
    dims = roots[0].shape.dimensions
    for root in roots:
        if root.shape.dimensions != dims:
            raise NotEmittable("a multi-output loop fusion whose outputs differ in shape")
    generators = [emitter.generator(r) for r in roots]
    stores = [
        (typed_pointer(kernel.b, out, r.shape.element_type), g)
        for out, r, g in zip(outputs, roots, generators, strict=True)
    ]
    count = math.prod(dims)
    parallel = count >= PARALLEL_MIN_ELEMENTS
    b = kernel.b

    def body(index: Index) -> None:
        for pointer, generator in stores:
            value = generator(b, index)
            if dims:
                store_element(b, value, b.gep(pointer, [index.linear(b)]))
            else:
                store_element(b, value, pointer)

    if not dims:
        body(Index((), multi=[]))
        return 1, False
    if count == 0:
        return 1, False
    if linear or len(dims) == 1:
        block = FLAT_BLOCK if parallel else count
        if kernel.rows == dims[0]:
            block = count // dims[0]  # one iteration per row (row_groups)
        n = -(-count // block)
        first = b.mul(kernel.start, i64(block))
        last = b.mul(kernel.stop, i64(block))
        last = b.select(b.icmp_signed(">", last, i64(count)), i64(count), last)
        with for_range(b, first, last, "e") as i:
            body(Index(dims, linear=i))
        return n, parallel and n >= 2
    n = dims[0]
    if tiled:
        _tiled_nest(b, dims, kernel.start, kernel.stop, body)
    else:
        nest(b, dims, kernel.start, kernel.stop, body)
    return n, parallel and n >= 2


TILE = 32


def _transposes_minor_dim(instructions: object) -> bool:
    """Whether some transpose reads its operand's innermost dimension across the output's
    rows: then a row-major loop strides through memory, and tiles keep both sides in cache."""
    for instruction in instructions:  # type: ignore[attr-defined]
        if instruction.opcode is Op.TRANSPOSE:
            perm = [int(d) for d in instruction.attribute("dimensions")]
            if perm and perm[-1] != len(perm) - 1:
                return True
    return False


def _tiled_nest(
    b: ir.IRBuilder,
    dims: Sequence[int],
    start: ir.Value,
    stop: ir.Value,
    body: Callable[[Index], None],
) -> None:
    """Loops over ``dims`` with the last two dimensions walked in TILE x TILE blocks."""
    rank = len(dims)
    if rank < 2:
        nest(b, dims, start, stop, body)
        return

    def bounds(d: int) -> tuple[ir.Value, ir.Value]:
        return (start, stop) if d == 0 else (i64(0), i64(dims[d]))

    def outer(d: int, multi: list[ir.Value]) -> None:
        if d == rank - 2:
            tiles(multi)
            return
        lo, hi = bounds(d)
        with for_range(b, lo, hi, f"d{d}") as i:
            outer(d + 1, [*multi, i])

    def tiles(prefix: list[ir.Value]) -> None:
        row_lo, row_hi = bounds(rank - 2)
        rows_tiles = b.udiv(b.add(b.sub(row_hi, row_lo), i64(TILE - 1)), i64(TILE))
        col_tiles = -(-dims[-1] // TILE)
        with for_range(b, 0, rows_tiles, "tr") as tr:
            r0 = b.add(row_lo, b.mul(tr, i64(TILE)))
            r1 = b.add(r0, i64(TILE))
            r1 = b.select(b.icmp_signed(">", r1, row_hi), row_hi, r1)
            with for_range(b, 0, col_tiles, "tc") as tc:
                c0 = b.mul(tc, i64(TILE))
                c1 = b.add(c0, i64(TILE))
                c1 = b.select(b.icmp_signed(">", c1, i64(dims[-1])), i64(dims[-1]), c1)
                with for_range(b, r0, r1, "r") as r:
                    with for_range(b, c0, c1, "c") as c:
                        body(Index(dims, multi=[*prefix, r, c]))

    outer(0, [])


def nest(
    b: ir.IRBuilder,
    dims: Sequence[int],
    start: ir.Value,
    stop: ir.Value,
    body: Callable[[Index], None],
) -> None:
    """Loops over ``dims`` (the outermost over [start, stop)), linear index kept incrementally."""

    def level(d: int, multi: list[ir.Value], linear: ir.Value) -> None:
        if d == len(dims):
            body(Index(dims, multi=list(multi), linear=linear))
            return
        lo, hi = (start, stop) if d == 0 else (i64(0), i64(dims[d]))
        with for_range(b, lo, hi, f"d{d}") as i:
            inner = b.add(b.mul(linear, i64(dims[d]), flags=["nsw"]), i, flags=["nsw"])
            level(d + 1, [*multi, i], inner)

    level(0, [], i64(0))


# -- reductions -------------------------------------------------------------------------


def emit_scalar_computation(
    b: ir.IRBuilder, computation: HloComputation, arguments: Sequence[ir.Value]
) -> list[ir.Value]:
    """Inline a scalar computation (a reducer): its results, flattened."""
    values: dict[int, object] = {}
    for instruction in computation.post_order():
        op = instruction.opcode
        if op is Op.PARAMETER:
            values[id(instruction)] = arguments[instruction.parameter_number]
        elif op is Op.CONSTANT and instruction.shape.is_scalar:
            values[id(instruction)] = scalar_constant(
                instruction.literal.to_numpy(), instruction.shape.element_type
            )
        elif op is Op.TUPLE:
            values[id(instruction)] = tuple(values[id(o)] for o in instruction.operands)
        elif op is Op.GET_TUPLE_ELEMENT:
            values[id(instruction)] = values[id(instruction.operand(0))][instruction.tuple_index]  # type: ignore[index]
        elif (op.is_elementwise or op is Op.COPY) and instruction.shape.is_scalar:
            values[id(instruction)] = emit_elemental(
                b, instruction, [values[id(o)] for o in instruction.operands]
            )
        else:
            raise NotEmittable(f"a reducer containing {op.value} {instruction.shape}")
    result = values[id(computation.root)]
    return list(result) if isinstance(result, tuple) else [result]  # type: ignore[arg-type]


def _ints(value: object) -> list[int]:
    return [int(v) for v in value]  # type: ignore[union-attr]


def emit_reduction(
    kernel: Kernel,
    emitter: ElementEmitter,
    roots: list[HloInstruction],
    outputs: list[ir.Value],
    computation: HloComputation | None = None,
) -> tuple[int, bool]:
    """Reduce kernels: every root is a reduce over the same input space and dimensions,
    a side output of that input space (a value computed on the way), or an epilogue:
    an elementwise function of the reduce results, computed once per output element."""
    reduces = [r for r in roots if r.opcode is Op.REDUCE]
    if computation is not None:
        reduces += [
            i for i in computation.instructions if i.opcode is Op.REDUCE and i not in reduces
        ]
    first = reduces[0]
    in_dims = first.operand(0).shape.dimensions
    reduced = sorted(_ints(first.attribute("dimensions")))
    for r in reduces:
        if (
            r.operand(0).shape.dimensions != in_dims
            or sorted(_ints(r.attribute("dimensions"))) != reduced
        ):
            raise NotEmittable("a fusion of reduces over different dimensions")
    kept = [d for d in range(len(in_dims)) if d not in reduced]
    kept_dims = [in_dims[d] for d in kept]
    sides = [r for r in roots if r.opcode is not Op.REDUCE and r.shape.dimensions == in_dims]
    epilogues = [r for r in roots if r.opcode is not Op.REDUCE and r not in sides]
    for e in epilogues:
        if list(e.shape.dimensions) != kept_dims or not reduced:
            raise NotEmittable("a reduce fusion output that is neither reduced nor the input")
    if epilogues and any(not r.shape.is_array for r in reduces):
        raise NotEmittable("an epilogue over a variadic reduce")
    reduced_dims = [in_dims[d] for d in reduced]
    b = kernel.b
    out_of = {id(r): outputs[k] for k, r in enumerate(roots)}

    # Per reduce: input generators, init generators, reducer, output pointers.
    plans = []
    for r in reduces:
        n = r.operand_count // 2
        et_outputs = [
            s.element_type for s in (r.shape.tuple_shapes if r.shape.is_tuple else [r.shape])
        ]
        reducer = r.to_apply
        # The reducer may compute in other types than the operands (bf16 data, f32
        # accumulator): values are converted to its parameter types on the way in.
        param_types = [p.shape.element_type for p in reducer.parameters]
        root = reducer.root
        root_types = [
            s.element_type
            for s in (root.shape.tuple_shapes if root.shape.is_tuple else [root.shape])
        ]
        plans.append(
            {
                "inputs": [
                    converted(
                        emitter.generator(r.operand(k)),
                        r.operand(k).shape.element_type,
                        param_types[n + k],
                    )
                    for k in range(n)
                ],
                "inits": [
                    converted(
                        emitter.generator(r.operand(n + k)),
                        r.operand(n + k).shape.element_type,
                        param_types[k],
                    )
                    for k in range(n)
                ],
                "reducer": reducer,
                # A float max/min keeps three short chains (reduce_minmax).
                "minmax": reduce_minmax.minmax_kind(reducer) if n == 1 else None,
                "types": et_outputs,
                "accumulator_types": root_types,
                "instruction": r,
            }
        )
    side_stores = [
        (typed_pointer(b, out_of[id(s)], s.shape.element_type), emitter.generator(s)) for s in sides
    ]
    # Reduce outputs: a multi-output fusion's tuple leaves are consecutive per root.
    leaf = 0
    epilogue_outputs = {}
    for _k, r in enumerate(roots):
        if r in epilogues:
            epilogue_outputs[id(r)] = typed_pointer(b, outputs[leaf], r.shape.element_type)
            leaf += 1
        elif r.opcode is Op.REDUCE:
            count = len(r.shape.tuple_shapes) if r.shape.is_tuple else 1
            plans_for = next(p for p in plans if p["instruction"] is r)
            plans_for["outputs"] = [
                typed_pointer(b, outputs[leaf + j], t) for j, t in enumerate(plans_for["types"])
            ]
            leaf += count
        else:
            leaf += 1
    if len(outputs) != leaf:
        # outputs are one per leaf in root order; recompute when roots are single leaves
        raise NotEmittable("unexpected output layout of a multi-output reduce fusion")

    kept_count = math.prod(kept_dims)
    reduced_count = math.prod(reduced_dims)
    total = kept_count * reduced_count
    parallel = total >= PARALLEL_MIN_ELEMENTS and kept_count >= 2

    def input_index(kept_multi: list[ir.Value], reduced_multi: list[ir.Value]) -> Index:
        multi: list[ir.Value] = [i64(0)] * len(in_dims)
        for d, v in zip(kept, kept_multi, strict=True):
            multi[d] = v
        for d, v in zip(reduced, reduced_multi, strict=True):
            multi[d] = v
        return Index(in_dims, multi=multi)

    def reduce_one(kept_multi: list[ir.Value], out_linear: ir.Value) -> None:
        accumulators = [[g(b, Index((), multi=[])) for g in p["inits"]] for p in plans]
        accumulators = [
            reduce_minmax.initial(b, p["minmax"], acc[0]) if p["minmax"] else acc
            for p, acc in zip(plans, accumulators, strict=True)
        ]
        accumulators = plain_reduce(
            b, plans, accumulators, kept_multi, reduced_dims, input_index, side_stores
        )
        accumulators = [
            [reduce_minmax.result(b, p["minmax"], acc, p["accumulator_types"][0])]
            if p["minmax"]
            else acc
            for p, acc in zip(plans, accumulators, strict=True)
        ]
        for p, acc in zip(plans, accumulators, strict=True):
            results = [
                emit_convert(b, value, have, want)
                for value, have, want in zip(acc, p["accumulator_types"], p["types"], strict=True)
            ]
            for pointer, value in zip(p.get("outputs", []), results, strict=False):
                b.store(value, b.gep(pointer, [out_linear]) if kept_dims else pointer)
            if epilogues:
                emitter.bind(p["instruction"], lambda b, index, value=results[0]: value)
        index = Index(kept_dims, multi=kept_multi, linear=out_linear)
        for e in epilogues:
            pointer = epilogue_outputs[id(e)]
            value = emitter.generator(e)(b, index)
            b.store(value, b.gep(pointer, [out_linear]) if kept_dims else pointer)

    if not kept_dims:
        reduce_one([], i64(0))
        return 1, False
    if kept_count == 0:
        return 1, False
    nest(
        b,
        kept_dims,
        kernel.start,
        kernel.stop,
        lambda index: reduce_one(index.multi(b), index.linear(b)),
    )
    return kept_dims[0], parallel and kept_dims[0] >= 2


def converted(generator: Generator, have: object, want: object) -> Generator:
    if have == want:
        return generator
    return lambda b, index: emit_convert(b, generator(b, index), have, want)


def _reducer_step(
    b: ir.IRBuilder, plan: dict, acc: list[ir.Value], values: list[ir.Value]
) -> list[ir.Value]:
    if plan.get("minmax"):
        (value,) = values
        return reduce_minmax.step(b, plan["minmax"], acc, value)
    block = b.block
    before = len(block.instructions)
    result = emit_scalar_computation(b, plan["reducer"], [*acc, *values])
    # The spec leaves the order of a reduction open: let LLVM reassociate the
    # reducer's float additions and products, so the loop vectorizer keeps vector
    # partial results (as it does for integer ops and llvm.maximum).
    if b.block is block:
        for instruction in block.instructions[before:]:
            opname = getattr(instruction, "opname", "")
            if opname in ("fadd", "fmul") and "reassoc" not in instruction.flags:
                instruction.flags.append("reassoc")
    return result


def _interleave(plans: list[dict], function: ir.Function) -> int:
    """Vectors in flight for a reduce's innermost loop: REDUCE_INTERLEAVE, halved for a
    float max/min, which keeps three accumulators per vector (AVX2 has 16 registers).
    A body computing a polynomial approximation (exp in a softmax) is bound by its
    arithmetic, not by the accumulator's chain, and 8 copies of it spill registers:
    HEAVY_INTERLEAVE there."""
    if WIDE_VECTORS in function.attributes:
        return HEAVY_INTERLEAVE
    return REDUCE_INTERLEAVE // 2 if any(p.get("minmax") for p in plans) else REDUCE_INTERLEAVE


def plain_reduce(b, plans, accumulators, kept_multi, reduced_dims, input_index, side_stores):  # noqa: ANN001, ANN202
    """Sequential accumulation over the reduced dimensions (any reducer, any order of dims)."""
    if not reduced_dims:
        index = input_index(kept_multi, [])
        for pointer, g in side_stores:
            b.store(g(b, index), b.gep(pointer, [index.linear(b)]) if index.dims else pointer)
        return [
            _reducer_step(b, p, acc, [g(b, index) for g in p["inputs"]])
            for p, acc in zip(plans, accumulators, strict=True)
        ]
    state = accumulators

    def level(d: int, reduced_multi: list[ir.Value]) -> None:
        nonlocal state
        if d == len(reduced_dims):
            index = input_index(kept_multi, reduced_multi)
            for pointer, g in side_stores:
                b.store(g(b, index), b.gep(pointer, [index.linear(b)]))
            state = [
                _reducer_step(b, p, acc, [g(b, index) for g in p["inputs"]])
                for p, acc in zip(plans, state, strict=True)
            ]
            return
        before = b.block
        entry_state = state
        innermost = d == len(reduced_dims) - 1
        with for_range(
            b,
            0,
            reduced_dims[d],
            f"r{d}",
            (lambda: _interleave(plans, b.function)) if innermost else None,
        ) as i:
            phis = [[b.phi(v.type) for v in acc] for acc in entry_state]
            for phi_list, acc in zip(phis, entry_state, strict=True):
                for phi, v in zip(phi_list, acc, strict=True):
                    phi.add_incoming(v, before)
            state = [list(p) for p in phis]
            level(d + 1, [*reduced_multi, i])
            latch = b.block
            for phi_list, acc in zip(phis, state, strict=True):
                for phi, v in zip(phi_list, acc, strict=True):
                    phi.add_incoming(v, latch)
        # After the loop: the value is the phi's (if the loop ran) or the entry value.
        exit_block = b.block
        merged = []
        for phi_list, acc_in, acc_out in zip(phis, entry_state, state, strict=True):
            row = []
            for _phi_in, v_in, v_out in zip(phi_list, acc_in, acc_out, strict=True):
                m = b.phi(v_in.type)
                m.add_incoming(v_in, before)
                m.add_incoming(v_out, latch)
                row.append(m)
            merged.append(row)
        del exit_block
        state = merged

    level(0, [])
    return state
