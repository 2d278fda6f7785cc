"""xlapy's runtime library: functions compiled once per machine and called by symbol, as
BLAS routines are (the GEMM: ``linalg_gemm_library``; the FFT: ``linalg_fft_library``;
plain row reductions: ``reduce_library``; plain sorts: ``sort_library``).

Emitting such a function into every program would cost every program that uses it the
function's LLVM time (tens of milliseconds at O3). Instead each variant (a symbol that
names everything its code depends on: vector width, element type, ...) is a small module
of its own, compiled the first time a program needs it, its entry registered with the JIT
under its name (``jit.register_symbol``); programs declare it and call it. A program
loaded from the persistent compile cache names the symbol among its external ones:
:meth:`Library.resolve_symbol` compiles the variant in the new process before the object
is mapped. Ahead-of-time objects have no JIT: they get the function emitted into the
object.

With the persistent compile cache on (``XLAPY_COMPILATION_CACHE_DIR``, or the program's
``CpuOptions.persistent_cache_dir``), a variant's object code is kept in that directory
too (``<kind>-<key>.<kind>``, outside the program entries' count and bound: a few dozen
variants at most), so a new process maps it in a millisecond instead of spending LLVM's
few hundred; the key covers the variant, its target, LLVM's and llvmlite's versions and
the library's own source (and the IR helpers it is made with), and a torn or corrupt
file is a miss. A variant missing there is also looked for in the library directory
below, and a variant this process already has is written to a program's cache directory
that lacks it.

Without the persistent cache, the variants' objects are still kept on disk, in
``XLAPY_GEMM_CACHE_DIR`` (default ``$XDG_CACHE_HOME/xlapy/gemm``, else
``~/.cache/xlapy/gemm``; set it empty to keep nothing; the name is the GEMM's, the first
library here): XLA ships such code compiled inside its binary; here the first process on
a machine compiles each variant once and every later process maps it. That directory
keeps the ``LIBRARY_FILES`` most recently written variants of each kind (older xlapy
versions' are dropped).

A variant for a vector width is compiled for a CPU that has it: the host where the host
has that width as its widest, else the x86-64 level that defines it (x86-64-v4 for
AVX-512, x86-64-v3 for AVX2 and FMA, x86-64-v2 for SSE), so a program made for an older
target never calls instructions its target lacks.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

from llvmlite import ir

from ..runtime import disk_cache, jit, native_runtime
from .linalg_gemm_loops import vector_bits

ENV_LIBRARY_DIRECTORY = "XLAPY_GEMM_CACHE_DIR"
LIBRARY_FILES = 64  # variants of one kind kept in the library directory (the newest)
_LEVELS = {512: "x86-64-v4", 256: "x86-64-v3", 128: "x86-64-v2"}
_lock = threading.Lock()  # one for all libraries: a variant's compile may need another's


def library_target(bits: int) -> jit.Target:
    host = jit.host_target()
    features = set(host.features.split(","))
    widest = 512 if "+avx512f" in features else 256 if {"+avx2", "+fma"} <= features else 128
    return host if widest == bits else jit.Target(_LEVELS[bits])


def variant_bits(fe: object) -> int:
    """The vector width of the variants a program calls: its target's widest (what an
    ahead-of-time build sets for another architecture, ``gemm_vector_bits``, first)."""
    m = fe.m  # type: ignore[attr-defined]
    return getattr(m, "gemm_vector_bits", None) or vector_bits(m.options)


def library_directory() -> str | None:
    """Where variants are kept when no persistent compile cache is on (None: nowhere)."""
    setting = os.environ.get(ENV_LIBRARY_DIRECTORY)
    if setting is not None:
        return setting.strip() or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "xlapy", "gemm")


def _prune(directory: str, suffix: str, keep: int) -> None:
    """Drop all but the ``keep`` newest ``suffix`` files of ``directory`` (best effort)."""
    try:
        files = [e for e in os.scandir(directory) if e.name.endswith(suffix) and e.is_file()]
        files.sort(key=lambda e: e.stat().st_mtime, reverse=True)
        for entry in files[keep:]:
            os.unlink(entry.path)
    except OSError:
        return


class Library:
    """One kind of variant: ``build(module, *flags)`` emits the variant's exported
    function into a new module; ``parse(symbol)`` gives (flags, vector bits) for a
    symbol of this kind, or None; ``sources`` are the modules its code comes from, named
    relative to this folder (their text is part of the stored objects' key)."""

    def __init__(
        self,
        kind: str,
        sources: tuple[str, ...],
        build: Callable[..., object],
        parse: Callable[[str], tuple[tuple, int] | None],
        strength_reduction: bool = True,
    ) -> None:
        self.kind = kind
        self.sources = sources
        self.build = build
        self.parse = parse
        self.strength_reduction = strength_reduction
        self._magic = f"xlapy-{kind}-library 1\n".encode()
        self._digest: str | None = None
        self._compiled: dict[str, jit.CompiledCode] = {}  # symbol -> its code, kept
        self._objects: dict[str, bytes] = {}  # symbol -> object code (to store elsewhere)
        self._kept: set[tuple[str, str]] = set()  # (directory, symbol) stored or found

    # -- the files -----------------------------------------------------------------------
    def _source_digest(self) -> str:
        if self._digest is None:
            digest = hashlib.sha256()
            folder = Path(__file__).parent
            # The library's own modules, and the IR helpers every variant is made with.
            files = [folder / f"{name}.py" for name in ("library", *self.sources)]
            files += [folder.parent / "ir_support.py", folder.parent / "llvm_types.py"]
            for path in files:
                digest.update(path.read_bytes())
            self._digest = digest.hexdigest()
        return self._digest

    def stored_path(self, directory: str, name: str, target: jit.Target) -> str:
        identity = f"{name}|{target.key}|{jit.code_identity()}|{self._source_digest()}"
        key = hashlib.sha256(identity.encode()).hexdigest()
        return os.path.join(directory, f"{self.kind}-{key}.{self.kind}")

    def _read_stored(self, path: str) -> bytes | None:
        try:
            data = Path(path).read_bytes()
        except OSError:
            return None
        head = len(self._magic) + 32
        payload = data[head:]
        checksum = data[len(self._magic) : head]
        if not data.startswith(self._magic) or hashlib.sha256(payload).digest() != checksum:
            return None
        return payload or None

    def _store(self, path: str, object_code: bytes) -> None:
        """Write atomically (a temporary file renamed over the name); failures skipped."""
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            handle, temporary = tempfile.mkstemp(
                prefix=".tmp-", suffix=f".{self.kind}", dir=os.path.dirname(path)
            )
            with os.fdopen(handle, "wb") as f:
                f.write(self._magic + hashlib.sha256(object_code).digest() + object_code)
            os.replace(temporary, path)
        except OSError:
            return

    # -- variants ------------------------------------------------------------------------
    def _compile(
        self, name: str, flags: tuple, target: jit.Target, places: list[str]
    ) -> jit.CompiledCode:
        """The variant's code: the first object stored in ``places``, else compiled now."""
        for directory in places:
            stored = self._read_stored(self.stored_path(directory, name, target))
            if stored is not None:
                self._objects[name] = stored
                return jit.load_object(stored, target)
        module = jit.new_module(name)
        self.build(module, *flags)
        code = jit.compile_module(
            module, target=target, keep_object=True, strength_reduction=self.strength_reduction
        )
        if len(code.objects) == 1:  # one object: the module is never split
            self._objects[name] = code.objects[0]
        return code

    def _keep(self, directory: str, name: str, target: jit.Target) -> None:
        """Store the variant's object in ``directory`` unless it is there already (once
        per process and directory: a program whose cache lacks a variant this process
        made for another program's gets it too, so that its next process finds it)."""
        if (directory, name) in self._kept or name not in self._objects:
            return
        self._kept.add((directory, name))
        path = self.stored_path(directory, name, target)
        if not os.path.exists(path):
            self._store(path, self._objects[name])
            if directory == library_directory():
                _prune(directory, f".{self.kind}", LIBRARY_FILES)

    def ensure(self, name: str, flags: tuple, bits: int, directory: str | None = None) -> str:
        """Compile (or load from ``directory``, the persistent cache's, default
        ``XLAPY_COMPILATION_CACHE_DIR``, or from the library directory) the variant if
        this process has not yet, and keep its object in ``directory`` (else the library
        directory); returns its symbol."""
        with _lock:
            directory = directory or disk_cache.default_directory()
            library = library_directory()
            target = library_target(bits)
            if name not in self._compiled:
                native_runtime.ensure_runtime()  # xlapy_parallel_for, which variants call
                code = self._compile(name, flags, target, [d for d in (directory, library) if d])
                # Not code.address(): that refuses code for a CPU this host lacks, and a
                # program made for such a target still compiles here (never run here).
                jit.register_symbol(name, code.engine.get_function_address(name))
                self._compiled[name] = code
            keep_in = directory or library
            if keep_in:
                self._keep(keep_in, name, target)
        return name

    def address(self, name: str) -> int:
        """The entry of a variant this process has (``ensure`` first), for a caller
        outside generated code (the tests call the GEMM's through ctypes)."""
        with _lock:
            return self._compiled[name].engine.get_function_address(name)

    def declare(
        self,
        module: ir.Module,
        name: str,
        flags: tuple,
        bits: int,
        kind: ir.FunctionType,
        directory: str | None = None,
    ) -> ir.Function:
        """The variant declared in ``module`` (compiled and registered first)."""
        self.ensure(name, flags, bits, directory)
        existing = module.globals.get(name)
        return existing if existing is not None else ir.Function(module, kind, name)

    def program_function(
        self,
        fe: object,
        name: str,
        flags: tuple,
        kind: ir.FunctionType,
        emit: Callable[[ir.Module], ir.Function],
    ) -> ir.Function:
        """Variant ``name`` (``flags``, the vector width last) for the program ``fe``
        emits: declared in its module, the variant compiled or loaded first into the
        program's cache directory, or for ahead-of-time code (no JIT to resolve it)
        ``emit(module)``'s copy of the function inside the object."""
        m = fe.m  # type: ignore[attr-defined]
        if m.aot:
            return emit(m.ir)
        directory = getattr(m.options, "persistent_cache_dir", None)
        return self.declare(m.ir, name, flags, flags[-1], kind, directory)

    def resolve_symbol(self, name: str, directory: str | None = None) -> bool:
        """Compile (or load) and register ``name`` if it is a symbol of this library
        (what code loaded from the persistent compile cache needs before it is mapped);
        False otherwise."""
        parsed = self.parse(name)
        if parsed is None:
            return False
        flags, bits = parsed
        self.ensure(name, flags, bits, directory)
        return True


__all__ = ["LIBRARY_FILES", "Library", "library_directory", "library_target", "variant_bits"]
