"""What an ahead-of-time object adds to the code the CPU backend emitted for a program.

The backend's functions assume a host: they call the native runtime
(``xlapy_parallel_for``, ``xlapy_poll_interrupt``), can call into Python
(``xlapy_fallback``) and read a run context the executable made. An object has none
of these, so this module gives it its own:

- bodies for the runtime's functions: ``xlapy_parallel_for`` runs the task on the
  calling thread over the whole range (single-threaded objects) or hands it to the
  native runtime's pthread pool linked into the object (``--threads N``, x86-64 only);
  ``xlapy_poll_interrupt`` never reports an interrupt (a C program stops a run its own
  way); ``xlapy_fallback`` is unreachable (programs that would call into Python are
  refused before this point) and returns an error status should it ever be called;
- a run context with the program's RNG state (a global: the state advances across
  calls, as the JIT's does per executable);
- ``NAME_run(args, results, temp)``: the C entry point, which calls the program's entry
  function with a private table of argument pointers (a donated argument's bytes are
  first moved into its result buffer, which the code then updates in place);
- the sizes of the C interface as data symbols (``NAME_arg_bytes``...).

Everything but the C interface is given internal linkage, so several objects link
into one program without clashes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llvmlite import ir

from ..backends.cpu.ir_support import for_range
from ..backends.cpu.llvm_types import I8_PTR, I8_PTR_PTR, I32, I64
from ..backends.cpu.runtime.fallback import CONTEXT_OFFSETS
from ..backends.cpu.runtime.native_runtime import POLL_MAX_STRIDE
from ..errors import InternalError

_CONTEXT_FIELDS = ("key", "replica_id", "partition_id", "rng_state", "profile")
_CONTEXT_TYPE = ir.LiteralStructType([I64, I64, I64, I8_PTR, I8_PTR])
if [CONTEXT_OFFSETS[name] for name in _CONTEXT_FIELDS] != [0, 8, 16, 24, 32]:
    raise InternalError(f"the run context's layout changed: {CONTEXT_OFFSETS}")
POOL_FUNCTION = "xlapy_aot_pool_for"


def _define(function: ir.Function) -> ir.IRBuilder:
    function.linkage = "internal"
    function.attributes.add("alwaysinline")
    return ir.IRBuilder(function.append_basic_block("entry"))


def _parallel_for_serial(function: ir.Function) -> None:
    task, buffers, n, _workers = function.args
    b = _define(function)
    with b.if_then(b.icmp_signed(">", n, I64(0))):
        b.call(task, [buffers, I64(0), n])
    b.ret_void()


def _parallel_for_pool(function: ir.Function, threads: int) -> None:
    """Hand the task to the linked pool with the object's thread count, not the count
    of the machine that compiled it."""
    task, buffers, n, _workers = function.args
    pool = ir.Function(function.module, function.function_type, POOL_FUNCTION)
    b = _define(function)
    b.call(pool, [task, buffers, n, I64(threads)])
    b.ret_void()


def _poll_never(function: ir.Function) -> None:
    (state,) = function.args
    b = _define(function)
    b.store(I64(POLL_MAX_STRIDE), state)  # the next poll as far away as the loop allows
    b.ret(I32(0))


def _fallback_unreachable(function: ir.Function) -> None:
    b = _define(function)
    b.ret(I32(1))


def _openblas_threads(function: ir.Function) -> None:
    b = _define(function)
    b.ret(I32(1))  # no OpenBLAS in the object: the setting is a no-op


def define_runtime(module: ir.Module, threads: int) -> None:
    """Give the runtime functions the backend declared bodies of the object's own."""
    stubs = {
        "xlapy_poll_interrupt": _poll_never,
        "xlapy_fallback": _fallback_unreachable,
        "xlapy_openblas_set_num_threads_local": _openblas_threads,
    }
    for name, define in stubs.items():
        function = module.globals.get(name)
        if isinstance(function, ir.Function) and function.is_declaration:
            define(function)
    parallel_for = module.globals.get("xlapy_parallel_for")
    if isinstance(parallel_for, ir.Function) and parallel_for.is_declaration:
        if threads > 1:
            _parallel_for_pool(parallel_for, threads)
        else:
            _parallel_for_serial(parallel_for)


def _size_array(module: ir.Module, name: str, sizes: Sequence[int]) -> None:
    kind = ir.ArrayType(I64, len(sizes))
    variable = ir.GlobalVariable(module, kind, name)
    variable.global_constant = True
    variable.initializer = ir.Constant(kind, [int(s) for s in sizes])
    variable.align = 8


@dataclass(frozen=True)
class Relayout:
    """A leaf whose declared entry layout is not row-major: the code reads (writes) it
    row-major at ``offset`` in temp, and ``NAME_run`` copies it from (to) the caller's
    buffer in the declared layout. Strides are in elements, per logical dimension."""

    leaf: int
    offset: int
    dims: tuple[int, ...]
    element_bytes: int
    declared_strides: tuple[int, ...]


def _row_major_strides(dims: Sequence[int]) -> list[int]:
    strides, step = [], 1
    for d in reversed(dims):
        strides.append(step)
        step *= d
    return strides[::-1]


