"""Algebraic simplification: rewrites that remove work without changing any result.

One table maps an opcode to its rules; a rule returns the instruction that can
stand for the one it looks at, or None. Every rule is exact for the element
types it accepts: ``x + 0`` is ``x`` for integers only (for floats -0 + 0 is
+0), but ``x + (-0.0)``, ``x - 0``, ``x * 1`` and ``x / 1`` are exact for
floats too; ``x - x`` is 0 for integers only (inf - inf is NaN). A rule never
changes a result's layout: the replacement must have the very same shape.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..hlo.instruction import HloInstruction
from ..hlo.module import HloModule
from ..hlo.opcode import HloOpcode
from ..literal import Literal
from ..shape import Shape
from .pass_base import HloPass

Op = HloOpcode
Rule = Callable[[HloInstruction], HloInstruction | None]


def _ints(value: object) -> list[int]:
    return [int(v) for v in value] if value is not None else []  # type: ignore[union-attr]


def uniform_value(instruction: HloInstruction) -> np.ndarray | None:
    """The single value of a constant (or broadcast constant) whose elements are all equal."""
    if instruction.opcode is Op.BROADCAST:
        return uniform_value(instruction.operand(0))
    if instruction.opcode is not Op.CONSTANT or not instruction.shape.is_array:
        return None
    values = np.ascontiguousarray(instruction.literal.to_numpy()).reshape(-1)
    if values.size == 0:
        return None
    width = values.dtype.itemsize
    bits = values.view(np.uint8).reshape(values.size, width)
    same = (bits == bits[0]).all()  # bit patterns: -0.0 differs from +0.0, NaNs by payload
    first = values[0]
    return np.asarray(first) if bool(same) else None


def _is(value: np.ndarray | None, target: float, negative_zero: bool | None = None) -> bool:
    if value is None or value.dtype.kind == "c":
        return False
    try:
        equal = bool(value.astype(np.float64) == target)
    except (TypeError, ValueError):
        return False
    if negative_zero is not None and equal and target == 0:
        return bool(np.signbit(value.astype(np.float64))) == negative_zero
    return equal


def _same(candidate: HloInstruction, instruction: HloInstruction) -> HloInstruction | None:
    return candidate if candidate.shape == instruction.shape else None


def _kind(instruction: HloInstruction) -> str:
    et = instruction.shape.element_type
    return "float" if et.is_float else "complex" if et.is_complex else "int"


def _add(i: HloInstruction) -> HloInstruction | None:
    for x, zero in ((i.operand(0), i.operand(1)), (i.operand(1), i.operand(0))):
        value = uniform_value(zero)
        if _kind(i) == "int" and _is(value, 0):
            return _same(x, i)
        if _kind(i) == "float" and _is(value, 0, negative_zero=True):
            return _same(x, i)
    return None


def _subtract(i: HloInstruction) -> HloInstruction | None:
    x, y = i.operands
    value = uniform_value(y)
    if (
        _kind(i) == "int"
        and _is(value, 0)
        or _kind(i) == "float"
        and _is(value, 0, negative_zero=False)
    ):
        return _same(x, i)
    if _kind(i) == "int" and x is y and not i.shape.element_type.is_pred:
        return _zeros(i)
    return None


def _multiply(i: HloInstruction) -> HloInstruction | None:
    if _kind(i) == "complex":
        return None
    for x, one in ((i.operand(0), i.operand(1)), (i.operand(1), i.operand(0))):
        if _is(uniform_value(one), 1):
            return _same(x, i)
    return None


def _divide(i: HloInstruction) -> HloInstruction | None:
    if _kind(i) != "complex" and _is(uniform_value(i.operand(1)), 1):
        return _same(i.operand(0), i)
    return None


def _involution(i: HloInstruction) -> HloInstruction | None:
    inner = i.operand(0)
    if inner.opcode is i.opcode:
        return _same(inner.operand(0), i)
    return None


def _idempotent(i: HloInstruction) -> HloInstruction | None:
    x, y = i.operands
    return _same(x, i) if x is y else None


def _convert(i: HloInstruction) -> HloInstruction | None:
    return _same(i.operand(0), i)


def _reshape(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    if x.shape == i.shape:
        return x
    if x.opcode is Op.RESHAPE and x.shape.is_array:
        return _new(i, Op.RESHAPE, [x.operand(0)])
    return None


def _transpose(i: HloInstruction) -> HloInstruction | None:
    perm = _ints(i.attribute("dimensions"))
    x = i.operand(0)
    if perm == list(range(len(perm))):
        return _same(x, i)
    if x.opcode is Op.TRANSPOSE:
        inner = _ints(x.attribute("dimensions"))
        composed = [inner[p] for p in perm]
        if composed == list(range(len(composed))):
            return _same(x.operand(0), i)
        return _new(i, Op.TRANSPOSE, [x.operand(0)], {"dimensions": tuple(composed)})
    return None


def _broadcast(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    dims = _ints(i.attribute("dimensions"))
    if x.shape.dimensions == i.shape.dimensions and dims == list(range(len(dims))):
        return _same(x, i)
    if x.opcode is Op.BROADCAST:
        inner = _ints(x.attribute("dimensions"))
        return _new(i, Op.BROADCAST, [x.operand(0)], {"dimensions": tuple(dims[d] for d in inner)})
    return None


def _slice(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    triples = [tuple(int(v) for v in t) for t in i.attribute("slice")]
    full = all(
        t[0] == 0 and t[1] == n and (len(t) < 3 or t[2] == 1)
        for t, n in zip(triples, x.shape.dimensions, strict=True)
    )
    return _same(x, i) if full else None


def _concatenate(i: HloInstruction) -> HloInstruction | None:
    return _same(i.operand(0), i) if i.operand_count == 1 else None


def _pad(i: HloInstruction) -> HloInstruction | None:
    triples = list(i.attribute("padding").as_triples())
    if all(tuple(int(v) for v in t) == (0, 0, 0) for t in triples):
        return _same(i.operand(0), i)
    return None


def _copy(i: HloInstruction) -> HloInstruction | None:
    x = i.operand(0)
    return x if x.shape == i.shape and x.opcode is not Op.PARAMETER and not i.is_root else None


def _select(i: HloInstruction) -> HloInstruction | None:
    p, on_true, on_false = i.operands
    if on_true is on_false:
        return _same(on_true, i)
    value = uniform_value(p)
    if value is not None and p.shape.dimensions == i.shape.dimensions:
        return _same(on_true if bool(value) else on_false, i)
    return None


def _dynamic_update_slice(i: HloInstruction) -> HloInstruction | None:
    update = i.operand(1)
    if update.shape.dimensions == i.shape.dimensions:
        return _same(update, i)
    return None


def _zeros(i: HloInstruction) -> HloInstruction:
    literal = Literal.scalar(0, i.shape.element_type)
    zero = HloInstruction.create_constant(literal)
    i.parent.add_instruction(zero)
    return _new(i, Op.BROADCAST, [zero], {"dimensions": ()})


def _new(
    i: HloInstruction,
    opcode: HloOpcode,
    operands: list[HloInstruction],
    attributes: dict | None = None,
) -> HloInstruction:
    shape: Shape = i.shape
    instruction = HloInstruction(opcode, shape, operands, attributes=attributes or {})
    return i.parent.add_instruction(instruction)


RULES: dict[HloOpcode, list[Rule]] = {
    Op.ADD: [_add],
    Op.SUBTRACT: [_subtract],
    Op.MULTIPLY: [_multiply],
    Op.DIVIDE: [_divide],
    Op.NEGATE: [_involution],
    Op.NOT: [_involution],
    Op.AND: [_idempotent],
    Op.OR: [_idempotent],
    Op.CONVERT: [_convert],
    Op.RESHAPE: [_reshape],
    Op.TRANSPOSE: [_transpose],
    Op.BROADCAST: [_broadcast],
    Op.SLICE: [_slice],
    Op.CONCATENATE: [_concatenate],
    Op.PAD: [_pad],
    Op.COPY: [_copy],
    Op.SELECT: [_select],
    Op.DYNAMIC_UPDATE_SLICE: [_dynamic_update_slice],
}


class AlgebraicSimplifier(HloPass):
    name = "algebraic-simplifier"

    def run(self, module: HloModule) -> bool:
        changed = False
        for computation in module.computations:
            for instruction in computation.post_order():
                if instruction.parent is None or instruction.control_successors:
                    continue
                if instruction.user_count == 0 and not instruction.is_root:
                    continue  # dead: dead code elimination removes it
                for rule in RULES.get(instruction.opcode, ()):
                    if not instruction.shape.is_array:
                        break
                    replacement = rule(instruction)
                    if replacement is None or replacement is instruction:
                        continue
                    instruction.replace_all_uses_with(replacement)
                    if computation.root is instruction:
                        computation.root = replacement
                    changed = True
                    break
            if changed:
                computation.sort_topologically()
        return changed
