"""Which process of a multi-process job this is: the facts every layer above reads.

One process (index 0 of 1) unless ``xlapy.distributed.initialize()`` joined a job of many
(under ``mpiexec``); then each process owns its local devices and sees the global ones,
global device id = process_index * local_device_count + local ordinal.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class ProcessInfo:
    process_index: int = 0
    process_count: int = 1

    @property
    def is_multi_process(self) -> bool:
        return self.process_count > 1


_lock = threading.Lock()
_current = ProcessInfo()


def process_info() -> ProcessInfo:
    """This process's place in the job (index 0 of 1 until ``initialize``)."""
    return _current


def set_process_info(info: ProcessInfo) -> None:
    """Recorded by ``initialize`` once the job is joined."""
    global _current
    with _lock:
        _current = info


__all__ = ["ProcessInfo", "process_info", "set_process_info"]
