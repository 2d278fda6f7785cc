"""The HLO verifier: is this module well formed? (``module.verify()``)

Checks the structure (unique names, parameter numbering, roots, acyclic
graphs, operands and callees that belong to the module, operand counts) and
asks shape inference whether every instruction's stated shape is the one its
opcode, operands, attributes and called computations imply. Passes run it in
debug mode after each step, and the parser relies on it for whole modules.

It reads instructions, computations and modules only through their methods, so
it imports none of them and ``HloModule.verify`` can call it directly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import InvalidArgumentError, XlaError
from ..opcode import HloOpcode
from ..shape_inference import has_rule, infer_instruction_shape

if TYPE_CHECKING:
    from .computation import HloComputation
    from .instruction import HloInstruction
    from .module import HloModule

_MAX_REPORTED = 10


class _Problems:
    def __init__(self) -> None:
        self.items: list[str] = []

    def add(self, where: str, message: str) -> None:
        self.items.append(f"{where}: {message}")

    def raise_if_any(self, module_name: str) -> None:
        if not self.items:
            return
        shown = self.items[:_MAX_REPORTED]
        more = len(self.items) - len(shown)
        text = "\n  ".join(shown) + (f"\n  ... and {more} more" if more else "")
        raise InvalidArgumentError(f"module {module_name} is not valid HLO:\n  {text}")


def verify_module(module: HloModule, *, check_shapes: bool = True) -> None:
    """Raise ``InvalidArgumentError`` listing every problem found in ``module``."""
    problems = _Problems()
    computations = module.computations
    names: dict[str, str] = {}
    comp_names: set[str] = set()
    for computation in computations:
        if computation.name in comp_names:
            problems.add(f"computation {computation.name}", "the name is used twice")
        comp_names.add(computation.name)
        for instruction in computation.instructions:
            if instruction.name in names:
                problems.add(
                    _where(computation, instruction),
                    f"the name is also used in computation {names[instruction.name]}",
                )
            names[instruction.name] = computation.name
    try:
        entry = module.entry
    except XlaError as e:
        problems.add(f"module {module.name}", str(e))
        entry = None
    fusion_callers: dict[int, list[str]] = {}
    for computation in computations:
        _verify_computation(module, computation, problems, check_shapes, fusion_callers)
    if entry is not None and module.callers(entry):
        problems.add(f"computation {entry.name}", "the entry computation must not be called")
    for computation in computations:
        callers = fusion_callers.get(id(computation), [])
        if len(callers) > 1:
            problems.add(
                f"computation {computation.name}",
                f"a fused computation belongs to one fusion, but {', '.join(callers)} call it",
            )
    _verify_entry_layout(module, problems)
    problems.raise_if_any(module.name)


def _where(computation: HloComputation, instruction: HloInstruction | None = None) -> str:
    if instruction is None:
        return f"computation {computation.name}"
    return f"computation {computation.name}, instruction {instruction.name}"


def _verify_computation(
    module: HloModule,
    computation: HloComputation,
    problems: _Problems,
    check_shapes: bool,
    fusion_callers: dict[int, list[str]],
) -> None:
    if computation.parent is not module:
        problems.add(_where(computation), "does not belong to this module")
    instructions = computation.instructions
    if not instructions:
        problems.add(_where(computation), "has no instructions")
        return
    if computation.root.parent is not computation:
        problems.add(
            _where(computation), f"its root {computation.root.name} is not one of its instructions"
        )
    numbers = sorted(p.parameter_number for p in instructions if p.opcode is HloOpcode.PARAMETER)
    if numbers != list(range(len(numbers))):
        problems.add(
            _where(computation),
            f"parameters are numbered {numbers}; they must be 0..{len(numbers) - 1}, once each",
        )
    try:
        computation.post_order()
    except XlaError as e:
        problems.add(_where(computation), str(e))
        return
    members = {id(i) for i in instructions}
    for instruction in instructions:
        where = _where(computation, instruction)
        for operand in instruction.operands:
            if id(operand) not in members:
                problems.add(where, f"operand {operand.name} is not in this computation")
        arity = instruction.opcode.arity
        if arity is not None and instruction.operand_count != arity:
            problems.add(
                where,
                f"{instruction.opcode.value} takes {arity} operands, has {instruction.operand_count}",
            )
        for callee in instruction.called_computations():
            if callee.parent is not module:
                problems.add(where, f"calls {callee.name}, which is not in this module")
            if instruction.opcode is HloOpcode.FUSION:
                fusion_callers.setdefault(id(callee), []).append(instruction.name)
        if check_shapes:
            _verify_shape(instruction, where, problems)


def _verify_shape(instruction: HloInstruction, where: str, problems: _Problems) -> None:
    if not has_rule(instruction.opcode):
        return
    try:
        inferred = infer_instruction_shape(instruction)
    except XlaError as e:
        problems.add(where, str(e))
        return
    if not inferred.compatible(instruction.shape):
        problems.add(
            where,
            f"the shape {instruction.shape} contradicts the inferred shape {inferred}",
        )


def _verify_entry_layout(module: HloModule, problems: _Problems) -> None:
    layout = module.config.entry_computation_layout
    if layout is None:
        return
    try:
        entry = module.entry.program_shape
    except XlaError:
        return
    if len(layout.parameters) != len(entry.parameters):
        problems.add(
            "entry_computation_layout",
            f"lists {len(layout.parameters)} parameters; the entry has {len(entry.parameters)}",
        )
        return
    for i, (a, b) in enumerate(zip(layout.parameters, entry.parameters, strict=True)):
        if not a.compatible(b):
            problems.add("entry_computation_layout", f"parameter {i} is {a}, the entry takes {b}")
    if not layout.result.compatible(entry.result):
        problems.add(
            "entry_computation_layout",
            f"the result is {layout.result}, the entry returns {entry.result}",
        )


__all__ = ["verify_module"]
