"""The interpreter backend: evaluates any HLO module with numpy (the oracle).

A thin executable over the HLO evaluator (``xlapy.evaluator``), which holds
every op's semantics. Compiling checks what can be checked before running (the
module verifies, every opcode has a kernel, every custom-call target is
registered); running evaluates the entry computation with the device's
context (its RNG state and feeds). Replicated programs run one thread per
device, meeting in collectives through a :class:`~xlapy.distributed.CollectiveHub`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...custom_call import lookup_custom_call
from ...distributed import DEFAULT_TIMEOUT_SECONDS, CollectiveHub, HostChannels, run_on_devices
from ...distributed.checks import check_collectives
from ...errors import UnimplementedError, XlaError
from ...evaluator import (
    EVALUATOR_OPCODES,
    KERNELS,
    DeviceContext,
    FeedQueues,
    device_context,
    evaluate_computation,
)
from ...hlo import parse_module
from ...hlo.module import HloModule
from ...literal import Literal
from ...opcode import HloOpcode
from ...passes import has_compiler_targets, prepare_markers

PLATFORM = "interpreter"


@dataclass
class InterpreterOptions:
    num_replicas: int = 1
    num_partitions: int = 1
    collective_timeout: float = DEFAULT_TIMEOUT_SECONDS
    rng_seed: int = 0x5EED


class InterpreterExecutable:
    """A verified module ready to run on the interpreter."""

    platform = PLATFORM

    def __init__(self, module: HloModule, options: InterpreterOptions) -> None:
        self.module = module
        self.options = options
        self.num_devices = options.num_replicas * options.num_partitions
        self.feeds = [FeedQueues() for _ in range(self.num_devices)]
        # Host transfers (send/recv with is_host_transfer): the client's send_to_device and
        # recv_from_device feed and drain them by channel, per device.
        self.host_channels = [
            HostChannels(options.collective_timeout) for _ in range(self.num_devices)
        ]
        self._rng_states = [[options.rng_seed] for _ in range(self.num_devices)]
        # The RNG state and feeds of a device are used by one run at a time; re-entrant,
        # so that a Python custom-call target may run this executable from inside a run.
        self._lock = threading.RLock()

    @property
    def fallback_ops(self) -> list[str]:
        """Ops run by interpreter kernels instead of native code: here, all of them."""
        return sorted({i.opcode.value for i in self.module.instructions()})

    def _device_context(self, index: int, hub: CollectiveHub | None) -> DeviceContext:
        context = device_context(
            self.options, index, hub, self.feeds[index], self._rng_states[index]
        )
        context.host_channels = self.host_channels[index]
        return context

    def execute(self, arguments: Sequence[Literal]) -> Literal:
        """Run on one device (replica 0, partition 0)."""
        if self.num_devices != 1:
            return self.execute_replicated([arguments] * self.num_devices)[0]
        device = self._device_context(0, None)
        with self._lock:
            return evaluate_computation(self.module.entry, arguments, device)

    def execute_replicated(
        self, arguments: Sequence[Sequence[Literal]], local_devices: Sequence[int] | None = None
    ) -> list[Literal]:
        """Run every device (replica-major, then partition) in its own thread; in one process
        of a multi-process job, only the global device ids ``local_devices`` (one argument
        list each), meeting the other processes' devices over MPI."""
        expected = self.num_devices if local_devices is None else len(local_devices)
        if len(arguments) != expected:
            raise XlaError(
                f"the executable runs on {self.num_devices} devices "
                f"({self.options.num_replicas} replicas x {self.options.num_partitions} "
                f"partitions), {expected} of them here, but got arguments for {len(arguments)}"
            )
        index_of = {d: k for k, d in enumerate(range(self.num_devices) if local_devices is None else local_devices)}

        def run(index: int, hub: CollectiveHub) -> Literal:
            device = self._device_context(index, hub)
            return evaluate_computation(self.module.entry, arguments[index_of[index]], device)

        return run_on_devices(
            self.num_devices, self.options.collective_timeout, run, local_devices
        )


class InterpreterBackend:
    """Compiles (checks) modules for the interpreter."""

    platform = PLATFORM

    def compile(self, module: HloModule, options: InterpreterOptions) -> InterpreterExecutable:
        module.verify()
        if has_compiler_targets(module):  # markers for a compiler: rewritten as XLA does
            module = module.clone()
            prepare_markers(module)
            module.verify()
        missing = sorted(
            {
                i.opcode.value
                for i in module.instructions()
                if i.opcode not in KERNELS and i.opcode not in EVALUATOR_OPCODES
            }
        )
        if missing:
            raise UnimplementedError(
                f"the interpreter cannot run {', '.join(missing)} yet (module {module.name})"
            )
        for instruction in module.instructions():
            if instruction.opcode is HloOpcode.CUSTOM_CALL:
                target = lookup_custom_call(instruction.custom_call_target or "", PLATFORM)
                if target.check is not None:  # a built-in target checks its operands now
                    target.check(instruction)
        check_collectives(module.instructions(), options.num_replicas, options.num_partitions)
        return InterpreterExecutable(module, options)


def run(module: HloModule | str, *arguments: Any, **options: Any) -> Any:
    """Compile and run on the interpreter: numpy arrays in, numpy arrays out.

    A convenience for tests and notebooks; ``module`` may be HLO text. A
    tuple result comes back as a (nested) Python tuple of arrays.
    """
    if isinstance(module, str):
        module = parse_module(module)
    executable = InterpreterBackend().compile(module, InterpreterOptions(**options))
    literals = [a if isinstance(a, Literal) else Literal.from_value(a) for a in arguments]
    return executable.execute(literals).to_numpy()


__all__ = [
    "run",
    "FeedQueues",
    "InterpreterBackend",
    "InterpreterExecutable",
    "InterpreterOptions",
    "device_context",
    "PLATFORM",
]
