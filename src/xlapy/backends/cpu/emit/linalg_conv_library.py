"""The im2col convolution (``linalg_conv``) as variants of xlapy's runtime library.

Why: emitted into every program, a convolution's row blocks (the patch copies, one per
kernel row; the GEMM call; the copy of the valid rows out) and the padding copy cost
LLVM 20-25 ms per program, 1.5x XLA's whole compile of a convolution (XLA calls
precompiled Eigen or oneDNN kernels). Here the geometry is data: the program holds a
plan (``_PLAN``: sizes, padding, rows per block, the GEMM's workspace) as a constant and
hands two of the library's kernels to its thread pool, like kernels of its own:

- ``xlapy_conv_<bits>_<type>_pad``: rows ``[start, stop)`` of the zero-padded input
  (``batch * hp`` rows of ``wp * C`` elements), each written once: zeros, or the input's
  row between zeros;
- ``xlapy_conv_<bits>_<type>``: blocks ``[start, stop)`` of output positions, each as
  ``linalg_conv`` computes it: the block's patches on the task's stack, one
  single-threaded GEMM against the weights (the same GEMM, emitted into the variant),
  the valid rows copied to the output.

The operations and their order are ``linalg_conv``'s, so results are bit for bit the
same. Ahead-of-time objects get both functions emitted into the object, as the GEMM's.
With ``CpuOptions.gemm="openblas"`` the convolution stays inline (its GEMM is BLAS's).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir

from ....types import PrimitiveType
from ..ir_support import for_range, i64
from ..llvm_types import I8, I8_PTR, I64, KERNEL_TYPE
from .library import Library, variant_bits
from .linalg_gemm_blocking import workspace_bytes
from .linalg_gemm_kernel import function_to_define
from .linalg_gemm_loops import KERNEL_GROUP_BYTES, gemm_function

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType
CONV_TYPES = frozenset({P.F32, P.F64})
# The plan: one int64 each, in this order.
_PLAN = ("batch", "height", "width", "channels", "kh", "kw", "outs", "pad_top", "pad_left",
         "hp", "wp", "ho", "wo", "block", "workspace", "rows")  # fmt: skip
_AT = {name: i for i, name in enumerate(_PLAN)}
_NAME = re.compile(r"^xlapy_conv_(512|256|128)_(f32|f64)(_pad)?$")


def variant_name(et: PrimitiveType, bits: int, pad: bool) -> str:
    return f"xlapy_conv_{bits}_{et.hlo_name}{'_pad' if pad else ''}"


def plan(geometry: dict[str, int], et: PrimitiveType, bits: int) -> np.ndarray:
    """The plan of a convolution (``geometry``: every name of ``_PLAN`` but the
    workspace, the largest block's GEMM workspace, which it adds)."""
    values = dict(geometry)
    depth = values["kh"] * values["kw"] * values["channels"]
    values["workspace"] = max(
        64,
        workspace_bytes(et, bits, values["outs"], values["block"], depth, KERNEL_GROUP_BYTES),
    )
    return np.asarray([values[name] for name in _PLAN], np.int64)


def _read_plan(b: ir.IRBuilder, raw: ir.Value) -> dict[str, ir.Value]:
    pointer = b.bitcast(raw, I64.as_pointer())
    return {name: b.load(b.gep(pointer, [i64(i)]), name=name) for i, name in enumerate(_PLAN)}


def _memcpy(b: ir.IRBuilder, target: ir.Value, source: ir.Value, length: ir.Value) -> None:
    copy = b.module.declare_intrinsic("llvm.memcpy", [I8_PTR, I8_PTR, I64])
    b.call(copy, [target, source, length, ir.Constant(ir.IntType(1), 0)])


def _memset(b: ir.IRBuilder, target: ir.Value, length: ir.Value) -> None:
    fill = b.module.declare_intrinsic("llvm.memset", [I8_PTR, I64])
    b.call(fill, [target, I8(0), length, ir.Constant(ir.IntType(1), 0)])


def pad_function(
    module: ir.Module, et: PrimitiveType, bits: int, *, exported: bool = False
) -> ir.Function:
    """Padded rows ``[start, stop)``; buffers (input, padded, plan)."""
    function, new = function_to_define(
        module, variant_name(et, bits, pad=True), KERNEL_TYPE, exported
    )
    if not new:
        return function
    b = ir.IRBuilder(function.append_basic_block("entry"))
    table, start, stop = function.args
    source, padded, raw = (b.load(b.gep(table, [i64(i)])) for i in range(3))
    p = _read_plan(b, raw)
    size = i64(et.byte_width)
    pixel = b.mul(p["channels"], size)
    padded_row = b.mul(p["wp"], pixel)
    input_row = b.mul(p["width"], pixel)
    left = b.mul(p["pad_left"], pixel)
    with for_range(b, start, stop, "padded_row", vectorize=False) as row:
        target = b.gep(padded, [b.mul(row, padded_row)])
        y = b.sub(b.urem(row, p["hp"]), p["pad_top"])
        inside = b.and_(
            b.icmp_signed(">=", y, i64(0)), b.icmp_signed("<", y, p["height"])
        )  # fmt: skip
        with b.if_else(inside) as (copy, zeros):
            with copy:
                image = b.udiv(row, p["hp"])
                at = b.mul(b.add(b.mul(image, p["height"]), y), input_row)
                _memset(b, target, left)
                _memcpy(b, b.gep(target, [left]), b.gep(source, [at]), input_row)
                right = b.add(left, input_row)
                _memset(b, b.gep(target, [right]), b.sub(padded_row, right))
            with zeros:
                _memset(b, target, padded_row)
    b.ret_void()
    return function


def conv_function(
    module: ir.Module, et: PrimitiveType, bits: int, *, exported: bool = False
) -> ir.Function:
    """Blocks ``[start, stop)`` of output positions; buffers (padded, weights, output,
    plan). See ``linalg_conv`` for what a block computes."""
    function, new = function_to_define(
        module, variant_name(et, bits, pad=False), KERNEL_TYPE, exported
    )
    if not new:
        return function
    gemm = gemm_function(module, et, False, False, False, bits)
    gemm.attributes.add("noinline")
    b = ir.IRBuilder(function.append_basic_block("entry"))
    table, start, stop = function.args
    padded, weights, output, raw = (b.load(b.gep(table, [i64(i)])) for i in range(4))
    p = _read_plan(b, raw)
    size = i64(et.byte_width)
    tap = b.mul(p["channels"], size)
    depth = b.mul(b.mul(p["kh"], p["kw"]), p["channels"])
    patch_bytes = b.mul(b.mul(p["block"], depth), size)
    sums_bytes = b.mul(b.mul(p["block"], p["outs"]), size)
    scratch = b.alloca(I8, b.add(b.add(patch_bytes, sums_bytes), p["workspace"]), name="scratch")
    scratch.align = 64
    sums = b.gep(scratch, [patch_bytes])
    workspace = b.gep(sums, [sums_bytes])
    taps = b.mul(p["kw"], tap)  # a kernel row's taps, side by side
    with for_range(b, start, stop, "conv_block", vectorize=False) as block:
        first = b.mul(block, p["block"])
        left = b.sub(p["rows"], first)
        count = b.select(b.icmp_signed("<", left, p["block"]), left, p["block"])
        with for_range(b, 0, count, "patch_row", vectorize=False) as r:
            source = b.gep(padded, [b.mul(b.add(first, r), tap)])
            target = b.gep(scratch, [b.mul(r, b.mul(depth, size))])
            with for_range(b, 0, p["kh"], "kernel_row", vectorize=False) as i:
                _memcpy(
                    b,
                    b.gep(target, [b.mul(i, taps)]),
                    b.gep(source, [b.mul(b.mul(i, p["wp"]), tap)]),
                    taps,
                )
        # Column-major: O x rows = (O x K) . (K x rows), on this thread.
        sizes = [p["outs"], count, depth, p["outs"], depth, p["outs"]]
        b.call(gemm, [weights, scratch, sums, *sizes, workspace, p["workspace"], i64(1)])
        _copy_valid_rows(b, p, sums, output, first, count, b.mul(p["outs"], size))
    b.ret_void()
    return function


def _copy_valid_rows(
    b: ir.IRBuilder,
    p: dict[str, ir.Value],
    sums: ir.Value,
    output: ir.Value,
    first: ir.Value,
    count: ir.Value,
    row_bytes: ir.Value,
) -> None:
    """``linalg_conv._copy_valid_rows`` with the grid read from the plan."""
    hp, wp, ho, wo = p["hp"], p["wp"], p["ho"], p["wo"]
    last = b.add(first, count)
    grid_first = b.udiv(first, wp)
    grid_stop = b.udiv(b.add(last, b.sub(wp, i64(1))), wp)
    with for_range(b, grid_first, grid_stop, "grid_row", vectorize=False) as g:
        start = b.mul(g, wp)
        lo = b.select(b.icmp_signed(">", first, start), first, start)
        end = b.add(start, wo)
        hi = b.select(b.icmp_signed("<", last, end), last, end)
        y = b.urem(g, hp)
        with b.if_then(b.and_(b.icmp_signed("<", lo, hi), b.icmp_signed("<", y, ho))):
            image = b.udiv(g, hp)
            out_row = b.add(b.mul(b.add(b.mul(image, ho), y), wo), b.sub(lo, start))
            length = b.mul(b.sub(hi, lo), row_bytes)
            source = b.gep(sums, [b.mul(b.sub(lo, first), row_bytes)])
            target = b.gep(output, [b.mul(out_row, row_bytes)])
            _memcpy(b, target, source, length)


# -- the library and the call site ---------------------------------------------------------
def _build(module: ir.Module, et: PrimitiveType, pad: bool, bits: int) -> None:
    (pad_function if pad else conv_function)(module, et, bits, exported=True)


def _parse(name: str) -> tuple[tuple, int] | None:
    match = _NAME.match(name)
    if match is None:
        return None
    bits, type_name, pad = match.groups()
    et = P.F32 if type_name == "f32" else P.F64
    return (et, pad is not None, int(bits)), int(bits)


LIBRARY = Library(
    "conv",
    ("linalg_conv_library", "linalg_gemm_loops", "linalg_gemm_kernel", "linalg_gemm_pack",
     "linalg_gemm_blocking", "linalg_gemm_complex"),
    _build,
    _parse,
)  # fmt: skip


def resolve_symbol(name: str, directory: str | None = None) -> bool:
    """``LIBRARY.resolve_symbol``: a convolution variant's symbol compiled (or loaded
    from ``directory``) and registered; False for another."""
    return LIBRARY.resolve_symbol(name, directory)


def emit_convolution(
    fe: FunctionEmitter,
    et: PrimitiveType,
    geometry: dict[str, int],
    pointers: tuple[ir.Value, ir.Value, ir.Value, ir.Value],
) -> None:
    """The convolution by the library's two kernels over the pool: ``pointers`` (input,
    weights, output, padded buffer in the arena), ``geometry`` as ``plan`` takes it."""
    bits = variant_bits(fe)
    kernels = []
    for pad in (True, False):
        make = pad_function if pad else conv_function
        kernels.append(
            LIBRARY.program_function(
                fe, variant_name(et, bits, pad), (et, pad, bits), KERNEL_TYPE,
                lambda module, make=make: make(module, et, bits),
            )
        )  # fmt: skip
    plan_pointer = fe.m.constant_pointer(fe.b, plan(geometry, et, bits))
    source, weights, target, padded = pointers
    padded_rows = geometry["batch"] * geometry["hp"]
    fe.call_kernel(kernels[0], [source, padded, plan_pointer], padded_rows, padded_rows > 1)
    blocks = -(-geometry["rows"] // geometry["block"])
    fe.call_kernel(kernels[1], [padded, weights, target, plan_pointer], blocks, True)
    fe.m.kernel_count += 2


__all__ = ["CONV_TYPES", "LIBRARY", "emit_convolution", "plan", "resolve_symbol", "variant_name"]
