"""Skinny GEMMs, read in place: C with a few columns, or fewer rows than two vectors.

Why: in BLAS's column-major terms a batch-1 layer ``x @ W`` is a C of one column (n = 1),
and the packed GEMM first copies A (the weights) into slivers: it moves the matrix three
times (read, write, read again) where one read is the whole cost. A C of a few rows
(``W @ x``, an MLP's 10-way output layer) fills a sixteenth to a half of the
micro-kernel's 32-row tile: the rest is padding computed for nothing. Measured against
XLA on 2 cores before this path: 1 x 1024 x 1024 2.2x its time, 256 x 1024 x 1 3.5x,
4096 x 1024 x 16 2.3x.

- **Few columns** (n <= 8): tiles of ``V`` vectors of rows by all of C's columns, A's
  rows streamed from the matrix once; B (k x n: small) packed once into rows of 8
  (where the workspace holds it; else read in place). The tile's width is picked from
  n (1, 4 or 8 columns) so that a matrix-vector product does not compute 8 columns.
- **Few rows** (m <= 2 vectors): tiles of all of C's rows by ``SKINNY_ROW_COLUMNS``
  columns; A (k x m: small) read in place, where it stays in L2; B's elements
  broadcast from the matrix. Six columns at most: B's columns are often a multiple of
  4 KiB apart (k a power of two) and share one set of L1's eight ways.

Same arithmetic as the micro-kernel: ``acc = fmuladd(a[i, p], b[p, j], acc)`` for
p = 0, ..., k - 1 from 0 (from C when accumulating), so the result is the packed
GEMM's bit for bit. A stored transposed (``x @ W^T``, PyTorch's layout) takes the
few-rows path only, copied once (k x m: small) into rows of two vectors by the packed
path's 4 x 4 register transposes; on the few-columns path the same copy in blocks cost
more library compile time (2.5 s against 0.8 for the variant) than it saved over the
packed path (1 x 1024 x 1024: 2.1 -> 1.8x XLA's time). Rows past m are masked
(``llvm.masked.load`` and ``store``) and columns past n are neither read past B's edge
nor stored: nothing is read or written outside the matrices.
"""

from __future__ import annotations

from llvmlite import ir

from ..ir_support import for_range, i64, minimum
from ..llvm_types import I1, I8_PTR, I32, I64, VOID
from .linalg_gemm_kernel import SlotTable, module_function, run_tasks
from .linalg_gemm_pack import emit_pack_slivers

SKINNY_COLUMNS = 8  # C's columns at most for the few-columns path
SKINNY_ROW_VECTORS = 2  # C's rows at most, in vectors, for the few-rows path
SKINNY_ROW_COLUMNS = 6
PACKED_COLUMNS = 8  # B packed into rows of this many (the widest few-columns tile)
PARALLEL_MIN_WORK = 1 << 17  # multiply-adds: a quarter of a memory-bound millisecond
# Tasks per worker: the pool's chunks (a core busy elsewhere holds up one, not a fixed
# share). Two on the few-columns path, whose tasks stream rows of A: a task's stretch of
# each row shorter than that (144 rows of 1024 at four) left the prefetchers behind
# (8 x 1024 x 1024 on 2 cores: about 0.7 of four tasks' time; noisy host).
COLUMN_TASKS_PER_WORKER = 2
ROW_TASKS_PER_WORKER = 4
# (columns, vectors of rows) per tile, by the registers the vector width has: 24
# accumulators of AVX-512's 32 registers, 12 of AVX2's 16.
_COLUMN_TILES = {512: ((1, 4), (4, 4), (8, 3)), 256: ((1, 4), (4, 3), (8, 1))}
# Steps of k per pass over a task's rows on the few-columns path: C's rows are read
# back and stored between passes (the same sums, carried on exactly), so that A's rows
# are read as this many sequential streams (the prefetchers follow them) rather than
# one tile's few cache lines from each of k rows a page or more apart.
K_BLOCK = 16
# void tile(a, b, c, lda, b_step, b_column, ldc, rows, cols, k, fresh)
TILE_TYPE = ir.FunctionType(VOID, [I8_PTR, I8_PTR, I8_PTR] + [I64] * 7 + [I1])
_TABLE = SlotTable(
    ("a", "b", "c", "m", "n", "k", "lda", "ldc", "b_step", "b_column", "per_task", "mxcsr"),
    frozenset({"a", "b", "c"}),
)


