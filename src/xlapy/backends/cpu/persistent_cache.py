"""The persistent compile cache: compiled programs kept on disk and loaded by a new process.

As JAX's persistent compilation cache: ``CpuOptions.persistent_cache_dir`` (default: the
environment variable ``XLAPY_COMPILATION_CACHE_DIR``; off when unset) names a directory
shared by processes; a compile that misses the in-memory cache looks there before it
runs the passes and LLVM, and a compile that had to run them stores its result.

The key is the in-memory cache's (the module's text, the options that shape the code,
the target CPU and features) plus what decides the machine code beyond them: the host
triple, LLVM's and llvmlite's versions, and xlapy's version and source (the sizes and
modification times of its files, so an edited compiler never loads code of the old one;
``XLAPY_COMPILATION_CACHE_VERSION`` replaces that fingerprint where set).

An entry holds the object code MCJIT made and what an executable needs besides code:
the optimized module's text, entry names, the arena size, the donations, the guard
pages, the symbols the code calls. The module text is parsed only when something asks
for the module (``executable.hlo_modules()``, explain, a thunk's error): running the
code never needs it, and parsing it was most of a warm start (0.3-5 ms). The code is relocatable because
the emitter runs in relocatable mode whenever the cache is on (``codegen.ModuleEmitter``):
constants and BLAS/LAPACK scalar arguments as globals of the module, runtime, BLAS and
libm entry points as external symbols resolved when the object is loaded.

Programs that hold per-process Python objects are never stored (counted as
``uncacheable`` in :func:`stats`): fallback ops, Python custom calls and host callbacks,
C custom-call targets (their addresses), profiling (its counters' address), replicated
programs (the collectives hub), dynamic shapes, and anything whose IR still carries an
absolute address. The store itself (atomic writes, corrupt entries, LRU bound) is
``runtime.disk_cache``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import struct
import threading
import time
from pathlib import Path
from typing import Any

from ...hlo.module import HloModule
from ...hlo.parser import parse_module
from ...version import __version__
from .emit import (
    linalg_conv_library,
    linalg_fft_library,
    linalg_gemm_int8,
    linalg_gemm_library,
    reduce_library,
    sort_library,
)
from .runtime import blas, disk_cache, jit, native_runtime
from .runtime.executable import CompiledProgram, CpuOptions
from .runtime.fallback import InterruptThunk

ENV_DIRECTORY = disk_cache.ENV_DIRECTORY
default_directory = disk_cache.default_directory
ENV_VERSION = "XLAPY_COMPILATION_CACHE_VERSION"
_FORMAT = 3  # 2: several objects, the module's name, parsed lazily; 3: fast_call (no entry)
# A constant integer turned into a pointer: an address of this process baked into the
# code (small ones, such as null, are not addresses of anything).
_ADDRESS = re.compile(r"inttoptr \(i64 (-?\d+) to")
_SMALLEST_ADDRESS = 1 << 16
# Any 64-bit literal in the range where x86-64 Linux maps a process's memory (an id() or
# a pointer compared against): not provably an address, so refused rather than risked.
_LITERAL = re.compile(r"i64 (\d{13,15})\b")
_USER_SPACE = (1 << 40, 1 << 47)


stats = disk_cache.stats
reset_stats = disk_cache.reset_stats


def _source_fingerprint() -> str:
    """What identifies this xlapy: ``XLAPY_COMPILATION_CACHE_VERSION`` where set (a
    deployment that ships one fixed xlapy, or tests that must not see edits made to the
    tree meanwhile), else :func:`_tree_fingerprint`."""
    return os.environ.get(ENV_VERSION) or _tree_fingerprint()


@functools.cache
def _tree_fingerprint() -> str:
    """xlapy's version and the size and modification time of each of its source files
    (one ``scandir`` walk per process, ~1-2 ms): an edited compiler never loads the code
    of the old one."""
    digest = hashlib.sha256(__version__.encode())  # (importlib.metadata took 3-5 ms)
    root = Path(__file__).resolve().parents[2]
    pending = [str(root)]
    while pending:
        with os.scandir(pending.pop()) as found:
            for item in sorted(found, key=lambda e: e.name):
                if item.is_dir():
                    pending.append(item.path)
                elif item.name.endswith(".py"):
                    info = item.stat()
                    digest.update(f"{item.path}|{info.st_size}|{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def persistent_key(memory_key: str) -> str:
    """The on-disk key of a program whose in-memory cache key is ``memory_key``."""
    identity = f"{_FORMAT}|{memory_key}|{jit.code_identity()}|{_source_fingerprint()}"
    return hashlib.sha256(identity.encode()).hexdigest()


def why_not_cacheable(program: CompiledProgram, options: CpuOptions, ir_text: str) -> str:
    """Why ``program`` cannot be loaded by another process ("" where it can)."""
    code = program.code
    if options.num_replicas * options.num_partitions > 1:
        return "replicated (the collectives hub)"
    if options.profile or program.profile_sites:
        return "profiling (the counters' address)"
    if program.host_callbacks:
        return f"Python host callbacks ({', '.join(program.host_callbacks)})"
    if program.fallback_ops or not all(isinstance(t, InterruptThunk) for t in program.thunks):
        return f"fallback ops ({', '.join(program.fallback_ops)})"
    if getattr(program.module, "dynamic_signature", None) is not None:
        return "dynamic shapes"
    if not code.objects:
        return "no object code"
    if any(s.startswith("xlapy_custom_call_") for s in code.external_symbols):
        return "C custom-call targets (their addresses)"
    if any(abs(int(n)) >= _SMALLEST_ADDRESS for n in _ADDRESS.findall(ir_text)):
        return "an absolute address in the code"
    if any(_USER_SPACE[0] <= int(n) < _USER_SPACE[1] for n in _LITERAL.findall(ir_text)):
        return "a constant that may be an address of this process"
    return ""


def _thunk_records(program: CompiledProgram) -> list[list[str]]:
    records = []
    for thunk in program.thunks:
        instruction = thunk.instruction
        records.append(["interrupt", instruction.parent.name, instruction.name])
    return records


def serialize(program: CompiledProgram) -> bytes:
    """An entry's payload: a length, a JSON header, the objects one after another."""
    objects = program.code.objects
    header = {
        "name": program.name,
        "entry_name": program.entry_name,
        "fast_call": program.fast_call,
        "arena_size": program.arena_size,
        "native_ops": program.native_ops,
        "kernel_count": program.kernel_count,
        "row_groups": program.row_groups,
        "donated": sorted(program.donated.items()),
        "guard": program.guard,
        "guard_pages": program.guard_pages,
        "symbols": list(program.code.external_symbols),
        "thunks": _thunk_records(program),
        "object_sizes": [len(o) for o in objects],
        "module": program.module.to_text(),
    }
    data = json.dumps(header).encode()
    return struct.pack("<Q", len(data)) + data + b"".join(objects)


