"""xlapy's GEMM for complex types (c64, c128): four packed real GEMMs, or a loop nest.

Why four real products: the packed real GEMM (``linalg_gemm_loops``) is where the
machine's FMA throughput is; written again for interleaved complex numbers it would
need shuffles in the micro-kernel. So op(A) and op(B) are split into planes of real
and imaginary parts (in the workspace, laid out as the operands are), the real GEMM
computes ``Ar Br``, ``Ai Bi``, ``Ar Bi`` and ``Ai Br``, and one pass writes
``C = (Ar Br - Ai Bi, Ar Bi + Ai Br)`` (plus C when accumulating). This is the "4M"
method: the same multiplications as the textbook product, each part of an element
summed over p = 0, ..., k - 1 by the real GEMM (so bit-identical across threads and
ISAs as it is), the two sums of a part combined once at the end; the error bound is
the textbook product's (docs/gemm.md). The split and the combine move O(mk + kn + mn)
elements against the products' O(mnk) work.

The planes of op(B) and the products cover a block of C's columns at a time, as wide
as the workspace holds (``complex_workspace_bytes`` bounds the planes by PLANES_MOST at
the top of a computation, by the stack's share inside a pool task). Products below
``PACKED_MIN`` multiply-adds, and calls whose workspace cannot hold the planes for even
one column, run the plain j-p-i loop nest with the textbook ``(ar*br - ai*bi, ar*bi + ai*br)``, summed in the
order p = 0, ..., k - 1 from 0 (or from C); its i loop vectorizes when A is not
transposed. The function has the real GEMM's signature (``linalg_gemm_loops.GEMM_TYPE``).
"""

from __future__ import annotations

from llvmlite import ir

from ....types import PrimitiveType
from ..ir_support import for_range, i64
from ..llvm_types import F32, F64, I8_PTR, I32, I64, KERNEL_TYPE
from .linalg_gemm_blocking import blocking, round_up, workspace_bytes
from .linalg_gemm_kernel import PARALLEL_FOR_TYPE, module_function

P = PrimitiveType
_SCALAR = {P.C64: F32, P.C128: F64}
GEMM_COMPLEX_TYPES = frozenset(_SCALAR)
REAL_PART = {P.C64: P.F32, P.C128: P.F64}
PACKED_MIN = 32 * 32 * 32  # multiply-adds below which the loop nest is quicker
PLANES_MOST = 1 << 30  # the planes' bound at the top of a computation (the arena)
_ALIGN = 64
PARALLEL_SPLIT = 1 << 16  # elements of a matrix from which its split goes over the pool
_SPLIT_SLOTS = 5


def _planes_bytes(et: PrimitiveType, m: int, width: int, k: int) -> int:
    """Planes of op(A), of ``width`` columns of op(B), and four products of that width,
    each 64-byte aligned."""
    size = REAL_PART[et].byte_width
    planes = (m * k, m * k, k * width, k * width) + (m * width,) * 4
    return sum(round_up(count * size, _ALIGN) for count in planes)


def complex_workspace_bytes(
    et: PrimitiveType, bits: int, m: int, n: int, k: int, most: int, in_task: bool
) -> int:
    """The workspace a complex GEMM of these sizes gets: the planes for as many columns
    of C at a time as keep them within their bound (PLANES_MOST at the top of a
    computation; inside a pool task, whose workspace is on its stack, planes and the
    real GEMM's workspace together within ``most``) plus the real GEMM's workspace; or
    0 where it runs the loop nest (a small product, or not even one column fits)."""
    if m * n * k < PACKED_MIN:
        return 0
    real = REAL_PART[et]

    def total(width: int) -> int:
        return _planes_bytes(et, m, width, k) + workspace_bytes(real, bits, m, width, k, most)

    def fits(width: int) -> bool:
        return total(width) <= most if in_task else _planes_bytes(et, m, width, k) <= PLANES_MOST

    width = n
    while width > 1 and not fits(width):
        width = (width + 1) // 2
    return total(width) if fits(width) else 0


