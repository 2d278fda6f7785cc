"""Scalar code for every elementwise op, with the interpreter's exact semantics.

:func:`emit_elemental` turns one elementwise instruction and its scalar operand values into
its scalar result; :func:`emit_binary` (reducers), :func:`emit_compare` and
:func:`emit_convert` serve the other emitters. Values are in ``llvm_types``' form (see
``support`` for sub-byte integers, ``narrow_floats`` for bf16 and the 8-/4-bit
floats). The code is branch-free (selects and intrinsics, no new basic blocks) so that
LLVM's loop vectorizer vectorizes loops around it; where LLVM has undefined behaviour
(division by 0, INT_MIN / -1, shifts by the width, fptosi out of range) a safe operand is
selected first and the result fixed after.

The families live in ``elemental.integer`` (integers and pred), ``elemental.floating`` (float
ops in float or double), ``elemental.narrow_floats`` (widening and rounding of the narrow float
types), ``elemental.complex`` (XLA's complex formulas on the two parts) and
``elemental.convert`` (convert, bitcast-convert, reduce-precision,
stochastic-convert); this module only dispatches, by the tables :data:`RULES` (opcode ->
rule) and the families' own opcode tables.

Coverage (N: native; -: ``NotEmittable``, the interpreter's kernel runs instead; .: not
valid HLO, the parser rejects it)::

    op                                        pred ints  f16 bf16 f32 f64 f8/f4 complex
    add subtract multiply divide               N    N     N   N    N   N   N     N
    remainder                                  N    N     N   N    N   N   N     .
    maximum minimum power                      N    N     N   N    N   N   N     N
    and or xor not                             N    N     .   .    .   .   .     .
    shift-left shift-right-* mulhi             .    N     .   .    .   .   .     .
    popcnt count-leading-zeros                 .    N     .   .    .   .   .     .
    negate abs sign                            .    N     N   N    N   N   N     N
    copy                                       N    N     N   N    N   N   N     N
    floor ceil round-nearest-afz/-even         .    .     N   N    N   N   N     .
    sqrt rsqrt cbrt exponential log            .    .     N   N    N   N   N     N
    is-finite erf                              .    .     N   N    N   N   N     .
    exponential-minus-one log-plus-one tanh    .    .     N   N    N   N   N     N
    logistic sine cosine tan atan2             .    .     N   N    N   N   N     N
    acos acosh asin asinh atan atanh cosh sinh .    .     N   N    N   N   N     N
    real imag complex                          .    .     N   N    N   N   N     N
    compare (every direction; TOTALORDER)      N    N     N   N    N   N   N     EQ NE
    select                                     N    N     N   N    N   N   N     N
    clamp                                      N    N     N   N    N   N   N     .
    convert (to complex too)                   N    N     N   N    N   N   N     N
    bitcast-convert (equal widths)             .    N     N   N    N   N   N     N
    reduce-precision                           .    .     N   N    N   N   N     .
    stochastic-convert (float -> integer)      .    N     N   N    N   N   N     .
    map; select of tuples                      -    -     -   -    -   -   -     -

("ints" is every integer type, s2, s4, u2 and u4 included; "f8/f4" every 8-bit float
type and f4e2m1fn; an op is native when all its operand and result types are.)

Accuracy relative to the interpreter, in ULPs of the result type (0: bit for bit; a NaN
result is a NaN on both sides, with the same bits for copy, real, select and
bitcast-convert, maybe another payload elsewhere)::

    op                                       f32  f64  f16 bf16 f8 f4  code today
    exact ops, sqrt, convert, compare         0    0    0              LLVM
    rsqrt                                     0    0    0              math.approx
    exponential log log-plus-one              1    2    1              math.approx
    exponential-minus-one sine cosine         1    2    1              math.approx
    tan atan2 tanh logistic                   1    3    1              math.approx
    erf power cbrt                            1    4    1              math.approx
    acos acosh asin asinh atan atanh          1    4    1              libm in double
    cosh sinh                                 1    4    1              libm in double
    any of these through libm (fallback)      1    4    1              libm in double

Where ``math.approx`` has the opcode its vectorizable code runs, within its documented
bound of the correctly rounded value; against the interpreter f64 adds an ULP or two of
numpy's own error (SVML on AVX-512; numpy 2.4's cbrt is 3 ULPs off at places; scipy's expit is 1/(1+exp(-x)), 0 below x = -709.78,
where math.approx's logistic gives the true denormal). An opcode math.approx adds later
is held to 4 ULPs by the tests until its row here is updated. Otherwise libm runs in
double and rounds once, which is the interpreter's own definition for f32 and narrower
types (they agree bit for bit but for a rare double rounding); for f64 glibc and numpy
differ by the ULPs shown (measured: at most 3). Narrow types round an f32 result, which
moves them by at most one of their own ULPs (f8e8m0fnu has no zero: NaN stands one step
below 2^-127). tests/backends/cpu/test_elemental_math.py checks every row, and the libm
rows for every opcode with math.approx switched off.

Complex ops (``elemental.complex``) follow the interpreter's formulas: add, subtract,
negate, multiply, divide, abs, sign and sqrt are bit for bit on c64 (on c128 multiply
and divide can differ in the last bits where a product cancels: the interpreter's f64
FMA is x87's, LLVM's the exact one); the functions carry their real functions' ULPs,
and stay within 2e-6 (c64) and 4e-15 (c128) of the result's magnitude
(tests/backends/cpu/test_native_complex.py, special values included).

Performance: integer division and remainder stay scalar inside vectorized loops (x86
has no SIMD integer division); libm calls (the non-math.approx rows) keep a loop scalar.
Everything else vectorizes (see test_elemental.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llvmlite import ir

from ....hlo.instruction import HloInstruction
from ....opcode import HloOpcode
from ....types import PrimitiveType
from ..llvm_types import NotEmittable
from . import complex as cplx
from . import complex_rules
from . import floating as flt
from . import integer as ints
from . import narrow_floats as floats
from .convert import bitcast_convert, canonical, emit_convert, reduce_precision, stochastic_convert
from .support import check_type, int_store, int_value, is_true, to_i8

Op = HloOpcode
P = PrimitiveType
Values = Sequence[ir.Value]
Types = list[PrimitiveType]
Rule = Callable[[ir.IRBuilder, HloInstruction, Values, Types], ir.Value]


def is_native_type(et: PrimitiveType) -> bool:
    """Whether elementwise ops on ``et`` have native code (others fall back)."""
    try:
        check_type(et)
    except NotEmittable:
        return False
    return True


def _not_on(opcode: HloOpcode, et: PrimitiveType) -> NotEmittable:
    return NotEmittable(f"{opcode.value} on {et.hlo_name} has no native code")


def _complex_fn(table: dict, opcode: HloOpcode, et: PrimitiveType) -> Callable[..., ir.Value]:
    fn = table.get(opcode)
    if fn is None:
        raise _not_on(opcode, et)
    return fn


# -- the public entry points -------------------------------------------------------------

_IDENTITIES = (Op.COPY, Op.REAL)  # real of a real number


def emit_unary(
    b: ir.IRBuilder, opcode: HloOpcode, x: ir.Value, element_type: PrimitiveType
) -> ir.Value:
    """A unary arithmetic op whose result has the operand's type."""
    check_type(element_type)
    if element_type.is_complex:
        return _complex_fn(complex_rules.UNARY, opcode, element_type)(b, x)
    if opcode in _IDENTITIES and (element_type.is_float or opcode is Op.COPY):
        return canonical(b, x, element_type)  # the same bits, NaN payloads included
    if element_type.is_float:
        fn = flt.UNARY.get(opcode)
        if fn is None:
            raise _not_on(opcode, element_type)
        return floats.narrow(b, fn(b, floats.widen(b, x, element_type)), element_type)
    fn = ints.UNARY.get(opcode)
    if fn is None:
        raise _not_on(opcode, element_type)
    return int_store(b, fn(b, element_type, int_value(b, x, element_type)), element_type)


