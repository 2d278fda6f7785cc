"""xlapy's own GEMM, generated through LLVM: what dots and convolutions run by default.

The interface is BLAS's, column-major: ``C (m x n) = op(A) (m x k) . op(B) (k x n)``,
``+ C`` when accumulating, sizes and leading dimensions at run time, plus a workspace
(``linalg_gemm_blocking.workspace_bytes``) and the number of threads it may use. The
JIT calls one function per (vector width, element type, transposes, accumulate) compiled
once per process (``linalg_gemm_library``); ahead-of-time objects get the same function
emitted into the object (:func:`gemm_function`).

Real types (f32, f64), as BLIS computes (docs/gemm.md): k is cut into panels of at most
KC steps; op(A) and op(B) are packed into the workspace for a whole group of panels (all
of k where it fits; ``linalg_gemm_pack``: slivers of MR rows of A and NR columns of B;
B not transposed is read in place instead, unless its columns are a multiple of 1 KiB
apart), then C is computed block by block (about MC rows of A by a chunk of B's
slivers, each task running the group's panels in order; ``linalg_gemm_kernel``'s MR x NR
micro-kernel over every pair of slivers, B's sliver kept in L1 while A's block stays in
L2). Both passes are tasks for xlapy's pool (``xlapy_parallel_for``, whose threads take
chunks from an atomic counter: a core busy with other work holds up one chunk, not a
fixed share) when there are several workers and at least ``PARALLEL_MIN_WORK``
multiply-adds; else they run on the calling thread. About ``BLOCKS_PER_WORKER`` blocks
per thread, their count a multiple of the threads'. Below ``SMALL_WORK`` multiply-adds
nothing is packed: a plain loop nest.

Numerics: every element of C is summed in the order p = 0, 1, ..., k - 1 from 0 (or
from C) with ``llvm.fmuladd``, whatever the blocking, the vector width or the number of
threads: results do not depend on them, and AOT objects compute what the JIT does bit
for bit. With the library, pool tasks run under the caller's MXCSR (its FTZ/DAZ bits,
``CpuOptions.flush_denormals``), so every thread rounds the same way.
Complex types run four of these real GEMMs (``linalg_gemm_complex``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from llvmlite import ir

from ....types import PrimitiveType
from ..flush_denormals import save
from ..ir_support import for_range, i64, minimum
from ..llvm_types import F32, F64, I1, I8_PTR, I32, I64, VOID
from ..runtime import jit
from ..runtime.native_runtime import worker_count
from .linalg_gemm_blocking import GEMM_REAL_TYPES, Blocking, blocking, workspace_bytes
from .linalg_gemm_complex import (
    GEMM_COMPLEX_TYPES,
    REAL_PART,
    complex_workspace_bytes,
    emit_complex_gemm,
)
from .linalg_gemm_kernel import (
    SlotTable,
    emit_small_gemm,
    function_to_define,
    micro_kernel,
    run_tasks,
)
from .linalg_gemm_pack import emit_pack_slivers
from .linalg_gemm_skinny import SkinnyGemm, skinny_bits

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
_SCALAR = {P.F32: F32, P.F64: F64}
GEMM_LOOP_TYPES = GEMM_REAL_TYPES | GEMM_COMPLEX_TYPES
# void gemm(a, b, c, m, n, k, lda, ldb, ldc, workspace, workspace_bytes, workers)
GEMM_TYPE = ir.FunctionType(VOID, [I8_PTR, I8_PTR, I8_PTR] + [I64] * 6 + [I8_PTR, I64, I64])
PARALLEL_MIN_WORK = 1 << 20  # multiply-adds (about 100^3): below, the calling thread only
BLOCKS_PER_WORKER = 4
PACK_GROUP = 8  # slivers per packing task
SMALL_WORK = 20 * 20 * 20  # multiply-adds below which packing costs more than it saves
# The workspace's bound: packed A and B for all of k where they fit (one group: two waits
# on the pool per GEMM, which is what a core busy elsewhere costs), in the arena at the
# top of a computation, on the thread's stack inside a kernel.
GROUP_BYTES = 32 << 20
KERNEL_GROUP_BYTES = 1 << 20
# The slots of the table the GEMM hands its tasks (i8* each; integers as inttoptr).
_SLOTS = ("a", "b", "c", "pack_a", "pack_b", "m", "n", "k", "lda", "ldb", "ldc",
          "g0", "panels", "kc", "chunk", "row_slivers", "row_blocks", "groups_a", "groups_b",
          "mxcsr", "direct")  # fmt: skip
_TABLE = SlotTable(_SLOTS, frozenset({"a", "b", "c", "pack_a", "pack_b"}))


def variant_name(
    et: PrimitiveType, trans_a: bool, trans_b: bool, accumulate: bool, bits: int
) -> str:
    """The GEMM's symbol: ``xlapy_gemm_<bits>_<type>_<NN|NT|TN|TT>[_acc]``."""
    flags = ("T" if trans_a else "N") + ("T" if trans_b else "N")
    return f"xlapy_gemm_{bits}_{et.hlo_name}_{flags}" + ("_acc" if accumulate else "")


