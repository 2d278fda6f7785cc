"""Sorts of one operand by a plain comparison, as variants of xlapy's runtime library
(``emit/library``): compiled once per machine, element type and comparison, and called
by every program.

Why: the merge sort (``reductions_sort``) is a few loops around an inlined comparator,
and LLVM spent ~20 ms on it per program, more than XLA's whole compile of a sort (XLA
runs its sorts in code compiled into its binary). Most sorts are ``jnp.sort``'s: one
operand along the last dimension, compared by ``compare(lhs, rhs)`` of the two
parameters with a direction and a comparison type (``TOTALORDER`` for floats). That
comparator is part of the variant's name; the row length is data (a plan of one word).

The kernel is the inline sort's code (``reductions_sort.emit_sort_rows``) with the row
length read at run time, so it sorts the same way (stable, the same merges) and the
results are the inline code's. It has ``KERNEL_TYPE``'s signature over a range of rows;
its buffers are (operand, result, scratch: two i64 per element of a row, plan).
Ahead-of-time objects get the function emitted into the object.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....hlo.parser import parse_module
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..ir_support import i64
from ..llvm_types import I64, KERNEL_TYPE, llvm_type
from .library import Library, variant_bits
from .linalg_gemm_kernel import function_to_define
from .reductions_sort import emit_sort, emit_sort_rows
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
Op = HloOpcode
_TYPES = {t.hlo_name: t for t in (P.F32, P.F64, P.S32, P.S64, P.U32, P.U64)}
_DIRECTIONS = ("LT", "GT")
_COMPARISONS = {P.F32: "TOTALORDER", P.F64: "TOTALORDER", P.S32: "SIGNED", P.S64: "SIGNED",
                P.U32: "UNSIGNED", P.U64: "UNSIGNED"}  # fmt: skip
_NAME = re.compile(r"^xlapy_sort_(512|256|128)_(lt|gt)_(f32|f64|s32|s64|u32|u64)$")
# The comparator is emitted by elemental (its compare), through loops.emit_scalar_computation.
_SOURCES = ("sort_library", "reductions_sort", "loops", "../elemental/__init__")


def variant_name(direction: str, et: PrimitiveType, bits: int) -> str:
    """``xlapy_sort_<bits>_<lt|gt>_<type>``: the vector width names the code's target
    (``library.library_target``), as the GEMM's does."""
    return f"xlapy_sort_{bits}_{direction.lower()}_{et.hlo_name}"


@functools.cache
def _comparator(direction: str, et: PrimitiveType) -> HloComputation:
    """The comparator the variant stands for, as the programs that call it have it."""
    name = et.hlo_name
    text = f"""HloModule comparator
ENTRY compare {{
  lhs = {name}[] parameter(0)
  rhs = {name}[] parameter(1)
  ROOT less = pred[] compare(lhs, rhs), direction={direction}, type={_COMPARISONS[et]}
}}"""
    return parse_module(text).entry


def sort_function(
    module: ir.Module, direction: str, et: PrimitiveType, bits: int, *, exported: bool = False
) -> ir.Function:
    """The kernel (``KERNEL_TYPE``), made once per module (internal unless ``exported``):
    rows [start, stop), buffers (operand, result, scratch, plan: the row length)."""
    name = variant_name(direction, et, bits)
    function, new = function_to_define(module, name, KERNEL_TYPE, exported)
    if not new:
        return function
    ty = llvm_type(et)
    b = ir.IRBuilder(function.append_basic_block("entry"))
    table, start, stop = function.args
    source, target, scratch, plan = (b.load(b.gep(table, [i64(k)])) for k in range(4))
    length = b.load(b.bitcast(plan, I64.as_pointer()))
    typed = [b.bitcast(p, ty.as_pointer()) for p in (source, target)]
    emit_sort_rows(b, start, stop, typed[:1], typed[1:], scratch, _comparator(direction, et),
                   length)  # fmt: skip
    b.ret_void()
    return function


def _build(module: ir.Module, direction: str, et: PrimitiveType, bits: int) -> None:
    sort_function(module, direction, et, bits, exported=True)


def _parse(name: str) -> tuple[tuple, int] | None:
    match = _NAME.match(name)
    if match is None:
        return None
    bits, direction, type_name = match.groups()
    return (direction.upper(), _TYPES[type_name], int(bits)), int(bits)


LIBRARY = Library("sort", _SOURCES, _build, _parse, strength_reduction=False)


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """A sort variant's symbol compiled (or loaded from ``directory``) and registered;
    False for another symbol."""
    return LIBRARY.resolve_symbol(name, directory)


def plain_comparison(instruction: HloInstruction) -> str | None:
    """``"LT"`` or ``"GT"`` when ``instruction`` sorts one operand of a library type by
    ``compare(lhs, rhs)`` of its two parameters with that direction and the type's usual
    comparison (the variant's comparator), else None."""
    if instruction.operand_count != 1:
        return None
    et = instruction.operand(0).shape.element_type
    comparator = instruction.to_apply
    root = comparator.root
    params = comparator.parameters
    if et not in _COMPARISONS or root.opcode is not Op.COMPARE or len(params) != 2:
        return None
    if len(comparator.instructions) != 3 or list(root.operands) != list(params):
        return None
    if [p.parameter_number for p in root.operands] != [0, 1]:
        return None
    direction = getattr(root.attribute("direction"), "value", None)
    kind = root.attribute("type")
    if direction not in _DIRECTIONS:
        return None
    if kind is not None and getattr(kind, "value", None) != _COMPARISONS[et]:
        return None
    if kind is None and et.is_float:
        return None  # a float's default comparison is partial (NaN): not the variant's
    return direction


def _library_call(
    fe: FunctionEmitter, instruction: HloInstruction, scratch: ir.Value, n: int, direction: str
) -> tuple[ir.Function, list[ir.Value]]:
    """The library's kernel for ``instruction`` (one operand), declared in the program
    (emitted into it for ahead-of-time code), and its buffers."""
    et = instruction.operand(0).shape.element_type
    bits = variant_bits(fe)
    function = LIBRARY.program_function(
        fe, variant_name(direction, et, bits), (direction, et, bits), KERNEL_TYPE,
        lambda module: sort_function(module, direction, et, bits),
    )  # fmt: skip
    pointers = [
        fe.pointer(fe.value(instruction.operand(0))),
        fe.pointer(fe.value(instruction)),
        scratch,
        fe.m.constant_pointer(fe.b, np.array([n], dtype=np.int64)),
    ]
    return function, pointers


@thunk_emitter(Op.SORT)
def _sort(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    """A plain sort by the library's kernel, any other by the inline merge sort."""
    direction = plain_comparison(instruction)
    library = None if direction is None else functools.partial(_library_call, direction=direction)
    emit_sort(fe, instruction, library)


__all__ = ["LIBRARY", "plain_comparison", "resolve_symbol", "sort_function", "variant_name"]
