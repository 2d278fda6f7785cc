"""fft along the last axis of lengths whose prime factors are 2, 3, 5 and 7: a
mixed-radix Stockham FFT, vectorized across rows.

Why this form: every row of a batch goes through the same butterflies with the same
twiddles, so a group of ``LANES`` rows runs as one: lane r of every vector holds row r,
with the real and imaginary parts in separate vectors, and the arithmetic is plain
vector FMAs with no shuffles. The Stockham ("autosort") formulation writes each stage
into the other of two buffers in an order that leaves the result in natural order, so
there is no digit-reversal pass: a stage of radix r, length L and stride s reads
elements ``q + s (p + j L/r)`` and writes ``q + s (r p + k)``, multiplied by the
twiddle ``w^(k p)`` of length L. Radix 4 is the main butterfly (no multiplications
inside), with one radix 2 for odd powers of two; 3, 5 and 7 are direct DFTs that pair
j with r - j. A group's two buffers (``2 n LANES`` complex values) live on the running
thread's stack, in cache; the rows are copied in and out through AVX shuffles (an
8 x 8 transpose of a chunk of each row), so the data crosses memory once each way.
Rows past the end of the batch repeat the last row: their lanes compute the same values
and store the same bits to it, so the last group needs no special case. Groups of rows
are spread over the cores. A transform over several trailing dimensions is one pass per
axis; along an axis other than the last, a group is 8 (or 4) adjacent columns, whose
elements sit side by side in memory (one load and a deinterleave per element), and the
passes after the first work in place in the result. A length above ``MAX_LENGTH`` is
two passes through a buffer in the arena (``split_length``). The pass along the last
axis of a length up to ``MAX_LENGTH``, the common case, is not emitted here but called
in xlapy's runtime library (``linalg_fft_library``), which builds it from this module's
pieces with the length read at run time; the other passes are emitted inline.

The ``FftExpander`` leaves one-dimensional complex FFTs of these lengths to this
emitter (``supports_native_fft``) and builds every other form from them: other axes,
several dimensions, real transforms, the factors of a longer length, Bluestein's
convolutions. IFFT scales by 1/n on the way out. Twiddles come from ``unit_roots``
(exact at multiples of pi/4), rounded once to the element type.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING

import numpy as np
from llvmlite import ir

from ....passes import unit_roots
from ....types import PrimitiveType
from ....xla_data import FftType
from ..ir_support import for_range, i64
from .loops import PARALLEL_MIN_ELEMENTS, Kernel

if TYPE_CHECKING:
    from ..codegen import FunctionEmitter

P = PrimitiveType

# Rows per group: one 256-bit vector of parts (AVX2; AVX-512 would take twice as many).
LANES = {P.C64: 8, P.C128: 4}
# The longest native length: a group's two buffers take 128 n bytes of stack (512 KiB).
MAX_LENGTH = 1 << 12
_CONTRACT = ("contract",)
Size = int | ir.Value  # a length, count or stride: known when emitted, or read at run time


def _value(x: Size) -> ir.Value:
    return i64(x) if isinstance(x, int) else x


def _mul(b: ir.IRBuilder, x: Size, y: Size) -> Size:
    """x * y, folded when both are known (the inline FFT's IR stays as small as before)."""
    if isinstance(x, int) and isinstance(y, int):
        return x * y
    if isinstance(y, int) and y in (0, 1):
        return y if y == 0 else x
    return b.mul(_value(x), _value(y))


def _add(b: ir.IRBuilder, x: Size, y: Size) -> ir.Value:
    if isinstance(y, int) and y == 0:
        return _value(x)
    return b.add(_value(x), _value(y))


def radices(n: int) -> list[int] | None:
    """The stages' radices for length n (4s first, then a 2, then 3s, 5s and 7s), or
    None when n has a prime factor above 7."""
    if n < 1:
        return None
    factors = []
    for r in (4, 2, 3, 5, 7):
        while n % r == 0:
            factors.append(r)
            n //= r
    return factors if n == 1 else None


def split_length(n: int, lanes: int) -> tuple[int, int] | None:
    """n = t * m for a length above ``MAX_LENGTH``, both native and multiples of
    ``lanes``, as near each other as they come; None if there is no such pair. The
    transform is then two passes (a "four-step" FFT): the DFTs of length t down the
    columns of each row seen as a [t, m] block, times the twiddles exp(s 2 pi i j k / n),
    then the DFTs of length m along its rows, written transposed."""
    best = None
    for t in range(lanes, MAX_LENGTH + 1, lanes):
        m = n // t
        if n % t or m > MAX_LENGTH or m % lanes or radices(t) is None or radices(m) is None:
            continue
        if best is None or abs(t - m) < abs(best[0] - best[1]):
            best = (t, m)
    return best


def _native_length(n: int, element_type: PrimitiveType, alone: bool) -> bool:
    if n <= MAX_LENGTH:
        return radices(n) is not None
    return alone and split_length(n, LANES[element_type]) is not None


def supports_native_fft(kind: FftType, lengths: list[int], element_type: PrimitiveType) -> bool:
    """Whether this backend runs the fft itself: complex to complex over 1-3 dimensions,
    each of a length up to ``MAX_LENGTH`` whose prime factors are 2, 3, 5 and 7, or one
    longer dimension that ``split_length`` splits."""
    return (
        kind in (FftType.FFT, FftType.IFFT)
        and element_type in LANES
        and 1 <= len(lengths) <= 3
        and all(_native_length(n, element_type, len(lengths) == 1) for n in lengths)
    )


def fft_stages(n: int) -> list[tuple[int, int, int]]:
    """(radix, length, stride) per stage."""
    stages, length, stride = [], n, 1
    for radix in radices(n) or ():
        stages.append((radix, length, stride))
        length, stride = length // radix, stride * radix
    return stages


# A square transpose of LANES vectors of LANES parts in shuffles that map onto AVX's
# in-lane unpacks, in-lane shuffles and 128-bit permutes: per step, the two sources and
# the mask of each result.
_TRANSPOSE_STEPS = {
    8: [
        ([(0, 1), (0, 1), (2, 3), (2, 3), (4, 5), (4, 5), (6, 7), (6, 7)],
         [[0, 8, 1, 9, 4, 12, 5, 13], [2, 10, 3, 11, 6, 14, 7, 15]] * 4),
        ([(0, 2), (0, 2), (1, 3), (1, 3), (4, 6), (4, 6), (5, 7), (5, 7)],
         [[0, 1, 8, 9, 4, 5, 12, 13], [2, 3, 10, 11, 6, 7, 14, 15]] * 4),
        ([(0, 4), (1, 5), (2, 6), (3, 7), (0, 4), (1, 5), (2, 6), (3, 7)],
         [[0, 1, 2, 3, 8, 9, 10, 11]] * 4 + [[4, 5, 6, 7, 12, 13, 14, 15]] * 4),
    ],
    4: [
        ([(0, 1), (0, 1), (2, 3), (2, 3)], [[0, 4, 2, 6], [1, 5, 3, 7]] * 2),
        ([(0, 2), (1, 3), (0, 2), (1, 3)], [[0, 1, 4, 5]] * 2 + [[2, 3, 6, 7]] * 2),
    ],
}  # fmt: skip


def _transpose(b: ir.IRBuilder, vectors: list[ir.Value]) -> list[ir.Value]:
    """Vector i's element j becomes vector j's element i (``len(vectors)`` lanes)."""
    i32 = ir.IntType(32)
    for pairs, masks in _TRANSPOSE_STEPS[len(vectors)]:
        vectors = [
            b.shuffle_vector(
                vectors[x], vectors[y], ir.Constant(ir.VectorType(i32, len(mask)), mask)
            )
            for (x, y), mask in zip(pairs, masks, strict=True)
        ]
    return vectors


class Scratch:
    """One stack buffer of the group: element j is a vector of real parts then one of
    imaginary parts."""

    def __init__(self, b: ir.IRBuilder, base: ir.Value, vector: ir.VectorType):
        self.b = b
        self.base = b.bitcast(base, vector.as_pointer())

    def load(self, index: ir.Value) -> tuple[ir.Value, ir.Value]:
        b = self.b
        at = b.gep(self.base, [b.mul(index, i64(2))])
        return b.load(at, align=32), b.load(b.gep(at, [i64(1)]), align=32)

    def store(self, index: ir.Value, re: ir.Value, im: ir.Value) -> None:
        b = self.b
        at = b.gep(self.base, [b.mul(index, i64(2))])
        b.store(re, at, align=32)
        b.store(im, b.gep(at, [i64(1)]), align=32)


def _times(b: ir.IRBuilder, x: tuple, w: tuple) -> tuple:
    """x * w on (re, im) vectors, as FMAs."""
    re = b.fsub(
        b.fmul(x[0], w[0], flags=_CONTRACT),
        b.fmul(x[1], w[1], flags=_CONTRACT),
        flags=_CONTRACT,
    )
    im = b.fadd(
        b.fmul(x[0], w[1], flags=_CONTRACT),
        b.fmul(x[1], w[0], flags=_CONTRACT),
        flags=_CONTRACT,
    )
    return re, im


class Stage:
    """Emits one stage's butterflies on vectors of parts."""

    def __init__(self, b: ir.IRBuilder, vector: ir.VectorType, sign: int):
        self.b = b
        self.vector = vector
        self.sign = sign

    def splat(self, value: ir.Value) -> ir.Value:
        b = self.b
        one = b.insert_element(ir.Constant(self.vector, ir.Undefined), value, i64(0))
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), self.vector.count), None)
        return b.shuffle_vector(one, ir.Constant(self.vector, ir.Undefined), zeros)

    def add(self, x: tuple, y: tuple) -> tuple:
        return self.b.fadd(x[0], y[0]), self.b.fadd(x[1], y[1])

    def sub(self, x: tuple, y: tuple) -> tuple:
        return self.b.fsub(x[0], y[0]), self.b.fsub(x[1], y[1])

    def times_i(self, x: tuple) -> tuple:
        """sign * i * x."""
        b = self.b
        return (b.fneg(x[1]), x[0]) if self.sign > 0 else (x[1], b.fneg(x[0]))

    def times(self, x: tuple, w: tuple) -> tuple:
        return _times(self.b, x, w)


