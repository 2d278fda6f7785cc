"""jaxlib's LAPACK FFI custom-call targets (``lapack_<t><routine>_ffi``), as built-in targets.

JAX lowers its linear algebra on CPU to typed-FFI custom calls into jaxlib
(``api_version=API_VERSION_TYPED_FFI``): the attributes are the FFI dictionary
in ``backend_config`` (``{uplo = 76 : ui8, mode = 86 : ui8}``: characters as
their codes; ``low``/``high`` integers), leading dimensions are batch
dimensions (``num_batch_dims``), and results are tuples such as getrf's
``(lu, ipiv, info)``. The operand layouts jaxlib asks for are column-major;
evaluator values are logical, so a kernel sees the logical matrices whatever
the layout and hands them to scipy's LAPACK (the routines jaxlib itself calls),
one batch element at a time. Outputs and ``info`` are jaxlib's: 1-based
pivots, LAPACK's info per batch element (``info > 0`` for a singular or not
positive definite input; JAX turns that into NaNs itself, in the program).

This module holds the frame (attribute parsing, operand and result checks,
registration through ``custom_call.register_builtin_target``) and the
factorizations and solves: getrf, geqrf, geqp3, orgqr/ungqr, potrf, trsm, gtsv.
``linalg_lapack_eig`` holds the eigen and singular value routines.
Targets for s/d/c/z (f32/f64/c64/c128), as jaxlib has them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.linalg import blas, lapack

from ...custom_call import register_builtin_target
from ...errors import InvalidArgumentError, UnimplementedError
from ...hlo.instruction import HloInstruction
from ...types import PrimitiveType
from ..core import EvalContext, Value

TYPE_LETTERS = {
    "s": PrimitiveType.F32,
    "d": PrimitiveType.F64,
    "c": PrimitiveType.C64,
    "z": PrimitiveType.C128,
}
S32 = PrimitiveType.S32
ResultSpec = list[tuple[PrimitiveType, tuple[int, ...]]]

_ATTRIBUTE = re.compile(
    r'([A-Za-z_][\w.]*)\s*=\s*(?:"([^"]*)"|(-?\d+)|(true|false))(?:\s*:\s*[A-Za-z]\w*)?'
)


def ffi_attributes(instruction: HloInstruction) -> dict[str, int | str]:
    """The FFI attribute dictionary of a typed-FFI custom call: ``backend_config`` as
    XLA prints it (an MLIR dictionary, ``{mode = 86 : ui8}``), or already a dict."""
    config = instruction.attribute("backend_config", "") or ""
    if isinstance(config, dict):
        return dict(config)
    attributes: dict[str, int | str] = {}
    for match in _ATTRIBUTE.finditer(str(config)):
        name, text, number, flag = match.groups()
        if text is not None:
            attributes[name] = text
        elif number is not None:
            attributes[name] = int(number)
        else:
            attributes[name] = int(flag == "true")
    return attributes


@dataclass(frozen=True)
class LapackCall:
    """One custom call to a LAPACK target: what the checks and the kernels read."""

    instruction: HloInstruction
    target: str
    letter: str
    attributes: dict[str, int | str]

    @property
    def element_type(self) -> PrimitiveType:
        return TYPE_LETTERS[self.letter]

    @property
    def real_type(self) -> PrimitiveType:
        return self.element_type.component_type

    @property
    def complex_type(self) -> PrimitiveType:
        return PrimitiveType.C64 if self.letter in "sc" else PrimitiveType.C128

    @property
    def is_complex(self) -> bool:
        return self.letter in "cz"

    def fail(self, message: str) -> InvalidArgumentError:
        operands = ", ".join(str(o.shape) for o in self.instruction.operands)
        return InvalidArgumentError(
            f"custom-call {self.instruction.name} to {self.target!r}: {message} "
            f"(operands: {operands or 'none'}; result: {self.instruction.shape})"
        )

    def char(self, name: str, allowed: str, default: str | None = None) -> str:
        """An attribute that holds one character (its code, as jaxlib's enums do)."""
        value = self.attributes.get(name)
        if value is None:
            if default is None:
                raise self.fail(f"attribute {name!r} is missing; expected one of {list(allowed)}")
            return default
        char = value if isinstance(value, str) else chr(value) if 0 <= value < 128 else "?"
        if len(char) != 1 or char not in allowed:
            raise self.fail(f"attribute {name}={value!r} is not one of {list(allowed)}")
        return char

    def integer(self, name: str) -> int:
        value = self.attributes.get(name)
        if not isinstance(value, int):
            raise self.fail(f"integer attribute {name!r} is missing or not an integer")
        return value

    def operand_count(self, *counts: int) -> None:
        count = len(self.instruction.operands)
        if count not in counts:
            expected = " or ".join(str(c) for c in counts)
            raise self.fail(f"expected {expected} operands, got {count}")

    def array(
        self, index: int, rank: int, element_type: PrimitiveType | None = None
    ) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Operand ``index`` as (batch dimensions, the last ``rank`` dimensions), checked."""
        shape = self.instruction.operands[index].shape
        element_type = element_type or self.element_type
        if not shape.is_array or shape.element_type != element_type or shape.rank < rank:
            what = "a matrix" if rank == 2 else "a vector" if rank == 1 else "a scalar"
            raise self.fail(
                f"operand {index} must be {what} of {element_type} with {rank} or more "
                f"dimensions (leading ones batch), got {shape}"
            )
        dims = tuple(shape.dimensions)
        return dims[: len(dims) - rank], dims[len(dims) - rank :]

    def matrix(self, index: int, square: bool = False) -> tuple[tuple[int, ...], int, int]:
        batch, (m, n) = self.array(index, 2)
        if square and m != n:
            raise self.fail(f"operand {index} must be square, got {m}x{n}")
        return batch, m, n

    def same_batch(self, index: int, batch: tuple[int, ...], other: tuple[int, ...]) -> None:
        if batch != other:
            raise self.fail(
                f"operand {index} has batch dimensions {list(other)} where operand 0 has "
                f"{list(batch)}"
            )


def result_shapes(instruction: HloInstruction) -> list[Any]:
    shape = instruction.shape
    return list(shape.tuple_shapes) if shape.is_tuple else [shape]


def results_match(call: LapackCall, expected: ResultSpec, tuple_result: bool = True) -> bool:
    """Whether the instruction's result shape is ``expected`` (layouts aside)."""
    if call.instruction.shape.is_tuple != tuple_result:
        return False
    shapes = result_shapes(call.instruction)
    return len(shapes) == len(expected) and all(
        s.is_array and s.element_type == t and tuple(s.dimensions) == d
        for s, (t, d) in zip(shapes, expected, strict=False)
    )


def check_results(call: LapackCall, expected: ResultSpec, tuple_result: bool = True) -> None:
    """The instruction's result shape must be ``expected`` (layouts aside)."""
    if not results_match(call, expected, tuple_result):
        want = ", ".join(f"{t}[{','.join(map(str, d))}]" for t, d in expected)
        raise call.fail(f"the result must be {f'({want})' if tuple_result else want}")


def batches(batch: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
    return iter(np.ndindex(*batch))


def routine(call: LapackCall, name: str) -> Callable[..., Any]:
    """scipy's wrapper of LAPACK routine ``name`` for the call's element type."""
    return getattr(lapack, call.letter + name)


def new(call: LapackCall, index: int) -> np.ndarray:
    """A zeroed array for result ``index``."""
    shape = result_shapes(call.instruction)[index]
    return np.zeros(shape.dimensions, shape.element_type.dtype)


def fortran(matrix: np.ndarray) -> np.ndarray:
    """A Fortran-ordered copy LAPACK may overwrite in place (scipy's overwrite_a)."""
    return np.array(matrix, order="F", copy=True)


Plan = Callable[[LapackCall], None]  # checks the operands, attributes and result shape
Run = Callable[[LapackCall, list[np.ndarray]], Value]


def register_lapack(routines: dict[str, str], plan: Plan, run: Run) -> None:
    """Register ``lapack_<letter><routine>_ffi`` for each letter -> routine name."""
    for letter, name in routines.items():
        target = f"lapack_{letter}{name}_ffi"

        def make_call(instruction: HloInstruction, target: str = target, letter: str = letter):
            return LapackCall(instruction, target, letter, ffi_attributes(instruction))

        def check(instruction: HloInstruction, make_call: Any = make_call) -> None:
            plan(make_call(instruction))

        def kernel(
            ctx: EvalContext,
            instruction: HloInstruction,
            operands: list[Value],
            make_call: Any = make_call,
        ) -> Value:
            call = make_call(instruction)
            plan(call)
            return run(call, [np.asarray(o) for o in operands])

        register_builtin_target(target, kernel, check)


def every_type(name: str) -> dict[str, str]:
    return dict.fromkeys("sdcz", name)


# -- getrf: LU with partial pivoting -----------------------------------------------------------


def _plan_getrf(call: LapackCall) -> None:
    call.operand_count(1)
    batch, m, n = call.matrix(0)
    k = min(m, n)
    check_results(call, [(call.element_type, (*batch, m, n)), (S32, (*batch, k)), (S32, batch)])


def _run_getrf(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    lu, pivots, info = new(call, 0), new(call, 1), new(call, 2)
    if a.shape[-1] and a.shape[-2]:
        for i in batches(a.shape[:-2]):
            lu[i], piv, info[i] = routine(call, "getrf")(a[i])
            pivots[i] = piv + 1  # scipy's pivots are 0-based, LAPACK's (and jaxlib's) 1-based
    return lu, pivots, info


# -- geqrf, geqp3, orgqr/ungqr: QR -------------------------------------------------------------


def _plan_geqrf(call: LapackCall) -> None:
    call.operand_count(1)
    batch, m, n = call.matrix(0)
    check_results(
        call, [(call.element_type, (*batch, m, n)), (call.element_type, (*batch, min(m, n)))]
    )


def _run_geqrf(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    qr, tau = new(call, 0), new(call, 1)
    if a.shape[-1] and a.shape[-2]:
        for i in batches(a.shape[:-2]):
            qr[i], tau[i], _, _ = routine(call, "geqrf")(a[i])
    return qr, tau


def _plan_geqp3(call: LapackCall) -> None:
    call.operand_count(2)
    batch, m, n = call.matrix(0)
    pivot_batch, (count,) = call.array(1, 1, S32)
    call.same_batch(1, batch, pivot_batch)
    if count != n:
        raise call.fail(f"operand 1 (jpvt) must have {n} elements, one per column, got {count}")
    check_results(
        call,
        [
            (call.element_type, (*batch, m, n)),
            (S32, (*batch, n)),
            (call.element_type, (*batch, min(m, n))),
        ],
    )


def _run_geqp3(call: LapackCall, operands: list[np.ndarray]) -> Value:
    a, jpvt = operands
    qr, pivots, tau = new(call, 0), new(call, 1), new(call, 2)
    if np.any(jpvt):
        raise UnimplementedError(
            f"custom-call {call.instruction.name} to {call.target!r}: columns fixed in place "
            f"(a nonzero jpvt on input) are not supported yet; JAX passes zeros"
        )
    if a.shape[-1] and a.shape[-2]:
        for i in batches(a.shape[:-2]):
            # scipy's geqp3 hands LAPACK's 1-based jpvt through unchanged (unlike getrf).
            qr[i], pivots[i], tau[i], _, _ = routine(call, "geqp3")(a[i])
    return qr, pivots, tau


def _plan_orgqr(call: LapackCall) -> None:
    call.operand_count(2)
    batch, m, n = call.matrix(0)
    tau_batch, (k,) = call.array(1, 1)
    call.same_batch(1, batch, tau_batch)
    if not m >= n >= k:
        raise call.fail(f"needs rows >= columns >= reflectors (tau), got {m}, {n} and {k}")
    check_results(call, [(call.element_type, (*batch, m, n))], tuple_result=False)


def _run_orgqr(call: LapackCall, operands: list[np.ndarray]) -> Value:
    a, tau = operands
    q = new(call, 0)
    name = "ungqr" if call.is_complex else "orgqr"
    if a.shape[-1] and a.shape[-2]:
        for i in batches(a.shape[:-2]):
            q[i], _, _ = routine(call, name)(a[i], tau[i])
    return q


# -- potrf: Cholesky ---------------------------------------------------------------------------


def _plan_potrf(call: LapackCall) -> None:
    call.operand_count(1)
    call.char("uplo", "LU")
    batch, n, _ = call.matrix(0, square=True)
    check_results(call, [(call.element_type, (*batch, n, n)), (S32, batch)])


def _run_potrf(call: LapackCall, operands: list[np.ndarray]) -> Value:
    (a,) = operands
    lower = call.char("uplo", "LU") == "L"
    factor, info = new(call, 0), new(call, 1)
    factor[...] = a  # the other triangle keeps the input, as in LAPACK's in-place call
    if a.shape[-1]:
        for i in batches(a.shape[:-2]):
            factor[i], info[i] = routine(call, "potrf")(a[i], lower=lower, clean=0)
    return factor, info


# -- trsm: triangular solve --------------------------------------------------------------------


def _plan_trsm(call: LapackCall) -> None:
    call.operand_count(2, 3)
    side = call.char("side", "LR")
    call.char("uplo", "LU")
    call.char("trans_x", "NTC")
    call.char("diag", "NU")
    batch, k, _ = call.matrix(0, square=True)
    b_batch, m, n = call.matrix(1)
    call.same_batch(1, batch, b_batch)
    needed = m if side == "L" else n
    if k != needed:
        raise call.fail(
            f"the triangular matrix is {k}x{k} but side={side!r} needs {needed}x{needed} "
            f"for a right-hand side of {m}x{n}"
        )
    if len(call.instruction.operands) == 3:
        call.array(2, 0)
        if call.instruction.operands[2].shape.rank:
            raise call.fail("operand 2 (alpha) must be a scalar")
    check_results(call, [(call.element_type, (*batch, m, n))], tuple_result=False)


def _run_trsm(call: LapackCall, operands: list[np.ndarray]) -> Value:
    a, b = operands[0], operands[1]
    alpha = operands[2].item() if len(operands) == 3 else 1.0
    options = {
        "side": int(call.char("side", "LR") == "R"),
        "lower": int(call.char("uplo", "LU") == "L"),
        "trans_a": "NTC".index(call.char("trans_x", "NTC")),
        "diag": int(call.char("diag", "NU") == "U"),
    }
    x = new(call, 0)
    if b.shape[-1] and b.shape[-2]:
        trsm = getattr(blas, call.letter + "trsm")
        for i in batches(b.shape[:-2]):
            x[i] = trsm(alpha, a[i], b[i], **options)
    return x


# -- gtsv: tridiagonal solve -------------------------------------------------------------------


def _plan_gtsv(call: LapackCall) -> None:
    call.operand_count(4)
    batch, m, n = call.matrix(3)
    for index in range(3):
        vector_batch, (length,) = call.array(index, 1)
        call.same_batch(index, batch, vector_batch)
        if length != m:
            raise call.fail(f"operand {index} must have {m} elements (the rows of b), got {length}")
    check_results(
        call,
        [(call.element_type, (*batch, m))] * 3
        + [(call.element_type, (*batch, m, n)), (S32, batch)],
    )


def _run_gtsv(call: LapackCall, operands: list[np.ndarray]) -> Value:
    """jaxlib hands LAPACK ``dl[1:]`` (its dl[0] is padding) and the first n-1 of du."""
    dl, d, du, b = operands
    dl_out, d_out, du_out, x = (np.array(v, copy=True) for v in operands)
    info = new(call, 4)
    if b.shape[-2] == 1:  # LAPACK's one-row case (scipy refuses empty off-diagonals)
        for i in batches(b.shape[:-2]):
            pivot = d[i][0]
            info[i] = 1 if pivot == 0 else 0
            if pivot != 0:
                x[i] = b[i] / pivot
    elif b.shape[-2] and b.shape[-1]:
        for i in batches(b.shape[:-2]):
            du2, d_out[i], du_head, x[i], info[i] = routine(call, "gtsv")(
                dl[i][1:], d[i], du[i][:-1], b[i]
            )
            dl_out[i][1:], du_out[i][:-1] = du2, du_head
    return dl_out, d_out, du_out, x, info


register_lapack(every_type("getrf"), _plan_getrf, _run_getrf)
register_lapack(every_type("geqrf"), _plan_geqrf, _run_geqrf)
register_lapack(every_type("geqp3"), _plan_geqp3, _run_geqp3)
register_lapack({"s": "orgqr", "d": "orgqr", "c": "ungqr", "z": "ungqr"}, _plan_orgqr, _run_orgqr)
register_lapack(every_type("potrf"), _plan_potrf, _run_potrf)
register_lapack(every_type("trsm"), _plan_trsm, _run_trsm)
register_lapack(every_type("gtsv"), _plan_gtsv, _run_gtsv)
