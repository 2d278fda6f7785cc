"""The test-harness ops of StableHLO's conformance suite: ``check.*`` and ``interpreter.*``.

They are no part of StableHLO; they are how its tests assert and instrument.
Each becomes an HLO ``custom-call`` whose target is the op's name, with
``custom_call_has_side_effect=true`` (so that nothing removes or reorders it)
and the op's parameters as a JSON object in ``backend_config``. Whoever runs
the module registers a Python target under each name
(``xlapy.register_custom_call``); the lowering only records what the op asked.

Targets, operands, results and backend_config (JSON) schemas:

==================================  ==========================  ========  ===========================
target                              operands                    result    backend_config
==================================  ==========================  ========  ===========================
``check.expect_eq``                 actual, expected            ``()``    ``{}``
``check.expect_eq_const``           actual, expected (constant) ``()``    ``{}``
``check.expect_almost_eq``          actual, expected            ``()``    ``{"tolerance": float}``
``check.expect_almost_eq_const``    actual, expected (constant) ``()``    ``{"tolerance": float}``
``check.expect_close``              actual, expected            ``()``    ``{"min_ulp_difference": int,
                                                                          "max_ulp_difference": int}``
``check.expect_serialized_eq``      expected                    ``()``    ``{"probe_id": str,
                                                                          "iteration": int}``
``interpreter.probe``               value                       value's   ``{"probe_id": str}``
                                                                shape
``interpreter.print``               value                       ``()``    ``{"name": str, "type": str}``
``interpreter.run_parallel``        the op's operands           tuple of  ``{"programs": [[str]],
                                                                results   "infeed": [str]}``
==================================  ==========================  ========  ===========================

Every key is always present; defaults are those of CheckOps.td: tolerance
1e-4, min_ulp_difference 0, max_ulp_difference 1, iteration 0. The ``_const``
forms keep their own targets because their comparison differs (NaNs with the
same bits are equal). ``stablehlo.custom_call @check.expect_*`` (JAX's form)
becomes the same custom-call as the op of that name, with the defaults.

``interpreter.print``: ``name`` is the operand's SSA name (``"%0"``) and
``type`` its MLIR type text, which the reference interpreter prints.

``interpreter.run_parallel``: ``programs[i][j]`` is the function run by
replica ``i``, partition ``j`` (so the grid is ``len(programs)`` replicas x
``len(programs[0])`` partitions); operands and results are the programs'
arguments and results concatenated in that row-major order. ``infeed`` names
functions whose results, in order, fill the infeed queue. Compile a program
with ``Program.hlo_module(name)``. The custom-call's result is always a tuple
(one element per declared result), unpacked with get-tuple-element.
"""

from __future__ import annotations

import json
from typing import Any

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from .. import ast
from .attrs import attr, float_attr, int_attr, string_attr, symbol
from .core import Ctx, lowering
from .errors import invalid, unsupported

DEFAULT_TOLERANCE = 1e-4
DEFAULT_MIN_ULP = 0
DEFAULT_MAX_ULP = 1


def _custom_call(
    ctx: Ctx, target: str, operands: list[XlaOp], shape: Shape, config: dict[str, Any]
) -> XlaOp:
    return ops.CustomCall(
        ctx.builder,
        target,
        operands,
        shape,
        opaque=json.dumps(config, sort_keys=False),
        has_side_effect=True,
    )


def _check(ctx: Ctx, target: str, operands: list[XlaOp], config: dict[str, Any]) -> list[XlaOp]:
    _custom_call(ctx, target, operands, Shape.tuple([]), config)
    return []


def _constant_operand(ctx: Ctx, op: ast.Operation) -> XlaOp:
    value = attr(op, "value")
    if not isinstance(value, ast.DenseElements):
        raise invalid(op, f"the expected value must be a dense<...> literal, got {value!r}")
    return ops.ConstantLiteral(ctx.builder, value.literal)


def _tolerance(op: ast.Operation) -> dict[str, Any]:
    return {"tolerance": float_attr(op, "tolerance", DEFAULT_TOLERANCE)}


