"""Control-flow and call ops: While, Conditional, Call, CompositeCall, CustomCall.

Called computations may be ``XlaComputation`` objects or Python callables;
a callable is traced over parameters of exactly the shapes the op will pass
(the loop state, a branch operand, the call arguments), so a mistake inside it
is reported at the call that uses it. Signatures follow xla_builder.h.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from ..builder import XlaBuilder, XlaComputation, XlaOp, builder_op, shape_of
from ..errors import InvalidArgumentError
from ..hlo.instruction import RawAttribute
from ..hlo.printer import literal_text
from ..literal import Literal
from ..opcode import HloOpcode as Op
from ..shape import Shape
from ..types import PrimitiveType
from ..xla_data import (
    CustomCallApiVersion,
    CustomCallSchedule,
    FrontendAttributes,
    OutputOperandAliasing,
)
from ._support import (
    require_op,
)

ComputationArg = XlaComputation | Callable[..., Any]


def _require_ops(values: Any, what: str, op_name: str) -> list[XlaOp]:
    if isinstance(values, XlaOp) or not isinstance(values, (list, tuple)):
        raise InvalidArgumentError(
            f"{op_name}: {what} must be a list of XlaOps, got {type(values).__name__}"
        )
    return [require_op(v, f"{what}[{i}]", op_name) for i, v in enumerate(values)]


def _require_builder(builder: Any, op_name: str) -> XlaBuilder:
    if not isinstance(builder, XlaBuilder):
        raise InvalidArgumentError(
            f"{op_name}: the first argument must be the XlaBuilder, got {type(builder).__name__}"
        )
    return builder


def _is_scalar(shape: Shape, element_type: PrimitiveType) -> bool:
    return shape.is_array and shape.rank == 0 and shape.element_type == element_type


# -- while and conditional --------------------------------------------------------------------


@builder_op("While")
def While(condition: ComputationArg, body: ComputationArg, init: XlaOp) -> XlaOp:
    """Run ``body`` on the loop state while ``condition`` (state -> pred[]) holds.

    The state has the shape of ``init`` throughout; the result is the state
    after the last iteration.
    """
    init = require_op(init, "init", "While")
    builder, state = init.builder, shape_of(init)
    cond = builder.computation_arg(condition, [state], "While", "condition")
    loop = builder.computation_arg(body, [state], "While", "body")
    return builder.add_instruction(
        Op.WHILE, [init], computations={"condition": cond, "body": loop}, op_name="While"
    )


def _predicated(
    predicate: XlaOp,
    true_operand: XlaOp,
    true_computation: ComputationArg,
    false_operand: XlaOp,
    false_computation: ComputationArg,
) -> XlaOp:
    predicate = require_op(predicate, "predicate", "Conditional")
    operands = [
        require_op(true_operand, "true_operand", "Conditional"),
        require_op(false_operand, "false_operand", "Conditional"),
    ]
    if not _is_scalar(shape_of(predicate), PrimitiveType.PRED):
        raise InvalidArgumentError(
            f"Conditional: the predicate of the (predicate, true_operand, true_computation, "
            f"false_operand, false_computation) form must be a pred[] scalar, got "
            f"{shape_of(predicate)} (use an s32[] index with branch_computations for a switch)"
        )
    builder = predicate.builder
    computations = {
        "true_computation": builder.computation_arg(
            true_computation, [shape_of(operands[0])], "Conditional", "true_computation"
        ),
        "false_computation": builder.computation_arg(
            false_computation, [shape_of(operands[1])], "Conditional", "false_computation"
        ),
    }
    return builder.add_instruction(
        Op.CONDITIONAL, [predicate, *operands], computations=computations, op_name="Conditional"
    )


def _indexed(
    branch_index: XlaOp,
    branch_computations: Sequence[ComputationArg],
    branch_operands: Sequence[XlaOp],
) -> XlaOp:
    branch_index = require_op(branch_index, "branch_index", "Conditional")
    operands = _require_ops(branch_operands, "branch_operands", "Conditional")
    if not isinstance(branch_computations, (list, tuple)):
        raise InvalidArgumentError(
            "Conditional: branch_computations must be a list of XlaComputations or callables, "
            f"got {type(branch_computations).__name__}"
        )
    if not _is_scalar(shape_of(branch_index), PrimitiveType.S32):
        raise InvalidArgumentError(
            f"Conditional: the branch_index of the (branch_index, branch_computations, "
            f"branch_operands) form must be an s32[] scalar, got {shape_of(branch_index)}"
        )
    if not branch_computations or len(branch_computations) != len(operands):
        shapes = ", ".join(str(shape_of(o)) for o in operands) or "none"
        raise InvalidArgumentError(
            f"Conditional: needs at least one branch and one operand per branch computation, "
            f"got {len(branch_computations)} computations and {len(operands)} operands "
            f"(operand shapes: {shapes})"
        )
    builder = branch_index.builder
    branches = [
        builder.computation_arg(c, [shape_of(o)], "Conditional", f"branch computation {i}")
        for i, (c, o) in enumerate(zip(branch_computations, operands, strict=True))
    ]
    return builder.add_instruction(
        Op.CONDITIONAL,
        [branch_index, *operands],
        computations={"branch_computations": branches},
        op_name="Conditional",
    )


_FORMS = (inspect.signature(_predicated), inspect.signature(_indexed))


@builder_op("Conditional")
def Conditional(*args: Any, **kwargs: Any) -> XlaOp:
    """Run one computation on its operand, chosen at run time; XLA's two overloads.

    ``Conditional(predicate, true_operand, true_computation, false_operand,
    false_computation)`` with a pred[] predicate, or ``Conditional(branch_index,
    branch_computations, branch_operands)`` with an s32[] index, where an
    index out of range selects the last branch. Only the chosen branch runs.
    """
    for form, impl in zip(_FORMS, (_predicated, _indexed), strict=True):
        try:
            bound = form.bind(*args, **kwargs)
        except TypeError:
            continue
        return impl(*bound.args, **bound.kwargs)
    raise InvalidArgumentError(
        "Conditional: call it as Conditional(predicate, true_operand, true_computation, "
        "false_operand, false_computation) or Conditional(branch_index, branch_computations, "
        f"branch_operands); got {len(args)} positional and {sorted(kwargs)} keyword arguments"
    )


# -- calls --------------------------------------------------------------------------------


def _call(
    op_name: str, builder: Any, computation: ComputationArg, operands: Sequence[XlaOp]
) -> XlaOp:
    builder = _require_builder(builder, op_name)
    ops = _require_ops(operands, "operands", op_name)
    comp = builder.computation_arg(computation, [shape_of(o) for o in ops], op_name, "computation")
    return builder.add_instruction(Op.CALL, ops, computations={"to_apply": comp}, op_name=op_name)


@builder_op("Call")
def Call(builder: XlaBuilder, computation: ComputationArg, operands: Sequence[XlaOp]) -> XlaOp:
    """Apply ``computation`` to ``operands`` (its parameters, in order; may be none)."""
    return _call("Call", builder, computation, operands)


@builder_op("CompositeCall")
def CompositeCall(
    builder: XlaBuilder,
    computation: ComputationArg,
    operands: Sequence[XlaOp],
    name: str,
    attributes: str | None = None,
    version: int | None = None,
) -> XlaOp:
    """A call that names the higher-level op ``computation`` decomposes (StableHLO composite).

    As in XLA it is a ``call`` with ``is_composite=true``; the name, the
    stringified attribute dictionary (default ``{}``) and the version (default
    0) travel as the frontend attributes composite.name/attributes/version, in
    addition to any the builder sets on every op.
    """
    if not isinstance(name, str) or not name:
        raise InvalidArgumentError(f"CompositeCall: name must be a non-empty string, got {name!r}")
    attributes = "{}" if attributes is None else attributes
    if not isinstance(attributes, str) or not attributes:
        raise InvalidArgumentError(
            "CompositeCall: attributes must be a non-empty string such as '{n = 1 : i32}', got "
            f"{attributes!r}"
        )
    version = 0 if version is None else version
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        raise InvalidArgumentError(
            f"CompositeCall: version must be a non-negative integer, got {version!r}"
        )
    op = _call("CompositeCall", builder, computation, operands)
    instruction = op.instruction
    frontend = dict(instruction.attribute("frontend_attributes") or {})
    frontend.update(
        {"composite.name": name, "composite.attributes": attributes,
         "composite.version": str(version)}
    )  # fmt: skip
    # set_attribute places both where XLA prints them: after to_apply, before metadata.
    instruction.set_attribute("is_composite", True)
    instruction.set_attribute("frontend_attributes", FrontendAttributes(frontend))
    return op


# -- custom call ----------------------------------------------------------------------------


def _as_shape(value: Any, what: str) -> Shape:
    if isinstance(value, str):
        value = Shape.parse(value)
    if not isinstance(value, Shape):
        raise InvalidArgumentError(f"CustomCall: {what} must be a Shape, got {value!r}")
    return value


def _enum(value: Any, enum_type: type, what: str) -> Any:
    """An enum member from a member, its value or its name (as HLO text spells it)."""
    if isinstance(value, str) and value.upper() in enum_type.__members__:
        return enum_type[value.upper()]
    try:
        return enum_type(value)
    except ValueError:
        names = ", ".join(enum_type.__members__)
        raise InvalidArgumentError(
            f"CustomCall: {what} must be one of {names}, got {value!r}"
        ) from None


def _aliasing(pairs: Any) -> tuple[OutputOperandAliasing, ...]:
    """XLA's ``{(output_index, (operand, operand_index))}`` pairs, or OutputOperandAliasing."""
    out = []
    for pair in pairs or ():
        if isinstance(pair, OutputOperandAliasing):
            out.append(pair)
            continue
        try:
            output_index, (operand, operand_index) = pair
            out.append(OutputOperandAliasing(tuple(output_index), operand, tuple(operand_index)))
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                "CustomCall: output_operand_aliasing entries must be OutputOperandAliasing or "
                f"(output_index, (operand_number, operand_index)) pairs, got {pair!r}"
            ) from None
    return tuple(out)


