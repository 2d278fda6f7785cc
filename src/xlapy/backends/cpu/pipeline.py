"""The CPU compiler's pass pipeline: simplify, expand, normalize layouts, fuse.

The order follows XLA:CPU's: first rewrites that remove work (inlining,
simplification, constant folding, CSE, DCE, loop-invariant code motion) to a
fixed point; then the expanders that turn ops without a native emitter into
ops that have one; then layouts; then fusion, and a final clean-up.
"""

from __future__ import annotations

from typing import Any

from ...hlo.module import HloModule
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
    DynamicPadder,
    FftExpander,
    FloatNormalization,
    FpContraction,
    GatherExpander,
    HloPass,
    InstructionFusion,
    IntegerDotToFloat,
    LinalgTypeWidener,
    MapInliner,
    MultiOutputFusion,
    OptimizationBarrierRemover,
    PassPipeline,
    PipelineOptions,
    RaggedDotExpander,
    ReduceEpilogueFusion,
    ReductionSplitter,
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
from .emit.indexing_gather import is_row_gather
from .emit.indexing_scatter import is_row_scatter
from .emit.linalg_fft import supports_native_fft
from .emit.linalg_gemm_int8 import keeps_int8_dot
from .emit.loops import can_emit_fused
from .layout_normalization import normalize_layouts


class LayoutNormalization(HloPass):
    name = "layout-normalization"

    def run(self, module: HloModule) -> bool:
        normalize_layouts(module)
        return True


_REQUIRED = {
    LayoutNormalization.name: "the code the CPU backend emits relies on it: every internal buffer in row-major order"
}


def cpu_pipeline(options: Any) -> PassPipeline:
    pipeline = PassPipeline(
        name="cpu",
        options=PipelineOptions(
            verify=bool(getattr(options, "debug", False)),
            dump_dir=getattr(options, "dump_dir", None),
            observer=getattr(options, "pass_observer", None),
        ),
    )
    pipeline.add(Defuser())
    pipeline.add(AsyncUnwrapper())
    pipeline.add(OptimizationBarrierRemover())
    pipeline.add(ShardingAnnotationRemover())
    pipeline.add(TopkDecomposer())
    pipeline.add(ApproxTopkExpander())
    pipeline.add(SortDimensionMover())
    pipeline.add(BatchedGatherScatterNormalizer())
    pipeline.add(ScatterExpander(is_row_scatter))
    pipeline.add(GatherExpander(is_row_gather))
    pipeline.add(SelectAndScatterExpander())
    pipeline.add(RaggedDotExpander())
    pipeline.add(ScaledDotExpander())
    pipeline.add(RngExpander())
    pipeline.add(RngBitGeneratorExpander())
    pipeline.add(FftExpander(supports_native_fft))
    pipeline.add(CallInliner(), MapInliner())
    pipeline.add(DynamicPadder())  # dynamic dimensions: bound-sized buffers plus sizes
    excess_precision = getattr(options, "allow_excess_precision", True)
    if excess_precision:  # bf16 computed in f32, before the dot widener hides it
        pipeline.add(FloatNormalization())
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
    int8_gemm = keeps_int8_dot(options)  # s8 x s8 -> s32 with VNNI (emit.linalg_gemm_int8)
    pipeline.add(IntegerDotToFloat(int8_gemm))  # before the widener turns s8 into s32
    pipeline.add(DotTypeWidener(int8_gemm))
    pipeline.add(LinalgTypeWidener())
    pipeline.add(DotCanonicalizer(gemm_takes=int8_gemm))
    pipeline.add_fixed_point("simplify-after-expansion", simplify)
    if excess_precision:  # f16 multiply-adds rounded once, as LLVM contracts them
        pipeline.add(FpContraction())
    pipeline.add(LayoutNormalization())
    pipeline.add(ReductionSplitter())
    pipeline.add(InstructionFusion(can_emit_fused))
    pipeline.add(ReduceEpilogueFusion(can_emit_fused))
    pipeline.add(MultiOutputFusion(can_emit_fused))
    pipeline.add(DeadCodeElimination())
    disabled = getattr(options, "disabled_passes", ()) or ()
    if disabled:
        pipeline.disable(disabled, _REQUIRED)
    return pipeline
