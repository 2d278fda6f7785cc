"""How the CPU backend runs each opcode: natively, through an expander pass, or not at all.

``CPU_PATHS`` has one :class:`CpuPath` per ``HloOpcode``, built from the tables the
compiler itself dispatches through, so that it cannot drift from them:

* ``native``: ``codegen`` emits the instruction. ``handler`` is the emitter of
  ``THUNK_EMITTERS``, or for a loop kernel (``emit.loops``) the function that computes
  its elements (``elemental.emit_elemental`` for elementwise ops, the generator of
  ``emit.generators`` for movement ops, ``emit.loops.emit_fused`` or ``emit_reduction``);
  for the ops that only name another value (parameter, tuple...) it is
  ``buffers.assign_computation``, which makes them aliases. Where only some instances
  run natively, ``predicate`` says which (the ``keep`` of the expander pass the
  pipeline runs for that opcode) and ``via`` is that pass's class: it rewrites the
  others before code generation.
* ``expander``: a pass of ``pipeline`` (``handler``, a class) rewrites the instructions
  into other ops before code generation (``EXPANDED``; a chain that the pass cannot
  rewrite runs through the fallback).
* ``none``: no native code; the instruction runs through the fallback
  (``handler`` = ``runtime.fallback.emit_fallback``: the interpreter's kernel called
  from the native code).

An emitter may still decline a particular instance (``NotEmittable``: an element type
or a layout it has no code for); such an instance runs through the fallback too, and
``CpuExecutable.fallback_ops`` lists it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...opcode import HloOpcode
from ...passes import (
    AsyncUnwrapper,
    BatchNormExpander,
    ExpanderPass,
    MapInliner,
    OptimizationBarrierRemover,
    PassPipeline,
    RaggedDotExpander,
    RngBitGeneratorExpander,
    RngExpander,
    ScaledDotExpander,
    SelectAndScatterExpander,
    TopkDecomposer,
)
from .buffers import assign_computation
from .codegen import NO_CODE, THUNK_EMITTERS
from .elemental import emit_elemental
from .emit.generators import GENERATORS
from .emit.loops import emit_fused, emit_reduction, is_loop_opcode
from .pipeline import cpu_pipeline
from .runtime.fallback import emit_fallback

Op = HloOpcode


@dataclass(frozen=True)
class CpuPath:
    kind: str  # "native" | "expander" | "none"
    handler: object  # the emitter function, or the expander pass class
    predicate: Callable | None = None  # which instances run natively (None: all)
    via: object | None = None  # the expander pass class for the other instances
    # Every other pass of the pipeline that rewrites some instances into other forms
    # first (batched gathers into plain ones, sorts along any dimension into row sorts).
    rewritten_by: tuple[type, ...] = ()


# Opcodes that the pipeline's expanders rewrite into other ops, so that no emitter ever
# sees them (those an emitter also handles are not listed: they stay ``native``).
EXPANDED: dict[HloOpcode, type] = {
    Op.ASYNC_START: AsyncUnwrapper,
    Op.ASYNC_UPDATE: AsyncUnwrapper,
    Op.ASYNC_DONE: AsyncUnwrapper,
    Op.ALL_REDUCE_START: AsyncUnwrapper,
    Op.ALL_REDUCE_DONE: AsyncUnwrapper,
    Op.ALL_GATHER_START: AsyncUnwrapper,
    Op.ALL_GATHER_DONE: AsyncUnwrapper,
    Op.COLLECTIVE_PERMUTE_START: AsyncUnwrapper,
    Op.COLLECTIVE_PERMUTE_DONE: AsyncUnwrapper,
    Op.COPY_START: AsyncUnwrapper,
    Op.COPY_DONE: AsyncUnwrapper,
    Op.OPTIMIZATION_BARRIER: OptimizationBarrierRemover,
    Op.TOPK: TopkDecomposer,
    Op.SELECT_AND_SCATTER: SelectAndScatterExpander,
    Op.RAGGED_DOT: RaggedDotExpander,
    Op.SCALED_DOT: ScaledDotExpander,
    Op.RNG: RngExpander,
    Op.RNG_BIT_GENERATOR: RngBitGeneratorExpander,
    Op.MAP: MapInliner,
    Op.BATCH_NORM_TRAINING: BatchNormExpander,
    Op.BATCH_NORM_INFERENCE: BatchNormExpander,
    Op.BATCH_NORM_GRAD: BatchNormExpander,
}


def pipeline_passes(pipeline: PassPipeline) -> list[object]:
    """The passes of ``pipeline``, its fixed-point sub-pipelines flattened."""
    out: list[object] = []
    for p in pipeline.passes:
        out.extend(pipeline_passes(p) if isinstance(p, PassPipeline) else [p])
    return out


def backend_predicate(expander: object) -> Callable | None:
    """The predicate of this package that ``expander`` was made with (``keep``, or what
    its own ``keep`` asks, as ``FftExpander``'s ``native``), or None."""
    for value in vars(expander).values():
        if callable(value) and getattr(value, "__module__", "").startswith(__package__ or ""):
            return value
    return None


def partial_expanders(pipeline: PassPipeline) -> dict[HloOpcode, tuple[Callable, type]]:
    """(predicate, expander class) for the opcodes that ``pipeline`` expands except for
    the instances one of this backend's predicates keeps for its emitter."""
    out: dict[HloOpcode, tuple[Callable, type]] = {}
    for p in pipeline_passes(pipeline):
        predicate = backend_predicate(p) if isinstance(p, ExpanderPass) else None
        if predicate is not None:
            for opcode in p.opcodes:
                out[opcode] = (predicate, type(p))
    return out


def _loop_handler(opcode: HloOpcode) -> object:
    if opcode is Op.FUSION:
        return emit_fused
    if opcode is Op.REDUCE:
        return emit_reduction
    if opcode in GENERATORS:
        return GENERATORS[opcode]
    return emit_elemental


def rewriters(pipeline: PassPipeline) -> dict[HloOpcode, list[type]]:
    """The expander passes of ``pipeline`` that look at each opcode, in pipeline order."""
    out: dict[HloOpcode, list[type]] = {}
    for p in pipeline_passes(pipeline):
        if isinstance(p, ExpanderPass):
            for opcode in p.opcodes:
                if type(p) not in out.setdefault(opcode, []):
                    out[opcode].append(type(p))
    return out


def _paths() -> dict[HloOpcode, CpuPath]:
    pipeline = cpu_pipeline(None)
    partial = partial_expanders(pipeline)
    passes = rewriters(pipeline)
    paths: dict[HloOpcode, CpuPath] = {}
    for opcode in HloOpcode:
        if opcode in THUNK_EMITTERS:
            predicate, via = partial.get(opcode, (None, None))
            paths[opcode] = CpuPath("native", THUNK_EMITTERS[opcode], predicate, via)
        elif opcode in EXPANDED:
            paths[opcode] = CpuPath("expander", EXPANDED[opcode])
        elif is_loop_opcode(opcode):
            paths[opcode] = CpuPath("native", _loop_handler(opcode))
        elif opcode in NO_CODE:
            paths[opcode] = CpuPath("native", assign_computation)
        else:
            paths[opcode] = CpuPath("none", emit_fallback)
        path = paths[opcode]
        others = tuple(c for c in passes.get(opcode, ()) if c not in (path.handler, path.via))
        if others:
            paths[opcode] = CpuPath(path.kind, path.handler, path.predicate, path.via, others)
    return paths


CPU_PATHS: dict[HloOpcode, CpuPath] = _paths()


__all__ = [
    "CPU_PATHS",
    "EXPANDED",
    "CpuPath",
    "backend_predicate",
    "partial_expanders",
    "pipeline_passes",
    "rewriters",
]
