"""The FFT along the last axis as a variant of xlapy's runtime library (``emit/library``):
compiled once per machine, element type and direction, and called by every program.

Why: the inline FFT (``linalg_fft._emit_pass``) unrolls every stage of its length into
the program, and LLVM spent 60-80 ms on a 1024-point transform, 3-4x XLA's whole
compile (XLA calls a precompiled FFT library). Here the length is data: the program
holds a plan (``_plan``: the length, the rows, and the stages grouped into runs of one
radix) and the twiddle tables of its runs, both as constants, and calls the library's
kernel with them. The kernel does what the inline code does for each group of ``LANES``
rows: the same copy in and out through the scratch buffers, the same butterflies and
twiddles, each stage from one buffer into the other, with the stage's length and
stride read at run time (``_stage_run``). The arithmetic is the same operations in the
same order, so the results are bit for bit the inline code's (tested).

The kernel has ``KERNEL_TYPE``'s signature, so a program hands it to the thread pool
like any of its own kernels. Its buffers are (operand, result, plan, twiddles).
Ahead-of-time objects get the function emitted into the object, as the GEMM does.
Other axes, and lengths above ``MAX_LENGTH`` (two passes), stay inline.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....passes import unit_roots
from ....types import PrimitiveType
from ....xla_data import FftType
from ..ir_support import for_range, i64
from ..llvm_types import I64, KERNEL_TYPE, NotEmittable
from .library import Library, variant_bits
from .linalg_fft import (
    LANES,
    MAX_LENGTH,
    Scratch,
    Stage,
    emit_pass,
    emit_stage,
    fft_stages,
    row_pointers,
    rows_to_scratch,
    scratch_to_rows,
    split_length,
    stage_twiddles,
    supports_native_fft,
)
from .linalg_gemm_kernel import function_to_define
from .loops import PARALLEL_MIN_ELEMENTS
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
Op = HloOpcode
_NAME = re.compile(r"^xlapy_fft_(512|256|128)_(c64|c128)_(fwd|inv)$")
_SOURCES = ("linalg_fft", "linalg_fft_library")
_RADICES = (2, 3, 4, 5, 7)
_HEAD = 3  # plan: n, rows, number of runs; then per run:
_RUN = 6  # radix, length, stride, stages, where its twiddles start (parts), twiddled (0/1)


def variant_name(et: PrimitiveType, sign: int, bits: int) -> str:
    """``xlapy_fft_<bits>_<c64|c128>_<fwd|inv>``: the vector width names the code's
    target (``library.library_target``), as the GEMM's does."""
    return f"xlapy_fft_{bits}_{et.hlo_name}_{'inv' if sign > 0 else 'fwd'}"


def _runs(n: int) -> list[tuple[int, int, int, int]]:
    """(radix, length, stride, stages): consecutive stages of one radix that have
    twiddles (length > radix) run as one loop; a stage without twiddles alone."""
    runs: list[tuple[int, int, int, int]] = []
    for radix, length, stride in fft_stages(n):
        last = runs[-1] if runs else None
        if last and last[0] == radix and length > radix and last[1] > radix:
            runs[-1] = (*last[:3], last[3] + 1)
        else:
            runs.append((radix, length, stride, 1))
    return runs


