"""xlapy's int8 GEMM: s8 x s8 -> s32 dots with AVX-512 VNNI's ``vpdpbusd``.

Why: quantized inference multiplies int8 matrices into int32. Taken as an f32 GEMM
(``IntegerDotToFloat``) such a dot is exact but moves four times the bytes and does a
sixteenth of the multiply-adds per instruction that VNNI does: ``vpdpbusd`` adds four
byte products per 32-bit lane, 64 per instruction. Where the compile's target has
``avx512vnni`` (Cascade Lake and later, Zen 4 and later), the CPU pipeline leaves these
dots as they are (``keeps_int8_dot``) and they come here; elsewhere they keep the f32
GEMM.

Row-major, per batch element: ``out[m, n] = lhs[m, k] . rhs[k, n]`` (``lhs`` stored
``[m, k]`` or ``[k, m]``, ``rhs`` ``[k, n]`` or ``[n, k]``: the variant's two flags).

1. Pack (pool tasks): lhs into rows of ``k`` rounded up to 4 bytes (zero padded), with
   each row's sum; rhs into panels of 64 columns, each group of 4 steps of k a
   256-byte block (column c's 4 bytes at ``4 c``), zero past the matrix's edges. One
   vector of a block holds 16 columns' 4 bytes: ``vpdpbusd``'s unsigned operand.
2. Compute (pool tasks: blocks of rows by chunks of panels): a tile of 6 rows by 64
   columns keeps 24 vectors of 16 int32 sums in registers; per group of 4 steps it
   loads the panel's 4 vectors and, for each row, broadcasts the row's 4 bytes (the
   signed operand) into 4 ``vpdpbusd``. k goes by blocks of 256 steps, so a panel's
   slice (16 KiB) stays in L1 while the rows go by.

``vpdpbusd`` multiplies unsigned by signed bytes; both operands here are signed. The
packed rhs is stored plus 128 (its sign bit flipped: 0..255) and each row's sum times 128
is subtracted: ``sum (b + 128) a - 128 sum a = sum a b``. Everything wraps modulo 2^32,
as XLA's s32 dot does, so the result is the integer dot's exactly, whatever the blocking
or the number of threads.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....types import PrimitiveType
from ..ir_support import for_range, i64, minimum
from ..llvm_types import I1, I8, I8_PTR, I32, I64, VOID
from ..runtime.native_runtime import worker_count
from .library import Library
from .linalg_gemm_kernel import (
    PREFETCH_TYPE,
    SlotTable,
    function_to_define,
    module_function,
    run_tasks,
)
from .linalg_gemm_loops import PARALLEL_MIN_WORK, arena_workspace, target_features

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
LANES = 16  # int32 sums per vector
PANEL = 64  # columns per panel: 4 vectors
ROWS = 6  # rows per register tile: 6 x 4 = 24 accumulators of 32 registers
GROUP_BYTES = PANEL * 4  # one group of 4 steps of one panel
K_BLOCK = 64  # groups per block of k: a panel's slice of 16 KiB stays in L1
ROW_BLOCK = 96  # rows per compute task at most (a multiple of ROWS)
PACK_ROWS = 64  # lhs rows per packing task
# void igemm(lhs, rhs, out, m, n, k, workspace, workers)
INT8_GEMM_TYPE = ir.FunctionType(VOID, [I8_PTR, I8_PTR, I8_PTR, I64, I64, I64, I8_PTR, I64])
_V32 = ir.VectorType(I32, LANES)
_MASK = ir.VectorType(I1, LANES)
_SLOTS = ("lhs", "rhs", "out", "packed_lhs", "sums", "packed_rhs", "m", "n", "k", "kp",
          "groups", "panels", "lhs_tasks", "row_blocks", "chunk")  # fmt: skip
_TABLE = SlotTable(_SLOTS, frozenset({"lhs", "rhs", "out", "packed_lhs", "sums", "packed_rhs"}))


def _round_up(x: int, step: int) -> int:
    return -(-x // step) * step


def workspace_layout(m: int, n: int, k: int) -> tuple[int, int, int]:
    """Offsets of the row sums and of the packed rhs in the workspace, and its size."""
    kp = _round_up(max(k, 1), 4)
    sums = _round_up(m * kp, 64)
    packed_rhs = _round_up(sums + 4 * m, 64)
    return sums, packed_rhs, packed_rhs + _round_up(max(n, 1), PANEL) * kp


def has_vnni(options: object) -> bool:
    """Whether the compile's target has AVX-512 VNNI (with BW and VL, which it implies
    on every CPU that has it)."""
    return {"+avx512vnni", "+avx512bw", "+avx512f"} <= target_features(options)


def is_int8_dot(dot: HloInstruction) -> bool:
    """An s8 x s8 -> s32 dot: the one this GEMM takes."""
    lhs, rhs = dot.operands
    return dot.shape.is_array and (
        lhs.shape.element_type,
        rhs.shape.element_type,
        dot.shape.element_type,
    ) == (P.S8, P.S8, P.S32)


def keeps_int8_dot(options: object) -> Callable[[HloInstruction], bool] | None:
    """The CPU pipeline's predicate for the dots left for this GEMM: None (no dot is
    kept, and the capability table shows no such path) where the target lacks VNNI."""
    return is_int8_dot if has_vnni(options) else None


def variant_name(trans_lhs: bool, trans_rhs: bool) -> str:
    return f"xlapy_igemm_512_s8_{'T' if trans_lhs else 'N'}{'T' if trans_rhs else 'N'}"


# -- the emitted function ------------------------------------------------------------------
def int8_gemm_function(module: ir.Module, trans_lhs: bool, trans_rhs: bool,
                       exported: bool = False) -> ir.Function:  # fmt: skip
    """``INT8_GEMM_TYPE`` for these layouts, made once per module."""
    name = variant_name(trans_lhs, trans_rhs)
    function, new = function_to_define(module, name, INT8_GEMM_TYPE, exported)
    if not new:
        return function
    for argument in function.args[:3]:
        argument.add_attribute("noalias")
    _Int8Gemm(function, trans_lhs, trans_rhs).emit()
    return function


class _Int8Gemm:
    def __init__(self, function: ir.Function, trans_lhs: bool, trans_rhs: bool) -> None:
        self.function, self.module = function, function.module
        self.trans_lhs, self.trans_rhs = trans_lhs, trans_rhs
        self.dot = module_function(
            self.module, "llvm.x86.avx512.vpdpbusd.512", ir.FunctionType(_V32, [_V32] * 3)
        )
        v32_pointer = _V32.as_pointer()
        self.masked_load = module_function(
            self.module, "llvm.masked.load.v16i32.p0",
            ir.FunctionType(_V32, [v32_pointer, I32, _MASK, _V32]),
        )  # fmt: skip
        self.masked_store = module_function(
            self.module, "llvm.masked.store.v16i32.p0",
            ir.FunctionType(VOID, [_V32, v32_pointer, I32, _MASK]),
        )  # fmt: skip

    def emit(self) -> None:
        b = ir.IRBuilder(self.function.append_basic_block("entry"))
        lhs, rhs, out, m, n, k, workspace, workers = self.function.args
        with b.if_then(b.or_(b.icmp_signed("<=", m, i64(0)), b.icmp_signed("<=", n, i64(0)))):
            b.ret_void()
        kp = b.mul(b.udiv(b.add(k, i64(3)), i64(4)), i64(4))
        kp = b.select(b.icmp_signed("<", kp, i64(4)), i64(4), kp)
        sums_at = _align64(b, b.mul(m, kp))
        rhs_at = _align64(b, b.add(sums_at, b.mul(m, i64(4))))
        panels = b.udiv(b.add(n, i64(PANEL - 1)), i64(PANEL))
        groups = b.udiv(kp, i64(4))
        lhs_tasks = b.udiv(b.add(m, i64(PACK_ROWS - 1)), i64(PACK_ROWS))
        parallel = b.and_(
            b.icmp_signed(">", workers, i64(1)),
            b.icmp_signed(">=", b.mul(b.mul(m, n), k), i64(PARALLEL_MIN_WORK)),
        )
        # Blocks of rows (whole tiles), then chunks of panels for about 4 tasks a worker.
        row_blocks = b.udiv(b.add(m, i64(ROW_BLOCK - 1)), i64(ROW_BLOCK))
        wanted = b.select(parallel, b.mul(workers, i64(4)), i64(1))
        chunks = b.udiv(b.add(wanted, b.sub(row_blocks, i64(1))), row_blocks)
        chunks = b.select(b.icmp_signed(">", chunks, panels), panels, chunks)
        chunks = b.select(b.icmp_signed("<", chunks, i64(1)), i64(1), chunks)
        chunk = b.udiv(b.add(panels, b.sub(chunks, i64(1))), chunks)
        chunks = b.udiv(b.add(panels, b.sub(chunk, i64(1))), chunk)
        table = _TABLE.fill(b, {
            "lhs": lhs, "rhs": rhs, "out": out, "packed_lhs": workspace,
            "sums": b.gep(workspace, [sums_at]), "packed_rhs": b.gep(workspace, [rhs_at]),
            "m": m, "n": n, "k": k, "kp": kp, "groups": groups, "panels": panels,
            "lhs_tasks": lhs_tasks, "row_blocks": row_blocks, "chunk": chunk,
        })  # fmt: skip
        name = self.function.name
        for task, count in (
            (_TABLE.task(self.module, f"{name}.pack", self._pack), b.add(lhs_tasks, panels)),
            (_TABLE.task(self.module, f"{name}.compute", self._compute), b.mul(row_blocks, chunks)),
        ):
            run_tasks(b, task, table, count, parallel, workers)
        b.ret_void()

    # -- packing ---------------------------------------------------------------------------
    def _pack(self, b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
        with b.if_else(b.icmp_signed("<", index, s["lhs_tasks"])) as (of_lhs, of_rhs):
            with of_lhs:
                self._pack_lhs(b, s, index)
            with of_rhs:
                self._pack_rhs(b, s, b.sub(index, s["lhs_tasks"]))

    def _pack_lhs(self, b: ir.IRBuilder, s: dict, task: ir.Value) -> None:
        """Rows ``[64 task, ...)`` of lhs, k padded with zeros to ``kp``, and their sums."""
        m, k, kp = s["m"], s["k"], s["kp"]
        first = b.mul(task, i64(PACK_ROWS))
        last = b.add(first, i64(PACK_ROWS))
        last = b.select(b.icmp_signed("<", last, m), last, m)
        packed, lhs = s["packed_lhs"], s["lhs"]
        if self.trans_lhs:  # lhs [k, m]: step by step, the block's rows side by side
            with for_range(b, 0, k, "lp") as p, for_range(b, first, last, "li") as i:
                value = b.load(b.gep(lhs, [b.add(b.mul(p, m), i)]))
                b.store(value, b.gep(packed, [b.add(b.mul(i, kp), p)]))
        else:
            with for_range(b, first, last, "li") as i, for_range(b, 0, k, "lp") as p:
                value = b.load(b.gep(lhs, [b.add(b.mul(i, k), p)]))
                b.store(value, b.gep(packed, [b.add(b.mul(i, kp), p)]))
        sums = b.bitcast(s["sums"], I32.as_pointer())
        total = b.alloca(I32, name="row_sum")
        with for_range(b, first, last, "si") as i:
            row = b.gep(packed, [b.mul(i, kp)])
            with for_range(b, k, kp, "lz") as p:
                b.store(I8(0), b.gep(row, [p]))
            b.store(I32(0), total)
            with for_range(b, 0, k, "sp") as p:
                b.store(b.add(b.load(total), b.sext(b.load(b.gep(row, [p])), I32)), total)
            b.store(b.load(total), b.gep(sums, [i]))

    def _pack_rhs(self, b: ir.IRBuilder, s: dict, panel: ir.Value) -> None:
        """Panel ``panel``: 64 columns, each group of 4 steps a 256-byte block (column c's
        bytes at 4 c), every byte plus 128, zero past the matrix's edges. Whole groups of
        a whole panel a vector at a time; the rest (the last group where 4 does not
        divide k, a panel past n) byte by byte."""
        n, k, groups = s["n"], s["k"], s["groups"]
        j0 = b.mul(panel, i64(PANEL))
        base = b.gep(s["packed_rhs"], [b.mul(panel, b.mul(groups, i64(GROUP_BYTES)))])
        whole_panel = b.icmp_signed("<=", b.add(j0, i64(PANEL)), n)
        whole = b.select(whole_panel, b.udiv(k, i64(4)), i64(0))
        with for_range(b, 0, whole, "pw", vectorize=False) as g:
            block = b.gep(base, [b.mul(g, i64(GROUP_BYTES))])
            if self.trans_rhs:
                self._pack_group_across(b, s, j0, g, block)
            else:
                self._pack_group_along(b, s, j0, g, block)
        with for_range(b, whole, groups, "pg") as g, for_range(b, 0, i64(PANEL * 4), "pb") as e:
            c, kk = b.udiv(e, i64(4)), b.urem(e, i64(4))
            column, step = b.add(j0, c), b.add(b.mul(g, i64(4)), kk)
            inside = b.and_(b.icmp_signed("<", column, n), b.icmp_signed("<", step, k))
            safe_column = b.select(inside, column, i64(0))
            safe_step = b.select(inside, step, i64(0))
            if self.trans_rhs:  # rhs [n, k]
                at = b.add(b.mul(safe_column, k), safe_step)
            else:  # rhs [k, n]
                at = b.add(b.mul(safe_step, n), safe_column)
            value = b.xor(b.load(b.gep(s["rhs"], [at])), I8(0x80))
            value = b.select(inside, value, I8(0))
            b.store(value, b.gep(base, [b.add(b.mul(g, i64(GROUP_BYTES)), e)]))

    def _pack_group_along(
        self, b: ir.IRBuilder, s: dict, j0: ir.Value, g: ir.Value, block: ir.Value
    ) -> None:
        """rhs ``[k, n]``: the group's 4 rows of 64 bytes, interleaved byte by byte."""
        row_type = ir.VectorType(I8, PANEL)
        flip = ir.Constant(row_type, [0x80] * PANEL)
        rows = []
        for kk in range(4):
            step = b.add(b.mul(g, i64(4)), i64(kk))
            at = b.gep(s["rhs"], [b.add(b.mul(step, s["n"]), j0)])
            rows.append(b.xor(b.load(b.bitcast(at, row_type.as_pointer()), align=1), flip))
        pairs = [
            b.shuffle_vector(rows[i], rows[i + 1], ir.Constant(ir.VectorType(I32, 2 * PANEL),
                                                                list(range(2 * PANEL))))
            for i in (0, 2)
        ]  # fmt: skip
        order = [kk * PANEL + c for c in range(PANEL) for kk in range(4)]
        mask = ir.Constant(ir.VectorType(I32, 4 * PANEL), order)
        interleaved = b.shuffle_vector(pairs[0], pairs[1], mask)
        target = b.bitcast(block, ir.VectorType(I8, 4 * PANEL).as_pointer())
        b.store(interleaved, target, align=1)

    def _pack_group_across(
        self, b: ir.IRBuilder, s: dict, j0: ir.Value, g: ir.Value, block: ir.Value
    ) -> None:
        """rhs ``[n, k]``: each column's 4 bytes of the group are adjacent already."""
        words = b.bitcast(block, I32.as_pointer())
        with for_range(b, 0, i64(PANEL), "pc") as c:
            at = b.gep(s["rhs"], [b.add(b.mul(b.add(j0, c), s["k"]), b.mul(g, i64(4)))])
            word = b.load(b.bitcast(at, I32.as_pointer()), align=1)
            b.store(b.xor(word, I32(0x80808080 - (1 << 32))), b.gep(words, [c]), align=4)

    # -- compute ---------------------------------------------------------------------------
    def _compute(self, b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
        """Rows ``[96 rb, ...)`` by panels ``[chunk jb, ...)``, k block by k block."""
        m, n, groups = s["m"], s["n"], s["groups"]
        rb, jb = b.urem(index, s["row_blocks"]), b.udiv(index, s["row_blocks"])
        first_row = b.mul(rb, i64(ROW_BLOCK))
        last_row = minimum(b, m, b.add(first_row, i64(ROW_BLOCK)))
        first_panel = b.mul(jb, s["chunk"])
        last_panel = minimum(b, s["panels"], b.add(first_panel, s["chunk"]))
        tiles = b.udiv(b.add(b.sub(last_row, first_row), i64(ROWS - 1)), i64(ROWS))
        blocks = b.udiv(b.add(groups, i64(K_BLOCK - 1)), i64(K_BLOCK))
        kernel = self._micro_kernel()
        out = b.bitcast(s["out"], I32.as_pointer())
        sums = b.bitcast(s["sums"], I32.as_pointer())
        with for_range(b, 0, blocks, "kb", vectorize=False) as kb:
            g0 = b.mul(kb, i64(K_BLOCK))
            count = minimum(b, i64(K_BLOCK), b.sub(groups, g0))
            with for_range(b, first_panel, last_panel, "jp", vectorize=False) as jp:
                j0 = b.mul(jp, i64(PANEL))
                columns = minimum(b, i64(PANEL), b.sub(n, j0))
                panel = b.gep(s["packed_rhs"], [b.mul(b.add(b.mul(jp, groups), g0),
                                                      i64(GROUP_BYTES))])  # fmt: skip
                with for_range(b, 0, tiles, "rt", vectorize=False) as t:
                    i0 = b.add(first_row, b.mul(t, i64(ROWS)))
                    rows = minimum(b, i64(ROWS), b.sub(last_row, i0))
                    a = b.gep(s["packed_lhs"], [b.add(b.mul(i0, s["kp"]), b.mul(g0, i64(4)))])
                    c = b.gep(out, [b.add(b.mul(i0, n), j0)])
                    b.call(kernel, [a, panel, b.bitcast(c, I8_PTR), b.bitcast(b.gep(sums, [i0]), I8_PTR),
                                    n, s["kp"], rows, columns, count,
                                    b.zext(b.icmp_signed("==", kb, i64(0)), I64)])  # fmt: skip

    def _micro_kernel(self) -> ir.Function:
        """``kernel(a, panel, c, sums, ldc, kp, rows, columns, groups, first)``: a tile of
        6 rows by 64 columns of out, from ``first`` (-128 times the rows' sums) or from
        out, plus ``groups`` groups of 4 steps; rows past ``rows`` read the last row and
        store nothing, columns past ``columns`` are masked."""
        name = f"{self.function.name}.tile"
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        kind = ir.FunctionType(VOID, [I8_PTR, I8_PTR, I8_PTR, I8_PTR] + [I64] * 6)
        function = ir.Function(self.module, kind, name)
        function.linkage = "internal"
        function.attributes.add("noinline")
        b = ir.IRBuilder(function.append_basic_block("entry"))
        a, panel, c, sums, ldc, kp, rows, columns, groups, first = function.args
        c32 = b.bitcast(c, I32.as_pointer())
        sums32 = b.bitcast(sums, I32.as_pointer())
        lanes = ir.Constant(_V32, list(range(LANES)))
        masks = []
        for v in range(PANEL // LANES):
            valid = b.sub(b.trunc(columns, I32), I32(v * LANES))
            masks.append(b.icmp_signed("<", lanes, _splat(b, valid)))
        none = ir.Constant(_MASK, [0] * LANES)
        last = b.sub(rows, i64(1))
        row_of = [b.select(b.icmp_signed("<", i64(r), last), i64(r), last) for r in range(ROWS)]
        row_masks = [
            [b.select(b.icmp_signed("<", i64(r), rows), mask, none) for mask in masks]
            for r in range(ROWS)
        ]
        a_rows = [
            b.bitcast(b.gep(a, [b.mul(row_of[r], kp)]), I32.as_pointer()) for r in range(ROWS)
        ]
        slots = [
            [b.alloca(_V32, name=f"acc{r}_{v}") for v in range(len(masks))] for r in range(ROWS)
        ]

        def c_at(r: int, v: int) -> ir.Value:
            at = b.gep(c32, [b.add(b.mul(i64(r), ldc), i64(v * LANES))])
            return b.bitcast(at, _V32.as_pointer())

        # The next tile's (6 rows below) lines of out, fetched while this one computes:
        # rows 4 KiB apart defeat the hardware prefetcher. A prefetch never faults.
        prefetch = module_function(self.module, "llvm.prefetch.p0", PREFETCH_TYPE)
        for r in range(ROWS, 2 * ROWS):
            for v in range(len(masks)):
                b.call(prefetch, [b.bitcast(c_at(r, v), I8_PTR), I32(1), I32(3), I32(1)])
        with b.if_else(b.trunc(first, I1)) as (from_sums, from_out):
            with from_sums:
                for r in range(ROWS):
                    start = b.mul(b.load(b.gep(sums32, [row_of[r]])), I32(-128))
                    for slot in slots[r]:
                        b.store(_splat(b, start), slot)
            with from_out:
                zero = ir.Constant(_V32, None)
                for r in range(ROWS):
                    for v, slot in enumerate(slots[r]):
                        value = b.call(
                            self.masked_load, [c_at(r, v), I32(4), row_masks[r][v], zero]
                        )
                        b.store(value, slot)
        vectors = len(masks)
        panel_vectors = b.bitcast(panel, _V32.as_pointer())
        with for_range(b, 0, groups, "g", vectorize=False) as g:
            packed = [
                b.load(b.gep(panel_vectors, [b.add(b.mul(g, i64(vectors)), i64(v))]), align=4)
                for v in range(vectors)
            ]
            for r in range(ROWS):
                broadcast = _splat(b, b.load(b.gep(a_rows[r], [g]), align=4))
                for v in range(vectors):
                    slot = slots[r][v]
                    b.store(b.call(self.dot, [b.load(slot), packed[v], broadcast]), slot)
        for r in range(ROWS):
            for v, slot in enumerate(slots[r]):
                b.call(self.masked_store, [b.load(slot), c_at(r, v), I32(4), row_masks[r][v]])
        b.ret_void()
        return function


def _splat(b: ir.IRBuilder, value: ir.Value) -> ir.Value:
    undefined = ir.Constant(_V32, ir.Undefined)
    mask = ir.Constant(ir.VectorType(I32, LANES), [0] * LANES)
    return b.shuffle_vector(b.insert_element(undefined, value, I32(0)), undefined, mask)


def _align64(b: ir.IRBuilder, x: ir.Value) -> ir.Value:
    return b.and_(b.add(x, i64(63)), i64(-64))


# -- the library variant and the call site -------------------------------------------------
def _build(module: ir.Module, trans_lhs: bool, trans_rhs: bool, _bits: int) -> None:
    int8_gemm_function(module, trans_lhs, trans_rhs, exported=True)


def _parse(name: str) -> tuple[tuple, int] | None:
    for trans_lhs in (False, True):
        for trans_rhs in (False, True):
            if name == variant_name(trans_lhs, trans_rhs):
                return (trans_lhs, trans_rhs, 512), 512
    return None


LIBRARY = Library("igemm", ("linalg_gemm_int8", "linalg_gemm_kernel", "library"), _build, _parse)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """``LIBRARY.resolve_symbol``: an int8 GEMM variant's symbol compiled (or loaded from
    ``directory``) and registered; False for another."""
    return LIBRARY.resolve_symbol(name, directory)


def emit_int8_gemm(
    fe: FunctionEmitter,
    sizes: tuple[int, int, int],
    operands: tuple[ir.Value, ir.Value, ir.Value],
    trans_lhs: bool,
    trans_rhs: bool,
) -> None:
    """One call of the variant at the top of a computation: ``operands`` (lhs, rhs, out:
    i8*) with ``sizes`` (m, n, k), its workspace a region of the arena, every worker."""
    m, n, k = sizes
    flags = (trans_lhs, trans_rhs, 512)
    function = LIBRARY.program_function(
        fe, variant_name(trans_lhs, trans_rhs), flags, INT8_GEMM_TYPE,
        lambda module: int8_gemm_function(module, trans_lhs, trans_rhs),
    )  # fmt: skip
    size = workspace_layout(m, n, k)[2]
    workspace = fe.b.gep(fe.arena_base, [i64(arena_workspace(fe.m, size))])
    fe.b.call(function, [*operands, i64(m), i64(n), i64(k), workspace, i64(worker_count())])


__all__ = [
    "INT8_GEMM_TYPE",
    "LIBRARY",
    "emit_int8_gemm",
    "has_vnni",
    "int8_gemm_function",
    "is_int8_dot",
    "keeps_int8_dot",
    "resolve_symbol",
    "variant_name",
    "workspace_layout",
]
