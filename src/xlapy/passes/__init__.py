"""HLO-to-HLO passes: simplification, expansion, fusion and the pipelines that run them.

Code outside the package imports passes from here, by class name, so that the
files behind them can move without breaking their users.
"""

from ..hlo.module import HloModule
from .expand.control_async import AsyncUnwrapper
from .expand.dynamic_padder import DynamicPadder, DynamicSignature
from .expand.indexing_batching import BatchedGatherScatterNormalizer
from .expand.indexing_gather import GatherExpander
from .expand.indexing_scatter import ScatterExpander
from .expand.linalg_batchnorm import BatchNormExpander
from .expand.linalg_conv import ConvolutionCanonicalizer
from .expand.linalg_dot import DotCanonicalizer
from .expand.linalg_dot_types import DotTypeWidener, IntegerDotToFloat, LinalgTypeWidener
from .expand.linalg_fft import FftExpander, unit_roots
from .expand.linalg_ragged import RaggedDotExpander, ScaledDotExpander
from .expand.movement_barriers import (
    ANNOTATION_TARGETS,
    OptimizationBarrierRemover,
    ShardingAnnotationRemover,
)
from .expand.random_bits import RngBitGeneratorExpander
from .expand.random_rng import RngExpander
from .expand.reductions_approx_topk import APPROX_TOPK_TARGET, ApproxTopkExpander
from .expand.reductions_select_scatter import SelectAndScatterExpander
from .expand.reductions_sort import SortDimensionMover
from .expand.reductions_topk import TopkDecomposer
from .fuse.instruction_fusion import InstructionFusion, default_can_emit
from .fuse.multi_output_fusion import MultiOutputFusion, ReduceEpilogueFusion
from .pass_base import HloPass, PassPipeline, PassStats, PipelineOptions, run_passes
from .rewrite import ExpanderPass
from .simplify.algebraic_simplifier import AlgebraicSimplifier
from .simplify.constant_folding import ConstantFolding
from .simplify.cse import CommonSubexpressionElimination
from .simplify.dce import DeadCodeElimination
from .simplify.float_normalization import FloatNormalization
from .simplify.fp_contraction import FpContraction
from .simplify.inliner import CallInliner, Defuser, MapInliner
from .simplify.reduction_splitter import ReductionSplitter
from .simplify.tuple_simplifier import TupleSimplifier
from .simplify.while_licm import WhileLoopInvariantCodeMotion

# Custom-call targets that are markers for the compiler, not functions to call: sharding
# annotations and Shardy's round-trip calls (removed on one device), and ApproxTopK (an
# exact top-k). Backends look no registration up for them; ``prepare_markers`` rewrites
# them away.
COMPILER_TARGETS = ANNOTATION_TARGETS | {APPROX_TOPK_TARGET}


def has_compiler_targets(module: HloModule) -> bool:
    return any(i.custom_call_target in COMPILER_TARGETS for i in module.instructions())


def prepare_markers(module: HloModule) -> None:
    """Rewrite the ``COMPILER_TARGETS`` calls of ``module`` (in place) into plain HLO, for a
    backend that runs no pipeline of its own (the interpreter)."""
    ShardingAnnotationRemover().run(module)
    ApproxTopkExpander().run(module)

__all__ = [
    "ANNOTATION_TARGETS",
    "APPROX_TOPK_TARGET",
    "COMPILER_TARGETS",
    "AlgebraicSimplifier",
    "ApproxTopkExpander",
    "AsyncUnwrapper",
    "BatchNormExpander",
    "BatchedGatherScatterNormalizer",
    "CallInliner",
    "CommonSubexpressionElimination",
    "ConstantFolding",
    "ConvolutionCanonicalizer",
    "DeadCodeElimination",
    "Defuser",
    "DynamicPadder",
    "DynamicSignature",
    "DotCanonicalizer",
    "DotTypeWidener",
    "IntegerDotToFloat",
    "ExpanderPass",
    "FftExpander",
    "FloatNormalization",
    "FpContraction",
    "GatherExpander",
    "HloPass",
    "InstructionFusion",
    "LinalgTypeWidener",
    "MapInliner",
    "MultiOutputFusion",
    "OptimizationBarrierRemover",
    "PassPipeline",
    "PassStats",
    "PipelineOptions",
    "RaggedDotExpander",
    "ReduceEpilogueFusion",
    "ReductionSplitter",
    "RngBitGeneratorExpander",
    "RngExpander",
    "ScaledDotExpander",
    "ScatterExpander",
    "SelectAndScatterExpander",
    "ShardingAnnotationRemover",
    "SortDimensionMover",
    "TopkDecomposer",
    "TupleSimplifier",
    "WhileLoopInvariantCodeMotion",
    "default_can_emit",
    "has_compiler_targets",
    "prepare_markers",
    "run_passes",
    "unit_roots",
]
