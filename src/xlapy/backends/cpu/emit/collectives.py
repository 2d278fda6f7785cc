"""Collectives between the devices of one process, with native data movement.

Devices are threads running the same executable (``distributed.run_on_devices``),
each with its own arena, so a device can read another's buffers directly. A
collective is three steps:

1. rendezvous: each device publishes the addresses of its operand buffers
   through the execution's ``CollectiveHub`` and receives those of its group,
   in group order, in a pointer table in its arena (a call into Python that
   moves no data; the hub also gives the timeouts and errors of a device that
   never arrives);
2. native kernels read the peers' buffers and write this device's result:
   all-reduce folds them with the inlined reducer (within one process each device
   folds a 1/N slice and writes it into every member's result, ``FOLD_SLICES``, so
   every element is read and written once in all), all-gather, all-to-all and
   reduce-scatter copy or reduce blocks, collective-permute and
   collective-broadcast copy the one source (or write zeros);
3. a second rendezvous, so no device reuses a buffer its peers still read.

Across processes (a multi-process job, ``distributed.process_hub``) a peer's buffer is
not addressable: the rendezvous exchanges the data itself over MPI and the table points
at the received copies, which the same native kernels then read (any collective, any
type, any reducer). An all-reduce of one group whose reducer MPI has
(``distributed.mpi_reduce``) is done whole by the rendezvous instead (MPI's all-reduce
into the output buffers) and the table's third word tells the native code to skip its
kernels. Only this process's devices meet in step 3: the received copies are private.

``replica-id`` and ``partition-id`` are here too: they are the device's place in
those groups, read from the run context.

The group size must be known when compiling (it sizes the kernels); groups of
unequal sizes fall back to the interpreter's kernels.
"""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
from llvmlite import ir

from ....distributed.checks import check_collective
from ....distributed.groups import group_of, instruction_groups
from ....distributed.mpi_reduce import allreduce_step, mpi_reduction
from ....errors import InvalidArgumentError
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....shape import Shape
from ..buffers import Slot, leaves
from ..ir_support import for_range, i64, typed_pointer
from ..llvm_types import I8_PTR, I32, I64, NotEmittable, llvm_type
from ..runtime.fallback import CONTEXT_OFFSETS, emit_thunk_call
from .loops import PARALLEL_MIN_ELEMENTS, Kernel, emit_scalar_computation
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
I8_PTR_PTR = I8_PTR.as_pointer()
# The rendezvous table starts with this device's position, the group's size, and how the
# native code goes on (one of the ``FOLD_*`` below).
HEADER = 3
# Every device folds its whole result from the group's operands (the table holds them).
FOLD_WHOLE = 0
# The rendezvous already wrote the results (a cross-process all-reduce done by MPI).
FOLD_DONE_BY_HOST = 1
# An all-reduce within one process: the table holds every member's operands and results,
# and each device folds its 1/N slice and writes it to every member's results.
FOLD_SLICES = 2
# Slices of an all-reduce start on 64-byte boundaries: no cache line is written by two
# devices.
CACHE_LINE = 64


# -- the rendezvous (Python: addresses only) ---------------------------------------------


def _device_index(ctx: Any) -> int:
    d = ctx.device
    return d.replica_id * d.num_partitions + d.partition_id


def _what(instruction: HloInstruction) -> str:
    return f"{instruction.opcode.value} {instruction.name}"


def _meet(ctx: Any, instruction: HloInstruction, site: str, group: list[int], value: Any) -> list:
    """Every member's ``value``, in group order (a group of one needs no hub)."""
    hub = ctx.device.collectives
    me = _device_index(ctx)
    if hub is None:
        if group != [me]:
            raise InvalidArgumentError(
                f"{_what(instruction)}: group {group} needs {len(group)} devices; compile "
                "with num_replicas/num_partitions to run it"
            )
        return [value]
    count = hub.occurrence(me, site)
    return hub.exchange((site, count, tuple(group)), group, me, value, _what(instruction))


def _flat_view(address: int, shape: Shape, writable: bool) -> np.ndarray:
    """A flat numpy view of a row-major buffer (a fresh empty array for no elements)."""
    dtype = shape.element_type.dtype
    count = shape.element_count()
    if count == 0 or not address:
        return np.zeros(count, dtype)
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    view = np.frombuffer(raw, dtype=dtype, count=count)
    if not writable:
        view.flags.writeable = False
    return view


def _address(array: np.ndarray) -> int:
    return int(array.ctypes.data) if array.size else 0


