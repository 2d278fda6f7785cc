"""jaxlib's LAPACK eigen and singular value targets, called natively: syevd/heevd,
gesdd, gesvd, sytrd/hetrd, gehrd, gees, geev.

The frame (``LapackEmitter``: constants, scratch, the batch loop, transposing copies)
and the conventions are ``linalg_lapack``'s. The workspace sizes are scipy's wrapper
defaults, the ones the evaluator's kernels (``evaluator/kernels/linalg_lapack_eig``)
run with, so the results are the evaluator's bit for bit (the tridiagonal and
bidiagonal reductions block by what ``lwork`` allows). Outputs a mode does not compute
(u and vt with mode 'N') are zeros, as in the evaluator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ..ir_support import for_range, i64
from ..llvm_types import I8_PTR
from .linalg_lapack import LapackEmitter, batch_and_matrix, targets
from .registry import custom_call_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

# -- syevd / heevd -----------------------------------------------------------------------------


def syevd_workspace(n: int, vectors: bool, is_complex: bool) -> tuple[int, int, int]:
    """scipy's default (lwork, liwork, lrwork) for syevd (heevd when complex)."""
    liwork = 3 + 5 * n if vectors else 1
    if is_complex:
        lwork = max(2 * n + n * n if vectors else n + 1, 1)
        lrwork = 1 + 5 * n + 2 * n * n if vectors else n
        return lwork, liwork, max(lrwork, 1)
    return max(1 + 6 * n + 2 * n * n if vectors else 2 * n + 1, 1), liwork, 0


