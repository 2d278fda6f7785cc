"""GPU kernels: HLO instructions as LLVM kernels in an NVPTX module, then PTX and cubins.

The emitters reuse the CPU backend's target-independent scalar code (its generators and
``elemental``), as XLA's GPU and CPU back-ends share the elemental IR emitter:

- ``loop``: elementwise ops, kLoop fusions and single movement ops, a grid-stride loop
  over the output;
- ``reduction`` (with ``reduction_parts``): reduces and reduce fusions, by warp, block,
  thread or two passes through scratch;
- ``transpose``: transposes of the two innermost dims through shared-memory tiles;
- ``update``: dynamic-update-slice in place (a kernel over the update only; the output
  buffer holds operand 0 already: aliased, or copied by the executable first);
- ``sort``: rows up to 2048 elements by a bitonic network in shared memory;
- ``module``: :class:`PtxModule`, its libdevice linking and PTX; ``toolchain``:
  ``ptxas`` and libdevice on this machine; ``nvvm``: the GPU intrinsics; ``plan``:
  :class:`Launch` and :class:`KernelPlan`.

:func:`emit_kernel` dispatches by opcode; what it cannot emit raises the CPU's
``NotEmittable``.
"""

from __future__ import annotations

from collections.abc import Callable

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ...cpu.elemental import is_native_type
from ...cpu.emit.loops import can_emit_fused as cpu_can_emit_fused
from ...cpu.llvm_types import NotEmittable
from .loop import LOOP_OPCODES, emit_loop, is_loop_instruction
from .module import PtxModule, libdevice_name
from .plan import KernelPlan, Launch
from .reduction import choose_strategy, emit_reduction
from .sort import MAX_SORT_ROW, emit_sort, sortable
from .toolchain import assemble, libdevice_path, ptxas_path
from .transpose import batched_matrix_transpose, emit_transpose
from .update import emit_update, updates_in_place

Op = HloOpcode


def can_emit_fused(instruction: HloInstruction) -> bool:
    """Whether ``instruction`` can be generated inside a GPU fusion: what the CPU's loop
    emitter generates (elementwise ops, the movement ops, reduce with a scalar reducer),
    on element types with native scalar code. The GPU kernels use the same generators."""
    return cpu_can_emit_fused(instruction)


def _emit_fusion(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    computation = instruction.fused_computation
    if any(i.opcode is Op.REDUCE for i in computation.instructions):
        return emit_reduction(module, instruction, computation)
    if computation.root.opcode is Op.DYNAMIC_UPDATE_SLICE:
        return emit_update(module, instruction)
    return emit_loop(module, instruction, computation)


def _emit_transpose(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    if batched_matrix_transpose(instruction) is not None:
        return emit_transpose(module, instruction)
    return emit_loop(module, instruction)


_EMITTERS: dict[HloOpcode, Callable[[PtxModule, HloInstruction], KernelPlan]] = {
    Op.FUSION: _emit_fusion,
    Op.REDUCE: emit_reduction,
    Op.TRANSPOSE: _emit_transpose,
    Op.DYNAMIC_UPDATE_SLICE: emit_update,
    Op.SORT: emit_sort,
}


def emit_kernel(module: PtxModule, instruction: HloInstruction) -> KernelPlan:
    """Add the kernels of ``instruction`` to ``module``: the launches that compute it.

    Parameters of every launch: one generic pointer per operand, one per output array
    leaf, then the scratch buffer when ``scratch_bytes`` > 0. Raises ``NotEmittable``
    for what has no GPU kernel here (the message names the op and why).
    """
    emitter = _EMITTERS.get(instruction.opcode)
    if emitter is None and is_loop_instruction(instruction):
        emitter = emit_loop
    if emitter is None:
        raise NotEmittable(
            f"{instruction.opcode.value} {instruction.name} {instruction.shape} has no GPU "
            f"kernel (kernels exist for fusions, reduce, dynamic-update-slice, sort, "
            f"elementwise ops and "
            f"{', '.join(sorted(op.value for op in LOOP_OPCODES))})"
        )
    for shape in [instruction.shape, *(o.shape for o in instruction.operands)]:
        leaves = shape.tuple_shapes if shape.is_tuple else [shape]
        for leaf in leaves:
            if leaf.is_array and not is_native_type(leaf.element_type):
                raise NotEmittable(
                    f"{instruction.opcode.value} {instruction.name}: no GPU code for "
                    f"{leaf.element_type.hlo_name}"
                )
    return emitter(module, instruction)


__all__ = [
    "KernelPlan",
    "LOOP_OPCODES",
    "MAX_SORT_ROW",
    "Launch",
    "NotEmittable",
    "PtxModule",
    "assemble",
    "can_emit_fused",
    "choose_strategy",
    "emit_kernel",
    "libdevice_name",
    "libdevice_path",
    "ptxas_path",
    "sortable",
    "updates_in_place",
]
