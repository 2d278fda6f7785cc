"""jaxlib's LAPACK FFI targets for eigen and singular value problems, as built-in targets.

syevd/heevd (symmetric/Hermitian eigendecomposition), gesdd and gesvd (SVD),
geev (general eigendecomposition; real inputs give complex eigenvectors, as
jaxlib unpacks LAPACK's conjugate pairs), gees (Schur), gehrd (Hessenberg),
sytrd/hetrd (tridiagonal reduction). The frame (attributes, checks,
registration) is ``linalg_lapack``'s; see its docstring for the conventions.
Outputs a mode does not compute (eigenvectors with mode 'N', u/vt without
compute_uv) are zeros here; jaxlib leaves them unwritten and JAX never reads them.
"""

from __future__ import annotations

import numpy as np

from ...errors import UnimplementedError
from ..core import Value
from .linalg_lapack import (
    S32,
    LapackCall,
    batches,
    check_results,
    every_type,
    fortran,
    new,
    register_lapack,
    results_match,
    routine,
)

# -- syevd / heevd -----------------------------------------------------------------------------


def _plan_syevd(call: LapackCall) -> None:
    call.operand_count(1)
    call.char("uplo", "LU")
    call.char("mode", "NV")
    batch, n, _ = call.matrix(0, square=True)
    check_results(
        call, [(call.element_type, (*batch, n, n)), (call.real_type, (*batch, n)), (S32, batch)]
    )


