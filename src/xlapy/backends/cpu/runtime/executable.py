"""A compiled CPU executable: arguments in, one native call, results out.

The general path (``execute``) takes Literals in any declared layout, converts
them to the row-major buffers the code expects, and builds a Literal from the
result buffers. The fast path (``__call__`` via ``call_numpy``) hands numpy
arrays straight to the native fast entry (``fast_call``); anything it cannot
take (a list, a non-contiguous view, a wrong dtype) goes to the general path,
which converts it or raises a clear error.

Memory: temporaries live in one arena per executable, allocated once (a
concurrent second call gets its own). Large results come from a pool: a
result array the caller has dropped (its reference count says so) is reused
by the next call, so big outputs do not cost fresh pages from the OS each time.
"""

from __future__ import annotations

import ctypes
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from threading import get_ident
from typing import Any

import numpy as np

from ....distributed import DEFAULT_TIMEOUT_SECONDS, CollectiveHub, HostChannels, run_on_devices
from ....errors import FailedPreconditionError, InvalidArgumentError, UnimplementedError, XlaError
from ....evaluator import DeviceContext, EvalContext, FeedQueues, device_context
from ....hlo.module import HloModule
from ....literal import Literal
from ....memory import check_allocation
from ....shape import ProgramShape, Shape
from .. import profiling, roofline
from ..layout_normalization import default_layout_shape
from ..profile_report import Profile
from . import disk_cache, fallback, fast_call, guarded_memory, native_runtime
from .fast_call import ARGUMENT_MISMATCH

PLATFORM = "cpu"
POOL_MIN_BYTES = 1 << 20
_REPLICA_POOL_DEPTH = 2  # result buffers kept per leaf and device (_result_buffer)
GEMM_CHOICES = ("xlapy", "openblas")


@dataclass
class CpuOptions:
    num_replicas: int = 1
    num_partitions: int = 1
    collective_timeout: float = DEFAULT_TIMEOUT_SECONDS
    rng_seed: int = 0x5EED
    opt_level: int = 3
    debug: bool = False  # verify the module after every pass
    dump_dir: str | None = None  # write the module after every pass, and the LLVM IR
    cache: bool = True
    passes: Any = None  # a callable(module, options) -> pipeline, to override the default
    # Called as observer(pass_name, module, changed) after every pass (tools watching a
    # compile: xlapy opt, xlapy explain); not part of the compile-cache key, so tools
    # that watch pass cache=False.
    pass_observer: Any = None
    # Pass names left out of the default pipeline (XLA's --xla_disable_hlo_passes), e.g.
    # {"constant-folding"} so that a program of constants still runs native kernels.
    disabled_passes: frozenset[str] = frozenset()
    # The CPU the code is made for: an LLVM CPU name ("x86-64-v2", "x86-64-v3",
    # "skylake-avx512", "znver4", "host") and feature string ("+avx2,-avx512f"); None:
    # XLAPY_CPU_TARGET's, else the host's (jit.resolve_target).
    target_cpu: str | None = None
    target_features: str | None = None
    # Memory-safety debug mode (guarded_memory): "after" or "before" puts a guard page
    # past the end or before the start of every buffer; the default comes from the
    # environment variable XLAPY_GUARD_BUFFERS.
    guard_buffers: str | None = field(default_factory=guarded_memory.default_mode)
    # XLA:CPU's f16/bf16 excess precision (XLA's xla_allow_excess_precision, plus LLVM's
    # FMA contraction of f16 multiply-adds): JAX programs round as on XLA:CPU. False:
    # every op rounds to its type, as the interpreter (the per-op oracle) does.
    allow_excess_precision: bool = True
    # XLA:CPU's denormals: True runs the native code with the FTZ and DAZ bits of x86's
    # MXCSR set (denormal results and inputs are zeros of their sign), as XLA:CPU runs
    # every execution, on the calling thread and on the pool's workers, the caller's mode
    # restored afterwards (flush_denormals). False (xlapy's default): IEEE denormals, as
    # the interpreter (the per-op oracle) and numpy compute. xlapy.jax.jit turns it on so
    # that JAX programs give what they give on XLA:CPU. x86 targets only.
    flush_denormals: bool = False
    # Per-thunk timestamps taken by the native code (backends.cpu.profiling), read by
    # ``CpuExecutable.profile``; off by default, and then the code is exactly as without
    # profiling.
    profile: bool = False
    # Who computes dots and convolutions: "xlapy", xlapy's own GEMM generated through LLVM
    # (emit.linalg_gemm_loops; what ahead-of-time objects run, so the JIT computes bit for
    # bit what an AOT binary does), or "openblas", scipy's BLAS (kept for comparison).
    gemm: str = "xlapy"
    # Code for an ahead-of-time object (xlapy.aot), set by xlapy.aot.compile only:
    # constants as globals of the module, no Python, no absolute addresses. Such code is
    # never handed to the JIT.
    aot: bool = False
    # The persistent compile cache (backends.cpu.persistent_cache): a directory shared by
    # processes, where compiled programs are stored and loaded from; None (the default
    # when XLAPY_COMPILATION_CACHE_DIR is unset): off, and the code is exactly as without
    # it. Bounded to persistent_cache_max_bytes, least recently used entries evicted.
    persistent_cache_dir: str | None = field(default_factory=disk_cache.default_directory)
    persistent_cache_max_bytes: int = 1 << 30

    def __post_init__(self) -> None:
        self.guard_buffers = guarded_memory.mode_from(self.guard_buffers)
        if self.gemm not in GEMM_CHOICES:
            raise InvalidArgumentError(
                f"CpuOptions.gemm={self.gemm!r}: expected one of {', '.join(GEMM_CHOICES)}"
            )


