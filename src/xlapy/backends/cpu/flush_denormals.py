"""Denormals flushed to zero, as XLA:CPU computes: the FTZ and DAZ bits of x86's MXCSR.

XLA:CPU runs every execution with the flush-to-zero (FTZ: a denormal result becomes
a zero of its sign) and denormals-are-zero (DAZ: a denormal input reads as a zero)
bits set, on the calling thread and on its pool's threads, and puts the caller's mode
back afterwards (tsl's ScopedFlushDenormal). A JAX program sees it: ``x * 2`` of
``1e-39f`` is 0, ``sqrt`` of a denormal is 0, a denormal compares equal to 0.

With ``CpuOptions.flush_denormals`` the native code does the same, in the code
itself rather than around the Python call, so that every way into it (the fast
entry, the general path, replicas in threads) is covered: the entry function saves
the caller's MXCSR, sets FTZ|DAZ, and restores the saved word before each of its
returns, error returns included (``restore_at_returns``); a task handed to
``xlapy_parallel_for`` runs through a wrapper that does the same on the worker
(``flushing_task``), so pool threads go back to their own mode between tasks.
Without the option none of this is emitted: the code computes IEEE denormals, as the
interpreter (the per-op oracle) does.

Not covered: BLAS's own threads (scipy's OpenBLAS runs a large GEMM on threads xlapy
does not own, which keep IEEE denormals), and LLVM's constant folding, which folds
with IEEE denormals (XLA's constant folding does too).
"""

from __future__ import annotations

from llvmlite import ir

from ...errors import InvalidArgumentError
from .llvm_types import I8_PTR, I32, KERNEL_TYPE, VOID

MXCSR_DAZ = 1 << 6  # denormal inputs read as zero
MXCSR_FTZ = 1 << 15  # denormal results written as zero
FLUSH_BITS = MXCSR_FTZ | MXCSR_DAZ

_X86_ARCHES = ("x86_64", "amd64", "i386", "i486", "i586", "i686")


def require_x86(target: object, triple: str) -> None:
    """Refuse ``flush_denormals`` where there is no MXCSR to set."""
    arch = triple.split("-", 1)[0].lower()
    if arch not in _X86_ARCHES:
        raise InvalidArgumentError(
            f"CpuOptions.flush_denormals sets the FTZ and DAZ bits of x86's MXCSR, but the "
            f"CPU target {target} ({triple}) is not x86; compile with flush_denormals=False"
        )


def _intrinsic(module: ir.Module, name: str) -> ir.Function:
    existing = module.globals.get(name)
    if existing is not None:
        return existing
    return ir.Function(module, ir.FunctionType(VOID, [I8_PTR]), name)


def _mxcsr_word(b: ir.IRBuilder, name: str) -> ir.Value:
    """An alloca'd i32 (in the function's entry block) for an MXCSR word."""
    with b.goto_entry_block():
        entry = b.function.entry_basic_block
        if entry.instructions:
            b.position_before(entry.instructions[0])
        return b.alloca(I32, name=name)


def enter_flushed(b: ir.IRBuilder) -> ir.Value:
    """Save the caller's MXCSR, then set FTZ|DAZ; returns the saved word's address,
    for ``restore``."""
    module = b.module
    saved = _mxcsr_word(b, "mxcsr.saved")
    flushed = _mxcsr_word(b, "mxcsr.flushed")
    b.call(_intrinsic(module, "llvm.x86.sse.stmxcsr"), [b.bitcast(saved, I8_PTR)])
    b.store(b.or_(b.load(saved), I32(FLUSH_BITS)), flushed)
    b.call(_intrinsic(module, "llvm.x86.sse.ldmxcsr"), [b.bitcast(flushed, I8_PTR)])
    return saved


def save(b: ir.IRBuilder, into: ir.Value) -> None:
    """Store this thread's MXCSR word at ``into`` (an i32 slot)."""
    b.call(_intrinsic(b.module, "llvm.x86.sse.stmxcsr"), [b.bitcast(into, I8_PTR)])


def enter_word(b: ir.IRBuilder, word: ir.Value) -> ir.Value:
    """Save this thread's MXCSR, then run under ``word`` (an i32: another thread's
    mode, so that pool tasks round as their caller does); returns the saved word's
    address, for ``restore``."""
    saved = _mxcsr_word(b, "mxcsr.saved")
    wanted = _mxcsr_word(b, "mxcsr.wanted")
    save(b, saved)
    b.store(word, wanted)
    b.call(_intrinsic(b.module, "llvm.x86.sse.ldmxcsr"), [b.bitcast(wanted, I8_PTR)])
    return saved


def restore(b: ir.IRBuilder, saved: ir.Value) -> None:
    """Load the caller's whole MXCSR word back (mode and status flags)."""
    b.call(_intrinsic(b.module, "llvm.x86.sse.ldmxcsr"), [b.bitcast(saved, I8_PTR)])


def restore_at_returns(function: ir.Function, saved: ir.Value) -> None:
    """Restore the caller's MXCSR before every ``ret`` of ``function``, however many
    error paths its emitters gave it."""
    for block in function.blocks:
        terminator = block.terminator if block.is_terminated else None
        if terminator is not None and terminator.opname == "ret":
            b = ir.IRBuilder(block)
            b.position_before(terminator)
            restore(b, saved)


def flushing_task(module: ir.Module, kernel: ir.Function, name: str) -> ir.Function:
    """``name(buffers, start, stop)``: ``kernel`` run with FTZ|DAZ set on whichever
    thread runs it, that thread's own MXCSR restored afterwards."""
    wrapper = ir.Function(module, KERNEL_TYPE, name)
    wrapper.linkage = "internal"
    b = ir.IRBuilder(wrapper.append_basic_block("entry"))
    saved = enter_flushed(b)
    b.call(kernel, list(wrapper.args))
    restore(b, saved)
    b.ret_void()
    return wrapper


__all__ = [
    "FLUSH_BITS",
    "MXCSR_DAZ",
    "MXCSR_FTZ",
    "enter_flushed",
    "flushing_task",
    "require_x86",
    "restore",
    "restore_at_returns",
]
