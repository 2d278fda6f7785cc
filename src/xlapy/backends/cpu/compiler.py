"""Compile an HLO module for this CPU: passes, buffer assignment, LLVM, machine code.

Compiled programs are cached by the module's text, the options that shape the
code and the target CPU, so compiling the same computation twice costs one lookup.
A cached program's code is shared by every executable made from it and freed when
the cache and all of those executables have let go of it (``jit``'s ownership rule).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import OrderedDict
from dataclasses import replace

from ...custom_call import lookup_custom_call
from ...errors import NotFoundError
from ...hlo.module import HloModule
from ...hlo.printer import PrintOptions
from ...opcode import HloOpcode
from ...passes import COMPILER_TARGETS
from ...shape import ProgramShape
from . import flush_denormals, persistent_cache
from .codegen import ModuleEmitter
from .llvm_types import KERNEL_TYPE
from .pipeline import cpu_pipeline
from .runtime import fast_call, ir_partition, jit, native_runtime
from .runtime.blas import blas_address
from .runtime.executable import PLATFORM, CompiledProgram, CpuExecutable, CpuOptions

_CACHE_SIZE = 128
_cache: OrderedDict[str, CompiledProgram] = OrderedDict()
_cache_lock = threading.Lock()
_FAST_CALL_OK = fast_call.layout_ok()


def clear_cache() -> None:
    """Forget the in-memory compiled programs (executables made from them keep theirs)."""
    with _cache_lock:
        _cache.clear()


def _custom_call_targets(module: HloModule) -> str:
    """What each custom-call target name resolves to now: C addresses are baked into the
    code, so re-registering a name must not return code compiled for the old function."""
    parts = []
    for instruction in module.instructions():
        if instruction.opcode is HloOpcode.CUSTOM_CALL:
            name = instruction.custom_call_target or ""
            try:
                target = lookup_custom_call(name, PLATFORM)
            except NotFoundError:
                parts.append(f"{name}=?")
                continue
            parts.append(f"{name}={target.kind}:{getattr(target, 'address', 0) or 0}")
    return ",".join(parts)


# The cache key's text: constants past this many elements as digests of their bytes.
_KEY_TEXT = replace(PrintOptions.short(), digest_constants_over=64)


def _cache_key(module: HloModule, options: CpuOptions, target: jit.Target) -> str:
    text = module.to_text(options=_KEY_TEXT) + "\n" + _custom_call_targets(module)
    shape = str(module.entry.program_shape)
    disabled = ",".join(sorted(options.disabled_passes))
    knobs = (
        f"{options.opt_level}|{options.num_replicas}|{options.num_partitions}|{disabled}"
        f"|guard={options.guard_buffers}|flush={options.flush_denormals}"
        f"|excess={options.allow_excess_precision}|profile={options.profile}"
    )
    if options.gemm != "openblas" or options.aot:
        knobs += f"|gemm={options.gemm}|aot={options.aot}"
    return hashlib.sha256(f"{knobs}|{target.key}\n{shape}\n{text}".encode()).hexdigest()


def declared_shape(module: HloModule) -> ProgramShape:
    """The entry's signature with the caller's layouts (what the executable converts to)."""
    return module.entry.program_shape


def target_of(options: CpuOptions) -> jit.Target:
    """The CPU the options compile for, resolved once per compile: the cache key and the
    code must agree even if ``XLAPY_CPU_TARGET`` changes meanwhile."""
    return jit.resolve_target(options.target_cpu, options.target_features)


def optimized_module(module: HloModule, options: CpuOptions) -> HloModule:
    """A copy of ``module`` after the CPU pipeline (or ``options.passes``), verified: what
    code generation starts from, for the JIT and for ahead-of-time objects alike."""
    optimized = module.clone()
    pipeline = options.passes(optimized, options) if options.passes else cpu_pipeline(options)
    pipeline.run(optimized)
    optimized.verify()
    return optimized


def compile_program(
    module: HloModule,
    options: CpuOptions,
    target: jit.Target | None = None,
    persistent: tuple[str, str] | None = None,
) -> CompiledProgram:
    """Compile ``module``; with ``persistent`` (the cache directory and the program's
    in-memory key) keep the object code and store the program in the persistent cache."""
    target = target or target_of(options)
    if options.flush_denormals:
        flush_denormals.require_x86(target, jit.host_triple())
    timings: dict[str, float] = {}
    start = time.perf_counter()
    declared = declared_shape(module)
    optimized = optimized_module(module, options)
    timings["passes"] = time.perf_counter() - start

    start = time.perf_counter()
    native_runtime.ensure_runtime()
    emitter = ModuleEmitter(optimized, options)
    entry_name = emitter.emit_entry()
    parameters = list(optimized.entry.program_shape.parameters)
    fast = _FAST_CALL_OK and all(p.is_array for p in parameters)
    timings["emit"] = time.perf_counter() - start
    if options.dump_dir:
        os.makedirs(options.dump_dir, exist_ok=True)
        with open(os.path.join(options.dump_dir, f"{module.name}.ll"), "w") as f:
            f.write(str(emitter.ir))
    # The IR text is rendered once, whole and (where it splits) in parts compiled in
    # parallel threads (ir_partition: the code of each function is the same either way).
    start = time.perf_counter()
    split = ir_partition.split_module(
        emitter.ir, 1 if options.dump_dir else jit.parallel_parts(), kernel_type=KERNEL_TYPE
    )
    ir_text = split.text
    timings["render"] = time.perf_counter() - start
    code = jit.compile_module(
        emitter.ir,
        opt_level=options.opt_level,
        keep_ir=bool(options.dump_dir),
        target=target,
        text=ir_text,
        keep_object=persistent is not None,
        parts=split.parts,
    )
    timings.update(code.timings)
    if options.dump_dir:
        with open(os.path.join(options.dump_dir, f"{module.name}.opt.ll"), "w") as f:
            f.write(code.optimized_ir)
    program = CompiledProgram(
        module=optimized,
        code=code,
        entry_name=entry_name,
        fast_call=fast,
        arena_size=emitter.arena_size,
        thunks=emitter.thunks,
        native_ops=sorted(emitter.native_ops),
        fallback_ops=sorted(emitter.fallback_ops),
        host_callbacks=sorted(emitter.host_callbacks),
        kernel_count=emitter.kernel_count,
        row_groups=emitter.row_groups,
        donated=dict(emitter.buffers[id(optimized.entry)].donated),
        guard=emitter.guard,
        guard_pages=list(emitter.guard_pages),
        keep_alive=emitter.keep_alive,
        profile_sites=list(emitter.profile_sites),
        declared=declared,
        timings=timings,
    )
    if persistent is not None:
        directory, key = persistent
        start = time.perf_counter()
        persistent_cache.store(directory, key, program, options, ir_text)
        timings["cache_store"] = time.perf_counter() - start
    return program


def _leaves(shape):  # noqa: ANN001, ANN202
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in _leaves(s)]
    return [shape] if shape.is_array else []


class CpuBackend:
    """Compiles modules to native code for this machine."""

    platform = PLATFORM

    def __init__(self) -> None:
        # Start-up work, once per process when the client is made rather than inside
        # the first compile: LLVM's target, the native runtime, scipy's BLAS table.
        jit.target_machine()
        native_runtime.ensure_runtime()
        for routine in ("sgemm", "dgemm"):
            blas_address(routine)

    def compile(self, module: HloModule, options: CpuOptions) -> CpuExecutable:
        custom_calls = [i for i in module.instructions() if i.opcode is HloOpcode.CUSTOM_CALL]
        # The module is verified before anything reads it, except on a cache hit: a
        # program is cached under the module's full text, which verified when it was
        # compiled (verifying costs ~1-2 ms, a good part of a warm start). Custom calls'
        # operand checks need a verified module, so those modules verify first.
        verified = bool(custom_calls)
        if verified:
            module.verify()
        for instruction in custom_calls:
            # Native calls look for a cpu registration; the fallback runs the
            # interpreter's kernel, which takes one for the interpreter.
            # Built-in targets (jaxlib's LAPACK ones) run through the fallback and
            # check their operands here, as the interpreter does.
            name = instruction.custom_call_target or ""
            if name in COMPILER_TARGETS:
                continue  # a marker the pipeline rewrites away (sharding, ApproxTopK)
            try:
                found = lookup_custom_call(name, "cpu")
            except NotFoundError as missing:
                try:
                    found = lookup_custom_call(name, "interpreter")
                except NotFoundError:
                    raise missing from None
            if found.check is not None:
                found.check(instruction)
        target = target_of(options)
        if not options.cache or options.dump_dir or options.passes:
            if not verified:
                module.verify()
            return CpuExecutable(compile_program(module, options, target), options)
        try:
            key = _cache_key(module, options, target)
        except Exception:
            if not verified:
                module.verify()  # the verifier's error says what is wrong with the module
            raise
        with _cache_lock:
            program = _cache.get(key)
            if program is not None:
                _cache.move_to_end(key)
        directory = options.persistent_cache_dir
        if program is None and directory:
            program = persistent_cache.load(directory, key, declared_shape(module), target)
        if program is None:
            if not verified:
                module.verify()
            persistent = (directory, key) if directory else None
            program = compile_program(module, options, target, persistent)
            with _cache_lock:
                _cache[key] = program
                while len(_cache) > _CACHE_SIZE:
                    _cache.popitem(last=False)
        return CpuExecutable(program, options)
