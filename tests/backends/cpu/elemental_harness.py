"""The bench the test_elemental*.py files share: one instruction run by ``emit_elemental``
inside a JIT-compiled vectorized loop (``xlapy.testing.cpu_kernels``) and by the
interpreter on the same HLO text, compared bit for bit or within a number of ULPs.

Kernels are compiled once per (instruction text) and reused. Every comparison also runs
the kernel on prefixes of 1, 7 and 67 elements, so that both the vector body and the
scalar remainder of the vectorized loop are exercised.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Hashable, Iterable, Sequence

import ml_dtypes
import numpy as np
from llvmlite import ir

import xlapy.evaluator.kernels.elementwise  # noqa: F401  (registers the kernels)
from xlapy.backends.cpu.elemental import emit_compare, emit_elemental
from xlapy.backends.cpu.llvm_types import I8, I64, llvm_type
from xlapy.backends.cpu.runtime import jit
from xlapy.backends.interpreter import run
from xlapy.hlo import parse_module
from xlapy.hlo.instruction import HloInstruction
from xlapy.types import ARRAY_TYPES, PrimitiveType

P = PrimitiveType
INTS = [t for t in ARRAY_TYPES if t.is_integral]
FLOATS = [t for t in ARRAY_TYPES if t.is_float]
SMALL_FLOATS = [t for t in FLOATS if t.bit_width <= 8]
WIDE_FLOATS = [P.F16, P.BF16, P.F32, P.F64]
REAL_TYPES = [P.PRED, *INTS, *FLOATS]
SIZES = (1, 7, 67)


def ids(et: PrimitiveType) -> str:
    return et.hlo_name


def hlo_text(
    opcode: str, in_types: tuple[PrimitiveType, ...], out: PrimitiveType, attrs: str, n: int
) -> str:
    params = "\n".join(f"  p{i} = {t.hlo_name}[{n}] parameter({i})" for i, t in enumerate(in_types))
    names = ", ".join(f"p{i}" for i in range(len(in_types)))
    return f"HloModule t\nENTRY e {{\n{params}\n  ROOT r = {out.hlo_name}[{n}] {opcode}({names}){attrs}\n}}"


Emit = Callable[[ir.IRBuilder, list[ir.Value]], ir.Value]
Spec = tuple[str, tuple[PrimitiveType, ...], PrimitiveType, str]
_KERNELS: dict[Hashable, Callable[..., np.ndarray]] = {}


def _add_loop(
    module: ir.Module, name: str, emit: Emit, in_types: Sequence[PrimitiveType], out: PrimitiveType
) -> None:
    """``cpu_kernels.elementwise_kernel``'s loop, as one function of a shared module."""
    ptr = I8.as_pointer()
    fn = ir.Function(module, ir.FunctionType(ir.VoidType(), [ptr.as_pointer(), ptr, I64]), name)
    for arg in fn.args[:2]:
        arg.add_attribute("noalias")
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    b = ir.IRBuilder(entry)
    count = fn.args[2]
    inputs = [
        b.bitcast(b.load(b.gep(fn.args[0], [I64(i)])), llvm_type(t).as_pointer())
        for i, t in enumerate(in_types)
    ]
    pointer = b.bitcast(fn.args[1], llvm_type(out).as_pointer())
    b.cbranch(b.icmp_signed(">", count, I64(0)), loop, done)
    b.position_at_end(loop)
    i = b.phi(I64)
    i.add_incoming(I64(0), entry)
    b.store(emit(b, [b.load(b.gep(p, [i])) for p in inputs]), b.gep(pointer, [i]))
    following = b.add(i, I64(1))
    i.add_incoming(following, loop)
    b.cbranch(b.icmp_signed("<", following, count), loop, done)
    b.position_at_end(done)
    b.ret_void()


