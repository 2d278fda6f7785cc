"""The interpreter backend: evaluates any HLO module with numpy (the oracle).

Compiling checks what can be checked before running (the module verifies,
every opcode has a kernel, every custom-call target is registered); running
evaluates the entry computation. Replicated programs run one thread per
device, meeting in collectives through a :class:`~xlapy.distributed.CollectiveHub`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ...custom_call import lookup_custom_call
from ...distributed import DEFAULT_TIMEOUT_SECONDS, CollectiveHub, run_on_devices
from ...distributed.checks import check_collectives
from ...errors import UnimplementedError, XlaError
from ...evaluator import (
    EVALUATOR_OPCODES,
    KERNELS,
    DeviceContext,
    EvalContext,
    evaluate,
    literal_from_value,
    value_from_literal,
)
from ...hlo.module import HloModule
from ...literal import Literal
from ...opcode import HloOpcode

PLATFORM = "interpreter"


@dataclass
class InterpreterOptions:
    num_replicas: int = 1
    num_partitions: int = 1
    collective_timeout: float = DEFAULT_TIMEOUT_SECONDS
    rng_seed: int = 0x5EED


@dataclass
class FeedQueues:
    """Infeed and outfeed of one device: the client fills and drains them."""

    infeed: queue.Queue = field(default_factory=queue.Queue)
    outfeed: queue.Queue = field(default_factory=queue.Queue)


class InterpreterExecutable:
    """A verified module ready to run on the interpreter."""

    platform = PLATFORM

    def __init__(self, module: HloModule, options: InterpreterOptions) -> None:
        self.module = module
        self.options = options
        self.num_devices = options.num_replicas * options.num_partitions
        self.feeds = [FeedQueues() for _ in range(self.num_devices)]
        self._rng_states = [[options.rng_seed] for _ in range(self.num_devices)]
        # The RNG state and feeds of a device are used by one run at a time; re-entrant,
        # so that a Python custom-call target may run this executable from inside a run.
        self._lock = threading.RLock()

    @property
    def fallback_ops(self) -> list[str]:
        """Ops run by interpreter kernels instead of native code: here, all of them."""
        return sorted({i.opcode.value for i in self.module.instructions()})

    def _device_context(self, index: int, hub: CollectiveHub | None) -> DeviceContext:
        return device_context(self.options, index, hub, self.feeds[index], self._rng_states[index])

    def execute(self, arguments: Sequence[Literal]) -> Literal:
        """Run on one device (replica 0, partition 0)."""
        if self.num_devices != 1:
            return self.execute_replicated([arguments] * self.num_devices)[0]
        ctx = EvalContext(self._device_context(0, None))
        values = [value_from_literal(a) for a in arguments]
        with self._lock:
            result = evaluate(self.module.entry, values, ctx)
        return literal_from_value(result, self.module.entry.root.shape)

    def execute_replicated(self, arguments: Sequence[Sequence[Literal]]) -> list[Literal]:
        """Run every device (replica-major, then partition) in its own thread."""
        if len(arguments) != self.num_devices:
            raise XlaError(
                f"the executable runs on {self.num_devices} devices "
                f"({self.options.num_replicas} replicas x {self.options.num_partitions} "
                f"partitions) but got arguments for {len(arguments)}"
            )
        shape = self.module.entry.root.shape

        def run(index: int, hub: CollectiveHub) -> Literal:
            ctx = EvalContext(self._device_context(index, hub))
            values = [value_from_literal(a) for a in arguments[index]]
            return literal_from_value(evaluate(self.module.entry, values, ctx), shape)

        return run_on_devices(self.num_devices, self.options.collective_timeout, run)


def device_context(
    options: Any, index: int, hub: CollectiveHub | None, feeds: FeedQueues, rng_state: list[int]
) -> DeviceContext:
    """The context of device ``index`` (replica-major, then partition) of an execution."""
    return DeviceContext(
        replica_id=index // options.num_partitions,
        partition_id=index % options.num_partitions,
        num_replicas=options.num_replicas,
        num_partitions=options.num_partitions,
        collectives=hub,
        infeed=feeds.infeed,
        outfeed=feeds.outfeed,
        rng_state=rng_state,
    )


class InterpreterBackend:
    """Compiles (checks) modules for the interpreter."""

    platform = PLATFORM

    def compile(self, module: HloModule, options: InterpreterOptions) -> InterpreterExecutable:
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
                lookup_custom_call(instruction.custom_call_target or "", PLATFORM)
        check_collectives(module.instructions(), options.num_replicas, options.num_partitions)
        return InterpreterExecutable(module, options)


def run(module: HloModule | str, *arguments: Any, **options: Any) -> Any:
    """Compile and run on the interpreter: numpy arrays in, numpy arrays out.

    A convenience for tests and notebooks; ``module`` may be HLO text. A
    tuple result comes back as a (nested) Python tuple of arrays.
    """
    if isinstance(module, str):
        from ...hlo import parse_module

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