@dataclass
class Rendezvous:
    """Step 1 (``done=False``) or step 3 (``done=True``) of a collective on one device.

    ``pointers`` holds this device's operand leaf addresses, then the address of
    the table to fill: this device's position in its group and the group's size,
    then, for a group collective, the group's leaf addresses (member-major); for
    permute and broadcast, the one source address (0: this device receives zeros).
    With ``share_outputs`` (all-reduce) each member's entries are its operand leaves
    then its result leaves: within one process, every device writes its slice of the
    sum into every member's results (``FOLD_SLICES``); the result entries stay 0
    when the group spans processes (their buffers are not addressable here).
    """

    instruction: HloInstruction
    kind: str  # "group", "permute" or "broadcast"
    n_leaves: int
    done: bool = False
    reason: str = "collective rendezvous"
    n_outputs: int = 0
    share_outputs: bool = False
    # Per device: the peers' data received from other processes, alive until step 3.
    held: dict[int, Any] = field(default_factory=dict, repr=False)

    def run(self, ctx: Any, pointers: Any) -> None:
        mine = tuple(int(pointers[i] or 0) for i in range(self.n_leaves))
        outputs = [int(pointers[self.n_leaves + i] or 0) for i in range(self.n_outputs)]
        table_at = pointers[self.n_leaves + self.n_outputs]
        table = ctypes.cast(table_at, ctypes.POINTER(ctypes.c_int64))
        me = _device_index(ctx)
        group = self._participants(ctx, me)
        site = self.instruction.name + ("#done" if self.done else "")
        if not self.done:
            table[2] = FOLD_WHOLE
        if group is None:  # in no group of a broadcast: zeros, and no meeting
            if not self.done:
                table[HEADER] = 0
            return
        hub = ctx.device.collectives
        spans = hub is not None and not all(hub.is_local(d) for d in group)
        if self.done:
            if spans:  # the received copies are private: only local devices meet
                self.held.pop(me, None)
                group = [d for d in group if hub.is_local(d)]
            _meet(ctx, self.instruction, site, group, mine)
            return
        if spans and self._reduce_with_mpi(ctx, hub, group, me, site, mine, outputs):
            table[0], table[1], table[2] = group.index(me), len(group), FOLD_DONE_BY_HOST
            return
        if spans:
            gathered = self._gather_data(ctx, group, me, site, mine)
        elif self.share_outputs:
            gathered = _meet(ctx, self.instruction, site, group, mine + tuple(outputs))
            table[2] = FOLD_SLICES
        else:
            gathered = _meet(ctx, self.instruction, site, group, mine)
        table[0], table[1] = group.index(me), len(group)
        if self.kind == "group":
            stride = self.n_leaves * (2 if self.share_outputs else 1)
            for k, addresses in enumerate(gathered):
                for i, address in enumerate(addresses):
                    table[HEADER + k * stride + i] = address
        elif self.kind == "broadcast":
            table[HEADER] = gathered[0][0]
        else:
            table[HEADER] = self._permute_source(ctx, group, gathered)

    def _operand_shapes(self) -> list[Shape]:
        return [s for o in self.instruction.operands for s in _array_leaves(o.shape)]

    def _gather_data(self, ctx: Any, group: list[int], me: int, site: str, mine: tuple) -> list:
        """The group's operand leaf addresses, the other processes' data received over MPI
        into arrays that this device holds until step 3."""
        shapes = self._operand_shapes()
        views = tuple(_flat_view(a, s, False) for a, s in zip(mine, shapes, strict=True))
        gathered = self.held[me] = _meet(ctx, self.instruction, site, group, views)
        return [tuple(_address(a) for a in member) for member in gathered]

    def _reduce_with_mpi(
        self, ctx: Any, hub: Any, group: list[int], me: int, site: str, mine: tuple, outputs: list
    ) -> bool:
        """A one-group all-reduce whose reducer MPI has: done here, into the outputs."""
        if self.instruction.opcode is not Op.ALL_REDUCE or self.kind != "group":
            return False
        d = ctx.device
        groups = instruction_groups(self.instruction, d.num_replicas, d.num_partitions)
        shapes = self._operand_shapes()
        reductions = [
            mpi_reduction(self.instruction.to_apply, s.element_type.dtype) for s in shapes
        ]
        if len(groups) != 1 or None in reductions or len(outputs) != len(shapes):
            return False
        ins = [_flat_view(a, s, False) for a, s in zip(mine, shapes, strict=True)]
        outs = [_flat_view(a, s, True) for a, s in zip(outputs, shapes, strict=True)]
        count = hub.occurrence(me, site)
        what = _what(self.instruction)
        step = allreduce_step(group, reductions, hub.transport, what)
        hub.combine((site, count, tuple(group)), group, me, (ins, outs), what, step)
        return True

    def _participants(self, ctx: Any, me: int) -> list[int] | None:
        d = ctx.device
        if self.kind == "permute":
            if self.instruction.attributes.get("channel_id") is not None:
                return [d.replica_id * d.num_partitions + p for p in range(d.num_partitions)]
            return [r * d.num_partitions + d.partition_id for r in range(d.num_replicas)]
        groups = instruction_groups(
            self.instruction, d.num_replicas, d.num_partitions, _has_global_ids(self.instruction)
        )
        if self.kind == "broadcast" and not any(me in g for g in groups):
            return None
        return group_of(me, groups, self.instruction.name)

    def _permute_source(self, ctx: Any, domain: list[int], gathered: list) -> int:
        d = ctx.device
        cross_partition = self.instruction.attributes.get("channel_id") is not None
        my_id = d.partition_id if cross_partition else d.replica_id
        for pair in self.instruction.attributes.get("source_target_pairs", ()):
            if pair.target == my_id:
                return gathered[pair.source][0]
        return 0


