"""Scatter of whole rows (the gradient of an embedding lookup), in the spec's order.

``scatter(operand[R, ...], indices[N, 1], updates[N, ...])`` with the first
dimension inserted and full rows of the rest: the operand is copied to the
result (unless its buffer dies here), then row ``n`` of the updates is combined
into result row ``indices[n]`` with the update computation, element by
element, for n = 0, 1, ... in order, so repeated indices accumulate exactly as
the interpreter does. A row whose index is out of bounds is skipped, as the
spec says. Other scatters fall back for now.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot
from ..ir_support import checked_index, for_range, i64, typed_pointer
from ..llvm_types import NotEmittable, llvm_type
from .loops import Kernel, emit_scalar_computation
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


def _whole_rows(scatter: HloInstruction) -> bool:
    """Whether ``scatter`` (one operand) updates whole rows of the first dimension, one
    per index."""
    operand, indices, updates = scatter.operands
    rank = operand.shape.rank
    dn = scatter.scatter_dimension_numbers
    count = indices.shape.dimensions[0] if indices.shape.rank == 2 else -1
    return (
        rank >= 1
        and indices.shape.rank == 2
        and indices.shape.dimensions[1] == 1
        and dn.index_vector_dim == 1
        and tuple(dn.inserted_window_dims) == (0,)
        and tuple(dn.scatter_dims_to_operand_dims) == (0,)
        and tuple(dn.update_window_dims) == tuple(range(1, rank))
        and not dn.input_batching_dims
        and tuple(updates.shape.dimensions) == (count, *operand.shape.dimensions[1:])
    )


def is_row_scatter(scatter: HloInstruction) -> bool:
    """The scatters this module's kernel runs; the pipeline's ``ScatterExpander`` turns
    every other scatter into a loop of dynamic-update-slices before code generation."""
    if scatter.operand_count != 3 or not scatter.shape.is_array:
        return False
    return _whole_rows(scatter) and scatter.operand(1).shape.element_type.bit_width >= 8


@thunk_emitter(Op.SCATTER)
def _scatter(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    if instruction.operand_count != 3 or not instruction.shape.is_array:
        raise NotEmittable("a variadic scatter")
    operand, indices, updates = instruction.operands
    if not _whole_rows(instruction):
        raise NotEmittable("a scatter other than whole rows of the first dimension")
    row_dims = tuple(operand.shape.dimensions[1:])
    count = indices.shape.dimensions[0]
    et, index_type = operand.shape.element_type, indices.shape.element_type
    if not index_type.is_integral or index_type.bit_width < 8:
        raise NotEmittable(f"scatter indices of type {index_type.hlo_name}")
    llvm_type(et)
    out, source = fe.value(instruction), fe.value(operand)
    if not isinstance(out, Slot) or not isinstance(source, Slot):
        raise NotEmittable("scatter of tuples")
    width = math.prod(row_dims)
    rows = operand.shape.dimensions[0]
    kernel = Kernel(fe, f"scatter_{instruction.name}", 3)
    try:
        b = kernel.b
        index_pointer = typed_pointer(b, kernel.buffers[0], index_type)
        update_pointer = typed_pointer(b, kernel.buffers[1], et)
        target = typed_pointer(b, kernel.buffers[2], et)
        with for_range(b, 0, count, "n") as n:
            raw = b.load(b.gep(index_pointer, [n]))
            if raw.type.width == 64:
                row = raw
            elif index_type.is_signed_integral:
                row = b.sext(raw, ir.IntType(64))
            else:
                row = b.zext(raw, ir.IntType(64))
            inside = (
                b.icmp_unsigned("<", row, i64(rows))
                if not index_type.is_signed_integral
                else b.and_(b.icmp_signed(">=", row, i64(0)), b.icmp_signed("<", row, i64(rows)))
            )
            with b.if_then(inside):
                with for_range(b, 0, width, "w") as w:
                    position = b.add(b.mul(row, i64(width)), w)
                    slot = b.gep(target, [checked_index(b, position, rows * width)])
                    update = b.load(b.gep(update_pointer, [b.add(b.mul(n, i64(width)), w)]))
                    (combined,) = emit_scalar_computation(
                        b, instruction.to_apply, [b.load(slot), update]
                    )
                    b.store(combined, slot)
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    if fe.buffers.in_place.get(id(instruction)) != 0:
        fe.m.memcpy(fe.b, fe.pointer(out), fe.pointer(source), out.byte_size)
    pointers = [fe.pointer(fe.value(indices)), fe.pointer(fe.value(updates)), fe.pointer(out)]
    fe.call_kernel(kernel.function, pointers, 1, False)