def _copy_relayout(
    b: ir.IRBuilder, source: ir.Value, target: ir.Value, r: Relayout, to_row_major: bool
) -> None:
    """Element by element (in row-major order) between the declared and row-major forms."""
    element = ir.IntType(8 * r.element_bytes)
    row_major = _row_major_strides(r.dims)
    src_strides, dst_strides = (
        (r.declared_strides, row_major) if to_row_major else (row_major, r.declared_strides)
    )
    src = b.bitcast(source, element.as_pointer())
    dst = b.bitcast(target, element.as_pointer())
    count = 1
    for d in r.dims:
        count *= d
    with for_range(b, 0, count, "relayout") as linear:
        src_at, dst_at = I64(0), I64(0)
        for d, size in enumerate(r.dims):
            index = b.urem(b.udiv(linear, I64(row_major[d])), I64(size))
            src_at = b.add(src_at, b.mul(index, I64(src_strides[d])))
            dst_at = b.add(dst_at, b.mul(index, I64(dst_strides[d])))
        b.store(b.load(b.gep(src, [src_at])), b.gep(dst, [dst_at]))


def define_interface(
    module: ir.Module,
    name: str,
    entry: ir.Function,
    arg_bytes: Sequence[int],
    result_bytes: Sequence[int],
    temp_bytes: int,
    donated: dict[int, int],
    rng_seed: int,
    arg_relayouts: Sequence[Relayout] = (),
    result_relayouts: Sequence[Relayout] = (),
) -> ir.Function:
    """``int NAME_run(const void* const* args, void* const* results, void* temp)`` and the
    size symbols of the C interface; the entry becomes internal. Leaves with a declared
    layout that is not row-major go through temp (``Relayout``)."""
    _size_array(module, f"{name}_arg_bytes", arg_bytes)
    _size_array(module, f"{name}_result_bytes", result_bytes)
    temp = ir.GlobalVariable(module, I64, f"{name}_temp_bytes")
    temp.global_constant = True
    temp.initializer = I64(temp_bytes)
    temp.align = 8

    seed = rng_seed & ((1 << 128) - 1)
    rng_kind = ir.ArrayType(I64, 2)
    rng = ir.GlobalVariable(module, rng_kind, f"{name}.rng_state")
    rng.linkage = "internal"
    rng.initializer = ir.Constant(rng_kind, [seed & ((1 << 64) - 1), seed >> 64])
    rng.align = 16
    context = ir.GlobalVariable(module, _CONTEXT_TYPE, f"{name}.context")
    context.linkage = "internal"
    context.initializer = ir.Constant(
        _CONTEXT_TYPE, [I64(0), I64(0), I64(0), rng.bitcast(I8_PTR), ir.Constant(I8_PTR, None)]
    )

    run = ir.Function(module, ir.FunctionType(I32, [I8_PTR_PTR, I8_PTR_PTR, I8_PTR]), f"{name}_run")
    args, results, arena = run.args
    args.name, results.name, arena.name = "args", "results", "temp"
    b = ir.IRBuilder(run.append_basic_block("entry"))
    table = b.alloca(I8_PTR, I64(max(1, len(arg_bytes))), name="arguments")
    for k in range(len(arg_bytes)):
        b.store(b.load(b.gep(args, [I64(k)])), b.gep(table, [I64(k)]))
    if donated:
        memmove = module.declare_intrinsic("llvm.memmove", [I8_PTR, I8_PTR, I64])
        for leaf, parameter in sorted(donated.items()):
            destination = b.load(b.gep(results, [I64(leaf)]))
            source = b.load(b.gep(args, [I64(parameter)]))
            nbytes = I64(arg_bytes[parameter])
            b.call(memmove, [destination, source, nbytes, ir.Constant(ir.IntType(1), 0)])
            b.store(destination, b.gep(table, [I64(parameter)]))
    for r in arg_relayouts:
        staged = b.gep(arena, [I64(r.offset)])
        _copy_relayout(b, b.load(b.gep(args, [I64(r.leaf)])), staged, r, True)
        b.store(staged, b.gep(table, [I64(r.leaf)]))
    outputs = results
    if result_relayouts:
        outputs = b.alloca(I8_PTR, I64(max(1, len(result_bytes))), name="results")
        for k in range(len(result_bytes)):
            b.store(b.load(b.gep(results, [I64(k)])), b.gep(outputs, [I64(k)]))
        for r in result_relayouts:
            b.store(b.gep(arena, [I64(r.offset)]), b.gep(outputs, [I64(r.leaf)]))
    status = b.call(entry, [b.bitcast(context, I8_PTR), table, outputs, arena])
    if result_relayouts:
        with b.if_then(b.icmp_signed("==", status, I32(0))):
            for r in result_relayouts:
                staged = b.gep(arena, [I64(r.offset)])
                _copy_relayout(b, staged, b.load(b.gep(results, [I64(r.leaf)])), r, False)
    b.ret(status)
    return run


def internalize(module: ir.Module, exported: set[str]) -> None:
    """Every definition but the C interface local to the object; constants get internal
    rather than private linkage so that they keep a symbol the footprint report can size.
    Kernels and computations stay functions of their own (``noinline``), so that the
    report sizes each; the runtime's stubs above are inlined into their callers."""
    for value in module.global_values:
        if value.name in exported:
            continue
        if isinstance(value, ir.Function):
            if not value.is_declaration:
                value.linkage = "internal"
                if "alwaysinline" not in value.attributes:
                    value.attributes.add("noinline")
        elif getattr(value, "initializer", None) is not None:
            value.linkage = "internal"


__all__ = ["POOL_FUNCTION", "Relayout", "define_interface", "define_runtime", "internalize"]
