"""Guard pages around every buffer: the CPU backend's memory-safety debug mode.

Native code that writes one element past a buffer usually corrupts a
neighbour silently, and the process dies much later somewhere else (LLVM's
allocator, a double free at exit). In guard mode every buffer of an execution
(arguments, results, constants, each temporary of the arena, each scratch
region an emitter reserves) sits next to a page mapped ``PROT_NONE``, so the
first access past its end (mode ``"after"``) or before its start (mode
``"before"``) faults at the instruction that made it, where a debugger or
``faulthandler`` shows it. Constants are also mapped read-only, so a write
into one faults too. Temporaries are never reused in this mode: a buffer
written after its last reader would otherwise go unnoticed.

Turn it on per compile with ``backend_options={"guard_buffers": "after"}``
(or ``"before"``), or for a whole process with the environment variable
``XLAPY_GUARD_BUFFERS=after|before`` (``1`` means ``after``). It costs two
pages per buffer and a copy of every argument and result, so it is a
debugging tool, not a way to run.

Native code also checks the element indices that come from data (gathers,
scatters, dynamic slices and updates, every read through a generator) against
the buffer they index, and stops on a trap instruction (SIGILL) at the first
one outside it: an index far enough off would jump over a guard page.

What it does not catch: an access computed from loop bounds alone that jumps
over the guard page into another mapping, reads of the unused bytes between a
buffer and the page boundary on its far side (run both modes to cover both
ends), and stack buffers of the native code itself.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import ctypes.util
import mmap
import os
from collections.abc import Iterator

import numpy as np

from ....errors import InvalidArgumentError, ResourceExhaustedError

PAGE = mmap.PAGESIZE
MODES = ("after", "before")
ENVIRONMENT_VARIABLE = "XLAPY_GUARD_BUFFERS"

_PROT_NONE = 0
_PROT_READ = 1
_libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.mprotect.restype = ctypes.c_int


_checking = contextvars.ContextVar("xlapy_check_indices", default=False)


@contextlib.contextmanager
def checking_indices(enabled: bool) -> Iterator[None]:
    """While emitting one module (in the compiling thread): whether emitters add index
    checks (``ir_support.checked_index``)."""
    token = _checking.set(enabled)
    try:
        yield
    finally:
        _checking.reset(token)


def indices_checked() -> bool:
    return _checking.get()


def mode_from(value: object) -> str | None:
    """The guard mode a user's setting names (None: off); a clear error for anything else."""
    if value in (None, False, "", "0", "off", "none"):
        return None
    if value in (True, "1", "on"):
        return "after"
    if value in MODES:
        return value  # type: ignore[return-value]
    raise InvalidArgumentError(
        f"guard_buffers must be one of None, True, 'after' or 'before' "
        f"(or {ENVIRONMENT_VARIABLE}=after|before|1), got {value!r}"
    )


def default_mode() -> str | None:
    """The mode the environment asks for (``XLAPY_GUARD_BUFFERS``)."""
    return mode_from(os.environ.get(ENVIRONMENT_VARIABLE))


def pages(size: int) -> int:
    return -(-size // PAGE) * PAGE


def place(top: int, size: int, mode: str, align: int = 1) -> tuple[int, int, int]:
    """Lay out a buffer of ``size`` bytes at page-aligned ``top`` with its guard page.

    Returns ``(offset, guard_offset, new_top)``: in mode ``"after"`` the buffer ends
    exactly where its guard page starts, in ``"before"`` it starts right after it. A
    buffer of one element type stays aligned to its element size because ``size`` is a
    whole number of elements; a region that packs several types (a while loop's state)
    asks for ``align``, and then ends up to ``align - 1`` bytes before its guard page.
    """
    if mode == "after":
        end = top + pages(size)
        return (end - size) // align * align, end, end + PAGE
    start = top + PAGE
    return start, top, start + pages(size)


class GuardedMapping:
    """An anonymous mapping of whole pages, some of them turned into guard pages."""

    def __init__(self, size: int) -> None:
        self.size = max(PAGE, pages(size))
        try:
            self._map = mmap.mmap(-1, self.size)
        except (OSError, OverflowError) as e:
            raise ResourceExhaustedError(
                f"guard_buffers: cannot map {self.size} bytes for a guarded buffer: {e}"
            ) from None
        handle = ctypes.c_char.from_buffer(self._map)
        self.address = ctypes.addressof(handle)
        del handle  # release the buffer export: numpy views hold the mapping from here on

    def protect(self, offset: int, size: int, readable: bool = False) -> None:
        """Make ``[offset, offset + size)`` (page aligned) inaccessible, or read-only."""
        if size <= 0:
            return
        status = _libc.mprotect(self.address + offset, size, _PROT_READ if readable else _PROT_NONE)
        if status != 0:
            error = ctypes.get_errno()
            raise ResourceExhaustedError(f"guard_buffers: mprotect failed: {os.strerror(error)}")

    def array(self, offset: int, dtype: np.dtype, count: int) -> np.ndarray:
        """A numpy view of ``count`` elements at ``offset``; it keeps the mapping alive."""
        return np.frombuffer(self._map, dtype=dtype, count=count, offset=offset)


def guarded_array(shape: tuple[int, ...], dtype: np.dtype, mode: str) -> np.ndarray:
    """An uninitialized array in a mapping of its own, with a guard page at one end.

    A zero-size array sits right at its guard page, so any access to it faults.
    """
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    nbytes = count * dtype.itemsize
    offset, guard, top = place(0, nbytes, mode)
    mapping = GuardedMapping(top)
    mapping.protect(guard, PAGE)
    if count == 0:
        # numpy cannot view zero bytes at the very end of a buffer it was given whole:
        # the view starts at the guard page, where any read or write faults.
        view = np.frombuffer(mapping._map, dtype=np.uint8, count=0, offset=offset)
        return view.view(dtype).reshape(shape)
    return mapping.array(offset, dtype, count).reshape(shape)


def guarded_copy(array: np.ndarray, mode: str, read_only: bool = False) -> np.ndarray:
    """A copy of ``array`` in a guarded mapping (read-only pages when ``read_only``)."""
    array = np.ascontiguousarray(array)
    copy = guarded_array(array.shape, array.dtype, mode)
    copy[...] = array
    if read_only and copy.nbytes:
        mapping_start = copy.ctypes.data - copy.ctypes.data % PAGE
        _protect_range(mapping_start, copy.ctypes.data + copy.nbytes)
    return copy


def _protect_range(start: int, end: int) -> None:
    size = pages(end - start)
    if _libc.mprotect(start, size, _PROT_READ) != 0:
        raise ResourceExhaustedError(
            f"guard_buffers: mprotect failed: {os.strerror(ctypes.get_errno())}"
        )


class GuardedArena:
    """An executable's arena in guard mode: the compiler's layout, its guard pages unmapped."""

    def __init__(self, size: int, guard_offsets: list[int]) -> None:
        self.mapping = GuardedMapping(size)
        for offset in guard_offsets:
            self.mapping.protect(offset, PAGE)
        self.view = self.mapping.array(0, np.dtype(np.uint8), 1)

    @property
    def address(self) -> int:
        return self.mapping.address


__all__ = [
    "ENVIRONMENT_VARIABLE",
    "GuardedArena",
    "MODES",
    "PAGE",
    "default_mode",
    "guarded_array",
    "guarded_copy",
    "mode_from",
    "place",
]
