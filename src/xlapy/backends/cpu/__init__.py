"""The CPU backend: HLO compiled to native code for this machine through LLVM (llvmlite).

``compiler`` runs the pass pipeline (``pipeline``, which normalizes layouts with
``layout_normalization``), assigns buffers (``buffers``) and emits one LLVM module per
executable (``codegen``); ``runtime`` JIT-compiles and runs it. The packages:

* ``emit``: the per-instruction emitters, one module per op family (``linalg_dot``,
  ``indexing_gather``, ``reductions_sort``...), and the shared loop machinery
  (``loops``, ``generators``, ``row_groups``);
* ``elemental``: the scalar semantics of every elementwise op on every element type;
* ``math``: the vectorizable approximations of the transcendental functions;
* ``runtime``: what runs the code: the JIT (``jit``), the native thread pool
  (``native_runtime``), BLAS by address (``blas``), the calls back into Python
  (``fallback``), the executable and its memory.

``capabilities`` says, per opcode, which of those paths runs it.
"""

from __future__ import annotations

from typing import Any

from ...hlo import parse_module
from ...hlo.module import HloModule
from ...literal import Literal
from .compiler import CpuBackend
from .runtime.executable import PLATFORM, CpuExecutable, CpuOptions


def run(module: HloModule | str, *arguments: Any, **options: Any) -> Any:
    """Compile and run on the CPU backend: numpy arrays in, numpy arrays out (tests, notebooks)."""
    if isinstance(module, str):
        module = parse_module(module)
    executable = CpuBackend().compile(module, CpuOptions(**options))
    literals = [a if isinstance(a, Literal) else Literal.from_value(a) for a in arguments]
    return executable.execute(literals).to_numpy()


__all__ = ["CpuBackend", "CpuExecutable", "CpuOptions", "PLATFORM", "run"]
