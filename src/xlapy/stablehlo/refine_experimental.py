"""StableHLO's experimental dynamic ops, which refinement turns into their static ops.

Some ops have no ``dynamic_*`` form in StableHLO proper; ``jax.export`` writes
them as custom calls whose extra operands carry what the static op has as
attributes (StableHLO's "experimental ops"):

- ``stablehlo.dynamic_reduce_window(inputs..., inits..., window_dimensions,
  window_strides, base_dilations, window_dilations, padding)``, its reducer in
  ``called_computations``: ``reduce_window`` (``cumsum`` and friends);
- ``stablehlo.dynamic_rng_bit_generator(state, output_shape)``, its algorithm
  in ``mhlo.attributes``: ``rng_bit_generator``;
- ``stablehlo.dynamic_top_k(operand, k)``: ``chlo.top_k``.

Once refinement knows their shape operands (they must fold to constants),
each is rewritten in place into the static op, which the lowering then
handles like any other. ``REWRITES`` maps the custom-call target to its rewrite.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ..shape import Shape
from . import ast
from .lower import Ctx
from .lower.attrs import symbol
from .lower.errors import invalid
from .parse.types import element_name

# (the context the op is lowered in, the op, the module's functions by name) -> None
Rewrite = Callable[[Ctx, ast.Operation, Callable[[str], ast.Function]], None]


def _known(ctx: Ctx, op: ast.Operation, index: int, what: str) -> tuple[int, ...]:
    return ctx.known_ints(op.operands[index], op, what)


def _called_region(op: ast.Operation, function: Callable[[str], ast.Function]) -> ast.Region:
    """The body of the op's one ``called_computations`` function, as a region."""
    called = op.attributes.get("called_computations") or []
    if len(called) != 1:
        raise invalid(op, f"needs one function in called_computations, got {len(called)}")
    return copy.deepcopy(function(symbol(called[0])).body)


def _reduce_window(ctx: Ctx, op: ast.Operation, function: Callable[[str], ast.Function]) -> None:
    count = len(op.operands) - 5
    if count < 2 or count % 2:
        raise invalid(
            op, f"takes inputs, as many init values, and 5 window operands; got "
            f"{len(op.operands)} operands",
        )  # fmt: skip
    rank = len(_known(ctx, op, count, "window_dimensions"))
    padding = _known(ctx, op, count + 4, "padding")
    reducer = _called_region(op, function)
    op.attributes = {
        "window_dimensions": _known(ctx, op, count, "window_dimensions"),
        "window_strides": _known(ctx, op, count + 1, "window_strides"),
        "base_dilations": _known(ctx, op, count + 2, "base_dilations"),
        "window_dilations": _known(ctx, op, count + 3, "window_dilations"),
        "padding": [list(padding[2 * i : 2 * i + 2]) for i in range(rank)],
    }
    op.regions = [reducer]
    op.name = "stablehlo.reduce_window"
    op.operands = op.operands[:count]
    op.operand_types = op.operand_types[:count]


def _rng_bit_generator(
    ctx: Ctx, op: ast.Operation, function: Callable[[str], ast.Function]
) -> None:
    if len(op.operands) != 2 or len(op.result_types) != 2:
        raise invalid(op, "takes (state, output_shape) and gives (state, bits)")
    dims = _known(ctx, op, 1, "output_shape")
    bits = op.result_types[1]
    if bits.shape is None or not bits.shape.is_array or bits.shape.rank != len(dims):
        raise invalid(op, f"its output_shape {list(dims)} does not fit the result {bits.text}")
    extra = op.attributes.get("mhlo.attributes") or {}
    algorithm = extra.get("rng_algorithm", "DEFAULT") if isinstance(extra, dict) else "DEFAULT"
    shape = Shape.array(bits.shape.element_type, list(dims))
    text = "".join(f"{d}x" for d in dims)
    op.result_types[1] = ast.MlirType(f"tensor<{text}{element_name(bits)}>", shape)
    op.attributes = {"rng_algorithm": algorithm}
    op.name = "stablehlo.rng_bit_generator"
    op.operands = op.operands[:1]
    op.operand_types = op.operand_types[:1]


def _top_k(ctx: Ctx, op: ast.Operation, function: Callable[[str], ast.Function]) -> None:
    if len(op.operands) != 2:
        raise invalid(op, "takes (operand, k)")
    (k,) = _known(ctx, op, 1, "k")
    op.attributes = {"k": k}
    op.name = "chlo.top_k"
    op.operands = op.operands[:1]
    op.operand_types = op.operand_types[:1]


REWRITES: dict[str, Rewrite] = {
    "stablehlo.dynamic_reduce_window": _reduce_window,
    "stablehlo.dynamic_rng_bit_generator": _rng_bit_generator,
    "stablehlo.dynamic_top_k": _top_k,
}

__all__ = ["REWRITES", "Rewrite"]