def _leaf_shapes(shape: Shape) -> list[Shape]:
    if shape.is_tuple:
        out: list[Shape] = []
        for s in shape.tuple_shapes:
            out.extend(_leaf_shapes(s))
        return out
    return [shape] if shape.is_array else []


def _literal_leaves(literal: Literal) -> list[Literal]:
    if literal.is_tuple:
        out: list[Literal] = []
        for e in literal.tuple_elements:
            out.extend(_literal_leaves(e))
        return out
    return [literal] if literal.is_array else []


@dataclass
class CompiledProgram:
    """What compiling produced; shared by every executable made from the same module."""

    module: HloModule  # after optimizations
    code: Any  # jit.CompiledCode
    entry_name: str
    fast_call: bool  # numpy arrays can go straight to the entry (``fast_call``)
    arena_size: int
    thunks: list
    native_ops: list[str]
    fallback_ops: list[str]
    host_callbacks: list[str]  # Python custom-call targets the native code calls
    kernel_count: int
    row_groups: int
    keep_alive: list
    declared: ProgramShape  # the entry's signature with the caller's layouts
    donated: dict[int, int] = field(default_factory=dict)  # result leaf -> parameter leaf
    guard: str | None = None  # the guard mode the code was laid out for (guarded_memory)
    guard_pages: list[int] = field(default_factory=list)  # arena offsets of guard pages
    timings: dict[str, float] = field(default_factory=dict)
    profile_sites: list = field(default_factory=list)  # profiling.ProfileSite per site number

    @property
    def name(self) -> str:
        """The module's name (a program loaded from the persistent cache knows it without
        parsing its module)."""
        return self.module.name

    @property
    def dynamic_signature(self) -> Any:
        """The padded entry's dynamic-size signature, or None for static shapes."""
        return _dynamic_signature(self.module)


