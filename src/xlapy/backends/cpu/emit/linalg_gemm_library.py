"""xlapy's GEMM compiled once per process and called by symbol, as BLAS routines are.

Emitting the GEMM into every program would cost every program with a dot the GEMM's
LLVM time (tens of milliseconds at O3). Instead each variant (vector width, element
type, transposes, accumulate: ``linalg_gemm_loops.variant_name``) is a small module of
its own, compiled the first time a program needs it, its entry registered with the JIT
under its name (``jit.register_symbol``); programs declare it and call it. A program
loaded from the persistent compile cache names the symbol among its external ones:
:func:`resolve_symbol` compiles the variant in the new process before the object is
mapped. Ahead-of-time objects have no JIT: they get the function emitted into the
object (``linalg_gemm_loops.gemm_function``).

With the persistent compile cache on (``XLAPY_COMPILATION_CACHE_DIR``, or the program's
``CpuOptions.persistent_cache_dir``), a variant's object code is kept in that directory
too (``gemm-<key>.gemm``, outside the program entries' count and bound: a few dozen
variants at most), so a new process maps it in a millisecond instead of spending LLVM's
few hundred; the key covers the variant, its target, LLVM's and llvmlite's versions and
the GEMM's own source, and a torn or corrupt file is a miss. A variant missing there is
also looked for in the library directory below, and a variant this process already has
is written to a program's cache directory that lacks it.

Without the persistent cache, the variants' objects are still kept on disk, in
``XLAPY_GEMM_CACHE_DIR`` (default ``$XDG_CACHE_HOME/xlapy/gemm``, else
``~/.cache/xlapy/gemm``; set it empty to keep nothing): the GEMM is xlapy's runtime
library, which XLA ships compiled inside its binary; here the first process on a machine
compiles each variant once (a few hundred milliseconds of LLVM, mostly the unrolled
micro-kernels and edge cases) and every later process maps it. That directory keeps the
``LIBRARY_FILES`` most recently written variants (older xlapy versions' are dropped).

The variant for a vector width is compiled for a CPU that has it: the host where the
host has that width as its widest, else the x86-64 level that defines it (x86-64-v4 for
AVX-512, x86-64-v3 for AVX2 and FMA, x86-64-v2 for SSE), so a program made for an older
target never calls instructions its target lacks.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from llvmlite import ir

from ....types import PrimitiveType
from ..llvm_types import NotEmittable
from ..runtime import disk_cache, jit, native_runtime
from .linalg_gemm_loops import (
    GEMM_LOOP_TYPES,
    GEMM_TYPE,
    emit_gemm_call,
    gemm_function,
    variant_name,
    vector_bits,
)

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

ENV_LIBRARY_DIRECTORY = "XLAPY_GEMM_CACHE_DIR"
LIBRARY_FILES = 64  # variants kept in the library directory (the newest)
_LEVELS = {512: "x86-64-v4", 256: "x86-64-v3", 128: "x86-64-v2"}
_NAME = re.compile(r"^xlapy_gemm_(512|256|128)_([a-z0-9]+)_([NT])([NT])(_acc)?$")
_MAGIC = b"xlapy-gemm-library 1\n"
_SOURCES = ("linalg_gemm_library", "linalg_gemm_loops", "linalg_gemm_kernel",
            "linalg_gemm_pack", "linalg_gemm_blocking", "linalg_gemm_complex")  # fmt: skip
_lock = threading.Lock()
_compiled: dict[str, jit.CompiledCode] = {}  # symbol -> its code, kept for the process
_objects: dict[str, bytes] = {}  # symbol -> its object code (to store where it is missing)
_kept: set[tuple[str, str]] = set()  # (directory, symbol) stored or found this process


def _library_target(bits: int) -> jit.Target:
    host = jit.host_target()
    features = set(host.features.split(","))
    widest = 512 if "+avx512f" in features else 256 if {"+avx2", "+fma"} <= features else 128
    return host if widest == bits else jit.Target(_LEVELS[bits])


def _source_digest() -> str:
    """The GEMM's own source (what decides its code besides LLVM and the target)."""
    digest = hashlib.sha256()
    folder = Path(__file__).parent
    for name in _SOURCES:
        digest.update((folder / f"{name}.py").read_bytes())
    return digest.hexdigest()


_digest: list[str] = []


def _stored_path(directory: str, name: str, target: jit.Target) -> str:
    if not _digest:
        _digest.append(_source_digest())
    identity = f"{name}|{target.key}|{jit.code_identity()}|{_digest[0]}"
    return os.path.join(directory, f"gemm-{hashlib.sha256(identity.encode()).hexdigest()}.gemm")


def _read_stored(path: str) -> bytes | None:
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    head = len(_MAGIC) + 32
    payload = data[head:]
    if not data.startswith(_MAGIC) or hashlib.sha256(payload).digest() != data[len(_MAGIC) : head]:
        return None
    return payload or None


def library_directory() -> str | None:
    """Where variants are kept when no persistent compile cache is on (None: nowhere)."""
    setting = os.environ.get(ENV_LIBRARY_DIRECTORY)
    if setting is not None:
        return setting.strip() or None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "xlapy", "gemm")


def _prune(directory: str, keep: int) -> None:
    """Drop all but the ``keep`` newest variant files of ``directory`` (best effort)."""
    try:
        files = [e for e in os.scandir(directory) if e.name.endswith(".gemm") and e.is_file()]
        files.sort(key=lambda e: e.stat().st_mtime, reverse=True)
        for entry in files[keep:]:
            os.unlink(entry.path)
    except OSError:
        return


