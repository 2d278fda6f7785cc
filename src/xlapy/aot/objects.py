"""LLVM IR to a relocatable ELF object for a target, and the sizes of what is in it.

The IR is optimized with the same pipeline settings as the JIT's (O3, loop and SLP
vectorizers on, no unrolling after vectorization), so that an object computes bit for
bit what the JIT computes from the same IR for the same CPU; then the target machine
writes position-independent code (``reloc=pic``) in the small code model, which links
into executables and shared libraries alike. Every LLVM target llvmlite carries is
initialized, so x86-64 at any level and aarch64 build from this machine.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass

import llvmlite.binding as llvm

from ..backends.cpu.runtime import jit, strength_reduction
from ..errors import InternalError, InvalidArgumentError

HOST_CPUS = ("", "host", "native")
_DEFAULT_CPU = {"x86_64": "x86-64-v2", "aarch64": "generic"}


@functools.cache
def _initialize() -> None:
    jit.target_machine()  # the JIT's own initialization first (libraries, host tables)
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()


@dataclass(frozen=True)
class ObjectTarget:
    """A triple, CPU and feature string, as LLVM names them."""

    triple: str
    cpu: str
    features: str

    host: bool = False  # the host's CPU with the host's features

    def __str__(self) -> str:
        if self.host:
            return f"{self.triple}, cpu {self.cpu} (this host's CPU and features)"
        return f"{self.triple}, cpu {self.cpu}" + (
            f", features {self.features}" if self.features else ""
        )

    @property
    def arch(self) -> str:
        return self.triple.split("-", 1)[0]

    @property
    def is_x86(self) -> bool:
        return self.arch in ("x86_64", "amd64")


def resolve(triple: str | None, cpu: str | None, features: str | None) -> ObjectTarget:
    """The target of an object: the host's triple by default; when the triple is the
    host's and no CPU is named, the JIT's default (``XLAPY_CPU_TARGET``'s, else the
    host's CPU), so an object and the JIT of one process run the same code; else a
    baseline CPU of the architecture (x86-64-v2, aarch64's generic)."""
    _initialize()
    host_triple = jit.host_triple()
    triple = (triple or host_triple).strip()
    try:
        llvm.Target.from_triple(triple)
    except RuntimeError as e:
        raise InvalidArgumentError(
            f"xlapy aot: unknown target triple {triple!r} ({e}); e.g. x86_64-unknown-linux-gnu "
            "or aarch64-unknown-linux-gnu"
        ) from None
    same_arch = triple.split("-", 1)[0] == host_triple.split("-", 1)[0]
    if cpu is None and same_arch:
        target = jit.resolve_target(None, features)
        return ObjectTarget(triple, target.cpu, target.features, host=target.host)
    if (cpu or "").strip().lower() in HOST_CPUS and same_arch:
        target = jit.resolve_target("host", features)
        return ObjectTarget(triple, target.cpu, target.features, host=target.host)
    if not cpu:
        cpu = _DEFAULT_CPU.get(triple.split("-", 1)[0], "generic")
    if same_arch:
        target = jit.resolve_target(cpu, features)  # checks x86 CPU names and features
        return ObjectTarget(triple, target.cpu, target.features)
    return ObjectTarget(triple, cpu.strip(), (features or "").strip())


def target_machine(target: ObjectTarget) -> llvm.TargetMachine:
    _initialize()
    return llvm.Target.from_triple(target.triple).create_target_machine(
        cpu=target.cpu, features=target.features, opt=3, reloc="pic", codemodel="default"
    )


def _optimize(parsed: llvm.ModuleRef, tm: llvm.TargetMachine) -> None:
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = True
    pto.slp_vectorization = True
    pto.loop_unrolling = False
    builder = llvm.create_pass_builder(tm, pto)
    manager = builder.getModulePassManager()
    manager.run(parsed, builder)


def emit_object(
    ir_text: str,
    target: ObjectTarget,
    linked: tuple[str, ...] = (),
    exported: frozenset = frozenset(),
) -> tuple[bytes, str]:
    """(object bytes, optimized IR) for ``ir_text`` on ``target``; the modules of
    ``linked`` (IR texts) are linked in and made local, all but the ``exported`` names."""
    tm = target_machine(target)
    try:
        parsed = llvm.parse_assembly(ir_text)
        for text in linked:
            parsed.link_in(llvm.parse_assembly(text))
        parsed.verify()
    except RuntimeError as e:
        raise InternalError(f"xlapy aot produced invalid LLVM IR: {e}") from e
    if linked:
        for value in (*parsed.functions, *parsed.global_variables):
            if not value.is_declaration and value.name not in exported:
                value.linkage = "internal"
    parsed.triple = target.triple
    parsed.data_layout = str(tm.target_data)
    _optimize(parsed, tm)
    with strength_reduction.section(True):  # the object holds the GEMM too: LSR on
        return tm.emit_object(parsed), str(parsed)


# -- the footprint: ELF symbols and sections ---------------------------------------------

EM_X86_64 = 62
EM_AARCH64 = 183
_STT = {1: "object", 2: "function"}


@dataclass(frozen=True)
class Symbol:
    name: str
    kind: str  # "function" or "object"
    section: str
    size: int
    bound: str  # "local" or "global"


@dataclass(frozen=True)
class ElfFacts:
    machine: int
    relocatable: bool
    sections: dict[str, int]  # allocated section name -> size
    symbols: list[Symbol]  # defined functions and data objects
    undefined: list[str]


def read_elf(data: bytes) -> ElfFacts:
    """The machine, section sizes, sized symbols and undefined symbols of a 64-bit
    little-endian ELF object (what the LLVM targets above write)."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise InvalidArgumentError("not a 64-bit little-endian ELF object")
    e_type, e_machine = struct.unpack_from("<HH", data, 16)
    e_shoff = struct.unpack_from("<Q", data, 40)[0]
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 58)
    headers = [
        struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + k * e_shentsize) for k in range(e_shnum)
    ]

    def string(table: int, offset: int) -> str:
        start = headers[table][4] + offset
        return data[start : data.index(b"\0", start)].decode()

    names = [string(e_shstrndx, h[0]) for h in headers]
    sections = {
        names[k]: h[5]
        for k, h in enumerate(headers)
        if h[2] & 2 and h[5]  # SHF_ALLOC
    }
    symbols: list[Symbol] = []
    undefined: list[str] = []
    for h in headers:
        if h[1] != 2:  # SHT_SYMTAB
            continue
        strtab, entry_size = h[6], h[9]
        for k in range(1, h[5] // entry_size):
            name_at, info, _other, shndx, _value, size = struct.unpack_from(
                "<IBBHQQ", data, h[4] + k * entry_size
            )
            name = string(strtab, name_at)
            kind, bind = info & 0xF, info >> 4
            if shndx == 0 and name:
                undefined.append(name)
            elif kind in _STT and 0 < shndx < len(names):
                bound = "local" if bind == 0 else "global"
                symbols.append(Symbol(name, _STT[kind], names[shndx], size, bound))
    return ElfFacts(e_machine, e_type == 1, sections, symbols, sorted(undefined))


__all__ = [
    "EM_AARCH64",
    "EM_X86_64",
    "ElfFacts",
    "ObjectTarget",
    "Symbol",
    "emit_object",
    "read_elf",
    "resolve",
    "target_machine",
]
