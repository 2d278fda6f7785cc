"""The CUDA driver, through cuda-bindings: is there a GPU, and the device object the GPU
executable runs its work through.

A :class:`GpuDevice` owns, for one ordinal: the primary context (the one the CUDA
runtime, hence cuBLAS, uses too), one non-blocking stream on which all of its work runs
in order, and a :class:`~.allocator.CachingAllocator`. Every public method makes the
primary context current first, since callers may be on any thread, and holds the
device's lock around the driver calls. Copies are asynchronous on the stream
(``cuMemcpy*Async``; a non-blocking stream does not wait for the legacy default stream,
so the synchronous copies would not be ordered with the kernels); :meth:`to_host` and
:meth:`read_scalar` wait for the stream.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ....errors import FailedPreconditionError, InvalidArgumentError
from .allocator import CachingAllocator
from .module import DeviceBuffer, GpuModule, PointerParams, load_image
from .status import check, error_for

try:  # optional: without cuda-bindings there is no GPU (cuda_available() says why)
    from cuda.bindings import driver as cuda

    _IMPORT_ERROR = ""
except ImportError as error:  # pragma: no cover
    cuda = None
    _IMPORT_ERROR = f"cuda-bindings is not installed ({error})"

DEFAULT_SHARED_LIMIT = 48 * 1024  # dynamic shared memory a kernel gets without opting in


# -- is there a GPU ---------------------------------------------------------------------------------
def probe_driver(api: Any) -> tuple[int, str]:
    """(device count, why there is none) through the driver module ``api`` (cuda-bindings'
    ``driver``; None when it is not installed); never raises, and the reason is one line."""
    count, reason = _probe_or_reason(api)
    return count, " ".join(reason.split())


def _probe_or_reason(api: Any) -> tuple[int, str]:
    if api is None:
        return 0, _IMPORT_ERROR or "cuda-bindings is not installed"
    try:
        (err,) = api.cuInit(0)
    except Exception as error:  # libcuda.so cannot be found or loaded
        return 0, f"the CUDA driver library could not be loaded ({type(error).__name__}: {error})"
    if err != api.CUresult.CUDA_SUCCESS:
        return 0, f"cuInit failed: {_describe(err)}"
    try:
        err, count = api.cuDeviceGetCount()
    except Exception as error:
        return 0, f"cuDeviceGetCount raised {type(error).__name__}: {error}"
    if err != api.CUresult.CUDA_SUCCESS:
        return 0, f"cuDeviceGetCount failed: {_describe(err)}"
    if count == 0:
        return 0, "the CUDA driver found no device"
    return count, ""


@functools.cache
def _probe() -> tuple[int, str]:
    return probe_driver(cuda)


def _describe(err: Any) -> str:
    return str(error_for(err, "").args[0]).lstrip(": ")


def cuda_available() -> bool:
    """Whether a CUDA device can be used (never raises)."""
    return _probe()[0] > 0


def no_device_reason() -> str:
    """Why :func:`cuda_available` is False, in one line; "" when it is True."""
    return _probe()[1]


def device_count() -> int:
    return _probe()[0]


_devices: dict[int, GpuDevice] = {}
_devices_lock = threading.Lock()


def get_device(ordinal: int = 0) -> GpuDevice:
    """The device of CUDA ordinal ``ordinal`` (made once, then cached)."""
    count, reason = _probe()
    if count == 0:
        raise FailedPreconditionError(f"no CUDA device: {reason}")
    if not 0 <= ordinal < count:
        raise InvalidArgumentError(
            f"get_device: no CUDA device of ordinal {ordinal}; this machine has {count} "
            f"(ordinals 0..{count - 1})"
        )
    with _devices_lock:
        device = _devices.get(ordinal)
        if device is None:
            device = _devices[ordinal] = GpuDevice(ordinal)
        return device


# -- the device -------------------------------------------------------------------------------------
_ATTRIBUTES = {
    "compute_major": "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
    "compute_minor": "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
    "sm_count": "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
    "max_threads_per_block": "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
    "max_shared_per_block": "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK",
    "max_shared_per_block_optin": "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
    "warp_size": "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
}


class GpuDevice:
    """One CUDA device: context, stream, allocator, and the operations the executable
    needs (module loading, launches, transfers). Made by :func:`get_device`."""

    def __init__(self, ordinal: int) -> None:
        self.ordinal = ordinal
        self.lock = threading.RLock()  # around driver and cuBLAS calls of this device
        self._handle = check(cuda.cuDeviceGet(ordinal), f"cuDeviceGet({ordinal})")
        self.context = check(
            cuda.cuDevicePrimaryCtxRetain(self._handle), f"cuDevicePrimaryCtxRetain({ordinal})"
        )
        self.make_current()
        raw_name = check(cuda.cuDeviceGetName(256, self._handle), "cuDeviceGetName")
        self.name = bytes(raw_name).split(b"\0", 1)[0].decode(errors="replace").strip()
        facts = {
            key: check(
                cuda.cuDeviceGetAttribute(getattr(cuda.CUdevice_attribute, attribute), self._handle),
                f"cuDeviceGetAttribute({attribute})",
            )
            for key, attribute in _ATTRIBUTES.items()
        }
        self.compute_capability = (facts["compute_major"], facts["compute_minor"])
        self.arch = f"sm_{facts['compute_major']}{facts['compute_minor']}"
        self.sm_count = facts["sm_count"]
        self.max_threads_per_block = facts["max_threads_per_block"]
        self.max_shared_per_block = facts["max_shared_per_block"]
        self.max_shared_per_block_optin = facts["max_shared_per_block_optin"]
        self.warp_size = facts["warp_size"]
        self.total_memory = int(check(cuda.cuDeviceTotalMem(self._handle), "cuDeviceTotalMem"))
        self.stream = check(
            cuda.cuStreamCreate(cuda.CUstream_flags.CU_STREAM_NON_BLOCKING), "cuStreamCreate"
        )
        self.allocator = CachingAllocator(
            self._raw_alloc, self._raw_free, synchronize=self.synchronize, name=f"GPU {ordinal}"
        )
        self._function_names: dict[int, str] = {}
        self._dynamic_shared_set: dict[int, int] = {}

    def __repr__(self) -> str:
        return f"GpuDevice({self.ordinal}, {self.name!r}, {self.arch})"

    def make_current(self) -> None:
        """Make this device's primary context current on the calling thread."""
        check(cuda.cuCtxSetCurrent(self.context), "cuCtxSetCurrent")

    # -- raw memory, for the allocator (called with the allocator's lock held) -------------------
    def _raw_alloc(self, nbytes: int) -> int:
        self.make_current()
        return int(check(cuda.cuMemAlloc(nbytes), f"cuMemAlloc({nbytes} bytes)"))

    def _raw_free(self, pointer: int) -> None:
        self.make_current()
        check(cuda.cuMemFree(pointer), f"cuMemFree(0x{pointer:x})")

    # -- code -------------------------------------------------------------------------------------
    def load_module(self, image: str | bytes) -> GpuModule:
        """Load PTX text (JIT-compiled by the driver for this device) or a cubin."""
        with self.lock:
            self.make_current()
            return GpuModule(self, load_image(image))

    def name_function(self, function: Any, name: str) -> None:
        """Remember a kernel's name for error messages (``GpuModule.function`` calls it)."""
        self._function_names[int(function)] = name

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        args: Sequence[int],
        shared_bytes: int = 0,
    ) -> None:
        """Enqueue ``function`` on the stream; ``args`` are its parameters, all 64-bit
        device pointers (ints), passed as :class:`~.module.PointerParams`."""
        name = self._function_names.get(int(function), "kernel")
        params = PointerParams(args)
        with self.lock:
            self.make_current()
            if shared_bytes > DEFAULT_SHARED_LIMIT:
                self._opt_in_shared(function, name, shared_bytes)
            result = cuda.cuLaunchKernel(
                function, *grid, *block, shared_bytes, self.stream, params.address, 0
            )
        check(result, f"cuLaunchKernel({name}, grid={tuple(grid)}, block={tuple(block)})")

    def _opt_in_shared(self, function: Any, name: str, shared_bytes: int) -> None:
        if shared_bytes > self.max_shared_per_block_optin:
            raise InvalidArgumentError(
                f"launch of {name}: {shared_bytes} bytes of dynamic shared memory, but "
                f"{self.name} gives a block at most {self.max_shared_per_block_optin}"
            )
        key = int(function)
        if self._dynamic_shared_set.get(key, 0) >= shared_bytes:
            return
        attribute = cuda.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
        check(
            cuda.cuFuncSetAttribute(function, attribute, shared_bytes),
            f"cuFuncSetAttribute({name}, MAX_DYNAMIC_SHARED_SIZE_BYTES={shared_bytes})",
        )
        self._dynamic_shared_set[key] = shared_bytes

    # -- memory -----------------------------------------------------------------------------------
    def allocate(self, nbytes: int) -> DeviceBuffer:
        """``nbytes`` of device memory from the caching allocator (0 gives a valid,
        non-null buffer of ``nbytes`` 0)."""
        return DeviceBuffer(self, self.allocator.allocate(nbytes), nbytes, self.allocator)

    def to_device(self, array: np.ndarray, into: DeviceBuffer | None = None) -> DeviceBuffer:
        """Copy ``array``'s bytes (C order) into ``into`` or a new buffer, on the stream."""
        host = np.ascontiguousarray(array)
        nbytes = host.nbytes
        if into is None:
            into = self.allocate(nbytes)
        elif nbytes > into.nbytes:
            raise InvalidArgumentError(
                f"to_device: {nbytes} bytes ({host.dtype}{list(host.shape)}) do not fit a "
                f"buffer of {into.nbytes}"
            )
        if nbytes:
            with self.lock:
                self.make_current()
                check(
                    cuda.cuMemcpyHtoDAsync(into.pointer, host.ctypes.data, nbytes, self.stream),
                    f"cuMemcpyHtoDAsync({nbytes} bytes)",
                )
        return into

    def to_host(self, buffer: DeviceBuffer, dtype: Any, shape: Sequence[int]) -> np.ndarray:
        """A new array of ``dtype`` and ``shape`` holding the buffer's first bytes (waits
        for the work queued before it)."""
        host = np.empty(tuple(shape), dtype=np.dtype(dtype))
        if host.nbytes > buffer.nbytes:
            raise InvalidArgumentError(
                f"to_host: {np.dtype(dtype)}{list(shape)} needs {host.nbytes} bytes, but the "
                f"buffer holds {buffer.nbytes}"
            )
        with self.lock:
            self.make_current()
            if host.nbytes:
                check(
                    cuda.cuMemcpyDtoHAsync(host.ctypes.data, buffer.pointer, host.nbytes, self.stream),
                    f"cuMemcpyDtoHAsync({host.nbytes} bytes)",
                )
            check(cuda.cuStreamSynchronize(self.stream), "cuStreamSynchronize")
        return host

    def read_scalar(self, buffer: DeviceBuffer, dtype: Any) -> np.generic:
        """The first element of ``buffer`` as a numpy scalar (a small copy and a wait)."""
        return self.to_host(buffer, dtype, ())[()]

    def copy(
        self,
        dst: DeviceBuffer,
        src: DeviceBuffer,
        nbytes: int,
        dst_offset: int = 0,
        src_offset: int = 0,
    ) -> None:
        """Device-to-device copy of ``nbytes``, on the stream."""
        for what, buffer, offset in (("destination", dst, dst_offset), ("source", src, src_offset)):
            if offset < 0 or nbytes < 0 or offset + nbytes > buffer.nbytes:
                raise InvalidArgumentError(
                    f"copy: {nbytes} bytes at offset {offset} are outside the {what} buffer "
                    f"of {buffer.nbytes} bytes"
                )
        if not nbytes:
            return
        with self.lock:
            self.make_current()
            check(
                cuda.cuMemcpyDtoDAsync(
                    dst.pointer + dst_offset, src.pointer + src_offset, nbytes, self.stream
                ),
                f"cuMemcpyDtoDAsync({nbytes} bytes)",
            )

    def memset(self, buffer: DeviceBuffer, byte: int, nbytes: int) -> None:
        """Set the first ``nbytes`` of ``buffer`` to ``byte``, on the stream."""
        if not 0 <= byte <= 255:
            raise InvalidArgumentError(f"memset: {byte} is not a byte value (0..255)")
        if nbytes < 0 or nbytes > buffer.nbytes:
            raise InvalidArgumentError(
                f"memset: {nbytes} bytes, but the buffer holds {buffer.nbytes}"
            )
        if not nbytes:
            return
        with self.lock:
            self.make_current()
            check(
                cuda.cuMemsetD8Async(buffer.pointer, byte, nbytes, self.stream),
                f"cuMemsetD8Async({nbytes} bytes)",
            )

    def synchronize(self) -> None:
        """Wait until all work queued on the stream is done (its errors surface here)."""
        with self.lock:
            self.make_current()
            check(cuda.cuStreamSynchronize(self.stream), "cuStreamSynchronize")

    def memory_info(self) -> tuple[int, int]:
        """(free, total) bytes of device memory, as the driver sees them."""
        with self.lock:
            self.make_current()
            free, total = check(cuda.cuMemGetInfo(), "cuMemGetInfo")
        return int(free), int(total)

    # -- timing -----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def timer(self) -> Iterator[Timing]:
        """Time the work enqueued inside the block with CUDA events::

            with device.timer() as t:
                ...
            t.elapsed_ms   # set when the block ends (waits for the work)
        """
        timing = Timing()
        with self.lock:
            self.make_current()
            flags = cuda.CUevent_flags.CU_EVENT_DEFAULT
            start = check(cuda.cuEventCreate(flags), "cuEventCreate")
            end = check(cuda.cuEventCreate(flags), "cuEventCreate")
            check(cuda.cuEventRecord(start, self.stream), "cuEventRecord")
        try:
            yield timing
            with self.lock:
                self.make_current()
                check(cuda.cuEventRecord(end, self.stream), "cuEventRecord")
                check(cuda.cuEventSynchronize(end), "cuEventSynchronize")
                timing.elapsed_ms = float(
                    check(cuda.cuEventElapsedTime(start, end), "cuEventElapsedTime")
                )
        finally:
            with self.lock:
                self.make_current()
                cuda.cuEventDestroy(start)
                cuda.cuEventDestroy(end)


class Timing:
    """What :meth:`GpuDevice.timer` gives: ``elapsed_ms``, None until the block ends."""

    __slots__ = ("elapsed_ms",)

    def __init__(self) -> None:
        self.elapsed_ms: float | None = None

    def __repr__(self) -> str:
        return f"Timing(elapsed_ms={self.elapsed_ms})"


__all__ = [
    "DeviceBuffer",
    "GpuDevice",
    "GpuModule",
    "Timing",
    "cuda_available",
    "device_count",
    "get_device",
    "no_device_reason",
    "probe_driver",
]
