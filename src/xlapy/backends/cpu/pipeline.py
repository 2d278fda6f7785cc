"""The CPU compiler's pass pipeline: simplify, expand, normalize layouts, fuse.

The order follows XLA:CPU's: first rewrites that remove work (inlining,
simplification, constant folding, CSE, DCE, loop-invariant code motion) to a
fixed point; then the expanders that turn ops without a native emitter into
ops that have one; then layouts; then fusion, and a final clean-up.
"""

from __future__ import annotations

import importlib
from typing import Any

from ...hlo.module import HloModule
from ...passes.pass_base import HloPass, PassPipeline, PipelineOptions
from .emit_fft import supports_native_fft
from .layout_normalization import normalize_layouts


class LayoutNormalization(HloPass):
    name = "layout-normalization"

    def run(self, module: HloModule) -> bool:
        normalize_layouts(module)
        return True


def can_emit_fused(instruction: Any) -> bool:
    """What the loop emitter generates inside a fusion: the pass's default set, on the
    element types ``elemental`` has native code for."""
    from ...passes.fusion import default_can_emit
    from .elemental import is_native_type

    if not default_can_emit(instruction):
        return False
    shapes = [instruction.shape, *(o.shape for o in instruction.operands)]
    return all(is_native_type(s.element_type) for s in shapes if s.is_array)


def is_row_scatter(scatter: Any) -> bool:
    """A scatter of whole rows of the first dimension (emit_scatter's fast kernel)."""
    if scatter.operand_count != 3 or not scatter.shape.is_array:
        return False
    operand, indices, updates = scatter.operands
    a = scatter.attribute
    rank = operand.shape.rank

    def ints(name: str) -> tuple[int, ...]:
        return tuple(int(v) for v in (a(name) or ()))

    return (
        rank >= 1
        and indices.shape.rank == 2
        and indices.shape.dimensions[1] == 1
        and int(a("index_vector_dim")) == 1
        and ints("inserted_window_dims") == (0,)
        and ints("scatter_dims_to_operand_dims") == (0,)
        and ints("update_window_dims") == tuple(range(1, rank))
        and not ints("input_batching_dims")
        and tuple(updates.shape.dimensions)
        == (indices.shape.dimensions[0], *operand.shape.dimensions[1:])
        and indices.shape.element_type.bit_width >= 8
    )


def is_row_gather(gather: Any) -> bool:
    """A gather of whole rows of the first dimension (emit_gather's fast kernel)."""
    table, indices = gather.operands
    a = gather.attribute
    rank = table.shape.rank

    def ints(name: str) -> tuple[int, ...]:
        return tuple(int(v) for v in (a(name) or ()))

    count = indices.shape.dimensions[0] if indices.shape.rank >= 1 else 0
    rows = tuple(table.shape.dimensions[1:])
    return (
        rank >= 1
        and indices.shape.rank == 2
        and indices.shape.dimensions[1] == 1
        and int(a("index_vector_dim")) == 1
        and ints("collapsed_slice_dims") == (0,)
        and ints("start_index_map") == (0,)
        and ints("offset_dims") == tuple(range(1, rank))
        and ints("slice_sizes") == (1, *rows)
        and not ints("operand_batching_dims")
        and tuple(gather.shape.dimensions) == (count, *rows)
        and count > 0
        and table.shape.dimensions[0] > 0
        and indices.shape.element_type.bit_width >= 8
    )


def _optional(module_name: str, class_name: str, *args: Any) -> list[HloPass]:
    """The pass if its module exists (the pipeline grows as passes land)."""
    try:
        module = importlib.import_module(f"xlapy.passes.{module_name}")
    except ImportError:
        return []
    cls = getattr(module, class_name, None)
    return [cls(*args)] if cls is not None else []