@custom_call_emitter(*targets("syevd", "heevd"))
def _syevd(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    call = e.call
    vectors = call.char("mode", "NV") == "V"
    lwork, liwork, lrwork = syevd_workspace(n, vectors, call.is_complex)
    jobz, uplo = e.chars(call.char("mode", "NV") + call.char("uplo", "LU"))
    n_at, lwork_at, liwork_at, lrwork_at = e.ints(n, lwork, liwork, lrwork)
    a = e.scratch(n * n * e.size)
    work, iwork = e.scratch(lwork * e.size), e.scratch(4 * liwork)
    v, w, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        values, status = e.vector_out(w, m, n * e.real_size), e.at(info, m, 4)
        if call.is_complex:
            rwork = e.scratch(lrwork * e.real_size)
            heevd = e.routine("heevd", 13)
            arguments = [jobz, uplo, n_at, a, n_at, values, work, lwork_at, rwork, lrwork_at]
            e.b.call(heevd, [*arguments, iwork, liwork_at, status])
        else:
            syevd = e.routine("syevd", 11)
            arguments = [jobz, uplo, n_at, a, n_at, values, work, lwork_at]
            e.b.call(syevd, [*arguments, iwork, liwork_at, status])
        e.copy_out()
        e.from_column_major(e.at(v, m, n * n * e.size), a, n, n)


# -- gesdd -------------------------------------------------------------------------------------


def gesdd_workspace(rows: int, cols: int, vectors: bool, is_complex: bool) -> tuple[int, int]:
    """scipy's default lwork for gesdd, and a safe rwork size for the complex one
    (LAPACK's largest requirement over its versions; rwork does not change results)."""
    k, big = min(rows, cols), max(rows, cols)
    if is_complex:
        lwork = 2 * k * k + big + 2 * k if vectors else 2 * k + big
        rwork = max(7 * k, 5 * k * k + 5 * k, 2 * big * k + 2 * k * k + k)
        return max(lwork, 1), max(rwork, 1)
    if vectors:
        lwork = 4 * k * k + big + 9 * k
    else:
        lwork = max(14 * k + 4, 10 * k + 2 + 25 * (25 + 8)) + big
    return max(lwork, 1), 0


def gesvd_workspace(rows: int, cols: int, is_complex: bool) -> tuple[int, int]:
    """scipy's default lwork for gesvd, and LAPACK's rwork size for the complex one."""
    k, big = min(rows, cols), max(rows, cols)
    if is_complex:
        return max(2 * k + big, 1), max(5 * k, 1)
    return max(3 * k + big, 5 * k, 1), 0


@custom_call_emitter(*targets("gesdd"), *targets("gesvd"))
def _svd(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """gesdd and gesvd as scipy's wrappers call them: jobz (jobu = jobvt) 'A', 'S' or 'N'."""
    e = LapackEmitter(fe, instruction)
    count, rows, cols = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if rows * cols == 0:
        e.zero_outputs()
        return
    call = e.call
    divide = call.target.endswith("gesdd_ffi")
    mode = call.char("mode", "ASNO")
    vectors = mode != "N"
    if not vectors:
        e.zero_outputs(2, 3)  # u and vt, not computed
    k = min(rows, cols)
    u_cols, vt_rows = (rows, cols) if mode == "A" else (k, k)
    ldu, ldvt = (rows, vt_rows) if vectors else (1, 1)
    if divide:
        lwork, lrwork = gesdd_workspace(rows, cols, vectors, call.is_complex)
    else:
        lwork, lrwork = gesvd_workspace(rows, cols, call.is_complex)
    jobs = e.chars(mode if divide else mode + mode)
    m_at, n_at, ldu_at, ldvt_at, lwork_at = e.ints(rows, cols, ldu, ldvt, lwork)
    a = e.scratch(rows * cols * e.size)
    u = e.scratch(rows * u_cols * e.size if vectors else e.size)
    vt = e.scratch(vt_rows * cols * e.size if vectors else e.size)
    work, iwork = e.scratch(lwork * e.size), e.scratch(4 * 8 * k)
    rwork = e.scratch(lrwork * e.real_size) if call.is_complex else None
    name = "gesdd" if divide else "gesvd"
    a_out, s, u_out, vt_out, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, rows * cols * e.size), rows, cols)
        singular = e.vector_out(s, m, k * e.real_size)
        head = [*jobs, m_at, n_at, a, m_at, singular, u, ldu_at, vt, ldvt_at, work, lwork_at]
        tail = [rwork] if rwork is not None else []
        if divide:
            tail.append(iwork)
        arguments = [*head, *tail, e.at(info, m, 4)]
        e.b.call(e.routine(name, len(arguments)), arguments)
        e.copy_out()
        e.from_column_major(e.at(a_out, m, rows * cols * e.size), a, rows, cols)
        if vectors:
            e.from_column_major(e.at(u_out, m, rows * u_cols * e.size), u, rows, u_cols)
            e.from_column_major(e.at(vt_out, m, vt_rows * cols * e.size), vt, vt_rows, cols)


# -- sytrd / hetrd, gehrd ----------------------------------------------------------------------