def _has_global_ids(instruction: HloInstruction) -> bool:
    """all-to-all and collective-broadcast have no use_global_device_ids (as in the interpreter)."""
    return instruction.opcode not in (Op.ALL_TO_ALL, Op.COLLECTIVE_BROADCAST)


# -- emission -----------------------------------------------------------------------------


def _array_leaves(shape: Shape) -> list[Shape]:
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in _array_leaves(s)]
    return [shape] if shape.is_array else []


def _group_sizes(fe: FunctionEmitter, instruction: HloInstruction) -> list[int]:
    """The sizes groups of this collective can have: kernels are emitted for each."""
    options = fe.m.options
    groups = instruction_groups(
        instruction, options.num_replicas, options.num_partitions, _has_global_ids(instruction)
    )
    return sorted({len(g) for g in groups})


class _Collective:
    """The rendezvous table of one collective instruction on one device."""

    def __init__(
        self, fe: FunctionEmitter, instruction: HloInstruction, kind: str, entries: int
    ) -> None:
        self.fe, self.instruction, self.kind = fe, instruction, kind
        operand_leaves = [s for o in instruction.operands for s in _array_leaves(o.shape)]
        for s in operand_leaves + _array_leaves(instruction.shape):
            llvm_type(s.element_type)
        if not all(isinstance(s, Slot) for s in leaves(fe.value(instruction))):
            raise NotEmittable("a collective result that is not in buffers")
        self.mine = fe.operand_leaf_pointers(instruction)
        self.outputs = fe.leaf_pointers(instruction)
        size = 8 * (HEADER + entries)
        self.table_address = fe.b.gep(fe.arena_base, [i64(fe.m.reserve(size))])
        self.table = fe.b.bitcast(self.table_address, I8_PTR_PTR)

    def meet(self, done: bool = False, share_outputs: bool = False) -> None:
        thunk = Rendezvous(
            self.instruction,
            self.kind,
            len(self.mine),
            done,
            n_outputs=len(self.outputs),
            share_outputs=share_outputs,
        )
        emit_thunk_call(self.fe, thunk, [*self.mine, *self.outputs, self.table_address])

    def when_mode(self, mode: int, emit: Any) -> None:
        """``emit()`` in a branch taken when the rendezvous chose ``mode`` (``FOLD_*``)."""
        b = self.fe.b
        flag = b.load(b.bitcast(b.gep(self.table, [i64(2)]), I64.as_pointer()))
        with b.if_then(b.icmp_signed("==", flag, i64(mode))):
            emit()

    def entry(self, index: int | ir.Value) -> ir.Value:
        b = self.fe.b
        index = i64(HEADER + index) if isinstance(index, int) else b.add(index, i64(HEADER))
        return b.load(b.gep(self.table, [index]))

    def position_slot(self) -> ir.Value:
        """An i8* to this device's position in its group (an i64)."""
        return self.fe.b.bitcast(self.table, I8_PTR)

    def position(self) -> ir.Value:
        return self.fe.b.load(self.fe.b.bitcast(self.table, I64.as_pointer()))

    def for_each_size(self, sizes: list[int], emit: Any) -> None:
        """``emit(size)`` for the group size this device has at run time."""
        if len(sizes) == 1:
            emit(sizes[0])
            return
        b = self.fe.b
        actual = b.load(b.bitcast(b.gep(self.table, [i64(1)]), I64.as_pointer()))
        for size in sizes:
            with b.if_then(b.icmp_signed("==", actual, i64(size))):
                emit(size)


