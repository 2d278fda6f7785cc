"""The GEMM's micro-kernel: one ``MR x NR`` tile of C from a packed sliver of A and of B.

``MR x NR`` accumulators live in registers (``MR / W`` vectors per column of the tile);
each step p loads the sliver of A's ``MR / W`` vectors and, for every column, broadcasts
one element of B's sliver and adds ``a * b`` with ``llvm.fmuladd`` (one FMA where the
target has them; LLVM folds the broadcast into the FMA's memory operand). The step loop
is unrolled by hand (the JIT's pipeline does not unroll). A fresh tile starts from 0,
else from C, so every element of C is summed in the order p = 0, ..., k - 1 whatever the
blocking. A whole tile loads and stores its accumulators straight from and to C; a tile
at C's edges (fewer than MR rows or NR columns left) goes through a stack tile: the
valid part of C in, the valid part out. (Every tile through the stack tile cost 96 more
moves per tile: 64^3, where a tile has 64 steps, took 5.7-6.3 us instead of 5.4-5.5.)
A's sliver is prefetched ahead of the steps (``A_PREFETCH_BYTES``).
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ..flush_denormals import enter_word, restore
from ..ir_support import for_range, i64
from ..llvm_types import I1, I8_PTR, I8_PTR_PTR, I32, I64, KERNEL_TYPE, VOID
from .linalg_gemm_blocking import Blocking

# Steps of k per trip of the micro-kernel's loop: 2 from packed B; 1 reading B in place,
# where a second step's NR column addresses made LLVM spill (139 vs 116 GFLOP/s measured).
_UNROLL = {False: 2, True: 1}
# void kernel(a_sliver, b_sliver, c_tile, ldc, rows, cols, kc, fresh, b_step, b_column):
# B's element (p, j) at b_sliver[p * b_step + min(j, cols - 1) * b_column]: a packed
# sliver (NR, 1), or B read where it is (1, ldb).
# A's sliver streams from L2 (its block stays there, B's sliver in L1): the hardware
# prefetchers leave the FMAs waiting on it, so the kernel asks for A's lines this many
# bytes ahead (8 steps of AVX-512 f32). 1024^3 f32 on one core and on two: 5-10% faster,
# every measured variant alike (docs/gemm.md).
A_PREFETCH_BYTES = 1024
_LINE_BYTES = 64
# void llvm.prefetch(address, rw, locality, cache type)
PREFETCH_TYPE = ir.FunctionType(VOID, [I8_PTR, I32, I32, I32])
MICRO_KERNEL_TYPE = ir.FunctionType(
    VOID, [I8_PTR, I8_PTR, I8_PTR, I64, I64, I64, I64, I1, I64, I64]
)


def micro_kernel(
    module: ir.Module, name: str, scalar: ir.Type, block: Blocking, direct_b: bool = False
) -> ir.Function:
    """The micro-kernel for ``scalar`` elements and ``block``'s tile, made once per module.
    From a packed sliver of B (``b_step``, ``b_column`` ignored: NR and 1, constants, so
    every broadcast is one register plus an offset), or with ``direct_b`` from B read in
    place (the run-time strides, the columns past ``cols`` clamped to the last)."""
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    function = ir.Function(module, MICRO_KERNEL_TYPE, name)
    function.linkage = "internal"
    # Called once per tile (hundreds of steps each): inlining it into the task bought
    # nothing and made LLVM optimize the two kernels' bodies again (twice the time).
    function.attributes.add("noinline")
    for argument in function.args[:3]:
        argument.add_attribute("noalias")
    _MicroKernel(function, scalar, block, direct_b).emit()
    return function


class _MicroKernel:
    def __init__(
        self, function: ir.Function, scalar: ir.Type, block: Blocking, direct_b: bool
    ) -> None:
        self.function, self.scalar, self.block = function, scalar, block
        self.direct_b = direct_b
        self.b = ir.IRBuilder(function.append_basic_block("entry"))
        self.vector = ir.VectorType(scalar, block.width)
        self.size = 4 if str(scalar) == "float" else 8
        suffix = "f32" if self.size == 4 else "f64"
        name = f"llvm.fmuladd.v{block.width}{suffix}"
        self.fmuladd = module_function(
            function.module, name, ir.FunctionType(self.vector, [self.vector] * 3)
        )

    def emit(self) -> None:
        b, block = self.b, self.block
        a, bp, c, ldc, rows, cols, kc, fresh, b_step, b_column = self.function.args
        pointer = self.scalar.as_pointer()
        self.a, self.bp, self.c = (b.bitcast(x, pointer) for x in (a, bp, c))
        self.ldc = ldc
        if self.direct_b:
            self.b_step = b_step
            last = b.sub(cols, i64(1))
            self.columns = [
                b.gep(
                    self.bp,
                    [b.mul(b.select(b.icmp_signed("<", i64(j), last), i64(j), last), b_column)],
                )
                for j in range(block.nr)
            ]
        else:
            self.b_step = i64(block.nr)
            self.columns = [b.gep(self.bp, [i64(j)]) for j in range(block.nr)]
        tile = b.alloca(self.scalar, i64(block.mr * block.nr), name="tile")
        tile.align = 64
        self.tile = tile
        self.acc = [
            [b.alloca(self.vector, name=f"acc{j}_{v}") for v in range(block.vectors)]
            for j in range(block.nr)
        ]
        full = b.and_(
            b.icmp_signed("==", rows, i64(block.mr)), b.icmp_signed("==", cols, i64(block.nr))
        )
        zero = ir.Constant(self.vector, None)
        with b.if_else(fresh) as (start_zero, start_c):
            with start_zero:
                for column in self.acc:
                    for slot in column:
                        b.store(zero, slot)
            with start_c, b.if_else(full) as (whole, edge):
                # A whole tile straight from C; an edge tile through the stack tile.
                with whole:
                    self._load_tile(self._c_vector)
                with edge:
                    self._tile_from_c(rows, cols)
                    self._load_tile(self._tile_vector)
        self._steps(kc)
        with b.if_else(full) as (whole, edge):
            with whole:
                self._store_tile(self._c_vector)
            with edge:
                self._store_tile(self._tile_vector)
                self._tile_to_c(rows, cols)
        b.ret_void()

    # -- addresses ---------------------------------------------------------------------
    def _c_at(self, row: ir.Value, column: ir.Value) -> ir.Value:
        b = self.b
        return b.gep(self.c, [b.add(row, b.mul(column, self.ldc))])

    def _tile_vector(self, v: int, j: int) -> ir.Value:
        index = j * self.block.mr + v * self.block.width
        return self.b.bitcast(self.b.gep(self.tile, [i64(index)]), self.vector.as_pointer())

    def _load_tile(self, at) -> None:  # noqa: ANN001
        for j, column in enumerate(self.acc):
            for v, slot in enumerate(column):
                self.b.store(self.b.load(at(v, j), align=self.size), slot)

    def _store_tile(self, at) -> None:  # noqa: ANN001
        for j, column in enumerate(self.acc):
            for v, slot in enumerate(column):
                self.b.store(self.b.load(slot), at(v, j), align=self.size)

    def _c_vector(self, v: int, j: int) -> ir.Value:
        row = i64(v * self.block.width)
        return self.b.bitcast(self._c_at(row, i64(j)), self.vector.as_pointer())

    def _tile_from_c(self, rows: ir.Value, cols: ir.Value) -> None:
        """The stack tile from an edge tile's valid part of C, zeros elsewhere."""
        b, mr = self.b, self.block.mr
        zero = ir.Constant(self.scalar, 0.0)
        with for_range(b, 0, i64(mr * self.block.nr), "tz") as i:
            b.store(zero, b.gep(self.tile, [i]))
        with for_range(b, 0, cols, "ej") as j, for_range(b, 0, rows, "ei") as i:
            value = b.load(self._c_at(i, j), align=self.size)
            b.store(value, b.gep(self.tile, [b.add(b.mul(j, i64(mr)), i)]))

    def _tile_to_c(self, rows: ir.Value, cols: ir.Value) -> None:
        """An edge tile's valid part of C from the stack tile."""
        b, mr = self.b, self.block.mr
        with for_range(b, 0, cols, "sj") as j, for_range(b, 0, rows, "si") as i:
            value = b.load(b.gep(self.tile, [b.add(b.mul(j, i64(mr)), i)]))
            b.store(value, self._c_at(i, j), align=self.size)

    # -- the k loop --------------------------------------------------------------------
    def _step(self, p: ir.Value, values: list[list[ir.Value]]) -> list[list[ir.Value]]:
        b, block = self.b, self.block
        vector_pointer = self.vector.as_pointer()
        a_base = b.mul(p, i64(block.mr))
        a = [
            b.load(
                b.bitcast(b.gep(self.a, [b.add(a_base, i64(v * block.width))]), vector_pointer),
                align=self.size,
            )
            for v in range(block.vectors)
        ]
        b_offset = b.mul(p, self.b_step)
        mask = ir.Constant(ir.VectorType(I32, block.width), [0] * block.width)
        undefined = ir.Constant(self.vector, ir.Undefined)
        out = []
        for j in range(block.nr):
            element = b.load(b.gep(self.columns[j], [b_offset]), align=self.size)
            splat = b.shuffle_vector(b.insert_element(undefined, element, I32(0)), undefined, mask)
            out.append(
                [b.call(self.fmuladd, [a[v], splat, values[j][v]]) for v in range(block.vectors)]
            )
        return out

    def _loaded(self) -> list[list[ir.Value]]:
        return [[self.b.load(slot) for slot in column] for column in self.acc]

    def _stored(self, values: list[list[ir.Value]]) -> None:
        for column, new in zip(self.acc, values, strict=True):
            for slot, value in zip(column, new, strict=True):
                self.b.store(value, slot)

    def _prefetch_a(self, first: ir.Value, steps: int) -> None:
        """Prefetch into L1 the lines of A's sliver ``A_PREFETCH_BYTES`` ahead of the
        ``steps`` steps from ``first`` (one prefetch per line; past the sliver's end
        they fetch the next sliver's start, and a prefetch never faults)."""
        b, block = self.b, self.block
        prefetch = module_function(self.function.module, "llvm.prefetch.p0", PREFETCH_TYPE)
        step_bytes = block.mr * self.size
        ahead = max(1, A_PREFETCH_BYTES // step_bytes) * block.mr
        base = b.add(b.mul(first, i64(block.mr)), i64(ahead))
        for offset in range(0, steps * block.mr, _LINE_BYTES // self.size):
            at = b.bitcast(b.gep(self.a, [b.add(base, i64(offset))]), I8_PTR)
            b.call(prefetch, [at, I32(0), I32(3), I32(1)])  # read, keep in L1, data

    def _steps(self, kc: ir.Value) -> None:
        b = self.b
        unroll = _UNROLL[self.direct_b]
        trips = b.udiv(kc, i64(unroll))
        with for_range(b, 0, trips, "kp") as trip:
            values = self._loaded()
            first = b.mul(trip, i64(unroll))
            self._prefetch_a(first, unroll)
            for u in range(unroll):
                values = self._step(b.add(first, i64(u)), values)
            self._stored(values)
        if unroll > 1:
            with for_range(b, b.mul(trips, i64(unroll)), kc, "kr") as p:
                self._stored(self._step(p, self._loaded()))


# void xlapy_parallel_for(task, table, count, workers): the pool (runtime.native_runtime).
PARALLEL_FOR_TYPE = ir.FunctionType(VOID, [KERNEL_TYPE.as_pointer(), I8_PTR_PTR, I64, I64])


class SlotTable:
    """The table a GEMM hands its pool tasks: one ``i8*`` slot per named value (integers
    as ``inttoptr``), filled by the driver and read back by every task.

    Why a table: ``xlapy_parallel_for`` passes its tasks one pointer, and the GEMMs (the
    float one, the int8 one, the skinny one) each need a dozen sizes and addresses."""

    def __init__(self, slots: tuple[str, ...], pointers: frozenset[str]) -> None:
        self.slots, self.pointers = slots, pointers
        self.index = {name: i for i, name in enumerate(slots)}

    def fill(self, b: ir.IRBuilder, values: dict[str, ir.Value]) -> ir.Value:
        """A table on the driver's stack holding ``values`` (a subset of the slots)."""
        table = b.alloca(I8_PTR, i64(len(self.slots)), name="table")
        for name, value in values.items():
            self.put(b, table, name, value)
        return table

    def put(self, b: ir.IRBuilder, table: ir.Value, name: str, value: ir.Value) -> None:
        if value.type != I8_PTR:
            value = b.inttoptr(b.zext(value, I64) if value.type != I64 else value, I8_PTR)
        b.store(value, b.gep(table, [i64(self.index[name])]))

    def task(
        self,
        module: ir.Module,
        name: str,
        body: Callable[[ir.IRBuilder, dict[str, ir.Value], ir.Value], None],
        mxcsr: bool = False,
    ) -> ir.Function:
        """``void name(table, start, stop)``: ``body(b, values, index)`` for each index,
        the values read from the table (i64 but for the pointers). With ``mxcsr`` the task
        runs under the MXCSR word in the slot ``mxcsr`` (the caller's FTZ/DAZ bits, so that
        every thread rounds alike) and puts its thread's own back afterwards."""
        task = ir.Function(module, KERNEL_TYPE, name)
        task.linkage = "internal"
        b = ir.IRBuilder(task.append_basic_block("entry"))
        table, start, stop = task.args
        values = {
            slot: b.load(b.gep(table, [i64(i)]), name=slot) for i, slot in enumerate(self.slots)
        }
        for slot in self.slots:
            if slot not in self.pointers:
                values[slot] = b.ptrtoint(values[slot], I64)
        saved = enter_word(b, b.trunc(values["mxcsr"], I32)) if mxcsr else None
        with for_range(b, start, stop, "task", vectorize=False) as index:
            body(b, values, index)
        if saved is not None:
            restore(b, saved)
        b.ret_void()
        return task


def run_tasks(
    b: ir.IRBuilder,
    task: ir.Function,
    table: ir.Value,
    count: ir.Value,
    parallel: ir.Value,
    workers: ir.Value,
) -> None:
    """``task`` over ``[0, count)``: on the pool where ``parallel``, else on this thread."""
    parallel_for = module_function(b.module, "xlapy_parallel_for", PARALLEL_FOR_TYPE)
    with b.if_else(parallel) as (pooled, inline):
        with pooled:
            b.call(parallel_for, [task, table, count, workers])
        with inline:
            b.call(task, [table, i64(0), count])


def module_function(module: ir.Module, name: str, kind: ir.FunctionType) -> ir.Function:
    """``name`` declared in ``module`` once (an intrinsic or an external function)."""
    existing = module.globals.get(name)
    return existing if existing is not None else ir.Function(module, kind, name)


def function_to_define(
    module: ir.Module, name: str, kind: ir.FunctionType, exported: bool
) -> tuple[ir.Function, bool]:
    """(function, whether it still needs a body): ``module``'s definition of ``name`` if
    it has one, else the function to define (the module's declaration of it, or a new
    one), internal unless ``exported``. How every runtime-library variant is made once
    per module, whether a program declared it first or not."""
    existing = module.globals.get(name)
    if existing is not None and not existing.is_declaration:
        return existing, False
    function = existing or ir.Function(module, kind, name)
    if not exported:
        function.linkage = "internal"
    return function, True


def emit_small_gemm(
    b: ir.IRBuilder,
    scalar: ir.Type,
    matrices: tuple[ir.Value, ir.Value, ir.Value],
    sizes: tuple[ir.Value, ...],
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
) -> None:
    """A GEMM too small to pay for packing: for each column of C, 4 rows at a time kept
    in a register while ``acc = fmuladd(a[i, p], b[p, j], acc)`` runs p = 0, ..., k - 1
    (the rows past the last multiple of 4 one at a time), from 0 unless accumulating:
    the micro-kernel's order and operations, so both give the same bits. ``matrices``:
    typed pointers; ``sizes``: m, n, k, lda, ldb, ldc."""
    a, bm, c = matrices
    m, n, k, lda, ldb, ldc = sizes
    size = 4 if str(scalar) == "float" else 8
    suffix = "f32" if size == 4 else "f64"
    lanes = _SMALL_LANES
    vector = ir.VectorType(scalar, lanes)
    vector_fma = module_function(
        b.module, f"llvm.fmuladd.v{lanes}{suffix}", ir.FunctionType(vector, [vector] * 3)
    )
    scalar_fma = module_function(
        b.module, f"llvm.fmuladd.{suffix}", ir.FunctionType(scalar, [scalar] * 3)
    )
    with b.goto_entry_block():
        entry = b.function.entry_basic_block
        if entry.instructions:
            b.position_before(entry.instructions[0])
        vector_acc = b.alloca(vector, name="small_acc")
        scalar_acc = b.alloca(scalar, name="small_acc1")

    def a_at(i: ir.Value, p: ir.Value) -> ir.Value:
        return b.gep(a, [b.add(p, b.mul(i, lda)) if trans_a else b.add(i, b.mul(p, lda))])

    def b_at(p: ir.Value, j: ir.Value) -> ir.Value:
        return b.gep(bm, [b.add(j, b.mul(p, ldb)) if trans_b else b.add(p, b.mul(j, ldb))])

    undefined = ir.Constant(vector, ir.Undefined)
    splat_mask = ir.Constant(ir.VectorType(ir.IntType(32), lanes), [0] * lanes)
    quads = b.udiv(m, i64(lanes))
    with for_range(b, 0, n, "sj") as j:
        column = b.gep(c, [b.mul(j, ldc)])
        with for_range(b, 0, quads, "sv") as v:
            i0 = b.mul(v, i64(lanes))
            at_c = b.bitcast(b.gep(column, [i0]), vector.as_pointer())
            start = b.load(at_c, align=size) if accumulate else ir.Constant(vector, None)
            b.store(start, vector_acc)
            with for_range(b, 0, k, "sp") as p:
                if trans_a:  # the 4 rows are lda apart
                    rows = undefined
                    for r in range(lanes):
                        value = b.load(a_at(b.add(i0, i64(r)), p), align=size)
                        rows = b.insert_element(rows, value, ir.IntType(32)(r))
                else:
                    rows = b.load(b.bitcast(a_at(i0, p), vector.as_pointer()), align=size)
                factor = b.insert_element(
                    undefined, b.load(b_at(p, j), align=size), ir.IntType(32)(0)
                )
                factor = b.shuffle_vector(factor, undefined, splat_mask)
                b.store(b.call(vector_fma, [rows, factor, b.load(vector_acc)]), vector_acc)
            b.store(b.load(vector_acc), at_c, align=size)
        with for_range(b, b.mul(quads, i64(lanes)), m, "si") as i:
            target = b.gep(column, [i])
            b.store(
                b.load(target, align=size) if accumulate else ir.Constant(scalar, 0.0), scalar_acc
            )
            with for_range(b, 0, k, "sq") as p:
                term = b.call(scalar_fma, [
                    b.load(a_at(i, p), align=size), b.load(b_at(p, j), align=size),
                    b.load(scalar_acc),
                ])  # fmt: skip
                b.store(term, scalar_acc)
            b.store(b.load(scalar_acc), target, align=size)


_SMALL_LANES = 4  # rows per register in the small GEMM (an SSE/NEON register of f32)


__all__ = [
    "MICRO_KERNEL_TYPE",
    "emit_small_gemm",
    "function_to_define",
    "micro_kernel",
    "module_function",
]
