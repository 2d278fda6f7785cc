"""xlapy's own GEMM as LLVM loops: what a dot runs where scipy's BLAS may not be called.

Ahead-of-time objects (``xlapy.aot``) must not depend on OpenBLAS, so their dots and
convolutions call this instead; the JIT can select it too (``CpuOptions.gemm="xlapy"``),
which is how the tests compare an AOT binary with the JIT bit for bit.

The interface is BLAS's, column-major: ``C (m x n) = op(A) (m x k) . op(B) (k x n)``,
``+ C`` when accumulating, sizes and leading dimensions at run time. One internal
function per (element type, transposes, accumulate) is emitted into the module and
called; LLVM inlines or keeps it as it sees fit.

Real types (f32, f64): cache blocks of ``_KC`` steps of k and ``_MC_ROWS`` rows of C; each
block of A is packed into a stack buffer as slivers of ``W`` rows (zero past the last
row), so that the micro-kernel reads A as one ``<W x T>`` vector per step whatever
A's transpose; the micro-kernel keeps a ``W x NR`` tile of C in ``NR`` vector
registers and adds ``a * broadcast(b)`` (``llvm.fmuladd``) for every step. Every
element of C is summed in the order p = 0, 1, ..., k - 1 starting from 0 (or from C),
whatever the blocking, so the result does not depend on the block sizes. Tiles at the
edges of C go through a small stack tile. Complex types (c64, c128) run a plain
j-p-i loop nest (the i loop vectorizes when A is not transposed), with the textbook
product ``(ar*br - ai*bi, ar*bi + ai*br)``; the tuned micro-kernels are a later step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....types import PrimitiveType
from ..ir_support import for_range, i64
from ..llvm_types import F32, F64, I1, I8_PTR, I32, I64, VOID, NotEmittable
from ..runtime import jit

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
_SCALAR = {P.F32: F32, P.F64: F64, P.C64: F32, P.C128: F64}
# Register tiles by vector width (measured on a 1024^3 f32 GEMM, one core): with
# AVX-512's 32 registers, 32 x 6 f32 (12 accumulators) ran 140 GFLOP/s against 80 for
# 16 x 4; with AVX2's 16, 16 x 4 (8 accumulators) was the fastest tried (66 GFLOP/s).
# (rows per sliver for f32, for f64, columns per tile).
_TILES = {512: (32, 16, 6), 256: (16, 8, 4)}
_KC = 256  # steps of k per cache block
_MC_ROWS = 128  # rows of A per cache block (f32: 128 KiB of packed A with _KC)
GEMM_LOOP_TYPES = frozenset(_SCALAR)
GEMM_TYPE = ir.FunctionType(VOID, [I8_PTR, I8_PTR, I8_PTR] + [I64] * 6)


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
    """The call of ``linalg_dot.emit_gemm``'s interface, made to xlapy's loop GEMM."""
    if et not in GEMM_LOOP_TYPES:
        raise NotEmittable(f"no loop GEMM for {et.hlo_name}")
    b = builder or fe.b
    bits = getattr(fe.m, "gemm_vector_bits", None) or vector_bits(fe.m.options)
    function = gemm_function(fe.m.ir, et, trans_a == "T", trans_b == "T", accumulate, bits)
    if n_at is not None:
        n_value = b.sext(b.load(b.bitcast(n_at, I32.as_pointer())), I64)
    else:
        n_value = i64(n)
    sizes = [i64(m), n_value, i64(k), i64(max(1, lda)), i64(max(1, ldb)), i64(max(1, ldc))]
    b.call(function, [a, b_, c, *sizes])


def vector_bits(options: object) -> int:
    """512 where the code's target has AVX-512, else 256 (the register tiles above)."""
    target = jit.resolve_target(
        getattr(options, "target_cpu", None), getattr(options, "target_features", None)
    )
    if target.host:
        return 512 if "+avx512f" in target.features.split(",") else 256
    return 512 if "avx512f" in target.required_features() else 256