def skinny_bits(bits: int) -> bool:
    """Whether the vector width has this path (masked loads are cheap from AVX2 on)."""
    return bits in _COLUMN_TILES


class SkinnyGemm:
    """The two skinny paths of one GEMM variant (``scalar`` elements, ``width`` lanes)."""

    def __init__(
        self,
        function: ir.Function,
        scalar: ir.Type,
        width: int,
        trans_a: bool,
        trans_b: bool,
        accumulate: bool,
        mxcsr: bool,
    ) -> None:
        self.function, self.module = function, function.module
        self.scalar, self.width = scalar, width
        self.size = 4 if str(scalar) == "float" else 8
        self.trans_a, self.trans_b = trans_a, trans_b
        self.accumulate, self.mxcsr = accumulate, mxcsr
        self.bits = width * self.size * 8

    def emit(self, b: ir.IRBuilder, mxcsr_word: ir.Value) -> None:
        """Where C is skinny, compute it here and return; else fall through."""
        a, _, c, m, n, k, lda, _, ldc, _, _, workers = self.function.args
        values = {"a": a, "c": c, "m": m, "n": n, "k": k, "lda": lda, "ldc": ldc,
                  "mxcsr": b.load(mxcsr_word)}  # fmt: skip
        parallel = b.and_(
            b.icmp_signed(">", workers, i64(1)),
            b.icmp_signed(">=", b.mul(b.mul(m, n), k), i64(PARALLEL_MIN_WORK)),
        )
        if not self.trans_a:
            self._few_columns(b, values, parallel, workers)
        self._few_rows(b, values, parallel, workers)

    def _few_columns(self, b, values, parallel, workers) -> None:  # noqa: ANN001
        """C of at most 8 columns (A not transposed): tiles of rows, A streamed."""
        _, b_, _, m, n, k, _, ldb, _, workspace, workspace_size, _ = self.function.args
        in_place_step = ldb if self.trans_b else i64(1)
        in_place_column = i64(1) if self.trans_b else ldb
        with b.if_then(b.icmp_signed("<=", n, i64(SKINNY_COLUMNS))):
            packed_bytes = b.mul(k, i64(PACKED_COLUMNS * self.size))
            fits = b.icmp_signed("<=", packed_bytes, workspace_size)
            with b.if_then(fits):
                self._pack_b(b, b_, workspace, n, k, in_place_step, in_place_column)
            values["b"] = b.select(fits, workspace, b_)
            values["b_step"] = b.select(fits, i64(PACKED_COLUMNS), in_place_step)
            values["b_column"] = b.select(fits, i64(1), in_place_column)
            tiles = _COLUMN_TILES[self.bits]
            for number, (columns, vectors) in enumerate(tiles):
                lower = 0 if number == 0 else tiles[number - 1][0]
                chosen = b.and_(
                    b.icmp_signed(">", n, i64(lower)), b.icmp_signed("<=", n, i64(columns))
                )
                with b.if_then(chosen):
                    kernel = self._tile(columns, vectors)
                    rows = vectors * self.width
                    team = self._team(b, parallel, workers, COLUMN_TASKS_PER_WORKER)
                    self._run(b, values, m, rows, team, parallel, workers,
                              self._column_task(kernel, rows))  # fmt: skip
                    b.ret_void()
            b.ret_void()  # not reached: n in (0, 8] took one of the tiles

    def _few_rows(self, b, values, parallel, workers) -> None:  # noqa: ANN001
        """C of at most two vectors of rows: tiles of columns, B's elements broadcast. A
        stored transposed is copied first into rows of two vectors (zero past m), which
        the one-vector tile reads as well."""
        a, b_, _, m, n, k, lda, ldb, _, workspace, workspace_size, _ = self.function.args
        values.update(b=b_, b_step=ldb if self.trans_b else i64(1),
                      b_column=i64(1) if self.trans_b else ldb)  # fmt: skip
        lanes = SKINNY_ROW_VECTORS * self.width
        few_rows = b.icmp_signed("<=", m, i64(lanes))
        if self.trans_a:
            fits = b.icmp_signed("<=", b.mul(k, i64(lanes * self.size)), workspace_size)
            few_rows = b.and_(few_rows, fits)
        with b.if_then(few_rows):
            if self.trans_a:
                packed = b.bitcast(workspace, self.scalar.as_pointer())
                source = self._a_at(b, a, lda, i64(0))
                emit_pack_slivers(b, source, packed, (i64(0), i64(1)), lanes, m, i64(0), k,
                                  False, self.size, self.width)  # fmt: skip
                values.update(a=workspace, lda=i64(lanes))
            team = self._team(b, parallel, workers, ROW_TASKS_PER_WORKER)
            for vectors in range(1, SKINNY_ROW_VECTORS + 1):
                chosen = b.icmp_signed("<=", m, i64(vectors * self.width))
                if vectors > 1:
                    chosen = b.icmp_signed(">", m, i64((vectors - 1) * self.width))
                with b.if_then(chosen):
                    kernel = self._tile(SKINNY_ROW_COLUMNS, vectors)
                    self._run(b, values, n, SKINNY_ROW_COLUMNS, team, parallel, workers,
                              self._row_task(kernel))  # fmt: skip
                    b.ret_void()

    def _team(self, b: ir.IRBuilder, parallel: ir.Value, workers: ir.Value, each: int) -> ir.Value:
        return b.select(parallel, b.mul(workers, i64(each)), i64(1))

    def _run(self, b, values, extent, tile, team, parallel, workers, task) -> None:  # noqa: ANN001
        """``task`` over tiles of ``tile`` along ``extent``, about ``team`` tasks."""
        tiles = b.udiv(b.add(extent, i64(tile - 1)), i64(tile))
        per_task = b.udiv(b.add(tiles, b.sub(team, i64(1))), team)
        per_task = b.select(b.icmp_signed("<", per_task, i64(1)), i64(1), per_task)
        count = b.udiv(b.add(tiles, b.sub(per_task, i64(1))), per_task)
        table = _TABLE.fill(b, {**values, "per_task": per_task})
        run_tasks(b, task, table, count, parallel, workers)

    def _pack_b(self, b, source, target, n, k, step, column) -> None:  # noqa: ANN001
        """B's k x n into rows of ``PACKED_COLUMNS``, the columns past n repeating the last."""
        pointer = self.scalar.as_pointer()
        source, target = b.bitcast(source, pointer), b.bitcast(target, pointer)
        last = b.sub(n, i64(1))
        with for_range(b, 0, k, "pack_p", vectorize=False) as p:
            for j in range(PACKED_COLUMNS):
                clamped = b.select(b.icmp_signed("<", i64(j), last), i64(j), last)
                value = b.load(b.gep(source, [b.add(b.mul(p, step), b.mul(clamped, column))]))
                at = b.gep(target, [b.add(b.mul(p, i64(PACKED_COLUMNS)), i64(j))])
                b.store(value, at)

    # -- tasks ---------------------------------------------------------------------------
    def _column_task(self, kernel: ir.Function, rows: int) -> ir.Function:
        """Few columns: task ``index`` runs tiles of ``rows`` rows by all of C's columns."""

        def body(b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
            tiles = b.udiv(b.add(s["m"], i64(rows - 1)), i64(rows))
            first = b.mul(index, s["per_task"])
            last = minimum(b, tiles, b.add(first, s["per_task"]))
            k = s["k"]
            blocks = b.udiv(b.add(k, i64(K_BLOCK - 1)), i64(K_BLOCK))
            with for_range(b, 0, blocks, "k_block", vectorize=False) as q:
                p0 = b.mul(q, i64(K_BLOCK))
                steps = minimum(b, i64(K_BLOCK), b.sub(k, p0))
                fresh = ir.Constant(I1, 0) if self.accumulate else b.icmp_signed("==", q, i64(0))
                bp = self._at(b, s["b"], b.mul(p0, s["b_step"]))
                with for_range(b, first, last, "tile", vectorize=False) as t:
                    i0 = b.mul(t, i64(rows))
                    count = minimum(b, i64(rows), b.sub(s["m"], i0))
                    a = self._at(b, s["a"], b.add(i0, b.mul(p0, s["lda"])))
                    c = self._at(b, s["c"], i0)
                    b.call(kernel, [a, bp, c, s["lda"], s["b_step"], s["b_column"], s["ldc"],
                                    count, s["n"], steps, fresh])  # fmt: skip

        name = f"{kernel.name}.task"
        return _TABLE.task(self.module, name, body, self.mxcsr)

    def _row_task(self, kernel: ir.Function) -> ir.Function:
        """Few rows: task ``index`` runs tiles of all of C's rows by a few columns."""
        columns = SKINNY_ROW_COLUMNS

        def body(b: ir.IRBuilder, s: dict, index: ir.Value) -> None:
            tiles = b.udiv(b.add(s["n"], i64(columns - 1)), i64(columns))
            first = b.mul(index, s["per_task"])
            last = minimum(b, tiles, b.add(first, s["per_task"]))
            with for_range(b, first, last, "tile", vectorize=False) as t:
                j0 = b.mul(t, i64(columns))
                count = minimum(b, i64(columns), b.sub(s["n"], j0))
                bp = self._at(b, s["b"], b.mul(j0, s["b_column"]))
                c = self._at(b, s["c"], b.mul(j0, s["ldc"]))
                fresh = ir.Constant(I1, 0 if self.accumulate else 1)
                b.call(kernel, [s["a"], bp, c, s["lda"], s["b_step"], s["b_column"], s["ldc"],
                                s["m"], count, s["k"], fresh])  # fmt: skip

        name = f"{kernel.name}.task"
        return _TABLE.task(self.module, name, body, self.mxcsr)

    def _a_at(self, b: ir.IRBuilder, a: ir.Value, lda: ir.Value, i0: ir.Value):  # noqa: ANN202
        """``(lane, step) -> &A[i0 + lane, step]`` for A stored transposed."""
        typed = b.bitcast(a, self.scalar.as_pointer())
        return lambda lane, step: b.gep(typed, [b.add(step, b.mul(b.add(i0, lane), lda))])

    def _at(self, b: ir.IRBuilder, pointer: ir.Value, elements: ir.Value) -> ir.Value:
        return b.gep(pointer, [b.mul(elements, i64(self.size))])

    # -- the tile ------------------------------------------------------------------------
    def _tile(self, columns: int, vectors: int) -> ir.Function:
        """``void tile(a, b, c, lda, b_step, b_column, ldc, rows, cols, k)``: C's
        ``rows x cols`` block (at most ``vectors`` vectors by ``columns``) over all of k;
        A's column p at ``a + p lda``, B's (p, j) at ``b + p b_step + j b_column``."""
        name = f"{self.function.name}.skinny_{columns}x{vectors}"
        existing = self.module.globals.get(name)
        if existing is not None:
            return existing
        function = ir.Function(self.module, TILE_TYPE, name)
        function.linkage = "internal"
        function.attributes.add("noinline")  # one call per tile, hundreds of steps each
        for argument in function.args[:3]:
            argument.add_attribute("noalias")
        _Tile(function, self.scalar, self.width, columns, vectors).emit()
        return function


class _Tile:
    def __init__(
        self,
        function: ir.Function,
        scalar: ir.Type,
        width: int,
        columns: int,
        vectors: int,
    ) -> None:
        self.function, self.scalar, self.width = function, scalar, width
        self.columns, self.vectors = columns, vectors
        self.size = 4 if str(scalar) == "float" else 8
        self.vector = ir.VectorType(scalar, width)
        suffix = f"v{width}{'f32' if self.size == 4 else 'f64'}"
        module, pointer = function.module, self.vector.as_pointer()
        mask = ir.VectorType(I1, width)
        self.fmuladd = module_function(
            module, f"llvm.fmuladd.{suffix}", ir.FunctionType(self.vector, [self.vector] * 3)
        )
        self.masked_load = module_function(
            module, f"llvm.masked.load.{suffix}.p0",
            ir.FunctionType(self.vector, [pointer, I32, mask, self.vector]),
        )  # fmt: skip
        self.masked_store = module_function(
            module, f"llvm.masked.store.{suffix}.p0",
            ir.FunctionType(VOID, [self.vector, pointer, I32, mask]),
        )  # fmt: skip

    def emit(self) -> None:
        b = ir.IRBuilder(self.function.append_basic_block("entry"))
        a, bp, c, lda, b_step, b_column, ldc, rows, cols, k, fresh = self.function.args
        pointer = self.scalar.as_pointer()
        a, bp, c = (b.bitcast(x, pointer) for x in (a, bp, c))
        width = self.width
        lanes = ir.VectorType(I64, width)
        splat_rows = b.insert_element(ir.Constant(lanes, ir.Undefined), rows, I32(0))
        splat_rows = b.shuffle_vector(
            splat_rows,
            ir.Constant(lanes, ir.Undefined),
            ir.Constant(ir.VectorType(I32, width), [0] * width),
        )
        masks = [
            b.icmp_signed(
                "<", ir.Constant(lanes, [v * width + i for i in range(width)]), splat_rows
            )
            for v in range(self.vectors)
        ]
        last = b.sub(cols, i64(1))
        clamped = [
            b.select(b.icmp_signed("<", i64(j), last), i64(j), last) for j in range(self.columns)
        ]
        zero = ir.Constant(self.vector, None)

        def vector_at(base: ir.Value, offset: ir.Value) -> ir.Value:
            return b.bitcast(b.gep(base, [offset]), self.vector.as_pointer())

        acc = [[b.alloca(self.vector, name=f"acc{j}_{v}") for v in range(self.vectors)]
               for j in range(self.columns)]  # fmt: skip
        for j in range(self.columns):
            for v in range(self.vectors):
                # C's column (the last valid one past cols) unless the tile starts
                # fresh; 0 in the columns past cols, which are never stored.
                at = vector_at(c, b.add(i64(v * width), b.mul(clamped[j], ldc)))
                loaded = b.call(self.masked_load, [at, I32(self.size), masks[v], zero])
                keep = b.and_(b.not_(fresh), b.icmp_signed("<", i64(j), cols))
                start = b.select(keep, loaded, zero)
                b.store(start, acc[j][v])
        b_columns = [b.gep(bp, [b.mul(clamped[j], b_column)]) for j in range(self.columns)]
        undefined = ir.Constant(self.vector, ir.Undefined)
        splat = ir.Constant(ir.VectorType(I32, width), [0] * width)
        with for_range(b, 0, k, "p", vectorize=False) as p:
            column = b.mul(p, lda)
            a_vectors = [
                b.call(self.masked_load,
                       [vector_at(a, b.add(column, i64(v * width))), I32(self.size), masks[v], zero])
                for v in range(self.vectors)
            ]  # fmt: skip
            offset = b.mul(p, b_step)
            for j in range(self.columns):
                element = b.load(b.gep(b_columns[j], [offset]), align=self.size)
                broadcast = b.shuffle_vector(
                    b.insert_element(undefined, element, I32(0)), undefined, splat
                )
                for v in range(self.vectors):
                    total = b.call(self.fmuladd, [a_vectors[v], broadcast, b.load(acc[j][v])])
                    b.store(total, acc[j][v])
        for j in range(self.columns):
            with b.if_then(b.icmp_signed("<", i64(j), cols)):
                for v in range(self.vectors):
                    at = vector_at(c, b.add(i64(v * width), b.mul(i64(j), ldc)))
                    b.call(self.masked_store, [b.load(acc[j][v]), at, I32(self.size), masks[v]])
        b.ret_void()
