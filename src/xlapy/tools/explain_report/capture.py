"""Compile a module for the CPU the way ``compile_program`` does, keeping what it saw.

``xlapy explain`` needs more than a compile leaves behind: the module's text after
each pass that changed it, the fusion passes' decisions, the buffer assignment of
every computation and the LLVM IR and assembly. This module runs the same steps as
the CPU compiler (``cpu_pipeline``, ``ModuleEmitter``, ``jit.compile_module``) on a
clone of the module, with a pass observer and a fusion decision log attached, and
returns all of it as one :class:`CompileRecord`. Nothing is cached and the caller's
module is not touched.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

from ...backends.cpu.buffers import ComputationBuffers
from ...backends.cpu.codegen import ModuleEmitter
from ...backends.cpu.pipeline import cpu_pipeline
from ...backends.cpu.runtime import jit, native_runtime
from ...backends.cpu.runtime.executable import CpuOptions
from ...hlo.module import HloModule
from ...passes.fuse.decisions import FusionDecision
from ...passes.pass_base import HloPass, PassPipeline
from .kernels import Kernel, split_kernels


@dataclass
class PassRun:
    """One run of one pass: whether it said it changed the module, and the module's
    text before and after it (the same text when it reported no change)."""

    number: int
    name: str
    reported_change: bool
    before: str
    after: str

    @property
    def changed_text(self) -> bool:
        """Whether the module's text differs (a pass may report a change that only
        touched what the text does not show, e.g. layouts already in place)."""
        return self.before != self.after


@dataclass
class CompileRecord:
    """Everything ``explain`` shows about one compile."""

    name: str
    original: HloModule
    optimized: HloModule
    before_text: str
    after_text: str
    passes: list[PassRun] = field(default_factory=list)
    decisions: list[FusionDecision] = field(default_factory=list)
    buffers: list[ComputationBuffers] = field(default_factory=list)
    arena_size: int = 0
    entry_function: str = ""
    kernels: list[Kernel] = field(default_factory=list)
    native_ops: list[str] = field(default_factory=list)
    fallback_ops: list[str] = field(default_factory=list)
    target: str = ""
    timings: dict[str, float] = field(default_factory=dict)


def attach_decision_log(pipeline: HloPass, log: list[FusionDecision]) -> int:
    """Give every fusion pass in ``pipeline`` (nested pipelines too) the decision log;
    returns how many passes took it."""
    if isinstance(pipeline, PassPipeline):
        return sum(attach_decision_log(p, log) for p in pipeline.passes)
    if hasattr(pipeline, "decision_log"):
        pipeline.decision_log = log
        return 1
    return 0


class _PassRecorder:
    """The pipeline's observer: the module's text after each pass that changed it."""

    def __init__(self, start_text: str) -> None:
        self.text = start_text
        self.runs: list[PassRun] = []

    def __call__(self, pass_name: str, module: HloModule, changed: bool) -> None:
        after = module.to_text() if changed else self.text
        self.runs.append(PassRun(len(self.runs) + 1, pass_name, changed, self.text, after))
        self.text = after


def capture(
    module: HloModule, options: CpuOptions | None = None, *, assembly: bool = True
) -> CompileRecord:
    """Compile ``module`` for the CPU and record each step (see the module docstring).

    ``options``: the CPU options to compile with (their observer and cache settings
    are replaced); ``assembly``: also generate machine code and its assembly text.
    """
    base = options or CpuOptions()
    recorder = _PassRecorder(module.to_text())
    options = dataclasses.replace(base, cache=False, pass_observer=recorder, dump_dir=None)
    record = CompileRecord(
        name=module.name,
        original=module,
        optimized=module.clone(),
        before_text=recorder.text,
        after_text="",
    )
    optimized = record.optimized
    start = time.perf_counter()
    pipeline = options.passes(optimized, options) if options.passes else cpu_pipeline(options)
    attach_decision_log(pipeline, record.decisions)
    pipeline.run(optimized)
    optimized.verify()
    record.timings["passes"] = time.perf_counter() - start
    record.passes = recorder.runs
    record.after_text = optimized.to_text()

    start = time.perf_counter()
    native_runtime.ensure_runtime()
    emitter = ModuleEmitter(optimized, options)
    record.entry_function = emitter.emit_entry()
    record.timings["emit"] = time.perf_counter() - start
    record.buffers = _in_module_order(optimized, emitter.buffers)
    record.arena_size = emitter.arena_size
    record.native_ops = sorted(emitter.native_ops)
    record.fallback_ops = sorted(emitter.fallback_ops)
    emitted_ir = str(emitter.ir)
    target = jit.resolve_target(options.target_cpu, options.target_features)
    record.target = str(target)
    start = time.perf_counter()
    code = jit.compile_module(
        emitter.ir, opt_level=options.opt_level, keep_ir=True, keep_asm=assembly, target=target
    )
    record.timings["llvm"] = time.perf_counter() - start
    record.kernels = split_kernels(emitted_ir, code.optimized_ir, code.assembly)
    del code  # the machine code itself is not needed: only its texts
    return record


def _in_module_order(
    module: HloModule, buffers: dict[int, ComputationBuffers]
) -> list[ComputationBuffers]:
    """The buffer assignments, entry first, then in the module's computation order."""
    order = [module.entry, *(c for c in module.computations if c is not module.entry)]
    return [buffers[id(c)] for c in order if id(c) in buffers]


__all__ = ["CompileRecord", "PassRun", "attach_decision_log", "capture"]
