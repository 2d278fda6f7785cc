"""Gather of whole rows (an embedding lookup): one clamped index, one row copy.

``gather(table[R, ...], indices[N, 1])`` with the first dimension collapsed and
full slices of the rest is ``out[n] = table[clamp(indices[n], 0, R - 1)]``: a
loop of row copies, split over the cores. Other gathers fall back for now.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import checked_index, for_range, i64, typed_pointer
from ..llvm_types import I8_PTR, NotEmittable, llvm_type
from .generators import start_index
from .loops import PARALLEL_MIN_ELEMENTS, Kernel
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


def _whole_rows(gather: HloInstruction) -> bool:
    """Whether ``gather`` takes whole rows of its table's first dimension, one per index."""
    table, indices = gather.operands
    rank = table.shape.rank
    dn = gather.gather_dimension_numbers
    count = indices.shape.dimensions[0] if indices.shape.rank >= 1 else 0
    row_dims = tuple(table.shape.dimensions[1:])
    return (
        rank >= 1
        and indices.shape.rank == 2
        and indices.shape.dimensions[1] == 1
        and dn.index_vector_dim == 1
        and tuple(dn.collapsed_slice_dims) == (0,)
        and tuple(dn.start_index_map) == (0,)
        and tuple(dn.offset_dims) == tuple(range(1, rank))
        and gather.slice_sizes == (1, *row_dims)
        and not dn.operand_batching_dims
        and tuple(gather.shape.dimensions) == (count, *row_dims)
    )


def is_row_gather(gather: HloInstruction) -> bool:
    """The gathers this module's kernel runs; the pipeline's ``GatherExpander`` turns
    every other gather into loops of dynamic slices before code generation."""
    table, indices = gather.operands
    count = indices.shape.dimensions[0] if indices.shape.rank >= 1 else 0
    return (
        _whole_rows(gather)
        and count > 0
        and table.shape.dimensions[0] > 0
        and indices.shape.element_type.bit_width >= 8
    )


@thunk_emitter(Op.GATHER)
def _gather(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    table, indices = instruction.operands
    count = indices.shape.dimensions[0] if indices.shape.rank >= 1 else 0
    row_dims = tuple(table.shape.dimensions[1:])
    if not _whole_rows(instruction):
        raise NotEmittable("a gather other than whole rows of the first dimension")
    et_index = indices.shape.element_type
    if not et_index.is_integral or et_index.bit_width < 8:
        raise NotEmittable(f"gather indices of type {et_index.hlo_name}")
    out = fe.value(instruction)
    if not isinstance(out, Slot) or count == 0 or table.shape.dimensions[0] == 0:
        raise NotEmittable("an empty gather")
    llvm_type(et_index)
    row_bytes = math.prod(row_dims) * instruction.shape.element_type.byte_width
    rows = table.shape.dimensions[0]
    kernel = Kernel(fe, f"gather_{instruction.name}", 3)
    try:
        b = kernel.b
        source, index_pointer, target = kernel.buffers
        typed_indices = typed_pointer(b, index_pointer, et_index)
        memcpy = fe.m.ir.declare_intrinsic("llvm.memcpy", [I8_PTR, I8_PTR, ir.IntType(64)])
        with for_range(b, kernel.start, kernel.stop, "n") as n:
            raw = b.load(b.gep(typed_indices, [n]))
            row = checked_index(b, start_index(b, raw, et_index, rows - 1), rows)
            b.call(
                memcpy,
                [
                    b.gep(target, [b.mul(n, i64(row_bytes))]),
                    b.gep(source, [b.mul(row, i64(row_bytes))]),
                    i64(row_bytes),
                    ir.Constant(ir.IntType(1), 0),
                ],
            )
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    pointers = [fe.pointer(fe.value(table)), fe.pointer(fe.value(indices)), fe.pointer(out)]
    parallel = count * max(1, row_bytes // 4) >= PARALLEL_MIN_ELEMENTS
    fe.call_kernel(kernel.function, pointers, count, parallel)
