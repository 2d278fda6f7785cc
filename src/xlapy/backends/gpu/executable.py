"""Running a compiled GPU program: transfers, the step runners, and the PTX loaded once.

The host walks the steps of a :class:`~.program.Sequence` and enqueues each on the
device's stream (kernel launches, cuBLAS calls); it waits for the device only where the
program's control flow needs a value (a while loop's predicate, a conditional's branch
index) and when the results are copied back. Runners are found by step kind in
:data:`RUNNERS`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from collections.abc import Sequence as Seq
from typing import Any

import numpy as np

from ...errors import InvalidArgumentError
from ...hlo.module import HloModule
from ...literal import Literal
from ...shape import Shape
from ..cpu.layout_normalization import default_layout_shape
from .program import ConditionalDetail, GemmDetail, Sequence, Step, WhileDetail
from .runtime.cublas import Cublas
from .runtime.driver import get_device


class GpuProgram:
    """What compiling produced: the sequences, the PTX and the optimized module."""

    def __init__(
        self,
        entry: Sequence,
        ptx: str,
        arch: str,
        optimized: HloModule,
        kernel_count: int,
    ) -> None:
        self.entry = entry
        self.ptx = ptx
        self.arch = arch
        self.optimized = optimized
        self.kernel_count = kernel_count


def _literal_leaves(literal: Literal) -> list[Literal]:
    if literal.is_tuple:
        return [leaf for e in literal.tuple_elements for leaf in _literal_leaves(e)]
    return [literal] if literal.is_array else []


def _rebuild(shape: Shape, arrays: Any) -> Literal:
    if shape.is_tuple:
        return Literal.make_tuple([_rebuild(s, arrays) for s in shape.tuple_shapes])
    if shape.is_token:
        return Literal.token()
    array = next(arrays)
    literal = Literal(default_layout_shape(shape), array.reshape(-1))
    if shape.layout is not None and literal.shape.layout != shape.layout:
        literal = literal.relayout(shape.layout)
    return literal


class GpuExecutable:
    """An executable of the GPU platform (the client's backend executable)."""

    def __init__(self, program: GpuProgram, options: Any, module: HloModule) -> None:
        self.program = program
        self.options = options
        self.hlo_module_after_optimizations = program.optimized
        self.fallback_ops: list[str] = []  # the GPU back-end has none, by design
        entry = module.entry.program_shape
        self._parameter_shapes = list(entry.parameters)
        self._result_shape = entry.result
        self._lock = threading.Lock()
        self._device: Any = None
        self._functions: dict[str, Any] = {}
        self._constants: dict[int, dict[int, Any]] = {}
        self._module: Any = None
        self._cublas: Any = None

    # -- loading ----------------------------------------------------------------------------
    def _load(self) -> Any:
        if self._device is None:
            device = get_device(getattr(self.options, "device_ordinal", 0))
            if device.arch != self.program.arch and _arch_number(device.arch) < _arch_number(
                self.program.arch
            ):
                raise InvalidArgumentError(
                    f"this program was compiled for {self.program.arch}, but device "
                    f"{device.ordinal} ({device.name}) is {device.arch}; compile with "
                    f"backend_options={{'gpu_arch': '{device.arch}'}}"
                )
            self._module = device.load_module(self.program.ptx) if self.program.ptx else None
            self._device = device
        return self._device

    def _function(self, name: str) -> Any:
        function = self._functions.get(name)
        if function is None:
            function = self._functions[name] = self._module.function(name)
        return function

    def _constants_of(self, sequence: Sequence) -> dict[int, Any]:
        key = id(sequence)
        loaded = self._constants.get(key)
        if loaded is None:
            loaded = {
                slot: self._device.to_device(np.ascontiguousarray(array).reshape(-1))
                for slot, array in sequence.constant_slots.items()
            }
            self._constants[key] = loaded
        return loaded

    def cublas(self) -> Any:
        if self._cublas is None:  # libcublas loads when the first dot runs
            self._cublas = Cublas(self._device)
        return self._cublas

    # -- running ----------------------------------------------------------------------------
    def execute(self, arguments: Seq[Literal]) -> Literal:
        with self._lock:
            device = self._load()
            buffers = []
            for literal in arguments:
                for leaf in _literal_leaves(literal):
                    if leaf.shape.layout is not None and not _row_major(leaf.shape):
                        leaf = leaf.relayout(list(reversed(range(leaf.shape.rank))))
                    buffers.append(device.to_device(np.ascontiguousarray(leaf.data).reshape(-1)))
            results = self.run(self.program.entry, buffers)
            infos = [self.program.entry.slot_info[s] for s in self.program.entry.result_slots]
            arrays = [
                device.to_host(buffer, info.dtype, (int(np.prod(info.shape, dtype=np.int64)),))
                for buffer, info in zip(results, infos, strict=True)
            ]
            return _rebuild(self._result_shape, iter(arrays))

    @property
    def device(self) -> Any:
        """The device this executable runs on (loads the program on first use)."""
        with self._lock:
            return self._load()

    def execute_buffers(self, buffers: Seq[Any]) -> list[Any]:
        """Run on device buffers (one per parameter leaf, ``device.to_device(array)``),
        returning one device buffer per result leaf, with no host transfer: chained calls
        and benchmarks keep their data on the GPU. The work is queued on the device's
        stream; ``device.synchronize()`` or ``device.to_host`` waits for it."""
        with self._lock:
            self._load()
            return self.run(self.program.entry, list(buffers))

    def run(self, sequence: Sequence, arguments: list[Any]) -> list[Any]:
        frame: list[Any] = [None] * len(sequence.slot_info)
        for slot, buffer in zip(sequence.parameter_slots, arguments, strict=True):
            frame[slot] = buffer
        for slot, buffer in self._constants_of(sequence).items():
            frame[slot] = buffer
        for slot in sequence.release_at_start:
            frame[slot] = None
        for step in sequence.steps:
            RUNNERS[step.kind](self, sequence, step, frame)
            for slot in step.release:
                frame[slot] = None
        return [frame[slot] for slot in sequence.result_slots]

    def allocate(self, sequence: Sequence, slot: int) -> Any:
        return self._device.allocate(sequence.slot_info[slot].nbytes)


def _row_major(shape: Shape) -> bool:
    layout = shape.layout
    return layout is None or tuple(layout.minor_to_major) == tuple(reversed(range(shape.rank)))


def _arch_number(arch: str) -> int:
    return int("".join(c for c in arch if c.isdigit()) or 0)


# -- step runners ---------------------------------------------------------------------------------
Runner = Callable[[GpuExecutable, Sequence, Step, list], None]


def _run_kernel(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    outputs = [exe.allocate(sequence, s) for s in step.outputs]
    for slot, buffer in zip(step.outputs, outputs, strict=True):
        frame[slot] = buffer
    plan = step.detail
    if plan is None:
        return
    pointers = [frame[s].pointer for s in step.inputs] + [o.pointer for o in outputs]
    scratch = None
    if plan.scratch_bytes:
        scratch = exe._device.allocate(plan.scratch_bytes)
        pointers.append(scratch.pointer)
    for launch in plan.launches:
        exe._device.launch(
            exe._function(launch.kernel), launch.grid, launch.block, pointers, launch.shared_bytes
        )
    del scratch  # back to the allocator; later work on the stream runs after these launches


def _run_update(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    """A dynamic-update-slice kernel writes the update's window into a copy of operand 0
    (operands are never written: another slot may name the same buffer)."""
    plan, source = step.detail
    (out_slot,) = step.outputs
    out = exe.allocate(sequence, out_slot)
    exe._device.copy(out, frame[step.inputs[source]], out.nbytes)
    frame[out_slot] = out
    pointers = [frame[s].pointer for s in step.inputs] + [out.pointer]
    for launch in plan.launches:
        exe._device.launch(
            exe._function(launch.kernel), launch.grid, launch.block, pointers, launch.shared_bytes
        )


def _run_gemm(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    detail: GemmDetail = step.detail
    (out_slot,) = step.outputs
    out = exe.allocate(sequence, out_slot)
    frame[out_slot] = out
    if detail.m * detail.n * detail.batch == 0:
        return
    if detail.k == 0:
        exe._device.memset(out, 0, out.nbytes)
        return
    lhs, rhs = (frame[s] for s in step.inputs)
    exe.cublas().gemm(
        detail.dtype,
        m=detail.m,
        n=detail.n,
        k=detail.k,
        a=lhs.pointer,
        b=rhs.pointer,
        c=out.pointer,
        transpose_a=detail.transpose_a,
        transpose_b=detail.transpose_b,
        batch=detail.batch,
        stride_a=detail.m * detail.k,
        stride_b=detail.k * detail.n,
        stride_c=detail.m * detail.n,
    )


def _run_while(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    detail: WhileDetail = step.detail
    state = [frame[s] for s in step.inputs]
    device = exe._device
    while True:
        (predicate,) = exe.run(detail.condition, state)
        if not bool(device.read_scalar(predicate, np.bool_)):
            break
        state = exe.run(detail.body, state)
    for slot, buffer in zip(step.outputs, state, strict=True):
        frame[slot] = buffer


def _run_conditional(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    detail: ConditionalDetail = step.detail
    selector_slot, *operand_slots = step.inputs
    info = sequence.slot_info[selector_slot]
    selector = exe._device.read_scalar(frame[selector_slot], info.dtype)
    n = len(detail.branches)
    if detail.index_is_pred:
        index = 0 if bool(selector) else 1
    else:
        index = int(selector)
        if not 0 <= index < n:
            index = n - 1
    start = sum(detail.branch_leaf_counts[:index])
    arguments = [frame[s] for s in operand_slots[start : start + detail.branch_leaf_counts[index]]]
    results = exe.run(detail.branches[index], arguments)
    for slot, buffer in zip(step.outputs, results, strict=True):
        frame[slot] = buffer


def _run_alias(exe: GpuExecutable, sequence: Sequence, step: Step, frame: list) -> None:
    frame[step.outputs[0]] = frame[step.inputs[0]]


RUNNERS: dict[str, Runner] = {
    "alias": _run_alias,
    "kernel": _run_kernel,
    "update": _run_update,
    "gemm": _run_gemm,
    "while": _run_while,
    "conditional": _run_conditional,
}

__all__ = ["GpuExecutable", "GpuProgram", "RUNNERS"]