def target_features(options: object) -> set[str]:
    """The features (``+name``) the code for ``options``' target may use."""
    target = jit.resolve_target(
        getattr(options, "target_cpu", None), getattr(options, "target_features", None)
    )
    if target.host:
        return set(target.features.split(","))
    return {"+" + f for f in target.required_features()}


def vector_bits(options: object) -> int:
    """512 where the code's target has AVX-512, 256 with AVX2 and FMA, else 128."""
    features = target_features(options)
    if "+avx512f" in features:
        return 512
    return 256 if {"+avx2", "+fma"} <= features else 128


def emit_gemm_call(
    fe: FunctionEmitter,
    function: ir.Function,
    et: PrimitiveType,
    bits: int,
    m: int,
    n: int,
    k: int,
    operands: tuple[ir.Value, int, ir.Value, int, ir.Value, int],
    builder: ir.IRBuilder | None = None,
    n_at: ir.Value | None = None,
) -> None:
    """Call ``function`` (``GEMM_TYPE``) on ``operands`` (a, lda, b, ldb, c, ldc). At the
    top of a computation (no ``builder``) it may use the pool and its workspace is in
    the arena; inside a kernel (a pool task already) it runs on that thread with its
    workspace on the kernel's stack. ``n`` is the largest n when ``n_at`` (an i8* to an
    i32) gives it at run time."""
    a, lda, b_, ldb, c, ldc = operands
    b = builder or fe.b
    if n_at is not None:
        n_value = b.sext(b.load(b.bitcast(n_at, I32.as_pointer())), I64)
    else:
        n_value = i64(n)
    most = GROUP_BYTES if builder is None else KERNEL_GROUP_BYTES
    if et in GEMM_COMPLEX_TYPES:
        size = complex_workspace_bytes(et, bits, m, n, k, most, in_task=builder is not None)
    else:
        size = workspace_bytes(et, bits, m, n, k, most)
    size = max(64, size)
    if builder is None:
        workspace = b.gep(fe.arena_base, [i64(arena_workspace(fe.m, size))])
        workers = worker_count()
    else:
        with b.goto_entry_block():
            entry = b.function.entry_basic_block
            if entry.instructions:
                b.position_before(entry.instructions[0])
            space = b.alloca(ir.IntType(8), i64(size), name="gemm_workspace")
            space.align = 64
        workspace, workers = space, 1
    sizes = [i64(m), n_value, i64(k), i64(max(1, lda)), i64(max(1, ldb)), i64(max(1, ldc))]
    b.call(function, [a, b_, c, *sizes, workspace, i64(size), i64(workers)])


