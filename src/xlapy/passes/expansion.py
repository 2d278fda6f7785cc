"""What the expanders share: replacing one instruction by a computation written as HLO
text, and the pass that does it for every instruction of some opcodes.

Why text: an expansion written as HLO reads like the decomposition it is, and the
parser checks every shape of it. The text names its computations; ``bind`` maps
the ones that stand for computations the module already has (the instruction's
update or select computation) to those; the others are copied into the module.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode
from .pass_base import HloPass


def ints(value: object) -> list[int]:
    """An attribute's integers (an absent attribute is empty)."""
    return [int(v) for v in (value or ())]  # type: ignore[union-attr]


def hlo_shape(t: str, dims: list[int]) -> str:
    return f"{t}[{','.join(map(str, dims))}]"


def zero_literal(t: str) -> str:
    """Zero of element type ``t`` as HLO text writes it."""
    return {"pred": "false", "c64": "(0, 0)", "c128": "(0, 0)"}.get(t, "0")


def index_rows(indices: HloInstruction, vector_dim: int) -> tuple[list[str], int, int]:
    """HLO lines that make parameter ``indices`` a ``rows`` value of shape [N, K] (the
    index vector last, one row per start index), with N and K."""
    t = indices.shape.element_type.hlo_name
    dims = list(indices.shape.dimensions)
    lines, source = [], "indices"
    if vector_dim == len(dims):  # an implicit index vector of one
        dims.append(1)
        lines.append(f"  with_vector = {hlo_shape(t, dims)} reshape(indices)")
        source = "with_vector"
    perm = [d for d in range(len(dims)) if d != vector_dim] + [vector_dim]
    k = dims[vector_dim]
    n = 1
    for d in perm[:-1]:
        n *= dims[d]
    lines += [
        f"  moved = {hlo_shape(t, [dims[d] for d in perm])} transpose({source}), "
        f"dimensions={{{','.join(map(str, perm))}}}",
        f"  rows = {hlo_shape(t, [n, k])} reshape(moved)",
    ]
    return lines, n, k


def _rebind(instruction: HloInstruction, resolve: dict[int, HloComputation]) -> None:
    for old in instruction.called_computations():
        new = resolve.get(id(old))
        if new is not None and new is not old:
            instruction.replace_called_computation(old, new)


def splice(
    instruction: HloInstruction,
    text: str,
    bind: Mapping[str, HloComputation] | None = None,
) -> HloInstruction:
    """Replace ``instruction`` by the entry computation of ``text`` (its parameters are
    the instruction's operands); returns the value that now stands for it."""
    from ..hlo import parse_module
    from .inliner import clone_body, clone_computation

    bind = dict(bind or {})
    parsed = parse_module(text)
    module = instruction.parent.parent
    others = [c for c in parsed.computations if c is not parsed.entry]
    resolve: dict[int, HloComputation] = {id(c): bind[c.name] for c in others if c.name in bind}
    # Calls inside the copied computations first point at the bound ones; then copy.
    for computation in others:
        if computation.name not in bind:
            for inner in computation.instructions:
                _rebind(inner, resolve)
    for computation in others:
        if computation.name not in bind:
            resolve[id(computation)] = clone_computation(module, computation)
    caller = instruction.parent
    value, created = clone_body(parsed.entry, caller, list(instruction.operands))
    for inner in created:
        _rebind(inner, resolve)
    instruction.replace_all_uses_with(value)
    caller.remove_instruction(instruction)
    caller.sort_topologically()
    return value


class ExpanderPass(HloPass):
    """Expands every instruction of ``opcodes`` that ``expand`` takes (it returns the
    replacement, or None to leave the instruction) and that ``keep`` does not keep."""

    opcodes: frozenset[HloOpcode] = frozenset()

    def __init__(self, keep=None) -> None:  # noqa: ANN001
        self.keep = keep or (lambda instruction: False)

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        raise NotImplementedError  # each expander says how

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in list(module.computations):
            for instruction in list(computation.instructions):
                if instruction.parent is not computation:
                    continue
                if instruction.opcode in self.opcodes and not self.keep(instruction):
                    changed |= self.expand(instruction) is not None
        return changed
