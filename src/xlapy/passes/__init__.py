"""HLO-to-HLO passes: simplification, expansion, fusion and the pipelines that run them."""

from .algebraic_simplifier import AlgebraicSimplifier
from .constant_folding import ConstantFolding
from .cse import CommonSubexpressionElimination
from .dce import DeadCodeElimination
from .expanders import (
    AsyncUnwrapper,
    BatchNormExpander,
    DotCanonicalizer,
    OptimizationBarrierRemover,
    TopkDecomposer,
)
from .fusion import InstructionFusion, default_can_emit
from .inliner import CallInliner, MapInliner
from .multi_output_fusion import MultiOutputFusion, ReduceEpilogueFusion
from .pass_base import HloPass, PassPipeline, PassStats, PipelineOptions, run_passes
from .tuple_simplifier import TupleSimplifier
from .while_licm import WhileLoopInvariantCodeMotion

__all__ = [
    "AlgebraicSimplifier",
    "AsyncUnwrapper",
    "BatchNormExpander",
    "CallInliner",
    "CommonSubexpressionElimination",
    "ConstantFolding",
    "DeadCodeElimination",
    "DotCanonicalizer",
    "HloPass",
    "InstructionFusion",
    "MapInliner",
    "MultiOutputFusion",
    "OptimizationBarrierRemover",
    "PassPipeline",
    "PassStats",
    "PipelineOptions",
    "ReduceEpilogueFusion",
    "TopkDecomposer",
    "TupleSimplifier",
    "WhileLoopInvariantCodeMotion",
    "default_can_emit",
    "run_passes",
]
