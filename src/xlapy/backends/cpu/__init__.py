"""The CPU backend: HLO compiled to native code for this machine through LLVM (llvmlite).

``compiler`` runs the pass pipeline (``pipeline``), normalizes layouts, assigns
buffers (``buffers``), emits one LLVM module per executable (``codegen`` with
``emit_loops``, ``emit_control``, ``generators``, ``elemental``, ``fallback``)
and JIT-compiles it (``jit``); ``executable`` runs it.
"""

from __future__ import annotations

from typing import Any

from ...hlo.module import HloModule
from ...literal import Literal
from .compiler import CpuBackend
from .executable import PLATFORM, CpuExecutable, CpuOptions


def run(module: HloModule | str, *arguments: Any, **options: Any) -> Any:
    """Compile and run on the CPU backend: numpy arrays in, numpy arrays out (tests, notebooks)."""
    if isinstance(module, str):
        from ...hlo import parse_module

        module = parse_module(module)
    executable = CpuBackend().compile(module, CpuOptions(**options))
    literals = [a if isinstance(a, Literal) else Literal.from_value(a) for a in arguments]
    return executable.execute(literals).to_numpy()


__all__ = ["CpuBackend", "CpuExecutable", "CpuOptions", "PLATFORM", "run"]
