"""This machine's limits and description, measured in the same run as the workloads.

A time means little alone: 10 ms for a copy is excellent on a laptop and poor on a
server. So the suite reads its workloads against the two limits they run into, measured
on this machine under the same conditions (load, frequency) as the workloads: memory
bandwidth (STREAM read, copy and triad over arrays far larger than the caches) and peak
f32 FLOP/s (an FMA loop for the code path's widest vector ISA, on every core).

There is one measurement, ``xlapy.backends.cpu.roofline``'s, shared with ``xlapy
profile``: its kernels go through xlapy's own JIT for the target xlapy's compiles get,
so with ``XLAPY_CPU_TARGET=x86-64-v3`` the peak is the AVX2 peak even on an AVX-512
machine, and each code path is read against its own roof.
"""

from __future__ import annotations

import os
import platform
import sys
from typing import Any

from xlapy.backends.cpu import roofline
from xlapy.backends.cpu.runtime import jit, llvm_build


def cores() -> int:
    """Cores this process may run on (what xlapy's parallel loops use too)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def measure(quick: bool = False) -> dict[str, Any]:
    """All limits for the target xlapy's compiles get, in GB/s and GFLOP/s; ``quick``
    uses small arrays and short runs (checks the harness; not meaningful)."""
    limits = roofline.measure(quick=quick).as_dict()
    limits["target"] = str(jit.resolve_target())
    return limits


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module: str) -> str | None:
    try:
        return __import__(module).__version__
    except ImportError:
        return None


def description() -> dict[str, Any]:
    """CPU, cores, load and library versions: what a reader needs to compare two runs.

    ``load_average`` is taken before the run: other processes on the cores
    make every time longer and noisier, and the report says so.
    """
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return {
        "cpu": _cpu_model(),
        "cores": cores(),
        "load_average": load,
        "python": sys.version.split()[0],
        "xlapy": _version("xlapy"),
        "numpy": _version("numpy"),
        "jax": _version("jax"),
        "llvmlite": _version("llvmlite"),
        # Compile times depend on it: an LLVM with assertions is ~1.35x slower.
        "llvm": str(llvm_build.describe()),
    }
