"""jaxlib's LAPACK custom-call targets (``lapack_<t><routine>_ffi``), called natively.

The evaluator's kernels (``evaluator/kernels/linalg_lapack``) define the targets:
operands, attributes, results and ``info``. These emitters call the same scipy
LAPACK routines with the same arguments (workspace sizes included: a blocked
routine's result depends on ``lwork``, so it is the one scipy's wrapper passes,
which the evaluator uses), so the results are the evaluator's bit for bit.
Buffers are row-major after layout normalization and LAPACK is column-major:
each batch element is copied transposed into a column-major scratch matrix in the
arena, LAPACK works on it in place, and the matrices it produces are copied back
transposed; vectors (pivots, tau, eigenvalues, info) are written in place.

This module holds the frame (``LapackEmitter``) and the factorizations and solves:
potrf, trsm, getrf, geqrf, orgqr/ungqr, gtsv. ``linalg_lapack_eig`` holds the eigen and
singular value routines. A target without an emitter here runs through the fallback.
"""

from __future__ import annotations

import contextlib
import ctypes
import math
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from llvmlite import ir

from ....evaluator.kernels.linalg_lapack import LapackCall, ffi_attributes, result_shapes
from ....hlo.instruction import HloInstruction
from ....types import PrimitiveType
from ..ir_support import for_range, i64
from ..llvm_types import I8_PTR, NotEmittable
from ..runtime.blas import blas_function
from .registry import custom_call_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

_TARGET = re.compile(r"lapack_([sdcz])(\w+)_ffi")
LETTERS = "sdcz"


# OpenBLAS's kernels (zhemv_U on AVX-512, for one) read a little past the vectors and
# matrices they are given; every array LAPACK sees is scratch with this much room after it.
SLACK = 256


def targets(routine: str, complex_routine: str | None = None) -> list[str]:
    """The four targets of ``routine`` (``complex_routine`` for c and z)."""
    return [
        f"lapack_{letter}{complex_routine if complex_routine and letter in 'cz' else routine}_ffi"
        for letter in LETTERS
    ]


