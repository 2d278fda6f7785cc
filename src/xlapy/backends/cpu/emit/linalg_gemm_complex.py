"""xlapy's GEMM for complex types (c64, c128): a plain j-p-i loop nest.

The i loop vectorizes when A is not transposed; the product is the textbook
``(ar*br - ai*bi, ar*bi + ai*br)``, each element summed in the order p = 0, ..., k - 1
from 0 (or from C). Packed, register-tiled complex kernels are a later step (docs/gemm.md).
The function has the real GEMM's signature (``linalg_gemm_loops.GEMM_TYPE``); it needs
no workspace and runs on the calling thread.
"""

from __future__ import annotations

from llvmlite import ir

from ....types import PrimitiveType
from ..ir_support import for_range
from ..llvm_types import F32, F64, I32

P = PrimitiveType
_SCALAR = {P.C64: F32, P.C128: F64}
GEMM_COMPLEX_TYPES = frozenset(_SCALAR)


def emit_complex_gemm(
    function: ir.Function, et: PrimitiveType, trans_a: bool, trans_b: bool, accumulate: bool
) -> None:
    """The body of ``function`` (``GEMM_TYPE``) for complex ``et``."""
    element = ir.VectorType(_SCALAR[et], 2)
    align = et.byte_width // 2
    b = ir.IRBuilder(function.append_basic_block("entry"))
    a, b_, c, m, n, k, lda, ldb, ldc = function.args[:9]
    pointer = element.as_pointer()
    a, b_, c = (b.bitcast(x, pointer) for x in (a, b_, c))

    def at(base: ir.Value, row: ir.Value, column: ir.Value, ld: ir.Value, trans: bool) -> ir.Value:
        index = b.add(column, b.mul(row, ld)) if trans else b.add(row, b.mul(column, ld))
        return b.gep(base, [index])

    zero = ir.Constant(element, None)
    with for_range(b, 0, n, "j") as j:
        if not accumulate:
            with for_range(b, 0, m, "zi") as i:
                b.store(zero, at(c, i, j, ldc, False), align=align)
        with for_range(b, 0, k, "p") as p:
            factor = b.load(at(b_, p, j, ldb, trans_b), align=align)
            br, bi = (b.extract_element(factor, I32(x)) for x in (0, 1))
            with for_range(b, 0, m, "i") as i:
                target = at(c, i, j, ldc, False)
                total = b.load(target, align=align)
                ab = b.load(at(a, i, p, lda, trans_a), align=align)
                ar, ai = (b.extract_element(ab, I32(x)) for x in (0, 1))
                re = b.fsub(b.fmul(ar, br), b.fmul(ai, bi))
                im = b.fadd(b.fmul(ar, bi), b.fmul(ai, br))
                tr, ti = (b.extract_element(total, I32(x)) for x in (0, 1))
                out = b.insert_element(zero, b.fadd(tr, re), I32(0))
                out = b.insert_element(out, b.fadd(ti, im), I32(1))
                b.store(out, target, align=align)
    b.ret_void()


__all__ = ["GEMM_COMPLEX_TYPES", "emit_complex_gemm"]
