"""Sort of rows up to ``MAX_SORT_ROW`` elements: a bitonic network in shared memory, one
block per row (a grid-stride loop over the rows), the comparator inlined.

A row of ``n`` elements is padded to ``P`` (the next power of two); each thread
compare-exchanges one pair per step, with a barrier between steps. Next to the values,
shared memory holds each element's original position: the network orders elements by
(comparator, position), which is a total order even where the comparator has ties, so
the result is stable (as ``is_stable`` asks; for an unstable sort it is one valid
answer), and padding (positions >= n) sorts after every element of the row.
"""

from __future__ import annotations

import math

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ...cpu.elemental.support import is_true
from ...cpu.emit.loops import emit_scalar_computation
from ...cpu.ir_support import i64, load_element, store_element, typed_pointer
from ...cpu.llvm_types import NotEmittable, llvm_type
from .module import PtxModule
from .nvvm import I32, WARP, barrier, shared_array, special_register, strided_range
from .plan import MAX_GRID, KernelFrame, KernelPlan, launch

MAX_SORT_ROW = 2048
STATIC_SHARED_LIMIT = 48 * 1024  # bytes of static shared memory a block may declare


def sortable(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` is a sort this module emits."""
    if instruction.opcode.value != "sort":
        return False
    shape = instruction.operand(0).shape
    dimension = int(instruction.attribute("dimensions")[0])
    n = shape.dimensions[dimension]
    if n > MAX_SORT_ROW or math.prod(shape.dimensions) == 0:
        return False
    padded = 1 << max(0, (n - 1).bit_length())
    width = sum(o.shape.element_type.byte_width for o in instruction.operands) + 4
    return padded * width <= STATIC_SHARED_LIMIT


def emit_sort(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    """The bitonic sort kernel of ``instruction`` (see the module docstring)."""
    if not sortable(instruction):
        raise NotEmittable(
            f"sort {instruction.name} {instruction.shape}: rows longer than {MAX_SORT_ROW} or "
            f"more than {STATIC_SHARED_LIMIT} bytes of shared memory per row"
        )
    dims = instruction.operand(0).shape.dimensions
    dimension = int(instruction.attribute("dimensions")[0])
    n = dims[dimension]
    padded = 1 << max(0, (n - 1).bit_length())
    threads = max(WARP, padded // 2)
    rows = math.prod(dims) // n
    frame = KernelFrame(module, instruction)
    try:
        _emit(frame, dims, dimension, padded, threads)
    except NotEmittable:
        frame.discard()
        raise
    return KernelPlan((launch(frame.name, (min(rows, MAX_GRID),), (threads,)),))


def _emit(frame: KernelFrame, dims: tuple, dimension: int, padded: int, threads: int) -> None:
    b = frame.b
    instruction = frame.instruction
    module = frame.module
    n = dims[dimension]
    inner = math.prod(dims[dimension + 1 :])
    rows = math.prod(dims) // n
    types = [o.shape.element_type for o in instruction.operands]
    values = [
        shared_array(module.ir, llvm_type(t), padded, module.unique_name(f"{frame.name}_keys{k}"))
        for k, t in enumerate(types)
    ]
    positions = shared_array(module.ir, I32, padded, module.unique_name(f"{frame.name}_pos"))
    sources = [typed_pointer(b, p, t) for p, t in zip(frame.operands, types, strict=True)]
    targets = [typed_pointer(b, p, t) for p, t in zip(frame.outputs, types, strict=True)]
    comparator = instruction.to_apply
    thread = special_register(b, "tid.x")

    def slot(array: ir.GlobalVariable, index: ir.Value) -> ir.Value:
        return b.gep(array, [ir.Constant(I32, 0), index])

    def global_index(row: ir.Value, k: ir.Value) -> ir.Value:
        outer, within = b.udiv(row, i64(inner)), b.urem(row, i64(inner))
        return b.add(b.mul(b.add(b.mul(outer, i64(n)), k), i64(inner)), within)

    def each_position(body) -> None:  # noqa: ANN001
        for q in range(-(-padded // threads)):
            p = b.add(thread, i64(q * threads))
            with b.if_then(b.icmp_unsigned("<", p, i64(padded))):
                body(p)

    def less(i: ir.Value, j: ir.Value) -> ir.Value:
        """Element at slot i before the element at slot j: (comparator, position) order."""
        pi, pj = b.load(slot(positions, i)), b.load(slot(positions, j))
        by_position = b.icmp_unsigned("<", pi, pj)
        real = b.and_(
            b.icmp_unsigned("<", pi, ir.Constant(I32, n)),
            b.icmp_unsigned("<", pj, ir.Constant(I32, n)),
        )
        a = [b.load(slot(v, i)) for v in values]
        c = [b.load(slot(v, j)) for v in values]
        forward = is_true(
            b,
            emit_scalar_computation(
                b, comparator, [x for pair in zip(a, c, strict=True) for x in pair]
            )[0],
        )
        backward = is_true(
            b,
            emit_scalar_computation(
                b, comparator, [x for pair in zip(c, a, strict=True) for x in pair]
            )[0],
        )
        ordered = b.or_(forward, b.and_(b.not_(backward), by_position))
        return b.select(real, ordered, by_position)

    def swap(i: ir.Value, j: ir.Value) -> None:
        for array in [*values, positions]:
            x, y = b.load(slot(array, i)), b.load(slot(array, j))
            b.store(y, slot(array, i))
            b.store(x, slot(array, j))

    with strided_range(
        b, special_register(b, "ctaid.x"), rows, special_register(b, "nctaid.x"), "row"
    ) as row:

        def load(p: ir.Value) -> None:
            b.store(b.trunc(p, I32), slot(positions, p))
            with b.if_then(b.icmp_unsigned("<", p, i64(n))):
                index = global_index(row, p)
                for source, array in zip(sources, values, strict=True):
                    b.store(load_element(b, b.gep(source, [index])), slot(array, p))

        each_position(load)
        barrier(b)
        size = 2
        while size <= padded:
            stride = size // 2
            while stride >= 1:
                with b.if_then(b.icmp_unsigned("<", thread, i64(padded // 2))):
                    i = b.add(
                        b.mul(b.udiv(thread, i64(stride)), i64(2 * stride)),
                        b.urem(thread, i64(stride)),
                    )
                    j = b.add(i, i64(stride))
                    ascending = b.icmp_unsigned("==", b.and_(i, i64(size)), i64(0))
                    out_of_order = b.select(ascending, less(j, i), less(i, j))
                    with b.if_then(out_of_order):
                        swap(i, j)
                barrier(b)
                stride //= 2
            size *= 2

        def store(p: ir.Value) -> None:
            with b.if_then(b.icmp_unsigned("<", p, i64(n))):
                index = global_index(row, p)
                for target, array in zip(targets, values, strict=True):
                    store_element(b, b.load(slot(array, p)), b.gep(target, [index]))

        each_position(store)
        barrier(b)  # the next row reuses the shared arrays
    frame.finish()