class LapackEmitter:
    """One native call of a LAPACK target: constants, scratch, the batch loop and the
    transposing copies between row-major buffers and column-major scratch."""

    def __init__(self, fe: FunctionEmitter, instruction: HloInstruction) -> None:
        name = instruction.custom_call_target or ""
        match = _TARGET.fullmatch(name)
        if match is None:
            raise NotEmittable(f"custom-call {name!r} is not a LAPACK target")
        self.fe, self.b, self.instruction = fe, fe.b, instruction
        self.call = LapackCall(instruction, name, match.group(1), ffi_attributes(instruction))
        self.et: PrimitiveType = self.call.element_type
        self.size = self.et.byte_width
        self.real_size = self.call.real_type.byte_width
        self.outputs = fe.leaf_pointers(instruction)
        self.operands = fe.operand_leaf_pointers(instruction)
        self.result_shapes = result_shapes(instruction)
        self._copies_out: list[tuple[ir.Value, ir.Value, int]] = []

    # -- constants and scratch -----------------------------------------------------------------
    def _address(self, obj: ctypes.Array) -> ir.Value:  # type: ignore[type-arg]
        return self.fe.m.host_data(obj)

    def ints(self, *values: int) -> list[ir.Value]:
        """Pointers to 32-bit integer constants (LAPACK's scalar arguments)."""
        return [self._address((ctypes.c_int32 * 1)(v)) for v in values]

    def chars(self, flags: str) -> list[ir.Value]:
        """Pointers to single-character constants (LAPACK's option arguments)."""
        return [self._address((ctypes.c_char * 1)(c.encode())) for c in flags]

    def one(self) -> ir.Value:
        """A pointer to 1 of the element type (1 + 0i for the complex routines)."""
        part = (
            ctypes.c_float if self.et in (PrimitiveType.F32, PrimitiveType.C64) else ctypes.c_double
        )
        return self._address((part * 2)(1.0, 0.0))

    def scratch(self, nbytes: int) -> ir.Value:
        """A private region of the arena (at least one element)."""
        offset = self.fe.m.reserve(nbytes + SLACK)
        return self.b.gep(self.fe.arena_base, [i64(offset)])

    def vector_in(self, base: ir.Value, index: ir.Value, nbytes: int) -> ir.Value:
        """Batch element ``index`` of the vectors at ``base`` (``nbytes`` each), copied to
        scratch for LAPACK to read."""
        scratch = self.scratch(nbytes)
        self.fe.m.memcpy(self.b, scratch, self.at(base, index, nbytes), nbytes)
        return scratch

    def vector_out(self, base: ir.Value, index: ir.Value, nbytes: int) -> ir.Value:
        """Scratch for LAPACK to write batch element ``index`` of the vectors at ``base``
        into; ``copy_out`` moves it there."""
        scratch = self.scratch(nbytes)
        self._copies_out.append((self.at(base, index, nbytes), scratch, nbytes))
        return scratch

    def copy_out(self) -> None:
        """The vectors LAPACK wrote (``vector_out``) to their results."""
        for target, scratch, nbytes in self._copies_out:
            self.fe.m.memcpy(self.b, target, scratch, nbytes)
        self._copies_out.clear()

    def routine(self, name: str, arity: int) -> ir.Function:
        return blas_function(self.fe.m.ir, self.call.letter + name, arity)

    def zero_outputs(self, *indices: int) -> None:
        """Results ``indices`` (all by default) zeroed: what the evaluator gives where LAPACK
        is not called or does not write. Called before any operand is read only where the
        matrices are empty (a custom call's results never share its operands' buffers)."""
        module = self.fe.m.ir
        memset = module.declare_intrinsic("llvm.memset", [I8_PTR, ir.IntType(64)])
        for index, (pointer, shape) in enumerate(
            zip(self.outputs, self.result_shapes, strict=True)
        ):
            if indices and index not in indices:
                continue
            nbytes = shape.element_count() * shape.element_type.byte_width
            if nbytes:
                self.b.call(
                    memset,
                    [
                        pointer,
                        ir.Constant(ir.IntType(8), 0),
                        i64(nbytes),
                        ir.Constant(ir.IntType(1), 0),
                    ],
                )

    # -- the batch ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def batch(self, count: int) -> Iterator[ir.Value]:
        with for_range(self.b, 0, count, "lapack_batch") as index:
            yield index

    def at(self, base: ir.Value, index: ir.Value, stride: int) -> ir.Value:
        """``base`` + ``index`` * ``stride`` bytes."""
        return self.b.gep(base, [self.b.mul(index, i64(stride))])

    def _copy_transposed(
        self, dst: ir.Value, src: ir.Value, outer: int, inner: int, size: int
    ) -> None:
        """dst[j * outer + i] = src[i * inner + j] for i < outer, j < inner."""
        b = self.b
        ty = ir.IntType(8 * size).as_pointer()
        source, target = b.bitcast(src, ty), b.bitcast(dst, ty)
        align = min(size, 8)
        with for_range(b, 0, outer, "lapack_row") as i:
            with for_range(b, 0, inner, "lapack_col") as j:
                value = b.load(b.gep(source, [b.add(b.mul(i, i64(inner)), j)]), align=align)
                b.store(value, b.gep(target, [b.add(b.mul(j, i64(outer)), i)]), align=align)

    def to_column_major(self, dst: ir.Value, src: ir.Value, rows: int, cols: int) -> None:
        """The row-major rows x cols matrix at ``src`` as a column-major one (ld rows)."""
        self._copy_transposed(dst, src, rows, cols, self.size)

    def from_column_major(self, dst: ir.Value, src: ir.Value, rows: int, cols: int) -> None:
        """The column-major rows x cols matrix (ld rows) at ``src`` as a row-major one."""
        self._copy_transposed(dst, src, cols, rows, self.size)


def batch_and_matrix(dims: tuple[int, ...]) -> tuple[int, int, int]:
    return math.prod(dims[:-2]), dims[-2], dims[-1]


# -- potrf -------------------------------------------------------------------------------------


@custom_call_emitter(*targets("potrf"))
def _potrf(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    (uplo,) = e.chars(e.call.char("uplo", "LU"))
    (n_at,) = e.ints(n)
    a = e.scratch(n * n * e.size)
    potrf = e.routine("potrf", 5)
    factor, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        e.b.call(potrf, [uplo, n_at, a, n_at, e.at(info, m, 4)])
        e.from_column_major(e.at(factor, m, n * n * e.size), a, n, n)


# -- trsm --------------------------------------------------------------------------------------


@custom_call_emitter(*targets("trsm"))
def _trsm(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, k, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    _, rows, cols = batch_and_matrix(instruction.operands[1].shape.dimensions)
    if rows * cols == 0:
        e.zero_outputs()
        return
    call = e.call
    flags = e.chars(
        call.char("side", "LR")
        + call.char("uplo", "LU")
        + call.char("trans_x", "NTC")
        + call.char("diag", "NU")
    )
    m_at, n_at, k_at = e.ints(rows, cols, k)
    alpha = e.one()
    if len(e.operands) == 3:
        alpha = e.scratch(e.size)
        fe.m.memcpy(e.b, alpha, e.operands[2], e.size)
    a, x = e.scratch(k * k * e.size), e.scratch(rows * cols * e.size)
    trsm = e.routine("trsm", 11)
    (out,) = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, k * k * e.size), k, k)
        e.to_column_major(x, e.at(e.operands[1], m, rows * cols * e.size), rows, cols)
        e.b.call(trsm, [*flags, m_at, n_at, alpha, a, k_at, x, m_at])
        e.from_column_major(e.at(out, m, rows * cols * e.size), x, rows, cols)