def _runner(
    code: jit.CompiledCode, name: str, in_types: Sequence[PrimitiveType], out: PrimitiveType
) -> Callable[..., np.ndarray]:
    cfn = code.cfunction(name, None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)

    def run(*arrays: np.ndarray) -> np.ndarray:
        arrays = [
            np.ascontiguousarray(np.asarray(a, t.dtype)).reshape(-1)
            for a, t in zip(arrays, in_types, strict=True)
        ]
        result = np.empty(arrays[0].size, out.dtype)
        pointers = (ctypes.c_void_p * len(arrays))(*[a.ctypes.data for a in arrays])
        cfn(pointers, result.ctypes.data, result.size)
        return result

    run.code = code  # keeps the machine code alive
    return run


def compile_kernels(
    entries: dict[Hashable, tuple[Emit, Sequence[PrimitiveType], PrimitiveType]],
) -> None:
    """Compile the kernels of ``entries`` not compiled yet, all in one module (one JIT
    engine: most of the cost of a small kernel is the engine's)."""
    missing = [key for key in entries if key not in _KERNELS]
    if not missing:
        return
    module = jit.new_module("elemental_tests")
    for n, key in enumerate(missing):
        _add_loop(module, f"k{n}", *entries[key])
    code = jit.compile_module(module)
    for n, key in enumerate(missing):
        _KERNELS[key] = _runner(code, f"k{n}", *entries[key][1:])


def kernel(key: Hashable) -> Callable[..., np.ndarray]:
    return _KERNELS[key]


def instruction(spec: Spec) -> HloInstruction:
    opcode, in_types, out, attrs = spec
    return parse_module(hlo_text(opcode, in_types, out, attrs, 1)).entry.root


def prepare(specs: Iterable[Spec]) -> None:
    """Compile the instructions of ``specs`` (opcode, operand types, result type,
    attributes) in one module."""
    entries = {}
    for spec in specs:
        if spec not in _KERNELS and spec not in entries:
            root = instruction(spec)
            emit = functools.partial(lambda root, b, values: emit_elemental(b, root, values), root)
            entries[spec] = (emit, spec[1], spec[2])
    compile_kernels(entries)


def native(opcode: str, in_types: tuple[PrimitiveType, ...], out: PrimitiveType, attrs: str = ""):
    """The compiled kernel of one instruction (numpy arrays in, numpy array out)."""
    spec = (opcode, tuple(in_types), out, attrs)
    prepare([spec])
    return _KERNELS[spec]


def interpreter(
    opcode: str, args: list[np.ndarray], out: PrimitiveType, attrs: str = ""
) -> np.ndarray:
    """The interpreter's result of the same instruction on 1-d arrays."""
    in_types = tuple(P.from_dtype(a.dtype) for a in args)
    with np.errstate(all="ignore"):
        return np.asarray(run(hlo_text(opcode, in_types, out, attrs, args[0].size), *args))


def unsigned(x: np.ndarray) -> np.ndarray:
    """The bit patterns of an array (sub-byte types: the byte ml_dtypes stores)."""
    x = np.ascontiguousarray(x)
    return x.view(f"u{x.dtype.itemsize}")


