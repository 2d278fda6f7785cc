"""Lowerings of the control family: while, if, case, func.call, composite, custom_call.

StableHLO's ``while``, ``if`` and ``case`` regions may use any value of the
enclosing function; HLO's loop bodies and branches see only their one
parameter. So the values a region captures (other than constants, which are
re-created inside) travel in that parameter: appended to the loop state,
which the body passes through unchanged, or packed into the branch's operand.
This is what XLA's exporter does before it translates these ops.
"""

from __future__ import annotations

from typing import Any

from ... import ops
from ...builder import XlaOp
from ...shape import Shape
from ...xla_data import CustomCallApiVersion, FrontendAttributes, OutputOperandAliasing
from .. import ast
from .attrs import (
    attr,
    bool_attr,
    enum_value,
    field_ints,
    int_attr,
    mlir_text,
    string_attr,
    symbol,
)
from .checks import lower_check_custom_call
from .control_sharding import GSPMD_TARGETS, lower_gspmd_call
from .core import Ctx, free_values, lowering, results_of
from .custom_targets import known_target
from .errors import invalid


def captured_values(ctx: Ctx, regions: list[ast.Region], op: ast.Operation) -> list[str]:
    """The values the regions use from outside that are not constants (those are re-made)."""
    names = []
    for name in free_values(regions):
        if ctx.known_value(name) is None:
            ctx.value(name, op)
            names.append(name)
    return names


# -- while, if, case ------------------------------------------------------------------------------


