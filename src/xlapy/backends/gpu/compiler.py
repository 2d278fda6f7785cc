"""Compile an HLO module for an NVIDIA GPU: passes, steps, kernels, PTX.

Compiling needs no GPU: the PTX is made for ``gpu_arch`` (the device's when there is
one, else ``options.DEFAULT_ARCH``) and loaded by the driver at the first run, so
``xlapy compile --platform gpu`` and the ptxas checks of ``make test`` work on
machines without one.
"""

from __future__ import annotations

import os
import time
from typing import Any

from ...hlo.module import HloModule
from .emitter import SequenceBuilder
from .executable import GpuExecutable, GpuProgram
from .kernels import PtxModule
from .options import DEFAULT_ARCH, GpuOptions
from .pipeline import gpu_pipeline
from .runtime.driver import cuda_available, get_device


def resolve_arch(options: GpuOptions) -> str:
    if options.gpu_arch:
        return options.gpu_arch
    if cuda_available():
        return get_device(options.device_ordinal).arch
    return DEFAULT_ARCH


def compile_program(module: HloModule, options: GpuOptions) -> GpuProgram:
    timings: dict[str, float] = {}
    start = time.perf_counter()
    optimized = module.clone()
    gpu_pipeline(options).run(optimized)
    optimized.verify()
    timings["passes"] = time.perf_counter() - start
    arch = resolve_arch(options)
    kernels = PtxModule(optimized.name, arch)
    start = time.perf_counter()
    entry = SequenceBuilder(optimized.entry, kernels).build()
    kernel_count = sum(1 for name in _kernel_names(kernels))
    ptx = kernels.to_ptx() if kernel_count else ""
    timings["codegen"] = time.perf_counter() - start
    if options.dump_dir:
        os.makedirs(options.dump_dir, exist_ok=True)
        base = os.path.join(options.dump_dir, optimized.name)
        with open(base + ".optimized.hlo", "w") as f:
            f.write(optimized.to_text())
        with open(base + f".{arch}.ptx", "w") as f:
            f.write(ptx)
    program = GpuProgram(entry, ptx, arch, optimized, kernel_count)
    program.timings = timings  # type: ignore[attr-defined]
    return program


def _kernel_names(kernels: PtxModule) -> list[str]:
    return [
        f.name
        for f in kernels.ir.functions
        if getattr(f, "calling_convention", "") == "ptx_kernel" and f.blocks
    ]


class GpuBackend:
    """The client's backend object for platform ``gpu``."""

    def compile(self, module: HloModule, options: Any) -> GpuExecutable:
        program = compile_program(module, options)
        return GpuExecutable(program, options, module)


__all__ = ["GpuBackend", "compile_program", "resolve_arch"]