def ordinal(x: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """Float codes as integers in the order of their values (adjacent values differ by 1)."""
    bits = unsigned(x).astype(np.uint64)
    if et is P.F8E8M0FNU:  # no sign bit
        return bits.astype(np.int64)
    width = np.uint64(et.bit_width)
    sign = (bits >> (width - np.uint64(1))) & np.uint64(1)
    magnitude = (bits & ((np.uint64(1) << (width - np.uint64(1))) - np.uint64(1))).astype(np.int64)
    return np.where(sign == 1, -magnitude, magnitude)


def ulp_distance(got: np.ndarray, want: np.ndarray, et: PrimitiveType) -> np.ndarray:
    """ULPs between results of a float type (0 where both are NaN; huge where one is)."""
    with np.errstate(all="ignore"):
        g, w = got.astype(np.float64), want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    one_nan = np.isnan(g) != np.isnan(w)
    distance = np.abs(ordinal(got, et) - ordinal(want, et)).astype(np.float64)
    distance = np.where(both_nan, 0.0, distance)
    return np.where(one_nan, np.inf, distance)


def is_nan(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.isnan(x.astype(np.float64))


def compare(
    got: np.ndarray, want: np.ndarray, out: PrimitiveType, *, ulps: float = 0, bits: bool = False
) -> list[int]:
    """Indices where ``got`` and ``want`` disagree: bit for bit, except that any NaN
    equals any NaN unless ``bits``, and floats may differ by ``ulps``."""
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    if out.is_float and not bits:
        return np.flatnonzero(ulp_distance(got, want, out) > ulps).tolist()
    return np.flatnonzero(unsigned(got) != unsigned(want)).tolist()


def check(
    opcode: str,
    *args: np.ndarray,
    out: PrimitiveType | None = None,
    attrs: str = "",
    ulps: float = 0,
    bits: bool = False,
    context: str = "",
) -> np.ndarray:
    """Run ``opcode`` natively and on the interpreter and insist that they agree; returns
    the native result."""
    args = [np.ascontiguousarray(np.asarray(a)).reshape(-1) for a in args]
    in_types = tuple(P.from_dtype(a.dtype) for a in args)
    out = out or in_types[0]
    kernel = native(opcode, in_types, out, attrs)
    with np.errstate(all="ignore"):
        want = interpreter(opcode, args, out, attrs)
    got = kernel(*args)
    bad = compare(got, want, out, ulps=ulps, bits=bits)
    if bad:
        shown = [
            (
                tuple(a[i] for a in args),
                got[i],
                want[i],
                tuple(hex(int(unsigned(a)[i])) for a in args),
            )
            for i in bad[:6]
        ]
        raise AssertionError(
            f"{opcode}{attrs} {[t.hlo_name for t in in_types]} -> {out.hlo_name} {context}: "
            f"{len(bad)} of {got.size} differ (args, native, interpreter, arg bits): {shown}"
        )
    for size in SIZES:
        if size <= got.size:
            part = kernel(*(a[:size] for a in args))
            assert unsigned(part).tolist() == unsigned(got[:size]).tolist(), (opcode, size)
    return got


# -- compare: six directions in one kernel ------------------------------------------------

DIRECTIONS = ["EQ", "NE", "LT", "LE", "GT", "GE"]


def packed_compare(et: PrimitiveType, kind: str | None) -> Emit:
    """One kernel for all six directions: bit k of a u8 is ``DIRECTIONS[k]``'s result."""

    def emit(b, values):
        bits = ir.Constant(I8, 0)
        for k, direction in enumerate(DIRECTIONS):
            result = emit_compare(b, direction, values[0], values[1], et, kind)
            bits = b.or_(bits, b.shl(result, ir.Constant(I8, k)))
        return bits

    return emit


def check_compare(et: PrimitiveType, kind: str | None, x: np.ndarray, y: np.ndarray) -> None:
    """All six directions of ``emit_compare`` in one kernel against the interpreter."""
    key = ("packed compare", et, kind)
    compile_kernels({key: (packed_compare(et, kind), (et, et), P.U8)})
    got = kernel(key)(x, y)
    for k, direction in enumerate(DIRECTIONS):
        attrs = f", direction={direction}" + (f", type={kind}" if kind else "")
        want = interpreter("compare", [x, y], P.PRED, attrs).astype(np.uint8)
        bad = np.flatnonzero((got >> k) & 1 != want)
        assert not bad.size, (et, direction, kind, x[bad[:5]], y[bad[:5]])


# -- values -------------------------------------------------------------------------------


def int_edges(et: PrimitiveType) -> np.ndarray:
    """0, +-1, small values, the extremes and their neighbours, shift amounts around the
    width, of an integer type (pred: 0 and 1)."""
    if et.is_pred:
        return np.array([False, True])
    info = ml_dtypes.iinfo(et.dtype)
    lo, hi = int(info.min), int(info.max)
    values = {0, 1, 2, 3, 5, 7, 100, -1, -2, -3, -7, -100, lo, hi, lo + 1, hi - 1, lo // 2}
    values |= {et.bit_width - 1, et.bit_width, et.bit_width + 1, 63, 64, 65, hi // 3}
    return np.array(sorted(v for v in values if lo <= v <= hi), dtype=object).astype(et.dtype)


def random_ints(et: PrimitiveType, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if et.is_pred:
        return rng.integers(0, 2, n).astype(bool)
    info = ml_dtypes.iinfo(et.dtype)
    if et.bit_width == 64:
        raw = rng.integers(0, 2**64, n, dtype=np.uint64)
        return raw.view(et.dtype)
    return rng.integers(int(info.min), int(info.max) + 1, n).astype(et.dtype)


def all_codes(et: PrimitiveType) -> np.ndarray:
    """Every value of a type of at most 16 bits, NaNs with every payload included."""
    width = et.bit_width
    if width < 8:
        return np.arange(1 << width, dtype=np.uint8).view(et.dtype)
    return np.arange(1 << width, dtype=f"u{width // 8}").view(et.dtype)


def float_edges(et: PrimitiveType) -> np.ndarray:
    """Zeros, infinities, NaNs with payloads, extremes, denormals, halves and ties, huge and
    tiny values of a float type (for types of at most 16 bits: every code)."""
    if et.bit_width <= 16:
        return all_codes(et)
    info = np.finfo(et.dtype)
    values = [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 0.1, -7.25]
    values += [float(info.max), -float(info.max), float(info.tiny), -float(info.tiny)]
    values += [float(info.smallest_subnormal), -float(info.smallest_subnormal), 1e30, -1e30]
    values += [1e-30, 123.456, 2.0**31, 2.0**63, -(2.0**63), 2.0**64, 4.5, -0.49999997]
    values += [65504.0, 65520.0, 65519.99, 448.0, 464.0, 57344.0, 2.0**-24, 3 * 2.0**-26]
    values += [1.0 + 2.0**-8, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-9, 2.0**-127, 3 * 2.0**-128]
    x = np.array(values, np.float64).astype(et.dtype)
    width = et.bit_width
    ut = f"u{width // 8}"
    exponent_ones = (np.iinfo(ut).max >> 1) ^ ((1 << (np.finfo(et.dtype).nmant)) - 1)
    top = 1 << (width - 1)
    nans = [
        exponent_ones | 1,
        exponent_ones | (1 << (np.finfo(et.dtype).nmant - 1)),
        top | exponent_ones | 5,
    ]
    nans.append(top | exponent_ones | (1 << (np.finfo(et.dtype).nmant - 1)) | 3)
    nan_values = np.array(nans, dtype=ut).view(et.dtype)
    with np.errstate(all="ignore"):
        above = np.nextafter(x, np.inf).astype(et.dtype)
    return np.concatenate([x, nan_values, above])


def random_floats(et: PrimitiveType, n: int, seed: int = 0) -> np.ndarray:
    """Random bit patterns (every exponent equally likely) and random ordinary values."""
    rng = np.random.default_rng(seed)
    width = max(8, et.bit_width)
    if width <= 16:
        return all_codes(et)[rng.integers(0, 1 << et.bit_width, n)]
    raw = rng.integers(0, 2**width, n // 2, dtype=np.uint64).astype(f"u{width // 8}")
    ordinary = rng.standard_normal(n - n // 2) * 10.0 ** rng.integers(-3, 4, n - n // 2)
    return np.concatenate([raw.view(et.dtype), ordinary.astype(et.dtype)])


def pairs(x: np.ndarray, y: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of the values of ``x`` (and ``y``)."""
    a, b = np.meshgrid(x, x if y is None else y, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()
