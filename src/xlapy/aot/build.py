"""``xlapy.aot.compile``: an HLO module to ``NAME.o`` and ``NAME.h``, no Python at run time.

The program goes through the CPU backend's own pipeline and code generator (the JIT's)
with ``CpuOptions.aot`` set: constants become globals of the module and dots call
xlapy's loop GEMM (``emit.linalg_gemm_loops``) instead of scipy's BLAS. ``entry`` then
adds the runtime's functions, the run context and the C entry ``NAME_run``;
``objects`` optimizes as the JIT does and writes the object for the target.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..backends.cpu.codegen import ModuleEmitter
from ..backends.cpu.compiler import optimized_module
from ..backends.cpu.runtime import jit
from ..backends.cpu.runtime.executable import CpuOptions
from ..backends.cpu.runtime.native_runtime import pool_ir
from ..builder import module_of
from ..errors import InvalidArgumentError, UnimplementedError
from ..opcode import HloOpcode
from . import entry, objects, refusals
from .header import Buffer, header_text

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass
class AotResult:
    """What ``compile`` made: the object's bytes, the header's text and the facts."""

    name: str
    object_bytes: bytes
    header: str
    target: objects.ObjectTarget
    args: list[Buffer]
    results: list[Buffer]
    temp_bytes: int
    threads: int
    external_symbols: list[str]  # C custom-call targets the application links
    ir: str = ""  # the module as emitted (before optimization)
    paths: dict[str, str] = field(default_factory=dict)  # "object"/"header" -> written file

    @property
    def elf(self) -> objects.ElfFacts:
        return objects.read_elf(self.object_bytes)

    @property
    def sizes(self) -> dict[str, int]:
        """Bytes of code, read-only data, data and zeroed data in the object."""
        sections = self.elf.sections
        sums = {"code": 0, "rodata": 0, "data": 0, "bss": 0}
        for section, size in sections.items():
            if section.startswith(".text"):
                sums["code"] += size
            elif section.startswith(".rodata"):
                sums["rodata"] += size
            elif section.startswith(".bss"):
                sums["bss"] += size
            else:
                sums["data"] += size
        return sums


def _leaves(shape: Any, label: str) -> list[Buffer]:
    if shape.is_tuple:
        out: list[Buffer] = []
        for k, s in enumerate(shape.tuple_shapes):
            out.extend(
                _leaves(s, f"{label}{{{k}}}" if "{" not in label else label[:-1] + f",{k}}}")
            )
        return out
    return [Buffer(label, shape)] if shape.is_array else []


def _declared_strides(shape: Any) -> tuple[int, ...] | None:
    """Element strides per dimension of a leaf's declared layout; None when row-major (or
    no layout). Tiled, padded or sub-byte-packed layouts are refused."""
    layout = shape.layout
    rank = shape.rank
    if layout is None or rank < 2:
        return None
    if layout.tiles or layout.element_size_in_bits or layout.padded_dimensions:
        raise UnimplementedError(
            f"xlapy aot: an entry leaf of shape {shape} has a tiled, padded or packed layout; "
            "the C interface takes dense buffers in a dimension order only"
        )
    order = list(layout.minor_to_major)
    if order == list(reversed(range(rank))):
        return None
    strides, step = [0] * rank, 1
    for d in order:
        strides[d] = step
        step *= shape.dimensions[d]
    return tuple(strides)


def _relayouts(buffers: list[Buffer], first_offset: int) -> tuple[list[entry.Relayout], int]:
    """The leaves to stage through temp, placed from ``first_offset``; and the new end."""
    out, offset = [], first_offset
    for k, buffer in enumerate(buffers):
        strides = _declared_strides(buffer.shape)
        if strides is None or buffer.byte_size == 0:
            continue
        out.append(entry.Relayout(
            k, offset, tuple(buffer.shape.dimensions), buffer.shape.element_type.byte_width,
            strides,
        ))  # fmt: skip
        offset += -(-buffer.byte_size // 64) * 64
    return out, offset


def compile(  # noqa: A001  (the name the issue pins: xlapy.aot.compile)
    program: Any,
    name: str,
    outdir: str | None = None,
    target: str | None = None,
    cpu: str | None = None,
    features: str | None = None,
    threads: int = 1,
    rng_seed: int = CpuOptions.rng_seed,
) -> AotResult:
    """Compile ``program`` (an ``HloModule`` or ``XlaComputation``) ahead of time into an
    object for ``target`` (a triple, default the host's) and ``cpu``/``features``;
    with ``outdir``, write ``outdir/name.o`` and ``outdir/name.h``."""
    if not _NAME.match(name):
        raise InvalidArgumentError(f"xlapy aot: --name {name!r} must be a C identifier")
    if threads < 1:
        raise InvalidArgumentError(f"xlapy aot: --threads must be >= 1, got {threads}")
    module = module_of(program, "xlapy aot")
    module.verify()
    object_target = objects.resolve(target, cpu, features)
    if threads > 1 and not object_target.is_x86:
        raise UnimplementedError(
            f"xlapy aot: --threads {threads} for {object_target.triple}: the thread pool is "
            "x86-64 code for now; build single-threaded (--threads 1)"
        )
    refusals.check_module(module)
    options = CpuOptions(
        aot=True, gemm="xlapy", cache=False, guard_buffers=None, profile=False,
        flush_denormals=False, rng_seed=rng_seed,
    )  # fmt: skip
    same_arch = object_target.is_x86 and jit.host_triple().startswith("x86_64")
    if same_arch and not object_target.host:
        # The CPU the kernels are tuned for (the loop GEMM's register tiles).
        options.target_cpu, options.target_features = object_target.cpu, object_target.features
    optimized = optimized_module(module, options)
    refusals.check_module(optimized)  # nothing the passes introduced needs the host either
    emitter = ModuleEmitter(optimized, options)
    if not same_arch:
        emitter.gemm_vector_bits = 128  # e.g. aarch64's NEON
    emitter.overrides[HloOpcode.CUSTOM_CALL] = refusals.emit_external_custom_call
    entry_name = emitter.emit_entry()
    refusals.check_emitted(emitter)
    ir_module = emitter.ir
    entry.define_runtime(ir_module, threads)
    declared = module.entry.program_shape  # the caller's layouts
    args = [
        b for k, p in enumerate(declared.parameters)
        for b in _leaves(p, f"parameter {k} ({module.entry.parameters[k].name})")
    ]  # fmt: skip
    results = _leaves(declared.result, "result")
    arg_relayouts, end = _relayouts(args, -(-emitter.arena_size // 64) * 64)
    result_relayouts, temp_bytes = _relayouts(results, end)
    donated = dict(emitter.buffers[id(optimized.entry)].donated)
    staged = {r.leaf for r in result_relayouts} | {r.leaf for r in arg_relayouts}
    if donated and staged:
        raise UnimplementedError(
            f"xlapy aot: {module.name} donates arguments (input_output_alias) and declares "
            "layouts that are not row-major; an object does one or the other for now"
        )
    temp_bytes = max(temp_bytes, emitter.arena_size)
    run = entry.define_interface(
        ir_module, name, ir_module.get_global(entry_name),
        [a.byte_size for a in args], [r.byte_size for r in results], temp_bytes,
        donated, rng_seed, arg_relayouts, result_relayouts,
    )  # fmt: skip
    external = refusals.external_symbols(optimized)
    exported = {run.name, f"{name}_arg_bytes", f"{name}_result_bytes", f"{name}_temp_bytes"}
    entry.internalize(ir_module, exported | set(external))
    text = str(ir_module)
    linked = (_pool_module(),) if threads > 1 else ()
    object_bytes, _ = objects.emit_object(
        text, object_target, linked, frozenset(exported | set(external))
    )
    header = header_text(name, module.name, str(object_target), args, results, temp_bytes, threads)
    result = AotResult(
        name, object_bytes, header, object_target, args, results, temp_bytes, threads,
        external, text,
    )  # fmt: skip
    if outdir is not None:
        os.makedirs(outdir, exist_ok=True)
        for kind, suffix, content in (("object", ".o", object_bytes), ("header", ".h", header)):
            path = os.path.join(outdir, name + suffix)
            with open(path, "wb" if kind == "object" else "w") as f:
                f.write(content)
            result.paths[kind] = path
    return result


def _pool_module() -> str:
    """The native runtime's pthread pool with its entry renamed to the function
    ``entry`` hands tasks to (``objects.emit_object`` links it in and makes it local)."""
    return pool_ir().replace("@xlapy_parallel_for(", f"@{entry.POOL_FUNCTION}(")


__all__ = ["AotResult", "compile"]
