"""Building blocks of the vectorizable math functions (``math.approx``): one builder of
straight-line float code for ``float`` or ``double``, and constants computed to high
precision here rather than typed in.

Everything emitted is an instruction the loop vectorizer widens: arithmetic, ``select``,
bitcasts and integer ops, and the intrinsics ``llvm.fma``/``fabs``/``floor``/``rint``/
``copysign``/``minnum``/``maxnum``/``sqrt`` that map to single AVX-512 instructions. No
libm call, no branch, no new basic block: a call or a branch in a loop body stops LLVM
from vectorizing it.
"""

from __future__ import annotations

import decimal
import math
import struct
from collections.abc import Sequence
from functools import cache

import numpy as np
from llvmlite import ir

# What an invalid operation gives on x86 (the "default NaN", sign bit set), and so what
# numpy and XLA:CPU give for log(-1), sin(inf), (-2)^0.5: domain errors produce this one.
DEFAULT_NAN = -float("nan")

F32 = ir.FloatType()
F64 = ir.DoubleType()
I1 = ir.IntType(1)
I32 = ir.IntType(32)
I64 = ir.IntType(64)

Operand = ir.Value | float | int


# -- constants ---------------------------------------------------------------------------


def _decimal_pi(digits: int) -> decimal.Decimal:
    """pi to ``digits`` decimal digits (Machin: 16 atan(1/5) - 4 atan(1/239))."""
    with decimal.localcontext() as ctx:
        ctx.prec = digits + 10

        def atan_inverse(n: int) -> decimal.Decimal:
            total, term, k, n2 = decimal.Decimal(0), decimal.Decimal(1) / n, 0, n * n
            smallest = decimal.Decimal(10) ** -(digits + 10)
            while term > smallest:
                total += term / (2 * k + 1) if k % 2 == 0 else -term / (2 * k + 1)
                term /= n2
                k += 1
            return total

        return +(16 * atan_inverse(5) - 4 * atan_inverse(239))


@cache
def high_precision(name: str) -> decimal.Decimal:
    """ln 2, pi/2, 2/pi... to 400 decimal digits."""
    with decimal.localcontext() as ctx:
        ctx.prec = 400
        if name == "ln2":
            return decimal.Decimal(2).ln()
        pi = _decimal_pi(400)
        return {"pi": pi, "pi/2": pi / 2, "pi/4": pi / 4, "2/pi": 2 / pi}[name]


def split(name: str, double: bool, hi_bits: int | None = None) -> tuple[float, float]:
    """(hi, lo): hi the constant rounded to the format (or truncated to ``hi_bits``
    significant bits, so that products with small integers are exact), lo the rest
    rounded to the format."""
    value = high_precision(name)
    dtype = np.float64 if double else np.float32
    hi = float(dtype(float(value)))
    if hi_bits is not None:
        mantissa, exponent = math.frexp(hi)
        hi = math.ldexp(math.floor(mantissa * 2.0**hi_bits), exponent - hi_bits)
    with decimal.localcontext() as ctx:
        ctx.prec = 400
        lo = float(dtype(float(value - decimal.Decimal(hi))))
    return hi, lo


def two_pi_bits(count: int) -> int:
    """The first ``count`` bits of 2/pi after the binary point, as an integer."""
    with decimal.localcontext() as ctx:
        ctx.prec = 400
        return int(high_precision("2/pi") * (decimal.Decimal(2) ** count))


# -- the builder ---------------------------------------------------------------------------


