"""Replicas and partitions: devices that run one program together and meet in collectives."""

from .devices import run_on_devices
from .host_channels import HostChannels
from .hub import DEFAULT_TIMEOUT_SECONDS, CollectiveHub
from .mpi import allgather_objects, current_job, initialize, launched_by_mpi, shutdown
from .process import ProcessInfo, process_info

__all__ = [
    "CollectiveHub", "DEFAULT_TIMEOUT_SECONDS", "HostChannels", "ProcessInfo", "allgather_objects",
    "current_job", "initialize", "launched_by_mpi", "process_info", "run_on_devices", "shutdown",
]  # fmt: skip