def _fold_kernel(
    fe: FunctionEmitter,
    instruction: HloInstruction,
    sources: list[ir.Value],
    out: ir.Value,
    shape: Shape,
    count: int,
    offset: Any = None,
) -> None:
    """``out[n] = reducer(...reducer(src0[f(n)], src1[f(n)])..., srcG-1[f(n)])``."""
    et = shape.element_type
    extra = [] if offset is None else [offset[0]]
    kernel = Kernel(
        fe, f"{instruction.opcode.value}_{instruction.name}", len(sources) + 1 + len(extra)
    )
    b = kernel.b
    peers = [typed_pointer(b, p, et) for p in kernel.buffers[: len(sources)]]
    target = typed_pointer(b, kernel.buffers[len(sources)], et)
    where = (lambda n: n) if offset is None else offset[1](b, kernel.buffers[-1])
    with for_range(b, kernel.start, kernel.stop, "n") as n:
        at = where(n)
        acc = b.load(b.gep(peers[0], [at]))
        for peer in peers[1:]:
            (acc,) = emit_scalar_computation(
                b, instruction.to_apply, [acc, b.load(b.gep(peer, [at]))]
            )
        b.store(acc, b.gep(target, [n]))
    kernel.finish()
    fe.call_kernel(
        kernel.function,
        [*sources, out, *extra],
        count,
        count * len(sources) >= PARALLEL_MIN_ELEMENTS,
    )


def _group_collective(fe: FunctionEmitter, instruction: HloInstruction) -> tuple:
    sizes = _group_sizes(fe, instruction)
    shapes = [s for o in instruction.operands for s in _array_leaves(o.shape)]
    c = _Collective(fe, instruction, "group", max(sizes) * len(shapes))
    return c, sizes, shapes


