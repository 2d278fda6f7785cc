"""What an emitter tells the executable: the kernels to launch, in order, and their
shapes of grid; plus what kernels of every kind share (parameters, generators)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....shape import Shape
from ...cpu.emit.generators import ElementEmitter, Generator, buffer_reader
from ...cpu.llvm_types import NotEmittable
from .module import PtxModule

BLOCK = 256  # threads per block of the loop kernels
MAX_GRID = 1 << 16  # blocks of a grid-stride loop: enough for any GPU, more only costs launches


@dataclass(frozen=True)
class Launch:
    """One kernel launch: the ``.entry`` name in the PTX and its grid and block."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int = 0


@dataclass(frozen=True)
class KernelPlan:
    """The launches of one instruction, run in order on one stream. With
    ``scratch_bytes`` > 0 the executable passes a scratch buffer of that size as one
    extra last parameter to every launch."""

    launches: tuple[Launch, ...]
    scratch_bytes: int = 0


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def array_leaves(shape: Shape) -> list[Shape]:
    """The array shapes of ``shape`` (itself, or a tuple's leaves in order)."""
    if shape.is_tuple:
        return [leaf for s in shape.tuple_shapes for leaf in array_leaves(s)]
    if not shape.is_array:
        raise NotEmittable(f"a GPU kernel cannot produce a {shape}")
    return [shape]


class KernelFrame:
    """A kernel being built for one instruction: its function, builder, operand readers
    and output parameters (operands first, then output leaves, then scratch)."""

    def __init__(
        self,
        module: PtxModule,
        instruction: HloInstruction,
        suffix: str = "",
        scratch: bool = False,
    ) -> None:
        for operand in instruction.operands:
            if not operand.shape.is_array:
                raise NotEmittable(
                    f"{instruction.opcode.value} {instruction.name} has a {operand.shape} operand"
                )
        self.module = module
        self.instruction = instruction
        self.outputs_shapes = array_leaves(instruction.shape)
        n_in = instruction.operand_count
        count = n_in + len(self.outputs_shapes) + (1 if scratch else 0)
        self.function = module.add_kernel(
            f"{instruction.opcode.value}_{instruction.name}{suffix}", count
        )
        self.b = ir.IRBuilder(self.function.append_basic_block("entry"))
        parameters = list(self.function.args)
        self.operands = parameters[:n_in]
        self.outputs = parameters[n_in : n_in + len(self.outputs_shapes)]
        self.scratch = parameters[-1] if scratch else None
        self.emitter = ElementEmitter(
            [], constant_pointer=lambda array: module.constant_pointer(self.b, array)
        )
        self.readers: list[Generator] = [
            buffer_reader(p, o.shape.element_type, o.shape.dimensions)
            for p, o in zip(self.operands, instruction.operands, strict=True)
        ]

    @property
    def name(self) -> str:
        return self.function.name

    def bind_operands(self) -> None:
        """Generate a single (unfused) instruction: its operands are the buffers."""
        for operand, reader in zip(self.instruction.operands, self.readers, strict=True):
            self.emitter.bind(operand, reader)

    def bind_parameters(self) -> None:
        """Generate a fused computation: its parameters are the buffers."""
        self.emitter.parameters = list(self.readers)

    def finish(self) -> None:
        self.b.ret_void()

    def discard(self) -> None:
        self.module.discard_kernel(self.function)


def launch(name: str, grid: Sequence[int], block: Sequence[int]) -> Launch:
    g = tuple(grid) + (1,) * (3 - len(grid))
    t = tuple(block) + (1,) * (3 - len(block))
    return Launch(name, (int(g[0]), int(g[1]), int(g[2])), (int(t[0]), int(t[1]), int(t[2])))
