"""Tiled transposes: a transpose that swaps the two innermost dimensions (of a batch of
matrices) through shared memory, so that both its reads and its writes are coalesced.

A block of 32 x 8 threads moves one 32 x 32 tile: it reads the tile's rows (neighbouring
threads read neighbouring input elements) into shared memory, waits at a barrier and
writes the tile's columns as output rows (neighbouring threads write neighbouring output
elements). The shared tile is 32 x 33 so that reading a column touches 32 different
banks. Any other permutation goes to the loop kernel.
"""

from __future__ import annotations

import math

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ...cpu.ir_support import i64, load_element, store_element, typed_pointer
from ...cpu.llvm_types import NotEmittable, llvm_type
from .module import PtxModule
from .nvvm import I32, barrier, shared_array, special_register
from .plan import KernelFrame, KernelPlan, ceil_div, launch

TILE = 32
ROWS = 8  # thread rows of a block; each thread moves TILE / ROWS elements
MAX_GRID_YZ = 65535
MIN_TILED_SIDE = 2  # below this a row or column is no tile; the loop kernel does better


def batched_matrix_transpose(instruction: HloInstruction) -> tuple[int, int, int] | None:
    """(batch, rows, columns) of the input when ``instruction`` swaps its two innermost
    dimensions and keeps the others in place, and the tiles fit a grid; else None."""
    if instruction.opcode.value != "transpose" or not instruction.shape.is_array:
        return None
    perm = [int(d) for d in instruction.attribute("dimensions")]
    rank = len(perm)
    if rank < 2 or perm != [*range(rank - 2), rank - 1, rank - 2]:
        return None
    dims = instruction.operand(0).shape.dimensions
    batch, rows, columns = math.prod(dims[:-2]), dims[-2], dims[-1]
    if min(rows, columns) < MIN_TILED_SIDE or batch == 0:
        return None
    if ceil_div(rows, TILE) > MAX_GRID_YZ or batch > MAX_GRID_YZ:
        return None
    return batch, rows, columns


def emit_transpose(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    """The tiled kernel of a batched matrix transpose (see the module docstring)."""
    shape = batched_matrix_transpose(instruction)
    if shape is None:
        raise NotEmittable(f"{instruction.name} is not a transpose of the two innermost dims")
    batch, rows, columns = shape
    frame = KernelFrame(module, instruction)
    try:
        _emit(frame, rows, columns)
    except NotEmittable:
        frame.discard()
        raise
    grid = (ceil_div(columns, TILE), ceil_div(rows, TILE), batch)
    return KernelPlan((launch(frame.name, grid, (TILE, ROWS)),))


def _emit(frame: KernelFrame, rows: int, columns: int) -> None:
    b = frame.b
    et = frame.instruction.shape.element_type
    element = llvm_type(et)
    tile = shared_array(
        frame.module.ir,
        ir.ArrayType(element, TILE + 1),
        TILE,
        frame.module.unique_name(f"{frame.name}_tile"),
    )
    source = typed_pointer(b, frame.operands[0], et)
    target = typed_pointer(b, frame.outputs[0], et)
    tx, ty = special_register(b, "tid.x"), special_register(b, "tid.y")
    tile_column = b.mul(special_register(b, "ctaid.x"), i64(TILE))
    tile_row = b.mul(special_register(b, "ctaid.y"), i64(TILE))
    matrix = b.mul(special_register(b, "ctaid.z"), i64(rows * columns))

    def slot(r: ir.Value, c: ir.Value) -> ir.Value:
        return b.gep(tile, [ir.Constant(I32, 0), r, c])

    def within(r: ir.Value, c: ir.Value, r_limit: int, c_limit: int) -> ir.Value:
        return b.and_(b.icmp_unsigned("<", r, i64(r_limit)), b.icmp_unsigned("<", c, i64(c_limit)))

    for k in range(0, TILE, ROWS):
        local = b.add(ty, i64(k))
        r, c = b.add(tile_row, local), b.add(tile_column, tx)
        with b.if_then(within(r, c, rows, columns)):
            offset = b.add(matrix, b.add(b.mul(r, i64(columns)), c))
            b.store(load_element(b, b.gep(source, [offset])), slot(local, tx))
    barrier(b)
    for k in range(0, TILE, ROWS):
        local = b.add(ty, i64(k))
        # Output row = input column, output column = input row.
        r, c = b.add(tile_column, local), b.add(tile_row, tx)
        with b.if_then(within(r, c, columns, rows)):
            offset = b.add(matrix, b.add(b.mul(r, i64(rows)), c))
            store_element(b, b.load(slot(tx, local)), b.gep(target, [offset]))
    frame.finish()