class Emitter:
    """Straight-line float code of one type (``float`` or ``double``) at ``b``'s position.

    Python numbers passed where values are expected become constants of the type (ints as
    integers of the type's width for the integer operations)."""

    def __init__(self, b: ir.IRBuilder, ty: ir.Type) -> None:
        self.b = b
        self.ty = ty
        self.double = ty == F64
        self.int = I64 if self.double else I32
        self.mantissa = 52 if self.double else 23
        self.bias = 1023 if self.double else 127
        self.min_normal = 2.0 ** (1 - self.bias)

    def other(self, ty: ir.Type) -> Emitter:
        return Emitter(self.b, ty)

    # constants and conversions
    def c(self, value: Operand) -> ir.Value:
        if isinstance(value, ir.Value):
            return value
        return ir.Constant(self.ty, float(value))

    def i(self, value: Operand) -> ir.Value:
        if isinstance(value, ir.Value):
            return value
        return ir.Constant(self.int, int(value) & ((1 << self.int.width) - 1))

    def bits(self, x: ir.Value) -> ir.Value:
        return self.b.bitcast(x, self.int)

    def from_bits(self, n: ir.Value) -> ir.Value:
        return self.b.bitcast(n, self.ty)

    def to_float(self, n: ir.Value) -> ir.Value:
        return self.b.sitofp(n, self.ty)

    def extend(self, x: ir.Value) -> ir.Value:
        """A float as a double (exact)."""
        return self.b.fpext(x, F64) if x.type == F32 else x

    def narrow(self, x: ir.Value, ty: ir.Type) -> ir.Value:
        """A double rounded to ``ty`` (once, to nearest even)."""
        return self.b.fptrunc(x, ty) if ty == F32 else x

    # arithmetic
    def add(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.fadd(self.c(x), self.c(y))

    def sub(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.fsub(self.c(x), self.c(y))

    def mul(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.fmul(self.c(x), self.c(y))

    def div(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.fdiv(self.c(x), self.c(y))

    def neg(self, x: ir.Value) -> ir.Value:
        return self.b.fneg(x)

    def _intrinsic(self, name: str, *args: Operand) -> ir.Value:
        values = [self.c(a) for a in args]
        module = self.b.block.function.module
        mangled = f"llvm.{name}.{'f64' if self.double else 'f32'}"
        fn = module.globals.get(mangled)
        if fn is None:
            fn = ir.Function(module, ir.FunctionType(self.ty, [self.ty] * len(values)), mangled)
        return self.b.call(fn, values)

    def fma(self, x: Operand, y: Operand, z: Operand) -> ir.Value:
        """x * y + z, rounded once."""
        return self._intrinsic("fma", x, y, z)

    def abs(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("fabs", x)

    def floor(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("floor", x)

    def rint(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("rint", x)

    def rint_scaled(self, x: ir.Value, scale: float) -> tuple[ir.Value, ir.Value]:
        """(n, n as an integer), n the integer nearest x * scale (ties to even), for
        |x * scale| < 2^(mantissa - 1).

        Adding 1.5 * 2^mantissa rounds to an integer by itself (the sum's ULP is 1), and
        the sum's low bits are then n in two's complement: one fma and a subtraction on
        each side, where rint of a product is a multiply, a round (two operations of 8
        cycles' latency on x86) and a float-to-integer conversion. x * scale is not
        rounded before it is rounded to an integer, so n can differ from
        rint(round(x * scale)) where the product lies within half an ULP of a half-integer:
        a reduced argument past ln2/2 by that much, which the polynomials cover."""
        magic = 1.5 * 2.0**self.mantissa
        t = self.fma(x, scale, magic)
        n_int = self.isub(self.bits(t), bits_of(magic, self.double))
        return self.sub(t, magic), n_int

    def sqrt(self, x: ir.Value) -> ir.Value:
        return self._intrinsic("sqrt", x)

    def copysign(self, magnitude: Operand, sign: ir.Value) -> ir.Value:
        return self._intrinsic("copysign", magnitude, sign)

    def clamp(self, x: ir.Value, low: float, high: float) -> ir.Value:
        """x limited to [low, high]; NaN becomes ``low`` (the caller selects NaN back)."""
        return self._intrinsic("maxnum", self._intrinsic("minnum", x, high), low)

    def min(self, x: Operand, y: Operand) -> ir.Value:
        return self._intrinsic("minnum", x, y)

    def max(self, x: Operand, y: Operand) -> ir.Value:
        return self._intrinsic("maxnum", x, y)

    def poly(
        self, t: ir.Value, coefficients: Sequence[float], t2: ir.Value | None = None
    ) -> ir.Value:
        """sum c_k t^k by Estrin's scheme (pairs c_2i + c_2i+1 t, then pairs of those
        with t^2, t^4, ...), lowest coefficient first; ``t2`` is t*t if the caller has it.
        Up to three coefficients without ``t2``: Horner's rule, as deep and one product
        fewer.

        Why not Horner's rule: its n fmas form one chain of n fma latencies; Estrin's is
        about log2(n) + 1 deep. In a vectorized loop the chain, not the count, sets the speed:
        the scheduler holds every instruction still waiting for its operands, so a long
        chain keeps few iterations in flight (exp on AVX2: 1.2x faster). The rounding
        differs from Horner's in the last bit at most; the accuracy tests bound it."""
        terms = [self.c(c) for c in coefficients]
        if len(terms) <= 3 and t2 is None:
            # Horner: as deep as Estrin here (two fmas vs a product beside an fma, then
            # an fma), without Estrin's extra product.
            acc = terms[-1]
            for c in reversed(terms[:-1]):
                acc = self.fma(acc, t, c)
            return acc
        power = t
        while len(terms) > 1:
            paired = [self.fma(terms[k + 1], power, terms[k]) for k in range(0, len(terms) - 1, 2)]
            if len(terms) % 2:
                paired.append(terms[-1])
            terms = paired
            if len(terms) > 1:
                power = t2 if power is t and t2 is not None else self.mul(power, power)
        return terms[0]

    # comparisons and selection
    def cmp(self, op: str, x: Operand, y: Operand) -> ir.Value:
        """An ordered comparison (false when either side is NaN)."""
        return self.b.fcmp_ordered(op, self.c(x), self.c(y))

    def is_nan(self, x: ir.Value) -> ir.Value:
        return self.b.fcmp_unordered("uno", x, x)

    def select(self, condition: ir.Value, x: Operand, y: Operand) -> ir.Value:
        return self.b.select(condition, self.c(x), self.c(y))

    def keep_nan(self, x: ir.Value, result: ir.Value) -> ir.Value:
        """``result``, or ``x`` itself where ``x`` is NaN (its payload survives)."""
        return self.b.select(self.is_nan(x), x, result)

    # integers of the type's width
    def iadd(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.add(self.i(x), self.i(y))

    def isub(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.sub(self.i(x), self.i(y))

    def iand(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.and_(self.i(x), self.i(y))

    def ishl(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.shl(self.i(x), self.i(y))

    def iashr(self, x: Operand, y: Operand) -> ir.Value:
        return self.b.ashr(self.i(x), self.i(y))

    # powers of two
    def pow2(self, n: ir.Value) -> ir.Value:
        """2^n for an integer n in the normal exponent range, as a float."""
        return self.from_bits(self.ishl(self.iadd(n, self.bias), self.mantissa))

    def ldexp_one_plus(self, s: ir.Value, n: ir.Value) -> ir.Value:
        """(1 + s) 2^n for 1 + s near 1 and |n| up to about twice the exponent range, in
        two exact-or-final steps: (1 + s) 2^(n/2) stays normal, so only the second product
        rounds, which makes denormal results correctly rounded and overflow exactly
        IEEE's. The first step is fma(s, 2^(n/2), 2^(n/2)), the same bits as rounding
        1 + s and scaling it (scaling by a power of two commutes with rounding while the
        result stays normal), one operation's latency fewer on the critical path."""
        half = self.iashr(n, 1)
        scale = self.pow2(half)
        return self.mul(self.fma(s, scale, scale), self.pow2(self.isub(n, half)))


def bits_of(value: float, double: bool) -> int:
    """The IEEE bit pattern of ``value`` rounded to the format."""
    if double:
        return struct.unpack("<Q", struct.pack("<d", value))[0]
    return struct.unpack("<I", struct.pack("<f", value))[0]


LOG2E = 1 / math.log(2)
