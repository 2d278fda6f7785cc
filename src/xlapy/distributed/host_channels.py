"""The host's end of a device's host transfers: ``RecvFromHost`` and ``SendToHost``.

A send or recv with ``is_host_transfer=true`` moves data between the device and the
host program over a channel (XLA's HOST_TO_DEVICE and DEVICE_TO_HOST channel
handles), as infeed and outfeed do over the device's queues. Each device of an
executable has one :class:`HostChannels`: a queue per channel and direction, which
the client fills (``Executable.send_to_device``) and drains
(``Executable.recv_from_device``) and the device's recv and send kernels drain and
fill. A recv from the host waits for its data up to ``timeout`` seconds, then fails
with a ``DeadlineExceededError`` naming the channel.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

from ..errors import DeadlineExceededError
from .hub import DEFAULT_TIMEOUT_SECONDS


class HostChannels:
    """One device's host-transfer queues, by channel id, in each direction."""

    def __init__(self, timeout: float = DEFAULT_TIMEOUT_SECONDS) -> None:
        self.timeout = timeout
        self._lock = threading.Lock()
        self._to_device: dict[int, queue.Queue] = {}
        self._to_host: dict[int, queue.Queue] = {}

    def _queue(self, boxes: dict[int, queue.Queue], channel: int) -> queue.Queue:
        with self._lock:
            box = boxes.get(channel)
            if box is None:
                box = boxes[channel] = queue.Queue()
            return box

    # -- the host's side --------------------------------------------------------------
    def put_to_device(self, channel: int, value: Any) -> None:
        """Queue ``value`` for the device's next recv from the host on ``channel``."""
        self._queue(self._to_device, channel).put(value)

    def get_from_device(self, channel: int, timeout: float | None, what: str) -> Any:
        """The oldest value the device sent to the host on ``channel``."""
        wait = self.timeout if timeout is None else timeout
        try:
            return self._queue(self._to_host, channel).get(timeout=wait)
        except queue.Empty:
            raise DeadlineExceededError(
                f"{what}: the device sent nothing to the host on channel {channel} within "
                f"{wait:g} s; run the program (its send with is_host_transfer=true on channel "
                f"{channel}) first, or from another thread"
            ) from None

    # -- the device's side -------------------------------------------------------------
    def put_to_host(self, channel: int, value: Any) -> None:
        self._queue(self._to_host, channel).put(value)

    def get_from_host(self, channel: int, what: str) -> Any:
        try:
            return self._queue(self._to_device, channel).get(timeout=self.timeout)
        except queue.Empty:
            raise DeadlineExceededError(
                f"{what}: the host sent nothing on channel {channel} within {self.timeout:g} s; "
                f"feed it first with executable.send_to_device({channel}, value)"
            ) from None

    def pending(self, channel: int, to_device: bool) -> int:
        """How many values wait on ``channel`` (to the device, or to the host)."""
        return self._queue(self._to_device if to_device else self._to_host, channel).qsize()


__all__ = ["HostChannels"]