@lowering("stablehlo.while", "mhlo.while")
def _while(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    inits = ctx.operands(op)
    if len(op.regions) != 2:
        raise invalid(op, f"needs a cond and a body region, got {len(op.regions)} regions")
    captured = captured_values(ctx, op.regions, op)
    state = [x.shape for x in inits]
    count = len(inits)

    def cond_root(child: Ctx, returned: list[XlaOp], elements: list[XlaOp]) -> XlaOp:
        if len(returned) != 1:
            raise invalid(op, f"the cond region must return one i1 value, got {len(returned)}")
        return returned[0]

    def body_root(child: Ctx, returned: list[XlaOp], elements: list[XlaOp]) -> XlaOp:
        if len(returned) != count:
            raise invalid(op, f"the body returns {len(returned)} values for {count} loop values")
        return child.pack([*returned, *elements[count:]])

    cond = ctx.capturing_computation(op.regions, op, "cond", state, None, captured, cond_root, 0)
    body = ctx.capturing_computation(op.regions, op, "body", state, None, captured, body_root, 1)
    values = [*inits, *(ctx.value(name, op) for name in captured)]
    loop = ops.While(cond, body, ctx.pack(values))
    if len(values) == 1:
        return [loop]
    return ctx.unpack(loop, count)


def _branch(ctx: Ctx, op: ast.Operation, index: int, role: str) -> tuple[Any, XlaOp]:
    """A branch computation and its operand (the values it captures)."""
    region = op.regions[index]
    captured = captured_values(ctx, [region], op)

    def root(child: Ctx, returned: list[XlaOp], elements: list[XlaOp]) -> XlaOp:
        if len(returned) != len(op.results):
            raise invalid(
                op, f"the {role} returns {len(returned)} values for {len(op.results)} results"
            )
        return child.pack(returned) if returned else ops.Tuple(child.builder, [])

    computation = ctx.capturing_computation(
        op.regions, op, role, [], [], captured, root, region_index=index
    )
    return computation, ctx.pack([ctx.value(name, op) for name in captured])


def _conditional_results(ctx: Ctx, value: XlaOp, op: ast.Operation) -> list[XlaOp]:
    return results_of(ctx, value, op) if op.results else []


@lowering("stablehlo.if", "mhlo.if")
def _if(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (pred,) = ctx.operands(op)
    if len(op.regions) != 2:
        raise invalid(op, f"needs a true and a false branch, got {len(op.regions)} regions")
    true_computation, true_operand = _branch(ctx, op, 0, "true_branch")
    false_computation, false_operand = _branch(ctx, op, 1, "false_branch")
    value = ops.Conditional(pred, true_operand, true_computation, false_operand, false_computation)
    return _conditional_results(ctx, value, op)


@lowering("stablehlo.case", "mhlo.case")
def _case(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    (index,) = ctx.operands(op)
    if not op.regions:
        raise invalid(op, "needs at least one branch")
    branches = [_branch(ctx, op, i, f"branch{i}") for i in range(len(op.regions))]
    value = ops.Conditional(index, [c for c, _ in branches], [o for _, o in branches])
    return _conditional_results(ctx, value, op)


# -- calls ------------------------------------------------------------------------------------------


@lowering("func.call", "call", "stablehlo.call")
def _call(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    try:
        name = symbol(attr(op, "callee"))
    except TypeError:
        callee = op.attributes["callee"]
        raise invalid(op, f"callee must be a symbol such as @f, got {callee!r}") from None
    computation = ctx.program.callee(name, op)
    value = ops.Call(ctx.builder, computation, ctx.operands(op))
    return _conditional_results(ctx, value, op)


@lowering("stablehlo.composite", "mhlo.composite")
def _composite(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    name = string_attr(op, "name")
    try:
        decomposition = symbol(attr(op, "decomposition"))
    except TypeError:
        raise invalid(op, "decomposition must be a symbol such as @f") from None
    computation = ctx.program.callee(decomposition, op)
    attributes = op.attributes.get("composite_attributes", {})
    text = mlir_text(attributes if isinstance(attributes, dict) else attributes)
    value = ops.CompositeCall(
        ctx.builder, computation, ctx.operands(op), name, text, int_attr(op, "version", 0)
    )
    return _conditional_results(ctx, value, op)


# -- custom_call --------------------------------------------------------------------------------------

# Targets that only annotate a value with a device placement (an identity here).
_ANNOTATIONS = frozenset({"annotate_device_placement"})


def _api_version(op: ast.Operation) -> CustomCallApiVersion:
    value = op.attributes.get("api_version")
    if isinstance(op.attributes.get("mhlo.backend_config"), dict):
        # A typed-FFI call: XLA's exporter makes it API_VERSION_TYPED_FFI whatever it says.
        return CustomCallApiVersion.API_VERSION_TYPED_FFI
    if value is None:
        return CustomCallApiVersion.API_VERSION_ORIGINAL
    if isinstance(value, int):
        number = value
    else:
        text = enum_value(value).upper()
        if text in CustomCallApiVersion.__members__:
            return CustomCallApiVersion[text]
        try:
            number = int(text)
        except ValueError:
            raise invalid(op, f"unknown api_version {value!r}") from None
    try:
        return CustomCallApiVersion(number)
    except ValueError:
        raise invalid(op, f"unknown api_version {number}") from None


def _aliases(op: ast.Operation) -> list[OutputOperandAliasing]:
    out = []
    for alias in op.attributes.get("output_operand_aliases", ()) or ():
        values = alias.fields if isinstance(alias, ast.DialectAttr) else dict(alias)
        out.append(
            OutputOperandAliasing(
                field_ints(values, "output_tuple_indices"),
                int(values.get("operand_index", 0)),
                field_ints(values, "operand_tuple_indices"),
            )
        )
    return out


def _layouts(op: ast.Operation, name: str) -> list[tuple[int, ...]] | None:
    value = op.attributes.get(name)
    if value is None:
        return None
    layouts = []
    for entry in value:
        if isinstance(entry, ast.DenseElements):
            layouts.append(tuple(int(v) for v in entry.literal.to_numpy().reshape(-1)))
        else:
            layouts.append(tuple(int(v) for v in entry))
    return layouts


@lowering("stablehlo.custom_call", "mhlo.custom_call")
def _custom_call(ctx: Ctx, op: ast.Operation) -> list[XlaOp]:
    target = string_attr(op, "call_target_name")
    if target.startswith("check."):
        return lower_check_custom_call(ctx, op, target)
    known = known_target(target)
    if known is not None:
        return known(ctx, op)
    if target in GSPMD_TARGETS:
        return lower_gspmd_call(ctx, op, target)
    operands = ctx.operands(op)
    results = [ctx.result_shape(op, i) for i in range(len(op.results))]
    if target in _ANNOTATIONS and len(operands) == 1 and len(results) == 1:
        if operands[0].shape.without_layout() == results[0].without_layout():
            return operands
    # Typed-FFI calls (api_version 4) from JAX carry a dictionary in mhlo.backend_config,
    # which HLO text prints as MLIR writes it (backend_config={mode = 86 : ui8}).
    config = op.attributes.get("mhlo.backend_config")
    if not isinstance(config, dict):
        config = op.attributes.get("backend_config") or config or ""
    if isinstance(config, dict):
        opaque = mlir_text(config)
    elif isinstance(config, ast.DialectAttr | ast.OpaqueAttr):
        opaque = mlir_text(config)
    else:
        opaque = str(config or "")
    result = results[0] if len(results) == 1 else Shape.tuple(results)
    operand_layouts = _layouts(op, "operand_layouts")
    result_layouts = _layouts(op, "result_layouts")
    operand_shapes = None
    if operand_layouts is not None or result_layouts is not None:
        if operand_layouts is None or result_layouts is None:
            raise invalid(op, "operand_layouts and result_layouts come together")
        operand_shapes = [
            x.shape.with_layout(list(layout))
            for x, layout in zip(operands, operand_layouts, strict=True)
        ]
        laid_out = [s.with_layout(list(lo)) for s, lo in zip(results, result_layouts, strict=True)]
        result = laid_out[0] if len(laid_out) == 1 else Shape.tuple(laid_out)
    value = ops.CustomCall(
        ctx.builder,
        target,
        operands,
        result,
        opaque=opaque,
        has_side_effect=bool_attr(op, "has_side_effect"),
        output_operand_aliasing=_aliases(op),
        api_version=_api_version(op),
        operand_shapes_with_layout=operand_shapes,
    )
    called = op.attributes.get("called_computations") or []
    if called:
        computations = []
        for ref in called:
            callee = ctx.program.callee(symbol(ref), op)
            shapes = callee.program_shape.parameters
            computations.append(ctx.builder.computation_arg(callee, shapes, "CustomCall", "callee"))
        value.instruction.set_attribute("called_computations", computations)
    frontend = _frontend_attributes(op)
    if frontend:
        value.instruction.set_attribute("frontend_attributes", FrontendAttributes(frontend))
    return _conditional_results(ctx, value, op)


def _frontend_attributes(op: ast.Operation) -> dict[str, str]:
    """``mhlo.frontend_attributes`` (strings) and a Shardy ``sdy.sharding_rule``, which
    XLA's exporter carries as the frontend attribute ``xla.sdy.sharding_rule``."""
    out: dict[str, str] = {}
    given = op.attributes.get("mhlo.frontend_attributes")
    if isinstance(given, dict):
        for key, v in given.items():
            out[key] = v if isinstance(v, str) else mlir_text(v)
    rule = op.attributes.get("sdy.sharding_rule")
    if rule is not None:
        out["xla.sdy.sharding_rule"] = mlir_text(rule)
    return out


__all__ = ["captured_values"]
