"""A GEMM split by rows over xlapy's own thread pool, each piece a single-threaded GEMM
(xlapy's own, or a BLAS call with OpenBLAS told to use one thread).

Why: OpenBLAS threads a GEMM itself, with its own pool whose threads spin on the
cores between calls and synchronize inside each call; on this two-core machine that
costs much of a short GEMM (a profile of a 1024-point FFT, GEMMs of [8192, 32] x
[32, 32], spent 43% of its time in OpenBLAS's thread server and waits). Cutting the
rows of C into chunks for the pool xlapy's loops already use, and telling OpenBLAS to
use one thread for each chunk (``openblas_set_num_threads_local``, which only affects
the calling thread), runs the same kernels without that synchronization. Where
scipy's BLAS is not an OpenBLAS with that function, GEMMs stay OpenBLAS's own.
"""

from __future__ import annotations

from collections.abc import Callable

from llvmlite import ir

from ..ir_support import for_range, i64
from ..llvm_types import I8_PTR, I32
from ..runtime import jit
from ..runtime.blas import SET_THREADS_LOCAL_SYMBOL, set_threads_local_address
from .loops import Kernel


def single_threaded(b: ir.IRBuilder, call: object) -> None:
    """Run ``call()`` (which emits a BLAS call) with OpenBLAS on one thread for this
    thread, restoring the thread's previous setting after it."""
    address = set_threads_local_address()
    if address is None:
        call()  # type: ignore[operator]
        return
    module = b.block.function.module
    symbol = SET_THREADS_LOCAL_SYMBOL
    jit.register_symbol(symbol, address)
    setter = module.globals.get(symbol)
    if setter is None:
        setter = ir.Function(module, ir.FunctionType(I32, [I32]), symbol)
    previous = b.call(setter, [I32(1)])
    call()  # type: ignore[operator]
    b.call(setter, [previous])


BlockEmitter = Callable[[ir.IRBuilder, list[ir.Value], ir.Value, ir.Value, ir.Value], None]


def emit_row_blocks(
    fe: object,
    name: str,
    pointers: list[ir.Value],
    rows: int,
    block: int,
    emit_block: BlockEmitter,
    scratch_bytes: int = 0,
) -> None:
    """Rows ``[0, rows)`` in blocks of at most ``block``, spread over the pool:
    ``emit_block(b, buffers, first_row, count_at, scratch)`` emits the BLAS calls of one
    block (``count_at``: an i8* to the i32 row count, as BLAS takes sizes; ``scratch``:
    ``scratch_bytes`` of the running thread's stack), which run with OpenBLAS
    single-threaded (xlapy's GEMM stays on the task's thread by itself). The buffers may
    alias one another."""
    kernel = Kernel(fe, name, len(pointers), aliased=range(len(pointers)))
    b = kernel.b
    count_slot = b.alloca(I32)
    count_at = b.bitcast(count_slot, I8_PTR)
    scratch = b.alloca(ir.IntType(8), i64(max(1, scratch_bytes)))
    scratch.align = 64
    span = b.sub(kernel.stop, kernel.start)
    blocks = b.udiv(b.add(span, i64(block - 1)), i64(block))

    def body() -> None:
        with for_range(b, 0, blocks, "block") as k:
            first = b.add(kernel.start, b.mul(k, i64(block)))
            left = b.sub(kernel.stop, first)
            count = b.select(b.icmp_signed("<", left, i64(block)), left, i64(block))
            b.store(b.trunc(count, I32), count_slot)
            emit_block(b, kernel.buffers, first, count_at, scratch)

    if getattr(fe.m, "gemm_loops", False):  # type: ignore[attr-defined]
        body()  # xlapy's GEMM: inside a task it runs on that thread anyway
    else:
        single_threaded(b, body)
    kernel.finish()
    fe.call_kernel(kernel.function, pointers, rows, True)  # type: ignore[attr-defined]


def at(b: ir.IRBuilder, base: ir.Value, elements: ir.Value, element_bytes: int) -> ir.Value:
    """``base`` advanced by ``elements`` elements of ``element_bytes``."""
    return b.gep(base, [b.mul(elements, i64(element_bytes))])


__all__ = ["at", "emit_row_blocks", "single_threaded"]
