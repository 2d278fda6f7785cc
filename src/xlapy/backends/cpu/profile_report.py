"""A profiled run, read: per-kernel times, costs, roofline, Chrome trace and table.

``CpuExecutable.profile`` runs code compiled with ``CpuOptions.profile`` and hands
the raw events of each iteration (``profiling.RecordedRun``) to :meth:`Profile.build`,
which nests them (a while loop's event holds its body's), takes each event's own time
(its duration less its children's), puts the cost of each site beside it
(``passes.cost_analysis``) and the machine's roofline (``roofline``) beside that.

Times in the table are means over the iterations; shares are of the sum of the rows'
own times, so they add up to 100%. The trace keeps every event of every iteration.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...passes.cost_analysis import (
    Cost,
    bytes_moved,
    compute_cost,
    instruction_cost,
    shape_bytes,
)
from .profiling import ProfileSite, RecordedRun
from .roofline import Machine

# A transcendental function (exp, tanh...) costs about this many multiply-adds in the
# vectorized approximations of ``backends/cpu/math``; the roofline counts it so.
TRANSCENDENTAL_FLOPS = 10


@dataclass(frozen=True)
class Event:
    """One run of one thunk, in ns of CLOCK_MONOTONIC."""

    site: int
    start_ns: int
    stop_ns: int
    iteration: int
    self_ns: int  # the duration less that of the events directly inside it

    @property
    def duration_ns(self) -> int:
        return self.stop_ns - self.start_ns


@dataclass(frozen=True)
class KernelRow:
    """One thunk of the program, summed over its runs in an iteration (means over the
    iterations). ``time_ns`` is the thunk's own time (children excluded)."""

    name: str
    computation: str
    opcode: str
    kind: str  # "kernel" or "control"
    python: bool
    calls: float
    time_ns: float
    total_ns: float  # with the events nested inside (a while loop's body)
    bytes: int
    flops: int
    transcendentals: int
    bandwidth_fraction: float
    peak_fraction: float
    bound: str  # "memory", "compute", "python" (a call into Python), "-" (no work)
    share: float


def _site_cost(site: ProfileSite) -> Cost:
    """One run's cost. A row group's members pass their intermediate values through the
    cache: it reads the operands that come from outside the group and writes every
    member's result, and no more."""
    members = site.instructions
    if len(members) == 1:
        return instruction_cost(members[0])
    inside = {id(m) for m in members}
    compute = Cost()
    outside: dict[int, int] = {}
    written = 0
    for member in members:
        compute = compute + compute_cost(member)
        if bytes_moved(member):  # not a mere name for a value (get-tuple-element...)
            written += shape_bytes(member.shape)
        for operand in member.iter_operands_unique():
            if id(operand) not in inside:
                outside[id(operand)] = shape_bytes(operand.shape)
    return compute + Cost(bytes_accessed=written + sum(outside.values()))


def _element_bits(site: ProfileSite) -> int:
    for instruction in site.instructions:
        shape = instruction.shape
        if shape.is_array:
            return shape.element_type.bit_width
    return 32


def _nest(rows: Any, iteration: int) -> list[Event]:
    """Events of one run with their own times: sorted by start (outer first on ties)."""
    ordered = sorted(((int(s), int(a), int(b)) for s, a, b in rows), key=lambda e: (e[1], -e[2]))
    children: list[int] = [0] * len(ordered)
    stack: list[int] = []
    for k, (_, start, stop) in enumerate(ordered):
        while stack and ordered[stack[-1]][2] <= start:
            stack.pop()
        if stack:
            children[stack[-1]] += stop - start
        stack.append(k)
    return [
        Event(site, start, stop, iteration, (stop - start) - children[k])
        for k, (site, start, stop) in enumerate(ordered)
    ]


