"""The GPU compiler's pass pipeline: the shared HLO passes, then the GPU's own choices.

The order is the CPU's (simplify to a fixed point, expand, normalize layouts, fuse) with
the GPU's decisions where the back-ends differ, as XLA's GPU compiler has them:

* every gather, scatter and FFT, and every reduce-window of a small window, is
  expanded into ops the loop kernels generate (the GPU has no dedicated kernel for
  them yet); sorts move their dimension innermost for the bitonic row sort;
* no reduction splitting (that pass cuts reductions into CPU-thread-sized rows; the GPU's
  reduction emitter picks its own strategy per shape);
* fusion asks the GPU kernel emitter what it can generate inside a fusion.
"""

from __future__ import annotations

from typing import Any

from ...passes import (
    AlgebraicSimplifier,
    ApproxTopkExpander,
    AsyncUnwrapper,
    BatchedGatherScatterNormalizer,
    BatchNormExpander,
    CallInliner,
    CommonSubexpressionElimination,
    ConstantFolding,
    ConvolutionCanonicalizer,
    DeadCodeElimination,
    Defuser,
    DotCanonicalizer,
    DotTypeWidener,
    FftExpander,
    GatherExpander,
    InstructionFusion,
    IntegerDotToFloat,
    MapInliner,
    MultiOutputFusion,
    OptimizationBarrierRemover,
    PassPipeline,
    PipelineOptions,
    RaggedDotExpander,
    ReduceEpilogueFusion,
    RngBitGeneratorExpander,
    RngExpander,
    ScaledDotExpander,
    ScatterExpander,
    SelectAndScatterExpander,
    ShardingAnnotationRemover,
    SortDimensionMover,
    TopkDecomposer,
    TupleSimplifier,
    WhileLoopInvariantCodeMotion,
)
from ...passes.expand.reductions_window_slices import ReduceWindowAsSlices
from ..cpu.pipeline import LayoutNormalization
from .kernels import can_emit_fused

_REQUIRED = {
    LayoutNormalization.name: "the GPU kernels rely on it: every buffer in row-major order"
}


def gpu_pipeline(options: Any) -> PassPipeline:
    pipeline = PassPipeline(
        name="gpu",
        options=PipelineOptions(
            verify=bool(getattr(options, "debug", False)),
            dump_dir=getattr(options, "dump_dir", None),
        ),
    )
    pipeline.add(Defuser())
    pipeline.add(AsyncUnwrapper())
    pipeline.add(OptimizationBarrierRemover())
    pipeline.add(ShardingAnnotationRemover())
    pipeline.add(TopkDecomposer())
    pipeline.add(SortDimensionMover())
    pipeline.add(ApproxTopkExpander())
    pipeline.add(BatchedGatherScatterNormalizer())
    pipeline.add(ScatterExpander())
    pipeline.add(GatherExpander())
    pipeline.add(SelectAndScatterExpander())
    pipeline.add(RaggedDotExpander())
    pipeline.add(ScaledDotExpander())
    pipeline.add(RngExpander())
    pipeline.add(RngBitGeneratorExpander())
    pipeline.add(FftExpander())
    pipeline.add(ReduceWindowAsSlices())
    pipeline.add(CallInliner(), MapInliner())
    simplify = [
        AlgebraicSimplifier(),
        TupleSimplifier(),
        ConstantFolding(),
        CommonSubexpressionElimination(),
        DeadCodeElimination(),
    ]
    pipeline.add_fixed_point("simplify", simplify)
    pipeline.add(WhileLoopInvariantCodeMotion())
    pipeline.add(BatchNormExpander())
    pipeline.add(ConvolutionCanonicalizer())
    pipeline.add(IntegerDotToFloat())  # 8- and 16-bit integer dots: exact cuBLAS GEMMs
    pipeline.add(DotTypeWidener())
    pipeline.add(DotCanonicalizer())
    pipeline.add_fixed_point("simplify-after-expansion", simplify)
    pipeline.add(LayoutNormalization())
    pipeline.add(InstructionFusion(can_emit_fused))
    pipeline.add(ReduceEpilogueFusion(can_emit_fused))
    pipeline.add(MultiOutputFusion(can_emit_fused))
    pipeline.add(DeadCodeElimination())
    disabled = getattr(options, "disabled_passes", ()) or ()
    if disabled:
        pipeline.disable(disabled, _REQUIRED)
    return pipeline


def _pass_names(pipeline: PassPipeline) -> set[str]:
    names: set[str] = set()
    for p in pipeline.passes:
        names |= _pass_names(p) if isinstance(p, PassPipeline) else {p.name}
    return names