def gemm_function(
    module: ir.Module,
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    bits: int = 256,
) -> ir.Function:
    """``void f(a, b, c, m, n, k, lda, ldb, ldc)`` for this combination, made once per module."""
    name = f"xlapy_gemm_loops.{et.hlo_name}.{'T' if trans_a else 'N'}{'T' if trans_b else 'N'}"
    name += ".acc" if accumulate else ""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = ir.Function(module, GEMM_TYPE, name)
    function.linkage = "internal"
    for argument in function.args[:3]:
        argument.add_attribute("noalias")
    if et in _SCALAR and et not in (P.C64, P.C128):
        f32_rows, f64_rows, columns = _TILES.get(bits, _TILES[256])
        rows = f32_rows if et is P.F32 else f64_rows
        _RealGemm(function, et, trans_a, trans_b, accumulate).emit(rows, columns)
    else:
        _ComplexGemm(function, et, trans_a, trans_b, accumulate).emit()
    return function


class _GemmBody:
    """Shared state of one GEMM function's body: typed pointers and element access."""

    def __init__(
        self, function: ir.Function, et: PrimitiveType, trans_a: bool, trans_b: bool, acc: bool
    ) -> None:
        self.function = function
        self.et = et
        self.trans_a, self.trans_b, self.accumulate = trans_a, trans_b, acc
        self.scalar = _SCALAR[et]
        self.complex = et in (P.C64, P.C128)
        self.element = ir.VectorType(self.scalar, 2) if self.complex else self.scalar
        self.b = ir.IRBuilder(function.append_basic_block("entry"))
        a, b_, c, self.m, self.n, self.k, self.lda, self.ldb, self.ldc = function.args
        pointer = self.element.as_pointer()
        self.a, self.bm, self.c = (self.b.bitcast(x, pointer) for x in (a, b_, c))
        self.align = et.byte_width // 2 if self.complex else et.byte_width

    def at(self, base: ir.Value, row: ir.Value, column: ir.Value, ld: ir.Value, trans: bool):  # noqa: ANN201
        """The address of element (row, column) of op(X) for column-major X."""
        b = self.b
        index = b.add(column, b.mul(row, ld)) if trans else b.add(row, b.mul(column, ld))
        return b.gep(base, [index])

    def a_at(self, i: ir.Value, p: ir.Value) -> ir.Value:
        return self.at(self.a, i, p, self.lda, self.trans_a)

    def b_at(self, p: ir.Value, j: ir.Value) -> ir.Value:
        return self.at(self.bm, p, j, self.ldb, self.trans_b)

    def c_at(self, i: ir.Value, j: ir.Value) -> ir.Value:
        return self.at(self.c, i, j, self.ldc, False)

    def load(self, pointer: ir.Value) -> ir.Value:
        return self.b.load(pointer, align=self.align)

    def store(self, value: ir.Value, pointer: ir.Value) -> None:
        self.b.store(value, pointer, align=self.align)

    def minimum(self, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.select(self.b.icmp_signed("<", x, y), x, y)

    def blocks(self, total: ir.Value, size: int) -> ir.Value:
        return self.b.udiv(self.b.add(total, i64(size - 1)), i64(size))

    def zero_c_when_k_is_empty(self) -> None:
        """k = 0: C = 0 (or stays C when accumulating)."""
        b = self.b
        empty = b.icmp_signed("==", self.k, i64(0))
        with b.if_then(empty):
            if not self.accumulate:
                with for_range(b, 0, self.n, "zj") as j, for_range(b, 0, self.m, "zi") as i:
                    self.store(ir.Constant(self.element, None), self.c_at(i, j))
        with b.if_then(empty):
            b.ret_void()


class _RealGemm(_GemmBody):
    def emit(self, width: int, columns: int) -> None:
        b = self.b
        self.nr = columns
        mc_rows = max(width, _MC_ROWS // width * width)
        vector = ir.VectorType(self.scalar, width)
        self.vector = vector
        module = self.function.module
        intrinsic = f"llvm.fmuladd.v{width}{'f32' if self.scalar is F32 else 'f64'}"
        self.fmuladd = module.globals.get(intrinsic) or ir.Function(
            module, ir.FunctionType(vector, [vector] * 3), intrinsic
        )
        packed = b.alloca(self.scalar, i64(mc_rows * _KC), name="packed")
        packed.align = 64
        tile = b.alloca(self.scalar, i64(width * self.nr), name="tile")
        tile.align = 64
        self.accumulators = [b.alloca(vector, name=f"acc{j}") for j in range(columns)]
        self.packed, self.tile, self.width = packed, tile, width
        self.zero_c_when_k_is_empty()
        with for_range(b, 0, self.blocks(self.k, _KC), "kb") as kb:
            p0 = b.mul(kb, i64(_KC))
            kc = self.minimum(i64(_KC), b.sub(self.k, p0))
            fresh = b.icmp_signed("==", kb, i64(0))
            if self.accumulate:
                fresh = ir.Constant(I1, 0)
            with for_range(b, 0, self.blocks(self.m, mc_rows), "ib") as ib:
                i0 = b.mul(ib, i64(mc_rows))
                mc = self.minimum(i64(mc_rows), b.sub(self.m, i0))
                slivers = self.blocks(mc, width)
                self._pack(i0, p0, kc, slivers)
                with for_range(b, 0, self.blocks(self.n, self.nr), "jb") as jb:
                    j0 = b.mul(jb, i64(self.nr))
                    cols = self.minimum(i64(self.nr), b.sub(self.n, j0))
                    with for_range(b, 0, slivers, "s") as s:
                        rows = self.minimum(i64(width), b.sub(mc, b.mul(s, i64(width))))
                        first_row = b.add(i0, b.mul(s, i64(width)))
                        self._tile(s, first_row, rows, j0, cols, p0, kc, fresh)
        b.ret_void()

    def _pack(self, i0: ir.Value, p0: ir.Value, kc: ir.Value, slivers: ir.Value) -> None:
        """packed[(s * KC + pp) * W + r] = A(i0 + s * W + r, p0 + pp), 0 past the last row."""
        b, width = self.b, self.width
        last_row = b.sub(self.m, i64(1))
        zero = ir.Constant(self.scalar, 0.0)
        with for_range(b, 0, slivers, "ps") as s:
            base_row = b.add(i0, b.mul(s, i64(width)))
            with for_range(b, 0, kc, "pp") as pp:
                p = b.add(p0, pp)
                slot = b.mul(b.add(b.mul(s, i64(_KC)), pp), i64(width))
                for r in range(width):
                    row = b.add(base_row, i64(r))
                    value = self.load(self.a_at(self.minimum(row, last_row), p))
                    inside = b.icmp_signed("<", row, self.m)
                    b.store(
                        b.select(inside, value, zero), b.gep(self.packed, [b.add(slot, i64(r))])
                    )

    def _vector_at(self, pointer: ir.Value) -> ir.Value:
        return self.b.bitcast(pointer, self.vector.as_pointer())

    def _tile(
        self,
        s: ir.Value,
        first_row: ir.Value,
        rows: ir.Value,
        j0: ir.Value,
        cols: ir.Value,
        p0: ir.Value,
        kc: ir.Value,
        fresh: ir.Value,
    ) -> None:
        """One W x NR tile of C: initialize, run the k block, store."""
        b, width = self.b, self.width
        full = b.and_(
            b.icmp_signed("==", rows, i64(width)), b.icmp_signed("==", cols, i64(self.nr))
        )
        zero_vector = ir.Constant(self.vector, None)
        last_row, last_col = b.sub(self.m, i64(1)), b.sub(self.n, i64(1))
        columns = [self.minimum(b.add(j0, i64(j)), last_col) for j in range(self.nr)]
        with b.if_else(full) as (whole, edge):
            with whole:
                for j, acc in enumerate(self.accumulators):
                    loaded = b.load(
                        self._vector_at(self.c_at(first_row, columns[j])), align=self.align
                    )
                    b.store(b.select(fresh, zero_vector, loaded), acc)
            with edge:
                # The tile from C's valid part, zeros elsewhere (read at clamped indices).
                zero = ir.Constant(self.scalar, 0.0)
                for j in range(self.nr):
                    column_ok = b.icmp_signed("<", i64(j), cols)
                    for r in range(width):
                        row = b.add(first_row, i64(r))
                        value = self.load(self.c_at(self.minimum(row, last_row), columns[j]))
                        ok = b.and_(column_ok, b.icmp_signed("<", i64(r), rows))
                        keep = b.and_(ok, b.not_(fresh))
                        b.store(b.select(keep, value, zero), b.gep(self.tile, [i64(j * width + r)]))
                for j, acc in enumerate(self.accumulators):
                    tile_j = self._vector_at(b.gep(self.tile, [i64(j * width)]))
                    b.store(b.load(tile_j, align=64), acc)
        with for_range(b, 0, kc, "p") as pp:
            slot = b.mul(b.add(b.mul(s, i64(_KC)), pp), i64(width))
            a = b.load(self._vector_at(b.gep(self.packed, [slot])), align=64)
            p = b.add(p0, pp)
            for j, acc in enumerate(self.accumulators):
                bj = self.load(self.b_at(p, columns[j]))
                splat = b.insert_element(ir.Constant(self.vector, None), bj, I32(0))
                splat = b.shuffle_vector(
                    splat,
                    ir.Constant(self.vector, None),
                    ir.Constant(ir.VectorType(I32, width), [0] * width),
                )
                b.store(b.call(self.fmuladd, [a, splat, b.load(acc)]), acc)
        with b.if_else(full) as (whole, edge):
            with whole:
                for j, acc in enumerate(self.accumulators):
                    b.store(
                        b.load(acc),
                        self._vector_at(self.c_at(first_row, columns[j])),
                        align=self.align,
                    )
            with edge:
                for j, acc in enumerate(self.accumulators):
                    b.store(
                        b.load(acc), self._vector_at(b.gep(self.tile, [i64(j * width)])), align=64
                    )
                with for_range(b, 0, cols, "ej") as j:
                    with for_range(b, 0, rows, "er") as r:
                        value = b.load(b.gep(self.tile, [b.add(b.mul(j, i64(width)), r)]))
                        self.store(value, self.c_at(b.add(first_row, r), b.add(j0, j)))


class _ComplexGemm(_GemmBody):
    def emit(self) -> None:
        b = self.b
        self.zero_c_when_k_is_empty()
        zero = ir.Constant(self.element, None)
        with for_range(b, 0, self.n, "j") as j:
            if not self.accumulate:
                with for_range(b, 0, self.m, "zi") as i:
                    self.store(zero, self.c_at(i, j))
            with for_range(b, 0, self.k, "p") as p:
                factor = self.load(self.b_at(p, j))
                br, bi = (b.extract_element(factor, I32(x)) for x in (0, 1))
                with for_range(b, 0, self.m, "i") as i:
                    pointer = self.c_at(i, j)
                    total = self.load(pointer)
                    ab = self.load(self.a_at(i, p))
                    ar, ai = (b.extract_element(ab, I32(x)) for x in (0, 1))
                    re = b.fsub(b.fmul(ar, br), b.fmul(ai, bi))
                    im = b.fadd(b.fmul(ar, bi), b.fmul(ai, br))
                    tr, ti = (b.extract_element(total, I32(x)) for x in (0, 1))
                    out = b.insert_element(zero, b.fadd(tr, re), I32(0))
                    out = b.insert_element(out, b.fadd(ti, im), I32(1))
                    self.store(out, pointer)
        b.ret_void()


__all__ = ["GEMM_LOOP_TYPES", "emit_gemm_loops", "gemm_function"]
