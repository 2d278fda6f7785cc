"""Replicas and partitions: devices that run one program together and meet in collectives."""

from .devices import run_on_devices
from .host_channels import HostChannels
from .hub import DEFAULT_TIMEOUT_SECONDS, CollectiveHub

__all__ = ["CollectiveHub", "DEFAULT_TIMEOUT_SECONDS", "HostChannels", "run_on_devices"]