def _ulps(op: ast.Operation) -> dict[str, Any]:
    return {
        "min_ulp_difference": int_attr(op, "min_ulp_difference", DEFAULT_MIN_ULP),
        "max_ulp_difference": int_attr(op, "max_ulp_difference", DEFAULT_MAX_ULP),
    }


@lowering("check.expect_eq")
def _expect_eq(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return _check(ctx, op.name, ctx.operands(op), {})


@lowering("check.expect_eq_const")
def _expect_eq_const(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (actual,) = ctx.operands(op)
    return _check(ctx, op.name, [actual, _constant_operand(ctx, op)], {})


@lowering("check.expect_almost_eq")
def _expect_almost_eq(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return _check(ctx, op.name, ctx.operands(op), _tolerance(op))


@lowering("check.expect_almost_eq_const")
def _expect_almost_eq_const(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (actual,) = ctx.operands(op)
    return _check(ctx, op.name, [actual, _constant_operand(ctx, op)], _tolerance(op))


@lowering("check.expect_close")
def _expect_close(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    return _check(ctx, op.name, ctx.operands(op), _ulps(op))


@lowering("check.expect_serialized_eq")
def _expect_serialized_eq(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    iteration = op.attributes.get("iteration", op.attributes.get("iter", 0))
    config = {"probe_id": string_attr(op, "probe_id"), "iteration": int(iteration)}
    return _check(ctx, op.name, ctx.operands(op), config)


@lowering("interpreter.probe")
def _probe(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (value,) = ctx.operands(op)
    config = {"probe_id": string_attr(op, "probe_id")}
    return [_custom_call(ctx, op.name, [value], value.shape, config)]


@lowering("interpreter.print")
def _print(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (value,) = ctx.operands(op)
    config = {"name": op.operands[0], "type": op.operand_types[0].text}
    _check(ctx, op.name, [value], config)
    return [value] * len(op.results)  # a result, if the op is given one, is the operand


def _symbols(value: Any) -> Any:
    """Nested lists of symbol references as nested lists of function names."""
    if isinstance(value, (list, tuple)):
        return [_symbols(v) for v in value]
    return symbol(value)


@lowering("interpreter.run_parallel")
def _run_parallel(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    try:
        programs = _symbols(attr(op, "programs"))
        infeed = _symbols(op.attributes.get("infeed", []))
    except TypeError as e:
        raise invalid(op, f"programs and infeed must name functions: {e}") from None
    if not programs or not all(isinstance(row, list) and row for row in programs):
        raise invalid(op, f"programs must be a non-empty list of non-empty lists, got {programs}")
    for name in [n for row in programs for n in row] + list(infeed):
        ctx.program.function(name)  # an unknown name is an error here, not in the runner
    shapes = [ctx.result_shape(op, i) for i in range(len(op.results))]
    config = {"programs": programs, "infeed": infeed}
    value = _custom_call(ctx, op.name, ctx.operands(op), Shape.tuple(shapes), config)
    return ctx.unpack(value, len(shapes))


# JAX's form: stablehlo.custom_call @check.expect_close(%actual, %expected).
_CUSTOM_CALL_CONFIGS = {
    "check.expect_eq": lambda op: {},
    "check.expect_almost_eq": _tolerance,
    "check.expect_close": _ulps,
}


def lower_check_custom_call(ctx: Ctx, op: ast.Operation, target: str) -> list[XlaOp]:
    """``stablehlo.custom_call @check.*``: the custom-call the check op itself would give."""
    make_config = _CUSTOM_CALL_CONFIGS.get(target)
    if make_config is None:
        raise unsupported(op, f"the check {target} (known: {', '.join(_CUSTOM_CALL_CONFIGS)})")
    if op.results:
        raise invalid(op, f"{target} has no results, but the call declares {len(op.results)}")
    # The reference judges this spelling with bounds of its own (3 ULP, 1e-3); the
    # runner reads "form" to apply them.
    config = {**make_config(op), "form": "custom_call"}
    return _check(ctx, target, ctx.operands(op), config)


__all__ = ["DEFAULT_MAX_ULP", "DEFAULT_MIN_ULP", "DEFAULT_TOLERANCE", "lower_check_custom_call"]
