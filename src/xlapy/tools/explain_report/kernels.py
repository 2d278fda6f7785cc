"""The LLVM IR and assembly of an executable, cut into one piece per kernel.

The CPU backend emits one LLVM module per executable: a function per computation
(``main``, while bodies...) and, per kernel, a function the thread pool calls plus
its ``.body`` (``fusion_fusion.3`` and ``fusion_fusion.3.body``). Those two are one
kernel to a reader, so they are grouped by name. LLVM's optimizer inlines kernels
that are called directly (a small kernel not split across cores), so a kernel's
optimized IR and assembly can be empty: it then lives inside its caller's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

# ``define ... @name(`` or ``define ... @"name"(`` at the start of a line.
_DEFINE = re.compile(r'^define\b[^@]*@(?:"([^"]+)"|([\w.$-]+))\(', re.M)
# ``.type name,@function`` announces a function in x86 assembly (ELF).
_ASM_TYPE = re.compile(r'^\s*\.type\s+"?([^",\s]+)"?\s*,\s*@function', re.M)
_SUFFIXES = (".body", ".flushed")


@dataclass
class Kernel:
    """One kernel (or computation function): its functions' IR and assembly."""

    name: str
    functions: list[str] = field(default_factory=list)
    emitted_ir: str = ""
    optimized_ir: str = ""
    assembly: str = ""

    @property
    def inlined(self) -> bool:
        """True when the optimizer kept none of its functions (all inlined into a caller)."""
        return not self.optimized_ir


def ir_functions(text: str) -> dict[str, str]:
    """Each function defined in LLVM IR text, by name: from ``define`` to the closing ``}``."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        match = _DEFINE.match(lines[k])
        if match is None:
            k += 1
            continue
        name = match.group(1) or match.group(2)
        end = k
        while end < len(lines) and lines[end] != "}":
            end += 1
        out[name] = "\n".join(lines[k : end + 1])
        k = end + 1
    return out


def asm_functions(text: str) -> dict[str, str]:
    """Each function of x86 assembly text, by name: from its ``.type`` line to ``.size``."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        match = _ASM_TYPE.match(lines[k])
        if match is None:
            k += 1
            continue
        name = match.group(1)
        end = k
        while end < len(lines) and not re.match(
            rf'^\s*\.size\s+"?{re.escape(name)}"?,', lines[end]
        ):
            end += 1
        out[name] = "\n".join(lines[k : end + 1])
        k = end + 1
    return out


def kernel_name(function: str) -> str:
    """The kernel a function belongs to: its name without ``.body``/``.flushed``."""
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if function.endswith(suffix):
                function = function[: -len(suffix)]
                changed = True
    return function


def split_kernels(emitted_ir: str, optimized_ir: str, assembly: str) -> list[Kernel]:
    """Group the functions of the three texts into kernels, in emission order."""
    emitted = ir_functions(emitted_ir)
    optimized = ir_functions(optimized_ir)
    machine = asm_functions(assembly)
    kernels: dict[str, Kernel] = {}
    for function in emitted:
        kernel = kernels.setdefault(kernel_name(function), Kernel(kernel_name(function)))
        kernel.functions.append(function)
    for kernel in kernels.values():
        kernel.emitted_ir = "\n\n".join(emitted[f] for f in kernel.functions)
        kernel.optimized_ir = "\n\n".join(optimized[f] for f in kernel.functions if f in optimized)
        kernel.assembly = "\n\n".join(machine[f] for f in kernel.functions if f in machine)
    return list(kernels.values())


def sanitized(name: str) -> str:
    """An HLO name as the backend spells it in function names (``codegen.unique_name``)."""
    return "".join(c if c.isalnum() or c in "._" else "_" for c in name)


def instruction_of(kernel: str, instruction_names: list[str]) -> str | None:
    """The HLO instruction (or computation) a kernel was emitted for: the longest name
    that the kernel's name ends with (``fusion_fusion.3`` -> ``fusion.3``)."""
    best = None
    for name in instruction_names:
        spelled = sanitized(name)
        if (kernel == spelled or kernel.endswith("_" + spelled)) and (
            best is None or len(spelled) > len(sanitized(best))
        ):
            best = name
    return best


__all__ = [
    "Kernel",
    "asm_functions",
    "instruction_of",
    "ir_functions",
    "kernel_name",
    "sanitized",
    "split_kernels",
]
