"""Shape rules of the ops that call computations or wrap other ops.

while, conditional, call (composite calls included: XLA represents them as
``call`` with ``is_composite=true``), fusion, custom-call, the generic
async-start/update/done and copy-start/done. Their results come from the
called computations' signatures or from the declared shape, so the rules are
mostly about checking that operands, parameters and results line up, in the
terms XLA's ShapeInference and HloVerifier use.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..opcode import HloOpcode as Op
from ..shape import ProgramShape, Shape
from ..types import PrimitiveType
from ._core import InferenceContext, array_shape, rule


def compatible(a: Shape, b: Shape) -> bool:
    """XLA's ShapeUtil::Compatible: equal up to layouts and which dimensions are dynamic."""
    return a.equal(b, ignore_layout=True, ignore_dynamic_dimensions=True)


def _signature(p: ProgramShape) -> str:
    return "(" + ", ".join(str(s) for s in p.parameters) + ") -> " + str(p.result)


def _check_arguments(
    ctx: InferenceContext, args: Sequence[Shape], comp: ProgramShape, what: str
) -> None:
    """XLA's InferCallShape: the arguments are the computation's parameters, up to layout."""
    if len(args) != len(comp.parameters):
        ctx.fail(
            f"{what} {_signature(comp)} takes {len(comp.parameters)} parameters but is given "
            f"{len(args)} arguments"
        )
    for i, (arg, param) in enumerate(zip(args, comp.parameters, strict=True)):
        if not compatible(arg, param):
            ctx.fail(f"argument {i} has shape {arg} but {what} parameter {i} has shape {param}")


def _merge_dynamic(result: Shape, other: Shape) -> Shape:
    """``result`` with every dimension that is dynamic in ``other`` made dynamic too."""
    if result.is_tuple:
        return Shape.tuple(
            _merge_dynamic(a, b)
            for a, b in zip(result.tuple_shapes, other.tuple_shapes, strict=True)
        )
    if not result.is_array:
        return result
    dynamic = [
        a or b for a, b in zip(result.dynamic_dimensions, other.dynamic_dimensions, strict=True)
    ]
    return Shape(result.element_type, result.dimensions, dynamic, result.layout)


# -- loops and branches ------------------------------------------------------------------


@rule(Op.WHILE)
def _while(ctx: InferenceContext) -> Shape:
    """condition: T -> pred[], body: T -> T, init: T; the loop returns T."""
    ctx.expect_operand_count(1)
    init = ctx.operands[0]
    condition, body = ctx.computation("condition"), ctx.computation("body")
    if len(condition.parameters) != 1:
        ctx.fail(f"the condition must take 1 parameter; got {_signature(condition)}")
    if len(body.parameters) != 1:
        ctx.fail(f"the body must take 1 parameter; got {_signature(body)}")
    if not compatible(condition.result, Shape.scalar(PrimitiveType.PRED)):
        ctx.fail(f"the condition must return pred[]; got {_signature(condition)}")
    for what, shape in (
        ("the condition parameter", condition.parameters[0]),
        ("the body parameter", body.parameters[0]),
        ("the body result", body.result),
    ):
        if not compatible(shape, init):
            ctx.fail(
                f"{what} {shape} must have the shape of init {init}; condition "
                f"{_signature(condition)}, body {_signature(body)}"
            )
    return init


@rule(Op.CONDITIONAL)
def _conditional(ctx: InferenceContext) -> Shape:
    """Branch b takes operand b+1; every branch returns the same shape.

    A pred selector takes true_computation/false_computation (branch 0 is the
    true branch); an s32 index takes branch_computations, the last one being
    the default for out-of-range indices.
    """
    if not ctx.operands:
        ctx.fail("needs a branch index or predicate operand")
    selector = ctx.operands[0]
    if "branch_computations" in ctx.computations:
        branches = ctx.computations["branch_computations"]
        if isinstance(branches, ProgramShape):
            branches = [branches]
        branches = list(branches)
    else:
        branches = [ctx.computation("true_computation"), ctx.computation("false_computation")]
    is_pred = compatible(selector, Shape.scalar(PrimitiveType.PRED))
    if not is_pred and not compatible(selector, Shape.scalar(PrimitiveType.S32)):
        ctx.fail(f"the branch index must be a pred[] or s32[] scalar, got {selector}")
    if is_pred and len(branches) != 2:
        ctx.fail(f"a pred selector needs exactly 2 branches, got {len(branches)}")
    if not branches:
        ctx.fail("needs at least one branch computation")
    if len(ctx.operands) != len(branches) + 1:
        ctx.fail(
            f"needs one operand per branch ({len(branches)}) after the selector, got "
            f"{len(ctx.operands) - 1}"
        )
    result = branches[0].result
    for j, (branch, operand) in enumerate(zip(branches, ctx.operands[1:], strict=True)):
        if len(branch.parameters) != 1:
            ctx.fail(f"branch computation {j} must take 1 parameter; got {_signature(branch)}")
        if not compatible(branch.parameters[0], operand):
            ctx.fail(
                f"branch operand {j} ({operand}) must match the parameter of branch computation "
                f"{j}: {_signature(branch)}"
            )
        if not compatible(branch.result, result):
            ctx.fail(
                f"branch computations 0 and {j} must return the same shape, got {result} and "
                f"{branch.result}"
            )
    for branch in branches[1:]:
        result = _merge_dynamic(result, branch.result)
    return result