def _literal_attribute(literal: Any) -> RawAttribute:
    """``literal=`` as XLA writes it: the shape with its layout, a space, the values."""
    if not isinstance(literal, Literal):
        literal = Literal.from_value(literal)
    shape = literal.shape.with_default_layout() if not literal.shape.has_layout else literal.shape
    return RawAttribute(f"{shape.to_string(print_layout=True)} {literal_text(literal)}")


@builder_op("CustomCall")
def CustomCall(
    builder: XlaBuilder,
    call_target_name: str,
    operands: Sequence[XlaOp],
    shape: Shape | str,
    opaque: str = "",
    has_side_effect: bool = False,
    output_operand_aliasing: Sequence[Any] = (),
    literal: Literal | None = None,
    schedule: CustomCallSchedule = CustomCallSchedule.SCHEDULE_NONE,
    api_version: CustomCallApiVersion = CustomCallApiVersion.API_VERSION_ORIGINAL,
    operand_shapes_with_layout: Sequence[Shape | str] | None = None,
) -> XlaOp:
    """Call the external function ``call_target_name``, which produces a value of ``shape``.

    ``opaque`` reaches the target unchanged (HLO's backend_config). With
    ``operand_shapes_with_layout`` (XLA's CustomCallWithLayout) the operands
    and the result are passed in the stated layouts, so every one of those
    shapes must have a layout. The target is looked up only when the
    computation is compiled.
    """
    builder = _require_builder(builder, "CustomCall")
    ops = _require_ops(operands, "operands", "CustomCall")
    if not isinstance(call_target_name, str) or not call_target_name:
        raise InvalidArgumentError(
            f"CustomCall: call_target_name must be a non-empty string, got {call_target_name!r}"
        )
    if call_target_name.startswith("$"):
        raise InvalidArgumentError(
            f"CustomCall: invalid call target {call_target_name!r}: names starting with '$' are "
            f"reserved for XLA's internal use"
        )
    result = _as_shape(shape, "shape")
    attributes: dict[str, Any] = {"custom_call_target": call_target_name}
    if operand_shapes_with_layout is not None:
        constraints = tuple(
            _as_shape(s, "operand_shapes_with_layout") for s in operand_shapes_with_layout
        )
        if not result.has_layout:
            raise InvalidArgumentError(
                f"CustomCall: target {call_target_name!r}: with operand_shapes_with_layout the "
                f"result shape needs a layout too, got {result}"
            )
        if len(constraints) != len(ops):
            shapes = ", ".join(str(shape_of(o)) for o in ops) or "none"
            raise InvalidArgumentError(
                f"CustomCall: target {call_target_name!r}: operand_shapes_with_layout has "
                f"{len(constraints)} shapes; it needs one per operand (operand shapes: {shapes})"
            )
        attributes["operand_layout_constraints"] = constraints
    elif not result.has_layout:
        result = result.with_default_layout()
    if has_side_effect:
        attributes["custom_call_has_side_effect"] = True
    if literal is not None:
        attributes["literal"] = _literal_attribute(literal)
    aliasing = _aliasing(output_operand_aliasing)
    if aliasing:
        attributes["output_to_operand_aliasing"] = aliasing
    schedule = _enum(schedule, CustomCallSchedule, "schedule")
    if schedule is not CustomCallSchedule.SCHEDULE_NONE:
        attributes["schedule"] = schedule
    api_version = _enum(api_version, CustomCallApiVersion, "api_version")
    if api_version is not CustomCallApiVersion.API_VERSION_ORIGINAL:
        attributes["api_version"] = api_version
    op = builder.add_instruction(
        Op.CUSTOM_CALL, ops, attributes=attributes, declared=result, op_name="CustomCall"
    )
    if opaque:
        # backend_config is a trailing attribute: set_attribute puts it after metadata, as XLA.
        op.instruction.set_attribute("backend_config", str(opaque))
    return op


__all__ = ["Call", "CompositeCall", "Conditional", "CustomCall", "While"]
