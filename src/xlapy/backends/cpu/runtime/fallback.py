"""Instructions without a native emitter run through the interpreter's kernel, in place.

The native code calls ``xlapy_fallback(ctx, thunk, pointers)`` with the leaf
buffers of the operands and of the result; the Python side wraps them as numpy
arrays (operands read-only), runs the interpreter kernel of the instruction,
and writes the result into the result buffers. Slow, but exactly the
interpreter's semantics, so an executable is always complete: part 2 of the
compiler replaces these one by one (``executable.fallback_ops`` lists them).

The same call into Python serves host callbacks (:class:`HostCallbackThunk`):
a custom call whose target is a Python function is called with read-only
views of the operand buffers and its results are written into the result
buffers. That is the target's own code, not a stand-in for missing native
code, so those are listed in ``executable.host_callbacks``, not in
``fallback_ops``.

An exception in a fallback or callback is kept on the running execution and
reported as status 1, which every native caller returns at once; the
executable then raises it.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir

from ....custom_call import lookup_custom_call
from ....errors import InternalError, UnimplementedError
from ....evaluator import KERNELS, TOKEN, EvalContext, array_for, value_of_shape
from ....hlo.instruction import HloInstruction
from ....shape import Shape
from ..ir_support import i64, pointer_table


@dataclass
class FallbackThunk:
    instruction: HloInstruction
    reason: str

    def run(self, ctx: EvalContext, pointers: Any) -> None:
        position = [0]
        operands = [
            _read_tree(o.shape, pointers, position, writable=False)
            for o in self.instruction.operands
        ]
        result = KERNELS[self.instruction.opcode](ctx, self.instruction, operands)
        _write_tree(self.instruction.shape, result, pointers, position)


@dataclass
class HostTransferThunk(FallbackThunk):
    """infeed, outfeed, send and recv: the runtime's queue kernels (shared with the
    interpreter) on copies of the operands, since a queue may hold a value after the
    native code has reused its buffer."""

    def run(self, ctx: EvalContext, pointers: Any) -> None:
        position = [0]
        operands = [
            _copy_tree(_read_tree(o.shape, pointers, position, writable=False))
            for o in self.instruction.operands
        ]
        result = KERNELS[self.instruction.opcode](ctx, self.instruction, operands)
        _write_tree(self.instruction.shape, result, pointers, position)


@dataclass
class InterruptThunk:
    """Raises what a Python signal handler raised while a native loop of ``instruction``
    polled for interrupts (``runtime.native_runtime.xlapy_poll_interrupt``), so that the run keeps
    it as its error like any other: ``pointers`` holds the exception's type, value and
    traceback as new references (or null), which this takes over."""

    instruction: HloInstruction
    reason: str = "interrupt"

    def run(self, ctx: EvalContext, pointers: Any) -> None:
        taken = []
        for k in range(3):
            address = pointers[k]
            taken.append(ctypes.cast(address, ctypes.py_object).value if address else None)
            if address:
                ctypes.pythonapi.Py_DecRef(ctypes.c_void_p(address))
        kind, value, traceback = taken
        if not isinstance(value, BaseException):
            value = kind() if isinstance(kind, type) else KeyboardInterrupt()
        raise value.with_traceback(traceback)


def _copy_tree(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_copy_tree(v) for v in value)
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value


@dataclass
class HostCallbackThunk:
    """A Python custom-call target, called on the executable's buffers.

    The target is looked up by name at each call, as the interpreter does, so
    registering another function under the name takes effect.
    """

    instruction: HloInstruction
    reason: str = "host callback"

    def run(self, ctx: EvalContext, pointers: Any) -> None:
        name = self.instruction.custom_call_target or ""
        target = lookup_custom_call(name, "cpu")
        if target.kind != "python":
            raise UnimplementedError(
                f"custom-call {self.instruction.name}: target {name!r} was compiled as a "
                f"Python function and is now a {target.kind} target; compile again"
            )

        position = [0]
        operands = [
            _read_tree(o.shape, pointers, position, writable=False)
            for o in self.instruction.operands
        ]
        result = value_of_shape(
            target.function(*operands),
            self.instruction.shape,
            f"custom-call {self.instruction.name} ({name!r}) result",
        )
        _write_tree(self.instruction.shape, result, pointers, position)


def _array_at(address: int, shape: Shape, writable: bool) -> np.ndarray:
    dtype = shape.element_type.dtype
    count = shape.element_count()
    if count == 0:
        return np.zeros(shape.dimensions, dtype)
    buffer = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
    array = np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape.dimensions)
    if not writable:
        array.flags.writeable = False
    return array


def _read_tree(shape: Shape, pointers: Any, position: list[int], writable: bool) -> Any:
    if shape.is_tuple:
        return tuple(_read_tree(s, pointers, position, writable) for s in shape.tuple_shapes)
    if not shape.is_array:
        return TOKEN
    address = pointers[position[0]]
    position[0] += 1
    return _array_at(address, shape, writable)


def _write_tree(shape: Shape, value: Any, pointers: Any, position: list[int]) -> None:
    if shape.is_tuple:
        # An empty tuple holds nothing (an async state's unbound output, whatever its value).
        if shape.tuple_shapes:
            for s, v in zip(shape.tuple_shapes, value, strict=True):
                _write_tree(s, v, pointers, position)
        return
    if not shape.is_array:
        return
    address = pointers[position[0]]
    position[0] += 1
    if shape.element_count():
        np.copyto(_array_at(address, shape, True), array_for(shape, value), casting="unsafe")


def emit_fallback(fe: Any, instruction: HloInstruction, reason: str) -> None:
    """Call the interpreter's kernel for ``instruction`` from native code."""
    if instruction.opcode not in KERNELS:
        raise UnimplementedError(
            f"the CPU backend cannot run {instruction.opcode.value} {instruction.name}: it has "
            f"no native emitter ({reason}) and the interpreter has no kernel for it"
        )
    fe.m.fallback_ops.add(instruction.opcode.value)
    emit_host_call(fe, instruction, FallbackThunk(instruction, reason))


