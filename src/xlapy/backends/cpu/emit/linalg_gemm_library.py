"""xlapy's GEMM compiled once per machine and called by symbol, as BLAS routines are.

Each variant (vector width, element type, transposes, accumulate:
``linalg_gemm_loops.variant_name``) is a variant of xlapy's runtime library
(``emit/library``: compiled once, kept on disk, resolved by symbol when a program is
loaded from the persistent compile cache); its files are ``gemm-<key>.gemm``. Ahead-of-
time objects have no JIT: they get the function emitted into the object
(``linalg_gemm_loops.gemm_function``). The variants keep LLVM's loop strength reduction
(``runtime.strength_reduction``): it folds the micro-kernels' pointer increments into
addressing modes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llvmlite import ir

from ....types import PrimitiveType
from ..llvm_types import NotEmittable
from .library import Library, variant_bits
from .linalg_gemm_loops import (
    GEMM_LOOP_TYPES,
    GEMM_TYPE,
    emit_gemm_call,
    gemm_function,
    variant_name,
)

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

_NAME = re.compile(r"^xlapy_gemm_(512|256|128)_([a-z0-9]+)_([NT])([NT])(_acc)?$")
_SOURCES = ("linalg_gemm_library", "linalg_gemm_loops", "linalg_gemm_kernel",
            "linalg_gemm_pack", "linalg_gemm_blocking", "linalg_gemm_complex")  # fmt: skip


def _build(module: ir.Module, *flags: object) -> None:
    gemm_function(module, *flags, exported=True, mxcsr=True)  # type: ignore[arg-type]


def _parse(name: str) -> tuple[tuple, int] | None:
    match = _NAME.match(name)
    if match is None:
        return None
    bits, type_name, trans_a, trans_b, accumulate = match.groups()
    et = next((t for t in GEMM_LOOP_TYPES if t.hlo_name == type_name), None)
    if et is None:
        return None
    return (et, trans_a == "T", trans_b == "T", accumulate is not None, int(bits)), int(bits)


LIBRARY = Library("gemm", _SOURCES, _build, _parse)


def ensure_variant(
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    bits: int,
    directory: str | None = None,
) -> str:
    """Compile (or load from ``directory``, the persistent cache's, default
    ``XLAPY_COMPILATION_CACHE_DIR``, or from the library directory) the variant if this
    process has not yet, and keep its object in ``directory`` (else the library
    directory); returns its symbol."""
    name = variant_name(et, trans_a, trans_b, accumulate, bits)
    return LIBRARY.ensure(name, (et, trans_a, trans_b, accumulate, bits), bits, directory)


def emit_gemm_loops(
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
    """``linalg_dot.emit_gemm``'s call, made to xlapy's GEMM: the process's library in the
    JIT, the function emitted into the object for ahead-of-time code."""
    if et not in GEMM_LOOP_TYPES:
        raise NotEmittable(f"no xlapy GEMM for {et.hlo_name}")
    bits = variant_bits(fe)
    flags = (et, trans_a == "T", trans_b == "T", accumulate, bits)
    function = LIBRARY.program_function(
        fe, variant_name(*flags), flags, GEMM_TYPE, lambda module: gemm_function(module, *flags)
    )
    operands = (a, lda, b_, ldb, c, ldc)
    emit_gemm_call(fe, function, et, bits, m, n, k, operands, builder, n_at)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """``LIBRARY.resolve_symbol``: a GEMM variant's symbol compiled (or loaded from
    ``directory``, the program's cache directory) and registered; False for another."""
    return LIBRARY.resolve_symbol(name, directory)


__all__ = ["emit_gemm_loops", "ensure_variant", "resolve_symbol"]