@custom_call_emitter(*targets("sytrd", "hetrd"))
def _sytrd(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    lwork = max(n, 1)  # scipy's default
    (uplo,) = e.chars(e.call.char("uplo", "LU"))
    n_at, lwork_at = e.ints(n, lwork)
    a, work = e.scratch(n * n * e.size), e.scratch(lwork * e.size)
    sytrd = e.routine("hetrd" if e.call.is_complex else "sytrd", 10)
    c, d, off, tau, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        vectors = [e.vector_out(d, m, n * e.real_size), e.vector_out(off, m, (n - 1) * e.real_size)]
        reflectors = e.vector_out(tau, m, (n - 1) * e.size)
        e.b.call(
            sytrd, [uplo, n_at, a, n_at, *vectors, reflectors, work, lwork_at, e.at(info, m, 4)]
        )
        e.copy_out()
        e.from_column_major(e.at(c, m, n * n * e.size), a, n, n)


@custom_call_emitter(*targets("gehrd"))
def _gehrd(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    lwork = max(n, 1)  # scipy's default
    # jaxlib's low/high are LAPACK's 1-based ilo/ihi (scipy's lo/hi + 1).
    n_at, ilo_at, ihi_at, lwork_at = e.ints(n, e.call.integer("low"), e.call.integer("high"), lwork)
    a, work = e.scratch(n * n * e.size), e.scratch(lwork * e.size)
    gehrd = e.routine("gehrd", 9)
    h, tau, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        reflectors = e.vector_out(tau, m, (n - 1) * e.size)
        e.b.call(
            gehrd,
            [n_at, ilo_at, ihi_at, a, n_at, reflectors, work, lwork_at, e.at(info, m, 4)],
        )
        e.copy_out()
        e.from_column_major(e.at(h, m, n * n * e.size), a, n, n)


# -- gees --------------------------------------------------------------------------------------


@custom_call_emitter(*targets("gees"))
def _gees(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """Schur form without sorting (the plan refuses sort='S'): LAPACK never calls
    ``select`` nor touches ``bwork``."""
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    call = e.call
    vectors = call.char("mode", "NV") == "V"
    if not vectors:
        e.zero_outputs(1)  # the Schur vectors, not computed
    lwork = max(3 * n, 1)  # scipy's default
    jobvs, sort = e.chars(call.char("mode", "NV") + "N")
    n_at, ldvs_at, lwork_at = e.ints(n, n if vectors else 1, lwork)
    a, vs = e.scratch(n * n * e.size), e.scratch(n * n * e.size if vectors else e.size)
    work, bwork = e.scratch(lwork * e.size), e.scratch(4 * n)
    no_select = ir.Constant(I8_PTR, None)
    t, vs_out, *values, sdim, info = e.outputs
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        eigenvalues = [e.vector_out(v, m, n * e.size) for v in values]
        head = [jobvs, sort, no_select, n_at, a, n_at, e.at(sdim, m, 4), *eigenvalues, vs]
        if call.is_complex:
            rwork = e.scratch(n * e.real_size)
            tail = [ldvs_at, work, lwork_at, rwork, bwork, e.at(info, m, 4)]
        else:
            tail = [ldvs_at, work, lwork_at, bwork, e.at(info, m, 4)]
        e.b.call(e.routine("gees", 15), [*head, *tail])
        e.copy_out()
        e.from_column_major(e.at(t, m, n * n * e.size), a, n, n)
        if vectors:
            e.from_column_major(e.at(vs_out, m, n * n * e.size), vs, n, n)


# -- geev --------------------------------------------------------------------------------------


@custom_call_emitter(*targets("geev"))
def _geev(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    e = LapackEmitter(fe, instruction)
    count, n, _ = batch_and_matrix(instruction.operands[0].shape.dimensions)
    if n == 0:
        e.zero_outputs()
        return
    call = e.call
    left = call.char("compute_left", "NV") == "V"
    right = call.char("compute_right", "NV") == "V"
    last = len(e.outputs) - 1
    unwritten = [index for index, wanted in ((last - 2, left), (last - 1, right)) if not wanted]
    if unwritten:
        e.zero_outputs(*unwritten)  # eigenvectors not computed
    lwork = max(2 * n if call.is_complex else 4 * n, 1)  # scipy's default
    jobs = e.chars(call.char("compute_left", "NV") + call.char("compute_right", "NV"))
    n_at, ldvl_at, ldvr_at, lwork_at = e.ints(n, n if left else 1, n if right else 1, lwork)
    a = e.scratch(n * n * e.size)
    vl = e.scratch(n * n * e.size if left else e.size)
    vr = e.scratch(n * n * e.size if right else e.size)
    work = e.scratch(lwork * e.size)
    *values, vl_out, vr_out, info = e.outputs
    complex_size = 2 * e.real_size
    with e.batch(count) as m:
        e.to_column_major(a, e.at(e.operands[0], m, n * n * e.size), n, n)
        eigenvalues = [e.vector_out(v, m, n * e.size) for v in values]
        head = [*jobs, n_at, a, n_at, *eigenvalues, vl, ldvl_at, vr, ldvr_at, work, lwork_at]
        if call.is_complex:
            rwork = e.scratch(2 * n * e.real_size)
            e.b.call(e.routine("geev", 14), [*head, rwork, e.at(info, m, 4)])
        else:
            e.b.call(e.routine("geev", 14), [*head, e.at(info, m, 4)])
        e.copy_out()
        for wanted, scratch, out in ((left, vl, vl_out), (right, vr, vr_out)):
            if not wanted:
                continue
            target = e.at(out, m, n * n * complex_size)
            if call.is_complex:
                e.from_column_major(target, scratch, n, n)
            else:
                _complex_vectors(e, target, scratch, eigenvalues[1], n)


def _complex_vectors(e: LapackEmitter, out: ir.Value, v: ir.Value, wi: ir.Value, n: int) -> None:
    """LAPACK's real storage of eigenvectors (column-major ``v``) as complex ones
    (row-major ``out``), with the evaluator's arithmetic: for a conjugate pair (wi[j] != 0,
    j + 1 < n) columns j and j+1 become v_j + 1j * v_{j+1} and v_j - 1j * v_{j+1} as numpy
    computes them (1j * y = (0*y - 1*0, 0*0 + 1*y)), every other column v_j + 0j."""
    b = e.b
    part = ir.FloatType() if e.real_size == 4 else ir.DoubleType()
    zero, one = ir.Constant(part, 0.0), ir.Constant(part, 1.0)
    values = b.bitcast(v, part.as_pointer())
    imaginary = b.bitcast(wi, part.as_pointer())
    parts = b.bitcast(out, part.as_pointer())
    with b.goto_entry_block():
        entry = b.function.entry_basic_block
        if entry.instructions and entry.is_terminated:
            b.position_before(entry.terminator)
        second_slot = b.alloca(ir.IntType(1), name="second_of_pair")
    b.store(ir.Constant(ir.IntType(1), 0), second_slot)

    def store(i: ir.Value, j: ir.Value, real: ir.Value, imag: ir.Value) -> None:
        at = b.mul(b.add(b.mul(i, i64(n)), j), i64(2))
        b.store(real, b.gep(parts, [at]))
        b.store(imag, b.gep(parts, [b.add(at, i64(1))]))

    with for_range(b, 0, n, "geev_column") as j:
        second = b.load(second_slot)
        nonzero = b.fcmp_unordered("!=", b.load(b.gep(imaginary, [j])), zero)
        has_next = b.icmp_signed("<", b.add(j, i64(1)), i64(n))
        first = b.and_(b.and_(b.not_(second), nonzero), has_next)
        b.store(first, second_slot)
        with b.if_else(first) as (pair, single):
            with pair:
                following = b.add(j, i64(1))
                with for_range(b, 0, n, "geev_pair_row") as i:
                    x = b.load(b.gep(values, [b.add(b.mul(j, i64(n)), i)]))
                    y = b.load(b.gep(values, [b.add(b.mul(following, i64(n)), i)]))
                    product_real = b.fsub(b.fmul(zero, y), b.fmul(one, zero))
                    product_imag = b.fadd(b.fmul(zero, zero), b.fmul(one, y))
                    store(i, j, b.fadd(x, product_real), b.fadd(zero, product_imag))
                    store(i, following, b.fsub(x, product_real), b.fsub(zero, product_imag))
            with single:
                with b.if_then(b.not_(second)):
                    with for_range(b, 0, n, "geev_real_row") as i:
                        x = b.load(b.gep(values, [b.add(b.mul(j, i64(n)), i)]))
                        store(i, j, x, zero)


__all__ = ["gesdd_workspace", "gesvd_workspace", "syevd_workspace"]