def emit_host_callback(fe: Any, instruction: HloInstruction) -> None:
    """Call the instruction's Python custom-call target from native code."""
    fe.m.host_callbacks.add(instruction.custom_call_target or "")
    emit_host_call(fe, instruction, HostCallbackThunk(instruction))


def emit_host_call(fe: Any, instruction: HloInstruction, thunk: Any) -> None:
    """Native code that hands the leaf buffers of ``instruction`` to ``thunk.run``."""
    pointers = fe.operand_leaf_pointers(instruction) + fe.leaf_pointers(instruction)
    emit_thunk_call(fe, thunk, pointers)


def emit_thunk_call(fe: Any, thunk: Any, pointers: list[ir.Value]) -> None:
    """Native code that calls ``thunk.run(ctx, pointers)`` in Python and returns its
    failure status from the native function if it raised."""
    m = fe.m
    thunk_id = len(m.thunks)
    m.thunks.append(thunk)
    table = pointer_table(fe.b, pointers, name="host_call_args")
    status = fe.b.call(m.fallback_function, [fe.ctx, i64(thunk_id), table])
    fe.check(status)


# -- the Python side ------------------------------------------------------------------------


class Run:
    """One execution in progress: its device context and the first error of a fallback."""

    def __init__(self, thunks: list[FallbackThunk], ctx: EvalContext) -> None:
        self.thunks = thunks
        self.ctx = ctx
        self.error: BaseException | None = None


