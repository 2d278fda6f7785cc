"""Per-thunk timing from the native code itself (``CpuOptions.profile``).

Code compiled with ``profile=True`` reads ``CLOCK_MONOTONIC`` before every thunk of
every computation (a kernel, a fusion, a row group, a while loop, a call into Python...)
and, after it, calls the runtime's recorder with the thunk's site number and that start
time (``runtime.native_runtime``'s ``xlapy_profile_record``). A thunk that runs many
times (in a while body) records every run. The entry records one more site, the whole
program, so a run's events nest inside it. ``clock_gettime`` rather than the cycle
counter: it is the same clock on x86 and aarch64, needs no calibration, and Python's
``time.monotonic_ns`` reads it too, so native events and Python's timings share a
time line. Its cost (about 20 ns through the vDSO, twice per thunk) is what profiling
adds; see docs/profile.md for the measured overhead.

Without ``profile`` nothing here touches the emitted IR: the module is exactly what it
was before profiling existed (tests/backends/cpu/test_profiling.py compares the text).

The recorder writes into an :class:`EventBuffer` reached through the run context; a
run that is not being profiled has a null pointer there and records nothing, so an
executable compiled for profiling still runs normally.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from llvmlite import ir

from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from .ir_support import i64
from .llvm_types import I8_PTR, I64, VOID
from .runtime.native_runtime import PROFILE_EVENT_WORDS, PROFILE_HEADER_WORDS

# Thunks whose time includes the computations they run (their events enclose others).
CONTROL_OPCODES = frozenset({HloOpcode.WHILE, HloOpcode.CONDITIONAL, HloOpcode.CALL})

DEFAULT_CAPACITY = 1 << 16  # events per run


@dataclass(frozen=True)
class ProfileSite:
    """One place in the native code that records an event.

    ``instructions`` are the HLO instructions the thunk runs (one, or a row group's
    members); ``kind`` is "program" (the entry, whole), "control" (while, conditional,
    call: the time of the computations they run is inside theirs) or "kernel"."""

    name: str
    computation: str
    instructions: tuple[HloInstruction, ...]
    kind: str
    python: bool = False  # runs through a call into Python (fallback or host callback)

    @property
    def opcode(self) -> str:
        return "+".join(dict.fromkeys(i.opcode.value for i in self.instructions)) or "program"


def site_for(
    members: Sequence[HloInstruction], computation: str, python: bool = False
) -> ProfileSite:
    """The site of a thunk running ``members`` (one instruction, or a row group)."""
    kind = "control" if any(m.opcode in CONTROL_OPCODES for m in members) else "kernel"
    name = members[0].name if len(members) == 1 else "+".join(m.name for m in members)
    return ProfileSite(name, computation, tuple(members), kind, python)


class ProfileProbes:
    """The IR side: the two runtime functions, declared in one executable's module."""

    def __init__(self, module: ir.Module) -> None:
        self.now = ir.Function(module, ir.FunctionType(I64, []), "xlapy_profile_now")
        self.record = ir.Function(
            module, ir.FunctionType(VOID, [I8_PTR, I64, I64]), "xlapy_profile_record"
        )
        self.sites: list[ProfileSite] = []

    def start(self, b: ir.IRBuilder) -> ir.Value:
        """Read the clock here; the value is the start of the event ``stop`` records."""
        return b.call(self.now, [], name="profile.start")

    def stop(self, b: ir.IRBuilder, ctx: ir.Value, site: ProfileSite, start: ir.Value) -> None:
        """Record ``site`` from ``start`` to now (the recorder reads the clock)."""
        number = len(self.sites)
        self.sites.append(site)
        b.call(self.record, [ctx, i64(number), start])


class EventBuffer:
    """A fixed-capacity native buffer the recorder appends events to (header words then
    ``PROFILE_EVENT_WORDS`` per event); events past the capacity are counted, not kept."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        self.capacity = max(1, int(capacity))
        self.words = np.zeros(PROFILE_HEADER_WORDS + PROFILE_EVENT_WORDS * self.capacity, np.int64)
        self.reset()

    @property
    def address(self) -> int:
        return self.words.ctypes.data

    def reset(self) -> None:
        self.words[:PROFILE_HEADER_WORDS] = 0
        self.words[0] = self.capacity

    @property
    def dropped(self) -> int:
        return int(self.words[2])

    def events(self) -> np.ndarray:
        """The recorded events as an (n, 3) array of (site, start ns, stop ns), copied."""
        count = min(int(self.words[1]), self.capacity)
        body = self.words[PROFILE_HEADER_WORDS : PROFILE_HEADER_WORDS + PROFILE_EVENT_WORDS * count]
        return body.reshape(count, PROFILE_EVENT_WORDS).copy()


@dataclass(frozen=True)
class RecordedRun:
    """One profiled run: its events ((site, start ns, stop ns) rows), the events that
    did not fit, and the call's time as Python measured it (conversions included)."""

    events: np.ndarray
    dropped: int
    wall_ns: int


def attach(context: ctypes.Structure, buffer: EventBuffer | None) -> None:
    """Point a run context at ``buffer`` (None: stop recording)."""
    context.profile = buffer.address if buffer is not None else None


__all__ = [
    "CONTROL_OPCODES",
    "DEFAULT_CAPACITY",
    "EventBuffer",
    "ProfileProbes",
    "ProfileSite",
    "RecordedRun",
    "attach",
    "site_for",
]
