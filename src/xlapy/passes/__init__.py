"""HLO-to-HLO passes: simplification, fusion and the pipelines that run them."""

from .pass_base import HloPass, PassPipeline, PassStats, PipelineOptions, run_passes

__all__ = ["HloPass", "PassPipeline", "PassStats", "PipelineOptions", "run_passes"]