@dataclass
class Profile:
    """What ``Executable.profile`` returns."""

    module_name: str
    sites: list[ProfileSite]
    events: list[Event]
    kernels: list[KernelRow]
    iterations: int
    machine: Machine
    program_ns: float  # mean native time of the whole program per iteration
    wall_ns: float  # mean time of the call as Python measured it (conversions included)
    coverage: float  # share of program_ns that the top-level thunks' events cover
    dropped: int  # events past the buffer's capacity, not recorded
    result: Any = None
    origin_ns: int = 0  # the first event's start: the trace's time zero

    # -- building -----------------------------------------------------------------------
    @classmethod
    def build(
        cls,
        module_name: str,
        sites: Sequence[ProfileSite],
        runs: Sequence[RecordedRun],
        machine: Machine,
        result: Any = None,
    ) -> Profile:
        sites = list(sites)
        events: list[Event] = []
        programs: list[int] = []
        covered: list[int] = []
        for iteration, run in enumerate(runs):
            nested = _nest(run.events, iteration)
            events.extend(nested)
            program = [e for e in nested if sites[e.site].kind == "program"]
            if program:
                span = program[0]
                programs.append(span.duration_ns)
                covered.append(span.duration_ns - span.self_ns)
        n = max(1, len(runs))
        program_ns = sum(programs) / n
        kernels = _rows(sites, events, n, machine)
        return cls(
            module_name=module_name,
            sites=sites,
            events=events,
            kernels=kernels,
            iterations=len(runs),
            machine=machine,
            program_ns=program_ns,
            wall_ns=sum(r.wall_ns for r in runs) / n,
            coverage=(sum(covered) / sum(programs)) if sum(programs) else 0.0,
            dropped=sum(r.dropped for r in runs),
            result=result,
            origin_ns=min((e.start_ns for e in events), default=0),
        )

    # -- output -------------------------------------------------------------------------
    def to_chrome_trace(self) -> dict[str, Any]:
        """The Chrome/Perfetto trace-event format: "X" events, times in microseconds."""
        pid, tid = 1, 1
        trace: list[dict[str, Any]] = [
            _meta("process_name", pid, tid, f"xlapy cpu: {self.module_name}"),
            _meta("thread_name", pid, tid, "executable (calling thread)"),
        ]
        costs = [_site_cost(s) for s in self.sites]
        for event in self.events:
            site = self.sites[event.site]
            cost = costs[event.site]
            trace.append(
                {
                    "name": site.name,
                    "cat": site.kind,
                    "ph": "X",
                    "ts": (event.start_ns - self.origin_ns) / 1000.0,
                    "dur": event.duration_ns / 1000.0,
                    "pid": pid,
                    "tid": tid,
                    "args": {
                        "opcode": site.opcode,
                        "computation": site.computation,
                        "bytes": cost.bytes_accessed,
                        "flops": cost.flops,
                        "transcendentals": cost.transcendentals,
                        "self_us": event.self_ns / 1000.0,
                        "iteration": event.iteration,
                        "python": site.python,
                    },
                }
            )
        return {
            "traceEvents": trace,
            "displayTimeUnit": "ns",
            "otherData": {
                "module": self.module_name,
                "iterations": self.iterations,
                "dropped_events": self.dropped,
                "machine": self.machine.describe(),
            },
        }

    def write_chrome_trace(self, path: str) -> None:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(self.to_chrome_trace(), f)

    def table(self, limit: int | None = None) -> str:
        """The kernels by their own time, with cost and roofline columns."""
        header = (
            "kernel", "opcode", "calls", "time us", "bytes", "FLOPs", "GB/s", "%BW",
            "GFLOP/s", "%peak", "bound", "share",
        )  # fmt: skip
        lines = [header]
        rows = self.kernels if limit is None else self.kernels[:limit]
        for row in rows:
            seconds = row.time_ns * 1e-9
            lines.append(
                (
                    row.name,
                    row.opcode,
                    f"{row.calls:g}",
                    f"{row.time_ns / 1000:.1f}",
                    _count(row.bytes),
                    _count(row.flops + row.transcendentals),
                    f"{row.bytes / seconds / 1e9:.2f}" if seconds > 0 else "-",
                    f"{100 * row.bandwidth_fraction:.0f}%",
                    f"{row.flops / seconds / 1e9:.2f}" if seconds > 0 else "-",
                    f"{100 * row.peak_fraction:.0f}%",
                    row.bound,
                    f"{100 * row.share:.1f}%",
                )
            )
        widths = [max(len(line[k]) for line in lines) for k in range(len(header))]
        text = [
            "  ".join(
                c.ljust(w) if k < 2 else c.rjust(w)
                for k, (c, w) in enumerate(zip(line, widths, strict=True))
            )
            for line in lines
        ]
        text.insert(1, "-" * len(text[0]))
        summary = (
            f"{self.module_name}: {self.program_ns / 1000:.1f} us per run natively "
            f"({self.wall_ns / 1000:.1f} us as called from Python), mean of "
            f"{self.iterations}; thunks cover {100 * self.coverage:.1f}% of the native time; "
            f"machine: {self.machine.describe()}"
        )
        if self.dropped:
            summary += f"; {self.dropped} events past the buffer's capacity were dropped"
        return "\n".join([summary, *text]) + "\n"


def _count(value: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if value >= scale:
            return f"{value / scale:.2f}{unit}"
    return f"{int(value)}"


def _meta(what: str, pid: int, tid: int, name: str) -> dict[str, Any]:
    return {"name": what, "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


def _rows(
    sites: Sequence[ProfileSite], events: Sequence[Event], iterations: int, machine: Machine
) -> list[KernelRow]:
    own: dict[int, int] = {}
    total: dict[int, int] = {}
    calls: dict[int, int] = {}
    for event in events:
        if sites[event.site].kind == "program":
            continue
        own[event.site] = own.get(event.site, 0) + event.self_ns
        total[event.site] = total.get(event.site, 0) + event.duration_ns
        calls[event.site] = calls.get(event.site, 0) + 1
    all_own = sum(own.values())
    rows = []
    for number in sorted(own, key=lambda s: -own[s]):
        site = sites[number]
        runs = calls[number] / iterations
        cost = _site_cost(site)
        time_ns = own[number] / iterations
        nbytes = int(cost.bytes_accessed * runs)
        flops = int(cost.flops * runs)
        transcendentals = int(cost.transcendentals * runs)
        work = flops + TRANSCENDENTAL_FLOPS * transcendentals
        peak = machine.peak_flops(_element_bits(site))
        seconds = time_ns * 1e-9
        bandwidth_fraction = nbytes / seconds / machine.bandwidth if seconds > 0 else 0.0
        peak_fraction = work / seconds / peak if seconds > 0 else 0.0
        if site.python:
            bound = "python"
        elif not nbytes and not work:
            bound = "-"
        else:
            bound = "memory" if nbytes / machine.bandwidth >= work / peak else "compute"
        rows.append(
            KernelRow(
                name=site.name,
                computation=site.computation,
                opcode=site.opcode,
                kind=site.kind,
                python=site.python,
                calls=runs,
                time_ns=time_ns,
                total_ns=total[number] / iterations,
                bytes=nbytes,
                flops=flops,
                transcendentals=transcendentals,
                bandwidth_fraction=bandwidth_fraction,
                peak_fraction=peak_fraction,
                bound=bound,
                share=own[number] / all_own if all_own else 0.0,
            )
        )
    return rows


__all__ = ["Event", "KernelRow", "Profile", "TRANSCENDENTAL_FLOPS"]
