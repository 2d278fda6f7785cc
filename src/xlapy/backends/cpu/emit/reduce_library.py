"""Plain float reductions of rows as variants of xlapy's runtime library (``emit/library``):
compiled once per machine, reducer and element type, and called by every program.

Why: a reduce kernel is a small loop, but its vectorized body (eight vectors in flight,
three chains each for an exact max or min) costs LLVM 5-10 ms per program, while XLA
runs such reductions in code compiled into its binary. Most reductions in programs are
the plain kind: a fusion that is nothing but ``reduce(parameter, constant)`` (or a
reshape of the parameter first: the reduction splitter's rows) over the trailing
dimensions, with ``add``, ``maximum`` or ``minimum`` of f32 or f64 as the reducer (a
row max in a softmax, row sums, a long max split in two). Those are this kernel,
with the row length and the initial value as data (a plan of two words).

The kernel is the inline reduce kernel's loop (``loops.plain_reduce``) with the row
length read at run time: the same accumulators (``reduce_minmax`` for an exact max or
min), the same ``reassoc`` adds and the same vectors in flight. It has
``KERNEL_TYPE``'s signature over a range of rows, so the thread pool and row groups
(``row_groups``) call it as any kernel of the program. Its buffers are (operand,
result, plan). Ahead-of-time objects get the function emitted into the object, as the
GEMM's and the FFT's.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..ir_support import for_range, i64
from ..llvm_types import I64, KERNEL_TYPE, llvm_type
from . import reduce_minmax
from .library import Library, variant_bits
from .linalg_gemm_kernel import function_to_define
from .loops import PARALLEL_MIN_ELEMENTS, REDUCE_INTERLEAVE

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
Op = HloOpcode
_NAME = re.compile(r"^xlapy_reduce_(512|256|128)_(add|max|min)_(f32|f64)$")
_SOURCES = ("reduce_library", "reduce_minmax", "loops")  # loops: REDUCE_INTERLEAVE
_TYPES = {"f32": P.F32, "f64": P.F64}
_BITS = {P.F32: np.uint32, P.F64: np.uint64}


def variant_name(kind: str, et: PrimitiveType, bits: int) -> str:
    """``xlapy_reduce_<bits>_<add|max|min>_<f32|f64>``: the vector width names the
    code's target (``library.library_target``), as the GEMM's does."""
    return f"xlapy_reduce_{bits}_{kind}_{et.hlo_name}"


def reduce_function(
    module: ir.Module, kind: str, et: PrimitiveType, bits: int, *, exported: bool = False
) -> ir.Function:
    """The kernel (``KERNEL_TYPE``), made once per module (internal unless ``exported``):
    rows [start, stop), buffers (operand, result, plan: the row length and the initial
    value's bits)."""
    name = variant_name(kind, et, bits)
    function, new = function_to_define(module, name, KERNEL_TYPE, exported)
    if not new:
        return function
    ty = llvm_type(et)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    table, start, stop = function.args
    source_raw, target_raw, plan_raw = (b.load(b.gep(table, [i64(k)])) for k in range(3))
    plan = b.bitcast(plan_raw, I64.as_pointer())
    columns = b.load(plan)
    init_bits = b.load(b.gep(plan, [i64(1)]))
    if et is P.F32:
        init_bits = b.trunc(init_bits, ir.IntType(32))
    init = b.bitcast(init_bits, ty)
    source = b.bitcast(source_raw, ty.as_pointer())
    target = b.bitcast(target_raw, ty.as_pointer())
    # Vectors in flight: the inline kernel's (loops._interleave), halved for the three
    # chains of a max or min.
    interleave = REDUCE_INTERLEAVE if kind == "add" else REDUCE_INTERLEAVE // 2
    with for_range(b, start, stop, "row", vectorize=False) as row:
        first = b.mul(row, columns)
        before = b.block
        state = [init] if kind == "add" else reduce_minmax.initial(b, kind, init)
        # An empty row keeps the initial value: the loop below is guarded (for_range).
        entry_state = state
        with for_range(b, 0, columns, "column", interleave) as column:
            phis = [b.phi(v.type) for v in entry_state]
            for phi, value in zip(phis, entry_state, strict=True):
                phi.add_incoming(value, before)
            x = b.load(b.gep(source, [b.add(first, column)]))
            if kind == "add":
                state = [b.fadd(phis[0], x, flags=("reassoc",))]
            else:
                state = reduce_minmax.step(b, kind, phis, x)
            latch = b.block
            for phi, value in zip(phis, state, strict=True):
                phi.add_incoming(value, latch)
        merged = []
        for value, initial in zip(state, entry_state, strict=True):
            phi = b.phi(value.type)
            phi.add_incoming(initial, before)
            phi.add_incoming(value, latch)
            merged.append(phi)
        total = merged[0] if kind == "add" else reduce_minmax.result(b, kind, merged, et)
        b.store(total, b.gep(target, [row]))
    b.ret_void()
    return function


def _build(module: ir.Module, kind: str, et: PrimitiveType, bits: int) -> None:
    reduce_function(module, kind, et, bits, exported=True)


def _parse(name: str) -> tuple[tuple, int] | None:
    match = _NAME.match(name)
    if match is None:
        return None
    bits, kind, type_name = match.groups()
    return (kind, _TYPES[type_name], int(bits)), int(bits)


LIBRARY = Library("reduce", _SOURCES, _build, _parse, strength_reduction=False)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """A reduce variant's symbol compiled (or loaded from ``directory``) and registered;
    False for another symbol."""
    return LIBRARY.resolve_symbol(name, directory)


def _reducer_kind(reducer: HloComputation, et: PrimitiveType) -> str | None:
    root = reducer.root
    if root.shape.is_tuple or root.shape.element_type is not et:
        return None
    if root.opcode is Op.ADD and set(root.operands) == set(reducer.parameters):
        if len(reducer.parameters) == 2 and len(reducer.instructions) == 3:
            return "add"
        return None
    return reduce_minmax.minmax_kind(reducer)


def _plain_reduce(
    instruction: HloInstruction,
) -> tuple[str, PrimitiveType, int, int, int] | None:
    """(reducer kind, element type, rows, row length, the initial value's bits) when
    ``instruction`` is a plain row reduction (module docstring), else None."""
    if instruction.opcode is Op.FUSION:
        root = instruction.fused_computation.root
        if root.opcode is not Op.REDUCE or root.operand_count != 2:
            return None
        if instruction.operand_count != 1:  # the data, the fusion's only operand
            return None
        data, init = root.operands
        while data.opcode in (Op.RESHAPE, Op.BITCAST):  # row-major: the same bytes
            data = data.operand(0)
        if data.opcode is not Op.PARAMETER or init.opcode is not Op.CONSTANT:
            return None
        if data.shape.element_type is not root.operand(0).shape.element_type:
            return None
        reduce = root
    elif instruction.opcode is Op.REDUCE:
        reduce = instruction
        if reduce.operand_count != 2 or reduce.operand(1).opcode is not Op.CONSTANT:
            return None
    else:
        return None
    shape = reduce.operand(0).shape
    et = shape.element_type
    if et not in (P.F32, P.F64) or not reduce.shape.is_array:
        return None
    kind = _reducer_kind(reduce.to_apply, et)
    dims = sorted(int(d) for d in reduce.attribute("dimensions"))
    rank = len(shape.dimensions)
    if kind is None or not dims or dims != list(range(rank - len(dims), rank)):
        return None
    kept = shape.dimensions[: rank - len(dims)]
    if len(kept) > 1:  # kernels of several kept dims count their range in the first one
        return None
    init = np.asarray(reduce.operand(1).literal.to_numpy(), dtype=et.dtype).reshape(())
    bits = int(init.view(_BITS[et]))
    return kind, et, math.prod(kept), math.prod(shape.dimensions[len(kept) :]), bits


def try_emit(fe: FunctionEmitter, instruction: HloInstruction) -> bool:
    """Call the library's kernel for a plain row reduction; False (nothing emitted) for
    any other instruction."""
    found = _plain_reduce(instruction)
    if found is None or fe.buffers.in_place.get(id(instruction)) is not None:
        return False
    kind, et, rows, columns, init_bits = found
    if rows == 0:
        return True  # no output element
    bits = variant_bits(fe)
    function = LIBRARY.program_function(
        fe, variant_name(kind, et, bits), (kind, et, bits), KERNEL_TYPE,
        lambda module: reduce_function(module, kind, et, bits),
    )  # fmt: skip
    plan = np.array([columns, init_bits], dtype=np.uint64).view(np.int64)
    pointers = [
        fe.pointer(fe.value(instruction.operand(0))),
        fe.pointer(fe.value(instruction)),
        fe.m.constant_pointer(fe.b, plan),
    ]
    parallel = rows >= 2 and rows * columns >= PARALLEL_MIN_ELEMENTS
    fe.call_kernel(function, pointers, rows, parallel)
    fe.m.kernel_count += 1
    return True


__all__ = ["LIBRARY", "reduce_function", "resolve_symbol", "try_emit", "variant_name"]
