"""sort: a stable bottom-up merge sort of each row, with the comparator inlined.

Rows along the last dimension are sorted independently (in parallel for many
rows). A row's positions are sorted as an index permutation, so any number of
operands move together: merge passes of width 1, 2, 4, ... over the
permutation, where the right element goes first only if the comparator says
it is strictly less than the left one (which keeps the sort stable, whatever
``is_stable`` says), then every operand is gathered through the permutation.
Sorts along another dimension fall back for now.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import leaves
from ..ir_support import for_range, i64, minimum, typed_pointer
from ..llvm_types import I8, NotEmittable, llvm_type
from .loops import PARALLEL_MIN_ELEMENTS, Kernel, emit_scalar_computation

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


Library = Callable[..., tuple[ir.Function, list[ir.Value]]]


def emit_sort(fe: FunctionEmitter, instruction: HloInstruction, library: Library | None) -> None:
    """The sort's kernel over its rows: the inline merge sort, or where ``library`` is
    given, the runtime library's kernel it returns (with its buffers) for the operand,
    the result, the scratch and the row length (``sort_library``)."""
    operands = list(instruction.operands)
    dims = operands[0].shape.dimensions
    sort_dim = [int(d) for d in instruction.attribute("dimensions")][0]
    if not dims or sort_dim != len(dims) - 1:
        raise NotEmittable("a sort along another dimension than the last")
    for o in operands:
        llvm_type(o.shape.element_type)
    n = dims[-1]
    rows = math.prod(dims[:-1])
    outputs = leaves(fe.value(instruction))
    if rows * n == 0:
        return
    scratch = fe.b.gep(fe.arena_base, [i64(fe.m.reserve(rows * 2 * n * 8))])
    if library is not None:
        function, pointers = library(fe, instruction, scratch, n)
        fe.m.kernel_count += 1
    else:
        count = len(operands)
        kernel = Kernel(fe, f"sort_{instruction.name}", 2 * count + 1)
        try:
            _emit_row_sort(kernel, operands, instruction.to_apply, n)
            kernel.finish()
        except NotEmittable:
            kernel.discard()
            raise
        function = kernel.function
        pointers = fe.operand_leaf_pointers(instruction) + [fe.pointer(s) for s in outputs]
        pointers.append(scratch)
    parallel = rows >= 2 and rows * n * max(1, int(math.log2(max(n, 2)))) >= PARALLEL_MIN_ELEMENTS
    fe.call_kernel(function, pointers, rows, parallel)


def _emit_row_sort(kernel: Kernel, operands: list[HloInstruction], comparator, n: int) -> None:  # noqa: ANN001
    b = kernel.b
    count = len(operands)
    types = [o.shape.element_type for o in operands]
    inputs = [typed_pointer(b, kernel.buffers[k], t) for k, t in enumerate(types)]
    outputs = [typed_pointer(b, kernel.buffers[count + k], t) for k, t in enumerate(types)]
    emit_sort_rows(b, kernel.start, kernel.stop, inputs, outputs, kernel.buffers[2 * count],
                   comparator, n)  # fmt: skip


def emit_sort_rows(
    b: ir.IRBuilder,
    start: ir.Value,
    stop: ir.Value,
    inputs: list[ir.Value],
    outputs: list[ir.Value],
    scratch_raw: ir.Value,
    comparator: HloComputation,
    n: int | ir.Value,
) -> None:
    """Sort rows [start, stop) of length ``n`` (a constant, or a value read at run time:
    the runtime library's kernel, ``sort_library``) from ``inputs`` into ``outputs``
    (typed pointers, one per operand), with ``2 * n`` i64 of ``scratch_raw`` per row."""
    count = len(inputs)
    scratch = b.bitcast(scratch_raw, ir.IntType(64).as_pointer())
    if isinstance(n, int):
        passes: ir.Value = i64(max(0, math.ceil(math.log2(n))) if n > 1 else 0)
        length, last, double = i64(n), i64(n - 1), i64(2 * n)
    else:  # ceil(log2(n)) = 64 - ctlz(n - 1) for n > 1
        length = n
        # Declared by hand: llvmlite's declare_intrinsic gives llvm.ctlz one parameter,
        # without the "zero is poison" flag LLVM's takes.
        ctlz = b.module.globals.get("llvm.ctlz.i64") or ir.Function(
            b.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)]),
            "llvm.ctlz.i64",
        )  # fmt: skip
        bits = b.sub(i64(64), b.call(ctlz, [b.sub(n, i64(1)), ir.IntType(1)(0)]))
        passes = b.select(b.icmp_signed(">", n, i64(1)), bits, i64(0))
        last, double = b.sub(n, i64(1)), b.mul(n, i64(2))

    with for_range(b, start, stop, "row") as row:
        base = b.mul(row, length)
        order = b.gep(scratch, [b.mul(row, double)])
        spare = b.gep(order, [length])
        with for_range(b, 0, length, "init") as i:
            b.store(i, b.gep(order, [i]))

        def value(k: int, position: ir.Value) -> ir.Value:
            return b.load(b.gep(inputs[k], [b.add(base, position)]))

        def less(first: ir.Value, second: ir.Value) -> ir.Value:
            args = []
            for k in range(count):
                args += [value(k, first), value(k, second)]
            (result,) = emit_scalar_computation(b, comparator, args)
            return b.icmp_unsigned("!=", result, I8(0))

        with for_range(b, 0, passes, "pass") as p:
            width = b.shl(i64(1), p)
            runs = b.udiv(b.add(last, b.mul(width, i64(2))), b.mul(width, i64(2)))
            with for_range(b, 0, runs, "run") as t:
                lo = b.mul(t, b.mul(width, i64(2)))
                mid = minimum(b, b.add(lo, width), length)
                hi = minimum(b, b.add(lo, b.mul(width, i64(2))), length)
                _merge(b, order, spare, lo, mid, hi, less)
            with for_range(b, 0, length, "back") as i:
                b.store(b.load(b.gep(spare, [i])), b.gep(order, [i]))
        with for_range(b, 0, length, "gather") as i:
            source = b.load(b.gep(order, [i]))
            for k in range(count):
                b.store(value(k, source), b.gep(outputs[k], [b.add(base, i)]))


def _merge(b, order, spare, lo, mid, hi, less) -> None:  # noqa: ANN001
    """Merge order[lo:mid] and order[mid:hi] into spare[lo:hi], stably."""
    function = b.function
    before = b.block
    body = function.append_basic_block("merge.body")
    done = function.append_basic_block("merge.done")
    b.cbranch(b.icmp_signed("<", lo, hi), body, done)
    b.position_at_end(body)
    k = b.phi(ir.IntType(64), name="k")
    i = b.phi(ir.IntType(64), name="i")
    j = b.phi(ir.IntType(64), name="j")
    for phi, start in ((k, lo), (i, lo), (j, mid)):
        phi.add_incoming(start, before)
    left_done = b.icmp_signed(">=", i, mid)
    right_done = b.icmp_signed(">=", j, hi)
    # Clamped reads keep every load in bounds; the selects decide what counts.
    left = b.load(b.gep(order, [minimum(b, i, b.sub(mid, i64(1)))]))
    right = b.load(b.gep(order, [minimum(b, j, b.sub(hi, i64(1)))]))
    both = b.and_(b.not_(left_done), b.not_(right_done))
    right_first = b.or_(left_done, b.and_(both, less(right, left)))
    b.store(b.select(right_first, right, left), b.gep(spare, [k]))
    one = ir.Constant(ir.IntType(64), 1)
    zero = ir.Constant(ir.IntType(64), 0)
    k_next = b.add(k, one)
    i_next = b.add(i, b.select(right_first, zero, one))
    j_next = b.add(j, b.select(right_first, one, zero))
    latch = b.block
    for phi, value in ((k, k_next), (i, i_next), (j, j_next)):
        phi.add_incoming(value, latch)
    b.cbranch(b.icmp_signed("<", k_next, hi), body, done)
    b.position_at_end(done)
