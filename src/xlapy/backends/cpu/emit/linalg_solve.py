"""Cholesky and triangular-solve through LAPACK and BLAS (scipy's, called natively).

Buffers are row-major, LAPACK is column-major: a row-major matrix read as
column-major is its transpose, so the lower triangle of one is the upper
triangle of the other. Cholesky of the row-major lower triangle is ``?potrf``
with ``uplo='U'`` on the same memory; a triangular solve from the left is a
``?trsm`` from the right on the transposed views (and the other way round).
The semantics are the interpreter's: cholesky reads one triangle, zeroes the
other and gives all NaN for a matrix that is not positive definite (or not
finite); triangular-solve reads one triangle of ``a``.
"""

from __future__ import annotations

import ctypes
import math
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ....xla_data import Transpose
from ..buffers import Slot
from ..ir_support import for_range, i64, typed_pointer
from ..llvm_types import I32, NotEmittable, llvm_type
from ..runtime.blas import blas_function
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode
P = PrimitiveType
_PREFIX = {P.F32: "s", P.F64: "d", P.C64: "c", P.C128: "z"}


def _constants(
    fe: FunctionEmitter, values: list[int], flags: str
) -> tuple[list[ir.Value], list[ir.Value]]:
    """Addresses of ints and single-character flags kept alive with the executable."""
    ints = (ctypes.c_int32 * max(1, len(values)))(*values)
    chars = (ctypes.c_char * max(1, len(flags)))(*(c.encode() for c in flags))

    def at(obj: ctypes.Array, offset: int) -> ir.Value:  # type: ignore[type-arg]
        return fe.m.host_data(obj, offset)

    return [at(ints, 4 * k) for k in range(len(values))], [at(chars, k) for k in range(len(flags))]


def _matrices(shape_dims: tuple[int, ...]) -> tuple[int, int, int]:
    batch = math.prod(shape_dims[:-2])
    return batch, shape_dims[-2], shape_dims[-1]


