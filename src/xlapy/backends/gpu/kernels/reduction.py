"""Reduce kernels: reduce instructions and fusions whose roots are reduces (variadic ones,
argmax's, included), side outputs of the input space and epilogues over the outputs.

The strategy follows where the reduced elements lie in the row-major input
(``ReductionSpace``):

- **two passes** when few outputs each reduce many elements (at least
  ``TWO_PASS_MIN_REDUCED``): at most ``TWO_PASS_MAX_OUTPUTS`` outputs, or fewer than
  ``TWO_PASS_MAX_COLUMNS`` when the kept dims are innermost (a thread per output would
  leave the GPU idle): a grid of (chunks x outputs) blocks writes one partial per block
  into scratch, then one block per output reduces the partials and applies the init
  value;
- **a warp per row** when the reduced dims are the innermost ones and a row is short
  (up to ``WARP_ROW_MAX``): lanes read neighbouring elements, a shuffle tree combines
  them, lane 0 stores;
- **a block per row** for longer rows: warps by shuffles, then across warps through
  shared memory;
- **a thread per output** otherwise (kept dims innermost: neighbouring threads read
  neighbouring elements), and for rows shorter than a warp; the CPU's sequential
  ``plain_reduce`` loop runs per thread, starting from the init value.
"""

from __future__ import annotations

from collections.abc import Callable

import llvmlite.binding as llvm
from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ...cpu.emit.loops import plain_reduce
from ...cpu.ir_support import Index, i64
from ...cpu.llvm_types import NotEmittable
from .module import PtxModule
from .nvvm import WARP, special_register, strided_range
from .plan import BLOCK, MAX_GRID, KernelFrame, KernelPlan, ceil_div, launch
from .reduction_parts import Reduction, ReductionSpace, reduction_space

WARP_ROW_MAX = 1024  # longest row a single warp reduces
ROW_BLOCK = 512  # threads of a block that reduces one long row
TWO_PASS_MIN_REDUCED = 1 << 14
TWO_PASS_MAX_OUTPUTS = 64
TWO_PASS_MAX_COLUMNS = 2048
MAX_PARTIALS = 1024  # partials per output of the first pass (the second pass's loop)
MIN_PER_THREAD = 4  # reduced elements each thread of the first pass reads at least
ROWS_PER_BLOCK = BLOCK // WARP


def emit_reduction(
    module: PtxModule, instruction: HloInstruction, computation: HloComputation | None = None
) -> KernelPlan:
    """The kernels of a reduce (``computation`` None) or of a fusion containing reduces."""
    space = reduction_space(instruction, computation)
    if space.kept_count == 0:
        raise NotEmittable(f"{instruction.name}: a zero-element output needs no kernel")
    strategy = choose_strategy(space)
    return STRATEGIES[strategy](module, instruction, computation, space)


def choose_strategy(space: ReductionSpace) -> str:
    """``two_pass``, ``warp_rows``, ``block_rows`` or ``thread_per_output``."""
    kept, reduced = space.kept_count, space.reduced_count
    if reduced >= TWO_PASS_MIN_REDUCED and (
        kept <= TWO_PASS_MAX_OUTPUTS or (not space.is_row and kept < TWO_PASS_MAX_COLUMNS)
    ):
        return "two_pass"
    if not space.is_row or reduced < WARP:
        return "thread_per_output"
    return "warp_rows" if reduced <= WARP_ROW_MAX else "block_rows"


def _build(
    module: PtxModule,
    instruction: HloInstruction,
    computation: HloComputation | None,
    emit: Callable[[Reduction], None],
    suffix: str = "",
    scratch: bool = False,
) -> str:
    frame = KernelFrame(module, instruction, suffix, scratch)
    try:
        reduction = Reduction(frame, computation)
        emit(reduction)
        frame.finish()
    except NotEmittable:
        frame.discard()
        raise
    return frame.name


def _thread_per_output(module, instruction, computation, space: ReductionSpace) -> KernelPlan:  # noqa: ANN001
    def emit(red: Reduction) -> None:
        b = red.b
        first = b.add(
            b.mul(special_register(b, "ctaid.x"), i64(BLOCK)), special_register(b, "tid.x")
        )
        stride = b.mul(special_register(b, "nctaid.x"), i64(BLOCK))
        with strided_range(b, first, space.kept_count, stride, "out") as k:
            kept_multi = Index(space.kept_dims, linear=k).multi(b)

            def input_index(kept: list, reduced: list) -> Index:
                multi: list[ir.Value] = [i64(0)] * len(space.in_dims)
                for d, v in zip(space.kept, kept, strict=True):
                    multi[d] = v
                for d, v in zip(space.reduced, reduced, strict=True):
                    multi[d] = v
                return Index(space.in_dims, multi=multi)

            scalar = Index((), multi=[])
            inits = [[g(b, scalar) for g in p.inits] for p in red.plans]
            acc = plain_reduce(
                b,
                [p.as_cpu_plan() for p in red.plans],
                inits,
                kept_multi,
                list(space.reduced_dims),
                input_index,
                red.side_stores,
            )
            red.finish([v for values in acc for v in values], None, k)

    name = _build(module, instruction, computation, emit)
    grid = min(ceil_div(space.kept_count, BLOCK), MAX_GRID)
    return KernelPlan((launch(name, (grid,), (BLOCK,)),))


