"""Dead code elimination: instructions nothing needs, and computations nothing calls.

Why: every other pass leaves debris behind (a simplified ``x + 0`` leaves the
``0``, an inlined call leaves its callee), and a backend should neither compile
nor run it.

An instruction stays if it is a root or a parameter, if it has (or may have) a
side effect, or if it takes part in control ordering; everything whose value
no kept instruction reads goes. "Side effect" is deliberately broad, see
:func:`has_side_effect`: outfeed, infeed, send/recv, custom-calls that say so,
collectives (every device must take part), random numbers (they advance the
generator's state), every ``*-start``/``*-update``/``*-done``, and control flow
or calls whose computations contain any of those. Computations that no
instruction reachable from the entry calls any more are removed too.

The side-effect and determinism predicates live here because CSE, constant
folding and loop-invariant code motion ask the same questions.
"""

from __future__ import annotations

from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...hlo.module import HloModule
from ...opcode import AsyncRole, HloOpcode
from ..pass_base import HloPass

Op = HloOpcode

# Random numbers: running one changes what the next one returns.
NONDETERMINISTIC = frozenset({Op.RNG, Op.RNG_GET_AND_UPDATE_STATE})
# Always kept, whatever their attributes say.
_ALWAYS = frozenset({Op.INFEED, Op.OUTFEED, Op.SEND, Op.SEND_DONE, Op.RECV, Op.RECV_DONE})


def _own_side_effect(instruction: HloInstruction) -> bool:
    """A side effect of the instruction itself, not counting its called computations."""
    op = instruction.opcode
    if op in _ALWAYS or op in NONDETERMINISTIC or op.has_side_effect:
        return True
    if op.is_collective or op.async_role is not AsyncRole.NONE:
        return True
    if op is Op.CUSTOM_CALL:
        return bool(instruction.attribute("custom_call_has_side_effect"))
    return False


def has_side_effect(instruction: HloInstruction) -> bool:
    """Whether running ``instruction`` may do more than compute its value (or may give a
    different value each time): see the module docstring for the list."""
    if _own_side_effect(instruction):
        return True
    called = instruction.called_computations()
    memo = _side_effects_of(called)
    return any(memo[id(c)] for c in called)


def computation_has_side_effect(computation: HloComputation) -> bool:
    """Whether any instruction of ``computation`` (or of what it calls) has a side effect."""
    return _side_effects_of([computation])[id(computation)]


def _side_effects_of(roots: list[HloComputation]) -> dict[int, bool]:
    """Whether each computation reachable from ``roots`` has a side effect, by id: callees
    first, on an explicit stack, so that deeply nested programs cannot overflow Python's."""
    memo: dict[int, bool] = {}
    stack: list[tuple[HloComputation, bool]] = [(c, False) for c in roots]
    while stack:
        computation, callees_done = stack.pop()
        key = id(computation)
        if callees_done:
            memo[key] = any(
                _own_side_effect(i) or any(memo[id(c)] for c in i.called_computations())
                for i in computation.instructions
            )
            continue
        if key in memo:
            continue
        memo[key] = False  # until its callees are known; a cycle (invalid HLO) stops here
        stack.append((computation, True))
        for instruction in computation.instructions:
            stack.extend((c, False) for c in instruction.called_computations() if id(c) not in memo)
    return memo


def has_control_edges(instruction: HloInstruction) -> bool:
    return bool(instruction.control_predecessors or instruction.control_successors)


def is_removable(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` may go once nothing reads its value."""
    if instruction.opcode is Op.PARAMETER or instruction.is_root:
        return False
    return not has_control_edges(instruction) and not has_side_effect(instruction)


def remove_dead_instructions(computation: HloComputation) -> bool:
    """Remove every unused removable instruction; users first, so chains go in one sweep."""
    changed = False
    for instruction in reversed(computation.post_order()):
        if instruction.user_count == 0 and is_removable(instruction):
            computation.remove_instruction(instruction)
            changed = True
    return changed


def live_computations(module: HloModule) -> list[HloComputation]:
    """The entry and every computation an instruction of a live computation calls."""
    live: dict[int, HloComputation] = {}
    stack = [module.entry]
    while stack:
        computation = stack.pop()
        if id(computation) in live:
            continue
        live[id(computation)] = computation
        for instruction in computation.instructions:
            stack.extend(instruction.called_computations())
    return list(live.values())


def remove_dead_computations(module: HloModule) -> bool:
    live = {id(c) for c in live_computations(module)}
    dead = [c for c in module.computations if id(c) not in live]
    for computation in dead:
        module.detach_computation(computation)
    return bool(dead)


class DeadCodeElimination(HloPass):
    """Removes unused side-effect-free instructions and computations nothing calls."""

    name = "dce"

    def run(self, module: HloModule) -> bool:
        changed = False
        # Callers first, so that a callee's callers are gone before it is looked at.
        for computation in reversed(module.computation_post_order()):
            changed |= remove_dead_instructions(computation)
        changed |= remove_dead_computations(module)
        return changed


__all__ = [
    "NONDETERMINISTIC",
    "DeadCodeElimination",
    "computation_has_side_effect",
    "has_control_edges",
    "has_side_effect",
    "is_removable",
    "live_computations",
    "remove_dead_computations",
    "remove_dead_instructions",
]
