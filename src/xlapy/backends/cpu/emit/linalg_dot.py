"""Dot: xlapy's GEMM (or BLAS) for float matrices, LLVM loops for integer dots.

A dot whose operands are, per batch, row-major matrices (free dimensions and
contracting dimensions each contiguous, batch dimensions leading) is one GEMM
per batch element, with BLAS's column-major interface: row-major ``C = A B`` is
column-major ``C^T = B^T A^T``, so the call passes the right-hand side first and a
transposed operand is a flag, not a copy. By default (``CpuOptions.gemm="xlapy"``, and
always in ahead-of-time objects) the GEMM is xlapy's own (``emit.linalg_gemm_library``:
compiled once per process, threaded over xlapy's pool, docs/gemm.md); a batch of small
GEMMs runs its elements over the pool, each on one thread. With
``CpuOptions.gemm="openblas"`` the call goes straight from native code to the function
pointers scipy exports (``scipy.linalg.cython_blas``: OpenBLAS, threaded over the
cores). A short, wide GEMM (B small enough to stay in cache, many rows) is split by
rows over xlapy's pool, each block a single-threaded GEMM (``emit.linalg_gemm_split``:
OpenBLAS's threads cost more than such a GEMM's work).
s8 x s8 -> s32 dots, where the target has AVX-512 VNNI, run xlapy's int8 GEMM
(``emit.linalg_gemm_int8``). Other integer dots (exact in any order) get a loop kernel; other element types reach
here widened (``DotTypeWidener``) and other layouts canonicalized
(``DotCanonicalizer``).
"""

from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..buffers import Slot
from ..elemental import emit_binary
from ..ir_support import Index, for_range, i64, typed_pointer
from ..llvm_types import I8, I8_PTR, NotEmittable, llvm_type
from ..runtime.blas import blas_function
from .generators import buffer_reader
from .linalg_gemm_int8 import emit_int8_gemm, has_vnni, is_int8_dot
from .linalg_gemm_library import emit_gemm_loops
from .linalg_gemm_loops import PARALLEL_MIN_WORK
from .linalg_gemm_split import at, emit_row_blocks
from .loops import Kernel, nest
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
P = PrimitiveType
GEMM_ROUTINES = {P.F32: "sgemm", P.F64: "dgemm", P.C64: "cgemm", P.C128: "zgemm"}
_ONE = {P.F32: (1.0,), P.F64: (1.0,), P.C64: (1.0, 0.0), P.C128: (1.0, 0.0)}
_SCALAR_CT = {
    P.F32: ctypes.c_float,
    P.F64: ctypes.c_double,
    P.C64: ctypes.c_float,
    P.C128: ctypes.c_double,
}
# GEMMs with n * k up to this (B fits in L2) and at least two blocks of rows are split by
# rows over xlapy's pool (emit.linalg_gemm_split); bigger ones keep OpenBLAS's threading, which
# packs B once for all threads.
SPLIT_MAX_NK = 64 * 1024
SPLIT_BLOCK = 1024


def _dims(instruction: HloInstruction, name: str) -> list[int]:
    return [int(d) for d in instruction.attribute(name, ()) or ()]


def _matrix_form(rank: int, batch: list[int], contracting: list[int]) -> str | None:
    """'free-first' ([B, F, C]), 'contracting-first' ([B, C, F]) or None (needs a transpose)."""
    nb = len(batch)
    if batch != list(range(nb)):
        return None
    rest = list(range(nb, rank))
    free = [d for d in rest if d not in contracting]
    if contracting == rest[len(free) :] and free == rest[: len(free)]:
        return "free-first"
    if contracting == rest[: len(contracting)] and free == rest[len(contracting) :]:
        return "contracting-first"
    return None


