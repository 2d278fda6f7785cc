"""Loop kernels: elementwise ops, kLoop fusions and single movement ops.

One thread per output element, in a grid-stride loop over the output's linear index
(blocks of ``BLOCK`` threads, at most ``MAX_GRID`` blocks): thread ``t`` of block ``c``
computes elements ``c * BLOCK + t``, then that plus ``BLOCK * gridDim.x``, and so on, so
neighbouring threads write neighbouring elements (coalesced). Each element's value
comes from the CPU backend's generators (``Index(dims, linear=i)`` asked of the root),
the same scalar code as the CPU's. A multi-output fusion computes every root's value
before it stores any, so an output that shares its buffer with an operand read at the
same index is still read before it is written.
"""

from __future__ import annotations

import math

from ....hlo.computation import HloComputation
from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ...cpu.emit.generators import GENERATORS
from ...cpu.ir_support import Index, i64, store_element, typed_pointer
from ...cpu.llvm_types import NotEmittable
from .module import PtxModule
from .nvvm import special_register, strided_range
from .plan import BLOCK, MAX_GRID, KernelFrame, KernelPlan, ceil_div, launch

Op = HloOpcode

# Single instructions a loop kernel generates besides the elementwise ones: the CPU's
# generator table (parameters excepted: they have no value to compute) and
# bitcast-convert, which ``elemental`` computes per element when the widths agree.
LOOP_OPCODES = frozenset((set(GENERATORS) - {Op.PARAMETER}) | {Op.BITCAST_CONVERT})


def is_loop_instruction(instruction: HloInstruction) -> bool:
    op = instruction.opcode
    return op in LOOP_OPCODES or (op.is_elementwise and not op.calls_computations)


def emit_loop(
    module: PtxModule, instruction: HloInstruction, computation: HloComputation | None = None
) -> KernelPlan:
    """The loop kernel of ``instruction`` (a fusion when ``computation`` is its fused
    computation, else a single instruction)."""
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
        roots = [instruction]
    else:
        frame.bind_parameters()
        root = computation.root
        roots = list(root.operands) if root.opcode is Op.TUPLE else [root]
    dims = roots[0].shape.dimensions
    for root in roots:
        if not root.shape.is_array or root.shape.dimensions != dims:
            raise NotEmittable(
                f"fusion {instruction.name}: a multi-output loop fusion whose outputs differ "
                f"in shape ({', '.join(str(r.shape) for r in roots)})"
            )
    if len(roots) != len(frame.outputs):
        raise NotEmittable(f"fusion {instruction.name}: nested tuple outputs")
    count = math.prod(dims)
    if count == 0:
        raise NotEmittable(f"{instruction.name}: a zero-element output needs no kernel")
    b = frame.b
    generators = [frame.emitter.generator(r) for r in roots]
    pointers = [
        typed_pointer(b, out, r.shape.element_type)
        for out, r in zip(frame.outputs, roots, strict=True)
    ]
    thread = special_register(b, "tid.x")
    first = b.add(b.mul(special_register(b, "ctaid.x"), i64(BLOCK)), thread)
    stride = b.mul(special_register(b, "nctaid.x"), i64(BLOCK))
    with strided_range(b, first, count, stride, "e") as linear:
        index = Index(dims, linear=linear)
        values = [g(b, index) for g in generators]
        for pointer, value in zip(pointers, values, strict=True):
            store_element(b, value, b.gep(pointer, [linear]))
    frame.finish()
    grid = min(ceil_div(count, BLOCK), MAX_GRID)
    return KernelPlan((launch(frame.name, (grid,), (BLOCK,)),))
