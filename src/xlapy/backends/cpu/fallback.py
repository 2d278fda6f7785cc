"""Instructions without a native emitter run through the interpreter's kernel, in place.

The native code calls ``xlapy_fallback(ctx, thunk, pointers)`` with the leaf
buffers of the operands and of the result; the Python side wraps them as numpy
arrays (operands read-only), runs the interpreter kernel of the instruction,
and writes the result into the result buffers. Slow, but exactly the
interpreter's semantics, so an executable is always complete: part 2 of the
compiler replaces these one by one (``executable.fallback_ops`` lists them).

An exception in a fallback is kept on the running execution and reported as
status 1, which every native caller returns at once; the executable then
raises it.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np
from llvmlite import ir

from ...hlo.instruction import HloInstruction
from ...shape import Shape
from ..interpreter.evaluator import KERNELS, TOKEN, EvalContext, array_for
from .ir_support import i64, pointer_table


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
    from ...errors import UnimplementedError

    if instruction.opcode not in KERNELS:
        raise UnimplementedError(
            f"the CPU backend cannot run {instruction.opcode.value} {instruction.name}: it has "
            f"no native emitter ({reason}) and the interpreter has no kernel for it"
        )
    m = fe.m
    thunk_id = len(m.thunks)
    m.thunks.append(FallbackThunk(instruction, reason))
    m.fallback_ops.add(instruction.opcode.value)
    pointers = fe.operand_leaf_pointers(instruction) + fe.leaf_pointers(instruction)
    table = pointer_table(fe.b, pointers, name="fallback_args")
    status = fe.b.call(m.fallback_function, [fe.ctx, i64(thunk_id), table])
    fe.check(status)


# -- the Python side ------------------------------------------------------------------------


class Run:
    """One execution in progress: its device context and the first error of a fallback."""

    def __init__(self, thunks: list[FallbackThunk], ctx: EvalContext) -> None:
        self.thunks = thunks
        self.ctx = ctx
        self.error: BaseException | None = None


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


@ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p))
def _dispatch(ctx: int, thunk: int, pointers: Any) -> int:
    run = _runs.get(ctx or 0)
    if run is None:
        return 2
    try:
        run.thunks[thunk].run(run.ctx, pointers)
        return 0
    except BaseException as e:  # noqa: BLE001  (re-raised by the executable after the run)
        if run.error is None:
            run.error = e
        return 1


def dispatch_address() -> int:
    return ctypes.cast(_dispatch, ctypes.c_void_p).value or 0


__all__ = [
    "FallbackThunk",
    "Run",
    "dispatch_address",
    "emit_fallback",
    "register_run",
    "unregister_run",
]
del ir