def _store(path: str, object_code: bytes) -> None:
    """Write atomically (a temporary file renamed over the name); failures are skipped."""
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=".tmp-", suffix=".gemm", dir=os.path.dirname(path)
        )
        with os.fdopen(handle, "wb") as f:
            f.write(_MAGIC + hashlib.sha256(object_code).digest() + object_code)
        os.replace(temporary, path)
    except OSError:
        return


def _compile(name: str, flags: tuple, target: jit.Target, places: list[str]) -> jit.CompiledCode:
    """The variant's code: the first object stored in ``places``, else compiled now."""
    for directory in places:
        stored = _read_stored(_stored_path(directory, name, target))
        if stored is not None:
            _objects[name] = stored
            return jit.load_object(stored, target)
    module = jit.new_module(name)
    gemm_function(module, *flags, exported=True, mxcsr=True)
    # LSR folds the micro-kernels' pointer increments into addressing modes: on here.
    code = jit.compile_module(module, target=target, keep_object=True, strength_reduction=True)
    if len(code.objects) == 1:  # one object: the module is never split
        _objects[name] = code.objects[0]
    return code


def _keep(directory: str, name: str, target: jit.Target) -> None:
    """Store the variant's object in ``directory`` unless it is there already (once per
    process and directory: a program whose cache lacks a variant this process made
    for another program's gets it too, so that its next process finds it)."""
    if (directory, name) in _kept or name not in _objects:
        return
    _kept.add((directory, name))
    path = _stored_path(directory, name, target)
    if not os.path.exists(path):
        _store(path, _objects[name])
        if directory == library_directory():
            _prune(directory, LIBRARY_FILES)


def ensure_variant(
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    bits: int,
    directory: str | None = None,
) -> str:
    """Compile (or load from ``directory``, the persistent cache's, default
    ``XLAPY_COMPILATION_CACHE_DIR``, or from the library directory) the variant if this
    process has not yet, and keep its object in ``directory`` (else the library
    directory); returns its symbol."""
    name = variant_name(et, trans_a, trans_b, accumulate, bits)
    with _lock:
        directory = directory or disk_cache.default_directory()
        library = library_directory()
        target = _library_target(bits)
        if name not in _compiled:
            native_runtime.ensure_runtime()  # xlapy_parallel_for, which the GEMM calls
            flags = (et, trans_a, trans_b, accumulate, bits)
            code = _compile(name, flags, target, [d for d in (directory, library) if d])
            # Not code.address(): that refuses code for a CPU this host lacks, and a program
            # made for such a target still compiles here (it is never handed out to run).
            address = code.engine.get_function_address(name)
            jit.register_symbol(name, address)
            _compiled[name] = code
        keep_in = directory or library
        if keep_in:
            _keep(keep_in, name, target)
    return name


def declare(
    module: ir.Module,
    et: PrimitiveType,
    trans_a: bool,
    trans_b: bool,
    accumulate: bool,
    bits: int,
    directory: str | None = None,
) -> ir.Function:
    """The variant declared in ``module`` (compiled and registered first)."""
    name = ensure_variant(et, trans_a, trans_b, accumulate, bits, directory)
    existing = module.globals.get(name)
    return existing if existing is not None else ir.Function(module, GEMM_TYPE, name)


def emit_gemm_loops(
    fe: FunctionEmitter,
    et: PrimitiveType,
    m: int,
    n: int,
    k: int,
    a: ir.Value,
    lda: int,
    b_: ir.Value,
    ldb: int,
    c: ir.Value,
    ldc: int,
    *,
    trans_a: str = "N",
    trans_b: str = "N",
    accumulate: bool = False,
    builder: ir.IRBuilder | None = None,
    n_at: ir.Value | None = None,
) -> None:
    """``linalg_dot.emit_gemm``'s call, made to xlapy's GEMM: the process's library in the
    JIT, the function emitted into the object for ahead-of-time code."""
    if et not in GEMM_LOOP_TYPES:
        raise NotEmittable(f"no xlapy GEMM for {et.hlo_name}")
    bits = getattr(fe.m, "gemm_vector_bits", None) or vector_bits(fe.m.options)
    flags = (et, trans_a == "T", trans_b == "T", accumulate, bits)
    if fe.m.aot:
        function = gemm_function(fe.m.ir, *flags)
    else:
        directory = getattr(fe.m.options, "persistent_cache_dir", None)
        function = declare(fe.m.ir, *flags, directory)
    operands = (a, lda, b_, ldb, c, ldc)
    emit_gemm_call(fe, function, et, bits, m, n, k, operands, builder, n_at)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """Compile (or load from ``directory``, the program's cache directory, default
    ``XLAPY_COMPILATION_CACHE_DIR``) and register ``name`` if it is a GEMM variant's
    symbol (what code loaded from the persistent compile cache needs before it is
    mapped); False otherwise."""
    match = _NAME.match(name)
    if match is None:
        return False
    bits, type_name, trans_a, trans_b, accumulate = match.groups()
    et = next((t for t in GEMM_LOOP_TYPES if t.hlo_name == type_name), None)
    if et is None:
        return False
    ensure_variant(et, trans_a == "T", trans_b == "T", accumulate is not None, int(bits), directory)
    return True


__all__ = ["declare", "emit_gemm_loops", "ensure_variant", "resolve_symbol"]
