"""The one way passes rewrite HLO: copy computations, splice a built computation in place
of an instruction, and the driver that visits every instruction a pass rewrites.

Why one driver: each rewriting pass used to carry its own loop over
computations and instructions, its own replace-and-remove and its own
re-sorting, each slightly different. ``ExpanderPass`` is that loop once: a pass
says which opcodes it looks at and how it rewrites one instruction (returning
the value that stands for it, or None to leave it); the driver replaces the
instruction, carrying its control edges over, and restores the topological
order of each computation it changed.

Why splice a built computation: an expansion built with the builder
(``xlapy.ops``) has every shape inferred and checked as it is built, the way
XLA's expanders build theirs; :func:`splice_computation` copies its entry's
body in place of the instruction (the instruction's operands standing for its
parameters) and the computations it calls into the module.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..builder import XlaComputation
from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from .pass_base import HloPass

Op = HloOpcode

# -- copying computations -------------------------------------------------------------------


def clone_computation(module: HloModule, computation: HloComputation) -> HloComputation:
    """A copy of ``computation`` added to ``module`` (fusions inside get copies too)."""
    copy = HloComputation(computation.name)
    copy.execution_thread = computation.execution_thread
    parameters = [copy.add_instruction(p.clone([])) for p in computation.parameters]
    root, _ = clone_body(computation, copy, parameters)
    copy.root = root
    module.add_computation(copy)
    return copy


def clone_body(
    source: HloComputation, into: HloComputation, arguments: Sequence[HloInstruction]
) -> tuple[HloInstruction, list[HloInstruction]]:
    """Copy ``source``'s instructions into ``into``, parameter ``k`` standing for
    ``arguments[k]``; returns (the copy of the root, the new instructions)."""
    mapping: dict[int, HloInstruction] = {}
    created: list[HloInstruction] = []
    module = into.parent if into.parent is not None else source.parent
    for instruction in source.post_order():
        if instruction.opcode is Op.PARAMETER:
            mapping[id(instruction)] = arguments[instruction.parameter_number]
            continue
        clone = instruction.clone([mapping[id(o)] for o in instruction.operands])
        fused = instruction.fused_computation
        if fused is not None and module is not None:
            clone.set_attribute("calls", clone_computation(module, fused))
        mapping[id(instruction)] = into.add_instruction(clone)
        created.append(clone)
    for instruction in source.instructions:
        if instruction.opcode is Op.PARAMETER:
            continue
        for predecessor in instruction.control_predecessors:
            if predecessor.opcode is not Op.PARAMETER:
                mapping[id(instruction)].add_control_predecessor(mapping[id(predecessor)])
    return mapping[id(source.root)], created


def _rebind(instruction: HloInstruction, resolve: dict[int, HloComputation]) -> None:
    for old in instruction.called_computations():
        new = resolve.get(id(old))
        if new is not None and new is not old:
            instruction.replace_called_computation(old, new)


def _called_closure(computation: HloComputation) -> list[HloComputation]:
    """``computation`` and everything it calls, callees before their callers."""
    order: list[HloComputation] = []
    seen: set[int] = set()

    def visit(c: HloComputation) -> None:
        if id(c) in seen:
            return
        seen.add(id(c))
        for instruction in c.instructions:
            for callee in instruction.called_computations():
                visit(callee)
        order.append(c)

    visit(computation)
    return order


def as_xla_computation(computation: HloComputation) -> XlaComputation:
    """A module's computation as a builder argument (an update or select computation an
    expansion calls), copied with everything it calls."""
    module = HloModule(computation.name)
    resolve: dict[int, HloComputation] = {}
    for callee in _called_closure(computation):
        copy = HloComputation(callee.name)
        copy.execution_thread = callee.execution_thread
        parameters = [copy.add_instruction(p.clone([])) for p in callee.parameters]
        root, created = clone_body(callee, copy, parameters)
        copy.root = root
        for instruction in created:
            _rebind(instruction, resolve)
        module.add_computation(copy, entry=callee is computation, append=True)
        resolve[id(callee)] = copy
    return XlaComputation(module)


def splice_computation(instruction: HloInstruction, built: XlaComputation) -> HloInstruction:
    """The body of ``built``'s entry copied into ``instruction``'s computation, its
    parameters standing for the instruction's operands, the computations it calls copied
    into the module; returns the copy of its root (the caller replaces the instruction)."""
    source = built.hlo_module
    module = instruction.parent.parent
    resolve: dict[int, HloComputation] = {}
    for computation in source.computation_post_order():
        if computation is source.entry:
            continue
        copy = clone_computation(module, computation)
        for inner in copy.instructions:
            _rebind(inner, resolve)
        resolve[id(computation)] = copy
    value, created = clone_body(source.entry, instruction.parent, list(instruction.operands))
    for inner in created:
        _rebind(inner, resolve)
    return value


# -- the driver -----------------------------------------------------------------------------


class ExpanderPass(HloPass):
    """Rewrites every instruction of ``opcodes`` that ``keep`` does not keep: ``expand``
    returns the value standing for it (new instructions in its computation), or None to
    leave it; the driver replaces it by that value.

    Two switches say where a pass must not look: ``skip_control_edges`` leaves
    instructions with control edges alone (for rewrites whose new instructions could
    not carry the ordering), ``skip_fusions`` leaves fusion computations alone (for
    rewrites a fused emitter would only have to undo).
    """

    opcodes: frozenset[HloOpcode] = frozenset()
    skip_control_edges = False
    skip_fusions = False

    def __init__(self, keep: Callable[[HloInstruction], bool] | None = None) -> None:
        self.keep = keep or (lambda instruction: False)

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        raise NotImplementedError  # each expander says how

    def kept(self, instruction: HloInstruction) -> bool:
        if self.skip_control_edges and (
            instruction.control_predecessors or instruction.control_successors
        ):
            return True
        return self.keep(instruction)

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            if self.skip_fusions and computation.is_fusion_computation:
                continue
            if rewrite_instructions(computation, self.opcodes, self.kept, self.expand):
                changed = True
        return changed


def rewrite_instructions(
    computation: HloComputation,
    opcodes: frozenset[HloOpcode],
    keep: Callable[[HloInstruction], bool],
    rewrite: Callable[[HloInstruction], HloInstruction | None],
) -> bool:
    """Replace each instruction of ``computation`` with an opcode in ``opcodes`` that
    ``keep`` does not keep by what ``rewrite`` returns for it (None: left as is; the
    instruction itself: rewritten in place)."""
    changed = False
    for instruction in list(computation.instructions):
        if instruction.parent is not computation or instruction.opcode not in opcodes:
            continue
        if keep(instruction):
            continue
        value = rewrite(instruction)
        if value is None:
            continue
        if value is not instruction:
            computation.replace_instruction(instruction, value)
        changed = True
    if changed:
        computation.sort_topologically()
    return changed


__all__ = [
    "ExpanderPass",
    "as_xla_computation",
    "clone_body",
    "clone_computation",
    "rewrite_instructions",
    "splice_computation",
]