class CpuExecutable:
    platform = PLATFORM

    def __init__(self, program: CompiledProgram, options: CpuOptions) -> None:
        self.program = program
        self.options = options
        self.num_devices = options.num_replicas * options.num_partitions
        self.feeds = [FeedQueues() for _ in range(self.num_devices)]
        # Host transfers (send/recv with is_host_transfer), fed and drained by the client.
        self.host_channels = [
            HostChannels(options.collective_timeout) for _ in range(self.num_devices)
        ]
        self._rng_states = [fallback.RngCell(options.rng_seed) for _ in range(self.num_devices)]
        code = program.code
        self._entry = code.cfunction(
            program.entry_name,
            ctypes.c_int32,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_void_p,
        )
        declared = program.declared
        self._param_leaves = [
            [default_layout_shape(s) for s in _leaf_shapes(p)] for p in declared.parameters
        ]
        self._result_leaves = [default_layout_shape(s) for s in _leaf_shapes(declared.result)]
        # Dynamic dimensions (passes/expand/dynamic_padder): the padded entry takes each
        # dynamic size as one more s32[] parameter and returns the result's sizes after
        # its leaves; arguments are padded to their bounds and results trimmed here.
        self._dynamic = program.dynamic_signature
        if self._dynamic is not None:
            self._result_leaves = [
                default_layout_shape(s) for s in _leaf_shapes(program.module.entry.root.shape)
            ]
        self._result_shape = declared.result
        self._lock = threading.Lock()
        self._owner: int | None = None  # the thread running on the shared arena
        name = program.name
        check_allocation(program.arena_size, f"the temporaries of {name} (its arena)")
        for k, leaf in enumerate(self._result_leaves):
            check_allocation(leaf.byte_size(), f"result {k} ({leaf}) of {name}")
        self._arena = self._new_arena()
        self._pool: list[np.ndarray | None] = [None] * len(self._result_leaves)
        # What call_numpy reads on every call, read once here.
        self._output_specs = [
            (tuple(s.dimensions), np.dtype(s.element_type.dtype)) for s in self._result_leaves
        ]
        self._leaf_range = range(len(self._result_leaves))
        self._param_count = len(self._param_leaves)
        self._donated = program.donated
        # execute_replicated's per-device arenas and result pools (_replica_memory).
        self._replica_lock = threading.Lock()
        self._replica_memories: dict[int, tuple[Any, list[list[np.ndarray]]]] = {}
        self._run = fallback.Run(program.thunks, EvalContext(self._device_context(0, None)))
        self._run_key = fallback.register_run(self._run) if program.thunks else 0
        self._context = fallback.RunContext(self._run_key, 0, 0, self._rng_states[0].address)
        self._context_address = ctypes.addressof(self._context)
        self._fast = None
        if (
            program.fast_call
            and self._dynamic is None  # sizes in and out take the general path
            and self.num_devices == 1
            and program.guard is None  # guard mode copies every buffer into its own pages
        ):
            self._fast = native_runtime.fast_call_function()
            self._fast_descriptor = fast_call.descriptor(
                code.address(program.entry_name),
                self._context_address,
                self._arena_address(self._arena),
                list(declared.parameters),  # the dtypes and sizes, as declared
                len(self._result_leaves),
            )
            self._fast_address = self._fast_descriptor.ctypes.data
        self._single_result = declared.result.is_array

    def __del__(
        self,
        unregister: Callable[[int], None] = fallback.unregister_run,
        finalizing: Callable[[], bool] = sys.is_finalizing,
    ) -> None:
        # Bound at definition: collected at interpreter exit, the module's globals may be
        # gone; the run table goes with the process then.
        key = getattr(self, "_run_key", 0)
        if key and not finalizing():
            unregister(key)

    # -- facts -------------------------------------------------------------------------------
    @property
    def module(self) -> HloModule:
        return self.program.module

    @property
    def hlo_module_after_optimizations(self) -> HloModule:
        return self.program.module

    @property
    def fallback_ops(self) -> list[str]:
        return list(self.program.fallback_ops)

    @property
    def host_callbacks(self) -> list[str]:
        return list(self.program.host_callbacks)

    @property
    def kernel_count(self) -> int:
        return self.program.kernel_count

    @property
    def row_groups(self) -> int:
        """Runs of kernels executed row block by row block (``row_groups``)."""
        return self.program.row_groups

    # -- memory ----------------------------------------------------------------------------
    def _new_arena(self) -> Any:
        if self.program.guard:
            return guarded_memory.GuardedArena(self.program.arena_size, self.program.guard_pages)
        return np.empty(self.program.arena_size + 64, np.uint8)

    @staticmethod
    def _arena_address(arena: Any) -> int:
        if isinstance(arena, guarded_memory.GuardedArena):
            return arena.address
        address = arena.ctypes.data
        return address + (-address % 64)

    def _output(self, k: int) -> np.ndarray:
        pooled = self._pool[k]
        # 3 references: the pool, the local name, getrefcount's argument: nobody else holds it.
        if pooled is not None and sys.getrefcount(pooled) == 3:
            return pooled
        array = np.empty(*self._output_specs[k])
        if array.nbytes >= POOL_MIN_BYTES:
            self._pool[k] = array
        return array

    # -- running -----------------------------------------------------------------------------
    def call_numpy(self, arguments: Sequence[Any]) -> Any:
        """The fast path of ``Executable.__call__``: numpy arrays in, numpy arrays out."""
        fast = self._fast
        if fast is None or len(arguments) != self._param_count:
            return None
        donated = self._donated
        if donated:
            for parameter in donated.values():
                # A donated argument's buffer receives the result (input_output_alias).
                donor = arguments[parameter]
                if type(donor) is not np.ndarray or not donor.flags.writeable:
                    return None
            outputs = [
                arguments[donated[k]] if k in donated else self._output(k) for k in self._leaf_range
            ]
        elif self._single_result:
            outputs = [self._output(0)]
        else:
            outputs = [self._output(k) for k in self._leaf_range]
        if type(arguments) is not tuple:
            arguments = tuple(arguments)
        lock = self._lock
        if not lock.acquire(blocking=False):
            return None
        self._owner = get_ident()
        try:
            status = fast(self._fast_address, arguments, outputs)
            if status:  # the run's error, read while the run is still this thread's
                error, self._run.error = self._run.error, None
        finally:
            self._owner = None
            lock.release()
        if status == 0:
            if self._single_result:
                return outputs[0]
            return _rebuild(self._result_shape, iter(outputs))
        if status >= ARGUMENT_MISMATCH:
            k = status - ARGUMENT_MISMATCH
            argument = arguments[k] if k < len(arguments) else None
            if isinstance(argument, np.generic):
                # A numpy scalar is a 0-d array in all but type: pass it as one (the
                # retry has no scalars left, so it cannot come back here). This call's
                # result arrays are let go first, so that the retry finds them free in
                # the pool instead of faulting in fresh pages for every call.
                del outputs
                return self.call_numpy(
                    [np.asarray(a) if isinstance(a, np.generic) else a for a in arguments]
                )
            return None
        raise fallback.status_error(status, error)

    def execute(self, arguments: Sequence[Literal]) -> Literal:
        if self.num_devices != 1:
            return self.execute_replicated([arguments] * self.num_devices)[0]
        if self._owner == threading.get_ident():
            # Re-entered from a host callback of this very run (a Python custom call that
            # calls its own executable): the shared arena is in use below us, so this
            # call gets an arena and fallback state of its own.
            return self._execute_privately(arguments)
        with self._lock:
            self._owner = threading.get_ident()
            try:
                return self._execute_on(arguments, self._context, self._run, self._arena)
            finally:
                self._owner = None

    def _execute_privately(self, arguments: Sequence[Literal]) -> Literal:
        run = fallback.Run(self.program.thunks, EvalContext(self._device_context(0, None)))
        key = fallback.register_run(run)
        context = fallback.RunContext(key, 0, 0, self._rng_states[0].address)
        try:
            return self._execute_on(arguments, context, run, self._new_arena())
        finally:
            fallback.unregister_run(key)

    def _execute_on(
        self,
        arguments: Sequence[Literal],
        context: fallback.RunContext,
        run: fallback.Run,
        arena: np.ndarray,
        pool: list[list[np.ndarray]] | None = None,
    ) -> Literal:
        """One run on ``arena``; results in fresh buffers, or in ``pool``'s large ones
        where nothing the caller holds still refers to them."""
        buffers: list[np.ndarray] = []
        for literal, shapes in zip(arguments, self._param_leaves, strict=True):
            for leaf, shape in zip(_literal_leaves(literal), shapes, strict=True):
                if leaf.shape.layout != shape.layout:
                    leaf = leaf.relayout(shape.layout)
                buffers.append(_at_bound(leaf, shape) if self._dynamic else leaf.data)
        if self._dynamic is not None:
            for parameter, dim in self._dynamic.parameter_sizes:
                size = arguments[parameter].shape.dimensions[dim]
                buffers.append(np.array([size], np.int32))
        guard = self.program.guard
        if guard:
            buffers = [guarded_memory.guarded_copy(b.reshape(-1), guard) for b in buffers]
            outputs = [
                guarded_memory.guarded_array((s.element_count(),), s.element_type.dtype, guard)
                for s in self._result_leaves
            ]
        else:
            outputs = [_result_buffer(s, pool, k) for k, s in enumerate(self._result_leaves)]
        for leaf, parameter in self.program.donated.items():
            # Literals are immutable: the donated parameter is a private copy that the
            # program overwrites with the result.
            if not guard:  # (guard mode made a private copy of every argument already)
                buffers[parameter] = np.array(buffers[parameter], copy=True)
            outputs[leaf] = buffers[parameter]
            if outputs[leaf].size == 0 and not guard:
                outputs[leaf] = np.empty(1, outputs[leaf].dtype)
                buffers[parameter] = outputs[leaf]
        params = (ctypes.c_void_p * max(1, len(buffers)))(*[b.ctypes.data for b in buffers])
        results = (ctypes.c_void_p * max(1, len(outputs)))(*[o.ctypes.data for o in outputs])
        run.error = None
        status = self._entry(ctypes.addressof(context), params, results, self._arena_address(arena))
        if status != 0:
            error, run.error = run.error, None
            raise fallback.status_error(status, error)
        if guard:  # results leave the guarded mappings, which go away with the call
            outputs = [np.array(out, copy=True) for out in outputs]
        if self._dynamic is not None and self._dynamic.result_leaves:
            leaves = _trimmed(self._dynamic, self._result_leaves, outputs)
        else:
            leaves = [
                Literal(shape, out[: shape.element_count()])
                for shape, out in zip(self._result_leaves, outputs, strict=True)
            ]
        return _relayout(self._result_shape, iter(leaves))

    def profile(
        self,
        arguments: Sequence[Literal],
        iterations: int = 1,
        capacity: int = profiling.DEFAULT_CAPACITY,
    ) -> Profile:
        """Run ``iterations`` times recording every thunk's time (the program must have
        been compiled with ``CpuOptions.profile``); the result of the last run is the
        profile's ``result``. Runs on a context and arena of its own, so calls made
        meanwhile through ``__call__`` are neither recorded nor disturbed."""
        name = self.program.module.name
        if not self.program.profile_sites:
            raise FailedPreconditionError(
                f"{name} was compiled without CpuOptions.profile: its code records no "
                "timestamps; compile it with profile=True to profile it"
            )
        if self.num_devices != 1:
            raise UnimplementedError(
                f"profiling {name}: runs on {self.num_devices} devices; only "
                "single-device executables can be profiled for now"
            )
        if iterations < 1:
            raise InvalidArgumentError(
                f"profiling {name}: iterations must be >= 1, got {iterations}"
            )
        run = fallback.Run(self.program.thunks, EvalContext(self._device_context(0, None)))
        key = fallback.register_run(run)
        context = fallback.RunContext(key, 0, 0, self._rng_states[0].address)
        buffer = profiling.EventBuffer(capacity)
        profiling.attach(context, buffer)
        arena = self._new_arena()
        runs: list[profiling.RecordedRun] = []
        result = None
        try:
            for _ in range(iterations):
                buffer.reset()
                start = time.monotonic_ns()
                result = self._execute_on(arguments, context, run, arena)
                wall = time.monotonic_ns() - start
                runs.append(profiling.RecordedRun(buffer.events(), buffer.dropped, wall))
        finally:
            profiling.attach(context, None)
            fallback.unregister_run(key)
        return Profile.build(
            name, self.program.profile_sites, runs, roofline.machine(), result=result
        )

    def _device_context(self, index: int, hub: CollectiveHub | None) -> DeviceContext:
        context = device_context(
            self.options, index, hub, self.feeds[index], self._rng_states[index]
        )
        context.host_channels = self.host_channels[index]
        return context

    def execute_replicated(
        self, arguments: Sequence[Sequence[Literal]], local_devices: Sequence[int] | None = None
    ) -> list[Literal]:
        """Run every device (or, in one process of a multi-process job, the global device
        ids ``local_devices``, one argument list each) and return their results."""
        expected = self.num_devices if local_devices is None else len(local_devices)
        if len(arguments) != expected:
            raise XlaError(
                f"the executable runs on {expected} devices here but got arguments for "
                f"{len(arguments)}"
            )

        # One execution at a time keeps each device's arena and large result buffers from
        # call to call (fresh ones page-fault on every call: at 256 MB per device that is
        # most of an all-reduce's time); a call made meanwhile gets fresh ones.
        kept = self._replica_lock.acquire(blocking=False)

        def run_with(index: int, hub: CollectiveHub, device_arguments: Any) -> Literal:
            run_state = fallback.Run(
                self.program.thunks, EvalContext(self._device_context(index, hub))
            )
            key = fallback.register_run(run_state)
            partitions = self.options.num_partitions
            context = fallback.RunContext(
                key, index // partitions, index % partitions, self._rng_states[index].address
            )
            if kept:
                arena, pool = self._replica_memory(index)
            else:
                arena, pool = self._new_arena(), None
            try:
                return self._execute_on(device_arguments, context, run_state, arena, pool)
            finally:
                fallback.unregister_run(key)

        index_of = {
            d: k
            for k, d in enumerate(
                range(self.num_devices) if local_devices is None else local_devices
            )
        }
        try:
            return run_on_devices(
                self.num_devices,
                self.options.collective_timeout,
                lambda index, hub: run_with(index, hub, arguments[index_of[index]]),
                local_devices,
            )
        finally:
            if kept:
                self._replica_lock.release()

    def _replica_memory(self, index: int) -> tuple[Any, list[list[np.ndarray]]]:
        """Device ``index``'s kept arena and result pool (made on its first run)."""
        memory = self._replica_memories.get(index)
        if memory is None:
            memory = self._replica_memories[index] = (
                self._new_arena(),
                [[] for _ in self._result_leaves],
            )
        return memory


