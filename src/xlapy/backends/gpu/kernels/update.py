"""In-place dynamic-update-slice: a kernel over the update's elements only.

The executable makes the output buffer hold operand 0 (the same buffer, or a copy made
before the launch); this kernel then writes the update into it at the clamped start
indices, one thread per update element in a grid-stride loop. It serves a single
``dynamic-update-slice`` and a fusion whose root is one (the update computed by the
fused ops), as long as nothing else in the fusion reads the updated operand: those
reads would race with the writes.
"""

from __future__ import annotations

import math

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ...cpu.emit.generators import start_index
from ...cpu.ir_support import Index, i64, store_element, typed_pointer
from ...cpu.llvm_types import NotEmittable
from .module import PtxModule
from .nvvm import special_register, strided_range
from .plan import BLOCK, MAX_GRID, KernelFrame, KernelPlan, ceil_div, launch

Op = HloOpcode


def updates_in_place(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` is a dynamic-update-slice, or a fusion rooted at one, that
    this module emits (the lead aliases or copies operand 0 into the output first)."""
    if instruction.opcode is Op.DYNAMIC_UPDATE_SLICE:
        return True
    if instruction.opcode is not Op.FUSION:
        return False
    root = instruction.fused_computation.root
    if root.opcode is not Op.DYNAMIC_UPDATE_SLICE:
        return False
    target = root.operand(0)
    return (
        target.opcode is Op.PARAMETER
        and target.users == (root,)
        and root.operands.count(target) == 1
    )


def emit_update(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    """The kernel writing the update of a dynamic-update-slice into the output."""
    computation = instruction.fused_computation if instruction.opcode is Op.FUSION else None
    if not updates_in_place(instruction):
        raise NotEmittable(
            f"{instruction.name}: the fused dynamic-update-slice's operand 0 is read by other "
            "fused ops, so it cannot be updated in place"
        )
    frame = KernelFrame(module, instruction)
    try:
        plan = _emit(frame, computation)
    except NotEmittable:
        frame.discard()
        raise
    return plan


def _emit(frame: KernelFrame, computation: HloComputation | None) -> KernelPlan:
    instruction = frame.instruction
    if computation is None:
        frame.bind_operands()
        dus = instruction
    else:
        frame.bind_parameters()
        dus = computation.root
    update = dus.operand(1)
    dims = update.shape.dimensions
    count = math.prod(dims)
    if count == 0:
        raise NotEmittable(f"{instruction.name}: an empty update writes nothing")
    out_dims = dus.shape.dimensions
    b = frame.b
    starts = []
    for d in range(len(out_dims)):
        start = dus.operand(2 + d)
        et = start.shape.element_type
        if not et.is_integral or et.bit_width < 8:
            raise NotEmittable(f"{instruction.name}: start indices of type {et.hlo_name}")
        value = frame.emitter.generator(start)(b, Index((), multi=[]))
        starts.append(start_index(b, value, et, out_dims[d] - dims[d]))
    generator = frame.emitter.generator(update)
    output = typed_pointer(b, frame.outputs[0], dus.shape.element_type)
    first = b.add(b.mul(special_register(b, "ctaid.x"), i64(BLOCK)), special_register(b, "tid.x"))
    stride = b.mul(special_register(b, "nctaid.x"), i64(BLOCK))
    with strided_range(b, first, count, stride, "u") as linear:
        index = Index(dims, linear=linear)
        value = generator(b, index)
        target = Index(
            out_dims, multi=[b.add(s, m) for s, m in zip(starts, index.multi(b), strict=True)]
        )
        store_element(b, value, b.gep(output, [target.linear(b)]))
    frame.finish()
    return KernelPlan((launch(frame.name, (min(ceil_div(count, BLOCK), MAX_GRID),), (BLOCK,)),))
