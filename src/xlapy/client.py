"""The client API of seed 004: data behind handles, compile once, run many times.

``xlapy.local_client()`` gives a client for a platform; values move in with
``transfer_to_server`` (a ``GlobalData`` handle) and out with ``transfer``
(a ``Literal``); ``compile`` turns an ``XlaComputation`` (or ``HloModule``) into
an ``Executable`` that can be run on handles or called directly with numpy
arrays. This module is the one place that ties a computation to a backend.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .builder import XlaComputation, module_of
from .client_devices import Device, DeviceAssignment, DeviceSet
from .client_sharded import (
    ShardedSignature,
    is_partitioned,
    partition_for_compile,
    should_partition,
)
from .distributed import allgather_objects
from .errors import (
    FailedPreconditionError,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnimplementedError,
)
from .hlo.module import HloModule
from .literal import Literal
from .opcode import HloOpcode
from .shape import UNBOUNDED_SIZE, ProgramShape, Shape
from .xla_data_sharding import ChannelHandle, ChannelType

DEFAULT_PLATFORM = "cpu"


@dataclass
class CompileOptions:
    """How to compile: device counts and backend-specific options.

    ``device_assignment``: which global device runs each (replica, partition), a
    ``DeviceAssignment`` or a replicas x partitions array of device ids (default: the
    ids in order). ``use_spmd_partitioning``: run xlapy's SPMD partitioner before the
    backend; None (the default) does when ``num_partitions > 1`` and the module is a
    global program with shardings, not one already partitioned (``client_sharded``).
    """

    num_replicas: int = 1
    num_partitions: int = 1
    backend_options: dict[str, Any] = field(default_factory=dict)
    device_assignment: Any = None
    use_spmd_partitioning: bool | None = None

    def __post_init__(self) -> None:
        for name in ("num_replicas", "num_partitions"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(
                    f"CompileOptions.{name} must be an int >= 1, got {value!r}"
                )


class GlobalData:
    """A handle to a value held by the service; ``delete()`` frees it."""

    def __init__(self, client: LocalClient, handle: int, shape: Shape) -> None:
        self._client = client
        self.handle = handle
        self.shape = shape

    def delete(self) -> None:
        self._client._release(self.handle)

    @property
    def is_deleted(self) -> bool:
        return not self._client._holds(self.handle)

    def __repr__(self) -> str:
        state = "deleted" if self.is_deleted else str(self.shape)
        return f"<GlobalData #{self.handle}: {state}>"


def _to_literal(value: Any, what: str) -> Literal:
    if isinstance(value, Literal):
        return value
    try:
        return Literal.from_value(value)
    except Exception as e:  # noqa: BLE001  (any conversion failure is the caller's input)
        raise InvalidArgumentError(
            f"{what}: cannot turn {type(value).__name__} into a value: {e}"
        ) from None


def _host_value(value: Any, shape: Shape, what: str) -> Literal:
    """``value`` as a Literal of ``shape`` for a host transfer; Python scalars and lists
    take the shape's element type, arrays and Literals must already have it."""
    if not isinstance(value, (Literal, np.ndarray, np.generic)) and shape.is_array:
        try:
            value = np.asarray(value, dtype=shape.element_type.dtype)
        except (TypeError, ValueError) as e:
            raise InvalidArgumentError(f"{what}: cannot turn {value!r} into {shape}: {e}") from None
    literal = _to_literal(value, what)
    if not literal.shape.compatible(shape):
        raise InvalidArgumentError(
            f"{what}: the program receives {shape} on this channel, got {literal.shape}"
        )
    return literal


def _argument_list(arguments: Any, what: str) -> list[Any]:
    """``arguments`` as a list, or ``InvalidArgumentError`` if it is not a list or tuple
    (an array or a Literal passed where the list of arguments belongs, say)."""
    if not isinstance(arguments, (list, tuple)):
        raise InvalidArgumentError(
            f"{what} takes a list or tuple of arguments, got {type(arguments).__name__}"
        )
    return list(arguments)


