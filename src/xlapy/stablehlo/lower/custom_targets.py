"""Well-known custom-call targets that HLO can say directly.

JAX on CPU lowers ``jnp.linalg.cholesky`` and ``solve_triangular`` to LAPACK
custom calls (``lapack_spotrf_ffi``, ``lapack_strsm_ffi``...), whose meaning
is fixed by LAPACK; HLO has the same operations, so an imported program runs
on any xlapy backend instead of needing LAPACK registered. The operand and
result layouts these calls carry describe memory order only (LAPACK's
column-major), not values, so they are dropped with the call.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ... import ops
from ...builder import XlaOp
from ...xla_data import Transpose
from .. import ast
from .core import Ctx
from .errors import invalid

_LAPACK = re.compile(r"lapack_[sdcz](potrf|trsm)_ffi")


def _config(op: ast.Operation) -> dict:
    config = op.attributes.get("mhlo.backend_config") or op.attributes.get("backend_config")
    return config if isinstance(config, dict) else {}


def _char(config: dict, key: str, default: str) -> str:
    value = config.get(key, ord(default))
    return chr(int(value)) if not isinstance(value, str) else value[:1]


def _potrf(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    """(factor, info): info is 0 when the factorization succeeded (no NaN appeared)."""
    (a,) = ctx.operands(op)
    lower = _char(_config(op), "uplo", "L") == "L"
    factor = ops.Cholesky(a, lower)
    results = [factor]
    if len(op.results) > 1:
        rank = a.shape.rank
        ok = ops.Reduce(
            ops.IsFinite(
                ops.Real(factor) if a.shape.element_type.is_complex else factor
            ),  # fmt: skip
            ops.Constant(ctx.builder, True),
            ops.And,
            [rank - 2, rank - 1],
        )
        info_type = ctx.result_shape(op, 1).element_type
        zero = ops.Constant(ctx.builder, 0, info_type)
        one = ops.Constant(ctx.builder, 1, info_type)
        results.append(ops.Select(ok, ops.Broadcast(zero, ok.shape.dimensions),
                                  ops.Broadcast(one, ok.shape.dimensions)))  # fmt: skip
    return results


_TRANSPOSE = {"N": Transpose.NO_TRANSPOSE, "T": Transpose.TRANSPOSE, "C": Transpose.ADJOINT}


def _trsm(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    a, b = ctx.operands(op)[:2]
    config = _config(op)
    transpose = _TRANSPOSE.get(_char(config, "trans_x", "N"))
    if transpose is None:
        raise invalid(op, f"unknown trans_x {config.get('trans_x')!r}")
    return [
        ops.TriangularSolve(
            a,
            b,
            left_side=_char(config, "side", "L") == "L",
            lower=_char(config, "uplo", "L") == "L",
            unit_diagonal=_char(config, "diag", "N") == "U",
            transpose_a=transpose,
        )  # fmt: skip
    ]


_ROUTINES: dict[str, Callable[[Ctx, ast.Operation], list[XlaOp]]] = {
    "potrf": _potrf,
    "trsm": _trsm,
}


def known_target(target: str) -> Callable[[Ctx, ast.Operation], list[XlaOp]] | None:
    """The HLO lowering of a custom-call target with a fixed meaning, if there is one."""
    match = _LAPACK.fullmatch(target)
    return _ROUTINES[match.group(1)] if match else None


__all__ = ["known_target"]