def arena_workspace(module_emitter: object, size: int) -> int:
    """An arena region of at least ``size`` bytes for a top-level GEMM's workspace. The
    GEMMs at the top of computations run one at a time (a replica or a re-entrant call
    has an arena of its own), so they share regions: the first that is big enough, else
    a new one (an MLP's three dots take one region, not three)."""
    regions = module_emitter.__dict__.setdefault("gemm_workspaces", [])
    for offset, capacity in regions:
        if capacity >= size:
            return offset
    offset = module_emitter.reserve(size, align=64)  # type: ignore[attr-defined]
    regions.append((offset, size))
    return offset


def gemm_function(
    module: ir.Module,
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    bits: int = 256,
    *,
    exported: bool = False,
    mxcsr: bool = False,
) -> ir.Function:
    """``GEMM_TYPE`` for this combination, made once per module (internal unless
    ``exported``; ``mxcsr``: its pool tasks run under the caller's MXCSR, x86 only)."""
    name = variant_name(et, trans_a, trans_b, accumulate, bits)
    function, new = function_to_define(module, name, GEMM_TYPE, exported)
    if not new:
        return function
    for argument in function.args[:3]:
        argument.add_attribute("noalias")
    if et in GEMM_COMPLEX_TYPES:
        real = gemm_function(module, REAL_PART[et], trans_a, trans_b, False, bits, mxcsr=mxcsr)
        real.attributes.add("noinline")  # called four times
        emit_complex_gemm(function, et, trans_a, trans_b, accumulate, real, bits)
    else:
        _RealGemm(function, et, trans_a, trans_b, accumulate, blocking(et, bits), mxcsr).emit()
    return function


