"""``FftExpander``: fft (all four kinds, over 1-3 trailing dimensions) as complex dots with
constant DFT matrices, twiddle products and transposes: a mixed-radix Cooley-Tukey FFT
written in HLO, so that a backend with complex dots (BLAS' cgemm/zgemm) and elementwise
complex code runs it natively.

Why this form: a DFT of length n = n1 * n2 is n2 DFTs of length n1 (stride n2), a
pointwise product with the twiddles exp(-2 pi i j2 k1 / n), and n1 DFTs of length n2
(the "four-step" FFT). Each short DFT is one GEMM of every row against an n x n
matrix, which BLAS runs near peak; splitting recursively until the lengths are short
gives O(n (n1 + n2 + ...)) work: 4096 points cost 4096 * (8 + 8 + 64) multiply-adds per
row instead of 4096 * 4096. Primes up to 128 are one direct DFT; longer ones (and
lengths with such a prime factor) use Bluestein's algorithm: a convolution of
power-of-two length through two FFTs, O(n log n) with a larger constant.

A backend with FFTs of its own (the CPU's, for 7-smooth lengths) passes ``native``:
the ffts it takes stay, and the expansion builds the others from them, with the dots
left only for the factors it does not take.

The kinds: IFFT conjugates the twiddles and scales by 1/N (XLA normalizes it, as
numpy's ``ifftn``); RFFT is the complex FFT of the real operand, keeping n // 2 + 1
outputs on the last axis; IRFFT inverts the leading axes, rebuilds the Hermitian
spectrum of the last one (X[n - k] = conj X[k]) and keeps the real part, which ignores
the imaginary parts of X[0] and X[n / 2] as numpy's ``irfftn`` does. Results match the
interpreter (numpy's pocketfft) to rounding: twiddles are exact to the last bit of their
type (angles reduced mod n in f64), and each output sums n products.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from ...hlo.instruction import HloInstruction
from ...hlo.typed_attributes import int_tuple
from ...layout import Layout
from ...literal import Literal
from ...opcode import HloOpcode
from ...shape import Shape
from ...types import PrimitiveType
from ...xla_data import FftType
from ..rewrite import ExpanderPass

Op = HloOpcode
P = PrimitiveType

# Lengths up to this run as one direct DFT (a GEMM against an n x n matrix), and prime
# lengths up to the second; longer primes go through Bluestein's convolution.
DIRECT_MAX = 32
PRIME_DIRECT_MAX = 128


def split(n: int) -> tuple[int, int] | None:
    """n = n1 * n2 with n1 the largest factor <= sqrt(n); None for primes and short n."""
    if n <= DIRECT_MAX:
        return None
    for n1 in range(math.isqrt(n), 1, -1):
        if n % n1 == 0:
            return n1, n // n1
    return None


def unit_roots(m: np.ndarray, n: int) -> np.ndarray:
    """exp(2 pi i m / n) for integers m, exact at the multiples of pi/4 (so a transform
    of exactly representable data has exact zeros where numpy's has) and symmetric:
    each angle is a quarter turn plus or minus one within the first octant, where cos
    and sin are most accurate."""
    octant, rest = np.divmod(8 * (m % n), n)  # angle = (pi/4) (octant + rest / n)
    odd = octant % 2 == 1
    # even octant: quarter + phi; odd: the next quarter - phi; phi in [0, pi/4]
    phi = np.where(odd, n - rest, rest) * (np.pi / (4 * n))
    exact = odd & (rest == 0)  # an odd multiple of pi/4
    x = np.where(exact, np.sqrt(0.5), np.cos(phi))
    y = np.where(exact, np.sqrt(0.5), np.sin(phi)) * np.where(odd, -1.0, 1.0)
    quarter = ((octant + 1) // 2) % 4
    re = np.choose(quarter, [x, -y, -x, y])
    im = np.choose(quarter, [y, x, -y, -x])
    return re + 1j * im


def _roots(rows: int, cols: int, n: int, sign: int) -> np.ndarray:
    """exp(sign * 2 pi i * j * k / n) for j < rows, k < cols."""
    j = np.arange(rows, dtype=np.int64)[:, None]
    k = np.arange(cols, dtype=np.int64)[None, :]
    return unit_roots(sign * j * k, n)


# Whether the backend runs a fft of (kind, lengths, element type) itself: the expander
# leaves those and builds the others' one-dimensional transforms from them.
NativeFft = Callable[[FftType, list[int], PrimitiveType], bool]


class _Emitter:
    """Adds the expansion's instructions beside the fft, with default layouts when the
    module has layouts.

    The expansion is linear in the operand, so a native IFFT's 1/n, which the DFTs here
    do not want, is tracked as one factor (``self.factor``: the values built so far are
    that multiple of the unnormalized transform) and divided out once at the end, where
    it usually cancels the IFFT's own normalization."""

    def __init__(
        self, fft: HloInstruction, complex_type: PrimitiveType, native: NativeFft | None = None
    ):
        self.computation = fft.parent
        self.with_layout = fft.shape.layout is not None
        self.ct = complex_type
        self.native = native
        self.factor = Fraction(1)  # exact, so that it cancels exactly

    def shape(self, et: PrimitiveType, dims: list[int]) -> Shape:
        layout = Layout.default(len(dims)) if self.with_layout else None
        return Shape.array(et, dims, layout)

    def add(
        self, opcode: HloOpcode, et: PrimitiveType, dims: list[int], operands: list, **attrs: object
    ) -> HloInstruction:
        shape = self.shape(et, dims)
        return self.computation.add_instruction(
            HloInstruction(opcode, shape, operands, attributes=attrs)
        )

    def constant(self, values: np.ndarray) -> HloInstruction:
        literal = Literal.from_numpy(values.astype(self.ct.dtype))
        if self.with_layout:
            literal = literal.relayout(Layout.default(values.ndim))
        return self.computation.add_instruction(HloInstruction.create_constant(literal))

    def transpose(self, x: HloInstruction, perm: list[int]) -> HloInstruction:
        dims = [x.shape.dimensions[d] for d in perm]
        return self.add(Op.TRANSPOSE, x.shape.element_type, dims, [x], dimensions=tuple(perm))

    def reshape(self, x: HloInstruction, dims: list[int]) -> HloInstruction:
        return self.add(Op.RESHAPE, x.shape.element_type, dims, [x])

    def multiply(
        self, x: HloInstruction, factor: HloInstruction, dims: list[int]
    ) -> HloInstruction:
        """``x`` times ``factor`` broadcast along ``dims`` of x."""
        shape = list(x.shape.dimensions)
        spread = self.add(Op.BROADCAST, self.ct, shape, [factor], dimensions=tuple(dims))
        return self.add(Op.MULTIPLY, self.ct, shape, [x, spread])

    def slice(self, x: HloInstruction, axis: int, start: int, stop: int) -> HloInstruction:
        dims = list(x.shape.dimensions)
        window = tuple((start, stop, 1) if d == axis else (0, n, 1) for d, n in enumerate(dims))
        dims[axis] = stop - start
        return self.add(Op.SLICE, x.shape.element_type, dims, [x], slice=window)

    # -- the transform -------------------------------------------------------------------

    def dft(self, x: HloInstruction, axis: int, n: int, sign: int) -> HloInstruction:
        """The DFT of ``x`` along ``axis`` (length n), with that axis moved last."""
        dims = list(x.shape.dimensions)
        rest = dims[:axis] + dims[axis + 1 :]
        kind = FftType.FFT if sign < 0 else FftType.IFFT
        if self.native is not None and self.native(kind, [n], self.ct):
            return self.native_dft(x, axis, n, kind)
        factors = self.native_split(n, kind) or split(n)
        if factors is None and n > PRIME_DIRECT_MAX:
            return self.bluestein(x, axis, n, sign)
        if factors is None:
            matrix = self.constant(_roots(n, n, n, sign))
            return self.add(
                Op.DOT,
                self.ct,
                [*rest, n],
                [x, matrix],
                lhs_contracting_dims=(axis,),
                rhs_contracting_dims=(0,),
                lhs_batch_dims=(),
                rhs_batch_dims=(),
            )
        n1, n2 = factors
        # input index j = j1 * n2 + j2; output index k = k1 + n1 * k2
        grid = self.reshape(x, dims[:axis] + [n1, n2] + dims[axis + 1 :])
        inner = self.dft(grid, axis, n1, sign)  # [..., j2 (at axis), ..., k1]
        twiddles = self.constant(_roots(n2, n1, n, sign))  # [j2, k1]
        rank = len(inner.shape.dimensions)
        inner = self.multiply(inner, twiddles, [axis, rank - 1])
        outer = self.dft(inner, axis, n2, sign)  # [..., k1, k2]
        rank = len(outer.shape.dimensions)
        swapped = self.transpose(outer, [*range(rank - 2), rank - 1, rank - 2])  # [.., k2, k1]
        return self.reshape(swapped, [*rest, n])

    def native_split(self, n: int, kind: FftType) -> tuple[int, int] | None:
        """n = n1 * n2 with both lengths the backend's own, near sqrt(n) as ``split``
        takes them, or else with n1 the longest of its own (so the rest, often one
        prime, is all that runs as dots); None if no factor is its own."""
        if self.native is None:
            return None
        balanced = split(n)
        if balanced and all(self.native(kind, [f], self.ct) for f in balanced):
            return balanced
        for n1 in range(n // 2, 1, -1):
            if n % n1 == 0 and self.native(kind, [n1], self.ct):
                return n1, n // n1
        return None

    def native_dft(self, x: HloInstruction, axis: int, n: int, kind: FftType) -> HloInstruction:
        """The backend's own one-dimensional fft, on ``axis`` moved last."""
        rank = len(x.shape.dimensions)
        if axis != rank - 1:
            x = self.transpose(x, [d for d in range(rank) if d != axis] + [axis])
        return self.native_fft(x, [n], kind)

    def native_fft(self, x: HloInstruction, lengths: list[int], kind: FftType) -> HloInstruction:
        """The backend's own fft over the trailing ``lengths``; an IFFT's 1/N goes into
        ``self.factor``."""
        if kind is FftType.IFFT:
            self.factor /= math.prod(lengths)
        dims = list(x.shape.dimensions)
        return self.add(Op.FFT, self.ct, dims, [x], fft_type=kind, fft_length=tuple(lengths))

    def bluestein(self, x: HloInstruction, axis: int, n: int, sign: int) -> HloInstruction:
        """A long prime length as a cyclic convolution of power-of-two length M >= 2n - 1
        (Bluestein): jk = (j^2 + k^2 - (k - j)^2) / 2, so with the chirp c_m =
        exp(s pi i m^2 / n), X_k = c_k * sum_j (x_j c_j) conj(c_(k - j)); the convolution
        is two FFTs of length M and a product with the chirp's (constant) spectrum."""
        rank = len(x.shape.dimensions)
        if axis != rank - 1:
            x = self.transpose(x, [d for d in range(rank) if d != axis] + [axis])
        dims = list(x.shape.dimensions)
        m = 1 << (2 * n - 2).bit_length()
        j = np.arange(n, dtype=np.int64)
        chirp = unit_roots(sign * j * j, 2 * n)  # exp(s pi i j^2 / n)
        kernel = np.zeros(m, np.complex128)
        kernel[:n] = np.conj(chirp)
        kernel[m - n + 1 :] = np.conj(chirp[1:][::-1])
        # The inverse FFT's 1/M is folded into the spectrum, unless the backend's own
        # IFFT applies it.
        native_inverse = self.native is not None and self.native(FftType.IFFT, [m], self.ct)
        spectrum = np.fft.fft(kernel) / (1 if native_inverse else m)
        chirped = self.multiply(x, self.constant(chirp), [rank - 1])
        zero = self.constant(np.zeros(()))
        padding = self.add(Op.BROADCAST, self.ct, [*dims[:-1], m - n], [zero], dimensions=())
        padded = self.add(
            Op.CONCATENATE, self.ct, [*dims[:-1], m], [chirped, padding], dimensions=(rank - 1,)
        )
        forward = self.dft(padded, rank - 1, m, -1)
        product = self.multiply(forward, self.constant(spectrum), [rank - 1])
        convolved = self.slice(self.dft(product, rank - 1, m, 1), rank - 1, 0, n)
        if native_inverse:
            self.factor *= m
        return self.multiply(convolved, self.constant(chirp), [rank - 1])

    def transform(self, x: HloInstruction, lengths: list[int], sign: int) -> HloInstruction:
        """The DFT over the trailing len(lengths) axes: each DFT moves its axis last, so
        taking the first transformed axis each time leaves them in their order."""
        kind = FftType.FFT if sign < 0 else FftType.IFFT
        if len(lengths) > 1 and self.native is not None and self.native(kind, lengths, self.ct):
            return self.native_fft(x, lengths, kind)
        first = len(x.shape.dimensions) - len(lengths)
        for n in lengths:
            x = self.dft(x, first, n, sign)
        return x

    def scale(self, x: HloInstruction, factor: Fraction) -> HloInstruction:
        """``x`` (``self.factor`` times the transform) as ``factor`` times it."""
        factor /= self.factor
        if factor == 1:
            return x
        value = self.constant(np.asarray(float(factor)))
        return self.multiply(x, value, [])

    def to_complex(self, x: HloInstruction) -> HloInstruction:
        return self.add(Op.CONVERT, self.ct, list(x.shape.dimensions), [x])

    def conjugate(self, x: HloInstruction) -> HloInstruction:
        part = self.ct.component_type
        dims = list(x.shape.dimensions)
        re = self.add(Op.REAL, part, dims, [x])
        im = self.add(Op.NEGATE, part, dims, [self.add(Op.IMAG, part, dims, [x])])
        return self.add(Op.COMPLEX, self.ct, dims, [re, im])

    def hermitian(self, x: HloInstruction, n: int) -> HloInstruction:
        """The full length-n spectrum along the last axis from its first n // 2 + 1
        values: X[k] = conj X[n - k] above them."""
        axis = len(x.shape.dimensions) - 1
        kept = self.slice(x, axis, 0, n // 2 + 1)
        upper = n - (n // 2 + 1)
        if upper == 0:
            return kept
        mirrored = self.slice(x, axis, 1, upper + 1)
        dims = list(mirrored.shape.dimensions)
        mirrored = self.add(Op.REVERSE, self.ct, dims, [mirrored], dimensions=(axis,))
        full = list(kept.shape.dimensions)
        full[axis] = n
        return self.add(
            Op.CONCATENATE, self.ct, full, [kept, self.conjugate(mirrored)], dimensions=(axis,)
        )


def _zeros(fft: HloInstruction) -> HloInstruction:
    et = fft.shape.element_type
    zero = fft.parent.add_instruction(HloInstruction.create_constant(Literal.scalar(0, et)))
    return fft.parent.add_instruction(
        HloInstruction(Op.BROADCAST, fft.shape, [zero], attributes={"dimensions": ()})
    )


def expand_fft(fft: HloInstruction, native: NativeFft | None = None) -> HloInstruction | None:
    """The fft as dots, products and transposes, and the ffts ``native`` takes (None for a
    dynamic shape)."""
    (x,) = fft.operands
    if not (x.shape.is_array and x.shape.is_static and fft.shape.is_static):
        return None
    kind = FftType(fft.attribute("fft_type"))
    lengths = list(int_tuple(fft.attribute("fft_length")))
    out = fft.shape
    if 0 in out.dimensions or 0 in x.shape.dimensions or 0 in lengths:
        return _zeros(fft)
    ct = out.element_type if out.element_type.is_complex else x.shape.element_type
    e = _Emitter(fft, ct, native)
    total = math.prod(lengths)
    if kind is FftType.FFT:
        y = e.scale(e.transform(x, lengths, -1), Fraction(1))
    elif kind is FftType.IFFT:
        y = e.scale(e.transform(x, lengths, 1), Fraction(1, total))
    elif kind is FftType.RFFT:
        y = e.scale(e.transform(e.to_complex(x), lengths, -1), Fraction(1))
        y = e.slice(y, len(out.dimensions) - 1, 0, lengths[-1] // 2 + 1)
    else:  # IRFFT
        leading = x
        if len(lengths) > 1:  # the leading axes, then the last one moved back last
            rank = len(x.shape.dimensions)
            first = rank - len(lengths)
            for n in lengths[:-1]:
                leading = e.dft(leading, first, n, 1)
            perm = [d for d in range(rank) if d != first] + [first]
            leading = e.transpose(leading, perm)
        y = e.transform(e.hermitian(leading, lengths[-1]), lengths[-1:], 1)
        y = e.scale(y, Fraction(1, total))
        y = e.add(Op.REAL, out.element_type, list(out.dimensions), [y])
    if y.shape != out:
        y = fft.parent.add_instruction(HloInstruction(Op.COPY, out, [y]))
    return y


class FftExpander(ExpanderPass):
    """Expands every fft but those ``native`` says the backend runs itself, which the
    expansions are then built from."""

    name = "fft-expander"
    opcodes = frozenset({Op.FFT})

    def __init__(self, native: NativeFft | None = None) -> None:
        super().__init__(self._is_native)
        self.native = native

    def _is_native(self, fft: HloInstruction) -> bool:
        if self.native is None or not fft.shape.is_static:
            return False
        (x,) = fft.operands
        return self.native(
            FftType(fft.attribute("fft_type")),
            list(int_tuple(fft.attribute("fft_length"))),
            x.shape.element_type,
        )

    def expand(self, instruction: HloInstruction) -> HloInstruction | None:
        value = expand_fft(instruction, self.native)
        return value