def cpu_pipeline(options: Any) -> PassPipeline:
    pipeline = PassPipeline(
        name="cpu",
        options=PipelineOptions(
            verify=bool(getattr(options, "debug", False)),
            dump_dir=getattr(options, "dump_dir", None),
        ),
    )
    pipeline.add(*_optional("inliner", "Defuser"))
    pipeline.add(*_optional("expanders", "AsyncUnwrapper"))
    pipeline.add(*_optional("expanders", "OptimizationBarrierRemover"))
    pipeline.add(*_optional("expanders_async", "ShardingAnnotationRemover"))
    pipeline.add(*_optional("expanders", "TopkDecomposer"))
    pipeline.add(*_optional("expanders_sort", "SortDimensionMover"))
    pipeline.add(*_optional("expanders_batching", "BatchedGatherScatterNormalizer"))
    pipeline.add(*_optional("expanders_scatter", "ScatterExpander", is_row_scatter))
    pipeline.add(*_optional("expanders_gather", "GatherExpander", is_row_gather))
    pipeline.add(*_optional("expanders_select_scatter", "SelectAndScatterExpander"))
    pipeline.add(*_optional("expanders_ragged", "RaggedDotExpander"))
    pipeline.add(*_optional("expanders_ragged", "ScaledDotExpander"))
    pipeline.add(*_optional("expanders_rng", "RngExpander"))
    pipeline.add(*_optional("expanders_rng_bits", "RngBitGeneratorExpander"))
    pipeline.add(*_optional("expanders_fft", "FftExpander", supports_native_fft))
    pipeline.add(*_optional("inliner", "CallInliner"), *_optional("inliner", "MapInliner"))
    simplify = [
        *_optional("algebraic_simplifier", "AlgebraicSimplifier"),
        *_optional("tuple_simplifier", "TupleSimplifier"),
        *_optional("constant_folding", "ConstantFolding"),
        *_optional("cse", "CommonSubexpressionElimination"),
        *_optional("dce", "DeadCodeElimination"),
    ]
    if simplify:
        pipeline.add_fixed_point("simplify", simplify)
    pipeline.add(*_optional("while_licm", "WhileLoopInvariantCodeMotion"))
    pipeline.add(*_optional("expanders", "BatchNormExpander"))
    pipeline.add(*_optional("expanders_conv", "ConvolutionCanonicalizer"))
    pipeline.add(*_optional("expanders_dot_types", "DotTypeWidener"))
    pipeline.add(*_optional("expanders_dot_types", "LinalgTypeWidener"))
    pipeline.add(*_optional("expanders", "DotCanonicalizer"))
    if simplify:
        pipeline.add_fixed_point("simplify-after-expansion", simplify)
    pipeline.add(LayoutNormalization())
    pipeline.add(*_optional("reduction_splitter", "ReductionSplitter"))
    pipeline.add(*_optional("fusion", "InstructionFusion", can_emit_fused))
    pipeline.add(*_optional("multi_output_fusion", "ReduceEpilogueFusion", can_emit_fused))
    pipeline.add(*_optional("multi_output_fusion", "MultiOutputFusion", can_emit_fused))
    pipeline.add(*_optional("dce", "DeadCodeElimination"))
    disabled = getattr(options, "disabled_passes", ()) or ()
    disabled = frozenset([disabled] if isinstance(disabled, str) else disabled)
    if disabled:
        _disable(pipeline, disabled)
    return pipeline


_REQUIRED = frozenset({LayoutNormalization.name})


def _pass_names(pipeline: PassPipeline) -> set[str]:
    names: set[str] = set()
    for p in pipeline.passes:
        names |= _pass_names(p) if isinstance(p, PassPipeline) else {p.name}
    return names


def _disable(pipeline: PassPipeline, disabled: frozenset[str]) -> None:
    """Leave the passes named in ``disabled`` out of ``pipeline`` and its sub-pipelines."""
    from ...errors import InvalidArgumentError

    required = disabled & _REQUIRED
    if required:
        raise InvalidArgumentError(
            f"disabled_passes: {sorted(required)} cannot be disabled: the code the CPU "
            "backend emits relies on it (every internal buffer in row-major order)"
        )
    unknown = disabled - _pass_names(pipeline)
    if unknown:
        raise InvalidArgumentError(
            f"disabled_passes names no pass of the CPU pipeline: {sorted(unknown)}; the "
            f"passes are {sorted(_pass_names(pipeline))}"
        )

    def prune(p: PassPipeline) -> None:
        p.passes = [q for q in p.passes if q.name not in disabled]
        for q in p.passes:
            if isinstance(q, PassPipeline):
                prune(q)

    prune(pipeline)
