"""Device code and device memory as Python objects with lifetimes: :class:`GpuModule` (a
loaded PTX or cubin image, unloaded when collected) and :class:`DeviceBuffer` (a block of
the caching allocator, back to it when released or collected).

Both free their resource through ``weakref.finalize`` with ``atexit`` off: at interpreter
exit the driver tears the context down itself, and a finalizer running after the CUDA
library has gone would crash instead of freeing anything.
"""

from __future__ import annotations

import ctypes
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from ....errors import InternalError, NotFoundError
from .allocator import Block, CachingAllocator
from .status import check, error_for

try:  # optional: see status.py
    from cuda.bindings import driver as cuda
except ImportError:  # pragma: no cover
    cuda = None

JIT_LOG_BYTES = 64 * 1024


class DeviceBuffer:
    """``nbytes`` of device memory at ``pointer`` on ``device`` (``capacity`` >= nbytes is
    what the allocator's block holds). :meth:`release` returns it to the allocator at
    once; otherwise it goes back when the buffer is garbage collected."""

    __slots__ = ("device", "pointer", "nbytes", "capacity", "_finalizer", "__weakref__")

    def __init__(self, device: Any, block: Block, nbytes: int, allocator: CachingAllocator):
        self.device = device
        self.pointer = block.pointer
        self.nbytes = nbytes
        self.capacity = block.size
        self._finalizer = weakref.finalize(self, allocator.release, block)
        self._finalizer.atexit = False

    def release(self) -> None:
        """Give the memory back to the allocator (idempotent). Work already queued on the
        device's stream may still use it; later work reusing it runs after that work."""
        self._finalizer()

    @property
    def released(self) -> bool:
        return not self._finalizer.alive

    def __repr__(self) -> str:
        state = ", released" if self.released else ""
        return f"DeviceBuffer(0x{self.pointer:x}, {self.nbytes} bytes{state})"


class GpuModule:
    """A loaded image; :meth:`function` finds its kernels (cached by name)."""

    def __init__(self, device: Any, handle: Any) -> None:
        self.device = device
        self.handle = handle
        self._functions: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._finalizer = weakref.finalize(self, _unload, device.context, handle)
        self._finalizer.atexit = False

    def function(self, name: str) -> Any:
        """The ``CUfunction`` of the kernel ``name``; ``NotFoundError`` when there is none."""
        with self._lock:
            function = self._functions.get(name)
            if function is None:
                self.device.make_current()
                err, function = cuda.cuModuleGetFunction(self.handle, name.encode())
                if err == cuda.CUresult.CUDA_ERROR_NOT_FOUND:
                    raise NotFoundError(f"cuModuleGetFunction: no kernel named {name!r} in the module")
                check((err,), f"cuModuleGetFunction({name})")
                self._functions[name] = function
                self.device.name_function(function, name)
            return function

    def unload(self) -> None:
        """Unload now (idempotent); functions taken from it must not be launched again."""
        self._finalizer()


def _unload(context: Any, handle: Any) -> None:
    try:
        cuda.cuCtxSetCurrent(context)
        cuda.cuModuleUnload(handle)
    except Exception:  # the driver is shutting down: the module goes with the context
        pass


def load_image(image: str | bytes) -> Any:
    """``cuModuleLoadDataEx`` of PTX text (JIT-compiled for the current context's device)
    or a cubin/fatbin; a PTX the JIT compiler rejects raises ``InternalError`` with its
    error log. Call with the context current."""
    if isinstance(image, str):
        data = image.encode() + b"\0"
        kind = "PTX"
    elif isinstance(image, bytes | bytearray):
        data = bytes(image)
        kind = "PTX" if data.lstrip()[:1] in (b".", b"/") else "cubin"
        if kind == "PTX" and not data.endswith(b"\0"):
            data += b"\0"
    else:
        raise InternalError(f"load_module: expected PTX text or cubin bytes, got {type(image).__name__}")
    error_log = bytearray(JIT_LOG_BYTES)
    info_log = bytearray(JIT_LOG_BYTES)
    option = cuda.CUjit_option
    options = [
        option.CU_JIT_ERROR_LOG_BUFFER,
        option.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        option.CU_JIT_INFO_LOG_BUFFER,
        option.CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    ]
    values = [error_log, JIT_LOG_BYTES, info_log, JIT_LOG_BYTES]
    err, handle = cuda.cuModuleLoadDataEx(data, len(options), options, values)
    if err != cuda.CUresult.CUDA_SUCCESS:
        log = _c_string(error_log) or _c_string(info_log)
        detail = f"the JIT compiler's log for this {kind} image:\n{log}" if log else ""
        raise error_for(err, f"cuModuleLoadDataEx({kind}, {len(data)} bytes)", detail)
    return handle


def _c_string(buffer: bytearray) -> str:
    return bytes(buffer).split(b"\0", 1)[0].decode(errors="replace").strip()


class PointerParams:
    """Kernel parameters that are all 64-bit pointers, packed for ``cuLaunchKernel``.

    The ``kernelParams`` form of the driver API: an array of ``void*``, the i-th pointing
    at the i-th parameter's value (here a ``c_uint64`` holding a device pointer); the
    driver copies the values when the launch is enqueued. cuda-bindings takes the
    address of that array as an int, so the object must live until the call returns.
    """

    __slots__ = ("values", "pointers", "address")

    def __init__(self, args: Sequence[int]) -> None:
        n = len(args)
        self.values = (ctypes.c_uint64 * n)(*args)
        base = ctypes.addressof(self.values)
        self.pointers = (ctypes.c_void_p * n)(*[base + 8 * i for i in range(n)])
        self.address = ctypes.addressof(self.pointers) if n else 0


__all__ = ["DeviceBuffer", "GpuModule", "JIT_LOG_BYTES", "PointerParams", "load_image"]
