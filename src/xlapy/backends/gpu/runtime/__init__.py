"""The GPU runtime: the CUDA driver through cuda-bindings (``driver``: devices, modules,
launches, transfers; ``module``: loaded images and device buffers; ``status``: CUDA
errors as xlapy errors), a caching allocator (``allocator``), and cuBLAS for dots
(``cublas``, with ``gemm_args`` mapping row-major requests to cuBLAS's column-major
arguments). Importing it needs no GPU; :func:`cuda_available` says whether there is one.
"""

from __future__ import annotations

from .allocator import CachingAllocator
from .cublas import Cublas, cublas_available
from .driver import GpuDevice, Timing, cuda_available, device_count, get_device, no_device_reason
from .module import DeviceBuffer, GpuModule

__all__ = [
    "CachingAllocator",
    "Cublas",
    "DeviceBuffer",
    "GpuDevice",
    "GpuModule",
    "Timing",
    "cublas_available",
    "cuda_available",
    "device_count",
    "get_device",
    "no_device_reason",
]