def _warp_rows(module, instruction, computation, space: ReductionSpace) -> KernelPlan:  # noqa: ANN001
    def emit(red: Reduction) -> None:
        b = red.b
        thread = special_register(b, "tid.x")
        lane = b.and_(thread, i64(WARP - 1))
        warp = b.lshr(thread, i64(5))
        first = b.add(b.mul(special_register(b, "ctaid.x"), i64(ROWS_PER_BLOCK)), warp)
        stride = b.mul(special_register(b, "nctaid.x"), i64(ROWS_PER_BLOCK))
        # The row loop is uniform across a warp, as the shuffles need.
        with strided_range(b, first, space.kept_count, stride, "row") as row:
            acc, valid = red.accumulate(
                lane,
                space.reduced_count,
                WARP,
                lambda j: red.element(space.input_index(b, row, None, j)),
            )
            acc, valid = red.warp_reduce(acc, valid)
            with b.if_then(b.icmp_unsigned("==", lane, i64(0))):
                red.finish(acc, valid, row)

    name = _build(module, instruction, computation, emit)
    grid = min(ceil_div(space.kept_count, ROWS_PER_BLOCK), MAX_GRID)
    return KernelPlan((launch(name, (grid,), (BLOCK,)),))


def _block_rows(module, instruction, computation, space: ReductionSpace) -> KernelPlan:  # noqa: ANN001
    def emit(red: Reduction) -> None:
        b = red.b
        thread = special_register(b, "tid.x")
        first = special_register(b, "ctaid.x")
        stride = special_register(b, "nctaid.x")
        # The row loop is uniform across the block, as the barriers need.
        with strided_range(b, first, space.kept_count, stride, "row") as row:
            acc, valid = red.accumulate(
                thread,
                space.reduced_count,
                ROW_BLOCK,
                lambda j: red.element(space.input_index(b, row, None, j)),
            )
            acc, valid = red.block_reduce(acc, valid, thread, ROW_BLOCK)
            with b.if_then(b.icmp_unsigned("==", thread, i64(0))):
                red.finish(acc, valid, row)

    name = _build(module, instruction, computation, emit)
    grid = min(space.kept_count, MAX_GRID)
    return KernelPlan((launch(name, (grid,), (ROW_BLOCK,)),))


def _scratch_layout(
    module: PtxModule, red_types: list[ir.Type], entries: int
) -> tuple[list[int], int]:
    """Byte offsets of one region per accumulator value (``entries`` each), and the total."""
    data = llvm.create_target_data(module.ir.data_layout)
    offsets, total = [], 0
    for ty in red_types:
        offsets.append(total)
        total += ceil_div(entries * ty.get_abi_size(data), 16) * 16
    return offsets, total


def _region(b: ir.IRBuilder, scratch: ir.Value, offset: int, ty: ir.Type) -> ir.Value:
    base = b.gep(scratch, [i64(offset)]) if offset else scratch
    return b.bitcast(base, ty.as_pointer())


def _two_pass(module, instruction, computation, space: ReductionSpace) -> KernelPlan:  # noqa: ANN001
    kept, reduced = space.kept_count, space.reduced_count
    chunks = max(1, min(ceil_div(reduced, BLOCK * MIN_PER_THREAD), MAX_PARTIALS, 4096 // kept))
    layout: dict[str, object] = {}

    def partials(red: Reduction) -> None:
        b = red.b
        types = red.accumulator_llvm_types
        offsets, total = _scratch_layout(module, types, kept * chunks)
        layout["bytes"] = total
        regions = [_region(b, red.frame.scratch, o, t) for o, t in zip(offsets, types, strict=True)]
        thread = special_register(b, "tid.x")
        chunk = special_register(b, "ctaid.x")
        k = special_register(b, "ctaid.y")
        kept_multi = Index(space.kept_dims, linear=k).multi(b) if not space.is_row else None
        # Every block has an element: chunk * BLOCK < reduced as chunks <= ceil(reduced / BLOCK).
        start = b.add(b.mul(chunk, i64(BLOCK)), thread)
        acc, valid = red.accumulate(
            start,
            reduced,
            chunks * BLOCK,
            lambda j: red.element(space.input_index(b, k, kept_multi, j)),
        )
        acc, _ = red.block_reduce(acc, valid, thread, BLOCK)
        with b.if_then(b.icmp_unsigned("==", thread, i64(0))):
            slot = b.add(b.mul(k, i64(chunks)), chunk)
            for region, value in zip(regions, acc, strict=True):
                b.store(value, b.gep(region, [slot]))

    def final(red: Reduction) -> None:
        b = red.b
        types = red.accumulator_llvm_types
        offsets, _ = _scratch_layout(module, types, kept * chunks)
        regions = [_region(b, red.frame.scratch, o, t) for o, t in zip(offsets, types, strict=True)]
        thread = special_register(b, "tid.x")
        k = special_register(b, "ctaid.x")
        base = b.mul(k, i64(chunks))

        def partial(j: ir.Value) -> list[ir.Value]:
            return [b.load(b.gep(region, [b.add(base, j)])) for region in regions]

        acc, valid = red.accumulate(thread, chunks, BLOCK, partial)
        acc, valid = red.block_reduce(acc, valid, thread, BLOCK)
        with b.if_then(b.icmp_unsigned("==", thread, i64(0))):
            red.finish(acc, valid, k)

    first = _build(module, instruction, computation, partials, "_partials", scratch=True)
    second = _build(module, instruction, computation, final, "_finish", scratch=True)
    return KernelPlan(
        (launch(first, (chunks, kept), (BLOCK,)), launch(second, (kept,), (BLOCK,))),
        scratch_bytes=int(layout["bytes"]),  # type: ignore[call-overload]
    )


STRATEGIES = {
    "two_pass": _two_pass,
    "warp_rows": _warp_rows,
    "block_rows": _block_rows,
    "thread_per_output": _thread_per_output,
}