class _ModuleSource:
    """A stored module's text, parsed once on first use (thread-safe)."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._module: HloModule | None = None
        self._lock = threading.Lock()

    def get(self) -> HloModule:
        with self._lock:
            if self._module is None:
                self._module = parse_module(self._text)
            return self._module


class StoredProgram(CompiledProgram):
    """A program loaded from the persistent cache: its optimized module is parsed from
    the entry's text the first time someone reads ``module``."""

    def __init__(self, source: _ModuleSource, name: str, **fields: Any) -> None:
        self._source = source
        self._name = name
        super().__init__(module=None, **fields)  # type: ignore[arg-type]

    @property  # type: ignore[override]
    def module(self) -> HloModule:
        return self._source.get()

    @module.setter
    def module(self, value: HloModule | None) -> None:
        if value is not None:  # a caller replacing the module: it wins over the text
            self._source = _ModuleSource("")
            self._source._module = value

    @property
    def name(self) -> str:
        return self._name

    @property
    def dynamic_signature(self) -> Any:
        return None  # programs with dynamic shapes are never stored


class _StoredInterruptThunk(InterruptThunk):
    """An interrupt thunk of a stored program: it names its instruction by computation
    and name, found in the module only if someone asks (raising the interrupt does not)."""

    def __init__(self, source: _ModuleSource, computation: str, name: str) -> None:
        self._where = (source, computation, name)
        self.reason = "interrupt"

    @property  # type: ignore[override]
    def instruction(self) -> Any:
        source, computation, name = self._where
        return _find(source.get(), computation, name)