@thunk_emitter(Op.DOT)
def _dot(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    lhs, rhs = instruction.operands
    et = instruction.shape.element_type
    if lhs.shape.element_type == rhs.shape.element_type == et and et in GEMM_ROUTINES:
        _gemm(fe, instruction)
    elif is_int8_dot(instruction) and has_vnni(fe.m.options):
        _int8_gemm(fe, instruction)
    elif lhs.shape.element_type == rhs.shape.element_type == et and et.is_integral:
        _integer_dot(fe, instruction)
    else:
        raise NotEmittable(f"dot {lhs.shape} x {rhs.shape} -> {instruction.shape}")


def _gemm_form(instruction: HloInstruction) -> tuple[str, str, int, int, int, int]:
    """(lhs form, rhs form, batch, m, n, k) of a dot whose operands are, per batch,
    matrices a GEMM takes as they are (``_matrix_form``); NotEmittable otherwise."""
    lhs, rhs = instruction.operands
    lb, rb = _dims(instruction, "lhs_batch_dims"), _dims(instruction, "rhs_batch_dims")
    lc, rc = _dims(instruction, "lhs_contracting_dims"), _dims(instruction, "rhs_contracting_dims")
    lhs_form = _matrix_form(lhs.shape.rank, lb, lc)
    rhs_form = _matrix_form(rhs.shape.rank, rb, rc)
    if lhs_form is None or rhs_form is None or lb != rb:
        raise NotEmittable("a dot whose operands need a transpose before a GEMM")
    # Contracting dims must pair up in order (lhs's k-th with rhs's k-th).
    if [lhs.shape.dimensions[d] for d in lc] != [rhs.shape.dimensions[d] for d in rc]:
        raise NotEmittable("contracting dimensions in different orders")
    ldims, rdims = lhs.shape.dimensions, rhs.shape.dimensions
    batch = math.prod(ldims[d] for d in lb)
    k = math.prod(ldims[d] for d in lc)
    m = math.prod(ldims[d] for d in range(lhs.shape.rank) if d not in lb and d not in lc)
    n = math.prod(rdims[d] for d in range(rhs.shape.rank) if d not in rb and d not in rc)
    return lhs_form, rhs_form, batch, m, n, k


def _gemm(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    lhs, rhs = instruction.operands
    lhs_form, rhs_form, batch, m, n, k = _gemm_form(instruction)
    out = fe.value(instruction)
    if not isinstance(out, Slot):
        raise NotEmittable("dot with a tuple result")
    et = instruction.shape.element_type
    size = et.byte_width
    b = fe.b
    if m * n * batch == 0:
        return
    if k == 0:
        _zero(fe, out)
        return
    # Column-major: C^T(n x m) = op(rhs)(n x k) . op(lhs)(k x m).
    trans_a = "N" if rhs_form == "contracting-first" else "T"  # rhs [K,N] -> col view N x K
    lda = n if rhs_form == "contracting-first" else k
    trans_b = "N" if lhs_form == "free-first" else "T"  # lhs [M,K] -> col view K x M
    ldb = k if lhs_form == "free-first" else m
    if batch == 1 and n * k <= SPLIT_MAX_NK and m >= 2 * SPLIT_BLOCK:
        # A short, wide GEMM: row blocks over the pool, each single-threaded BLAS.
        lhs_step = k if lhs_form == "free-first" else 1  # elements from row i to i + 1

        def rows(kb: ir.IRBuilder, buffers: list, first: ir.Value, count_at, scratch) -> None:  # noqa: ANN001
            left, right, result = buffers
            emit_gemm(
                fe, et, n, SPLIT_BLOCK, k, right, lda, at(kb, left, first, lhs_step * size),
                ldb, at(kb, result, first, n * size), n,
                trans_a=trans_a, trans_b=trans_b, builder=kb, n_at=count_at,
            )  # fmt: skip

        pointers = [fe.pointer(fe.value(lhs)), fe.pointer(fe.value(rhs)), fe.pointer(out)]
        emit_row_blocks(fe, f"gemm_{instruction.name}", pointers, m, SPLIT_BLOCK, rows)
        return
    lhs_pointer = fe.pointer(fe.value(lhs))
    rhs_pointer = fe.pointer(fe.value(rhs))
    out_pointer = fe.pointer(out)

    def call(offset_l: ir.Value, offset_r: ir.Value, offset_o: ir.Value) -> None:
        emit_gemm(
            fe, et, n, m, k, b.gep(rhs_pointer, [offset_r]), lda, b.gep(lhs_pointer, [offset_l]),
            ldb, b.gep(out_pointer, [offset_o]), n, trans_a=trans_a, trans_b=trans_b,
        )  # fmt: skip

    if batch == 1:
        call(i64(0), i64(0), i64(0))
        return
    if fe.m.gemm_loops and m * n * k < PARALLEL_MIN_WORK:
        # Many small GEMMs (xlapy's each on the calling thread): batch elements over the pool.
        _batched(fe, instruction, (m, n, k, batch), (trans_a, lda, trans_b, ldb))
        return
    with for_range(b, 0, batch, "batch") as i:
        call(b.mul(i, i64(m * k * size)), b.mul(i, i64(k * n * size)), b.mul(i, i64(m * n * size)))


def _int8_gemm(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """s8 x s8 -> s32 by xlapy's int8 GEMM (``emit.linalg_gemm_int8``), batch element
    by batch element; either operand may be stored transposed."""
    lhs, rhs = instruction.operands
    lhs_form, rhs_form, batch, m, n, k = _gemm_form(instruction)
    out = fe.value(instruction)
    if not isinstance(out, Slot):
        raise NotEmittable("dot with a tuple result")
    if m * n * batch == 0:
        return
    b = fe.b
    pointers = [fe.pointer(fe.value(lhs)), fe.pointer(fe.value(rhs)), fe.pointer(out)]
    steps = (m * k, k * n, m * n * 4)  # bytes per batch element
    trans = (lhs_form == "contracting-first", rhs_form == "free-first")
    with for_range(b, 0, batch, "batch") as i:
        operands = [b.gep(p, [b.mul(i, i64(step))]) for p, step in zip(pointers, steps, strict=True)]
        emit_int8_gemm(fe, (m, n, k), tuple(operands), *trans)


def _batched(fe: FunctionEmitter, instruction: HloInstruction, sizes: tuple, forms: tuple) -> None:
    """One task per run of batch elements, each element's GEMM single-threaded (its
    workspace on the task's stack): small batched products use every core."""
    m, n, k, batch = sizes
    trans_a, lda, trans_b, ldb = forms
    et = instruction.shape.element_type
    size = et.byte_width
    lhs, rhs = instruction.operands
    kernel = Kernel(fe, f"batched_{instruction.name}", 3, aliased=(0, 1))
    kb = kernel.b
    left, right, out = kernel.buffers
    with for_range(kb, kernel.start, kernel.stop, "batch") as i:
        emit_gemm(
            fe, et, n, m, k, at(kb, right, kb.mul(i, i64(k * n)), size), lda,
            at(kb, left, kb.mul(i, i64(m * k)), size), ldb, at(kb, out, kb.mul(i, i64(m * n)), size),
            n, trans_a=trans_a, trans_b=trans_b, builder=kb,
        )  # fmt: skip
    kernel.finish()
    pointers = [fe.pointer(fe.value(x)) for x in (lhs, rhs, instruction)]
    fe.call_kernel(kernel.function, pointers, batch, batch * m * n * k >= PARALLEL_MIN_WORK)


def _zero(fe: FunctionEmitter, slot: Slot) -> None:
    memset = fe.m.ir.declare_intrinsic("llvm.memset", [I8_PTR, ir.IntType(64)])
    fe.b.call(memset, [fe.pointer(slot), I8(0), i64(slot.byte_size), ir.Constant(ir.IntType(1), 0)])


def _integer_dot(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """out[b, i, j] = sum_k lhs[b, i, k] * rhs[b, k, j] with wrapping integer arithmetic."""

    lhs, rhs = instruction.operands
    lb, rb = _dims(instruction, "lhs_batch_dims"), _dims(instruction, "rhs_batch_dims")
    lc, rc = _dims(instruction, "lhs_contracting_dims"), _dims(instruction, "rhs_contracting_dims")
    lf = [d for d in range(lhs.shape.rank) if d not in lb + lc]
    rf = [d for d in range(rhs.shape.rank) if d not in rb + rc]
    et = instruction.shape.element_type
    out_dims = instruction.shape.dimensions
    kernel = Kernel(fe, f"dot_{instruction.name}", 3)
    try:
        b = kernel.b
        read_l = buffer_reader(kernel.buffers[0], et, lhs.shape.dimensions)
        read_r = buffer_reader(kernel.buffers[1], et, rhs.shape.dimensions)
        out = typed_pointer(b, kernel.buffers[2], et)
        k_dims = [lhs.shape.dimensions[d] for d in lc]
        zero = ir.Constant(llvm_type(et), 0)

        def body(index: Index) -> None:
            multi = index.multi(b)
            nb = len(lb)
            batch, free_l, free_r = multi[:nb], multi[nb : nb + len(lf)], multi[nb + len(lf) :]

            def operand_index(
                rank: int, bd: list[int], fd: list[int], cd: list[int], free: list, ks: list
            ) -> list:
                m = [i64(0)] * rank
                for d, v in zip(bd, batch, strict=True):
                    m[d] = v
                for d, v in zip(fd, free, strict=True):
                    m[d] = v
                for d, v in zip(cd, ks, strict=True):
                    m[d] = v
                return m

            acc = zero
            before = b.block
            total = math.prod(k_dims)
            if total == 0:
                b.store(zero, b.gep(out, [index.linear(b)]) if out_dims else out)
                return
            with for_range(b, 0, total, "k") as kk:
                phi = b.phi(acc.type)
                phi.add_incoming(acc, before)
                ks = Index(k_dims, linear=kk).multi(b)
                x = read_l(
                    b,
                    Index(
                        lhs.shape.dimensions,
                        multi=operand_index(lhs.shape.rank, lb, lf, lc, free_l, ks),
                    ),
                )
                y = read_r(
                    b,
                    Index(
                        rhs.shape.dimensions,
                        multi=operand_index(rhs.shape.rank, rb, rf, rc, free_r, ks),
                    ),
                )
                new = emit_binary(b, Op.ADD, phi, emit_binary(b, Op.MULTIPLY, x, y, et), et)
                phi.add_incoming(new, b.block)
                latch = b.block
            result = b.phi(acc.type)
            result.add_incoming(zero, before)
            result.add_incoming(new, latch)
            b.store(result, b.gep(out, [index.linear(b)]) if out_dims else out)

        if not out_dims:
            body(Index((), multi=[]))
            n = 1
        else:
            nest(b, out_dims, kernel.start, kernel.stop, body)
            n = out_dims[0]
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    pointers = [
        fe.pointer(fe.value(lhs)),
        fe.pointer(fe.value(rhs)),
        fe.pointer(fe.value(instruction)),
    ]
    fe.call_kernel(kernel.function, pointers, n, False)


def emit_gemm(
    fe: FunctionEmitter,
    et: PrimitiveType,
    m: int,
    n: int,
    k: int,
    a: ir.Value,
    lda: int,
    b_: ir.Value,
    ldb: int,
    c: ir.Value,
    ldc: int,
    *,
    trans_a: str = "N",
    trans_b: str = "N",
    accumulate: bool = False,
    builder: ir.IRBuilder | None = None,
    n_at: ir.Value | None = None,
) -> None:
    """Column-major ``C (m x n) = op(A) (m x k) . op(B) (k x n)`` (``+ C`` if accumulating);
    ``a``, ``b_`` and ``c`` are i8* values of ``builder``'s function (the current one by
    default; a kernel's builder means a pool task: the GEMM then stays on its thread).
    ``n_at``, an i8* to an i32, gives n at run time instead, ``n`` then being the most
    it can be (what xlapy's GEMM sizes its workspace for). xlapy's GEMM
    (``linalg_gemm_library``) unless ``CpuOptions.gemm="openblas"`` (then scipy's BLAS)."""
    if getattr(fe.m, "gemm_loops", False):
        emit_gemm_loops(
            fe, et, m, n, k, a, lda, b_, ldb, c, ldc, trans_a=trans_a, trans_b=trans_b,
            accumulate=accumulate, builder=builder, n_at=n_at,
        )  # fmt: skip
        return
    if et not in GEMM_ROUTINES:
        raise NotEmittable(f"no BLAS routine for {et.hlo_name}")
    ints = (ctypes.c_int32 * 6)(m, n, k, max(1, lda), max(1, ldb), max(1, ldc))
    one = (_SCALAR_CT[et] * 2)(*(_ONE[et] + (0.0,) * (2 - len(_ONE[et]))))
    beta = (_SCALAR_CT[et] * 2)(*((1.0, 0.0) if accumulate else (0.0, 0.0)))
    flags = (ctypes.c_char * 2)(trans_a.encode(), trans_b.encode())
    b = builder or fe.b

    def address(obj: ctypes.Array, offset: int = 0) -> ir.Value:  # type: ignore[type-arg]
        return fe.m.host_data(obj, offset)

    gemm = blas_function(fe.m.ir, GEMM_ROUTINES[et], 13)
    b.call(
        gemm,
        [
            address(flags),
            address(flags, 1),
            address(ints, 0),
            n_at if n_at is not None else address(ints, 4),
            address(ints, 8),
            address(one),
            a,
            address(ints, 12),
            b_,
            address(ints, 16),
            address(beta),
            c,
            address(ints, 20),
        ],
    )
