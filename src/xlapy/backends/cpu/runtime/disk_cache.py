"""A directory of compiled entries shared by processes: the persistent compile cache's store.

One file per key (``<key>.xlc``): a magic line, a SHA-256 of the payload, then the
payload (a JSON header and the object code, see ``persistent_cache``). What this module
promises, whatever the payload:

* Concurrent writers are safe: an entry is written to a temporary file in the same
  directory and renamed over the key with ``os.replace``, which is atomic, so a reader
  sees a whole old entry, a whole new one, or none. Two processes writing the same key
  both succeed; the last rename wins and either entry is valid.
* A torn or corrupted entry (short, wrong magic, checksum mismatch) reads as a miss:
  the caller recompiles and overwrites it.
* The directory stays under a byte bound: after a write, the least recently used
  entries (oldest modification time; a hit touches its entry) are deleted until the
  total fits.

Every failure of the file system (a read-only directory, a full disk, a file removed
under us) degrades to a miss or a skipped write, counted in :func:`stats`: a cache
never makes a compile fail.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading

ENV_DIRECTORY = "XLAPY_COMPILATION_CACHE_DIR"
MAGIC = b"xlapy-compile-cache 1\n"
SUFFIX = ".xlc"
_DIGEST = 32
_stats_lock = threading.Lock()
_stats = {"hits": 0, "misses": 0, "writes": 0, "corrupt": 0, "evictions": 0,
          "uncacheable": 0, "errors": 0}  # fmt: skip


def default_directory() -> str | None:
    """``XLAPY_COMPILATION_CACHE_DIR``, or None (the persistent cache off)."""
    return os.environ.get(ENV_DIRECTORY) or None


def count(name: str, amount: int = 1) -> None:
    """Add to one of the counters of :func:`stats`."""
    with _stats_lock:
        _stats[name] += amount


def stats() -> dict[str, int]:
    """This process's counters: hits, misses (no entry, or one that could not be used),
    writes, corrupt (entries that failed their checksum), evictions, uncacheable
    (programs that hold per-process Python objects or addresses, never stored), errors
    (file-system failures)."""
    with _stats_lock:
        return dict(_stats)


def reset_stats() -> None:
    with _stats_lock:
        for name in _stats:
            _stats[name] = 0


def entry_path(directory: str, key: str) -> str:
    return os.path.join(directory, key + SUFFIX)


def read(directory: str, key: str) -> bytes | None:
    """The payload stored under ``key``, or None (absent, torn or corrupt). A hit marks
    the entry as recently used."""
    path = entry_path(directory, key)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    except OSError:
        count("errors")
        return None
    head = len(MAGIC) + _DIGEST
    if len(data) < head or not data.startswith(MAGIC):
        count("corrupt")
        return None
    payload = data[head:]
    if hashlib.sha256(payload).digest() != data[len(MAGIC) : head]:
        count("corrupt")
        return None
    try:
        os.utime(path)
    except OSError:
        pass  # removed or read-only meanwhile: the payload is still good
    return payload


def write(directory: str, key: str, payload: bytes, max_bytes: int) -> bool:
    """Store ``payload`` under ``key`` atomically, then keep the directory under
    ``max_bytes``. False where the file system refused (counted, never raised)."""
    try:
        os.makedirs(directory, exist_ok=True)
        handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=directory)
    except OSError:
        count("errors")
        return False
    try:
        with os.fdopen(handle, "wb") as f:
            f.write(MAGIC)
            f.write(hashlib.sha256(payload).digest())
            f.write(payload)
        os.replace(temporary, entry_path(directory, key))
    except OSError:
        count("errors")
        try:
            os.unlink(temporary)
        except OSError:
            pass
        return False
    count("writes")
    evict(directory, max_bytes)
    return True


def evict(directory: str, max_bytes: int) -> None:
    """Delete the least recently used entries until the entries total at most
    ``max_bytes`` (stale temporary files of a crashed writer count, and go first)."""
    entries = []
    try:
        with os.scandir(directory) as found:
            for item in found:
                if not item.name.endswith(SUFFIX):
                    continue
                try:
                    info = item.stat()
                except OSError:
                    continue
                entries.append((info.st_mtime_ns, info.st_size, item.path))
    except OSError:
        count("errors")
        return
    total = sum(size for _, size, _ in entries)
    if total <= max_bytes:
        return
    entries.sort()
    for _, size, path in entries:
        if total <= max_bytes:
            break
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass  # another process evicted it first
        except OSError:
            count("errors")
            continue
        total -= size
        count("evictions")


def total_bytes(directory: str) -> int:
    """The bytes the entries of ``directory`` take (for tests and reports)."""
    try:
        with os.scandir(directory) as found:
            return sum(i.stat().st_size for i in found if i.name.endswith(SUFFIX))
    except OSError:
        return 0


__all__ = ["ENV_DIRECTORY", "count", "default_directory", "entry_path", "evict", "read", "reset_stats", "stats", "total_bytes", "write"]
