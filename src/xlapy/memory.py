"""A check before allocating buffers whose size comes from a user's program.

numpy raises a bare ``MemoryError`` (or worse, the OS kills the process later)
when asked for a buffer no machine could give, e.g. the 400 TB of an
``f32[100000000000000]`` result. Backends call :func:`check_allocation` before
they allocate such a buffer so that the user gets a ``ResourceExhaustedError``
naming what was being allocated and how big it is. The limit is what the
machine could ever give (physical memory plus swap), not what is free right
now: free memory changes from moment to moment and the OS may overcommit, so a
tighter limit would refuse programs that would have run.
"""

from __future__ import annotations

import functools
import os

from .errors import ResourceExhaustedError

# Used when the OS does not say how much memory it has (not POSIX): 1 TiB.
_FALLBACK_LIMIT_BYTES = 1 << 40


@functools.cache
def allocation_limit() -> int:
    """The largest number of bytes one allocation could ever get: RAM plus swap."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_LIMIT_BYTES
    if ram <= 0:
        return _FALLBACK_LIMIT_BYTES
    return ram + _swap_bytes()


def _swap_bytes() -> int:
    """Total swap space from /proc/meminfo (Linux), 0 when unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("SwapTotal:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def format_bytes(nbytes: int) -> str:
    """``nbytes`` for people: 1.5 GiB, 364.0 TiB."""
    size = float(nbytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if size < 1024 or unit == "PiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{nbytes} B"
        size /= 1024
    return f"{nbytes} B"  # pragma: no cover  (the loop always returns)


def check_allocation(nbytes: int, what: str) -> None:
    """Raise ``ResourceExhaustedError`` if ``nbytes`` is more than this machine could give.

    ``what`` names the buffer for the message, e.g. ``"the result f32[100000000000000]
    of broadcast b"``. Call it before ``np.empty``/``np.zeros`` of a size that comes from
    a program; sizes that fit go on to the allocator, which may still fail if memory
    is taken by others at that moment (then numpy's ``MemoryError`` is genuine).
    """
    limit = allocation_limit()
    if nbytes > limit:
        raise ResourceExhaustedError(
            f"{what} needs {format_bytes(nbytes)} ({nbytes} bytes), more than this machine's "
            f"memory and swap together ({format_bytes(limit)}); make the shape smaller or "
            "split the work"
        )


__all__ = ["allocation_limit", "check_allocation", "format_bytes"]
