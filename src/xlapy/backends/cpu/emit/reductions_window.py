"""reduce-window: pooling, running sums and any reducer, with padding and dilations.

Each output element folds its window with the reducer, position by position:
a window position maps into the operand through the stride, the window
dilation, the padding and the base dilation; positions that land in padding
or between dilated elements read the init value, exactly as the spec (and the
interpreter, which pads with the init value) says. Variadic reduce-windows
fold several operands at once.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ..buffers import leaves
from ..elemental import emit_convert
from ..ir_support import Index, i64, typed_pointer
from ..llvm_types import NotEmittable, llvm_type
from .generators import buffer_reader
from .loops import PARALLEL_MIN_ELEMENTS, Kernel, converted, nest, plain_reduce
from .registry import thunk_emitter

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

Op = HloOpcode


def _window_reader(read, dims, window, init):  # noqa: ANN001, ANN202
    """A generator over (output index ++ window index) -> operand value or init."""
    rank = len(dims)

    def gen(b: ir.IRBuilder, index: Index) -> ir.Value:
        multi = index.multi(b)
        outputs, positions = multi[:rank], multi[rank:]
        valid = ir.Constant(ir.IntType(1), 1)
        source = []
        for d, (o, w, wd) in enumerate(zip(outputs, positions, window, strict=True)):
            p = b.add(b.mul(o, i64(wd.stride)), b.mul(w, i64(wd.window_dilation)))
            q = b.sub(p, i64(wd.padding_low))
            ok = b.icmp_signed(">=", q, i64(0))
            safe = b.select(ok, q, i64(0))
            if wd.base_dilation != 1:
                ok = b.and_(ok, b.icmp_unsigned("==", b.urem(safe, i64(wd.base_dilation)), i64(0)))
                safe = b.udiv(safe, i64(wd.base_dilation))
            ok = b.and_(ok, b.icmp_signed("<", safe, i64(dims[d])))
            valid = b.and_(valid, ok)
            clamped = b.select(
                b.icmp_signed(">=", safe, i64(dims[d])), i64(max(dims[d] - 1, 0)), safe
            )
            source.append(clamped)
        fallback = init(b, Index((), multi=[]))
        if 0 in dims:
            return fallback
        return b.select(valid, read(b, Index(dims, multi=source)), fallback)

    return gen


@thunk_emitter(Op.REDUCE_WINDOW)
def _reduce_window(fe: FunctionEmitter, instruction: HloInstruction) -> None:
    n = instruction.operand_count // 2
    inputs, inits = instruction.operands[:n], instruction.operands[n:]
    window = list(instruction.attribute("window").dimensions)
    dims = inputs[0].shape.dimensions
    if len(window) != len(dims) or not all(o.shape.is_array for o in instruction.operands):
        raise NotEmittable("a reduce-window of tuples or with a rank-0 window")
    for o in instruction.operands:
        llvm_type(o.shape.element_type)
    outputs = leaves(fe.value(instruction))
    out_dims = list(
        (
            instruction.shape.tuple_shapes[0] if instruction.shape.is_tuple else instruction.shape
        ).dimensions
    )
    reducer = instruction.to_apply
    params = [p.shape.element_type for p in reducer.parameters]
    root = reducer.root
    root_types = [
        s.element_type for s in (root.shape.tuple_shapes if root.shape.is_tuple else [root.shape])
    ]
    out_types = [
        s.element_type
        for s in (
            instruction.shape.tuple_shapes if instruction.shape.is_tuple else [instruction.shape]
        )
    ]
    kernel = Kernel(fe, f"reduce_window_{instruction.name}", 2 * n + len(outputs))
    try:
        b = kernel.b
        readers = [
            buffer_reader(kernel.buffers[k], o.shape.element_type, o.shape.dimensions)
            for k, o in enumerate(inputs)
        ]
        init_readers = [
            buffer_reader(kernel.buffers[n + k], o.shape.element_type, ())
            for k, o in enumerate(inits)
        ]
        plan = {
            "inputs": [
                converted(
                    _window_reader(r, dims, window, init),
                    inputs[k].shape.element_type,
                    params[n + k],
                )
                for k, (r, init) in enumerate(zip(readers, init_readers, strict=True))
            ],
            "inits": [
                converted(g, inits[k].shape.element_type, params[k])
                for k, g in enumerate(init_readers)
            ],
            "reducer": reducer,
        }
        pointers = [typed_pointer(b, kernel.buffers[2 * n + k], t) for k, t in enumerate(out_types)]
        window_dims = [w.size for w in window]

        def input_index(kept: list[ir.Value], positions: list[ir.Value]) -> Index:
            return Index([*out_dims, *window_dims], multi=[*kept, *positions])

        def body(index: Index) -> None:
            acc = [g(b, Index((), multi=[])) for g in plan["inits"]]
            (acc,) = plain_reduce(b, [plan], [acc], index.multi(b), window_dims, input_index, [])
            for pointer, value, have, want in zip(
                pointers, acc, root_types, out_types, strict=True
            ):
                value = emit_convert(b, value, have, want)
                b.store(value, b.gep(pointer, [index.linear(b)]) if out_dims else pointer)

        count = math.prod(out_dims)
        if count == 0:
            count_n = 1
        elif not out_dims:
            body(Index((), multi=[]))
            count_n = 1
        else:
            nest(b, out_dims, kernel.start, kernel.stop, body)
            count_n = out_dims[0]
        kernel.finish()
    except NotEmittable:
        kernel.discard()
        raise
    parallel = count * math.prod(window_dims) >= PARALLEL_MIN_ELEMENTS and count_n >= 2
    fe.call_kernel(
        kernel.function,
        fe.operand_leaf_pointers(instruction) + [fe.pointer(s) for s in outputs],
        count_n,
        parallel,
    )