def _check_bounded_argument(got: Shape, expected: Shape, what: str) -> None:
    """Accept ``got`` for a parameter of ``expected`` with bounded dynamic dimensions when
    each of them holds at most its bound (a size 0..bound, as PjRt takes it) and the rest
    match; otherwise the error says which dimension is wrong and what would fit."""
    mismatch = f"{what}: expected {expected}, got {got}"
    if not (
        expected.is_array
        and got.is_array
        and not expected.is_static
        and got.element_type == expected.element_type
        and got.rank == expected.rank
    ):
        raise InvalidArgumentError(mismatch)
    for d, (size, bound) in enumerate(zip(got.dimensions, expected.dimensions, strict=True)):
        if expected.is_dynamic_dimension(d):
            if bound != UNBOUNDED_SIZE and size > bound:
                raise InvalidArgumentError(
                    f"{mismatch}: dimension {d} has size {size}, more than its bound {bound} "
                    f"(a bounded dimension takes any size from 0 to {bound})"
                )
        elif size != bound:
            raise InvalidArgumentError(
                f"{mismatch}: dimension {d} has size {size}; it is static, of size {bound}"
            )


def _donatable(value: Any, shape: Shape) -> bool:
    """Whether ``value`` is an array a donated parameter of ``shape`` writes into."""
    return (
        type(value) is np.ndarray
        and shape.is_array
        and value.flags.writeable
        and value.flags.c_contiguous
        and value.dtype == shape.element_type.dtype
        and value.shape == shape.dimensions
    )


def _leaf_at(result: Any, index: tuple[int, ...]) -> Any:
    for k in index:
        if not isinstance(result, tuple) or k >= len(result):
            return None
        result = result[k]
    return result


def _with_leaf(result: Any, index: tuple[int, ...], leaf: Any) -> Any:
    if not index:
        return leaf
    k, rest = index[0], index[1:]
    return result[:k] + (_with_leaf(result[k], rest, leaf),) + result[k + 1 :]


