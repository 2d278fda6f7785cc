"""The GPU's pieces of IR: thread coordinates, grid-stride loops, warp shuffles, barriers
and shared memory, as NVVM intrinsics.

Indices are i64 throughout (the CPU's generators and ``Index`` compute in i64), so
arrays past 2^31 elements need nothing special; the thread coordinates are read as i32
and widened once.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from llvmlite import ir

from ...cpu.ir_support import i64
from .module import SHARED_SPACE

I1 = ir.IntType(1)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
WARP = 32
FULL_MASK = ir.Constant(I32, 0xFFFFFFFF)
# shfl.sync's "c" operand for a whole warp: clamp lane 31, no segments.
SHUFFLE_CLAMP = ir.Constant(I32, 0x1F)


def _intrinsic(b: ir.IRBuilder, name: str, result: ir.Type, args: Sequence[ir.Value]) -> ir.Value:
    module = b.block.function.module
    function = module.globals.get(name)
    if function is None:
        function = ir.Function(module, ir.FunctionType(result, [a.type for a in args]), name)
    return b.call(function, list(args))


def special_register(b: ir.IRBuilder, name: str) -> ir.Value:
    """``%tid.x``, ``%ntid.x``, ``%ctaid.y``... (``name`` as ``tid.x``) as an i64."""
    value = _intrinsic(b, f"llvm.nvvm.read.ptx.sreg.{name}", I32, [])
    return b.zext(value, I64)


def barrier(b: ir.IRBuilder) -> None:
    """``bar.sync 0``: every thread of the block waits here (uniform control flow only)."""
    _intrinsic(b, "llvm.nvvm.barrier.cta.sync.aligned.all", ir.VoidType(), [ir.Constant(I32, 0)])


@contextlib.contextmanager
def strided_range(
    b: ir.IRBuilder, start: ir.Value, stop: ir.Value | int, step: ir.Value | int, name: str = "i"
) -> Iterator[ir.Value]:
    """``for i in range(start, stop, step)`` (i64, step > 0), the body inside the ``with``:
    the grid-stride loop every kernel here is built from."""
    stop = i64(stop) if isinstance(stop, int) else stop
    step = i64(step) if isinstance(step, int) else step
    function = b.function
    preheader = b.block
    body = function.append_basic_block(f"{name}.body")
    exit_block = function.append_basic_block(f"{name}.exit")
    b.cbranch(b.icmp_signed("<", start, stop), body, exit_block)
    b.position_at_end(body)
    index = b.phi(I64, name=name)
    index.add_incoming(start, preheader)
    yield index
    following = b.add(index, step, name=f"{name}.next", flags=["nsw"])
    index.add_incoming(following, b.block)
    b.cbranch(b.icmp_signed("<", following, stop), body, exit_block)
    b.position_at_end(exit_block)


State = list[ir.Value]


def loop_with_state(
    b: ir.IRBuilder,
    start: ir.Value,
    stop: ir.Value | int,
    step: ir.Value | int,
    state: State,
    body: Callable[[ir.Value, State], State],
    name: str = "j",
) -> State:
    """A strided loop carrying ``state`` (SSA values) from one iteration to the next;
    returns the state after it (``state`` itself when the loop runs zero times)."""
    before = b.block
    phis: list[ir.PhiInstr] = []
    latch = None
    with strided_range(b, start, stop, step, name) as index:
        for value in state:
            phi = b.phi(value.type)
            phi.add_incoming(value, before)
            phis.append(phi)
        updated = body(index, list(phis))
        latch = b.block
        for phi, value in zip(phis, updated, strict=True):
            phi.add_incoming(value, latch)
    merged = []
    for value, new in zip(state, updated, strict=True):
        phi = b.phi(value.type)
        phi.add_incoming(value, before)
        phi.add_incoming(new, latch)
        merged.append(phi)
    return merged


def _shuffle_word(b: ir.IRBuilder, word: ir.Value, delta: int) -> ir.Value:
    return _intrinsic(
        b,
        "llvm.nvvm.shfl.sync.down.i32",
        I32,
        [FULL_MASK, word, ir.Constant(I32, delta), SHUFFLE_CLAMP],
    )


def shuffle_down(b: ir.IRBuilder, value: ir.Value, delta: int) -> ir.Value:
    """The ``value`` of the lane ``delta`` above this one (its own past lane 31), for any
    element type: narrower values travel in one 32-bit word, 64-bit ones in two, vectors
    (complex numbers) part by part."""
    ty = value.type
    if isinstance(ty, ir.VectorType):
        out = ir.Constant(ty, ir.Undefined)
        for k in range(ty.count):
            part = b.extract_element(value, ir.Constant(I32, k))
            out = b.insert_element(out, shuffle_down(b, part, delta), ir.Constant(I32, k))
        return out
    if isinstance(ty, ir.IntType):
        if ty.width == 32:
            return _shuffle_word(b, value, delta)
        if ty.width < 32:
            return b.trunc(_shuffle_word(b, b.zext(value, I32), delta), ty)
        if ty.width == 64:
            low = _shuffle_word(b, b.trunc(value, I32), delta)
            high = _shuffle_word(b, b.trunc(b.lshr(value, i64(32)), I32), delta)
            return b.or_(b.zext(low, I64), b.shl(b.zext(high, I64), i64(32)))
        raise ValueError(f"no warp shuffle for {ty}")
    if isinstance(ty, ir.HalfType):
        return b.bitcast(shuffle_down(b, b.bitcast(value, ir.IntType(16)), delta), ty)
    if isinstance(ty, ir.FloatType):
        return b.bitcast(shuffle_down(b, b.bitcast(value, I32), delta), ty)
    if isinstance(ty, ir.DoubleType):
        return b.bitcast(shuffle_down(b, b.bitcast(value, I64), delta), ty)
    raise ValueError(f"no warp shuffle for {ty}")


def shared_array(module: ir.Module, element: ir.Type, count: int, name: str) -> ir.GlobalVariable:
    """``__shared__ element name[count]`` (one per block, uninitialized)."""
    array_type = ir.ArrayType(element, count)
    variable = ir.GlobalVariable(module, array_type, name, addrspace=SHARED_SPACE)
    variable.linkage = "internal"
    variable.initializer = ir.Constant(array_type, ir.Undefined)
    variable.align = 16
    return variable


def shared_slot(b: ir.IRBuilder, array: ir.GlobalVariable, index: ir.Value) -> ir.Value:
    """A pointer (shared space) to ``array[index]``."""
    return b.gep(array, [ir.Constant(I32, 0), index])