# -- calls ------------------------------------------------------------------------------


@rule(Op.CALL)
def _call(ctx: InferenceContext) -> Shape:
    """The computation's result; composite calls (is_composite=true) follow the same rule."""
    comp = ctx.computation("to_apply")
    _check_arguments(ctx, ctx.operands, comp, "to_apply")
    return comp.result


@rule(Op.FUSION)
def _fusion(ctx: InferenceContext) -> Shape:
    comp = ctx.computation("calls")
    _check_arguments(ctx, ctx.operands, comp, "the fused computation")
    return comp.result


def _subshape(shape: Shape, index: Sequence[int]) -> Shape | None:
    for i in index:
        if not shape.is_tuple or not 0 <= i < len(shape.tuple_shapes):
            return None
        shape = shape.tuple_shapes[i]
    return shape


@rule(Op.CUSTOM_CALL)
def _custom_call(ctx: InferenceContext) -> Shape:
    """The declared shape, checked against operand_layout_constraints and aliasing."""
    result = ctx.declared_shape()
    constraints = ctx.attr("operand_layout_constraints", None)
    if constraints is not None:
        if len(constraints) != len(ctx.operands):
            ctx.fail(
                f"operand_layout_constraints has {len(constraints)} shapes; it needs one per "
                f"operand ({len(ctx.operands)})"
            )
        for i, (constraint, operand) in enumerate(zip(constraints, ctx.operands, strict=True)):
            if not constraint.has_layout:
                ctx.fail(f"operand_layout_constraints[{i}] ({constraint}) must have a layout")
            if not compatible(constraint, operand):
                ctx.fail(
                    f"operand_layout_constraints[{i}] ({constraint}) does not match operand {i} "
                    f"({operand}) up to layout"
                )
    for alias in ctx.attr("output_to_operand_aliasing", ()):
        out = _subshape(result, alias.output_shape_index)
        if out is None:
            ctx.fail(
                f"output_to_operand_aliasing: {list(alias.output_shape_index)} is not an "
                f"index into the result {result}"
            )
        if not 0 <= alias.operand_index < len(ctx.operands):
            ctx.fail(f"output_to_operand_aliasing: operand {alias.operand_index} does not exist")
        src = _subshape(ctx.operands[alias.operand_index], alias.operand_shape_index)
        if src is None:
            ctx.fail(
                f"output_to_operand_aliasing: {list(alias.operand_shape_index)} is not an index "
                f"into operand {alias.operand_index}"
            )
        if not compatible(out, src):
            ctx.fail(
                f"output_to_operand_aliasing: result{list(alias.output_shape_index)} ({out}) "
                f"cannot alias operand {alias.operand_index}"
                f"{list(alias.operand_shape_index)} ({src}); the shapes differ"
            )
    return result


# -- asynchronous wrappers -----------------------------------------------------------------


def _is_unbound(shape: Shape) -> bool:
    return shape.is_tuple and not shape.tuple_shapes


def _async_state(ctx: InferenceContext, shape: Shape, what: str) -> tuple[Shape, ...]:
    """The ((operands), result, context...) tuple that flows from start through updates."""
    if not shape.is_tuple or len(shape.tuple_shapes) < 2 or not shape.tuple_shapes[0].is_tuple:
        ctx.fail(
            f"{what} must be an async-start/update tuple ((operands...), result, ...), got {shape}"
        )
    return shape.tuple_shapes


def _check_bound(ctx: InferenceContext, comp: ProgramShape | None, bound: Sequence[Shape]) -> None:
    """Late binding: the operands bound so far are a prefix of the called computation's parameters."""
    if comp is None:
        return
    if len(bound) > len(comp.parameters):
        ctx.fail(
            f"binds {len(bound)} operands but the called computation {_signature(comp)} takes "
            f"{len(comp.parameters)}"
        )
    for i, (arg, param) in enumerate(zip(bound, comp.parameters, strict=False)):
        if not compatible(arg, param):
            ctx.fail(
                f"bound operand {i} has shape {arg} but the computation's parameter {i} is {param}"
            )


