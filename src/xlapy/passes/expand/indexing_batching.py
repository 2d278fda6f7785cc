"""``BatchedGatherScatterNormalizer``: gathers and scatters with batching dimensions as
ones without (XLA's pass of the same name), so that the row fast paths and the
loop expanders, which know no batching dimensions, serve them too.

Why it is exact: a batching dimension pairs an operand dimension with an index
dimension, and element ``b`` of the index batch reads (or updates) slice ``b`` of
the operand. That is the same as one more start-index component equal to ``b``,
mapped to that operand dimension and collapsed (inserted, for a scatter) with a
window of 1: the component is an iota along the index dimension, concatenated to
the index vectors. ``b`` is always in bounds (the two dimensions have one size), so
no clamping or skipping changes anything.
"""

from __future__ import annotations

from ...hlo.instruction import HloInstruction
from ...layout import Layout
from ...opcode import HloOpcode
from ...shape import Shape
from ..rewrite import ExpanderPass

Op = HloOpcode


def _array(like: HloInstruction, dims: list[int]) -> Shape:
    layout = None if like.shape.layout is None else Layout.default(len(dims))
    return Shape.array(like.shape.element_type, dims, layout)


def _with_batch_components(
    indices: HloInstruction, vector_dim: int, batching: list[int]
) -> tuple[HloInstruction, int]:
    """The index vectors with an iota component per batching dimension appended."""
    computation = indices.parent
    dims = list(indices.shape.dimensions)
    if vector_dim == len(dims):
        dims.append(1)
        indices = computation.add_instruction(
            HloInstruction(Op.RESHAPE, _array(indices, dims), [indices])
        )
    parts = [indices]
    for d in batching:
        component = list(dims)
        component[vector_dim] = 1
        parts.append(
            computation.add_instruction(
                HloInstruction(
                    Op.IOTA, _array(indices, component), [], attributes={"iota_dimension": d}
                )
            )
        )
    total = list(dims)
    total[vector_dim] += len(batching)
    joined = computation.add_instruction(
        HloInstruction(
            Op.CONCATENATE, _array(indices, total), parts, attributes={"dimensions": (vector_dim,)}
        )
    )
    return joined, vector_dim


def _gather(gather: HloInstruction) -> HloInstruction | None:
    numbers = gather.gather_dimension_numbers
    batching = list(numbers.operand_batching_dims)
    if not batching:
        return None
    operand, indices = gather.operands
    joined, vector_dim = _with_batch_components(
        indices, numbers.index_vector_dim, list(numbers.start_indices_batching_dims)
    )
    attributes = dict(gather.attributes)
    attributes.update(
        collapsed_slice_dims=tuple(sorted([*numbers.collapsed_slice_dims, *batching])),
        start_index_map=(*numbers.start_index_map, *batching),
        index_vector_dim=vector_dim,
        operand_batching_dims=(),
        start_indices_batching_dims=(),
    )
    return gather.parent.add_instruction(
        HloInstruction(Op.GATHER, gather.shape, [operand, joined], attributes=attributes)
    )


def _scatter(scatter: HloInstruction) -> HloInstruction | None:
    numbers = scatter.scatter_dimension_numbers
    batching = list(numbers.input_batching_dims)
    if not batching:
        return None
    operands = list(scatter.operands)
    position = (len(operands) - 1) // 2  # inputs..., indices, updates...
    joined, vector_dim = _with_batch_components(
        operands[position], numbers.index_vector_dim, list(numbers.scatter_indices_batching_dims)
    )
    operands[position] = joined
    attributes = dict(scatter.attributes)
    attributes.update(
        inserted_window_dims=tuple(sorted([*numbers.inserted_window_dims, *batching])),
        scatter_dims_to_operand_dims=(*numbers.scatter_dims_to_operand_dims, *batching),
        index_vector_dim=vector_dim,
        input_batching_dims=(),
        scatter_indices_batching_dims=(),
    )
    return scatter.parent.add_instruction(
        HloInstruction(Op.SCATTER, scatter.shape, operands, attributes=attributes)
    )


_REWRITES = {Op.GATHER: _gather, Op.SCATTER: _scatter}


class BatchedGatherScatterNormalizer(ExpanderPass):
    name = "batched-gather-scatter-normalizer"
    opcodes = frozenset(_REWRITES)

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        value = _REWRITES[instruction.opcode](instruction)
        return value
