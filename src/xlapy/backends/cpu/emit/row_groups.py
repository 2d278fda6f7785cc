"""Row-blocked execution of consecutive row-local kernels (softmax, layer norm).

A row softmax is three kernels (row max; exp and row sum; divide), each of
which streams the whole array through memory. But each of them computes row
``r`` of its outputs from row ``r`` of its inputs only. Such a run of kernels
can execute block of rows by block of rows instead, all kernels on one block
before the next: the block stays in the core's cache between the kernels, so
main memory sees the input once and each output once. The blocks are spread
over the cores as one parallel loop.

An instruction is *row-local* over ``R`` rows when its outputs have leading
dimension ``R`` and it is one kernel of ``emit.loops`` (a loop or reduce
fusion, or a single elementwise op) whose fused computation only uses
elementwise ops, reduces that keep dimension 0, and broadcasts that map
dimension 0 to dimension 0 (or broadcast an operand that does not come from
the group, such as a scale vector, along the rows). The kernels are emitted as
usual with one iteration per row (``row_mode``); the group then calls them
per block. If a kernel turns out not to iterate over rows, or one member
cannot be compiled, the kernels run one after the other as they would have.

Buffers: the arena may place two values of the group at overlapping addresses
(one dead before the other is born). Processed row block by row block, that is
only safe when the two are the same buffer (an in-place op); a group whose
buffers overlap otherwise is not formed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import Slot, leaves
from ..ir_support import for_range, i64, pointer_table
from ..llvm_types import I8_PTR, KERNEL_TYPE, NotEmittable
from .loops import PARALLEL_MIN_ELEMENTS

Op = HloOpcode
CACHE_BYTES = 256 * 1024  # working set of one row block (about half of L2)
MIN_WORK = PARALLEL_MIN_ELEMENTS  # output elements below which the kernels run as they are
_SKIP = frozenset({Op.GET_TUPLE_ELEMENT, Op.TUPLE, Op.PARAMETER, Op.CONSTANT, Op.BITCAST})


def _leading(shape: Any) -> int | None:
    shapes = shape.tuple_shapes if shape.is_tuple else [shape]
    firsts = {s.dimensions[0] if s.is_array and s.rank >= 1 else None for s in shapes}
    return firsts.pop() if len(firsts) == 1 else None


def _row_local_computation(computation: Any, rows: int, outside: set[int]) -> bool:
    """Every value of a fused computation at row ``r`` depends on row ``r`` of its inputs."""
    params = {p.parameter_number: p for p in computation.parameters}
    for instruction in computation.instructions:
        op = instruction.opcode
        if op in (Op.PARAMETER, Op.TUPLE, Op.GET_TUPLE_ELEMENT):
            continue
        if op is Op.CONSTANT:
            if not instruction.shape.is_scalar:
                return False
            continue
        if _leading(instruction.shape) != rows:
            return False
        if op is Op.REDUCE:
            if 0 in [int(d) for d in instruction.attribute("dimensions")]:
                return False
            if any(
                _leading(o.shape) != rows
                for o in instruction.operands[: len(instruction.operands) // 2]
            ):
                return False
            continue
        if op is Op.BROADCAST:
            operand = instruction.operand(0)
            mapping = [int(d) for d in instruction.attribute("dimensions")]
            if operand.shape.rank == 0:
                continue
            if mapping and mapping[0] == 0 and _leading(operand.shape) == rows:
                continue
            if 0 not in mapping and operand.opcode is Op.PARAMETER:
                if operand.parameter_number in params and operand.parameter_number in outside:
                    continue
            return False
        if not op.is_elementwise:
            return False
        if any(
            o.shape.dimensions != instruction.shape.dimensions
            for o in instruction.operands
            if not o.shape.is_scalar
        ):
            return False
    return True


def _is_row_local(instruction: HloInstruction, rows: int, members: set[int]) -> bool:
    if _leading(instruction.shape) != rows:
        return False
    op = instruction.opcode
    if op is Op.FUSION:
        if instruction.fusion_kind not in ("kLoop", "kInput"):
            return False
        # Operands from outside the group may be read whole (broadcast along the rows).
        outside = {k for k, o in enumerate(instruction.operands) if id(o) not in members}
        return _row_local_computation(instruction.fused_computation, rows, outside)
    if op is Op.REDUCE:
        n = instruction.operand_count // 2
        return 0 not in [int(d) for d in instruction.attribute("dimensions")] and all(
            _leading(o.shape) == rows for o in instruction.operands[:n]
        )
    if op.is_elementwise:
        return all(o.shape.dimensions == instruction.shape.dimensions for o in instruction.operands)
    return False


def _slots(fe: Any, instruction: HloInstruction) -> list[Slot]:
    out = [s for s in leaves(fe.value(instruction)) if isinstance(s, Slot)]
    for o in instruction.operands:
        out += [s for s in leaves(fe.value(o)) if isinstance(s, Slot)]
    return out


def _overlapping(slots: Sequence[Slot]) -> bool:
    arena = sorted(
        {
            (s.offset, s.byte_size, s.shape.element_count()): s for s in slots if s.kind == "arena"
        }.items()
    )
    for (first, _), (second, _) in zip(arena, arena[1:], strict=False):
        if first[0] + first[1] > second[0]:
            return True
    return False


def find_row_groups(fe: Any, schedule: Sequence[HloInstruction]) -> dict[int, tuple[int, int]]:
    """``{start: (end, rows)}``: runs of the schedule to execute row block by row block."""
    groups: dict[int, tuple[int, int]] = {}
    i = 0
    while i < len(schedule):
        first = schedule[i]
        rows = _leading(first.shape) if first.opcode not in _SKIP else None
        if not rows or rows < 2:
            i += 1
            continue
        members: set[int] = set()
        kernels, work, end, j = 0, 0, i, i
        while j < len(schedule):
            instruction = schedule[j]
            if instruction.opcode in _SKIP:
                j += 1
                continue
            if not _is_row_local(instruction, rows, members):
                break
            members.add(id(instruction))
            kernels += 1
            work += sum(
                s.shape.element_count()
                for s in leaves(fe.value(instruction))
                if isinstance(s, Slot)
            )
            j += 1
            end = j
        slots = [s for k in range(i, end) for s in _slots(fe, schedule[k])]
        if kernels >= 2 and work >= MIN_WORK and not _overlapping(slots):
            groups[i] = (end, rows)
            i = end
        else:
            i += 1
    return groups


def emit_row_group(fe: Any, members: Sequence[HloInstruction], rows: int) -> None:
    """The members' kernels, called block of rows by block of rows (see the module docstring)."""
    recorded: list[tuple[ir.Function, list[ir.Value], int, bool]] = []
    fe.recording, fe.row_mode = recorded, rows
    try:
        for k, instruction in enumerate(members):
            try:
                fe.emit_instruction(instruction, allow_fallback=False)
            except NotEmittable:
                fe.recording, fe.row_mode = None, None
                _sequential(fe, recorded)
                for rest in members[k:]:
                    fe.emit_instruction(rest)
                return
    finally:
        fe.recording, fe.row_mode = None, None
    if len(recorded) < 2 or any(n != rows for _, _, n, _ in recorded):
        _sequential(fe, recorded)
        return
    slots = [s for m in members for s in _slots(fe, m)]
    row_bytes = sum({id(s): s.byte_size for s in slots}.values()) // rows
    block = max(1, min(rows, CACHE_BYTES // max(1, row_bytes)))
    _composite(fe, recorded, rows, block)


def _sequential(fe: Any, recorded: list) -> None:
    for kernel, pointers, n, parallel in recorded:
        fe.call_kernel(kernel, pointers, n, parallel)


def _composite(fe: Any, recorded: list, rows: int, block: int) -> None:

    m = fe.m
    function = ir.Function(m.ir, KERNEL_TYPE, m.unique_name("row_group"))
    function.linkage = "internal"
    tables, start, stop = function.args
    b = ir.IRBuilder(function.append_basic_block("entry"))
    kernel_tables = [
        b.bitcast(b.load(b.gep(tables, [i64(k)])), I8_PTR.as_pointer())
        for k in range(len(recorded))
    ]
    blocks = b.udiv(b.add(b.sub(stop, start), i64(block - 1)), i64(block))
    with for_range(b, i64(0), blocks, "block") as index:
        lo = b.add(start, b.mul(index, i64(block)))
        hi = b.add(lo, i64(block))
        hi = b.select(b.icmp_signed(">", hi, stop), stop, hi)
        for (kernel, _, _, _), table in zip(recorded, kernel_tables, strict=True):
            b.call(kernel, [table, lo, hi])
    b.ret_void()
    m.row_groups += 1
    caller = fe.b
    tables_of_kernels = [
        caller.bitcast(pointer_table(caller, pointers, name="row_kernel"), I8_PTR)
        for _, pointers, _, _ in recorded
    ]
    fe.call_kernel(function, tables_of_kernels, rows, True)