class RunContext(ctypes.Structure):
    """What the native code's ``ctx`` argument points to: the run's key (for the calls
    into Python), the device it runs as (for replica-id and partition-id), its RNG
    state (an :class:`RngCell`'s two words) and, only while a run is profiled, the
    buffer that code compiled with ``CpuOptions.profile`` records its timestamps in
    (``profiling.EventBuffer``; null otherwise, and then nothing is recorded)."""

    _fields_ = [
        ("key", ctypes.c_int64),
        ("replica_id", ctypes.c_int64),
        ("partition_id", ctypes.c_int64),
        ("rng_state", ctypes.c_void_p),
        ("profile", ctypes.c_void_p),
    ]


class RngCell:
    """A device's 128-bit RNG counter in native memory (low word first), seen by the
    interpreter's kernels as the one-element list they keep it in (``cell[0]``), so
    native code and fallback kernels advance the same counter."""

    def __init__(self, seed: int) -> None:
        self.words = (ctypes.c_uint64 * 2)()
        self[0] = seed

    def __getitem__(self, index: int) -> int:
        if index != 0:
            raise IndexError(index)
        return int(self.words[0]) | (int(self.words[1]) << 64)

    def __setitem__(self, index: int, value: int) -> None:
        if index != 0:
            raise IndexError(index)
        value &= (1 << 128) - 1
        self.words[0], self.words[1] = value & ((1 << 64) - 1), value >> 64

    @property
    def address(self) -> int:
        return ctypes.addressof(self.words)


# Byte offsets of RunContext's fields, for the native code that reads them.
CONTEXT_OFFSETS = {name: getattr(RunContext, name).offset for name, _ in RunContext._fields_}


_runs: dict[int, Run] = {}
_ids = itertools.count(1)
_runs_lock = threading.Lock()


def register_run(run: Run) -> int:
    with _runs_lock:
        key = next(_ids)
        _runs[key] = run
    return key


def unregister_run(key: int) -> None:
    with _runs_lock:
        _runs.pop(key, None)


# The status of a call into Python that never ran: a signal handler raised (Ctrl-C's
# KeyboardInterrupt) as the callback was entered, before any of its code could catch it.
INTERRUPTED = 3


@ctypes.CFUNCTYPE(
    None,
    ctypes.c_void_p,
    ctypes.c_int64,
    ctypes.POINTER(ctypes.c_void_p),
    ctypes.POINTER(ctypes.c_int32),
)
def _dispatch(ctx: int, thunk: int, pointers: Any, status: Any) -> None:
    """Run thunk ``thunk`` of the run ``ctx`` names; the outcome goes to ``status[0]``,
    which the native caller set to ``INTERRUPTED`` (``runtime.native_runtime``'s ``xlapy_fallback``):
    Python runs pending signal handlers on entering a function, and an exception raised
    there escapes every ``try`` here, so only a status written by the caller survives it
    (a returned one would be whatever the return register held)."""
    run = _runs.get(ctypes.c_int64.from_address(ctx).value) if ctx else None
    if run is None:
        status[0] = 2
        return
    try:
        run.thunks[thunk].run(run.ctx, pointers)
        status[0] = 0
    except BaseException as e:  # noqa: BLE001  (re-raised by the executable after the run)
        if run.error is None:
            run.error = e
        status[0] = 1


def dispatch_address() -> int:
    return ctypes.cast(_dispatch, ctypes.c_void_p).value or 0


def status_error(status: int, error: BaseException | None) -> BaseException:
    """What a run that returned ``status`` raises: the error a thunk kept, else for a call
    into Python that a signal handler stopped at its entry a ``KeyboardInterrupt``."""
    if error is not None:
        return error
    if status == INTERRUPTED:
        return KeyboardInterrupt("interrupted while native code called into Python")
    return InternalError(f"native code returned status {status}")


__all__ = [
    "CONTEXT_OFFSETS",
    "FallbackThunk",
    "HostCallbackThunk",
    "HostTransferThunk",
    "InterruptThunk",
    "RngCell",
    "RunContext",
    "Run",
    "dispatch_address",
    "emit_fallback",
    "emit_host_call",
    "emit_host_callback",
    "emit_thunk_call",
    "register_run",
    "unregister_run",
]
