"""Run a scalar LLVM emitter over numpy arrays: a test bench for the CPU backend's
elementwise and math emitters, independent of the rest of the compiler.

``elementwise_kernel(emit, in_types, out_type)`` JIT-compiles a loop that loads
one element of every input, calls ``emit(builder, values)`` and stores the
result, with the same O3 pipeline (and so the same vectorization) as compiled
executables; the returned function maps numpy arrays to a numpy array.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence

import numpy as np
from llvmlite import ir

from ..backends.cpu.llvm_types import I64, llvm_type
from ..backends.cpu.runtime import jit
from ..types import PrimitiveType

Emit = Callable[[ir.IRBuilder, list[ir.Value]], ir.Value]


def elementwise_kernel(
    emit: Emit, in_types: Sequence[PrimitiveType], out_type: PrimitiveType
) -> Callable[..., np.ndarray]:
    """A numpy function computing ``emit`` element by element (inputs of equal size)."""
    module = jit.new_module("elementwise_test")
    ptr = ir.IntType(8).as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr.as_pointer(), ptr, I64]), "k")
    for arg in fn.args[:2]:
        arg.add_attribute("noalias")
    entry = fn.append_basic_block("entry")
    loop = fn.append_basic_block("loop")
    done = fn.append_basic_block("done")
    b = ir.IRBuilder(entry)
    count = fn.args[2]
    inputs = [
        b.bitcast(b.load(b.gep(fn.args[0], [I64(i)])), llvm_type(t).as_pointer())
        for i, t in enumerate(in_types)
    ]
    out = b.bitcast(fn.args[1], llvm_type(out_type).as_pointer())
    b.cbranch(b.icmp_signed(">", count, I64(0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(I64)
    i.add_incoming(I64(0), entry)
    values = [b.load(b.gep(p, [i])) for p in inputs]
    b.store(emit(b, values), b.gep(out, [i]))
    nxt = b.add(i, I64(1))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_signed("<", nxt, count), loop, done)
    b.position_at_end(done)
    b.ret_void()
    code = jit.compile_module(module)
    cfn = code.cfunction("k", None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)

    def run(*arrays: np.ndarray) -> np.ndarray:
        arrays = [
            np.ascontiguousarray(np.asarray(a, t.dtype)).reshape(-1)
            for a, t in zip(arrays, in_types, strict=True)
        ]
        size = arrays[0].size if arrays else 0
        result = np.empty(size, out_type.dtype)
        pointers = (ctypes.c_void_p * max(1, len(arrays)))(*[a.ctypes.data for a in arrays])
        cfn(pointers, result.ctypes.data, size)
        return result

    run.code = code  # keeps the machine code alive with the function
    return run