def _slice_fold_kernel(
    fe: FunctionEmitter,
    instruction: HloInstruction,
    sources: list[ir.Value],
    targets: list[ir.Value],
    shape: Shape,
    position_slot: ir.Value,
) -> None:
    """This device's slice of an all-reduce, written to every member's result:
    ``targets[*][n] = reducer(...reducer(src0[n], src1[n])..., srcG-1[n])`` for ``n`` in
    slice ``position`` of ``G`` (a reduce-scatter and an all-gather in one pass through
    shared memory). Every element is read once and written once per member, instead of
    every device reading every operand; the fold keeps the group order, so the sums are
    the same bits as the whole fold's."""
    et = shape.element_type
    count = shape.element_count()
    size = len(sources)
    chunk = -(-count // size)
    chunk += -chunk % max(1, CACHE_LINE // et.byte_width)
    kernel = Kernel(fe, f"all_reduce_slice_{instruction.name}", 2 * size + 1)
    b = kernel.b
    peers = [typed_pointer(b, p, et) for p in kernel.buffers[:size]]
    outs = [typed_pointer(b, p, et) for p in kernel.buffers[size : 2 * size]]
    position = b.load(b.bitcast(kernel.buffers[-1], I64.as_pointer()))
    first = b.mul(position, i64(chunk))

    def clamp(value: ir.Value) -> ir.Value:
        return b.select(b.icmp_signed("<", value, i64(count)), value, i64(count))

    lo, hi = clamp(b.add(first, kernel.start)), clamp(b.add(first, kernel.stop))
    with for_range(b, lo, hi, "n") as n:
        acc = b.load(b.gep(peers[0], [n]))
        for peer in peers[1:]:
            (acc,) = emit_scalar_computation(
                b, instruction.to_apply, [acc, b.load(b.gep(peer, [n]))]
            )
        for out in outs:
            b.store(acc, b.gep(out, [n]))
    kernel.finish()
    fe.call_kernel(
        kernel.function,
        [*sources, *targets, position_slot],
        chunk,
        False,
    )


@thunk_emitter(Op.ALL_REDUCE)
def _all_reduce(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    sizes = _group_sizes(fe, instruction)
    shapes = [s for o in instruction.operands for s in _array_leaves(o.shape)]
    c = _Collective(fe, instruction, "group", 2 * max(sizes) * len(shapes))
    stride = 2 * len(shapes)
    c.meet(share_outputs=True)

    def whole(size: int) -> None:
        for i, (shape, out) in enumerate(zip(shapes, c.outputs, strict=True)):
            if shape.element_count():
                sources = [c.entry(k * stride + i) for k in range(size)]
                _fold_kernel(fe, instruction, sources, out, shape, shape.element_count())

    def slices(size: int) -> None:
        for i, shape in enumerate(shapes):
            if shape.element_count():
                sources = [c.entry(k * stride + i) for k in range(size)]
                targets = [c.entry(k * stride + len(shapes) + i) for k in range(size)]
                _slice_fold_kernel(fe, instruction, sources, targets, shape, c.position_slot())

    c.when_mode(FOLD_WHOLE, lambda: c.for_each_size(sizes, whole))
    c.when_mode(FOLD_SLICES, lambda: c.for_each_size(sizes, slices))
    c.meet(done=True)


def _blocks(shape: Shape, dim: int) -> tuple[int, int, int]:
    """(outer, size along ``dim``, inner element count) of a row-major array."""
    dims = shape.dimensions
    return math.prod(dims[:dim]), dims[dim], math.prod(dims[dim + 1 :])


def _copy_blocks(
    fe: FunctionEmitter,
    name: str,
    outer: int,
    copies: list[tuple[ir.Value, int, int, int]],
    out: ir.Value,
    block_bytes: int,
    position: ir.Value | None = None,
) -> None:
    """For every outer index ``o`` and copy ``(src, src_stride, src_start, dst_start)``:
    ``block_bytes`` from ``src + o * src_stride + src_start(position)`` to
    ``out + o * out_stride + dst_start``. ``src_start`` counts in units of
    ``block_bytes`` times the position when ``position`` is given."""
    if outer == 0 or block_bytes == 0:
        return
    extra = [] if position is None else [position]
    kernel = Kernel(fe, name, len(copies) + 1 + len(extra), aliased=range(len(copies) + 2))
    b = kernel.b
    memcpy = fe.m.ir.declare_intrinsic("llvm.memcpy", [I8_PTR, I8_PTR, I64])
    out_stride = sum(block_bytes for _ in copies)
    where = None
    if position is not None:
        where = b.load(b.bitcast(kernel.buffers[-1], I64.as_pointer()))
    with for_range(b, kernel.start, kernel.stop, "o") as o:
        for k, (_src, src_stride, src_start, dst_start) in enumerate(copies):
            start = i64(src_start) if where is None else b.mul(where, i64(src_start))
            source = b.gep(kernel.buffers[k], [b.add(b.mul(o, i64(src_stride)), start)])
            target = b.gep(
                kernel.buffers[len(copies)], [b.add(b.mul(o, i64(out_stride)), i64(dst_start))]
            )
            b.call(memcpy, [target, source, i64(block_bytes), ir.Constant(ir.IntType(1), 0)])
    kernel.finish()
    pointers = [src for src, *_ in copies] + [out, *extra]
    fe.call_kernel(
        kernel.function, pointers, outer, outer * out_stride >= 4 * PARALLEL_MIN_ELEMENTS
    )


@thunk_emitter(Op.ALL_GATHER)
def _all_gather(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    c, sizes, shapes = _group_collective(fe, instruction)
    (dim,) = instruction.attribute("dimensions")
    c.meet()

    def emit(size: int) -> None:
        for i, (shape, out) in enumerate(zip(shapes, c.outputs, strict=True)):
            outer, along, inner = _blocks(shape, int(dim))
            block = along * inner * shape.element_type.byte_width
            copies = [(c.entry(k * len(shapes) + i), block, 0, k * block) for k in range(size)]
            _copy_blocks(fe, f"all_gather_{instruction.name}", outer, copies, out, block)

    c.for_each_size(sizes, emit)
    c.meet(done=True)


def _chunk_of_position(along: int, chunk: int, inner: int) -> Any:
    """Element ``n`` of a result chunk -> its index in an operand, for this device's
    position (loaded from the rendezvous table inside the kernel)."""

    def offset(b: ir.IRBuilder, slot: ir.Value) -> Any:
        position = b.load(b.bitcast(slot, I64.as_pointer()))
        shift = b.mul(position, i64(chunk * inner))

        def at(n: ir.Value) -> ir.Value:
            o = b.udiv(n, i64(chunk * inner))
            r = b.urem(n, i64(chunk * inner))
            return b.add(b.add(b.mul(o, i64(along * inner)), shift), r)

        return at

    return offset


@thunk_emitter(Op.REDUCE_SCATTER)
def _reduce_scatter(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    c, sizes, shapes = _group_collective(fe, instruction)
    (dim,) = instruction.attribute("dimensions")
    c.meet()

    def emit(size: int) -> None:
        for i, (shape, out) in enumerate(zip(shapes, c.outputs, strict=True)):
            _outer, along, inner = _blocks(shape, int(dim))
            count = shape.element_count() // size
            if count:
                offset = _chunk_of_position(along, along // size, inner)
                sources = [c.entry(k * len(shapes) + i) for k in range(size)]
                _fold_kernel(
                    fe, instruction, sources, out, shape, count, (c.position_slot(), offset)
                )

    c.for_each_size(sizes, emit)
    c.meet(done=True)


@thunk_emitter(Op.ALL_TO_ALL)
def _all_to_all(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    c, sizes, shapes = _group_collective(fe, instruction)
    dims = instruction.attribute("dimensions")
    if not dims:
        nbytes = shapes[0].element_count() * shapes[0].element_type.byte_width
        if sizes != [len(shapes)] or any(
            s.element_count() * s.element_type.byte_width != nbytes for s in shapes
        ):
            raise NotEmittable("a tuple all-to-all whose operands differ in size")
    c.meet()

    def emit(size: int) -> None:
        if dims:
            (dim,) = dims
            (shape,) = shapes
            outer, along, inner = _blocks(shape, int(dim))
            chunk_bytes = along // size * inner * shape.element_type.byte_width
            row = along * inner * shape.element_type.byte_width
            copies = [(c.entry(k), row, chunk_bytes, k * chunk_bytes) for k in range(size)]
            name = f"all_to_all_{instruction.name}"
            _copy_blocks(fe, name, outer, copies, c.outputs[0], chunk_bytes, c.position_slot())
            return
        position = c.position()
        for j, out in enumerate(c.outputs):
            source = c.entry(fe.b.add(i64(j * len(shapes)), position))
            fe.m.memcpy(fe.b, out, source, nbytes)

    c.for_each_size(sizes, emit)
    c.meet(done=True)


def _emit_single_source(fe: FunctionEmitter, instruction: HloInstruction, kind: str) -> None:
    options = fe.m.options
    # At compile time: a pair naming a missing device would fail mid-run in one thread.
    check_collective(instruction, options.num_replicas, options.num_partitions)
    shapes = [s for o in instruction.operands for s in _array_leaves(o.shape)]
    if len(shapes) != 1 or not instruction.shape.is_array:
        raise NotEmittable(f"{instruction.opcode.value} of several arrays")
    c = _Collective(fe, instruction, kind, 1)
    c.meet()
    nbytes = shapes[0].element_count() * shapes[0].element_type.byte_width
    if nbytes:
        b = fe.b
        source = c.entry(0)
        (out,) = c.outputs
        with b.if_else(b.icmp_unsigned("==", b.ptrtoint(source, I64), i64(0))) as (zeros, copy):
            with zeros:
                memset = fe.m.ir.declare_intrinsic("llvm.memset", [I8_PTR, I64])
                b.call(
                    memset,
                    [
                        out,
                        ir.Constant(ir.IntType(8), 0),
                        i64(nbytes),
                        ir.Constant(ir.IntType(1), 0),
                    ],
                )
            with copy:
                fe.m.memcpy(b, out, source, nbytes)
    c.meet(done=True)


@thunk_emitter(Op.COLLECTIVE_PERMUTE)
def _collective_permute(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    _emit_single_source(fe, instruction, "permute")


@thunk_emitter(Op.COLLECTIVE_BROADCAST)
def _collective_broadcast(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    _emit_single_source(fe, instruction, "broadcast")


# -- the device's own place in the run -----------------------------------------------------
# ``replica-id`` and ``partition-id`` read the device from the run context that every
# native function receives (``runtime.fallback.RunContext``).


def _device_field(field: str):  # noqa: ANN202
    def emit(fe: FunctionEmitter, instruction: HloInstruction) -> None:
        target = fe.scalar_output(instruction)
        b = fe.b
        address = b.gep(fe.ctx, [i64(CONTEXT_OFFSETS[field])])
        value = b.load(b.bitcast(address, I64.as_pointer()))
        b.store(b.trunc(value, I32), target)

    return emit


thunk_emitter(Op.REPLICA_ID)(_device_field("replica_id"))
thunk_emitter(Op.PARTITION_ID)(_device_field("partition_id"))