def _run_syevd(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    lower = int(call.char("uplo", "LU") == "L")
    vectors = int(call.char("mode", "NV") == "V")
    name = "heevd" if call.is_complex else "syevd"
    v, w, info = new(call, 0), new(call, 1), new(call, 2)
    if a.shape[-1]:
        for i in batches(a.shape[:-2]):
            w[i], v[i], info[i] = routine(call, name)(a[i], compute_v=vectors, lower=lower)
    return v, w, info


# -- gesdd / gesvd -----------------------------------------------------------------------------


def _plan_svd(call: LapackCall) -> None:
    call.operand_count(1)
    mode = call.char("mode", "ASNO")
    if mode == "O":
        raise UnimplementedError(
            f"custom-call {call.instruction.name} to {call.target!r}: mode 'O' (u or vt "
            f"written over the input) is not supported yet; JAX uses 'A', 'S' and 'N'"
        )
    batch, m, n = call.matrix(0)
    k = min(m, n)
    t = call.element_type
    common = [(t, (*batch, m, n)), (call.real_type, (*batch, k))]
    full = [(t, (*batch, m, m)), (t, (*batch, n, n))]
    reduced = [(t, (*batch, m, k)), (t, (*batch, k, n))]
    # Without u and vt (mode 'N') JAX still declares them, full size; reduced ones do too.
    if mode == "N" and results_match(call, [*common, *reduced, (S32, batch)]):
        return
    check_results(call, [*common, *(reduced if mode == "S" else full), (S32, batch)])


def _run_svd(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    mode = call.char("mode", "ASNO")
    name = call.target[len("lapack_x") : -len("_ffi")]
    a_out, s, u, vt, info = (new(call, index) for index in range(5))
    if a.shape[-1] and a.shape[-2]:
        for i in batches(a.shape[:-2]):
            work = fortran(a[i])
            ui, s[i], vti, info[i] = routine(call, name)(
                work, compute_uv=int(mode != "N"), full_matrices=int(mode == "A"), overwrite_a=1
            )
            a_out[i] = work  # what LAPACK left in the input (destroyed: jaxlib's x_out)
            if mode != "N":
                u[i], vt[i] = ui, vti
    return a_out, s, u, vt, info


# -- geev --------------------------------------------------------------------------------------


def _plan_geev(call: LapackCall) -> None:
    call.operand_count(1)
    call.char("compute_left", "NV")
    call.char("compute_right", "NV")
    batch, n, _ = call.matrix(0, square=True)
    t, c = call.element_type, call.complex_type
    vectors = [(c, (*batch, n, n)), (c, (*batch, n, n)), (S32, batch)]
    if call.is_complex:
        check_results(call, [(t, (*batch, n)), *vectors])
    else:
        check_results(call, [(t, (*batch, n)), (t, (*batch, n)), *vectors])


def _complex_vectors(wi: np.ndarray, v: np.ndarray) -> np.ndarray:
    """LAPACK's real storage of eigenvectors as complex ones: for a conjugate pair
    (wi[j] > 0, then wi[j+1] < 0) columns j and j+1 hold the real and imaginary parts."""
    out = v.astype(np.result_type(v.dtype, np.complex64))
    j = 0
    while j < len(wi):
        if wi[j] != 0 and j + 1 < len(wi):
            out[:, j] = v[:, j] + 1j * v[:, j + 1]
            out[:, j + 1] = v[:, j] - 1j * v[:, j + 1]
            j += 2
        else:
            j += 1
    return out


def _run_geev(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    left = int(call.char("compute_left", "NV") == "V")
    right = int(call.char("compute_right", "NV") == "V")
    outputs = [new(call, index) for index in range(len(call.instruction.shape.tuple_shapes))]
    if a.shape[-1]:
        geev = routine(call, "geev")
        for i in batches(a.shape[:-2]):
            if call.is_complex:
                w, vl, vr, info = geev(a[i], compute_vl=left, compute_vr=right)
                outputs[0][i] = w
            else:
                wr, wi, vl, vr, info = geev(a[i], compute_vl=left, compute_vr=right)
                outputs[0][i], outputs[1][i] = wr, wi
                vl, vr = _complex_vectors(wi, vl), _complex_vectors(wi, vr)
            if left:
                outputs[-3][i] = vl
            if right:
                outputs[-2][i] = vr
            outputs[-1][i] = info
    return tuple(outputs)


# -- gees: Schur decomposition -----------------------------------------------------------------


def _plan_gees(call: LapackCall) -> None:
    call.operand_count(1)
    call.char("mode", "NV")
    if call.char("sort", "NS") == "S":
        raise UnimplementedError(
            f"custom-call {call.instruction.name} to {call.target!r}: sort='S' (a selection "
            f"function) is not supported yet; jaxlib has none to call either"
        )
    batch, n, _ = call.matrix(0, square=True)
    t = call.element_type
    eigenvalues = [(t, (*batch, n))] if call.is_complex else [(t, (*batch, n))] * 2
    check_results(
        call, [(t, (*batch, n, n)), (t, (*batch, n, n)), *eigenvalues, (S32, batch), (S32, batch)]
    )


def _run_gees(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    vectors = int(call.char("mode", "NV") == "V")
    outputs = [new(call, index) for index in range(len(call.instruction.shape.tuple_shapes))]
    if a.shape[-1]:
        gees = routine(call, "gees")
        for i in batches(a.shape[:-2]):
            result = gees(lambda *_: 0, a[i], compute_v=vectors, sort_t=0)
            if call.is_complex:
                t, sdim, w, vs, _, info = result
                outputs[2][i] = w
            else:
                t, sdim, wr, wi, vs, _, info = result
                outputs[2][i], outputs[3][i] = wr, wi
            outputs[0][i] = t
            if vectors:
                outputs[1][i] = vs
            outputs[-2][i], outputs[-1][i] = sdim, info
    return tuple(outputs)


# -- gehrd: Hessenberg reduction ---------------------------------------------------------------


def _plan_gehrd(call: LapackCall) -> None:
    call.operand_count(1)
    batch, n, _ = call.matrix(0, square=True)
    low, high = call.integer("low"), call.integer("high")
    if not (1 <= low <= max(1, high) and high <= n) and n:
        raise call.fail(
            f"needs 1 <= low <= high <= {n} (1-based, LAPACK's ilo/ihi), got {low}, {high}"
        )
    check_results(
        call,
        [
            (call.element_type, (*batch, n, n)),
            (call.element_type, (*batch, max(n - 1, 0))),
            (S32, batch),
        ],
    )


def _run_gehrd(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    low, high = call.integer("low"), call.integer("high")
    h, tau, info = new(call, 0), new(call, 1), new(call, 2)
    if a.shape[-1]:
        for i in batches(a.shape[:-2]):
            # scipy's lo/hi are 0-based; jaxlib's attributes are LAPACK's 1-based ilo/ihi.
            h[i], tau[i], info[i] = routine(call, "gehrd")(a[i], lo=low - 1, hi=high - 1)
    return h, tau, info


# -- sytrd / hetrd: tridiagonal reduction ------------------------------------------------------


def _plan_sytrd(call: LapackCall) -> None:
    call.operand_count(1)
    call.char("uplo", "LU")
    batch, n, _ = call.matrix(0, square=True)
    off = max(n - 1, 0)
    check_results(
        call,
        [
            (call.element_type, (*batch, n, n)),
            (call.real_type, (*batch, n)),
            (call.real_type, (*batch, off)),
            (call.element_type, (*batch, off)),
            (S32, batch),
        ],
    )


def _run_sytrd(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    lower = int(call.char("uplo", "LU") == "L")
    name = "hetrd" if call.is_complex else "sytrd"
    outputs = [new(call, index) for index in range(5)]
    if a.shape[-1]:
        for i in batches(a.shape[:-2]):
            c, d, e, tau, info = routine(call, name)(a[i], lower=lower)
            for output, value in zip(outputs, (c, d, e, tau, info), strict=True):
                output[i] = value
    return tuple(outputs)


register_lapack({"s": "syevd", "d": "syevd", "c": "heevd", "z": "heevd"}, _plan_syevd, _run_syevd)
register_lapack(every_type("gesdd"), _plan_svd, _run_svd)
register_lapack(every_type("gesvd"), _plan_svd, _run_svd)
register_lapack(every_type("geev"), _plan_geev, _run_geev)
register_lapack(every_type("gees"), _plan_gees, _run_gees)
register_lapack(every_type("gehrd"), _plan_gehrd, _run_gehrd)
register_lapack({"s": "sytrd", "d": "sytrd", "c": "hetrd", "z": "hetrd"}, _plan_sytrd, _run_sytrd)
