"""XLA's shorthand for asynchronous ops: ``all-to-all-start(x), dimensions={0}``.

In the IR an asynchronous op is an ``async-start`` / ``async-update`` /
``async-done`` chain whose ``calls`` computation wraps the real instruction
(parameters feeding one root). XLA prints such a chain with the wrapped opcode
and the wrapped instruction's attributes (``all-to-all-start``,
``all-to-all-done``) and leaves the wrapper computation out; this module turns
that shorthand into the IR when parsing and decides when printing may use it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError
from ..opcode import HloOpcode
from .computation import HloComputation
from .instruction import HloInstruction

if TYPE_CHECKING:
    from .module import HloModule

ASYNC_OPCODES = {
    "start": HloOpcode.ASYNC_START,
    "update": HloOpcode.ASYNC_UPDATE,
    "done": HloOpcode.ASYNC_DONE,
}
ROLE_OF = {opcode: role for role, opcode in ASYNC_OPCODES.items()}
_SUGARED = re.compile(r"^(.+)-(start|update|done)$")

# Attributes of the async-start itself; every other one belongs to the wrapped op.
ASYNC_OWN_ATTRIBUTES = frozenset(
    {"async_execution_thread", "async_group_id", "output_to_operand_aliasing"}
)
GENERIC_ATTRIBUTES = frozenset(
    {"sharding", "frontend_attributes", "statistics", "origin", "metadata", "backend_config"}
)


def split_sugared_opcode(text: str) -> tuple[HloOpcode, HloOpcode] | None:
    """(async opcode, wrapped opcode) for ``<opcode>-start|update|done``, else None."""
    m = _SUGARED.match(text)
    if m is None:
        return None
    try:
        wrapped = HloOpcode.from_text(m.group(1))
    except InvalidArgumentError:
        return None
    return ASYNC_OPCODES[m.group(2)], wrapped


def wrap_start(start: HloInstruction, wrapped_opcode: HloOpcode) -> HloInstruction:
    """Move ``start``'s op attributes into a new wrapped computation; return its root.

    ``start`` is an async-start read from shorthand text: its shape must be
    ``((operand shapes), result, state...)``. The computation becomes the
    value of ``start``'s ``calls`` attribute and is not yet in any module.
    """
    shape = start.shape
    if not (shape.is_tuple and len(shape.tuple_shapes) >= 2 and shape.tuple_shapes[0].is_tuple):
        raise InvalidArgumentError(
            f"{wrapped_opcode.value}-start needs a shape ((operands), result, state...), "
            f"not {shape}"
        )
    computation = HloComputation(f"{wrapped_opcode.value}_async_wrapped")
    params = [
        computation.add_instruction(
            HloInstruction.create_parameter(i, op.shape, f"async_param.{i}")
        )
        for i, op in enumerate(start.operands)
    ]
    root = HloInstruction(wrapped_opcode, shape.tuple_shapes[1], params, name="async_op")
    kept: dict[str, object] = {"calls": computation}
    for name, value in start.attributes.items():
        own = name in ASYNC_OWN_ATTRIBUTES and not (
            wrapped_opcode is HloOpcode.CUSTOM_CALL and name == "output_to_operand_aliasing"
        )
        if own or name in GENERIC_ATTRIBUTES:
            kept[name] = value
        else:
            root.attributes[name] = value
    start.attributes = kept
    computation.add_instruction(root)
    computation.root = root
    return root


def async_computation(instruction: HloInstruction) -> HloComputation | None:
    """The computation an async instruction runs (its own ``calls`` or its start's)."""
    seen = 0
    while instruction.opcode in ROLE_OF and seen < 64:
        callee = instruction.attributes.get("calls")
        if isinstance(callee, HloComputation):
            return callee
        if instruction.operand_count != 1:
            return None
        instruction = instruction.operand(0)
        seen += 1
    return None


def can_expand(computation: HloComputation) -> bool:
    """Parameters feeding, in order, one root instruction: printable as one op."""
    root = computation.root
    params = computation.parameters
    return (
        root.opcode is not HloOpcode.PARAMETER
        and computation.instruction_count == len(params) + 1
        and root.operands == params
        and not root.control_predecessors
    )


def sugared_computations(module: HloModule | None) -> frozenset[int]:
    """ids of the computations printed as shorthand (and therefore not printed at all)."""
    if module is None:
        return frozenset()
    async_callees: dict[int, HloComputation] = {}
    other_callees: set[int] = set()
    for instruction in module.instructions():
        for callee in instruction.called_computations():
            if instruction.opcode in ROLE_OF:
                async_callees[id(callee)] = callee
            else:
                other_callees.add(id(callee))
    return frozenset(
        key
        for key, computation in async_callees.items()
        if key not in other_callees and not computation.is_entry and can_expand(computation)
    )


def sugared_attributes(
    instruction: HloInstruction, computation: HloComputation
) -> list[tuple[HloInstruction, str, object]]:
    """(owner, name, value) in the order XLA prints a shorthand async op's attributes."""
    own = [(instruction, n, v) for n, v in instruction.attributes.items() if n != "calls"]
    if instruction.opcode is not HloOpcode.ASYNC_START:
        return own
    wrapped = [(computation.root, n, v) for n, v in computation.root.attributes.items()]
    head = [item for item in own if item[1] not in GENERIC_ATTRIBUTES]
    tail = [item for item in own if item[1] in GENERIC_ATTRIBUTES]
    return head + wrapped + tail


__all__ = [
    "ASYNC_OPCODES",
    "async_computation",
    "can_expand",
    "split_sugared_opcode",
    "sugared_attributes",
    "sugared_computations",
    "wrap_start",
]