def stage_twiddles(radix: int, length: int, sign: int, dtype: np.dtype) -> np.ndarray:
    """[p, (w^p re, w^p im, w^2p re, ..., w^((radix-1) p) im)] for p < length / radix,
    w = exp(sign 2 pi i / length)."""
    p = np.arange(length // radix, dtype=np.int64)
    roots = [unit_roots(sign * k * p, length) for k in range(1, radix)]
    return np.stack([part for w in roots for part in (w.real, w.imag)], axis=1).astype(dtype)


def _table(
    module: ir.Module, radix: int, length: int, sign: int, part_type: PrimitiveType, part: ir.Type
) -> ir.Constant:
    """A stage's twiddles (``stage_twiddles``) as a constant, one per module and stage kind, seen
    as a ``[count x part]*``. Stored as bytes: llvmlite renders (and LLVM parses) a byte
    string several times faster than the same table written float by float, which made
    most of an FFT's IR text and a fifth of its compile."""
    name = (
        f"xlapy_fft_twiddles.{part_type.hlo_name}.r{radix}.n{length}.{'inv' if sign > 0 else 'fwd'}"
    )
    table = module.globals.get(name)
    if table is None:
        data = np.ascontiguousarray(stage_twiddles(radix, length, sign, part_type.dtype)).tobytes()
        raw = ir.ArrayType(ir.IntType(8), len(data))
        table = ir.GlobalVariable(module, raw, name)
        table.initializer = ir.Constant(raw, bytearray(data))
        table.global_constant = True
        table.linkage = "internal"
        table.align = 64
    count = table.value_type.count // (part_type.dtype.itemsize)
    return table.bitcast(ir.ArrayType(part, count).as_pointer())


def _butterfly4(stage: Stage, x: list[tuple]) -> list[tuple]:
    apc, amc = stage.add(x[0], x[2]), stage.sub(x[0], x[2])
    bpd, jbmd = stage.add(x[1], x[3]), stage.times_i(stage.sub(x[1], x[3]))
    return [stage.add(apc, bpd), stage.add(amc, jbmd), stage.sub(apc, bpd), stage.sub(amc, jbmd)]


def _butterfly2(stage: Stage, x: list[tuple]) -> list[tuple]:
    return [stage.add(x[0], x[1]), stage.sub(x[0], x[1])]


def _butterfly_odd(stage: Stage, x: list[tuple]) -> list[tuple]:
    """The DFT of an odd number r of values, pairing j with r - j: with a_j = x_j +
    x_(r-j) and d_j = x_j - x_(r-j), y_k = x_0 + sum_j cos(2 pi j k / r) a_j + sign i
    sum_j sin(2 pi j k / r) d_j, and y_(r-k) the same with the sine sum negated."""
    b, r = stage.b, len(x)
    half = r // 2
    a = [stage.add(x[j], x[r - j]) for j in range(1, half + 1)]
    d = [stage.sub(x[j], x[r - j]) for j in range(1, half + 1)]
    y: list[tuple | None] = [None] * r
    total = x[0]
    for term in a:
        total = stage.add(total, term)
    y[0] = total
    for k in range(1, half + 1):
        re, im = x[0]
        sre = sim = None
        for j in range(1, half + 1):
            angle = 2 * math.pi * ((j * k) % r) / r
            cos = ir.Constant(stage.vector, [math.cos(angle)] * stage.vector.count)
            sin = ir.Constant(stage.vector, [math.sin(angle)] * stage.vector.count)
            re = b.fadd(re, b.fmul(a[j - 1][0], cos, flags=_CONTRACT), flags=_CONTRACT)
            im = b.fadd(im, b.fmul(a[j - 1][1], cos, flags=_CONTRACT), flags=_CONTRACT)
            tre, tim = b.fmul(d[j - 1][0], sin), b.fmul(d[j - 1][1], sin)
            sre = tre if sre is None else b.fadd(sre, tre)
            sim = tim if sim is None else b.fadd(sim, tim)
        turned = stage.times_i((sre, sim))
        y[k] = stage.add((re, im), turned)
        y[r - k] = stage.sub((re, im), turned)
    return y  # type: ignore[return-value]


_BUTTERFLIES = {
    2: _butterfly2,
    4: _butterfly4,
    3: _butterfly_odd,
    5: _butterfly_odd,
    7: _butterfly_odd,
}


def emit_stage(
    stage: Stage, source, target, radix: int, m: Size, stride: Size, table, row0=None
) -> None:  # noqa: ANN001
    """One Stockham stage: y[q + s (r p + k)] = w^(k p) * DFT_r(x[q + s (p + j m)])_k for
    p < m = length / r and q < s (the stride). ``m`` and ``stride`` are known here or, in
    the FFT library's stage loop (``linalg_fft_library``), run-time values. Without
    ``table`` the stage has no twiddles (m = 1); with it, p's are row ``row0 + p``."""
    b = stage.b
    butterfly = _BUTTERFLIES[radix]
    width = 2 * (radix - 1)
    known = isinstance(m, int) and isinstance(stride, int)
    with for_range(b, 0, _value(m), "p", vectorize=known) as p:
        if table is not None:
            row = b.gep(table, [i64(0), b.mul(p if row0 is None else b.add(row0, p), i64(width))])
            w = [stage.splat(b.load(b.gep(row, [i64(k)]))) for k in range(width)]
        with for_range(b, 0, _value(stride), "q", vectorize=known) as q:
            at = b.add(q, b.mul(p, _value(stride)))
            span = _mul(b, m, stride)
            x = [source.load(_add(b, at, _mul(b, span, j))) for j in range(radix)]
            y = butterfly(stage, x)
            if table is not None:
                y = [y[0]] + [
                    stage.times(y[k], (w[2 * k - 2], w[2 * k - 1])) for k in range(1, radix)
                ]
            out = b.add(q, b.mul(p, _value(_mul(b, stride, radix))))
            for k in range(radix):
                target.store(_add(b, out, _mul(b, stride, k)), *y[k])


def row_pointers(
    b: ir.IRBuilder, base: ir.Value, first: ir.Value, rows: Size, n: Size, lanes: int
) -> list[ir.Value]:
    """The group's rows (past the batch's end, its last row again)."""
    last = i64(rows - 1) if isinstance(rows, int) else b.sub(rows, i64(1))
    pointers = []
    for r in range(lanes):
        row = b.add(first, i64(r))
        row = b.select(b.icmp_unsigned("<", row, last), row, last)
        pointers.append(b.gep(base, [b.mul(row, _value(_mul(b, n, 2)))]))
    return pointers


def _tail(b: ir.IRBuilder, n: Size, chunk: int):  # noqa: ANN202
    """The elements past the last whole chunk: a Python range when n is known, else a
    run-time loop (a context manager either way, yielding each index)."""
    if isinstance(n, int):
        return contextlib.nullcontext([i64(e) for e in range(n - n % chunk, n)])
    start = b.mul(b.udiv(n, i64(chunk)), i64(chunk))
    return _listed(for_range(b, start, n, "tail", vectorize=False))


@contextlib.contextmanager
def _listed(loop):  # noqa: ANN001, ANN202
    with loop as index:
        yield [index]


def rows_to_scratch(b: ir.IRBuilder, rows: list[ir.Value], target: Scratch, n: int) -> None:
    """Each row's chunks of ``lanes / 2`` values, transposed into the scratch layout."""
    lanes = len(rows)
    vector = ir.VectorType(rows[0].type.pointee, lanes)
    chunk = lanes // 2
    whole = n // chunk if isinstance(n, int) else b.udiv(n, i64(chunk))
    with for_range(b, 0, _value(whole), "chunk") as c:
        offset = b.mul(c, i64(lanes))  # parts
        loaded = [b.load(b.bitcast(b.gep(r, [offset]), vector.as_pointer()), align=8) for r in rows]
        columns = _transpose(b, loaded)
        element = b.mul(c, i64(chunk))
        for e in range(chunk):
            target.store(b.add(element, i64(e)), columns[2 * e], columns[2 * e + 1])
    with _tail(b, n, chunk) as tail:  # the last values of a length chunks do not divide
        for e in tail:
            parts = [ir.Constant(vector, ir.Undefined)] * 2
            for lane, row in enumerate(rows):
                for k in range(2):
                    value = b.load(b.gep(row, [_add(b, b.mul(e, i64(2)), k)]))
                    parts[k] = b.insert_element(parts[k], value, i64(lane))
            target.store(e, *parts)


def scratch_to_rows(
    b: ir.IRBuilder, source: Scratch, rows: list[ir.Value], n: Size, scale: float | ir.Value
) -> None:
    """The inverse of ``rows_to_scratch``, times ``scale`` (a vector when read at run
    time)."""
    lanes = len(rows)
    vector = ir.VectorType(rows[0].type.pointee, lanes)
    chunk = lanes // 2
    scaled = not isinstance(scale, float) or scale != 1.0
    factor = ir.Constant(vector, [scale] * lanes) if isinstance(scale, float) else scale
    whole = n // chunk if isinstance(n, int) else b.udiv(n, i64(chunk))
    with for_range(b, 0, _value(whole), "chunk") as c:
        element = b.mul(c, i64(chunk))
        columns = []
        for e in range(chunk):
            columns.extend(source.load(b.add(element, i64(e))))
        if scaled:
            columns = [b.fmul(v, factor) for v in columns]
        offset = b.mul(c, i64(lanes))
        for r, v in zip(rows, _transpose(b, columns), strict=True):
            b.store(v, b.bitcast(b.gep(r, [offset]), vector.as_pointer()), align=8)
    with _tail(b, n, chunk) as tail:
        for e in tail:
            parts = source.load(e)
            if scaled:
                parts = tuple(b.fmul(v, factor) for v in parts)
            for lane, row in enumerate(rows):
                for k in range(2):
                    at = b.gep(row, [_add(b, b.mul(e, i64(2)), k)])
                    b.store(b.extract_element(parts[k], i64(lane)), at)


def _columns_to_scratch(
    b: ir.IRBuilder, columns: list[ir.Value], contiguous: bool, target: Scratch, n: int, step: int
) -> None:
    """Element j of each of the group's columns (``columns``: lane pointers to element
    0; element j is ``step`` complex values further), into the scratch layout: one
    vector load and a deinterleave when the lanes are adjacent, else lane by lane."""
    lanes = len(columns)
    part = columns[0].type.pointee
    vector = ir.VectorType(part, lanes)
    pair = ir.VectorType(part, 2 * lanes)
    i32 = ir.IntType(32)
    with for_range(b, 0, n, "element") as j:
        offset = b.mul(j, i64(2 * step))
        if contiguous:
            both = b.load(b.bitcast(b.gep(columns[0], [offset]), pair.as_pointer()), align=8)
            parts = [
                b.shuffle_vector(
                    both, ir.Constant(pair, ir.Undefined),
                    ir.Constant(ir.VectorType(i32, lanes), list(range(k, 2 * lanes, 2))),
                )
                for k in range(2)
            ]  # fmt: skip
        else:
            parts = [ir.Constant(vector, ir.Undefined)] * 2
            for lane, column in enumerate(columns):
                at = b.gep(column, [offset])
                for k in range(2):
                    value = b.load(b.gep(at, [i64(k)]))
                    parts[k] = b.insert_element(parts[k], value, i64(lane))
        target.store(j, *parts)


def _scratch_to_columns(
    b: ir.IRBuilder,
    source: Scratch,
    columns: list[ir.Value],
    contiguous: bool,
    n: int,
    step: int,
    scale: float,
    twiddles: tuple[ir.Value, ir.Value] | None = None,
) -> None:
    """The inverse of ``_columns_to_scratch``, times ``scale``, and element j times the
    twiddles of its columns (``twiddles``: pointers to the real and imaginary parts of
    the group's first column in a table laid out like the block) if given."""
    lanes = len(columns)
    part = columns[0].type.pointee
    vector = ir.VectorType(part, lanes)
    pair = ir.VectorType(part, 2 * lanes)
    factor = ir.Constant(vector, [scale] * lanes)
    interleave = [v for lane in range(lanes) for v in (lane, lanes + lane)]
    with for_range(b, 0, n, "element") as j:
        parts = source.load(j)
        if scale != 1.0:
            parts = tuple(b.fmul(v, factor) for v in parts)
        if twiddles is not None:
            at = b.mul(j, i64(step))
            w = [b.load(b.bitcast(b.gep(t, [at]), vector.as_pointer()), align=4) for t in twiddles]
            parts = _times(b, parts, tuple(w))
        offset = b.mul(j, i64(2 * step))
        if contiguous:
            mask = ir.Constant(ir.VectorType(ir.IntType(32), 2 * lanes), interleave)
            both = b.shuffle_vector(parts[0], parts[1], mask)
            b.store(both, b.bitcast(b.gep(columns[0], [offset]), pair.as_pointer()), align=8)
        else:
            for lane, column in enumerate(columns):
                at = b.gep(column, [offset])
                for k in range(2):
                    b.store(b.extract_element(parts[k], i64(lane)), b.gep(at, [i64(k)]))


def emit_pass(
    fe: FunctionEmitter,
    name: str,
    pointers: list[ir.Value],
    dims: list[int],
    axis: int,
    sign: int,
    et: PrimitiveType,
    twiddles: np.ndarray | None = None,
    transposed: int | None = None,
) -> None:
    """One kernel: the DFT along ``axis`` of a row-major array, from the first pointer's
    buffer to the second's (which may be the same: a group reads all it transforms
    before it writes). Along the last axis a group is ``LANES`` rows; along another,
    ``LANES`` adjacent columns of one block [n, inner].

    For the two passes of a long length (``split_length``): along another axis,
    ``twiddles`` ([n, inner] complex) multiply the results; along the last, with
    ``transposed`` = t, the rows are blocks of t rows and each block's [t, n] result is
    written transposed, as [n, t]."""
    n, lanes = dims[axis], LANES[et]
    outer, inner = math.prod(dims[:axis]), math.prod(dims[axis + 1 :])
    part_type = et.component_type
    part = ir.FloatType() if part_type is P.F32 else ir.DoubleType()
    vector = ir.VectorType(part, lanes)
    stages = fft_stages(n)
    kernel = Kernel(fe, name, 2, aliased=range(2))
    b = kernel.b
    block = b.alloca(ir.ArrayType(part, 2 * n * 2 * lanes))
    block.align = 64
    base = b.bitcast(block, part.as_pointer())
    scratch = [Scratch(b, b.gep(base, [i64(k * 2 * n * lanes)]), vector) for k in range(2)]
    source_base, target_base = (b.bitcast(p, part.as_pointer()) for p in kernel.buffers)
    tables = [
        _table(fe.m.ir, radix, length, sign, part_type, part) if length > radix else None
        for radix, length, _ in stages
    ]
    scale = 1.0 / n if sign > 0 else 1.0
    per_block = -(-inner // lanes)
    contiguous = inner % lanes == 0
    with for_range(b, kernel.start, kernel.stop, "group") as group:
        if inner == 1:
            first = b.mul(group, i64(lanes))
            inputs = row_pointers(b, source_base, first, outer, n, lanes)
            rows_to_scratch(b, inputs, scratch[0], n)
        else:
            block_start = b.mul(b.udiv(group, i64(per_block)), i64(n * inner))
            first = b.mul(b.urem(group, i64(per_block)), i64(lanes))
            last = i64(inner - 1)
            offsets = []
            for lane in range(lanes):
                column = b.add(first, i64(lane))
                column = b.select(b.icmp_unsigned("<", column, last), column, last)
                offsets.append(b.mul(b.add(block_start, column), i64(2)))
            inputs = [b.gep(source_base, [o]) for o in offsets]
            _columns_to_scratch(b, inputs, contiguous, scratch[0], n, inner)
        for k, (radix, length, stride) in enumerate(stages):
            stage = Stage(b, vector, sign)
            source, target = scratch[k % 2], scratch[(k + 1) % 2]
            emit_stage(stage, source, target, radix, length // radix, stride, tables[k])
        result = scratch[len(stages) % 2]
        if inner == 1 and transposed is None:
            outputs = row_pointers(b, target_base, first, outer, n, lanes)
            scratch_to_rows(b, result, outputs, n, scale)
        elif inner == 1:  # the group's rows are adjacent columns of a block [n, t]
            block_start = b.mul(b.udiv(first, i64(transposed)), i64(n * transposed))
            column = b.add(block_start, b.urem(first, i64(transposed)))
            outputs = [b.gep(target_base, [b.mul(b.add(column, i64(lane)), i64(2))])
                       for lane in range(lanes)]  # fmt: skip
            _scratch_to_columns(b, result, outputs, True, n, transposed, scale)
        else:
            outputs = [b.gep(target_base, [o]) for o in offsets]
            table = None
            if twiddles is not None:
                start = b.udiv(offsets[0], i64(2))
                start = b.urem(start, i64(n * inner))  # the first column's index in its block
                table = tuple(
                    b.gep(b.bitcast(fe.m.constant_pointer(b, np.ascontiguousarray(t, part_type.dtype)), part.as_pointer()), [start])
                    for t in (twiddles.real, twiddles.imag)
                )  # fmt: skip
            _scratch_to_columns(b, result, outputs, contiguous, n, inner, scale, table)
    kernel.finish()
    groups = -(-outer // lanes) if inner == 1 else outer * per_block
    parallel = (
        groups >= 2 and outer * inner * n * max(1, n.bit_length() - 1) >= PARALLEL_MIN_ELEMENTS
    )
    fe.call_kernel(kernel.function, pointers, groups, parallel)


__all__ = [
    "LANES",
    "MAX_LENGTH",
    "Scratch",
    "Stage",
    "emit_pass",
    "emit_stage",
    "fft_stages",
    "radices",
    "row_pointers",
    "rows_to_scratch",
    "scratch_to_rows",
    "split_length",
    "stage_twiddles",
    "supports_native_fft",
]