def _check_output(ctx: InferenceContext, comp: ProgramShape | None, output: Shape) -> None:
    """The output slot holds the computation's result, or () while the output is unbound."""
    if comp is not None and not _is_unbound(output) and not compatible(output, comp.result):
        ctx.fail(f"the output slot {output} must be the called computation's result {comp.result}")


def _declared_async_state(
    ctx: InferenceContext, operands: Sequence[Shape], comp: ProgramShape | None
) -> Shape | None:
    """The declared ((operands), result, context...) tuple, checked against what is bound."""
    if ctx.declared is None:
        return None
    state = _async_state(ctx, ctx.declared, "the result")
    if not compatible(Shape.tuple(operands), state[0]):
        ctx.fail(
            f"the result's operand slot {state[0]} must hold the bound operands {Shape.tuple(operands)}"
        )
    _check_output(ctx, comp, state[1])
    return ctx.declared


def _optional_computation(ctx: InferenceContext) -> ProgramShape | None:
    return ctx.computation("calls") if "calls" in ctx.computations else None


@rule(Op.ASYNC_START)
def _async_start(ctx: InferenceContext) -> Shape:
    """((operands...), result, context...); fewer operands than parameters is late binding.

    The context elements are whatever the declared shape states; without one the
    result has none, as XLA makes when it wraps an op (``((f32[5]), f32[5])``).
    """
    comp = ctx.computation("calls")
    _check_bound(ctx, comp, ctx.operands)
    declared = _declared_async_state(ctx, ctx.operands, comp)
    if declared is not None:
        return declared
    if len(ctx.operands) != len(comp.parameters):
        ctx.fail("late binding (fewer operands than parameters) needs the declared result shape")
    return Shape.tuple([Shape.tuple(ctx.operands), comp.result])


@rule(Op.ASYNC_UPDATE)
def _async_update(ctx: InferenceContext) -> Shape:
    """The state passes through, with any further operands bound after the earlier ones."""
    if not ctx.operands:
        ctx.fail("needs the async-start or async-update it continues")
    state = _async_state(ctx, ctx.operands[0], "operand 0")
    comp = _optional_computation(ctx)
    bound = list(state[0].tuple_shapes) + list(ctx.operands[1:])
    _check_bound(ctx, comp, bound)
    declared = _declared_async_state(ctx, bound, comp)
    if declared is not None:
        if not _is_unbound(state[1]) and not compatible(declared.tuple_shapes[1], state[1]):
            ctx.fail(
                f"the output slot {state[1]} is already bound; it cannot become {declared.tuple_shapes[1]}"
            )
        return declared
    return Shape.tuple([Shape.tuple(bound), *state[1:]])


@rule(Op.ASYNC_DONE)
def _async_done(ctx: InferenceContext) -> Shape:
    """The output slot; an output still unbound (()) is bound here by the declared shape."""
    ctx.expect_operand_count(1)
    state = _async_state(ctx, ctx.operands[0], "the operand")
    comp = _optional_computation(ctx)
    output = state[1]
    if _is_unbound(output) and ctx.declared is not None:
        _check_output(ctx, comp, ctx.declared)
        return ctx.declared
    _check_output(ctx, comp, output)
    return output


@rule(Op.COPY_START)
def _copy_start(ctx: InferenceContext) -> Shape:
    """(destination, source, u32[] context); the declared form keeps memory-space layouts."""
    ctx.expect_operand_count(1)
    x = ctx.operands[0]
    context = array_shape(PrimitiveType.U32, [])
    if ctx.declared is None:
        return Shape.tuple([x, x, context])
    d = ctx.declared
    if not (d.is_tuple and len(d.tuple_shapes) == 3):
        ctx.fail(f"the result must be a (destination, source, u32[]) tuple, got {d}")
    dest, src, ctx_shape = d.tuple_shapes
    if not (compatible(dest, x) and compatible(src, x)):
        ctx.fail(f"the destination and source in {d} must both have the operand's shape {x}")
    if not compatible(ctx_shape, context):
        ctx.fail(f"the context element of {d} must be u32[], got {ctx_shape}")
    return d


@rule(Op.COPY_DONE)
def _copy_done(ctx: InferenceContext) -> Shape:
    """The destination buffer of the copy-start tuple."""
    ctx.expect_operand_count(1)
    t = ctx.operands[0]
    if not (t.is_tuple and len(t.tuple_shapes) == 3):
        ctx.fail(f"the operand must be a copy-start (destination, source, u32[]) tuple, got {t}")
    return t.tuple_shapes[0]