def _result_buffer(shape: Shape, pool: list[list[np.ndarray]] | None, k: int) -> np.ndarray:
    """A buffer for result leaf ``k``: a pooled one that nobody else holds (3 references:
    the pool's list, the loop's name and getrefcount's argument; a Literal or numpy view of
    an earlier result holds one more), else a fresh one, kept when large. Two per leaf, so
    a caller that frees the previous results only after the next call still reuses."""
    if pool is not None:
        for pooled in pool[k]:
            if sys.getrefcount(pooled) == 3:
                return pooled
    array = np.empty(max(1, shape.element_count()), shape.element_type.dtype)
    if pool is not None and array.nbytes >= POOL_MIN_BYTES:
        pool[k] = [*pool[k][-(_REPLICA_POOL_DEPTH - 1) :], array]
    return array


def _dynamic_signature(module: HloModule) -> Any:
    """The padder's signature when the entry takes or returns dynamic sizes, else None."""
    signature = getattr(module, "dynamic_signature", None)
    if signature is None or not (signature.parameter_sizes or signature.result_sizes):
        return None
    return signature


def _at_bound(leaf: Literal, shape: Shape) -> np.ndarray:
    """An argument's buffer at the parameter's bounds: its elements in the leading corner
    (a dynamic dimension of size 3 and bound 6 fills the first 3 rows), zeros after."""
    if leaf.shape.dimensions == shape.dimensions:
        return leaf.data
    full = np.zeros(shape.dimensions, shape.element_type.dtype)
    values = leaf.to_numpy()
    full[tuple(slice(0, n) for n in values.shape)] = values
    return full.reshape(-1)


