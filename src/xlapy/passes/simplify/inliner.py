"""Inlining: ``call`` and elementwise ``map`` become the instructions they stand for.

Why: a call boundary hides its body from every other pass (a constant passed
in cannot be folded inside, a value computed twice across it cannot be CSE'd,
fusion cannot cross it), and a backend made of loop emitters has no loop for
``map`` at all, while it has one for every elementwise op.

``CallInliner`` copies the called computation into the caller at each call
site (so callees shared by several calls stay correct; the callee goes once
dead code elimination sees it unused). Control edges of the call carry over:
its predecessors precede every inlined instruction, its successors follow them.
Fusions inside the callee get their own copy of the fused computation. Calls
to another execution thread are left alone. ``Defuser`` inlines fusions the
same way: a module optimized elsewhere (XLA's fusions, with dots inside output
fusions) is re-fused by this backend's own passes.

``MapInliner`` rewrites ``map(xs..., to_apply=f)`` when ``f`` is a scalar
elementwise computation (parameters, scalar constants and elementwise ops, no
nested map): each op of ``f`` is applied to whole arrays, constants broadcast
to the map's shape. :func:`apply_elementwise` is the shared piece (the
algebraic simplifier applies a reducer the same way).
"""

from __future__ import annotations

from collections.abc import Sequence

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ...shape import Shape
from ..pass_base import HloPass
from ..rewrite import ExpanderPass, clone_body
from .algebraic_simplifier_support import same_shape
from .dce import has_control_edges

Op = HloOpcode


def _with_shape(caller: HloComputation, value: HloInstruction, shape: Shape) -> HloInstruction:
    """``value``, or a copy of it with exactly ``shape`` when the layouts differ."""
    if same_shape(value.shape, shape):
        return value
    # The copy's point is the layout ``shape`` has, which inference would not give.
    return caller.add_instruction(HloInstruction(Op.COPY, shape, [value]))


# -- calls ----------------------------------------------------------------------------------


def inline_call(call: HloInstruction) -> HloInstruction | None:
    """Replace ``call`` by a copy of its callee's body; returns what stands for its value
    (None, and nothing changed, for a call with control edges whose callee computes
    nothing to hang them on)."""
    caller: HloComputation = call.parent
    callee: HloComputation = call.to_apply or call.fused_computation
    if has_control_edges(call) and callee.root.opcode is Op.PARAMETER:
        return None
    root, created = clone_body(callee, caller, list(call.operands))
    result = _with_shape(caller, root, call.shape)
    if result is not root:
        created.append(result)
    for predecessor in call.control_predecessors:
        for instruction in created:
            instruction.add_control_predecessor(predecessor)
    for successor in call.control_successors:
        for instruction in created:
            successor.add_control_predecessor(instruction)
    call.replace_all_uses_with(result)
    caller.remove_instruction(call)
    caller.sort_topologically()
    return result


def _inlinable_call(instruction: HloInstruction) -> bool:
    callee = instruction.to_apply
    return (
        instruction.opcode is Op.CALL
        and callee is not None
        and callee.execution_thread in (None, "main")
    )


class CallInliner(HloPass):
    """Inlines every ``call`` into its caller."""

    name = "call-inliner"

    def run(self, module: HloModule) -> bool:
        # Callers first: a call inlined into a caller is inlined again there if it calls.
        computations = reversed(module.computation_post_order())
        return any([_inline_all(c, _inlinable_call) for c in computations])


def _inline_all(computation: HloComputation, wanted: object) -> bool:
    """Inline every instruction of ``computation`` that ``wanted`` picks, including those
    that inlining brings in."""
    changed = False
    pending = [i for i in computation.instructions if wanted(i)]  # type: ignore[operator]
    while pending:
        call = pending.pop()
        if call.parent is not computation:
            continue
        before = set(map(id, computation.instructions))
        if inline_call(call) is None:
            continue
        changed = True
        pending.extend(
            i
            for i in computation.instructions
            if id(i) not in before and wanted(i)  # type: ignore[operator]
        )
    return changed


class Defuser(HloPass):
    """Inlines the fusions a module arrives with (XLA's optimized HLO), so that this
    backend's own passes simplify across them and fuse what its emitters can run."""

    name = "defuser"

    def run(self, module: HloModule) -> bool:
        fused = {
            id(i.fused_computation)
            for c in module.computations
            for i in c.instructions
            if i.opcode is Op.FUSION and i.fused_computation is not None
        }
        return any(
            [
                _inline_all(c, lambda i: i.opcode is Op.FUSION)
                for c in list(module.computations)
                if id(c) not in fused
            ]
        )


# -- maps -----------------------------------------------------------------------------------


def is_elementwise_scalar_computation(computation: HloComputation) -> bool:
    """Parameters, scalar constants and elementwise ops on scalars (no nested map)."""
    for instruction in computation.instructions:
        shape = instruction.shape
        if not shape.is_array or shape.rank != 0 or has_control_edges(instruction):
            return False
        op = instruction.opcode
        if op in (Op.PARAMETER, Op.CONSTANT):
            continue
        if not op.is_elementwise or op is Op.MAP:
            return False
    return True


def apply_elementwise(
    computation: HloComputation,
    operands: Sequence[HloInstruction],
    shape: Shape,
    caller: HloComputation,
) -> HloInstruction:
    """The ops of the scalar elementwise ``computation`` applied to the arrays ``operands``
    (parameter ``k`` stands for ``operands[k]``), added to ``caller``; results of ``shape``'s
    dimensions and layout."""
    mapping: dict[int, HloInstruction] = {}
    for inner in computation.post_order():
        if inner.opcode is Op.PARAMETER:
            mapping[id(inner)] = operands[inner.parameter_number]
            continue
        inner_shape = shape.with_element_type(inner.shape.element_type)
        if inner.opcode is Op.CONSTANT:
            value = caller.add_instruction(inner.clone([]))
            if shape.rank:
                value = caller.add_instruction(
                    HloInstruction(
                        Op.BROADCAST, inner_shape, [value], attributes={"dimensions": ()}
                    )
                )
        else:
            value = caller.add_instruction(
                inner.clone([mapping[id(o)] for o in inner.operands], shape=inner_shape)
            )
        mapping[id(inner)] = value
    return _with_shape(caller, mapping[id(computation.root)], shape)


def _inlinable_map(instruction: HloInstruction) -> bool:
    return (
        instruction.opcode is Op.MAP
        and instruction.shape.is_array
        and not has_control_edges(instruction)
        and is_elementwise_scalar_computation(instruction.to_apply)
        and all(o.shape.dimensions == instruction.shape.dimensions for o in instruction.operands)
    )


class MapInliner(ExpanderPass):
    """``map`` of a scalar elementwise computation becomes elementwise ops on arrays."""

    name = "map-inliner"
    opcodes = frozenset({Op.MAP})
    skip_control_edges = True

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        if not _inlinable_map(instruction):
            return None
        return apply_elementwise(
            instruction.to_apply, list(instruction.operands), instruction.shape, instruction.parent
        )


__all__ = [
    "CallInliner",
    "MapInliner",
    "apply_elementwise",
    "inline_call",
    "is_elementwise_scalar_computation",
]