@thunk_emitter(Op.CHOLESKY)
def _cholesky(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    (a,) = instruction.operands
    et = instruction.shape.element_type
    if et not in _PREFIX or a.shape.rank < 2:
        raise NotEmittable(f"cholesky of {a.shape}")
    out = fe.value(instruction)
    if not isinstance(out, Slot):
        raise NotEmittable("cholesky with a tuple result")
    batch, n, _ = _matrices(a.shape.dimensions)
    if batch * n == 0:
        return
    lower = bool(instruction.attribute("lower", False))
    size = et.byte_width
    (n_at, info_at), (uplo,) = _constants(fe, [n, 0], "U" if lower else "L")
    potrf = blas_function(fe.m.ir, _PREFIX[et] + "potrf", 5)
    b = fe.b
    target = fe.pointer(out)
    fe.m.memcpy(b, target, fe.pointer(fe.value(a)), out.byte_size)
    ty = llvm_type(et)
    nan = _splat(ty, float("nan"))
    zero = _splat(ty, 0.0)
    info = b.bitcast(info_at, I32.as_pointer())
    with for_range(b, 0, batch, "matrix") as m:
        matrix = b.gep(target, [b.mul(m, i64(n * n * size))])
        values = typed_pointer(b, matrix, et)
        b.call(potrf, [uplo, n_at, matrix, n_at, info_at])
        failed = b.icmp_signed("!=", b.load(info), I32(0))
        # Not finite (LAPACK may not notice NaN): the interpreter's answer is NaN too.
        with for_range(b, 0, n * n, "check") as k:
            bad = _not_finite(fe, b.load(b.gep(values, [k])))
            row, col = b.udiv(k, i64(n)), b.urem(k, i64(n))
            kept = b.icmp_signed("<=", col, row) if lower else b.icmp_signed(">=", col, row)
            failed_here = b.and_(bad, kept)
            b.store(
                b.zext(b.or_(b.icmp_signed("!=", b.load(info), I32(0)), failed_here), I32), info
            )
        failed = b.icmp_signed("!=", b.load(info), I32(0))
        with for_range(b, 0, n * n, "finish") as k:
            row, col = b.udiv(k, i64(n)), b.urem(k, i64(n))
            kept = b.icmp_signed("<=", col, row) if lower else b.icmp_signed(">=", col, row)
            slot = b.gep(values, [k])
            value = b.select(kept, b.load(slot), zero)
            b.store(b.select(failed, nan, value), slot)


def _splat(ty: ir.Type, value: float) -> ir.Constant:
    """``value`` as an element (both parts of a complex one)."""
    if isinstance(ty, ir.VectorType):
        return ir.Constant(ty, [value] * ty.count)
    return ir.Constant(ty, value)


def _not_finite(fe: FunctionEmitter, v: ir.Value) -> ir.Value:
    """An ``i1``: the element (either part of a complex one) is infinite or NaN."""
    b = fe.b
    if isinstance(v.type, ir.VectorType):
        values = [b.extract_element(v, I32(j)) for j in range(v.type.count)]
    else:
        values = [v]
    bad = ir.Constant(ir.IntType(1), 0)
    for x in values:
        inf = ir.Constant(x.type, float("inf"))
        bad = b.or_(bad, b.fcmp_unordered("uno", x, x))
        bad = b.or_(bad, b.fcmp_ordered("==", b.call(_fabs(fe, x.type), [x]), inf))
    return bad


def _fabs(fe: FunctionEmitter, ty: ir.Type) -> ir.Function:
    name = f"llvm.fabs.{'f64' if ty == ir.DoubleType() else 'f32'}"
    fn = fe.m.ir.globals.get(name)
    return fn if fn is not None else ir.Function(fe.m.ir, ir.FunctionType(ty, [ty]), name)


@thunk_emitter(Op.TRIANGULAR_SOLVE)
def _triangular_solve(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    a, rhs = instruction.operands
    et = instruction.shape.element_type
    if et not in _PREFIX or a.shape.rank < 2 or a.shape.element_type != et:
        raise NotEmittable(f"triangular-solve of {a.shape}, {rhs.shape}")
    out = fe.value(instruction)
    if not isinstance(out, Slot):
        raise NotEmittable("triangular-solve with a tuple result")
    attr = instruction.attribute
    left = bool(attr("left_side", False))
    lower = bool(attr("lower", False))
    transpose = Transpose(attr("transpose_a", Transpose.NO_TRANSPOSE))
    unit = bool(attr("unit_diagonal", False))
    batch, rows, cols = _matrices(rhs.shape.dimensions)
    k = a.shape.dimensions[-1]
    if batch * rows * cols == 0:
        fe.m.memcpy(fe.b, fe.pointer(out), fe.pointer(fe.value(rhs)), out.byte_size)
        return
    # Column-major views: B^T (cols x rows, ld cols) and A^T (k x k, ld k).
    side = "R" if left else "L"
    uplo = "U" if lower else "L"
    # op(A)^T, read through the column-major view A^T: N, T, or for A^H the conjugate A^T^H.
    trans = {Transpose.NO_TRANSPOSE: "N", Transpose.TRANSPOSE: "T", Transpose.ADJOINT: "C"}[
        transpose
    ]
    diag = "U" if unit else "N"
    part = ctypes.c_float if et in (P.F32, P.C64) else ctypes.c_double
    one = (part * 2)(1.0, 0.0)  # 1 (+ 0i for the complex routines)
    alpha = fe.m.host_data(one)
    (m_at, n_at, lda_at, ldb_at), flags = _constants(
        fe, [cols, rows, k, cols], side + uplo + trans + diag
    )
    trsm = blas_function(fe.m.ir, _PREFIX[et] + "trsm", 11)
    b = fe.b
    size = et.byte_width
    target = fe.pointer(out)
    fe.m.memcpy(b, target, fe.pointer(fe.value(rhs)), out.byte_size)
    matrices = fe.pointer(fe.value(a))
    a_batch = math.prod(a.shape.dimensions[:-2])
    with for_range(b, 0, batch, "system") as m:
        a_m = b.gep(matrices, [b.mul(m if a_batch == batch else i64(0), i64(k * k * size))])
        b_m = b.gep(target, [b.mul(m, i64(rows * cols * size))])
        b.call(trsm, [*flags, m_at, n_at, alpha, a_m, lda_at, b_m, ldb_at])
