"""A caching device-memory allocator, as XLA's BFC allocator and PyTorch's caching
allocator are: ``cuMemAlloc`` and ``cuMemFree`` cost tens of microseconds and
synchronize the device, while a program asks for the same buffer sizes on every call.

The policy, with nothing CUDA in it so that it is tested without a GPU:

- sizes are rounded up: to a multiple of :data:`GRANULE` (512 B) up to
  :data:`SMALL_LIMIT` (1 MiB); above it, to a quarter of the power of two below the size
  (1.25, 1.5, 1.75, 2 x 2^k), so a cached block fits the next request of a similar size
  and no block wastes more than a quarter of itself;
- a released block goes to the free list of its rounded size; an allocation takes a
  block of exactly its rounded size from there (a cache hit) and asks the raw allocator
  only on a miss;
- when the raw allocator runs out of memory (it raises ``ResourceExhaustedError``), the
  cached blocks are freed and the allocation is tried once more; if that fails too, the
  error names the bytes asked for, in use and cached.

Blocks are never split, so every pointer keeps the raw allocator's alignment (256 B and
more for ``cuMemAlloc``). A released block may still be read or written by work queued
on the device's stream; reusing it is safe because all of a device's work runs on that
one stream, in order. Before memory goes back to the driver the allocator calls
``synchronize`` so that no queued work still uses it.
"""

from __future__ import annotations

import collections
import threading
from collections.abc import Callable
from dataclasses import dataclass

from ....errors import InvalidArgumentError, ResourceExhaustedError
from ....memory import format_bytes

GRANULE = 512
SMALL_LIMIT = 1 << 20
# Large sizes round up to a multiple of (power of two below the size) / LARGE_DIVISIONS.
LARGE_DIVISIONS = 4


def rounded_size(nbytes: int) -> int:
    """The block size an allocation of ``nbytes`` takes (0 takes one granule)."""
    if nbytes < 0:
        raise InvalidArgumentError(f"allocate: a negative size ({nbytes} bytes)")
    if nbytes <= SMALL_LIMIT:
        return max(GRANULE, -(-nbytes // GRANULE) * GRANULE)
    step = (1 << (nbytes.bit_length() - 1)) // LARGE_DIVISIONS
    return -(-nbytes // step) * step


@dataclass(eq=False)
class Block:
    """A raw allocation the allocator hands out (identity matters, not value)."""

    pointer: int
    size: int  # the rounded size, what the raw allocator gave


class CachingAllocator:
    """Device memory from ``alloc(nbytes) -> pointer`` and ``free(pointer)``, reused.

    ``alloc`` raises ``ResourceExhaustedError`` when the device has no memory left (the
    GPU device passes wrappers of ``cuMemAlloc``/``cuMemFree`` whose errors map so);
    ``synchronize`` (optional) waits for the work that may still use cached memory before
    any of it is freed. Thread-safe.
    """

    def __init__(
        self,
        alloc: Callable[[int], int],
        free: Callable[[int], None],
        *,
        synchronize: Callable[[], None] | None = None,
        name: str = "device",
    ) -> None:
        self._alloc = alloc
        self._free = free
        self._synchronize = synchronize
        self._name = name
        self._lock = threading.Lock()
        # Released blocks wait here until the lock is free: a release may come from a
        # garbage-collection finalizer that runs while this very thread holds the lock.
        self._pending: collections.deque[Block] = collections.deque()
        self._free_lists: dict[int, list[Block]] = {}
        self._live: set[int] = set()  # id() of the blocks handed out and not yet released
        self._bytes_in_use = 0
        self._bytes_cached = 0
        self._peak_bytes_in_use = 0
        self._allocations = 0
        self._cache_hits = 0
        self._device_allocations = 0
        self._device_frees = 0
        self._oom_retries = 0

    # -- handing out and taking back ------------------------------------------------------------
    def allocate(self, nbytes: int) -> Block:
        """A block of at least ``nbytes`` (at least one granule, so never a null pointer)."""
        size = rounded_size(nbytes)
        with self._lock:
            self._take_back_pending()
            self._allocations += 1
            cached = self._free_lists.get(size)
            if cached:
                block = cached.pop()
                self._bytes_cached -= size
                self._cache_hits += 1
            else:
                block = Block(self._alloc_or_retry(nbytes, size), size)
                self._device_allocations += 1
            self._live.add(id(block))
            self._bytes_in_use += size
            self._peak_bytes_in_use = max(self._peak_bytes_in_use, self._bytes_in_use)
            return block

    def release(self, block: Block) -> None:
        """Give ``block`` back to the cache (a second release before it is handed out again
        is a no-op; :class:`DeviceBuffer` releases once). Never blocks
        (finalizers call it): when the lock is taken, the block waits for its holder."""
        self._pending.append(block)
        if self._lock.acquire(blocking=False):
            try:
                self._take_back_pending()
            finally:
                self._lock.release()

    def empty_cache(self) -> int:
        """Return every cached block to the raw allocator; the bytes freed."""
        with self._lock:
            self._take_back_pending()
            return self._free_cached()

    # -- reading ----------------------------------------------------------------------------------
    def stats(self) -> dict[str, int]:
        """``bytes_in_use`` (handed out, rounded sizes), ``bytes_cached`` (free, kept),
        ``bytes_reserved`` (both: what the raw allocator gave and was not given back),
        ``peak_bytes_in_use``, ``allocations`` (calls of :meth:`allocate`), ``cache_hits``
        (those served from the cache), ``device_allocations`` and ``device_frees`` (calls
        of the raw allocator), ``oom_retries`` (caches emptied to retry an allocation)."""
        with self._lock:
            self._take_back_pending()
            return {
                "bytes_in_use": self._bytes_in_use,
                "bytes_cached": self._bytes_cached,
                "bytes_reserved": self._bytes_in_use + self._bytes_cached,
                "peak_bytes_in_use": self._peak_bytes_in_use,
                "allocations": self._allocations,
                "cache_hits": self._cache_hits,
                "device_allocations": self._device_allocations,
                "device_frees": self._device_frees,
                "oom_retries": self._oom_retries,
            }

    # -- inside the lock --------------------------------------------------------------------------
    def _take_back_pending(self) -> None:
        while self._pending:
            block = self._pending.popleft()
            if id(block) not in self._live:
                continue
            self._live.discard(id(block))
            self._bytes_in_use -= block.size
            self._bytes_cached += block.size
            self._free_lists.setdefault(block.size, []).append(block)

    def _alloc_or_retry(self, nbytes: int, size: int) -> int:
        try:
            return self._alloc(size)
        except ResourceExhaustedError:
            pass
        self._oom_retries += 1
        self._free_cached()
        try:
            return self._alloc(size)
        except ResourceExhaustedError as error:
            raise ResourceExhaustedError(
                f"out of {self._name} memory allocating {format_bytes(nbytes)} ({nbytes} bytes, "
                f"{size} rounded up) with {format_bytes(self._bytes_in_use)} "
                f"({self._bytes_in_use} bytes) in use; the cache was emptied and the "
                f"allocation retried ({error})"
            ) from error

    def _free_cached(self) -> int:
        if not self._bytes_cached:
            return 0
        if self._synchronize is not None:
            self._synchronize()
        freed = 0
        for blocks in self._free_lists.values():
            while blocks:
                block = blocks.pop()
                self._free(block.pointer)
                self._device_frees += 1
                freed += block.size
        self._free_lists.clear()
        self._bytes_cached -= freed
        return freed


__all__ = ["Block", "CachingAllocator", "GRANULE", "SMALL_LIMIT", "rounded_size"]
