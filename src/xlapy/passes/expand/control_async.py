"""``AsyncUnwrapper``: asynchronous start/done pairs become the synchronous op.

Why: a backend that runs one instruction after another gains nothing from an
op split into start and done, and has to understand each split form; the
synchronous op computes the same value.

``AsyncUnwrapper`` rewrites

* ``async-start(xs), calls=f`` / ``async-update`` / ``async-done`` into the body
  of ``f`` applied to ``xs`` (inlined, as a call would be);
* ``all-reduce-start``/``-done`` into ``all-reduce``, ``all-gather-start``/``-done``
  into ``all-gather``, ``collective-permute-start``/``-done`` into
  ``collective-permute`` (the start's operands and attributes, the done's
  shape), ``copy-start``/``copy-done`` into ``copy``.

A chain is rewritten only when nothing but the next link reads each of its
links (no get-tuple-element of a start's operands or context), and no
async-update adds operands. Control edges carry over: the start's predecessors
precede the new instructions, the done's successors follow them. send/recv
pairs stay: they have no synchronous form.
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import HloOpcode
from ..pass_base import HloPass
from ..rewrite import clone_body
from ..simplify.algebraic_simplifier_support import same_shape
from ..simplify.dce import has_control_edges

Op = HloOpcode

SYNCHRONOUS = {
    Op.ALL_REDUCE_DONE: Op.ALL_REDUCE,
    Op.ALL_GATHER_DONE: Op.ALL_GATHER,
    Op.COLLECTIVE_PERMUTE_DONE: Op.COLLECTIVE_PERMUTE,
    Op.COPY_DONE: Op.COPY,
}
# Attributes of copy-start that a copy does not have.
_COPY_START_ONLY = frozenset({"cross_program_prefetch_index"})


def _chain(done: HloInstruction) -> list[HloInstruction] | None:
    """[start, updates..., done] when each link is read only by the next one."""
    chain = [done]
    current = done.operand(0)
    while current.opcode is Op.ASYNC_UPDATE:
        if current.operand_count != 1:
            return None
        chain.append(current)
        current = current.operand(0)
    if current.opcode is not done.opcode.async_start_opcode:
        return None
    chain.append(current)
    chain.reverse()
    for link, following in zip(chain, chain[1:], strict=False):
        if link.users != (following,) or link.is_root:
            return None
    return chain


def _synchronous(
    done: HloInstruction, start: HloInstruction
) -> tuple[HloInstruction, list[HloInstruction]]:
    """(what computes ``done``'s value, the new instructions among which it may be)."""
    caller: HloComputation = done.parent
    if done.opcode is Op.ASYNC_DONE:
        root, created = clone_body(start.attribute("calls"), caller, list(start.operands))
        if not same_shape(root.shape, done.shape):  # done's layout, not an inferred one
            root = caller.add_instruction(HloInstruction(Op.COPY, done.shape, [root]))
            created.append(root)
        return root, created
    attributes = {
        k: v
        for k, v in start.attributes.items()
        if not (done.opcode is Op.COPY_DONE and k in _COPY_START_ONLY)
    }
    op = HloInstruction(
        SYNCHRONOUS[done.opcode], done.shape, list(start.operands), attributes=attributes
    )
    return caller.add_instruction(op), [op]


def unwrap(done: HloInstruction) -> bool:
    """Replace the async chain ending in ``done`` by its synchronous op; False if it is
    not one this pass rewrites."""
    if done.opcode is not Op.ASYNC_DONE and done.opcode not in SYNCHRONOUS:
        return False
    chain = _chain(done)
    if chain is None or any(has_control_edges(link) for link in chain[1:-1]):
        return False
    start = chain[0]
    if done.opcode is Op.ASYNC_DONE:
        wrapped = start.attribute("calls")
        if wrapped is None:
            return False
        if wrapped.root.opcode is Op.PARAMETER and (
            has_control_edges(start) or has_control_edges(done)
        ):
            return False  # nothing new to hang the control edges on
    result, created = _synchronous(done, start)
    for predecessor in start.control_predecessors:
        for instruction in created:
            instruction.add_control_predecessor(predecessor)
    for successor in done.control_successors:
        for instruction in created:
            successor.add_control_predecessor(instruction)
    done.replace_all_uses_with(result)
    computation = done.parent
    for link in reversed(chain):
        computation.remove_instruction(link)
    computation.sort_topologically()
    return True


class AsyncUnwrapper(HloPass):
    """Asynchronous start/done chains become the synchronous op they wrap."""

    name = "async-unwrapper"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for instruction in list(computation.instructions):
                if instruction.parent is computation:
                    changed |= unwrap(instruction)
        return changed


__all__ = ["SYNCHRONOUS", "AsyncUnwrapper", "unwrap"]