class Executable:
    """A compiled computation: run it on handles, or call it with numpy arrays."""

    def __init__(
        self,
        client: LocalClient,
        module: HloModule,
        backend_executable: Any,
        options: CompileOptions,
        *,
        device_assignment: DeviceAssignment | None = None,
        partitioning_report: Any = None,
        sharded: ShardedSignature | None = None,
    ) -> None:
        self.client = client
        self.hlo_module = module
        self.options = options
        self._executable = backend_executable
        self.device_assignment = device_assignment or DeviceAssignment.default(
            options.num_replicas, options.num_partitions
        )
        # The SPMD partitioner's report (printable) when the client partitioned the module.
        self.partitioning_report = partitioning_report
        # Global shapes and entry shardings when the program runs one piece per partition.
        self.sharded_signature = sharded
        self._fast_call = getattr(backend_executable, "call_numpy", None)
        # Whether _donate can have anything to do (read once: __call__ is the hot path).
        alias = self.hlo_module.config.input_output_alias
        self._may_donate = alias is not None and bool(alias.entries)
        entry = module.entry.program_shape
        self.program_shape = ProgramShape(entry.parameters, entry.result, entry.parameter_names)

    @property
    def fallback_ops(self) -> list[str]:
        """Ops that run through interpreter kernels rather than native code."""
        return list(getattr(self._executable, "fallback_ops", []))

    @property
    def host_callbacks(self) -> list[str]:
        """Python custom-call targets the compiled code calls back (not fallbacks)."""
        return list(getattr(self._executable, "host_callbacks", []))

    @property
    def hlo_module_after_optimizations(self) -> HloModule:
        """The module as the backend compiled it (after passes and fusion)."""
        return getattr(self._executable, "hlo_module_after_optimizations", self.hlo_module)

    @property
    def num_devices(self) -> int:
        return self.options.num_replicas * self.options.num_partitions

    def _check_arguments(self, literals: Sequence[Literal]) -> list[Literal]:
        params = self.program_shape.parameters
        names = self.program_shape.parameter_names or tuple(
            f"parameter {i}" for i in range(len(params))
        )
        if len(literals) != len(params):
            signature = ", ".join(f"{n}: {s}" for n, s in zip(names, params, strict=True))
            raise InvalidArgumentError(
                f"{self.hlo_module.name} takes {len(params)} arguments ({signature}), "
                f"got {len(literals)}"
            )
        checked = []
        for i, (literal, expected, name) in enumerate(zip(literals, params, names, strict=True)):
            if not literal.shape.compatible(expected):
                what = f"argument {i} ({name}) of {self.hlo_module.name}"
                _check_bounded_argument(literal.shape, expected, what)
            if (
                expected.is_array
                and expected.layout is not None
                and literal.shape.layout != expected.layout
            ):
                literal = literal.relayout(expected.layout)
            checked.append(literal)
        return checked

    def execute_literals(self, arguments: Sequence[Literal]) -> Literal:
        """Run on ``arguments``, a list or tuple with one value per parameter; the result
        is a Literal.

        Arguments are meant to be Literals; numpy arrays and Python scalars are accepted
        too and converted as ``__call__`` converts them (a copy: nothing is donated).
        """
        arguments = _argument_list(arguments, "execute_literals")
        literals = [_to_literal(a, f"argument {i}") for i, a in enumerate(arguments)]
        return self._executable.execute(self._check_arguments(literals))

    @property
    def local_logical_ids(self) -> list[int]:
        """Logical ids (replica * partitions + partition) of the devices this process runs,
        by the device assignment: all of them in a single-process job."""
        return self.client._device_set.local_logical_ids(self.device_assignment)

    def _run_devices(self, arguments: Sequence[Sequence[Any]], what: str) -> list[Literal]:
        """Every local device on its arguments (one list per local device, any form
        ``_to_literal`` takes, or GlobalData); one Literal per local device."""
        per_device = [
            self._check_arguments(
                [
                    self.client._literal_of(a)
                    if isinstance(a, GlobalData)
                    else _to_literal(a, f"argument {i} of device {d}")
                    for i, a in enumerate(_argument_list(args, f"{what} device {d}"))
                ]
            )
            for d, args in enumerate(_argument_list(arguments, what))
        ]
        local = self.local_logical_ids
        if len(per_device) != len(local):
            raise InvalidArgumentError(
                f"{what}: {self.hlo_module.name} runs on {len(local)} local devices "
                f"({self.options.num_replicas} replica(s) x {self.options.num_partitions} "
                f"partition(s), {self.num_devices} in all); got arguments for {len(per_device)}"
            )
        if len(local) == self.num_devices:
            return self._executable.execute_replicated(per_device)
        # another process runs the rest: the backend runs only ours (multi-process jobs)
        return self._executable.execute_replicated(per_device, local_devices=local)

    def execute_replicated(self, arguments: Sequence[Sequence[Any]]) -> list[Any]:
        """Run every device with its own arguments; one numpy result per device.

        ``arguments`` is a list (or tuple) with one entry per local device (all devices
        in a single-process job), each a list of that device's arguments (Literals,
        numpy arrays, scalars or GlobalData).
        """
        return [r.to_numpy() for r in self._run_devices(arguments, "execute_replicated")]

    def execute_sharded(
        self, arguments: Sequence[Sequence[Any]], *, return_handles: bool = True
    ) -> list[list[Any]]:
        """Run every local device on its own pieces; per device, one value per output.

        ``arguments``: one list per local device (in ``local_logical_ids`` order) of that
        device's pieces: GlobalData handles, numpy arrays or Literals. The result has the
        same form, one list per local device of its outputs (a tuple root is untupled,
        as PjRt returns output buffers): GlobalData handles by default, which the next
        ``execute_sharded`` takes as they are, so chained calls never go through numpy;
        ``return_handles=False`` gives numpy arrays instead.
        """
        results = self._run_devices(arguments, "execute_sharded")
        out = []
        for literal in results:
            leaves = list(literal.tuple_elements) if literal.shape.is_tuple else [literal]
            if return_handles:
                out.append([self.client._hold(leaf) for leaf in leaves])
            else:
                out.append([leaf.to_numpy() for leaf in leaves])
        return out

    def _call_sharded(self, arguments: Sequence[Any]) -> Any:
        """``__call__`` of a sharded program: global arrays in, global arrays out."""
        signature = self.sharded_signature
        partitions = self.options.num_partitions
        globals_ = [
            self.client.transfer(a).to_numpy() if isinstance(a, GlobalData) else a
            for a in arguments
        ]
        pieces = signature.shard_arguments(globals_, self.hlo_module.name)
        local = self.local_logical_ids
        run = self._run_devices([pieces[i % partitions] for i in local], "__call__")
        results = [r.to_numpy() for r in run]
        by_logical = dict(zip(local, results, strict=True))
        if len(by_logical) < self.num_devices:
            # The other processes ran the rest: every process gets every piece (over MPI),
            # so each returns the global result. Every process makes this call, in order.
            for pieces_of_process in allgather_objects(by_logical):
                by_logical.update(pieces_of_process)
        per_replica = []
        for replica in range(self.options.num_replicas):
            ids = range(replica * partitions, (replica + 1) * partitions)
            missing = [i for i in ids if i not in by_logical]
            if missing:
                raise InternalError(
                    f"{self.hlo_module.name}: no process returned the pieces of logical "
                    f"devices {missing} of replica {replica}"
                )
            per_replica.append(signature.assemble([by_logical[i] for i in ids]))
        return per_replica[0] if len(per_replica) == 1 else per_replica

    def execute(self, arguments: Sequence[GlobalData]) -> GlobalData:
        """Run on handles (a list or tuple of ``GlobalData``); the result is a handle."""
        literals = [self.client._literal_of(a) for a in _argument_list(arguments, "execute")]
        return self.client._hold(self.execute_literals(literals))

    def __call__(self, *arguments: Any) -> Any:
        """numpy arrays, scalars, Literals or GlobalData in; numpy arrays (tuples nested) out.

        A replicated executable runs every device on the same arguments and
        returns the list of per-device results. A sharded one (partitioned by the
        client, or a partitioned module with entry shardings) takes global arrays, cuts
        them by its entry shardings, runs every device on its pieces and returns the
        global result assembled from the output shardings (a list per replica when
        there are several replicas).

        Donation (the module's ``input_output_alias``), the same on every backend:
        when the argument for a donated parameter is a writable, C-contiguous numpy
        array of exactly the parameter's dtype and shape, the aliased result is
        written into that array and that very object is returned in the result's
        place (the caller's array is updated in place). Any other form of the
        argument (a Literal, a list, a scalar, a GlobalData, a read-only or
        non-contiguous array, another dtype) is never modified: the result is a
        fresh array. Only whole array parameters are donated this way, and only by
        single-device executables.
        """
        if self.sharded_signature is not None:
            return self._call_sharded(arguments)
        if self._fast_call is not None:
            result = self._fast_call(arguments)
            if result is not None:
                return self._donate(arguments, result) if self._may_donate else result
        literals = [
            self.client._literal_of(a)
            if isinstance(a, GlobalData)
            else _to_literal(a, f"argument {i}")
            for i, a in enumerate(arguments)
        ]
        if self.num_devices > 1:
            return self.execute_replicated([literals] * self.num_devices)
        return self._donate(arguments, self.execute_literals(literals).to_numpy())

    def profile(self, *arguments: Any, iterations: int = 1, capacity: int = 1 << 16) -> Any:
        """Run ``iterations`` times with every kernel timed by the native code; returns
        a ``Profile`` (``backends/cpu/profile_report``): ``.kernels`` (one row per thunk:
        time, bytes, FLOPs, roofline fractions, share), ``.table()``,
        ``.to_chrome_trace()`` (Perfetto's JSON), ``.result`` (the last run's result,
        as ``__call__`` returns it). The module is compiled again with timestamps
        (``CpuOptions.profile``; cached like any compile); this executable's own code
        stays as it is and pays nothing. ``capacity`` bounds the events of one run (a
        long while loop records one per body kernel per trip; the rest are counted as
        dropped). CPU platform only."""
        if self.client.platform != "cpu":
            raise UnimplementedError(
                f"profiling {self.hlo_module.name}: per-kernel profiles are taken on the cpu "
                f"platform only, and this executable was compiled for {self.client.platform}; "
                "compile it with local_client('cpu') to profile it"
            )
        if self.num_devices != 1:
            raise UnimplementedError(
                f"profiling {self.hlo_module.name}: it runs on {self.num_devices} devices; "
                "only single-device executables can be profiled"
            )
        literals = [
            self.client._literal_of(a)
            if isinstance(a, GlobalData)
            else _to_literal(a, f"argument {i}")
            for i, a in enumerate(arguments)
        ]
        literals = self._check_arguments(literals)
        options = self.client._backend_options(self.options)
        options.profile = True
        profiled = self.client._backend.compile(self.hlo_module, options)
        report = profiled.profile(literals, iterations=iterations, capacity=capacity)
        report.result = report.result.to_numpy()
        return report

    def _donate(self, arguments: Sequence[Any], result: Any) -> Any:
        """``result`` with every aliased output written into its donated argument (see
        ``__call__``). A backend that already computed into the donor (the CPU's fast
        path) is left alone; one that did not (the interpreter, or a CPU run that could
        not reuse the buffer) gets the copy here, so both behave the same."""
        alias = self.hlo_module.config.input_output_alias
        if alias is None or self.num_devices != 1:
            return result
        parameters = self.program_shape.parameters
        for entry in alias.entries:
            number = entry.parameter_number
            if entry.parameter_index or number >= len(arguments):
                continue
            donor = arguments[number]
            if not _donatable(donor, parameters[number]):
                continue
            index = tuple(entry.output_index)
            if index == (0,) and not isinstance(result, tuple):
                index = ()  # JAX writes {0} for the one output of a non-tuple root
            leaf = _leaf_at(result, index)
            if leaf is donor or not isinstance(leaf, np.ndarray):
                continue
            if leaf.shape != donor.shape or leaf.dtype != donor.dtype:
                continue
            np.copyto(donor, leaf)
            result = _with_leaf(result, index, donor)
        return result

    @property
    def infeed(self) -> Any:
        """Per-device infeed queues (``executable.infeed[device].put(array)``)."""
        return [f.infeed for f in getattr(self._executable, "feeds", [])]

    @property
    def outfeed(self) -> Any:
        return [f.outfeed for f in getattr(self._executable, "feeds", [])]

    # -- host transfers: send/recv with is_host_transfer=true -----------------------------
    def send_to_device(self, channel: int | ChannelHandle, value: Any, device: int = 0) -> None:
        """Feed the program's ``RecvFromHost`` on ``channel`` (XLA's host-to-device transfer).

        ``channel`` is the channel id (or the HOST_TO_DEVICE ``ChannelHandle`` given to
        ``ops.RecvFromHost``); ``value`` (numpy array, scalar or Literal) must have the
        recv's shape. Values queue per channel and device, so they may be fed before the
        run or from another thread during it, one per recv executed; a recv nobody feeds
        fails after the executable's ``collective_timeout`` with ``DeadlineExceededError``.
        This is the host side that PJRT's ``ExecuteOptions.recv_callbacks`` provide, shaped
        like ``transfer_to_infeed``.
        """
        number = self._host_channel_id(channel, ChannelType.HOST_TO_DEVICE, "send_to_device")
        shape = self._host_transfer_shape(number, HloOpcode.RECV, "send_to_device")
        what = f"send_to_device(channel {number}, device {device})"
        literal = _host_value(value, shape, what)
        self._host_channels(device, what).put_to_device(number, literal)

    def recv_from_device(
        self, channel: int | ChannelHandle, device: int = 0, timeout: float | None = None
    ) -> Any:
        """Fetch what the program's ``SendToHost`` sent on ``channel`` (XLA's
        device-to-host transfer), oldest first, as a numpy array.

        ``channel`` is the channel id (or the DEVICE_TO_HOST ``ChannelHandle`` given to
        ``ops.SendToHost``). Waits up to ``timeout`` seconds (default: the executable's
        ``collective_timeout``) and then raises ``DeadlineExceededError`` naming the
        channel. The host side of PJRT's ``ExecuteOptions.send_callbacks``, shaped like
        ``transfer_from_outfeed``.
        """
        number = self._host_channel_id(channel, ChannelType.DEVICE_TO_HOST, "recv_from_device")
        self._host_transfer_shape(number, HloOpcode.SEND, "recv_from_device")
        what = f"recv_from_device(channel {number}, device {device})"
        return self._host_channels(device, what).get_from_device(number, timeout, what)

    def _host_channel_id(self, channel: Any, kind: ChannelType, what: str) -> int:
        if isinstance(channel, ChannelHandle):
            if channel.type not in (kind, ChannelType.CHANNEL_TYPE_INVALID):
                raise InvalidArgumentError(
                    f"{what}: channel handle {channel.handle} is a {channel.type.name} "
                    f"channel; {what} takes a {kind.name} channel"
                )
            return channel.handle
        if isinstance(channel, (bool, np.bool_)) or not isinstance(channel, (int, np.integer)):
            raise InvalidArgumentError(
                f"{what}: channel must be a channel id (int) or a ChannelHandle, got "
                f"{type(channel).__name__}"
            )
        return int(channel)

    def _host_transfer_shape(self, channel: int, opcode: HloOpcode, what: str) -> Shape:
        """The data shape of the host send or recv on ``channel``; an error naming the
        program's host channels when it has none there."""
        found: dict[HloOpcode, dict[int, Shape]] = {HloOpcode.SEND: {}, HloOpcode.RECV: {}}
        for instruction in self.hlo_module.instructions():
            if instruction.opcode in found and instruction.attributes.get("is_host_transfer"):
                number = int(instruction.attributes.get("channel_id", 0) or 0)
                shape = instruction.shape.tuple_shapes[0]
                found[instruction.opcode][number] = shape
        if channel not in found[opcode]:
            recvs = sorted(found[HloOpcode.RECV]) or "none"
            sends = sorted(found[HloOpcode.SEND]) or "none"
            side = "recv from the host" if opcode is HloOpcode.RECV else "send to the host"
            raise InvalidArgumentError(
                f"{what}: {self.hlo_module.name} has no {side} (a {opcode.value} with "
                f"is_host_transfer=true) on channel {channel}; its host channels: recv from "
                f"host {recvs}, send to host {sends}"
            )
        return found[opcode][channel]

    def _host_channels(self, device: int, what: str) -> Any:
        channels = getattr(self._executable, "host_channels", None)
        if channels is None:
            raise UnimplementedError(
                f"{what}: the {self.client.platform} backend has no host transfers yet"
            )
        if (
            isinstance(device, bool)
            or not isinstance(device, (int, np.integer))
            or not (0 <= device < len(channels))
        ):
            raise InvalidArgumentError(
                f"{what}: device must be an int in 0..{len(channels) - 1} (the executable runs "
                f"on {self.options.num_replicas} replica(s) x {self.options.num_partitions} "
                f"partition(s), replica-major), got {device!r}"
            )
        return channels[int(device)]

    def __repr__(self) -> str:
        return (
            f"<Executable {self.hlo_module.name} on {self.client.platform}: {self.program_shape}>"
        )