def _plan(n: int, rows: int, sign: int, et: PrimitiveType) -> tuple[np.ndarray, np.ndarray]:
    """(plan, twiddles) for a program's transform: the plan as int64s, the runs'
    twiddle tables (``linalg_fft.stage_twiddles``, one after the other) in the part
    type."""
    plan = [n, rows, 0]
    tables = []
    offset = 0
    for radix, length, stride, count in _runs(n):
        twiddled = length > radix
        plan += [radix, length, stride, count, offset, int(twiddled)]
        if twiddled:
            sizes = [length // radix**k for k in range(count)]
            table = np.concatenate(
                [stage_twiddles(radix, size, sign, np.float64) for size in sizes]
            )
            tables.append(table.ravel())
            offset += table.size
        plan[2] += 1
    dtype = et.component_type.dtype
    twiddles = np.concatenate(tables) if tables else np.zeros(1, np.float64)
    return np.asarray(plan, np.int64), np.ascontiguousarray(twiddles.astype(dtype))


def _stage_run(
    stage: Stage,
    bases: list[ir.Value],
    parity: ir.Value,
    radix: int,
    twiddled: bool,
    run: list[ir.Value],
    table: ir.Value,
    slots: list[ir.Value],
) -> None:
    """A run's stages, each from one scratch buffer into the other (the first from
    ``bases[parity]``): stage k has m = length / r^(k+1), stride s r^k, and its twiddle
    rows follow stage k - 1's, the run's first at part ``offset`` of ``table``."""
    b = stage.b
    _, length, stride, count, offset = run[:5]
    m_slot, stride_slot, row_slot = slots
    b.store(b.udiv(length, i64(radix)), m_slot)
    b.store(stride, stride_slot)
    b.store(i64(0), row_slot)
    part_pointer = b.bitcast(table, stage.vector.element.as_pointer())
    table = b.bitcast(b.gep(part_pointer, [offset]), table.type)
    with for_range(b, 0, count, "stage", vectorize=False) as k:
        m, s, row0 = b.load(m_slot), b.load(stride_slot), b.load(row_slot)
        even = b.icmp_unsigned("==", b.and_(b.add(k, parity), i64(1)), i64(0))
        source = Scratch(b, b.select(even, bases[0], bases[1]), stage.vector)
        target = Scratch(b, b.select(even, bases[1], bases[0]), stage.vector)
        emit_stage(stage, source, target, radix, m, s, table if twiddled else None, row0)
        b.store(b.add(row0, m), row_slot)
        b.store(b.udiv(m, i64(radix)), m_slot)
        b.store(b.mul(s, i64(radix)), stride_slot)


def fft_function(
    module: ir.Module, et: PrimitiveType, sign: int, bits: int, *, exported: bool = False
) -> ir.Function:
    """The kernel (``KERNEL_TYPE``), made once per module (internal unless
    ``exported``): groups [start, stop) of ``LANES`` rows, buffers (operand, result,
    plan, twiddles)."""
    name = variant_name(et, sign, bits)
    function, new = function_to_define(module, name, KERNEL_TYPE, exported)
    if not new:
        return function
    lanes = LANES[et]
    part = ir.FloatType() if et.component_type is P.F32 else ir.DoubleType()
    vector = ir.VectorType(part, lanes)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    table_arg, start, stop = function.args
    source_raw, target_raw, plan_raw, twiddles_raw = (
        b.load(b.gep(table_arg, [i64(k)])) for k in range(4)
    )
    plan = b.bitcast(plan_raw, I64.as_pointer())
    n, rows, run_count = (b.load(b.gep(plan, [i64(k)])) for k in range(_HEAD))
    twiddles = b.bitcast(twiddles_raw, ir.ArrayType(part, 0).as_pointer())
    scratch_parts = b.mul(n, i64(2 * 2 * lanes))  # two buffers of n vectors of (re, im)
    block = b.alloca(part, size=scratch_parts)
    block.align = 64
    bases = [
        b.bitcast(b.gep(block, [b.mul(n, i64(2 * lanes * k))]), vector.as_pointer())
        for k in range(2)
    ]
    slots = [b.alloca(I64, name=f"stage.{what}") for what in ("m", "stride", "row")]
    done_slot = b.alloca(I64, name="stages.done")
    if sign > 0:  # the inverse's 1/n, rounded once to the part type as the inline code's
        scale = b.fdiv(ir.Constant(ir.DoubleType(), 1.0), b.sitofp(n, ir.DoubleType()))
        scale = scale if part == ir.DoubleType() else b.fptrunc(scale, part)
        scale = Stage(b, vector, sign).splat(scale)
    else:
        scale = 1.0
    source_base, target_base = (b.bitcast(p, part.as_pointer()) for p in (source_raw, target_raw))
    with for_range(b, start, stop, "group", vectorize=False) as group:
        first = b.mul(group, i64(lanes))
        inputs = row_pointers(b, source_base, first, rows, n, lanes)
        rows_to_scratch(b, inputs, Scratch(b, bases[0], vector), n)
        b.store(i64(0), done_slot)
        with for_range(b, 0, run_count, "run", vectorize=False) as r:
            at = b.add(i64(_HEAD), b.mul(r, i64(_RUN)))
            run = [b.load(b.gep(plan, [b.add(at, i64(k))])) for k in range(_RUN)]
            done = b.load(done_slot)
            parity = b.and_(done, i64(1))
            after = function.append_basic_block("run.done")
            switch = b.switch(b.add(b.mul(run[0], i64(2)), run[5]), after)
            for radix in _RADICES:
                for twiddled in (False, True):
                    case = function.append_basic_block(f"radix{radix}.{int(twiddled)}")
                    switch.add_case(i64(2 * radix + twiddled), case)
                    b.position_at_end(case)
                    stage = Stage(b, vector, sign)
                    _stage_run(stage, bases, parity, radix, twiddled, run, twiddles, slots)
                    b.branch(after)
            b.position_at_end(after)
            b.store(b.add(done, run[3]), done_slot)
        even = b.icmp_unsigned("==", b.and_(b.load(done_slot), i64(1)), i64(0))
        result = Scratch(b, b.select(even, bases[0], bases[1]), vector)
        outputs = row_pointers(b, target_base, first, rows, n, lanes)
        scratch_to_rows(b, result, outputs, n, scale)
    b.ret_void()
    return function


def _build(module: ir.Module, et: PrimitiveType, sign: int, bits: int) -> None:
    fft_function(module, et, sign, bits, exported=True)


def _parse(name: str) -> tuple[tuple, int] | None:
    match = _NAME.match(name)
    if match is None:
        return None
    bits, type_name, direction = match.groups()
    et = P.C64 if type_name == "c64" else P.C128
    return (et, 1 if direction == "inv" else -1, int(bits)), int(bits)


LIBRARY = Library("fft", _SOURCES, _build, _parse)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """An FFT variant's symbol compiled (or loaded from ``directory``) and registered;
    False for another symbol."""
    return LIBRARY.resolve_symbol(name, directory)


def emit_fft_call(
    fe: FunctionEmitter,
    source: ir.Value,
    target: ir.Value,
    rows: int,
    n: int,
    sign: int,
    et: PrimitiveType,
) -> None:
    """The transform of ``rows`` rows of length ``n``, by the library's kernel (emitted
    into the object for ahead-of-time code)."""
    bits = variant_bits(fe)
    function = LIBRARY.program_function(
        fe, variant_name(et, sign, bits), (et, sign, bits), KERNEL_TYPE,
        lambda module: fft_function(module, et, sign, bits),
    )  # fmt: skip
    plan, twiddles = _plan(n, rows, sign, et)
    pointers = [
        source,
        target,
        fe.m.constant_pointer(fe.b, plan),
        fe.m.constant_pointer(fe.b, twiddles),
    ]
    lanes = LANES[et]
    groups = -(-rows // lanes)
    parallel = groups >= 2 and rows * n * max(1, n.bit_length() - 1) >= PARALLEL_MIN_ELEMENTS
    fe.call_kernel(function, pointers, groups, parallel)
    fe.m.kernel_count += 1


@thunk_emitter(Op.FFT)
def _fft(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """The transform over the trailing dimensions, one pass per axis: the last from the
    operand into the result by the library's kernel, the others inline (``linalg_fft``),
    in place in the result; a length above ``MAX_LENGTH`` is two inline passes."""
    (x,) = instruction.operands
    kind = FftType(instruction.attribute("fft_type"))
    lengths = [int(v) for v in instruction.attribute("fft_length")]
    et = x.shape.element_type
    dims = list(x.shape.dimensions)
    if not (
        supports_native_fft(kind, lengths, et)
        and instruction.shape.element_type == et
        and dims == list(instruction.shape.dimensions)
        and dims[len(dims) - len(lengths) :] == lengths
    ):
        raise NotEmittable(f"fft {kind.name} of {x.shape} with lengths {lengths}")
    if math.prod(dims) == 0:
        return
    sign = -1 if kind is FftType.FFT else 1
    source, target = fe.pointer(fe.value(x)), fe.pointer(fe.value(instruction))
    n = dims[-1]
    if n > MAX_LENGTH:
        t, m = split_length(n, LANES[et])  # type: ignore[misc]
        rows = math.prod(dims[:-1])
        middle = fe.b.gep(fe.arena_base, [i64(fe.m.reserve(rows * n * et.byte_width))])
        twiddles = unit_roots(sign * np.arange(t)[:, None] * np.arange(m)[None, :], n)
        name = f"fft_{instruction.name}"
        emit_pass(fe, name, [source, middle], [rows, t, m], 1, sign, et, twiddles=twiddles)
        emit_pass(fe, name, [middle, target], [rows * t, m], 1, sign, et, transposed=t)
        return
    emit_fft_call(fe, source, target, math.prod(dims[:-1]), n, sign, et)
    for axis in reversed(range(len(dims) - len(lengths), len(dims) - 1)):
        emit_pass(fe, f"fft_{instruction.name}", [target, target], dims, axis, sign, et)


__all__ = ["emit_fft_call", "fft_function", "resolve_symbol", "variant_name"]
