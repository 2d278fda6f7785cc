"""Small pieces of IR that every emitter needs: counted loops, indices, typed pointers.

An :class:`Index` names one element of an array in row-major order (every
buffer the native code touches has the default layout; see
``layout_normalization``). It carries the multi-index, the linear index, or
both, and computes the missing one only when asked, so that a chain of
elementwise ops and reshapes never pays for a division.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

from llvmlite import ir

from ...types import PrimitiveType
from .llvm_types import I8_PTR, I64, VOID, llvm_type
from .runtime import guarded_memory


def i64(value: int) -> ir.Constant:
    return ir.Constant(I64, value)


def minimum(b: ir.IRBuilder, x: ir.Value, y: ir.Value) -> ir.Value:
    """The smaller of two signed integers."""
    return b.select(b.icmp_signed("<", x, y), x, y)


def typed_pointer(b: ir.IRBuilder, raw: ir.Value, element_type: PrimitiveType) -> ir.Value:
    """``raw`` (an i8*) as a pointer to elements of ``element_type``."""
    return b.bitcast(raw, llvm_type(element_type).as_pointer())


def checked_index(b: ir.IRBuilder, index: ir.Value, count: int) -> ir.Value:
    """``index`` (an i64 element index into a buffer of ``count`` elements), checked in
    guard mode: outside ``[0, count)`` the code stops on a trap instruction right there
    (``guarded_memory``); otherwise no code at all."""
    if guarded_memory.indices_checked():
        module = b.module
        trap = module.globals.get("llvm.trap") or ir.Function(
            module, ir.FunctionType(VOID, []), "llvm.trap"
        )
        with b.if_then(b.icmp_unsigned(">=", index, i64(count)), likely=False):
            b.call(trap, [])
    return index


def load_element(b: ir.IRBuilder, pointer: ir.Value) -> ir.Value:
    """The element at ``pointer``; a complex one part by part. LLVM's loop vectorizer does
    not widen loops over ``<2 x float>`` values, but it does widen scalar loads of
    interleaved parts, and the complex arithmetic takes the parts apart anyway, so
    reading them separately lets loops over complex arrays be vectorized."""
    element = pointer.type.pointee
    if not isinstance(element, ir.VectorType):
        return b.load(pointer)
    parts = b.bitcast(pointer, element.element.as_pointer())
    value = ir.Constant(element, ir.Undefined)
    for k in range(element.count):
        part = b.load(b.gep(parts, [i64(k)]) if k else parts)
        value = b.insert_element(value, part, ir.Constant(ir.IntType(32), k))
    return value


def store_element(b: ir.IRBuilder, value: ir.Value, pointer: ir.Value) -> None:
    """Store ``value`` at ``pointer``; a complex one part by part (see ``load_element``)."""
    if not isinstance(value.type, ir.VectorType):
        b.store(value, pointer)
        return
    parts = b.bitcast(pointer, value.type.element.as_pointer())
    for k in range(value.type.count):
        part = b.extract_element(value, ir.Constant(ir.IntType(32), k))
        b.store(part, b.gep(parts, [i64(k)]) if k else parts)


def byte_offset(b: ir.IRBuilder, base: ir.Value, offset: int) -> ir.Value:
    return b.gep(base, [i64(offset)]) if offset else base


def load_pointer(b: ir.IRBuilder, table: ir.Value, index: int) -> ir.Value:
    """Entry ``index`` of a ``i8**`` table."""
    return b.load(b.gep(table, [i64(index)]))


def pointer_table(b: ir.IRBuilder, pointers: Sequence[ir.Value], name: str = "ptrs") -> ir.Value:
    """A stack array of i8* (allocated in the entry block so loops don't grow the stack)."""
    function = b.function
    with b.goto_block(function.entry_basic_block):
        if function.entry_basic_block.instructions:
            b.position_before(function.entry_basic_block.instructions[0])
        table = b.alloca(I8_PTR, size=max(1, len(pointers)), name=name)
    for i, p in enumerate(pointers):
        b.store(b.bitcast(p, I8_PTR), b.gep(table, [i64(i)]))
    return table


@contextlib.contextmanager
def for_range(
    b: ir.IRBuilder,
    start: ir.Value | int,
    stop: ir.Value | int,
    name: str = "i",
    interleave: int | Callable[[], int | None] | None = None,
    vectorize: bool = True,
) -> Iterator[ir.Value]:
    """``for i in range(start, stop)``: the body is emitted inside the ``with``.

    The loop is in the canonical form LLVM's vectorizer expects (one latch,
    ``i + 1 < stop``), guarded so that an empty range runs nothing. ``interleave``
    asks the vectorizer for that many vectors in flight; a callable is asked once the
    body is emitted (the count may depend on the body). Why: a reduction carries its
    accumulator from one iteration to the next, and some reducers are a chain of
    several instructions (``llvm.maximum`` is a compare, two blends and a max on x86):
    the cost model's usual 2-4 accumulators leave the core waiting on that chain.
    ``vectorize=False`` keeps LLVM's loop vectorizer off the loop (code vectorized by
    hand, which it would turn into gathers and scatters).
    """
    start = i64(start) if isinstance(start, int) else start
    stop = i64(stop) if isinstance(stop, int) else stop
    function = b.function
    preheader = b.block
    body = function.append_basic_block(f"{name}.body")
    exit_block = function.append_basic_block(f"{name}.exit")
    b.cbranch(b.icmp_signed("<", start, stop), body, exit_block)
    b.position_at_end(body)
    index = b.phi(I64, name=name)
    index.add_incoming(start, preheader)
    yield index
    following = b.add(index, i64(1), name=f"{name}.next", flags=["nsw", "nuw"])
    index.add_incoming(following, b.block)
    latch = b.cbranch(b.icmp_signed("<", following, stop), body, exit_block)
    if callable(interleave):
        interleave = interleave()
    hints = []
    if interleave is not None:
        hints.append(("llvm.loop.interleave.count", ir.IntType(32)(interleave)))
    if not vectorize:
        hints.append(("llvm.loop.vectorize.enable", ir.IntType(1)(0)))
    if hints:
        latch.set_metadata("llvm.loop", loop_id(b.module, hints))
    b.position_at_end(exit_block)


def loop_id(module: ir.Module, hints: Sequence[tuple[str, ir.Constant]]) -> ir.MDValue:
    """A loop id carrying ``hints`` (metadata name, value) for LLVM's loop passes. A
    loop id must be its own first operand, so the node is made with a unique
    placeholder and then pointed at itself."""
    nodes = [module.add_metadata([ir.MetaDataString(module, key), value]) for key, value in hints]
    placeholder = ir.MetaDataString(module, f"xlapy.loop.{len(module.metadata)}")
    node = module.add_metadata([placeholder, *nodes])
    node.operands = (node, *nodes)
    return node


class Index:
    """One element of an array of ``dims`` (row-major): multi-index and/or linear index."""

    def __init__(
        self,
        dims: Sequence[int],
        multi: Sequence[ir.Value] | None = None,
        linear: ir.Value | None = None,
    ) -> None:
        self.dims = tuple(dims)
        self._multi = list(multi) if multi is not None else None
        self._linear = linear

    def multi(self, b: ir.IRBuilder) -> list[ir.Value]:
        if self._multi is None:
            remaining = self._linear
            out: list[ir.Value] = [i64(0)] * len(self.dims)
            for d in reversed(range(len(self.dims))):
                size = self.dims[d]
                if size == 1:
                    continue
                if d == 0 or all(s == 1 for s in self.dims[:d]):
                    out[d] = remaining
                    break
                out[d] = b.urem(remaining, i64(size))
                remaining = b.udiv(remaining, i64(size))
            self._multi = out
        return self._multi

    def linear(self, b: ir.IRBuilder) -> ir.Value:
        if self._linear is None:
            total: ir.Value = i64(0)
            for size, value in zip(self.dims, self._multi, strict=True):
                if size == 1:
                    continue
                total = b.add(b.mul(total, i64(size), flags=["nsw"]), value, flags=["nsw"])
            self._linear = total
        return self._linear

    def has_linear(self) -> bool:
        return self._linear is not None

    def with_dims(self, dims: Sequence[int]) -> Index:
        """The same element seen through a reshape to ``dims`` (row-major: same linear index)."""
        if tuple(dims) == self.dims:
            return self
        if self._linear is None:
            raise ValueError("with_dims needs the linear index; call linear(b) first")
        return Index(dims, linear=self._linear)
