"""Emit one LLVM module for a whole HLO module: a native function per computation.

Every computation the native code runs (the entry, while bodies and
conditions, conditional branches, called computations) becomes
``i32 f(i8* ctx, i8** args, i8** results, i8* arena)``: ``args`` and
``results`` are the leaf buffers of its parameters and its result, ``arena``
holds every temporary (see ``buffers``), and the return value is 0 or the
status of a failed fallback. The entry's function is what an execution calls,
so a run never returns to Python except for the instructions that have no
native emitter yet (``runtime.fallback``).

Per instruction, the emitter is chosen through tables: ``THUNK_EMITTERS``
(``emit.registry``, filled by the ``emit`` modules this module imports) for
instructions emitted whole (control flow, dot, sort, copies...), the loop
kernels of ``emit.loops`` for fusions and single elementwise or movement
instructions, and the fallback for everything else. An emitter that raises
``NotEmittable`` before it has touched the caller's function falls back too.
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from llvmlite import ir

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...shape import Shape
from .buffers import (
    ALIGNMENT,
    ComputationBuffers,
    Slot,
    ValueTree,
    assign_computation,
    leaves,
    tree_for_shape,
)
from .emit import (  # noqa: F401  (each emitter module registers its thunk emitters)
    collectives,
    control,
    control_custom_call,
    elementwise_bitcast,
    indexing_gather,
    indexing_scatter,
    indexing_update,
    linalg_conv,
    linalg_dot,
    linalg_fft_library,
    linalg_lapack,
    linalg_lapack_eig,
    linalg_solve,
    loops,
    movement_dynamic,
    random_state,
    reduce_library,
    reductions_window,
    sort_library,
    transfers,
)
from .emit.registry import THUNK_EMITTERS
from .emit.row_groups import emit_row_group, find_row_groups
from .flush_denormals import enter_flushed, flushing_task, restore_at_returns
from .ir_support import i64, load_pointer, pointer_table, typed_pointer
from .llvm_types import (
    COMPUTATION_TYPE,
    FALLBACK_TYPE,
    I8,
    I8_PTR,
    I8_PTR_PTR,
    I32,
    I64,
    KERNEL_TYPE,
    VOID,
    NotEmittable,
)
from .profiling import ProfileProbes, ProfileSite, site_for
from .runtime import fallback, guarded_memory, jit
from .runtime.native_runtime import worker_count

Op = HloOpcode

# Instructions that only name (part of) another value: no code.
NO_CODE = frozenset(
    {
        Op.PARAMETER,
        Op.CONSTANT,
        Op.TUPLE,
        Op.GET_TUPLE_ELEMENT,
        Op.OPTIMIZATION_BARRIER,
        Op.ADD_DEPENDENCY,
        Op.AFTER_ALL,
    }
)


class ModuleEmitter:
    """State shared by every function of one executable's LLVM module."""

    def __init__(self, module: HloModule, options: Any) -> None:
        self.hlo = module
        self.options = options
        self.ir = jit.new_module(module.name)
        self.keep_alive: list[np.ndarray] = []
        self.thunks: list[Any] = []  # fallback's thunks (index = thunk id)
        self.native_ops: set[str] = set()
        self.fallback_ops: set[str] = set()
        self.host_callbacks: set[str] = set()  # Python custom-call targets
        self.kernel_count = 0
        self.row_groups = 0  # runs of kernels executed row block by row block
        self.arena_size = 0
        # Guard mode (guarded_memory): arena offsets of the pages that must stay unmapped.
        self.guard = getattr(options, "guard_buffers", None)
        self.guard_pages: list[int] = []
        self.buffers: dict[int, ComputationBuffers] = {}
        self._functions: dict[int, ir.Function] = {}
        self._pending: list[tuple[HloComputation, ir.Function]] = []  # declared, not emitted
        self._names: set[str] = set()
        self.fallback_function = ir.Function(self.ir, FALLBACK_TYPE, "xlapy_fallback")
        self.parallel_for = ir.Function(
            self.ir,
            ir.FunctionType(VOID, [KERNEL_TYPE.as_pointer(), I8_PTR_PTR, I64, I64]),
            "xlapy_parallel_for",
        )
        self._memcpy = None
        self.donations = donations_of(module)
        # CpuOptions.flush_denormals: the entry runs with FTZ|DAZ, and so does every task
        # it hands to the thread pool (flush_denormals; kernel name -> its wrapper).
        self.flush_denormals = bool(getattr(options, "flush_denormals", False))
        self._flushing_tasks: dict[str, ir.Function] = {}
        # CpuOptions.profile: timestamps around every thunk (profiling); None leaves the
        # IR exactly as it is without profiling.
        self.profile: ProfileProbes | None = (
            ProfileProbes(self.ir) if getattr(options, "profile", False) else None
        )
        # Ahead-of-time code (CpuOptions.aot, xlapy.aot): constants become globals of the
        # module instead of addresses of this process's arrays, and dots call the loop GEMM
        # (CpuOptions.gemm="xlapy" selects that for the JIT too). ``overrides`` lets xlapy.aot
        # emit some opcodes its own way (custom calls as external C symbols).
        self.aot = bool(getattr(options, "aot", False))
        self.gemm_loops = self.aot or getattr(options, "gemm", "openblas") == "xlapy"
        self.overrides: dict[HloOpcode, Any] = {}
        self._constant_globals: dict[bytes, ir.GlobalVariable] = {}
        # Relocatable code (CpuOptions.persistent_cache_dir, and AOT objects): no address of
        # this process in the code, so that the object can be loaded by another process.
        # Constants and the scalar arguments of BLAS/LAPACK calls become globals; without
        # it the IR is exactly as before the persistent cache existed.
        self.relocatable = self.aot or bool(getattr(options, "persistent_cache_dir", None))
        self._host_globals: dict[int, ir.GlobalVariable] = {}

    @property
    def profile_sites(self) -> list[ProfileSite]:
        """What each recorded site number stands for (empty without profiling)."""
        return self.profile.sites if self.profile is not None else []

    # -- helpers ---------------------------------------------------------------------------
    def unique_name(self, base: str) -> str:
        name = "".join(c if c.isalnum() or c in "._" else "_" for c in base)
        candidate, n = name, 0
        while candidate in self._names:
            n += 1
            candidate = f"{name}.{n}"
        self._names.add(candidate)
        return candidate

    def reserve(self, size: int, guarded: bool = True, align: int = 1) -> int:
        """A private region of ``size`` bytes in the arena; returns its offset.

        In guard mode the region gets pages of its own next to a guard page; a
        computation's region (``guarded=False``) is page-aligned and holds its own
        guard pages already. Without guards every region is ALIGNMENT-aligned; with them a
        region is aligned to its element size (a whole number of elements ends at the guard
        page), so a region packing several element types must ask for ``align``."""
        if self.guard:
            top = guarded_memory.pages(self.arena_size)
            if not guarded:
                self.arena_size = top + guarded_memory.pages(size)
                return top
            offset, guard, self.arena_size = guarded_memory.place(top, size, self.guard, align)
            self.guard_pages.append(guard)
            return offset
        offset = self.arena_size
        self.arena_size += max(ALIGNMENT, -(-size // ALIGNMENT) * ALIGNMENT)
        return offset

    def constant_address(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        if self.guard:
            # Read-only and guarded: native code that writes a constant or reads past it
            # faults there.
            array = guarded_memory.guarded_copy(array, self.guard, read_only=True)
        elif array.nbytes == 0:
            array = np.zeros(1, np.uint8)
        self.keep_alive.append(array)
        return array.ctypes.data

    def constant_pointer(self, b: ir.IRBuilder, array: np.ndarray) -> ir.Value:
        if self.relocatable:
            return self.constant_global(array).bitcast(I8_PTR)
        return ir.Constant(I64, self.constant_address(array)).inttoptr(I8_PTR)

    def constant_global(self, array: np.ndarray) -> ir.GlobalVariable:
        """A private, read-only global holding ``array``'s bytes (64-byte aligned), one
        per distinct content: how ahead-of-time code carries its constants."""
        data = np.ascontiguousarray(array).tobytes() or b"\0"
        found = self._constant_globals.get(data)
        if found is None:
            kind = ir.ArrayType(I8, len(data))
            found = ir.GlobalVariable(self.ir, kind, self.unique_name("constant"))
            found.linkage = "private"
            found.global_constant = True
            found.align = ALIGNMENT
            found.initializer = ir.Constant(kind, bytearray(data))
            self._constant_globals[data] = found
        return found

    def host_data(self, data: ctypes.Array, offset: int = 0) -> ir.Value:  # type: ignore[type-arg]
        """An i8* to byte ``offset`` of ``data``, a small ctypes array native code passes by
        reference (BLAS's and LAPACK's scalar arguments): its address in this process,
        the array kept alive with the program; in relocatable code a private writable
        global with its bytes (writable as the array is: the callee gets the same rights)."""
        self.keep_alive.append(data)
        if not self.relocatable:
            return ir.Constant(I64, ctypes.addressof(data) + offset).inttoptr(I8_PTR)
        found = self._host_globals.get(id(data))
        if found is None:
            kind = ir.ArrayType(I8, ctypes.sizeof(data))
            found = ir.GlobalVariable(self.ir, kind, self.unique_name("host_data"))
            found.linkage = "private"
            found.align = 16
            found.initializer = ir.Constant(kind, bytearray(bytes(data)))
            self._host_globals[id(data)] = found
        pointer = found.bitcast(I8_PTR)
        return pointer.gep([i64(offset)]) if offset else pointer

    def pool_task(self, kernel: ir.Function) -> ir.Function:
        """What ``xlapy_parallel_for`` runs for ``kernel``: the kernel itself, or with
        ``flush_denormals`` a wrapper that sets FTZ|DAZ on the worker around it."""
        if not self.flush_denormals:
            return kernel
        if kernel.name not in self._flushing_tasks:
            name = self.unique_name(kernel.name + ".flushed")
            self._flushing_tasks[kernel.name] = flushing_task(self.ir, kernel, name)
        return self._flushing_tasks[kernel.name]

    def memcpy(self, b: ir.IRBuilder, dst: ir.Value, src: ir.Value, nbytes: int) -> None:
        if nbytes <= 0:
            return
        if self._memcpy is None:
            self._memcpy = self.ir.declare_intrinsic("llvm.memcpy", [I8_PTR, I8_PTR, I64])
        b.call(self._memcpy, [dst, src, i64(nbytes), ir.Constant(ir.IntType(1), 0)])

    # -- computations ----------------------------------------------------------------------
    def computation_function(self, computation: HloComputation) -> ir.Function:
        """The native function of ``computation``: declared on first request, its body
        emitted later by ``emit_entry``'s work list, so that computations nested in one
        another (a conditional in a while body in a conditional...) never nest emitter
        calls on Python's stack however deep the program goes."""
        key = id(computation)
        if key not in self._functions:
            function = ir.Function(self.ir, COMPUTATION_TYPE, self.unique_name(computation.name))
            function.linkage = "internal" if computation is not self.hlo.entry else "external"
            self._functions[key] = function
            self._pending.append((computation, function))
        return self._functions[key]

    def emit_entry(self) -> str:
        function = self.computation_function(self.hlo.entry)
        # Callers added later (the fast entry, an AOT object's interface) call it, not
        # inline it: inlined, its kernels were compiled a second time in each caller.
        function.attributes.add("noinline")
        with guarded_memory.checking_indices(bool(self.guard)):
            while self._pending:
                computation, pending = self._pending.pop()
                FunctionEmitter(self, computation, pending).emit()
        return function.name


def _leaf_offsets(shapes: list[Shape]) -> list[int]:
    offsets, total = [], 0
    for shape in shapes:
        offsets.append(total)
        total += len(_shape_leaves(shape))
    return offsets


def _shape_leaves(shape: Shape, index: tuple = ()) -> list[tuple]:
    if shape.is_tuple:
        return [
            leaf for k, s in enumerate(shape.tuple_shapes) for leaf in _shape_leaves(s, (*index, k))
        ]
    return [index] if shape.is_array else []


def donations_of(module: HloModule) -> dict[int, int]:
    """The module's input_output_alias as result leaf -> parameter leaf numbers."""
    entry = module.entry
    aliases = getattr(module, "input_output_alias", None)
    if aliases is None or not aliases.entries:
        return {}
    parameters = [p.shape for p in entry.parameters]
    offsets = _leaf_offsets(parameters)
    results = _shape_leaves(entry.root.shape)
    out: dict[int, int] = {}
    for alias in aliases.entries:
        number = alias.parameter_number
        output = tuple(alias.output_index)
        if entry.root.shape.is_array and output == (0,):
            output = ()  # JAX writes {0} for the one output of a non-tuple root
        if number >= len(parameters) or output not in results:
            continue
        inner = _shape_leaves(parameters[number])
        if tuple(alias.parameter_index) not in inner:
            continue
        out[results.index(output)] = offsets[number] + inner.index(tuple(alias.parameter_index))
    return out


def _parameter_trees(computation: HloComputation) -> list[ValueTree]:
    counter = [0]

    def make(shape: Shape) -> Slot:
        slot = Slot("param", shape, index=counter[0])
        counter[0] += 1
        return slot

    return [tree_for_shape(p.shape, make) for p in computation.parameters]


class FunctionEmitter:
    """Emits the native function of one computation, instruction by instruction."""

    def __init__(
        self, module: ModuleEmitter, computation: HloComputation, function: ir.Function
    ) -> None:
        self.m = module
        self.computation = computation
        self.function = function
        self.ctx, self.args, self.results, self.arena_base = function.args
        self.recording: list | None = None  # kernel calls deferred by a row group
        self.row_mode: int | None = None
        for arg in (self.args, self.results, self.arena_base):
            arg.add_attribute("noalias")
        entry = function.append_basic_block("entry")
        self.b = ir.IRBuilder(entry)
        self.buffers = assign_computation(
            computation,
            parameter_trees=_parameter_trees(computation),
            result_shape=computation.root.shape,
            constant_data=lambda i: np.ascontiguousarray(i.literal.to_numpy()),
            can_run_in_place=loops.can_run_in_place,
            donations=module.donations if computation is module.hlo.entry else None,
            guard=module.guard,
        )
        size = self.buffers.region_size
        self.region = module.reserve(size, guarded=False) if size else 0
        module.guard_pages.extend(self.region + g for g in self.buffers.guard_pages)
        module.buffers[id(computation)] = self.buffers
        self._param_pointers: dict[int, ir.Value] = {}
        self._result_pointers: dict[int, ir.Value] = {}
        # The caller's MXCSR, saved by the entry of a flush_denormals program (the other
        # computations run inside the entry, hence in its mode).
        self._saved_mxcsr = None
        if module.flush_denormals and computation is module.hlo.entry:
            self._saved_mxcsr = enter_flushed(self.b)

    # -- values and pointers ---------------------------------------------------------------
    def value(self, instruction: HloInstruction) -> ValueTree:
        return self.buffers.value(instruction)

    def scalar_output(self, instruction: HloInstruction) -> ir.Value:
        """A typed pointer to the one 32-bit scalar ``instruction`` writes (replica-id,
        get-dimension-size...)."""
        out = self.value(instruction)
        if not isinstance(out, Slot) or instruction.shape.element_type.bit_width != 32:
            raise NotEmittable(f"{instruction.opcode.value} of shape {instruction.shape}")
        return typed_pointer(self.b, self.pointer(out), instruction.shape.element_type)

    def pointer(self, slot: Slot) -> ir.Value:
        """An i8* to ``slot``'s data, valid anywhere in this function."""
        if slot.kind == "param":
            return self._cached_load(self._param_pointers, self.args, slot.index)
        if slot.kind == "result":
            return self._cached_load(self._result_pointers, self.results, slot.index)
        if slot.kind == "constant":
            return self.m.constant_pointer(self.b, slot.constant)
        return self.b.gep(self.arena_base, [i64(self.region + slot.offset)])

    def _cached_load(self, cache: dict[int, ir.Value], table: ir.Value, index: int) -> ir.Value:
        if index not in cache:
            with self.b.goto_entry_block():
                entry = self.function.entry_basic_block
                if entry.instructions and entry.is_terminated:
                    self.b.position_before(entry.terminator)
                cache[index] = load_pointer(self.b, table, index)
        return cache[index]

    def leaf_pointers(self, instruction: HloInstruction) -> list[ir.Value]:
        return [self.pointer(s) for s in leaves(self.value(instruction))]

    def operand_leaf_pointers(self, instruction: HloInstruction) -> list[ir.Value]:
        out: list[ir.Value] = []
        for operand in instruction.operands:
            out.extend(self.leaf_pointers(operand))
        return out

    # -- control ---------------------------------------------------------------------------
    def check(self, status: ir.Value) -> None:
        """Return ``status`` from this function if it is not 0."""
        failed = self.function.append_basic_block("failed")
        ok = self.function.append_basic_block("ok")
        self.b.cbranch(self.b.icmp_signed("!=", status, I32(0)), failed, ok)
        self.b.position_at_end(failed)
        self.b.ret(status)
        self.b.position_at_end(ok)

    def call_kernel(
        self, kernel: ir.Function, pointers: list[ir.Value], n: int, parallel: bool
    ) -> None:
        """Run ``kernel`` over ``[0, n)``, split across cores when ``parallel``."""
        if n <= 0:
            return  # an empty range: the kernel would only touch buffers with no elements
        if self.recording is not None:  # a row group calls it later (row_groups)
            self.recording.append((kernel, pointers, n, parallel))
            return
        table = pointer_table(self.b, pointers)
        if parallel:
            task = self.m.pool_task(kernel)
            self.b.call(self.m.parallel_for, [task, table, i64(n), i64(worker_count())])
        else:
            self.b.call(kernel, [table, i64(0), i64(n)])

    # -- emission --------------------------------------------------------------------------
    def emit(self) -> None:
        schedule = self.buffers.schedule
        groups = find_row_groups(self, schedule)
        probes = self.m.profile
        is_entry = self.computation is self.m.hlo.entry
        program_start = probes.start(self.b) if probes is not None and is_entry else None
        k = 0
        while k < len(schedule):
            if k in groups:
                end, rows = groups[k]
                members = schedule[k:end]
                with self._profiled(members):
                    emit_row_group(self, members, rows)
                k = end
            else:
                with self._profiled(schedule[k : k + 1]):
                    self.emit_instruction(schedule[k])
                k += 1
        for slot, leaf in self.buffers.root_copies:
            destination = self._cached_load(self._result_pointers, self.results, leaf)
            self.m.memcpy(self.b, destination, self.pointer(slot), slot.byte_size)
        if program_start is not None:
            site = ProfileSite(self.m.hlo.name, self.computation.name, (), "program")
            probes.stop(self.b, self.ctx, site, program_start)
        self.b.ret(I32(0))
        if self._saved_mxcsr is not None:
            restore_at_returns(self.function, self._saved_mxcsr)

    def emits_code(self, instruction: HloInstruction) -> bool:
        """False for instructions that only name a value or compute nothing."""
        op = instruction.opcode
        if op in NO_CODE or (op in (Op.BITCAST, Op.RESHAPE) and _is_alias(self, instruction)):
            return False
        # Zero elements out: no emitter ever sees an empty result, so none can write a
        # row into it (an integer dot once ran max(1, m) rows into an empty buffer).
        return not _computes_nothing(self, instruction)

    @contextmanager
    def _profiled(self, members: list[HloInstruction]) -> Iterator[None]:
        """With profiling on, the code emitted inside is timed as one thunk running
        ``members``; the start dominates the stop, as every top-level thunk's code is
        entered only through its beginning."""
        probes = self.m.profile
        working = [m for m in members if self.emits_code(m)] if probes is not None else []
        if not working:
            yield
            return
        start = probes.start(self.b)
        thunks = len(self.m.thunks)
        yield
        python = any(
            isinstance(t, (fallback.FallbackThunk, fallback.HostCallbackThunk))
            for t in self.m.thunks[thunks:]
        )
        site = site_for(working, self.computation.name, python)
        probes.stop(self.b, self.ctx, site, start)

    def emit_instruction(self, instruction: HloInstruction, allow_fallback: bool = True) -> None:
        op = instruction.opcode
        if not self.emits_code(instruction):
            return
        try:
            emitter = self.m.overrides.get(op) or THUNK_EMITTERS.get(op)
            if emitter is not None:
                emitter(self, instruction)
            elif not (
                reduce_library.try_emit(self, instruction) or loops.try_emit(self, instruction)
            ):
                raise NotEmittable(f"no native emitter for {op.value}")
            self.m.native_ops.add(op.value)
        except NotEmittable as reason:
            if not allow_fallback:
                raise
            fallback.emit_fallback(self, instruction, str(reason))


# Instructions whose run matters beyond their result, even when it has no elements:
# control flow, RNG state, and checks of run-time values (dynamic-reshape's sizes).
_ALWAYS_RUN = frozenset(
    {Op.WHILE, Op.CONDITIONAL, Op.CALL, Op.RNG, Op.RNG_GET_AND_UPDATE_STATE,
     Op.RNG_BIT_GENERATOR, Op.DYNAMIC_RESHAPE}
)  # fmt: skip


def _computes_nothing(emitter: FunctionEmitter, instruction: HloInstruction) -> bool:
    """True when every array leaf of the result is empty and running the instruction has
    no effect beyond its result (no side effect, no control flow, no RNG state)."""
    op = instruction.opcode
    if op in _ALWAYS_RUN or op.may_have_side_effect:
        return False
    slots = leaves(emitter.value(instruction))
    return bool(slots) and all(s.shape.element_count() == 0 for s in slots)


def _is_alias(emitter: FunctionEmitter, instruction: HloInstruction) -> bool:
    value = emitter.value(instruction)
    operand = emitter.value(instruction.operand(0))
    return isinstance(value, Slot) and isinstance(operand, Slot) and value.owner is not instruction


__all__ = [
    "COMPUTATION_TYPE",
    "FunctionEmitter",
    "I8",
    "KERNEL_TYPE",
    "ModuleEmitter",
    "THUNK_EMITTERS",
]
