"""Shrink a module to the smallest sub-graph that still shows a bug (``xlapy bisect``'s last step).

A candidate is a root instruction of the entry computation and a set of *cut*
instructions: the sub-graph is what the root reads, stopping at the cuts, and each
cut becomes a new parameter fed with the value the interpreter computed for it in
the whole program. So a candidate sees exactly the values it saw inside the
original run, and a bug that shows there shows in the candidate.

The search is greedy and stops at a 1-minimal candidate (XLA's
``run_hlo_module --reduce`` does the same kind of search): repeatedly (1) move the
root down to the earliest instruction whose own sub-graph still shows the bug,
then (2) cut the operand closest to the root whose cut keeps the bug; until
neither step helps. Every check is the caller's ``shows_bug(module, inputs)``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..backends.interpreter import run as interpret
from ..hlo import parse_module
from ..hlo.computation import HloComputation
from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..opcode import HloOpcode

ShowsBug = Callable[[HloModule, list[Any]], bool]

# Instructions that stay as they are: leaves already, nothing to gain by cutting them.
_LEAVES = frozenset({HloOpcode.PARAMETER, HloOpcode.CONSTANT})


@dataclass
class Reduced:
    """The smallest candidate found: the module, its arguments and what it was cut from."""

    module: HloModule
    inputs: list[Any]
    root: str  # the instruction of the original module computed by the reduced root
    cut: tuple[str, ...]  # original instructions turned into parameters
    checks: int  # how many candidates were tried

    @property
    def size(self) -> int:
        """Instructions of the reduced entry besides its parameters."""
        return sum(1 for i in self.module.entry.instructions if i.opcode is not HloOpcode.PARAMETER)


def cone(entry: HloComputation, root: HloInstruction, cut: Iterable[str]) -> list[HloInstruction]:
    """What ``root`` reads, stopping at parameters and ``cut`` names, in post order."""
    cut = set(cut)
    reached: set[int] = set()
    stack = [root]
    while stack:
        instruction = stack.pop()
        if id(instruction) in reached:
            continue
        reached.add(id(instruction))
        if instruction.name not in cut and instruction.opcode is not HloOpcode.PARAMETER:
            stack.extend(instruction.operands)
    return [i for i in entry.post_order() if id(i) in reached]


def _called_closure(entry: HloComputation) -> set[int]:
    seen: set[int] = set()
    stack = [entry]
    while stack:
        computation = stack.pop()
        if id(computation) in seen:
            continue
        seen.add(id(computation))
        for instruction in computation.instructions:
            stack.extend(instruction.called_computations())
    return seen


def extract(module: HloModule, root: str, cut: Iterable[str]) -> tuple[HloModule, list[str]]:
    """The sub-graph of ``module``'s entry under ``root`` with ``cut`` as parameters, as a
    new verified module; and, per parameter in order, the original instruction it stands
    for (an original parameter keeps its place among them, renumbered)."""
    copy = module.clone()
    old_entry = copy.entry
    cut = set(cut) - {root}
    top = old_entry.instruction(root)
    chosen = cone(old_entry, top, cut)
    copy.detach_computation(old_entry)
    entry = HloComputation(old_entry.name)
    mapping: dict[int, HloInstruction] = {}
    sources: list[str] = []
    for instruction in chosen:
        if instruction.opcode is HloOpcode.PARAMETER or instruction.name in cut:
            new = HloInstruction.create_parameter(
                len(sources), instruction.shape, name=instruction.name
            )
            sources.append(instruction.name)
        else:
            new = instruction.clone([mapping[id(op)] for op in instruction.operands])
        mapping[id(instruction)] = new
        entry.add_instruction(new)
    entry.root = mapping[id(top)]
    copy.entry_computation_layout = None
    copy.input_output_alias = None
    copy.buffer_donor = None
    copy.add_computation(entry, entry=True)
    reachable = _called_closure(entry)
    for computation in list(copy.computations):
        if id(computation) not in reachable:
            copy.detach_computation(computation)
    reduced = parse_module(copy.to_text())
    reduced.verify()
    return reduced, sources


class Reducer:
    """Greedy reduction of ``module``'s entry (see the module docstring)."""

    def __init__(
        self, module: HloModule, inputs: Sequence[Any], shows_bug: ShowsBug, max_checks: int = 200
    ) -> None:
        self.module = module
        self.inputs = list(inputs)
        self.shows_bug = shows_bug
        self.max_checks = max_checks
        self.checks = 0
        self._values: dict[str, Any] = {}
        self._verdicts: dict[tuple[str, frozenset[str]], bool] = {}
        self._entry = module.entry

    def value(self, name: str) -> Any:
        """The interpreter's value of instruction ``name`` in the whole program's run."""
        if name not in self._values:
            instruction = self._entry.instruction(name)
            if instruction.opcode is HloOpcode.PARAMETER:
                self._values[name] = self.inputs[instruction.parameter_number]
            else:
                sub, sources = extract(self.module, name, ())
                self._values[name] = interpret(sub, *[self.value(s) for s in sources])
        return self._values[name]

    def candidate(self, root: str, cut: Iterable[str]) -> tuple[HloModule, list[Any]]:
        """The module and arguments of one candidate."""
        sub, sources = extract(self.module, root, cut)
        return sub, [self.value(s) for s in sources]

    def _cone(self, root: str, cut: frozenset[str]) -> list[HloInstruction]:
        return cone(self._entry, self._entry.instruction(root), cut)

    def _check(self, root: str, cut: frozenset[str]) -> bool:
        cut = frozenset(i.name for i in self._cone(root, cut) if i.name in cut and i.name != root)
        key = (root, cut)
        if key not in self._verdicts:
            if self.checks >= self.max_checks:
                return False
            self.checks += 1
            self._verdicts[key] = self.shows_bug(*self.candidate(root, cut))
        return self._verdicts[key]

    def shows_bug_at(self, root: str) -> bool:
        """Whether the whole sub-graph under ``root`` shows the bug (a possible start)."""
        return self._check(root, frozenset())

    def _lower_root(self, root: str, cut: frozenset[str]) -> str | None:
        """The earliest instruction under ``root`` whose own sub-graph shows the bug."""
        for instruction in self._cone(root, cut)[:-1]:
            if _can_be_root(instruction) and self._check(instruction.name, cut):
                return instruction.name
        return None

    def _cut_one(self, root: str, cut: frozenset[str]) -> frozenset[str] | None:
        """``cut`` plus the instruction nearest the root whose cut keeps the bug."""
        for instruction in reversed(self._cone(root, cut)[:-1]):
            if instruction.name in cut or not _can_be_cut(instruction):
                continue
            if self._check(root, cut | {instruction.name}):
                return cut | {instruction.name}
        return None

    def reduce(self, root: str | None = None) -> Reduced:
        """Shrink from ``root`` (default: the entry's root), which must show the bug."""
        root = root or self._entry.root.name
        cut: frozenset[str] = frozenset()
        while self.checks < self.max_checks:
            lower = self._lower_root(root, cut)
            if lower is not None:
                root = lower
                continue
            more = self._cut_one(root, cut)
            if more is None:
                break
            cut = more
        cut = frozenset(i.name for i in self._cone(root, cut) if i.name in cut)
        module, inputs = self.candidate(root, cut)
        return Reduced(module, inputs, root, tuple(sorted(cut)), self.checks)


def _can_be_root(instruction: HloInstruction) -> bool:
    return instruction.opcode not in _LEAVES and instruction.shape.is_array


def _can_be_cut(instruction: HloInstruction) -> bool:
    return instruction.opcode not in _LEAVES and instruction.shape.is_array