def _resolvable(symbols: list[str], directory: str | None = None) -> bool:
    """Register what BLAS provides among ``symbols``; True when every one resolves (an
    unresolved symbol in a loaded object would stop the process)."""
    native_runtime.ensure_runtime()
    missing = jit.unresolved_symbols(symbols)
    # xlapy's runtime library (emit/library: the GEMM's, the FFT's, plain reductions' and
    # sorts' variants), compiled (or loaded from the cache's directory) in this process before
    # the program that calls them is mapped.
    def gemm_library(name: str) -> bool:  # the variant's object is kept in ``directory``
        return linalg_gemm_library.resolve_symbol(name, directory)

    def fft_library(name: str) -> bool:
        return linalg_fft_library.resolve_symbol(name, directory)

    def reductions(name: str) -> bool:
        return reduce_library.resolve_symbol(name, directory)

    def sorts(name: str) -> bool:
        return sort_library.resolve_symbol(name, directory)

    def int8_gemm(name: str) -> bool:
        return linalg_gemm_int8.resolve_symbol(name, directory)

    def convolutions(name: str) -> bool:
        return linalg_conv_library.resolve_symbol(name, directory)

    resolvers = (blas.resolve_symbol, gemm_library, fft_library, reductions, sorts, int8_gemm,
                 convolutions)  # fmt: skip
    if not all(any(resolve(name) for resolve in resolvers) for name in missing):
        return False
    return not jit.unresolved_symbols(missing)


def _find(module: HloModule, computation: str, instruction: str) -> Any:
    for c in module.computations:
        if c.name == computation:
            for i in c.instructions:
                if i.name == instruction:
                    return i
    raise KeyError(f"{computation}/{instruction}")


def deserialize(
    payload: bytes, declared: Any, target: jit.Target, directory: str | None = None
) -> CompiledProgram | None:
    """The program stored in ``payload``, its code mapped into this process; None where
    the entry cannot be used here (malformed, or a symbol this process lacks)."""
    start = time.perf_counter()
    try:
        (size,) = struct.unpack_from("<Q", payload)
        header = json.loads(payload[8 : 8 + size])
        objects, offset = [], 8 + size
        for length in header["object_sizes"]:
            objects.append(payload[offset : offset + length])
            offset += length
        if offset != len(payload) or not objects or not all(objects):
            return None
        if not _resolvable(header["symbols"], directory):
            return None
        source = _ModuleSource(header["module"])
        thunks = [_StoredInterruptThunk(source, c, i) for _, c, i in header["thunks"]]
        fields = {
            "entry_name": header["entry_name"],
            "fast_call": header["fast_call"],
            "arena_size": header["arena_size"],
            "native_ops": header["native_ops"],
            "kernel_count": header["kernel_count"],
            "row_groups": header["row_groups"],
            "donated": {int(k): int(v) for k, v in header["donated"]},
            "guard": header["guard"],
            "guard_pages": list(header["guard_pages"]),
        }
        name = str(header["name"])
    except (ValueError, KeyError, TypeError, struct.error):
        return None
    read = time.perf_counter()
    code = jit.load_object(tuple(objects), target)
    code.external_symbols = tuple(header["symbols"])
    timings = {"cache_parse": read - start, "cache_load": time.perf_counter() - read}
    return StoredProgram(
        source,
        name,
        code=code,
        thunks=thunks,
        fallback_ops=[],
        host_callbacks=[],
        keep_alive=[],
        declared=declared,
        timings=timings,
        **fields,
    )


def load(
    directory: str, memory_key: str, declared: Any, target: jit.Target
) -> CompiledProgram | None:
    """The program stored for ``memory_key``, or None (a miss)."""
    payload = disk_cache.read(directory, persistent_key(memory_key))
    program = deserialize(payload, declared, target, directory) if payload is not None else None
    disk_cache.count("hits" if program is not None else "misses")
    return program


def store(
    directory: str,
    memory_key: str,
    program: CompiledProgram,
    options: CpuOptions,
    ir_text: str,
) -> bool:
    """Store ``program`` if another process can load it (else count it uncacheable)."""
    if why_not_cacheable(program, options, ir_text):
        disk_cache.count("uncacheable")
        return False
    return disk_cache.write(
        directory, persistent_key(memory_key), serialize(program), options.persistent_cache_max_bytes
    )


__all__ = [
    "ENV_DIRECTORY",
    "ENV_VERSION",
    "StoredProgram",
    "default_directory",
    "load",
    "persistent_key",
    "reset_stats",
    "serialize",
    "stats",
    "store",
    "why_not_cacheable",
]