def emit_complex_gemm(
    function: ir.Function,
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    real_gemm: ir.Function,
    bits: int,
) -> None:
    """The body of ``function`` (``GEMM_TYPE``) for complex ``et``; ``real_gemm`` is the
    real GEMM of its part type with the same transposes, not accumulating. The columns
    of C go by blocks as wide as the workspace holds (halving from n), so any workspace
    is safe: one too small for a single column runs the loop nest."""
    b = ir.IRBuilder(function.append_basic_block("entry"))
    a, b_, c, m, n, k, lda, ldb, ldc, workspace, workspace_size, workers = function.args
    empty = b.or_(b.icmp_signed("<=", m, i64(0)), b.icmp_signed("<=", n, i64(0)))
    with b.if_then(empty):
        b.ret_void()
    size = REAL_PART[et].byte_width
    block = blocking(REAL_PART[et], bits)

    def aligned_bytes(count: ir.Value) -> ir.Value:
        raw = b.mul(count, i64(size))
        return b.and_(b.add(raw, i64(_ALIGN - 1)), i64(-_ALIGN))

    def padded(x: ir.Value, step: int) -> ir.Value:
        return b.mul(b.udiv(b.add(x, i64(step - 1)), i64(step)), i64(step))

    def layout(width: ir.Value) -> tuple[list[ir.Value], ir.Value, ir.Value]:
        """The planes' offsets for blocks of ``width`` columns, their end, and the
        bytes they and one panel of k (KC steps, fewer if k is) of the real GEMM need
        (what ``complex_workspace_bytes`` reserves at least)."""
        mk = aligned_bytes(b.mul(m, k))
        kw = aligned_bytes(b.mul(k, width))
        mw = aligned_bytes(b.mul(m, width))
        offsets, end = [], i64(0)
        for extent in (mk, mk, kw, kw, mw, mw, mw, mw):
            offsets.append(end)
            end = b.add(end, extent)
        step = b.mul(b.add(padded(m, block.mr), padded(width, block.nr)), i64(size))
        steps = b.select(b.icmp_signed("<", k, i64(block.kc)), k, i64(block.kc))
        return offsets, end, b.add(end, b.mul(step, steps))

    # The widest block that fits, halving from n (a loop, at most log2 n steps).
    width_slot = b.alloca(ir.IntType(64), name="width")
    b.store(n, width_slot)
    check = b.append_basic_block("width.check")
    shrink = b.append_basic_block("width.shrink")
    chosen = b.append_basic_block("width.chosen")
    b.branch(check)
    b.position_at_end(check)
    width = b.load(width_slot)
    too_big = b.icmp_signed(">", layout(width)[2], workspace_size)
    b.cbranch(b.and_(too_big, b.icmp_signed(">", width, i64(1))), shrink, chosen)
    b.position_at_end(shrink)
    b.store(b.udiv(b.add(width, i64(1)), i64(2)), width_slot)
    b.branch(check)
    b.position_at_end(chosen)
    width = b.load(width_slot)
    offsets, end, needed = layout(width)
    fits = b.icmp_signed("<=", needed, workspace_size)
    big = b.icmp_signed(">=", b.mul(b.mul(m, n), k), i64(PACKED_MIN))
    with b.if_then(b.and_(fits, big)):
        planes = [b.gep(workspace, [offset]) for offset in offsets]
        _emit_packed(b, function, _SCALAR[et], trans_a, trans_b, accumulate, real_gemm,
                     planes, end, width)  # fmt: skip
        b.ret_void()
    _emit_loop_nest(b, function, _SCALAR[et], et, trans_a, trans_b, accumulate)


def _split_task(module: ir.Module, part: ir.Type) -> ir.Function:
    """``void task(table, first, stop)``: columns [first, stop) of a stored (column-major)
    matrix into its real and imaginary planes, ``rows`` apart; the table holds source,
    ld, rows, re, im (integers as pointers). Only copies: no rounding, so any thread
    may run any columns."""
    name = f"xlapy_complex_split_{part}"
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    task = ir.Function(module, KERNEL_TYPE, name)
    task.linkage = "internal"
    b = ir.IRBuilder(task.append_basic_block("entry"))
    table, first, stop = task.args
    source, ld, rows, re, im = (b.load(b.gep(table, [i64(k)])) for k in range(_SPLIT_SLOTS))
    ld, rows = b.ptrtoint(ld, I64), b.ptrtoint(rows, I64)
    source = b.bitcast(source, ir.VectorType(part, 2).as_pointer())
    re, im = (b.bitcast(x, part.as_pointer()) for x in (re, im))
    with for_range(b, first, stop, "sc") as col, for_range(b, 0, rows, "sr") as row:
        value = b.load(b.gep(source, [b.add(row, b.mul(col, ld))]))
        at = b.add(row, b.mul(col, rows))
        b.store(b.extract_element(value, I32(0)), b.gep(re, [at]))
        b.store(b.extract_element(value, I32(1)), b.gep(im, [at]))
    b.ret_void()
    return task