def _trimmed(signature: Any, shapes: Sequence[Shape], outputs: Sequence[np.ndarray]) -> list:
    """The result leaves cut to their dynamic sizes, which follow them among the outputs."""
    count = signature.result_leaves
    dims = [list(s.dimensions) for s in shapes[:count]]
    for j, (leaf, dim) in enumerate(signature.result_sizes):
        dims[leaf][dim] = int(outputs[count + j].reshape(-1)[0])
    leaves = []
    for shape, sizes, out in zip(shapes[:count], dims, outputs[:count], strict=True):
        if list(shape.dimensions) == sizes:
            leaves.append(Literal(shape, out[: shape.element_count()]))
            continue
        full = out[: shape.element_count()].reshape(shape.dimensions)
        part = np.array(full[tuple(slice(0, n) for n in sizes)])
        leaves.append(Literal.from_numpy(part, element_type=shape.element_type))
    return leaves


def _rebuild(shape: Shape, leaves: Any) -> Any:
    if shape.is_tuple:
        return tuple(_rebuild(s, leaves) for s in shape.tuple_shapes)
    if shape.is_array:
        return next(leaves)
    return None


def _relayout(shape: Shape, leaves: Any) -> Literal:
    if shape.is_tuple:
        return Literal.make_tuple([_relayout(s, leaves) for s in shape.tuple_shapes])
    if shape.is_token:
        return Literal.token()
    literal = next(leaves)
    if shape.layout is not None and literal.shape.layout != shape.layout:
        literal = literal.relayout(shape.layout)
    return literal


__all__ = ["CompiledProgram", "CpuExecutable", "CpuOptions", "PLATFORM", "InvalidArgumentError"]
