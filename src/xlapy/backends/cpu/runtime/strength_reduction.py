"""LLVM's loop strength reduction: off for programs, on for the GEMM library, AOT objects
and GPU kernels.

Why: loop strength reduction (LSR, a pass of the code generator) was 15-30% of the code
generator's time on the benchmark programs. Turned off, the 16 workloads compiled in
0.88x the time, geometric mean, and ran just as fast (run-time ratio 1.00). The
exception is the GEMM's micro-kernels, whose many pointer increments LSR folds into
addressing modes: without it conv2d ran 1.5x slower. The GEMM library is compiled
once per machine, so it keeps LSR. So do AOT objects, where the GEMM is compiled into
the object, and GPU kernels, which are not measured without it.

LLVM reads the switch (``-disable-lsr``, a ``cl::opt``) from process-wide state each
time it builds a code generator. So every code generation runs inside
:func:`section`: any number of sections with the same setting run together, and a
section with the other setting waits until they end and then flips the switch. The
code made at each call site therefore does not depend on what other threads are
compiling. A thread must not enter a section while it holds a lock that another
section holder may wait for (jit takes its lock inside the section, never around it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import llvmlite.binding as llvm

_condition = threading.Condition()
_active = 0
_current = True  # LLVM's default: LSR runs


@contextmanager
def section(enabled: bool) -> Iterator[None]:
    """Run code generation with LSR ``enabled`` (or not)."""
    global _active, _current
    with _condition:
        while _active and _current != enabled:
            _condition.wait()
        if _current != enabled:
            llvm.set_option("xlapy", f"-disable-lsr={'false' if enabled else 'true'}")
            _current = enabled
        _active += 1
    try:
        yield
    finally:
        with _condition:
            _active -= 1
            if not _active:
                _condition.notify_all()