class _RealGemm:
    """The driver: panels of k, each packed then computed, as pool tasks or inline."""

    def __init__(
        self,
        function: ir.Function,
        et: PrimitiveType,
        trans_a: bool,
        trans_b: bool,
        accumulate: bool,
        block: Blocking,
        mxcsr: bool,
    ) -> None:
        self.function, self.et, self.block = function, et, block
        self.trans_a, self.trans_b, self.accumulate = trans_a, trans_b, accumulate
        self.scalar = _SCALAR[et]
        self.size = et.byte_width
        self.mxcsr = mxcsr
        self.module = function.module
        self.kernel = micro_kernel(self.module, f"{function.name}.tile", self.scalar, block)
        self.direct = None  # B read in place: only where B is not transposed (emit below)
        if not trans_b:
            name = f"{function.name}.tile_direct"
            self.direct = micro_kernel(self.module, name, self.scalar, block, direct_b=True)

    def emit(self) -> None:
        function, block = self.function, self.block
        b = ir.IRBuilder(function.append_basic_block("entry"))
        a, b_, c, m, n, k, lda, ldb, ldc, workspace, workspace_size, workers = function.args
        mxcsr_word = b.alloca(I32, name="mxcsr")
        b.store(I32(0), mxcsr_word)
        if self.mxcsr:
            save(b, mxcsr_word)

        empty = b.or_(b.icmp_signed("<=", m, i64(0)), b.icmp_signed("<=", n, i64(0)))
        with b.if_then(empty):
            b.ret_void()
        with b.if_then(b.icmp_signed("<=", k, i64(0))):
            if not self.accumulate:
                zero = ir.Constant(self.scalar, 0.0)
                cp = b.bitcast(c, self.scalar.as_pointer())
                with for_range(b, 0, n, "zj") as j, for_range(b, 0, m, "zi") as i:
                    b.store(zero, b.gep(cp, [b.add(i, b.mul(j, ldc))]), align=self.size)
            b.ret_void()
        small = b.icmp_signed("<", b.mul(b.mul(m, n), k), i64(SMALL_WORK))
        with b.if_then(small):
            typed = tuple(self._typed(b, x) for x in (a, b_, c))
            sizes = (m, n, k, lda, ldb, ldc)
            emit_small_gemm(
                b, self.scalar, typed, sizes, self.trans_a, self.trans_b, self.accumulate
            )
            b.ret_void()
        if skinny_bits(block.width * self.size * 8):
            flags = (self.trans_a, self.trans_b, self.accumulate, self.mxcsr)
            SkinnyGemm(function, self.scalar, block.width, *flags).emit(b, mxcsr_word)
        m_padded = _round_up(b, m, block.mr)
        n_padded = _round_up(b, n, block.nr)
        # The workspace holds ``span`` steps of k packed (at least one); panels of KC
        # steps at most, as many per group as fit: each group is packed by one pass of
        # tasks and computed by another, two waits on the pool per group (one group for
        # the workspace the callers reserve up to GROUP_BYTES).
        per_step = b.mul(b.add(m_padded, n_padded), i64(self.size))
        span = b.udiv(workspace_size, per_step)
        span = b.select(b.icmp_signed("<", span, i64(1)), i64(1), minimum(b, span, k))
        kc = minimum(b, i64(block.kc), span)
        group_steps = b.mul(b.udiv(span, kc), kc)
        pack_b = b.gep(workspace, [b.mul(b.mul(m_padded, group_steps), i64(self.size))])
        slivers_a = b.udiv(m_padded, i64(block.mr))
        slivers_b = b.udiv(n_padded, i64(block.nr))
        # Row blocks of at most MC rows, as equal as whole slivers allow (640 + 384 rows
        # would leave one thread idle for a third of the time).
        row_blocks = _blocks(b, m, block.mc)
        row_slivers = _blocks_of(b, slivers_a, row_blocks)  # A's slivers per row block
        row_blocks = _blocks_of(b, slivers_a, row_slivers)
        work = b.mul(b.mul(m, n), k)
        parallel = b.and_(
            b.icmp_signed(">", workers, i64(1)), b.icmp_signed(">=", work, i64(PARALLEL_MIN_WORK))
        )
        wanted = b.select(parallel, b.mul(workers, i64(BLOCKS_PER_WORKER)), i64(1))
        column_chunks = _blocks_of(b, wanted, row_blocks)
        # A multiple of the workers' count of tasks: 9 equal tasks on 2 cores leave one
        # idle for a tenth of the time (1024^3 on 2 cores: 3 row blocks x 3 chunks).
        team = b.select(parallel, workers, i64(1))
        column_chunks = b.mul(_blocks_of(b, column_chunks, team), team)
        column_chunks = minimum(b, column_chunks, slivers_b)
        chunk = _blocks_of(b, slivers_b, column_chunks)  # B's slivers per chunk
        column_chunks = _blocks_of(b, slivers_b, chunk)
        # B not transposed: its columns are contiguous runs, which the micro-kernel reads
        # in place, saving the pack (a transposing copy that costs a fifth of the product
        # where m is small: im2col's convolutions). Not where columns are a multiple of
        # 1 KiB apart: the NR columns would share L1 sets.
        if not self.trans_b:
            aliased = b.urem(b.mul(ldb, i64(self.size)), i64(1024))
            direct = b.icmp_signed("!=", aliased, i64(0))
        else:
            direct = ir.Constant(I1, 0)
        groups_a = _blocks(b, slivers_a, PACK_GROUP)
        groups_b = b.select(direct, i64(0), _blocks(b, slivers_b, PACK_GROUP))
        table = _TABLE.fill(b, {
            "a": a, "b": b_, "c": c, "pack_a": workspace, "pack_b": pack_b, "m": m, "n": n,
            "k": k, "lda": lda, "ldb": ldb, "ldc": ldc, "chunk": chunk, "kc": kc,
            "row_slivers": row_slivers, "row_blocks": row_blocks, "groups_a": groups_a,
            "groups_b": groups_b, "direct": direct, "mxcsr": b.load(mxcsr_word),
        })  # fmt: skip
        name = self.function.name
        pack_task = _TABLE.task(self.module, f"{name}.pack", self._emit_pack, self.mxcsr)
        compute_task = _TABLE.task(self.module, f"{name}.compute", self._emit_compute, self.mxcsr)
        with for_range(b, 0, _blocks_of(b, k, group_steps), "group") as group:
            g0 = b.mul(group, group_steps)
            panels = _blocks_of(b, minimum(b, group_steps, b.sub(k, g0)), kc)
            _TABLE.put(b, table, "g0", g0)
            _TABLE.put(b, table, "panels", panels)
            for task, count in (
                (pack_task, b.mul(panels, b.add(groups_a, groups_b))),
                (compute_task, b.mul(row_blocks, column_chunks)),
            ):
                run_tasks(b, task, table, count, parallel, workers)
        b.ret_void()

    def _panel(self, b: ir.IRBuilder, s: dict, q: ir.Value) -> tuple[ir.Value, ir.Value, ir.Value]:
        """Panel ``q`` of the group: its first step, its depth, and its offset (elements)
        into A's and B's regions per row/column: q * KC."""
        p0 = b.add(s["g0"], b.mul(q, s["kc"]))
        return p0, minimum(b, s["kc"], b.sub(s["k"], p0)), b.mul(q, s["kc"])

    def _typed(self, b: ir.IRBuilder, pointer: ir.Value) -> ir.Value:
        return b.bitcast(pointer, self.scalar.as_pointer())

    def _emit_pack(self, b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
        """Task ``index``: panel ``index // (A's + B's groups)``, then a group of
        ``PACK_GROUP`` slivers of A's panel, or, past A's groups, of B's."""
        block = self.block
        per_panel = b.add(s["groups_a"], s["groups_b"])
        q, index = b.udiv(index, per_panel), b.urem(index, per_panel)
        p0, kc, offset = self._panel(b, s, q)
        slivers_a = b.udiv(_round_up(b, s["m"], block.mr), i64(block.mr))
        slivers_b = b.udiv(_round_up(b, s["n"], block.nr), i64(block.nr))
        a, bm = self._typed(b, s["a"]), self._typed(b, s["b"])
        lda, ldb = s["lda"], s["ldb"]

        def a_at(row: ir.Value, step: ir.Value) -> ir.Value:
            if self.trans_a:
                return b.gep(a, [b.add(step, b.mul(row, lda))])
            return b.gep(a, [b.add(row, b.mul(step, lda))])

        def b_at(column: ir.Value, step: ir.Value) -> ir.Value:
            if self.trans_b:
                return b.gep(bm, [b.add(column, b.mul(step, ldb))])
            return b.gep(bm, [b.add(step, b.mul(column, ldb))])

        def pack(at, where, group, count, lanes, total, adjacent) -> None:  # noqa: ANN001
            first = b.mul(group, i64(PACK_GROUP))
            stop = minimum(b, count, b.add(first, i64(PACK_GROUP)))
            padded = b.mul(b.udiv(b.add(total, i64(lanes - 1)), i64(lanes)), i64(lanes))
            region = b.gep(self._typed(b, s[where]), [b.mul(offset, padded)])
            emit_pack_slivers(
                b, at, region, (first, stop), lanes, total, p0, kc, adjacent, self.size,
                block.width,
            )  # fmt: skip

        with b.if_else(b.icmp_signed("<", index, s["groups_a"])) as (of_a, of_b):
            with of_a:
                pack(a_at, "pack_a", index, slivers_a, block.mr, s["m"], not self.trans_a)
            with of_b:
                group = b.sub(index, s["groups_a"])
                pack(b_at, "pack_b", group, slivers_b, block.nr, s["n"], self.trans_b)

    def _emit_compute(self, b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
        """Block ``index``: rows ``[ib * MC, ...)`` by B's sliver chunk ``jb``."""
        block = self.block
        m, n, ldc = s["m"], s["n"], s["ldc"]
        row_blocks = s["row_blocks"]
        ib, jb = b.urem(index, row_blocks), b.udiv(index, row_blocks)
        slivers_a = b.udiv(_round_up(b, m, block.mr), i64(block.mr))
        slivers_b = b.udiv(_round_up(b, n, block.nr), i64(block.nr))
        per_block = s["row_slivers"]
        first_a = b.mul(ib, per_block)
        last_a = minimum(b, slivers_a, b.add(first_a, per_block))
        first_b = b.mul(jb, s["chunk"])
        last_b = minimum(b, slivers_b, b.add(first_b, s["chunk"]))
        c = self._typed(b, s["c"])
        direct = b.trunc(s["direct"], I1)
        m_padded = b.mul(slivers_a, i64(block.mr))
        n_padded = b.mul(slivers_b, i64(block.nr))
        with for_range(b, 0, s["panels"], "q") as q:
            p0, kc, offset = self._panel(b, s, q)
            pack_a = b.gep(self._typed(b, s["pack_a"]), [b.mul(offset, m_padded)])
            pack_b = b.gep(self._typed(b, s["pack_b"]), [b.mul(offset, n_padded)])
            fresh = b.icmp_signed("==", p0, i64(0))
            fresh = ir.Constant(I1, 0) if self.accumulate else fresh
            with for_range(b, first_b, last_b, "jr") as t:
                j0 = b.mul(t, i64(block.nr))
                cols = minimum(b, i64(block.nr), b.sub(n, j0))
                packed_sliver = b.gep(pack_b, [b.mul(j0, kc)])
                in_place = b.gep(self._typed(b, s["b"]), [b.add(p0, b.mul(j0, s["ldb"]))])
                b_sliver = b.select(direct, in_place, packed_sliver)
                b_step = b.select(direct, i64(1), i64(block.nr))
                b_column = b.select(direct, s["ldb"], i64(1))
                with for_range(b, first_a, last_a, "ir") as sa:
                    i0 = b.mul(sa, i64(block.mr))
                    rows = minimum(b, i64(block.mr), b.sub(m, i0))
                    a_sliver = b.gep(pack_a, [b.mul(i0, kc)])
                    tile = b.gep(c, [b.add(i0, b.mul(j0, ldc))])
                    arguments = [b.bitcast(x, I8_PTR) for x in (a_sliver, b_sliver, tile)]
                    arguments += [ldc, rows, cols, kc, fresh, b_step, b_column]
                    if self.direct is None:
                        b.call(self.kernel, arguments)
                    else:
                        with b.if_else(direct) as (read_in_place, read_packed):
                            with read_in_place:
                                b.call(self.direct, arguments)
                            with read_packed:
                                b.call(self.kernel, arguments)


def _blocks_of(b: ir.IRBuilder, total: ir.Value, size: ir.Value) -> ir.Value:
    """ceil(total / size) for run-time ``size`` (at least 1)."""
    size = b.select(b.icmp_signed("<", size, i64(1)), i64(1), size)
    return b.udiv(b.add(total, b.sub(size, i64(1))), size)


def _blocks(b: ir.IRBuilder, total: ir.Value, size: int | ir.Value) -> ir.Value:
    if isinstance(size, int):
        return b.udiv(b.add(total, i64(size - 1)), i64(size))
    return _blocks_of(b, total, size)


def _round_up(b: ir.IRBuilder, x: ir.Value, step: int) -> ir.Value:
    return b.mul(_blocks(b, x, step), i64(step))


__all__ = [
    "BLOCKS_PER_WORKER",
    "arena_workspace",
    "GEMM_LOOP_TYPES",
    "GEMM_TYPE",
    "PARALLEL_MIN_WORK",
    "emit_gemm_call",
    "gemm_function",
    "target_features",
    "variant_name",
    "vector_bits",
]
