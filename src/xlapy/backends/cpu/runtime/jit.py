"""From an ``llvmlite.ir.Module`` to machine code in this process.

Targets. Code is made for a :class:`Target`: an LLVM CPU name and feature string. The
default is the host (its CPU name and features, so the loop and SLP vectorizers use
AVX2/AVX-512 where the machine has them); ``XLAPY_CPU_TARGET`` (``x86-64-v3``, or
``skylake-avx512:-avx512f`` with a feature string after the colon) points every compile
that names no target at another CPU, and ``CpuOptions.target_cpu``/``target_features``
pick one per compile. Code for a target whose features this host lacks is compiled but
never handed out (:meth:`CompiledCode.address` refuses): it would die on an illegal
instruction. LLVM's standard O3 pipeline, then MCJIT. Symbols that native code calls and
that are not in the process's loaded libraries (BLAS entry points out of scipy, the
runtime's callbacks) are registered by name with :func:`register_symbol`.

Who owns which llvmlite object, and which thread may touch it:

* process-wide, made once under ``_lock`` and never freed: LLVM's initialization, the
  libraries loaded permanently and the symbol table (:func:`register_symbol`), the host's
  data layout and triple. Changing them happens under ``_lock``.
* per compile, owned by the thread that compiles, never shared: an ``LLVMContext`` (the
  global one is not thread-safe, and a private one frees its uniqued constants with it),
  the module parsed into it, the pipeline tuning options, the pass builder and its module
  pass manager (all closed before :func:`compile_module` returns), and one target machine,
  which optimizes the module and then belongs to the engine. Parsing and optimizing run
  outside the lock, so threads compile in parallel.
* a compile split into parts (``ir_partition``; ``XLAPY_COMPILE_THREADS``, default one
  part per core up to 4): each part gets its own context, module, pipeline and target
  machine in one thread of :func:`_pool` (the first part on the caller's thread), and the
  two calls that take the time (the pass pipeline, object emission) bypass llvmlite's
  process-wide lock, which would otherwise serialize them (:func:`_unlocked`). The
  objects are linked in one engine with no module of its own (:func:`_object_engine`).
* MCJIT (creating an engine, finalizing its code, freeing it) resolves symbols through
  the process-wide tables: serialized with ``_lock``.
* An engine (and its context, freed after it) lives exactly as long as its
  :class:`CompiledCode`: the compile cache and every executable made from a cached program
  hold the same ``CompiledCode``, so the code stays mapped while anything can still call it
  and is freed when the last holder is garbage-collected.

Two llvmlite 0.50 leaks are worked around or bounded here: ``ModulePassManager.close()``
frees nothing (its class inherits ``ObjectRef``'s empty ``_dispose`` ahead of the pass
manager's own, so the whole O3 pipeline, ~90 KB a compile, stayed allocated): it is freed
by :func:`_free_pass_manager`. Each pass builder's ``PassInstrumentationCallbacks`` is
allocated in C++ and never freed (~2-4 KB a compile); a pass builder is not reused to
save it, because each run registers callbacks into it that point at that run's stack.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import os
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import llvmlite
import llvmlite.binding as llvm
from llvmlite import ir

from ....errors import InternalError, InvalidArgumentError
from . import strength_reduction as lsr

ENV_TARGET = "XLAPY_CPU_TARGET"
ENV_THREADS = "XLAPY_COMPILE_THREADS"
_lock = threading.RLock()  # re-entrant: an engine freed by the GC inside a locked region
_state: dict[str, object] = {}


def _initialize() -> None:
    """Initialize LLVM once per process."""
    with _lock:
        if "triple" not in _state:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            # libm and libmvec for the math calls; libgcc_s (GCC 12+) for the f16
            # conversions LLVM calls on targets without F16C (__extendhfsf2,
            # __truncsfhf2...), which would otherwise resolve to address 0.
            for name in ("m", "mvec", "gcc_s"):
                path = ctypes.util.find_library(name)
                if path:
                    llvm.load_library_permanently(path)
            tm = new_target_machine()
            # Read once: each ``target_data`` access makes an object whose disposal
            # can free data the target machine still uses.
            _state["data_layout"] = str(tm.target_data)
            _state["triple"] = llvm.get_process_triple()
            _state["tm"] = tm


# -- targets ---------------------------------------------------------------------------

# The x86-64 psABI levels as LLVM defines them (X86.td), and named CPUs as a level plus
# the extensions past it that change which instructions LLVM may emit. Only these
# features are checked against the host before code runs.
_V1 = ("cmov", "cx8", "fxsr", "mmx", "sse", "sse2")
_V2 = (*_V1, "crc32", "cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3")
_V3 = (*_V2, "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
_V4 = (*_V3, "avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl")
_ICL = ("avx512bitalg", "avx512ifma", "avx512vbmi", "avx512vbmi2", "avx512vnni",
        "avx512vpopcntdq", "gfni", "vaes", "vpclmulqdq")  # fmt: skip
_SPR = (*_ICL, "avx512bf16", "avx512fp16", "avxvnni")
CPU_FEATURES: dict[str, tuple[str, ...]] = {
    "x86-64": _V1,
    "x86-64-v2": _V2,
    "x86-64-v3": _V3,
    "x86-64-v4": _V4,
    "haswell": _V3,
    "skylake": (*_V3, "adx"),
    "alderlake": (*_V3, "adx", "avxvnni", "gfni", "vaes", "vpclmulqdq"),
    "znver2": (*_V3, "adx", "sha"),
    "znver3": (*_V3, "adx", "sha", "vaes", "vpclmulqdq"),
    "skylake-avx512": (*_V4, "adx"),
    "cascadelake": (*_V4, "adx", "avx512vnni"),
    "icelake-server": (*_V4, "adx", *_ICL),
    "sapphirerapids": (*_V4, "adx", *_SPR),
    "emeraldrapids": (*_V4, "adx", *_SPR),
    "znver4": (*_V4, "adx", *_ICL, "avx512bf16"),
    "znver5": (*_V4, "adx", *_ICL, "avx512bf16", "avxvnni", "avx512vp2intersect"),
}
_HOST_NAMES = ("", "host", "native")


@dataclass(frozen=True)
class Target:
    """An LLVM CPU name and feature string ("" for the CPU's own features)."""

    cpu: str
    features: str = ""
    host: bool = False

    def __str__(self) -> str:
        if self.host:
            return f"host ({self.cpu})"
        return self.cpu + (f":{self.features}" if self.features else "")

    @property
    def key(self) -> str:
        """What identifies the code this target gets (for compile caches)."""
        return f"{self.cpu}|{self.features}"

    def required_features(self) -> frozenset[str]:
        """The instruction-set features code for this target may use."""
        if self.host:
            return frozenset()
        needed = set(CPU_FEATURES[self.cpu])
        for item in filter(None, (f.strip() for f in self.features.split(","))):
            (needed.add if item[0] == "+" else needed.discard)(item[1:])
        return frozenset(needed)

    def missing_features(self) -> list[str]:
        """Features the target's code may use that this host lacks."""
        have = _host_features()
        return sorted(f for f in self.required_features() if not have.get(f, False))

    def check_runnable(self) -> None:
        missing = self.missing_features()
        if missing:
            raise InvalidArgumentError(
                f"code for CPU target {self} needs {', '.join(missing)}, which this host "
                f"({host_target().cpu}) lacks: running it would stop the process on an "
                f"illegal instruction; compile for a target within the host's features "
                f"(e.g. x86-64-v2, or no target for the host's own)"
            )


@functools.cache
def _host_features() -> dict[str, bool]:
    return dict(llvm.get_host_cpu_features())


@functools.cache
def host_target() -> Target:
    """The host's CPU and features (LLVM's host queries need no initialization)."""
    return Target(llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten(), host=True)


def _features_text(features: str) -> str:
    items = [f.strip() for f in features.split(",") if f.strip()]
    for item in items:
        if item[0] not in "+-" or len(item) == 1:
            raise InvalidArgumentError(
                f"target feature {item!r} must be +name or -name (LLVM's spelling, e.g. "
                f"'+avx2,-avx512f')"
            )
    return ",".join(items)


def resolve_target(cpu: str | None = None, features: str | None = None) -> Target:
    """The target a compile gets: ``cpu``/``features`` where given, else those of
    ``XLAPY_CPU_TARGET`` (``cpu`` or ``cpu:features``), else the host's."""
    if cpu is None:
        cpu, _, env_features = os.environ.get(ENV_TARGET, "").strip().partition(":")
        if features is None and env_features:
            features = env_features
    cpu = cpu.strip().lower()
    extra = _features_text(features or "")
    if cpu in _HOST_NAMES:
        host = host_target()
        if not extra:
            return host
        # The host's features, some switched: no longer the host's own code.
        return Target(host.cpu, f"{host.features},{extra}")
    if cpu not in CPU_FEATURES:
        raise InvalidArgumentError(
            f"unknown CPU target {cpu!r} (from {'CpuOptions.target_cpu' if cpu else ENV_TARGET}):"
            f" known ones are {', '.join(CPU_FEATURES)}, or 'host'"
        )
    return Target(cpu, extra)


def new_target_machine(target: Target | None = None) -> llvm.TargetMachine:
    """A fresh target machine (the host's unless ``target``): each engine owns one."""
    target = target or host_target()
    return llvm.Target.from_default_triple().create_target_machine(
        cpu=target.cpu, features=target.features, opt=3, codemodel="jitdefault"
    )


def target_machine() -> llvm.TargetMachine:
    """The host's target machine made at initialization (read-only use)."""
    _initialize()
    return _state["tm"]  # type: ignore[return-value]


def host_triple() -> str:
    _initialize()
    return _state["triple"]  # type: ignore[return-value]


def target_data_layout() -> str:
    _initialize()
    return _state["data_layout"]  # type: ignore[return-value]


def register_symbol(name: str, address: int) -> None:
    """Make ``name`` resolve to ``address`` in code compiled from now on."""
    _initialize()
    with _lock:
        llvm.add_symbol(name, address)


def new_module(name: str) -> ir.Module:
    """An empty IR module for this process (every x86-64 target shares the layout)."""
    module = ir.Module(name=name)
    module.triple = host_triple()
    module.data_layout = target_data_layout()
    return module


# -- compiled code ---------------------------------------------------------------------


class _Engine:
    """An MCJIT engine and the context its module lives in, freed together, engine first
    (it owns the module, which needs the context), under the lock.

    llvmlite's wrappers would each free their object from their own ``__del__``, and the
    garbage collector finalizes the objects of a reference cycle in no fixed order: a
    context freed before its engine made the engine's disposal crash (seen under guard
    mode, where executables live in cycles more often). So the wrappers are marked as
    owned (they never free anything) and this object frees both through the raw
    pointers it took."""

    def __init__(self, engine: llvm.ExecutionEngine, context: llvm.ContextRef) -> None:
        self._engine_pointer = engine._ptr
        self._context_pointer = context._ptr
        engine._owned = True
        context._owned = True

    def __del__(
        self,
        lock: threading.RLock = _lock,
        lib: object = llvm.ffi.lib,
        finalizing: Callable[[], bool] = sys.is_finalizing,
    ) -> None:
        # (Bound at definition: at interpreter exit the module's globals may already be
        # gone when the last engines are collected.) At exit, llvmlite's own bindings may
        # be torn down before the last engine is collected; the process is ending and its
        # memory goes with it, so nothing is freed then.
        if finalizing():
            return
        with lock:
            lib.LLVMPY_DisposeExecutionEngine(self._engine_pointer)
            lib.LLVMPY_ContextDispose(self._context_pointer)


@dataclass
class CompiledCode:
    """Machine code for one IR module; keeps its engine (and so the code) alive."""

    engine: llvm.ExecutionEngine
    optimized_ir: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    target: Target = field(default_factory=host_target)
    assembly: str = ""
    owner: _Engine | None = field(default=None, repr=False)
    # The relocatable objects the code was made of (``compile_module(keep_object=True)``;
    # one per partition): what the persistent compile cache stores, and ``load_object``
    # maps into another process.
    objects: tuple[bytes, ...] = field(default=(), repr=False)
    # The functions the code calls that it does not define (LLVM intrinsics aside): what
    # must resolve before ``object_code`` can be loaded elsewhere.
    external_symbols: tuple[str, ...] = ()

    def address(self, function_name: str) -> int:
        """The function's address; refused for code this host cannot run."""
        self.target.check_runnable()
        address = self.engine.get_function_address(function_name)
        if not address:
            raise InternalError(f"the JIT has no function {function_name!r}")
        return address

    def cfunction(self, function_name: str, restype: object, *argtypes: object) -> object:
        """The function as a ctypes callable (it releases the GIL while it runs)."""
        return ctypes.CFUNCTYPE(restype, *argtypes)(self.address(function_name))


def _free_pass_manager(manager: llvm.ModulePassManager) -> None:
    """Free a module pass manager. llvmlite 0.50's ``close()`` does not: the class lists
    ``ObjectRef`` before ``NewPassManager``, so ``ObjectRef``'s empty ``_dispose`` wins.
    Where a later llvmlite fixes that order, ``close()`` does the work."""
    if type(manager)._dispose is llvm.ffi.ObjectRef._dispose and not manager.closed:
        llvm.newpassmanagers.NewPassManager._dispose(manager)
        manager.detach()
    else:
        manager.close()


def _unlocked(name: str) -> Callable[..., object]:
    """llvmlite's C function ``name`` without llvmlite's process-wide lock.

    llvmlite serializes every call into LLVM with one lock, so threads never overlap
    there. LLVM itself allows concurrent work on objects that share nothing (a context,
    its module, a target machine and a pass pipeline per thread): that is the only use
    made of this, by :func:`_compile_part`. ctypes releases the GIL during the call."""
    locked = getattr(llvm.ffi.lib, name)  # llvmlite sets the argument and result types here
    try:
        return llvm.ffi.lib._fntab[name]._cfn  # noqa: SLF001
    except (AttributeError, KeyError, TypeError):
        # Another llvmlite keeps its functions elsewhere: the parts still compile, one
        # after the other, behind the lock.
        return locked


def _emit_object(tm: llvm.TargetMachine, module: llvm.ModuleRef) -> bytes:
    """``tm.emit_object(module)``, outside llvmlite's lock (see :func:`_unlocked`)."""
    with llvm.ffi.OutputString() as error:
        buffer = _unlocked("LLVMPY_TargetMachineEmitToMemory")(tm, module, 1, error)
        if not buffer:
            raise InternalError(f"LLVM could not emit an object: {error}")
    try:
        return ctypes.string_at(
            llvm.ffi.lib.LLVMPY_GetBufferStart(buffer), llvm.ffi.lib.LLVMPY_GetBufferSize(buffer)
        )
    finally:
        llvm.ffi.lib.LLVMPY_DisposeMemoryBuffer(buffer)


def _optimize(
    parsed: llvm.ModuleRef, tm: llvm.TargetMachine, opt_level: int, unlocked: bool = False
) -> None:
    pto = llvm.create_pipeline_tuning_options(speed_level=opt_level)
    try:
        pto.loop_vectorization = True
        pto.slp_vectorization = True
        # Unrolling after vectorization doubles the machine code (and the time to make
        # it: 72 -> 21 ms for a tiled transpose) for no measurable speed on these loops.
        pto.loop_unrolling = False
        builder = llvm.create_pass_builder(tm, pto)
        try:
            manager = builder.getModulePassManager()
            try:
                if unlocked:  # a thread's own module and pipeline (_compile_part)
                    _unlocked("LLVMPY_RunNewModulePassManager")(manager, parsed, builder)
                else:
                    manager.run(parsed, builder)
            finally:
                _free_pass_manager(manager)
        finally:
            builder.close()
    finally:
        pto.close()


def compile_module(
    module: ir.Module,
    *,
    opt_level: int = 3,
    keep_ir: bool = False,
    keep_asm: bool = False,
    target: Target | None = None,
    text: str | None = None,
    keep_object: bool = False,
    parts: list[str] | None = None,
    strength_reduction: bool = False,
) -> CompiledCode:
    """Verify, optimize (O``opt_level``, vectorizers on) and JIT-compile ``module`` for
    ``target`` (default: :func:`resolve_target`'s). ``text``: ``str(module)`` where the
    caller has it already (rendering a big module costs milliseconds). ``keep_object``:
    keep the object code MCJIT made (:attr:`CompiledCode.objects`). ``parts``: the
    module split by ``ir_partition.split_module``, compiled in parallel threads and
    linked in one engine (unless the optimized IR or the assembly is asked for, which
    come from the whole module). ``strength_reduction``: run LLVM's loop strength
    reduction (off for programs, on for the GEMM library: see ``strength_reduction``)."""
    _initialize()
    target = target or resolve_target()
    if parts and len(parts) > 1 and not keep_ir and not keep_asm:
        return _compile_parts(module, parts, opt_level, target, keep_object, strength_reduction)
    timings: dict[str, float] = {}
    start = time.perf_counter()
    text = str(module) if text is None else text
    context = llvm.create_context()
    try:
        parsed = llvm.parse_assembly(text, context=context)
        parsed.verify()
    except RuntimeError as e:
        context.close()
        raise InternalError(f"xlapy produced invalid LLVM IR for {module.name}: {e}") from e
    timings["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    tm = new_target_machine(target)
    assembly = ""
    try:
        if opt_level > 0:
            _optimize(parsed, tm, opt_level)
        optimized_ir = str(parsed) if keep_ir else ""
        if keep_asm:
            copy = parsed.clone()  # code generation rewrites the IR it is given
            try:
                with lsr.section(strength_reduction):
                    assembly = tm.emit_assembly(copy)
            finally:
                copy.close()
    except BaseException:
        parsed.close()
        tm.close()
        context.close()
        raise
    timings["optimize"] = time.perf_counter() - start
    start = time.perf_counter()
    with lsr.section(strength_reduction), _lock:
        # The engine takes the module and the target machine, and frees them with itself.
        try:
            engine = llvm.create_mcjit_compiler(parsed, tm)
        except BaseException:
            parsed.close()
            tm.close()
            context.close()
            raise
        owner = _Engine(engine, context)
        objects: list[bytes] = []
        if keep_object:
            # MCJIT hands each object it makes to its object cache before loading it: the
            # very code this process runs, with its relocations still unapplied.
            engine.set_object_cache(notify_func=lambda _module, data: objects.append(data))
        engine.finalize_object()
    timings["codegen"] = time.perf_counter() - start
    code = CompiledCode(engine, optimized_ir, timings, target, assembly, owner)
    if keep_object and len(objects) == 1:
        code.objects = (objects[0],)
        code.external_symbols = _external_symbols(module)
    return code


def _compile_part(
    text: str, name: str, opt_level: int, target: Target, strength_reduction: bool
) -> tuple[bytes, list]:
    """One part to an object, on the calling thread, with a context and a target
    machine of its own (freed before returning); and its phases' times."""
    start = time.perf_counter()
    context = llvm.create_context()
    try:
        try:
            parsed = llvm.parse_assembly(text, context=context)
            parsed.verify()
        except RuntimeError as e:
            raise InternalError(f"xlapy produced invalid LLVM IR for {name}: {e}") from e
        parsed_at = time.perf_counter()
        tm = new_target_machine(target)
        try:
            if opt_level > 0:
                _optimize(parsed, tm, opt_level, unlocked=True)
            optimized_at = time.perf_counter()
            with lsr.section(strength_reduction):
                data = _emit_object(tm, parsed)
        finally:
            tm.close()
            parsed.close()
    finally:
        context.close()
    end = time.perf_counter()
    return data, [parsed_at - start, optimized_at - parsed_at, end - optimized_at]


def _pool() -> ThreadPoolExecutor:
    """The process's compile threads (made on first use; a forked child, whose copy has
    no threads behind it, makes its own)."""
    with _lock:
        pool, pid = _state.get("pool", (None, 0))  # type: ignore[misc]
        if pool is None or pid != os.getpid():
            workers = max(1, min(3, (os.cpu_count() or 1) - 1))
            pool = ThreadPoolExecutor(workers, thread_name_prefix="xlapy-llvm")
            _state["pool"] = (pool, os.getpid())
        return pool


def parallel_parts() -> int:
    """How many parts a compile is split into: one per core (1: no split), at most 4;
    ``XLAPY_COMPILE_THREADS`` overrides it."""
    setting = os.environ.get(ENV_THREADS, "").strip()
    if setting:
        try:
            return max(1, int(setting))
        except ValueError:
            raise InvalidArgumentError(
                f"{ENV_THREADS}={setting!r}: expected a whole number of threads (1: no split)"
            ) from None
    return max(1, min(4, os.cpu_count() or 1))


def _compile_parts(
    module: ir.Module,
    parts: list[str],
    opt_level: int,
    target: Target,
    keep_object: bool,
    strength_reduction: bool,
) -> CompiledCode:
    """Each part parsed, optimized and made into an object in its own thread (the first
    on the caller's), then the objects linked into one engine. llvmlite's calls release
    the GIL, so the parts' LLVM work overlaps."""
    start = time.perf_counter()
    job = (module.name, opt_level, target, strength_reduction)
    pending = [_pool().submit(_compile_part, p, *job) for p in parts[1:]]
    try:
        results = [_compile_part(parts[0], *job)]
    finally:
        # Every worker finishes (or fails) before this returns: none outlives the call.
        done = [f.exception() or f.result() for f in pending]
    for item in done:
        if isinstance(item, BaseException):
            raise item
        results.append(item)
    compiled = time.perf_counter()
    engine, owner = _object_engine([data for data, _ in results])
    linked = time.perf_counter()
    slowest = max(results, key=lambda r: sum(r[1]))[1]
    timings = {
        "parse": slowest[0],
        "optimize": slowest[1],
        "codegen": slowest[2] + (linked - compiled),
        "llvm_wall": linked - start,
        "parts": float(len(parts)),
    }
    code = CompiledCode(engine, timings=timings, target=target, owner=owner)
    if keep_object:
        code.objects = tuple(data for data, _ in results)
        code.external_symbols = _external_symbols(module)
    return code


def _external_symbols(module: ir.Module) -> tuple[str, ...]:
    """The functions and data ``module`` uses without defining (LLVM intrinsics aside)."""
    names = []
    for value in module.global_values:
        if isinstance(value, ir.Function):
            if value.is_declaration and not value.name.startswith("llvm."):
                names.append(value.name)
        elif isinstance(value, ir.GlobalVariable) and value.initializer is None:
            names.append(value.name)
    return tuple(names)


def load_object(object_code: bytes | tuple[bytes, ...], target: Target) -> CompiledCode:
    """Map objects made by :func:`compile_module` (``keep_object``) in this or another
    process: MCJIT applies their relocations and resolves their external symbols now,
    through the process's libraries, each other's definitions and
    :func:`register_symbol`'s table, which must name every symbol they call (an
    unresolved one stops the process: callers check first)."""
    start = time.perf_counter()
    objects = [object_code] if isinstance(object_code, bytes) else list(object_code)
    engine, owner = _object_engine(objects)
    timings = {"load": time.perf_counter() - start}
    return CompiledCode(engine, timings=timings, target=target, owner=owner)


def _object_engine(objects: list[bytes]) -> tuple[llvm.ExecutionEngine, _Engine]:
    """An engine holding only ``objects`` (their code ready to run), and the owner that
    frees it (:class:`_Engine`'s rule).

    MCJIT wants a module to start from; the empty one is taken back out before
    ``finalize_object``, which would otherwise run the whole code generator on it (~1 ms).
    Nothing is compiled here, so the engine gets a generic target machine (0.05 ms to
    make, against 0.3-0.5 ms for one with the host's feature list)."""
    _initialize()
    context = llvm.create_context()
    empty = llvm.parse_assembly(
        f'target triple = "{host_triple()}"\ntarget datalayout = "{target_data_layout()}"\n',
        context=context,
    )
    tm = llvm.Target.from_default_triple().create_target_machine(
        cpu="x86-64", opt=0, codemodel="jitdefault"
    )
    with _lock:
        try:
            engine = llvm.create_mcjit_compiler(empty, tm)
        except BaseException:
            empty.close()
            tm.close()
            context.close()
            raise
        owner = _Engine(engine, context)
        engine.remove_module(empty)
        empty.close()
        for data in objects:
            engine.add_object_file(llvm.ObjectFileRef.from_data(data))
        engine.finalize_object()
    return engine, owner


def unresolved_symbols(names: list[str]) -> list[str]:
    """Those of ``names`` that resolve to nothing in this process now."""
    _initialize()
    with _lock:
        return [name for name in names if not llvm.address_of_symbol(name)]


@functools.cache
def code_identity() -> str:
    """What, besides the module and the options, decides the machine code: the triple,
    LLVM's and llvmlite's versions (for keys of caches that outlive the process)."""
    version = ".".join(map(str, llvm.llvm_version_info))
    return f"{host_triple()}|llvm={version}|llvmlite={llvmlite.__version__}"
