"""Algebraic simplifier rules for dot and reduce.

=====================================  ================================================
rule                                   holds for
=====================================  ================================================
dot contracting over 0 elements -> 0   every type (an empty sum is +0)
dot with a zero splat operand -> 0     integer operands and result only
dot(transpose(x), y) -> dot(x, y)      every type, when the transpose keeps the
(either side)                          operand's free dimensions in order (batch and
                                       contracting dimensions are renumbered); done
                                       for integer dots of one type always and
                                       for others when
                                       the operand ends up in a form BLAS takes
                                       without a copy ([batch..., free..., contracting...]
                                       or [batch..., contracting..., free...])
reduce over 0 elements -> broadcast(init)      every type (the reduction of nothing)
reduce over 1 element per output ->    f(init, reshape(x)) as elementwise ops, when
                                       the reducer f is a scalar elementwise
                                       computation (the interpreter's order: the init
                                       value on the left)
=====================================  ================================================

Deliberately not done: a float dot against zeros. ``x * 0`` is NaN for
x = inf or NaN and -0 for negative x, so the result is not 0 unless the other
side is known finite; XLA rewrites it anyway, xlapy does not. Reordering a
dot's contraction (dot(transpose)) changes nothing but the order of the sum,
which the spec leaves open, as XLA's own rewrite does.
"""

from __future__ import annotations

import math

from ...hlo.instruction import HloInstruction
from .algebraic_simplifier_support import (
    Op,
    RuleTable,
    add,
    element_type,
    if_same,
    is_int_value,
    new,
    splat_of,
    uniform,
    zeros,
)
from .inliner import apply_elementwise, is_elementwise_scalar_computation

_SIDES = (("lhs", 0), ("rhs", 1))


def _dims(i: HloInstruction, name: str) -> list[int]:
    """``lhs_batch_dims`` etc. of a dot, read through its dimension numbers."""
    numbers = i.dot_dimension_numbers
    return list(getattr(numbers, name.replace("_dims", "_dimensions")))


def blas_form(rank: int, batch: list[int], contracting: list[int]) -> bool:
    """Whether an operand is, per batch element, a row-major matrix: batch dimensions
    leading, then the free and the contracting dimensions each in one increasing block."""
    nb = len(batch)
    if batch != list(range(nb)):
        return False
    rest = list(range(nb, rank))
    free = [d for d in rest if d not in contracting]
    free_first = contracting == rest[len(free) :] and free == rest[: len(free)]
    contracting_first = contracting == rest[: len(contracting)] and free == rest[len(contracting) :]
    return free_first or contracting_first


def _dot_zero(i: HloInstruction) -> HloInstruction | None:
    lhs, rhs = i.operands
    if math.prod(lhs.shape.dimensions[d] for d in _dims(i, "lhs_contracting_dims")) == 0:
        return zeros(i)
    types = [lhs.shape.element_type, rhs.shape.element_type, element_type(i)]
    if not all(t.is_integral for t in types):
        return None
    for operand in (lhs, rhs):
        if is_int_value(uniform(operand), operand.shape.element_type, 0):
            return zeros(i)
    return None


def _dot_transpose(i: HloInstruction) -> HloInstruction | None:
    # Integer dots of one type run as loops that take any form; others (the CPU's int8
    # GEMM's s8 x s8 -> s32 among them) need the BLAS forms.
    types = {o.shape.element_type for o in (*i.operands, i)}
    exact = len(types) == 1 and next(iter(types)).is_integral
    for side, index in _SIDES:
        transpose = i.operand(index)
        if transpose.opcode is not Op.TRANSPOSE:
            continue
        perm = list(transpose.dimensions)
        batch = _dims(i, f"{side}_batch_dims")
        contracting = _dims(i, f"{side}_contracting_dims")
        free = [d for d in range(len(perm)) if d not in batch and d not in contracting]
        moved_free = [perm[d] for d in free]
        if moved_free != sorted(moved_free):
            continue  # the result's dimensions would come out in another order
        new_batch = [perm[d] for d in batch]
        new_contracting = [perm[d] for d in contracting]
        if not exact and not blas_form(len(perm), new_batch, new_contracting):
            continue
        operands = list(i.operands)
        operands[index] = transpose.operand(0)
        dot = i.clone(operands)
        for name, value in (
            (f"{side}_batch_dims", new_batch),
            (f"{side}_contracting_dims", new_contracting),
        ):
            if value or i.has_attribute(name):
                dot.set_attribute(name, tuple(value))
        return add(i, dot)
    return None


def _reduce(i: HloInstruction) -> HloInstruction | None:
    if i.operand_count != 2 or not i.shape.is_array:
        return None  # variadic reduces are left alone
    x, init = i.operands
    et = element_type(i)
    if x.shape.element_type != et or init.shape.element_type != et:
        return None
    count = math.prod(x.shape.dimensions[d] for d in i.dimensions)
    if count == 0:
        return splat_of(i, init)
    reducer = i.to_apply
    if count != 1 or reducer is None or not is_elementwise_scalar_computation(reducer):
        return None
    if len(reducer.parameters) != 2 or any(p.shape.element_type != et for p in reducer.parameters):
        return None
    values = x if x.shape.dimensions == i.shape.dimensions else new(i, Op.RESHAPE, [x])
    result = apply_elementwise(reducer, [splat_of(i, init), values], i.shape, i.parent)
    return if_same(result, i)


RULES: RuleTable = {
    Op.DOT: (_dot_zero, _dot_transpose),
    Op.REDUCE: (_reduce,),
}

__all__ = ["RULES", "blas_form"]