def emit_binary(
    b: ir.IRBuilder, opcode: HloOpcode, lhs: ir.Value, rhs: ir.Value, element_type: PrimitiveType
) -> ir.Value:
    """A binary arithmetic or logical op on one element type (reducers use this)."""
    check_type(element_type)
    et = element_type
    if et.is_complex:
        return _complex_fn(complex_rules.BINARY, opcode, et)(b, lhs, rhs)
    if et.is_float:
        fn = flt.BINARY.get(opcode)
        if fn is None:
            raise _not_on(opcode, et)
        return floats.narrow(b, fn(b, floats.widen(b, lhs, et), floats.widen(b, rhs, et)), et)
    fn = ints.BINARY.get(opcode)
    if fn is None:
        raise _not_on(opcode, et)
    return int_store(b, fn(b, et, int_value(b, lhs, et), int_value(b, rhs, et)), et)


_ICMP = {"EQ": "==", "NE": "!=", "LT": "<", "LE": "<=", "GT": ">", "GE": ">="}


def emit_compare(
    b: ir.IRBuilder,
    direction: object,
    lhs: ir.Value,
    rhs: ir.Value,
    element_type: PrimitiveType,
    comparison_type: object = None,
) -> ir.Value:
    """``lhs <direction> rhs`` as a pred (i8 0/1).

    Floats compare as IEEE values (ordered; NE is true for NaN) or, with ``TOTALORDER``,
    by XLA's total order (``elemental.narrow_floats.total_order_key``). Integers compare by
    their element type's signedness, as the interpreter does whatever ``SIGNED`` or
    ``UNSIGNED`` says.
    """
    check_type(element_type)
    et = element_type
    op = _ICMP[str(getattr(direction, "value", direction)).upper()]
    kind = str(getattr(comparison_type, "value", comparison_type or "")).upper()
    if et.is_complex:
        return cplx.compare(b, op, lhs, rhs)
    if et.is_float:
        if kind == "TOTALORDER":
            x, y = (floats.total_order_key(b, v, et) for v in (lhs, rhs))
            return to_i8(b, b.icmp_signed(op, x, y))
        x, y = floats.widen(b, lhs, et), floats.widen(b, rhs, et)
        compare = b.fcmp_unordered if op == "!=" else b.fcmp_ordered
        return to_i8(b, compare(op, x, y))
    x, y = int_value(b, lhs, et), int_value(b, rhs, et)
    compare = b.icmp_signed if et.is_signed_integral else b.icmp_unsigned
    return to_i8(b, compare(op, x, y))