def _split(b: ir.IRBuilder, part: ir.Type, source: ir.Value, ld: ir.Value, rows: ir.Value,
           cols: ir.Value, planes: tuple[ir.Value, ir.Value], workers: ir.Value) -> None:  # fmt: skip
    """The planes of a stored matrix, its columns spread over the pool when it is large
    (single-threaded, the split took a sixth of a 512^3 c64 product)."""
    with b.goto_entry_block():  # once per call, not once per column block
        entry = b.function.entry_basic_block
        b.position_before(entry.instructions[0])
        table = b.alloca(I8_PTR, i64(_SPLIT_SLOTS), name="split_table")
    source = b.bitcast(source, I8_PTR)
    values = (source, b.inttoptr(ld, I8_PTR), b.inttoptr(rows, I8_PTR), *planes)
    for k, value in enumerate(values):
        b.store(value, b.gep(table, [i64(k)]))
    task = _split_task(b.module, part)
    large = b.icmp_signed(">=", b.mul(rows, cols), i64(PARALLEL_SPLIT))
    pooled = b.and_(large, b.icmp_signed(">", workers, i64(1)))
    with b.if_else(pooled) as (parallel, inline):
        with parallel:
            parallel_for = module_function(b.module, "xlapy_parallel_for", PARALLEL_FOR_TYPE)
            b.call(parallel_for, [task, table, cols, workers])
        with inline:
            b.call(task, [table, i64(0), cols])


def _emit_packed(  # noqa: PLR0913
    b: ir.IRBuilder,
    function: ir.Function,
    part: ir.Type,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    real_gemm: ir.Function,
    planes: list[ir.Value],
    planes_bytes: ir.Value,
    width: ir.Value,
) -> None:
    a, b_, c, m, n, k, lda, ldb, ldc, workspace, workspace_size, workers = function.args
    a_re, a_im, b_re, b_im, p_rr, p_ii, p_ri, p_ir = planes
    # op(A) is m x k: stored k x m when transposed; op(B) k x n: stored n x k when so.
    a_rows, a_cols = (k, m) if trans_a else (m, k)
    _split(b, part, a, lda, a_rows, a_cols, (a_re, a_im), workers)
    rest = b.gep(workspace, [planes_bytes])
    rest_size = b.sub(workspace_size, planes_bytes)
    pair = ir.VectorType(part, 2)
    pointer = part.as_pointer()
    blocks = b.udiv(b.add(n, b.sub(width, i64(1))), width)
    with for_range(b, 0, blocks, "cb") as column_block:
        j0 = b.mul(column_block, width)
        w = b.select(b.icmp_signed("<", b.sub(n, j0), width), b.sub(n, j0), width)
        # Columns j0..j0+w of op(B): stored columns of B, or its rows when transposed.
        b_typed = b.bitcast(b_, pair.as_pointer())
        if trans_b:
            start, b_rows, b_cols = b.gep(b_typed, [j0]), w, k
        else:
            start, b_rows, b_cols = b.gep(b_typed, [b.mul(j0, ldb)]), k, w
        _split(b, part, start, ldb, b_rows, b_cols, (b_re, b_im), workers)
        for left, right, product in ((a_re, b_re, p_rr), (a_im, b_im, p_ii),
                                     (a_re, b_im, p_ri), (a_im, b_re, p_ir)):  # fmt: skip
            b.call(real_gemm, [left, right, product, m, w, k, a_rows, b_rows, m,
                               rest, rest_size, workers])  # fmt: skip
        out = b.bitcast(c, pair.as_pointer())
        rr, ii, ri, ir_ = (b.bitcast(x, pointer) for x in (p_rr, p_ii, p_ri, p_ir))
        zero = ir.Constant(pair, None)
        with for_range(b, 0, w, "cj") as j, for_range(b, 0, m, "ci") as i:
            at = b.add(i, b.mul(j, m))
            re = b.fsub(b.load(b.gep(rr, [at])), b.load(b.gep(ii, [at])))
            im = b.fadd(b.load(b.gep(ri, [at])), b.load(b.gep(ir_, [at])))
            target = b.gep(out, [b.add(i, b.mul(b.add(j0, j), ldc))])
            if accumulate:
                old = b.load(target)
                re = b.fadd(b.extract_element(old, I32(0)), re)
                im = b.fadd(b.extract_element(old, I32(1)), im)
            value = b.insert_element(b.insert_element(zero, re, I32(0)), im, I32(1))
            b.store(value, target)


def _emit_loop_nest(
    b: ir.IRBuilder,
    function: ir.Function,
    part: ir.Type,
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
) -> None:
    element = ir.VectorType(part, 2)
    align = et.byte_width // 2
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


__all__ = [
    "GEMM_COMPLEX_TYPES",
    "PACKED_MIN",
    "REAL_PART",
    "complex_workspace_bytes",
    "emit_complex_gemm",
]