# The backends build on this module's neighbours (passes, evaluator), so a platform's
# module is imported when a client for it is made: the one place where xlapy picks a
# backend, and the only reason `import xlapy` does not load LLVM.
def _interpreter_platform() -> tuple[Any, Any]:
    """(backend class, options class) of the interpreter."""
    from .backends.interpreter import InterpreterBackend, InterpreterOptions

    return InterpreterBackend, InterpreterOptions


def _cpu_platform() -> tuple[Any, Any]:
    """(backend class, options class) of the CPU compiler."""
    from .backends.cpu import CpuBackend, CpuOptions

    return CpuBackend, CpuOptions


def _gpu_platform() -> tuple[Any, Any]:
    """(backend class, options class) of the GPU compiler (compiles without a GPU; runs
    on one through the CUDA driver)."""
    from .backends.gpu import GpuBackend, GpuOptions

    return GpuBackend, GpuOptions


# platform name -> loader of its (backend class, options class)
_PLATFORMS = {
    "cpu": _cpu_platform,
    "gpu": _gpu_platform,
    "interpreter": _interpreter_platform,
}
_PLANNED: dict[str, str] = {}


class LocalClient:
    """A client whose service runs in this process."""

    def __init__(self, platform: str, device_count: int | None = None) -> None:
        if platform not in _PLATFORMS:
            if platform in _PLANNED:
                raise UnimplementedError(f"platform {platform!r}: {_PLANNED[platform]}")
            raise NotFoundError(
                f"unknown platform {platform!r}; available: {', '.join(sorted(_PLATFORMS))}"
            )
        self.platform = platform
        self._device_set = DeviceSet(platform, device_count)
        backend_class, self._options_class = _PLATFORMS[platform]()
        self._backend = backend_class()
        self._store: dict[int, Literal] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def _backend_options(self, options: CompileOptions) -> Any:
        return self._options_class(
            num_replicas=options.num_replicas,
            num_partitions=options.num_partitions,
            **options.backend_options,
        )

    # -- devices --------------------------------------------------------------------------
    def devices(self) -> list[Device]:
        """Every device of the job, by global id (this process's and the others')."""
        return self._device_set.devices()

    def local_devices(self) -> list[Device]:
        """The devices this process runs."""
        return self._device_set.local_devices()

    def device_count(self) -> int:
        return len(self.devices())

    def local_device_count(self) -> int:
        return len(self.local_devices())

    def process_index(self) -> int:
        return self._device_set.process.process_index

    # -- data -----------------------------------------------------------------------------
    def transfer_to_server(self, value: Any) -> GlobalData:
        """Move a numpy array, scalar or Literal to the service; returns its handle."""
        return self._hold(_to_literal(value, "transfer_to_server"))

    def transfer(self, data: GlobalData) -> Literal:
        """The value behind a handle, as a Literal."""
        return self._literal_of(data)

    def _hold(self, literal: Literal) -> GlobalData:
        with self._lock:
            handle = next(self._ids)
            self._store[handle] = literal
        return GlobalData(self, handle, literal.shape)

    def _holds(self, handle: int) -> bool:
        return handle in self._store

    def _release(self, handle: int) -> None:
        with self._lock:
            if self._store.pop(handle, None) is None:
                raise FailedPreconditionError(f"GlobalData #{handle} was already deleted")

    def _literal_of(self, data: GlobalData) -> Literal:
        if not isinstance(data, GlobalData):
            raise InvalidArgumentError(f"expected a GlobalData handle, got {type(data).__name__}")
        if data._client is not self:
            raise InvalidArgumentError(f"{data!r} belongs to another client")
        literal = self._store.get(data.handle)
        if literal is None:
            raise FailedPreconditionError(f"GlobalData #{data.handle} has been deleted")
        return literal

    # -- compiling and running ----------------------------------------------------------------
    def compile(
        self, computation: XlaComputation | HloModule, options: CompileOptions | None = None
    ) -> Executable:
        """Compile once; run the result many times."""
        # A shape-polymorphic StableHLO module (xlapy.stablehlo.PolymorphicModule) has no
        # one HloModule: it compiles itself through this client once per call signature.
        compile_per_signature = getattr(computation, "compile_per_signature", None)
        if compile_per_signature is not None:
            return compile_per_signature(self, options)
        module = module_of(computation, "compile")
        options = options or CompileOptions()
        assignment = self._device_set.assignment_for(
            options.num_replicas, options.num_partitions, options.device_assignment, module.name
        )
        report = sharded = None
        if should_partition(module, options.num_partitions, options.use_spmd_partitioning):
            module, report, sharded = partition_for_compile(module, options.num_partitions)
        else:
            module = module.clone()
            if options.num_partitions > 1 and is_partitioned(module):
                sharded = ShardedSignature.of_partitioned(module, options.num_partitions)
        module.replica_count = options.num_replicas
        module.num_partitions = options.num_partitions
        try:
            backend_executable = self._backend.compile(module, self._backend_options(options))
        except RecursionError:
            # The walks over the graph and the call graph use explicit stacks; this is
            # the net under any walk that still recurses, so that the user is told what
            # to change rather than shown Python's stack.
            raise ResourceExhaustedError(
                f"compiling {module.name} for {self.platform}: the program nests deeper "
                f"than this compiler can follow (Python's recursion limit is "
                f"{sys.getrecursionlimit()}); flatten the nesting of calls, control flow "
                "or tuples"
            ) from None
        return Executable(
            self,
            module,
            backend_executable,
            options,
            device_assignment=assignment,
            partitioning_report=report,
            sharded=sharded,
        )

    def execute(
        self,
        computation: XlaComputation | HloModule | Executable,
        arguments: Sequence[GlobalData] = (),
    ) -> GlobalData:
        executable = (
            computation if isinstance(computation, Executable) else self.compile(computation)
        )
        return executable.execute(arguments)

    def execute_and_transfer(
        self,
        computation: XlaComputation | HloModule | Executable,
        arguments: Sequence[GlobalData] = (),
    ) -> Literal:
        return self.transfer(self.execute(computation, arguments))

    def __repr__(self) -> str:
        return f"<LocalClient {self.platform}: {self.device_count()} device(s)>"


class ClientLibrary:
    """Seed 004's entry point: one local client per platform, made on first use."""

    _clients: dict[tuple[str, int | None], LocalClient] = {}
    _lock = threading.Lock()

    @classmethod
    def local_client(
        cls, platform: str | None = None, device_count: int | None = None
    ) -> LocalClient:
        platform = platform or DEFAULT_PLATFORM
        key = (platform, device_count)
        with cls._lock:
            if key not in cls._clients:
                cls._clients[key] = LocalClient(platform, device_count)
            return cls._clients[key]

    client_library_or_die = local_client


def local_client(platform: str | None = None, device_count: int | None = None) -> LocalClient:
    """The local client for ``platform`` (default: the best one available).

    ``device_count``: how many devices this process runs (XLA's
    ``--xla_force_host_platform_device_count``); None keeps one client whose devices
    grow to what its executables ask for (see ``client_devices.DeviceSet``)."""
    return ClientLibrary.local_client(platform, device_count)


__all__ = [
    "ClientLibrary",
    "CompileOptions",
    "DEFAULT_PLATFORM",
    "Device",
    "DeviceAssignment",
    "Executable",
    "GlobalData",
    "LocalClient",
    "local_client",
]
