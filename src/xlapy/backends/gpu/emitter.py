"""HLO (after the GPU pipeline) to a :class:`~.program.Sequence` per computation.

Each instruction is handled by the entry of :data:`STEP_BUILDERS` for its opcode, or,
for the opcodes the kernel emitter generates (fusions, elementwise ops, movement ops,
reductions), by a kernel step. Anything else is refused here, at compile time, with the
op named: the GPU back-end never runs an op on the host behind the user's back.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ...errors import UnimplementedError
from ...hlo.computation import HloComputation
from ...hlo.instruction import HloInstruction
from ...opcode import HloOpcode
from ...shape import Shape
from ..cpu.emit.generators import GENERATORS
from ..cpu.llvm_types import NotEmittable
from .kernels import PtxModule, emit_kernel, updates_in_place
from .program import (
    ConditionalDetail,
    GemmDetail,
    LeafInfo,
    Sequence,
    Step,
    WhileDetail,
)

Op = HloOpcode
Tree = Any  # an int (a slot), a tuple of trees, or None (a token)
GEMM_TYPES = frozenset(
    {np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64), np.dtype(np.complex128)}
)


class SequenceBuilder:
    """Builds the sequence of one computation; ``kernels`` collects every kernel of the
    executable in one PTX module."""

    def __init__(self, computation: HloComputation, kernels: PtxModule) -> None:
        self.computation = computation
        self.kernels = kernels
        self.slot_info: list[LeafInfo] = []
        self.values: dict[int, Tree] = {}
        self.parameter_slots: list[int] = []
        self.constant_slots: dict[int, np.ndarray] = {}
        self.steps: list[Step] = []

    # -- slots ----------------------------------------------------------------------------
    def new_tree(self, shape: Shape) -> Tree:
        if shape.is_tuple:
            return tuple(self.new_tree(s) for s in shape.tuple_shapes)
        if not shape.is_array:
            return None
        if not shape.is_static:
            raise UnimplementedError(
                f"{self.computation.name}: the GPU back-end runs static shapes only, got {shape}"
            )
        self.slot_info.append(LeafInfo(np.dtype(shape.element_type.dtype), tuple(shape.dimensions)))
        return len(self.slot_info) - 1

    def tree(self, instruction: HloInstruction) -> Tree:
        return self.values[id(instruction)]

    def build(self) -> Sequence:
        parameters = sorted(self.computation.parameters, key=lambda p: p.parameter_number)
        for parameter in parameters:
            tree = self.new_tree(parameter.shape)
            self.values[id(parameter)] = tree
            self.parameter_slots.extend(leaves(tree))
        for instruction in self.computation.post_order():
            if instruction.opcode is Op.PARAMETER:
                continue
            self.values[id(instruction)] = build_step(self, instruction)
        sequence = Sequence(
            self.computation.name,
            self.slot_info,
            self.parameter_slots,
            leaves(self.tree(self.computation.root)),
            self.constant_slots,
            self.steps,
        )
        sequence.compute_liveness()
        return sequence


def leaves(tree: Tree) -> list[int]:
    if tree is None:
        return []
    if isinstance(tree, tuple):
        return [slot for t in tree for slot in leaves(t)]
    return [tree]


# -- the per-opcode builders ----------------------------------------------------------------------
Builder = Callable[[SequenceBuilder, HloInstruction], Tree]


def _constant(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    tree = sb.new_tree(instruction.shape)

    def fill(tree: Tree, value: Any) -> None:
        if isinstance(tree, tuple):
            for t, v in zip(tree, value, strict=True):
                fill(t, v)
        elif tree is not None:
            info = sb.slot_info[tree]
            sb.constant_slots[tree] = np.ascontiguousarray(np.asarray(value, info.dtype)).reshape(
                info.shape
            )

    fill(tree, instruction.literal.to_numpy())
    return tree


def _tuple(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    return tuple(sb.tree(o) for o in instruction.operands)


def _get_tuple_element(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    return sb.tree(instruction.operand(0))[int(instruction.attribute("index"))]


def _view(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    """Same bytes in row-major order (reshape, copy, a bitcast that keeps the type): the
    operand's slot. Safe because no step writes into a buffer it did not allocate."""
    operand = instruction.operand(0)
    same = (
        instruction.shape.is_array
        and operand.shape.is_array
        and instruction.shape.element_type == operand.shape.element_type
        and instruction.shape.element_count() == operand.shape.element_count()
    )
    if not same:
        return _kernel(sb, instruction)
    return sb.tree(operand)


