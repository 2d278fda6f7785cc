"""``ApproxTopkExpander``: XLA's ``ApproxTopK`` custom call as an exact sort and slices.

Why: ``jax.lax.approx_max_k`` / ``approx_min_k`` lower to ``custom-call
"ApproxTopK"``: operands ``(x_1..x_n, init_1..init_n)``, a comparator of ``2n``
scalars (``called_computations`` or ``to_apply``) and a dictionary of
attributes in ``backend_config`` (``{top_k = 3 : i64, reduction_dim = 1 : i64,
recall_target = 0.95 : f32, aggregate_to_topk = true, ...}``). The exact top-k
is a valid result of an approximate one (recall 1), and is what XLA's own
fallback computes on CPU: ``sort(x_1..x_n)`` along ``reduction_dim`` with the
comparator (stable, so ties keep index order), then the first ``m`` elements
of each, ``m`` being the result's size along that dimension (``top_k`` when
``aggregate_to_topk``, else the size XLA's partial reduction would leave, here
the whole dimension). The init values only pad the approximate algorithm's
windows and are not needed.
"""

from __future__ import annotations

import re

from ...errors import InvalidArgumentError
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ..creation import make_get_tuple_element
from ..rewrite import ExpanderPass

Op = HloOpcode

APPROX_TOPK_TARGET = "ApproxTopK"

_ENTRY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(true|false|[-+0-9.eE]+)(?:\s*:\s*\w+)?")


def approx_topk_config(instruction: HloInstruction) -> dict[str, object]:
    """The attributes of the call's ``backend_config`` dictionary (numbers and flags)."""
    text = instruction.attribute("backend_config") or ""
    if not isinstance(text, str):
        text = str(text)
    out: dict[str, object] = {}
    for key, value in _ENTRY.findall(text):
        if value in ("true", "false"):
            out[key] = value == "true"
        else:
            out[key] = float(value) if any(c in value for c in ".eE") else int(value)
    return out


def _fail(instruction: HloInstruction, message: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"custom-call ApproxTopK {instruction.name}: {message}")


def expand_approx_topk(instruction: HloInstruction) -> HloInstruction:
    """sort + slices standing for an ``ApproxTopK`` call."""
    count = instruction.operand_count
    if count == 0 or count % 2:
        raise _fail(instruction, f"takes n inputs and n init values, got {count} operands")
    n = count // 2
    inputs = list(instruction.operands[:n])
    results = list(instruction.shape.tuple_shapes) if instruction.shape.is_tuple else [
        instruction.shape
    ]  # fmt: skip
    if len(results) != n:
        raise _fail(instruction, f"{n} inputs but {len(results)} results")
    shape = inputs[0].shape
    if any(x.shape.dimensions != shape.dimensions for x in inputs):
        raise _fail(
            instruction,
            "every input needs the same dimensions, got " + ", ".join(str(x.shape) for x in inputs),
        )
    config = approx_topk_config(instruction)
    rank = shape.rank
    dim = int(config.get("reduction_dim", rank - 1))
    if dim < 0:
        dim += rank
    if not 0 <= dim < rank:
        raise _fail(instruction, f"reduction_dim={config.get('reduction_dim')} for rank {rank}")
    for r, x in zip(results, inputs, strict=True):
        dims_ok = all(
            (r.dimensions[d] <= n_ if d == dim else r.dimensions[d] == n_)
            for d, n_ in enumerate(x.shape.dimensions)
        ) and r.rank == rank  # fmt: skip
        if not dims_ok or r.element_type != x.shape.element_type:
            raise _fail(
                instruction,
                f"result {r} does not fit input {x.shape} reduced along dimension {dim}",
            )
    called = instruction.called_computations()
    if not called:
        raise _fail(instruction, "needs a comparator (called_computations or to_apply)")
    comparator = called[0]
    if len(comparator.parameters) != 2 * n:
        raise _fail(
            instruction,
            f"the comparator takes {len(comparator.parameters)} parameters; "
            f"{2 * n} needed for {n} inputs",
        )
    computation = instruction.parent
    sort_shape = inputs[0].shape if n == 1 else Shape.tuple([x.shape for x in inputs])
    sort = computation.add_instruction(
        HloInstruction(
            Op.SORT,
            sort_shape,
            inputs,
            attributes={"dimensions": (dim,), "is_stable": True, "to_apply": comparator},
        )
    )
    parts = []
    for index, result in enumerate(results):
        element = sort if n == 1 else make_get_tuple_element(sort, index)
        window = tuple(
            (0, result.dimensions[d] if d == dim else size, 1)
            for d, size in enumerate(shape.dimensions)
        )
        parts.append(
            computation.add_instruction(
                HloInstruction(Op.SLICE, result, [element], attributes={"slice": window})
            )
        )
    if not instruction.shape.is_tuple:
        return parts[0]
    return computation.add_instruction(HloInstruction(Op.TUPLE, instruction.shape, parts))


class ApproxTopkExpander(ExpanderPass):
    """``custom-call "ApproxTopK"`` as a stable sort with its comparator, then slices."""

    name = "approx-topk-expander"
    opcodes = frozenset({Op.CUSTOM_CALL})
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if instruction.custom_call_target != APPROX_TOPK_TARGET:
            return None
        return expand_approx_topk(instruction)


__all__ = ["APPROX_TOPK_TARGET", "ApproxTopkExpander", "approx_topk_config", "expand_approx_topk"]