def emit_elemental(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Sequence[ir.Value]
) -> ir.Value:
    """The scalar result of elementwise ``instruction`` from scalar operand values (in the
    ``llvm_types`` form of each operand's element type), in the form of its own type."""
    opcode = instruction.opcode
    rule = RULES.get(opcode)
    if rule is None and opcode not in complex_rules.RULES:
        raise NotEmittable(f"{opcode.value} has no native elementwise code")
    if not instruction.shape.is_array or any(not o.shape.is_array for o in instruction.operands):
        raise NotEmittable(f"{opcode.value} of tuples or tokens {instruction.shape}")
    types = [o.shape.element_type for o in instruction.operands]
    for et in (*types, instruction.shape.element_type):
        check_type(et)
    if any(et.is_complex for et in (*types, instruction.shape.element_type)):
        complex_rule = complex_rules.RULES.get(opcode)
        result = complex_rule(b, instruction, operands, types) if complex_rule else None
        if result is not None:
            return result
    if rule is None:
        raise NotEmittable(f"{opcode.value} has no native code for these types")
    return rule(b, instruction, operands, types)


# -- rules: one per kind of instruction ----------------------------------------------------


def _unary(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    out = instruction.shape.element_type
    if out != types[0]:
        raise NotEmittable(f"{instruction.opcode.value} from {types[0]} to {out}")
    return emit_unary(b, instruction.opcode, operands[0], types[0])


def _binary(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return emit_binary(b, instruction.opcode, operands[0], operands[1], types[0])


def _is_finite(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    if not types[0].is_float:
        raise _not_on(Op.IS_FINITE, types[0])
    return to_i8(b, flt.is_finite(b, floats.widen(b, operands[0], types[0])))


def _compare(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return emit_compare(
        b,
        instruction.attribute("direction"),
        operands[0],
        operands[1],
        types[0],
        instruction.attribute("type"),
    )


def _select(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    pred, on_true, on_false = operands
    chosen = b.select(is_true(b, pred), on_true, on_false)
    return canonical(b, chosen, instruction.shape.element_type)  # sub-byte: ml_dtypes' form


def _clamp(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    """min(max(x, lo), hi) with maximum's and minimum's NaN and zero rules, computed once
    in the compute type (the intermediate maximum is exact, so no rounding is skipped)."""
    et = types[1]
    lo, x, hi = operands
    if et.is_float:
        wide_lo, wide_x, wide_hi = (floats.widen(b, v, et) for v in (lo, x, hi))
        low = flt.BINARY[Op.MAXIMUM](b, wide_x, wide_lo)
        return floats.narrow(b, flt.BINARY[Op.MINIMUM](b, low, wide_hi), et)
    v_lo, v_x, v_hi = (int_value(b, v, et) for v in (lo, x, hi))
    result = ints.minimum(b, et, ints.maximum(b, et, v_x, v_lo), v_hi)
    return int_store(b, result, et)


def _convert(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return emit_convert(b, operands[0], types[0], instruction.shape.element_type)


def _bitcast_convert(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return bitcast_convert(b, operands[0], types[0], instruction.shape.element_type)


def _reduce_precision(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return reduce_precision(
        b,
        operands[0],
        types[0],
        int(instruction.attribute("exponent_bits")),
        int(instruction.attribute("mantissa_bits")),
    )


def _stochastic_convert(
    b: ir.IRBuilder, instruction: HloInstruction, operands: Values, types: Types
) -> ir.Value:
    return stochastic_convert(
        b, operands[0], operands[1], types[0], types[1], instruction.shape.element_type
    )


_UNARY_OPCODES = set(flt.UNARY) | set(ints.UNARY) | {Op.COPY}
_BINARY_OPCODES = set(flt.BINARY) | set(ints.BINARY)

RULES: dict[HloOpcode, Rule] = {
    **{op: _unary for op in _UNARY_OPCODES},
    **{op: _binary for op in _BINARY_OPCODES},
    Op.IS_FINITE: _is_finite,
    Op.COMPARE: _compare,
    Op.SELECT: _select,
    Op.CLAMP: _clamp,
    Op.CONVERT: _convert,
    Op.BITCAST_CONVERT: _bitcast_convert,
    Op.REDUCE_PRECISION: _reduce_precision,
    Op.STOCHASTIC_CONVERT: _stochastic_convert,
}

__all__ = [
    "RULES",
    "emit_binary",
    "emit_compare",
    "emit_convert",
    "emit_elemental",
    "emit_unary",
    "is_native_type",
]