# -- getrf -------------------------------------------------------------------------------------


@custom_call_emitter(*targets("getrf"))
def _getrf(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, rows, cols = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if rows * cols == 0:
        e.zero_outputs()
        return
    k = min(rows, cols)
    m_at, n_at = e.ints(rows, cols)
    a = e.scratch(rows * cols * e.size)
    getrf = e.routine("getrf", 6)
    lu, pivots, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, rows * cols * e.size), rows, cols)
        e.b.call(getrf, [m_at, n_at, a, m_at, e.vector_out(pivots, m, 4 * k), e.at(info, m, 4)])
        e.copy_out()
        e.from_column_major(e.at(lu, m, rows * cols * e.size), a, rows, cols)


# -- geqrf, orgqr/ungqr ------------------------------------------------------------------------


def scipy_qr_lwork(cols: int) -> int:
    """scipy's default ``lwork`` for geqrf and orgqr/ungqr (the evaluator's)."""
    return max(3 * cols, 1)


@custom_call_emitter(*targets("geqrf"))
def _geqrf(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, rows, cols = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if rows * cols == 0:
        e.zero_outputs()
        return
    k = min(rows, cols)
    lwork = scipy_qr_lwork(cols)
    m_at, n_at, lwork_at = e.ints(rows, cols, lwork)
    a, work, info = e.scratch(rows * cols * e.size), e.scratch(lwork * e.size), e.scratch(4)
    geqrf = e.routine("geqrf", 8)
    qr, tau = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, rows * cols * e.size), rows, cols)
        reflectors = e.vector_out(tau, m, k * e.size)
        e.b.call(geqrf, [m_at, n_at, a, m_at, reflectors, work, lwork_at, info])
        e.copy_out()
        e.from_column_major(e.at(qr, m, rows * cols * e.size), a, rows, cols)


@custom_call_emitter(*targets("orgqr", "ungqr"))
def _orgqr(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, rows, cols = batch_and_matrix(instruction.operands[0].shape.dimensions)
    k = instruction.operands[1].shape.dimensions[-1]
    if rows * cols == 0:
        e.zero_outputs()
        return
    lwork = scipy_qr_lwork(cols)
    m_at, n_at, k_at, lwork_at = e.ints(rows, cols, k, lwork)
    a, work, info = e.scratch(rows * cols * e.size), e.scratch(lwork * e.size), e.scratch(4)
    orgqr = e.routine("ungqr" if e.call.is_complex else "orgqr", 9)
    (q,) = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, rows * cols * e.size), rows, cols)
        tau = e.vector_in(e.operands[1], m, k * e.size)
        e.b.call(orgqr, [m_at, n_at, k_at, a, m_at, tau, work, lwork_at, info])
        e.from_column_major(e.at(q, m, rows * cols * e.size), a, rows, cols)


# -- gtsv --------------------------------------------------------------------------------------


@custom_call_emitter(*targets("gtsv"))
def _gtsv(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """jaxlib hands LAPACK ``dl[1:]`` (its dl[0] is padding) and the first n-1 of du; the
    outputs start as copies of the operands (the evaluator's, also where LAPACK is not
    called)."""
    e = LapackEmitter(fe, instruction)
    count, rows, cols = batch_and_matrix(instruction.operands[3].shape.dimensions)
    for output, operand, shape in zip(e.outputs, e.operands, e.result_shapes, strict=False):
        fe.m.memcpy(e.b, output, operand, shape.element_count() * e.size)
    e.zero_outputs(4)
    if rows * cols == 0:
        return
    n_at, nrhs_at = e.ints(rows, cols)
    x = e.scratch(rows * cols * e.size)
    gtsv = e.routine("gtsv", 8)
    dl, d, du, out, info = e.outputs
    with e.batch(count) as m:
        vectors = [e.vector_in(v, m, rows * e.size) for v in (dl, d, du)]
        e.to_column_major(x, e.at(e.operands[3], m, rows * cols * e.size), rows, cols)
        lower = e.b.gep(vectors[0], [i64(e.size)])
        e.b.call(gtsv, [n_at, nrhs_at, lower, *vectors[1:], x, n_at, e.at(info, m, 4)])
        for target, scratch in zip((dl, d, du), vectors, strict=True):
            fe.m.memcpy(e.b, e.at(target, m, rows * e.size), scratch, rows * e.size)
        e.from_column_major(e.at(out, m, rows * cols * e.size), x, rows, cols)


__all__ = ["LETTERS", "LapackEmitter", "batch_and_matrix", "scipy_qr_lwork", "targets"]