def _bitcast_convert(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    """Between types of one width a kernel converts element by element; between widths
    (u32[n,2] <-> u64[n]) the row-major bytes already are the result: the new slot names
    the operand's buffer with the result's type (an "alias" step, no copy)."""
    operand = instruction.operand(0)
    if instruction.shape.element_type.byte_width == operand.shape.element_type.byte_width:
        return _kernel(sb, instruction)
    out = sb.new_tree(instruction.shape)
    sb.steps.append(Step("alias", instruction.name, [sb.tree(operand)], [out]))
    return out


def _token(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    return None


def _dot(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    lhs, rhs = instruction.operands
    dtype = np.dtype(instruction.shape.element_type.dtype)
    types = {dtype, np.dtype(lhs.shape.element_type.dtype), np.dtype(rhs.shape.element_type.dtype)}
    if len(types) != 1 or dtype not in GEMM_TYPES:
        raise UnimplementedError(
            f"dot {instruction.name}: {lhs.shape} x {rhs.shape} -> {instruction.shape} has no "
            "GPU kernel yet: cuBLAS runs dots whose operands and result share one of f32, f64, "
            "c64, c128 (f16/bf16 dots are widened to f32 first, 8- and 16-bit integer dots run as "
            "exact f32/f64 GEMMs); other integer dots are not supported"
        )
    numbers = instruction.dot_dimension_numbers
    lb, lc = list(numbers.lhs_batch_dimensions), list(numbers.lhs_contracting_dimensions)
    rb, rc = list(numbers.rhs_batch_dimensions), list(numbers.rhs_contracting_dimensions)
    nb = len(lb)
    ldims, rdims = lhs.shape.dimensions, rhs.shape.dimensions
    lfree = [d for d in range(lhs.shape.rank) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.shape.rank) if d not in rb and d not in rc]
    lhs_free_first = lfree == list(range(nb, nb + len(lfree)))
    rhs_contracting_first = rc == list(range(nb, nb + len(rc)))
    if lb != list(range(nb)) or rb != list(range(nb)):
        raise UnimplementedError(
            f"dot {instruction.name}: batch dimensions not leading after canonicalization"
        )
    detail = GemmDetail(
        dtype=dtype,
        batch=math.prod(ldims[d] for d in lb),
        m=math.prod(ldims[d] for d in lfree),
        n=math.prod(rdims[d] for d in rfree),
        k=math.prod(ldims[d] for d in lc),
        transpose_a=not lhs_free_first,
        transpose_b=not rhs_contracting_first,
    )
    out = sb.new_tree(instruction.shape)
    sb.steps.append(Step("gemm", instruction.name, [sb.tree(lhs), sb.tree(rhs)], [out], detail))
    return out


def _while(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    condition = SequenceBuilder(instruction.attribute("condition"), sb.kernels).build()
    body = SequenceBuilder(instruction.attribute("body"), sb.kernels).build()
    out = sb.new_tree(instruction.shape)
    sb.steps.append(
        Step(
            "while",
            instruction.name,
            leaves(sb.tree(instruction.operand(0))),
            leaves(out),
            WhileDetail(condition, body),
        )
    )
    return out


def _conditional(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    branches = instruction.attribute("branch_computations")
    is_pred = branches is None
    if is_pred:
        branches = [
            instruction.attribute("true_computation"),
            instruction.attribute("false_computation"),
        ]
    sequences = tuple(SequenceBuilder(c, sb.kernels).build() for c in branches)
    inputs = leaves(sb.tree(instruction.operand(0)))
    counts = []
    for operand in instruction.operands[1:]:
        operand_leaves = leaves(sb.tree(operand))
        counts.append(len(operand_leaves))
        inputs.extend(operand_leaves)
    out = sb.new_tree(instruction.shape)
    sb.steps.append(
        Step(
            "conditional",
            instruction.name,
            inputs,
            leaves(out),
            ConditionalDetail(sequences, tuple(counts), is_pred),
        )
    )
    return out


def _kernel(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    inputs = []
    for operand in instruction.operands:
        tree = sb.tree(operand)
        if not isinstance(tree, int):
            raise UnimplementedError(
                f"{instruction.opcode.value} {instruction.name}: a GPU kernel takes array "
                f"operands, got {operand.shape}"
            )
        inputs.append(tree)
    out = sb.new_tree(instruction.shape)
    outputs = leaves(out)
    if all(sb.slot_info[s].nbytes == 0 for s in outputs):
        plan = None  # nothing to compute: the (empty) buffers are allocated, no launch
    else:
        try:
            plan = emit_kernel(sb.kernels, instruction)
        except NotEmittable as e:
            raise UnimplementedError(
                f"{instruction.opcode.value} {instruction.name} ({instruction.shape}) has no "
                f"GPU kernel yet: {e}"
            ) from None
    # An update kernel writes only the update's window: the output starts as operand 0.
    if plan is not None and updates_in_place(instruction):
        source = 0
        if instruction.opcode is Op.FUSION:
            source = instruction.fused_computation.root.operand(0).parameter_number
        sb.steps.append(Step("update", instruction.name, inputs, outputs, (plan, source)))
        return out
    sb.steps.append(Step("kernel", instruction.name, inputs, outputs, plan))
    return out


STEP_BUILDERS: dict[HloOpcode, Builder] = {
    Op.CONSTANT: _constant,
    Op.TUPLE: _tuple,
    Op.GET_TUPLE_ELEMENT: _get_tuple_element,
    Op.BITCAST: _view,
    Op.RESHAPE: _view,
    Op.COPY: _view,
    Op.AFTER_ALL: _token,
    Op.BITCAST_CONVERT: _bitcast_convert,
    Op.DOT: _dot,
    Op.WHILE: _while,
    Op.CONDITIONAL: _conditional,
}
KERNEL_OPCODES = frozenset(
    {Op.FUSION, Op.REDUCE, Op.SORT, Op.DYNAMIC_UPDATE_SLICE}
    | {op for op in GENERATORS if op not in (Op.PARAMETER, Op.CONSTANT)}
)


def build_step(sb: SequenceBuilder, instruction: HloInstruction) -> Tree:
    op = instruction.opcode
    builder = STEP_BUILDERS.get(op)
    if builder is not None:
        return builder(sb, instruction)
    if op in KERNEL_OPCODES or op.is_elementwise:
        return _kernel(sb, instruction)
    raise UnimplementedError(
        f"{op.value} {instruction.name} ({instruction.shape}) has no GPU kernel yet; the GPU "
        f"back-end runs fusions, elementwise and movement ops, reductions, sort, "
        f"dynamic-update-slice, dots (cuBLAS), "
        f"while and conditional (docs/gpu.md lists what runs)"
    )


__all__ = ["KERNEL_OPCODES", "STEP_BUILDERS", "SequenceBuilder", "leaves"]
