"""Handles a remote client gives out: values (``RemoteData``) and programs
(``RemoteExecutable``) held by the server in the client's session.

Both free their server side when collected: a ``weakref.finalize`` puts the handle on
the client's release queue, which a background thread sends in one ``Deallocate``
(never a gRPC call from inside the garbage collector). ``delete()`` frees at once.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from ..client import CompileOptions
from ..errors import FailedPreconditionError, InvalidArgumentError
from ..hlo.module import HloModule
from ..literal import Literal
from ..shape import ProgramShape, Shape


class RemoteData:
    """A value held by the service (``GlobalData``'s remote twin); ``delete()`` frees it."""

    def __init__(self, client: Any, handle: int, shape: Shape) -> None:
        self._client = client
        self.handle = handle
        self.shape = shape
        self._finalizer = weakref.finalize(self, client.release_later, handle, None)

    def delete(self) -> None:
        if not self._finalizer.alive:
            raise FailedPreconditionError(f"RemoteData #{self.handle} was already deleted")
        self._finalizer.detach()
        self._client.deallocate(handles=[self.handle])

    @property
    def is_deleted(self) -> bool:
        return not self._finalizer.alive

    def __repr__(self) -> str:
        state = "deleted" if self.is_deleted else str(self.shape)
        return f"<RemoteData #{self.handle}: {state}>"


class _FeedProxy:
    """``executable.infeed[d].put(x)`` / ``executable.outfeed[d].get(timeout=...)``, as on
    a local executable, over the wire."""

    def __init__(self, put: Callable[[Any], None] | None, get: Callable[..., Any] | None) -> None:
        self._put, self._get = put, get

    def put(self, value: Any) -> None:
        if self._put is None:
            raise InvalidArgumentError("this is an outfeed: it is read with get()")
        self._put(value)

    def get(self, timeout: float | None = None) -> Any:
        if self._get is None:
            raise InvalidArgumentError("this is an infeed: it is fed with put()")
        return self._get(timeout=timeout)


class RemoteExecutable:
    """A program compiled by the service: call it with numpy, or ``execute`` handles."""

    def __init__(self, client: Any, handle: int, program_shape: ProgramShape, name: str,
                 options: CompileOptions, module: HloModule | None) -> None:  # fmt: skip
        self.client = client
        self.handle = handle
        self.program_shape = program_shape
        self.name = name
        self.options = options
        self.hlo_module = module  # the module sent, when it was built here (None for text)
        self._finalizer = weakref.finalize(self, client.release_later, None, handle)

    @property
    def num_devices(self) -> int:
        return self.options.num_replicas * self.options.num_partitions

    def _check_count(self, arguments: Sequence[Any]) -> None:
        expected = len(self.program_shape.parameters)
        if len(arguments) != expected:
            signature = ", ".join(str(s) for s in self.program_shape.parameters)
            raise InvalidArgumentError(
                f"{self.name} takes {expected} arguments ({signature}), got {len(arguments)}"
            )

    def execute(self, arguments: Sequence[RemoteData] = ()) -> RemoteData:
        """Run on handles; the result stays on the server (a handle)."""
        if not isinstance(arguments, (list, tuple)):
            raise InvalidArgumentError(
                f"execute takes a list or tuple of handles, got {type(arguments).__name__}"
            )
        self._check_count(arguments)
        for i, a in enumerate(arguments):
            if not isinstance(a, RemoteData):
                raise InvalidArgumentError(
                    f"execute: argument {i} must be a RemoteData handle, got {type(a).__name__}"
                )
        return self.client.run(self, arguments, "handle")

    def execute_literals(self, arguments: Sequence[Any]) -> Literal:
        """Run on values (Literals, numpy arrays, scalars, or handles); the result comes
        back as a Literal, all in one round trip."""
        if not isinstance(arguments, (list, tuple)):
            raise InvalidArgumentError(
                f"execute_literals takes a list or tuple, got {type(arguments).__name__}"
            )
        self._check_count(arguments)
        return self.client.run(self, arguments, "literal")

    def __call__(self, *arguments: Any) -> Any:
        """numpy arrays, scalars, Literals or RemoteData in; numpy arrays out (one round
        trip when everything fits in a message)."""
        self._check_count(arguments)
        return self.client.run(self, arguments, "numpy")

    # -- infeed and outfeed ------------------------------------------------------------------
    def transfer_to_infeed(self, value: Any, device: int = 0) -> None:
        self.client.feed(self, device, value)

    def transfer_from_outfeed(self, device: int = 0, timeout: float | None = None) -> Any:
        return self.client.drain(self, device, timeout)

    @property
    def infeed(self) -> list[_FeedProxy]:
        return [
            _FeedProxy(lambda v, d=d: self.transfer_to_infeed(v, d), None)
            for d in range(self.num_devices)
        ]

    @property
    def outfeed(self) -> list[_FeedProxy]:
        return [
            _FeedProxy(None, lambda timeout=None, d=d: self.transfer_from_outfeed(d, timeout))
            for d in range(self.num_devices)
        ]

    def delete(self) -> None:
        if self._finalizer.alive:
            self._finalizer.detach()
            self.client.deallocate(executables=[self.handle])

    def __repr__(self) -> str:
        return f"<RemoteExecutable {self.name} on {self.client.target}: {self.program_shape}>"


__all__ = ["RemoteData", "RemoteExecutable"]
