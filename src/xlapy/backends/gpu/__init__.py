"""The GPU back-end: HLO compiled to PTX through LLVM's NVPTX target and run through the
CUDA driver (seed 004: "the CPU and GPU back-ends currently use LLVM").

``compiler`` runs the pass pipeline (``pipeline``), turns every computation into a
sequence of steps over buffer slots (``emitter`` -> ``program``) with every kernel in one
PTX module (``kernels``: loop fusions and reductions generated with the CPU back-end's
target-independent element generators, as XLA's GPU and CPU back-ends share the
elemental IR emitter); ``executable`` runs the steps through ``runtime`` (the CUDA
driver through cuda-bindings, a caching allocator, cuBLAS for dots). Compiling needs no
GPU; running needs one (``runtime.driver.cuda_available``).
"""

from __future__ import annotations

from .compiler import GpuBackend, compile_program
from .executable import GpuExecutable
from .options import PLATFORM, GpuOptions

__all__ = ["GpuBackend", "GpuExecutable", "GpuOptions", "PLATFORM", "compile_program"]
